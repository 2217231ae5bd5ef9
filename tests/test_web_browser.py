"""The advice page in a real browser: Playwright for Python driving Debian's Chromium against the real
server (uvicorn on a free loopback port). One whole turn is tapped through and the advice shown is
checked against the API's; screenshots at phone and desktop size go to the test's tmp folder."""

import json
import re
import shutil
import socket
import threading
import time
import urllib.request
from urllib.parse import urlencode

import pytest
from click.testing import CliRunner

from solver.cli import cli

pytestmark = pytest.mark.slow  # the browser: a slow test (README), as the issue counts them

pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("playwright", reason="Playwright for Python is not installed (test extra)")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("Debian's chromium is not installed: apt-get install chromium", allow_module_level=True)

import uvicorn  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402

from solver.web.app import LOOPBACK_HOSTS, create_app  # noqa: E402

PHONE = {"width": 390, "height": 844}
# CI shares 2 cores with Numba's first compilations: a first answer can take seconds, so expectations
# wait longer than Playwright's 5 s (a passing test does not wait any longer for it)
expect.set_options(timeout=30_000)
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The real server on a free port, in a thread, with the tables of kniffel and generala solved once, and a five-box
    Kniffel registered as a preset for this module with its target table (about a second; Kniffel's
    own takes minutes), for playing to a target score."""
    import dataclasses

    from solver.rules.presets import PRESETS

    boxes = ["ones", "sixes", "three_of_a_kind", "kniffel", "chance"]
    mini = PRESETS["kniffel"].reduced(boxes=boxes, bonuses=[(15, 10)], name="kniffel-mini")
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(PRESETS, "kniffel-mini", dataclasses.replace(mini, aliases=(), title="Kniffel, five boxes"))
        yield from serve(tmp_path_factory.mktemp("browser-tables"))


def serve(tdir):
    for args in (["solve", "kniffel", "generala"], ["solve", "kniffel-mini", "--target"]):
        res = CliRunner().invoke(cli, ["--tables", str(tdir), "--no-progress", *args])
        assert res.exit_code == 0, res.output
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(tdir, solve_missing=False, allowed_hosts=LOOPBACK_HOSTS)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def api(base, path, **params):
    with urllib.request.urlopen(f"{base}{path}?{urlencode(params)}") as res:
        return json.load(res)


def open_page(page, url):
    """Load the page and wait until every control is wired (a tap before that would be lost)."""
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")


def settled(page):
    """Wait until the answer for the situation on screen has come (the advice is never stale)."""
    expect(page.locator("#advice")).to_have_attribute("aria-busy", "false", timeout=60_000)


def tap_faces(page, faces):
    for f in faces:
        page.locator("#faces button", has_text=str(f)).click()


def check_advice(page, base, card, dice, roll):
    """The page shows the API's best option, expected score and ranked options; returns the advice."""
    want = api(base, "/api/advise", variant="kniffel", card=card, dice=dice, roll=roll)
    settled(page)
    best = page.locator("#best")
    expect(best).to_contain_text(want["best"]["text"])
    expect(best).to_contain_text(f"{want['best']['expected_final_score']:.2f}")
    rows = page.locator("#options tbody tr.option")
    expect(rows).to_have_count(len(want["options"]))
    for i, o in enumerate(want["options"]):
        expected = rows.nth(i).locator("td").nth(2)
        expect(expected.locator(".value")).to_have_text(f"{o['expected_final_score']:.2f}")
        expect(expected.locator(".spread")).to_have_text(f"± {o['std']:.1f}")  # each option's spread, under it
    expect(rows.nth(0)).to_have_class("option best" + (" shown" if want["action"] == "keep" else ""))
    return want


def kept_faces(page):
    return sorted(int(t) for t in page.locator("#dice .die.kept").all_inner_texts())


