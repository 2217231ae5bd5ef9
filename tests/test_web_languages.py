"""Issue 29 on the page in a real browser (the server, browser and helpers of test_web_browser.py, skipped like it
where Chromium is missing): the page in all four languages, the picker's memory, the browser's language and the
variant's, the Generala title whole on a phone; phone-size screenshots go to the test's tmp folder."""

import pytest
from test_web_browser import PHONE, browser, expect, open_page, server, settled  # noqa: F401

pytestmark = pytest.mark.slow  # the browser: a slow test (README), as the issue counts them

HEADINGS = {"de": "Was soll ich behalten?", "en": "What should I keep?", "es": "¿Qué dados guardo?"}
HEADINGS["fr"] = "Que dois-je garder ?"
BEST = {"de": "Am besten: behalte 3 3", "en": "Best: keep 3 3", "es": "Lo mejor: guardar 3 3"}
BEST["fr"] = "Le mieux : garder 3 3"
NUMBER = {"de": ",", "en": ".", "es": ",", "fr": ","}  # the decimal mark of the expected scores


@pytest.mark.parametrize("lang", ["de", "en", "es", "fr"])
def test_every_language_and_the_pickers_memory(server, browser, tmp_path, lang):  # noqa: F811
    context = browser.new_context(viewport=PHONE, locale="en-US")
    page = context.new_page()
    open_page(page, f"{server}/?variant=kniffel&dice=33516&roll=1")
    page.select_option("#lang", lang)
    settled(page)
    expect(page.locator("h1")).to_have_text(HEADINGS[lang])
    expect(page.locator("#best")).to_contain_text(BEST[lang])
    value = page.locator("#options tbody tr.option").nth(0).locator("td").nth(2).locator(".value")
    expect(value).to_contain_text(NUMBER[lang])
    page.screenshot(path=tmp_path / f"phone-{lang}.png", full_page=True)
    body = page.inner_text("body")
    for key in ("full_house", "three_of_a_kind", "web_", "small_straight"):
        assert key not in body, key
    open_page(page, f"{server}/?variant=kniffel&dice=33516&roll=1")  # a reload: the choice is remembered
    expect(page.locator("#lang")).to_have_value(lang)
    expect(page.locator("h1")).to_have_text(HEADINGS[lang])
    context.close()


def test_the_browsers_language_else_the_variants(server, browser, tmp_path):  # noqa: F811
    spanish = browser.new_context(viewport=PHONE, locale="es-AR")
    page = spanish.new_page()
    open_page(page, f"{server}/?variant=kniffel")
    expect(page.locator("h1")).to_have_text(HEADINGS["es"])
    expect(page.locator("#lang")).to_have_value("es")
    spanish.close()
    other = browser.new_context(viewport=PHONE, locale="ja-JP")
    page = other.new_page()
    open_page(page, f"{server}/?variant=generala")
    expect(page.locator("h1")).to_have_text(HEADINGS["es"])  # Generala's players speak Spanish
    title = page.evaluate(
        """() => { const s = document.getElementById('variant');
           const c = document.createElement('canvas').getContext('2d'); c.font = getComputedStyle(s).font;
           return [s.getBoundingClientRect().width, c.measureText(s.options[s.selectedIndex].text).width]; }"""
    )
    assert title[0] >= title[1] + 24, title  # the whole title and the select's arrow fit
    page.screenshot(path=tmp_path / "phone-generala.png", full_page=True)
    other.close()
