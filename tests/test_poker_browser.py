"""The Würfelpoker tab in a real browser (issue 31): the form's answer is the API's, in English and German."""

import shutil
import socket
import threading
import time

import pytest

pytestmark = pytest.mark.slow  # the browser: a slow test (README), as the issue counts them

pytest.importorskip("playwright", reason="Playwright for Python is not installed (test extra)")
uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("Debian's chromium is not installed: apt-get install chromium", allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from solver.web.app import LOOPBACK_HOSTS, create_app  # noqa: E402


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """The server on a free port with an empty tables folder: the duel needs no table."""
    app = create_app(tmp_path_factory.mktemp("poker-tables"), solve_missing=False, allowed_hosts=LOOPBACK_HOSTS)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    for _ in range(600):
        if server.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True


@pytest.mark.parametrize("locale,best", [("en-US", "Best: keep 6 6 6, reroll 2"), ("de-DE", "6 6 6 behalten")])
def test_poker_tab_answers(base, locale, best):
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(locale=locale)
        page.goto(base + "/")
        page.locator("#poker-tab").click()
        expect(page.locator("#start")).to_contain_text("%", timeout=30_000)  # the first player's start chance
        page.fill("#dice", "12666")
        page.fill("#hand", "55666")
        page.locator("#poker-form button[type=submit]").click()
        expect(page.locator("#best")).to_contain_text(best, timeout=30_000)
        expect(page.locator("#options tbody tr")).to_have_count(16)
        page.fill("#dice", "1234")
        page.locator("#poker-form button[type=submit]").click()
        expect(page.locator("#error")).not_to_be_empty(timeout=30_000)
        browser.close()