def test_one_whole_turn(server, browser, tmp_path):
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/")
    expect(page.locator("#variant")).to_have_value("kniffel")
    expect(page.locator("#dice .die")).to_have_count(5)
    # roll 1: tap 3 3 5 1 6
    tap_faces(page, [3, 3, 5, 1, 6])
    want = check_advice(page, server, "", "33516", 1)
    assert kept_faces(page) == want["best"]["keep"]
    assert "dice=33516" in page.url and "roll=1" in page.url
    chart = api(server, "/api/distribution", variant="kniffel", card="")  # the chart of the current card
    expect(page.locator("#chart svg")).to_have_attribute(
        "aria-label", f"Final score distribution: mean {chart['mean']:.2f}, median {chart['median']}"
    )
    page.screenshot(path=str(tmp_path / "phone-roll1.png"), full_page=True)
    page.locator("#advice").screenshot(path=str(tmp_path / "phone-roll1-advice.png"))  # the options, full size
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(tmp_path / "desktop-roll1.png"), full_page=True)
    page.set_viewport_size(PHONE)
    # roll 2: the kept dice stay, the others are tapped anew
    page.locator("#next-roll").click()
    expect(page.locator('#rolls button[data-roll="2"]')).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#dice .die.empty")).to_have_count(5 - len(want["best"]["keep"]))
    tap_faces(page, [3, 2, 6][: 5 - len(want["best"]["keep"])])
    dice2 = "".join(page.locator("#dice .die").all_inner_texts())
    want = check_advice(page, server, "", dice2, 2)
    assert kept_faces(page) == want["best"]["keep"]
    # roll 3: the box to fill
    page.locator("#next-roll").click()
    expect(page.locator('#rolls button[data-roll="3"]')).to_have_attribute("aria-pressed", "true")
    empty = page.locator("#dice .die.empty").count()
    tap_faces(page, [3, 3, 4, 4, 1][:empty])
    dice3 = "".join(page.locator("#dice .die").all_inner_texts())
    want = check_advice(page, server, "", dice3, 3)
    assert want["action"] == "box"
    box = want["best"]["box"]
    expect(page.locator(f"#box-{box}")).to_have_attribute("placeholder", str(want["best"]["points"]))
    page.screenshot(path=str(tmp_path / "phone-roll3.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(tmp_path / "desktop-roll3.png"), full_page=True)
    # fill the best box: the card holds it, the next turn starts, and undo brings the situation back
    page.locator("#options tbody tr.option").nth(0).get_by_role("button", name="fill").click()
    expect(page.locator(f"#box-{box}")).to_have_value(str(want["best"]["points"]))
    expect(page.locator('#rolls button[data-roll="1"]')).to_have_attribute("aria-pressed", "true")
    card = f"{box}={want['best']['points']}"
    value = api(server, "/api/value", variant="kniffel", card=card)
    expect(page.locator("#card-value")).to_contain_text(f"{value['expected_final_score']:.2f}")
    assert abs(value["expected_final_score"] - want["best"]["expected_final_score"]) < 1e-6
    page.locator("#undo").click()
    expect(page.locator(f"#box-{box}")).to_have_value("")
    expect(page.locator('#rolls button[data-roll="3"]')).to_have_attribute("aria-pressed", "true")
    page.close()


def test_situation_from_the_url(server, browser, tmp_path):
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/?variant=kniffel&card=chance%3D22&dice=33516&roll=1")
    want = check_advice(page, server, "chance=22", "33516", 1)
    expect(page.locator("#box-chance")).to_have_value("22")
    assert kept_faces(page) == want["best"]["keep"]
    open_page(page, server + "/?variant=kniffel&card=einser%3D9&dice=33516")
    expect(page.locator("#error")).to_contain_text("einser=9")
    page.close()


def test_a_bonus_typed_before_its_box_is_paid_once_when_the_box_is_filled(server, browser):
    """The pad marks a Kniffel bonus as the roll is made: typed before its box, then the box filled from the
    advice, the card held the bonus twice (extra 100 for one bonus Kniffel). Meanwhile the card is valued at
    the turn's start, the bonus named as waiting for its box, and no error shown."""
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/?variant=kniffel&card=kniffel%3D50%2Cextra%3D50&dice=66666&roll=3")
    settled(page)
    expect(page.locator("#card-points")).to_have_text("— 50 points (+50 bonus once its box is filled)")
    expect(page.locator("#error")).to_be_empty()
    page.locator("#options tbody tr.option").nth(0).locator("button").click()  # Sixes 30, +50 extra
    settled(page)
    expect(page.locator("#box-sixes")).to_have_value("30")
    expect(page.locator("#box-extra")).to_have_value("50")
    expect(page.locator("#card-points")).to_have_text("— 130 points")
    page.close()


def test_keyboard_and_game_mode(server, browser):
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server + "/")
    page.locator("#game-mode").check()
    first = page.locator("#dice .die").nth(0)
    first.focus()
    for key in "66666":
        page.keyboard.press(key)
    want = check_advice(page, server, "", "66666", 1)
    assert want["then"]["box"] == "kniffel"
    page.locator("#next-roll").click()  # keep all: stop rolling, the box comes next
    page.locator("#options tbody tr.option").nth(0).get_by_role("button", name="fill").click()
    expect(page.locator("#box-kniffel")).to_have_value("50")
    page.reload()  # game mode: the card survives in local storage
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#box-kniffel")).to_have_value("50")
    expect(page.locator("#game-mode")).to_be_checked()
    page.locator("#undo").click()
    expect(page.locator("#box-kniffel")).to_have_value("")
    page.close()


def test_kniffel7_coloured_dice(server, browser, tmp_path):
    """Seven dice, each with its own faces (die k lacks face k); the kept dice are marked by colour."""
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/")
    page.locator("#variant").select_option("kniffel7")
    expect(page.locator("#dice .die")).to_have_count(7)
    expect(page.locator("#dice .die").nth(0)).to_have_attribute("data-colour", "blue")
    expect(page.locator("#faces button", has_text="1")).to_be_disabled()  # blue has no 1
    expect(page.locator("#target-row")).to_be_visible()  # target play from the card (exact late in a game)
    tap_faces(page, [2, 3, 7, 1, 6, 7, 4])
    want = api(server, "/api/advise", variant="kniffel7", card="", dice="2371674", roll=1)
    expect(page.locator("#best")).to_contain_text(want["best"]["text"], timeout=60_000)
    settled(page)
    kept = page.locator("#dice .die.kept")
    expect(kept).to_have_count(len(want["best"]["keep_dice"]))
    assert [kept.nth(i).get_attribute("data-colour") for i in range(kept.count())] == want["best"]["keep_dice"]
    # the empty card's distribution ships with the package (solver/data/kniffel7.pmf.npy): its chart at once
    chart = api(server, "/api/distribution", variant="kniffel7", card="")
    expect(page.locator("#chart svg")).to_have_attribute(
        "aria-label", f"Final score distribution: mean {chart['mean']:.2f}, median {chart['median']}"
    )
    expect(page.locator("#chart-note")).to_be_hidden()
    page.screenshot(path=str(tmp_path / "phone-kniffel7.png"), full_page=True)
    page.select_option("#lang", "fr")  # the colours in the reader's language, the advice's names unchanged
    settled(page)
    expect(page.locator("#dice .die").nth(0)).to_have_attribute("aria-label", re.compile(r"^dé 1 \(bleu\)"))
    expect(page.locator("#dice .die").nth(6)).to_have_attribute("data-colour", "white")
    expect(page.locator("#dice .die.kept")).to_have_count(len(want["best"]["keep_dice"]))
    page.close()


K7_CARD = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "sevens": 21}
K7_CARD |= {"four_of_a_kind": 20, "five_of_a_kind": 25, "straight_five": 30}  # 10 boxes filled, 4 free


def test_kniffel7_target_late_in_a_game(server, browser, tmp_path):
    """A Kniffel 7 player types a card with 10 boxes filled, taps the dice by colour and asks for a target:
    the chart, the options ranked by the chance of reaching it (exact, computed from the card) and the note."""
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/")
    page.locator("#variant").select_option("kniffel7")
    for box, points in K7_CARD.items():
        page.locator(f"#box-{box}").fill(str(points))
        page.locator(f"#box-{box}").press("Enter")
    page.locator("#target").fill("300")
    page.locator("#target").press("Enter")
    tap_faces(page, [2, 3, 7, 1, 6, 7, 4])
    card = ",".join(f"{box}={points}" for box, points in K7_CARD.items())
    want = api(server, "/api/advise", variant="kniffel7", card=card, dice="2371674", roll=1, target=300)
    chances = api(server, "/api/chances", variant="kniffel7", card=card, target=300)
    expect(page.locator("#best")).to_contain_text(f"Best for 300 points: {want['best']['text']}", timeout=120_000)
    expect(page.locator("#chance-head")).to_be_visible()
    rows = page.locator("#options tbody tr.option")
    expect(rows.nth(0).locator("td").nth(2)).to_have_text(f"{100 * want['options'][0]['probability']:.1f}%")
    expect(page.locator("#target-note")).to_contain_text(f"{100 * chances['probability']:.1f}%")
    kept = page.locator("#dice .die.kept")
    expect(kept).to_have_count(len(want["best"]["keep_dice"]))
    expect(page.locator("#chart svg")).to_be_visible(timeout=60_000)
    expect(page.locator("#chart-note")).to_be_hidden()
    expect(page.locator("#error")).to_have_text("")
    page.screenshot(path=str(tmp_path / "phone-kniffel7-target.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(tmp_path / "desktop-kniffel7-target.png"), full_page=True)
    page.close()


def test_target_score(server, browser, tmp_path):
    """A target ranks the options by the chance of reaching it; without a target table the page says how to
    build one and ranks by expected score."""
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/?variant=kniffel-mini&dice=33516&roll=1&target=60")
    settled(page)
    want = api(server, "/api/advise", variant="kniffel-mini", dice="33516", roll=1, target=60)
    chances = api(server, "/api/chances", variant="kniffel-mini", target=60)
    expect(page.locator("#target")).to_have_value("60")
    expect(page.locator("#best")).to_contain_text(f"Best for 60 points: {want['best']['text']}")
    expect(page.locator("#chance-head")).to_be_visible()
    rows = page.locator("#options tbody tr.option")
    expect(rows).to_have_count(len(want["options"]))
    for i, o in enumerate(want["options"]):
        expect(rows.nth(i).locator("td").nth(2)).to_have_text(f"{100 * o['probability']:.1f}%")
    expect(page.locator("#target-note")).to_contain_text(f"{100 * chances['probability']:.1f}%")
    assert kept_faces(page) == want["best"]["keep"]
    page.screenshot(path=str(tmp_path / "phone-target.png"), full_page=True)
    # no target: the ranking by expected score comes back
    page.locator("#target").fill("")
    page.locator("#target").press("Enter")
    settled(page)
    expect(page.locator("#chance-head")).to_be_hidden()
    assert "target=" not in page.url
    # kniffel's target table was never built: the page says how to build it and still advises
    page.locator("#variant").select_option("kniffel")
    page.locator("#target").fill("250")
    page.locator("#target").press("Enter")
    tap_faces(page, [3, 3, 5, 1, 6])
    settled(page)
    expect(page.locator("#target-note")).to_contain_text("kniffel solve kniffel --target")
    expect(page.locator("#best")).to_contain_text("Best: ")
    expect(page.locator("#error")).to_have_text("")
    page.screenshot(path=str(tmp_path / "phone-target-missing.png"))
    page.close()
