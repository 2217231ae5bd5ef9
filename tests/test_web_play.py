"""Playing on the page as a player does (a player's audit of the page, in the browser of test_web_browser.py,
skipped like it where Chromium is missing): stopping at a served first roll, a box typed by hand ends the turn,
a target's loss column, each game kept when another is chosen or a link opened, the keyboard after a move."""

import math

import pytest
from test_web_browser import DESKTOP, PHONE, api, browser, expect, open_page, server, settled  # noqa: F401

pytestmark = pytest.mark.slow  # the browser: a slow test (README), as the issue counts them


def enter(page, box: str, text: str) -> None:
    """Points typed into a card box and entered, then the answer for the new situation."""
    page.locator(box).fill(text)
    page.locator(box).press("Enter")
    settled(page)


def reload(page) -> None:
    page.reload()
    expect(page.locator("body")).to_have_attribute("data-ready", "true")


def focused(page) -> str:
    return page.evaluate("document.activeElement && document.activeElement.id")


def test_stopping_at_the_first_roll_keeps_a_served_hands_bonus(server, browser):  # noqa: F811
    """Generala pays 5 more for a hand made at the first throw: "Next roll" with every die kept went on to roll 3
    and offered Escalera for 20. By keyboard, the next control is focused after each move."""
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/?variant=generala&dice=23456&roll=1")
    settled(page)
    expect(page.locator("#best")).to_contain_text("then score Escalera for 25 (served, +5)")
    page.locator("#next-roll").focus()
    page.keyboard.press("Enter")
    settled(page)
    expect(page.locator("#best")).to_contain_text("Best: score Escalera for 25 (served, +5)")
    expect(page.locator("#options tbody tr.option").nth(0).locator("button")).to_be_focused()
    page.keyboard.press("Enter")  # fill it
    expect(page.locator("#box-escalera")).to_have_value("25")
    assert focused(page) == "die-0"  # the next roll's dice
    page.close()


def test_a_box_typed_by_hand_ends_the_turn(server, browser):  # noqa: F811
    """The dice stayed on screen, and the advice on them counted the roll again (a further Kniffel's bonus twice)."""
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/?variant=kniffel&card=kniffel%3D50%2Cones%3D3&dice=66666&roll=3")
    settled(page)
    enter(page, "#box-extra", "50")  # the bonus first, as the pad is kept: the turn goes on
    expect(page.locator("#die-0")).to_have_text("6")
    enter(page, "#box-sixes", "30")
    expect(page.locator("#dice .die.empty")).to_have_count(5)
    expect(page.locator("#card-points")).to_have_text("— 133 points")
    expect(page.locator("#best")).to_have_text("")
    page.close()


def test_a_targets_loss_is_in_the_chance_of_reaching_it(server, browser):  # noqa: F811
    """With a target the rows are ranked by the chance; the loss column measured expected points from the
    highest mean, so it marked the second row "tie" and the best row with a loss."""
    page = browser.new_page(viewport=DESKTOP)
    open_page(page, server + "/?variant=kniffel-mini&dice=33516&roll=1&target=60")
    settled(page)
    want = api(server, "/api/advise", variant="kniffel-mini", dice="33516", roll=1, target=60)["options"]
    rows = page.locator("#options tbody tr.option")
    expect(rows.nth(0).locator("td.loss")).to_have_text("best")
    for i in range(1, len(want)):
        lost = want[0]["probability"] - want[i]["probability"]
        digits = min(4, max(1, 1 - math.floor(math.log10(100 * lost)))) if lost > 0 else 1  # '0.040%', not '0.0%'
        expect(rows.nth(i).locator("td.loss")).to_have_text("tie" if lost < 1e-6 else f"−{100 * lost:.{digits}f}%")
    expect(page.locator("#options thead .spread")).to_be_hidden()  # no spread is shown for the chances
    page.close()


def test_each_game_is_kept_when_another_is_chosen_or_a_link_opened(server, browser):  # noqa: F811
    """Game mode: choosing Generala and then Kniffel again emptied the Kniffel game for good, and a link
    replaced the stored game with no Undo back to it."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    open_page(page, server + "/")
    page.locator("#game-mode").check()
    enter(page, "#box-chance", "22")
    page.locator("#variant").select_option("generala")
    settled(page)
    expect(page.locator("#card-points")).to_have_text("— 0 points")
    page.locator("#variant").select_option("kniffel")
    settled(page)
    expect(page.locator("#box-chance")).to_have_value("22")
    open_page(page, server + "/?variant=kniffel&card=ones%3D3")
    settled(page)
    expect(page.locator("#box-ones")).to_have_value("3")
    expect(page.locator("#box-chance")).to_have_value("")
    page.locator("#undo").click()
    settled(page)
    expect(page.locator("#box-chance")).to_have_value("22")
    expect(page.locator("#box-ones")).to_have_value("")
    reload(page)  # the page's own link after a reload is no other card: no second Undo step
    settled(page)
    page.locator("#undo").click()
    settled(page)
    expect(page.locator("#box-chance")).to_have_value("")
    context.close()


@pytest.mark.parametrize("lang", ["es", "fr"])
def test_the_charts_mean_label_stays_on_the_chart_on_a_phone(server, browser, lang):  # noqa: F811
    """'moyenne 211,53, médiane' ran off the chart's right edge on a phone (here a small one)."""
    context = browser.new_context(viewport={"width": 320, "height": 700}, locale=lang)
    page = context.new_page()
    open_page(page, server + "/?variant=kniffel&card=einser%3D3")
    settled(page)
    expect(page.locator("#chart")).to_be_visible()
    box = page.evaluate(
        """() => { const svg = document.querySelector('#chart-svg svg');
           const label = [...svg.querySelectorAll('text')].find((t) => t.getAttribute('fill') === '#cc0000');
           const b = label.getBBox(); return [b.x, b.x + b.width, svg.viewBox.baseVal.width]; }"""
    )
    assert 0 <= box[0] and box[1] <= box[2], box
    context.close()


UPPER = ("ones", "twos", "threes", "fours", "fives", "sixes")


def test_the_card_shows_the_upper_sections_sum_and_its_bonus(server, browser):  # noqa: F811
    """A player checks the pad's upper sum against the page's: it was nowhere, even on a finished card."""
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/?variant=kniffel&card=einser%3D3%2Csechser%3D30")
    settled(page)
    expect(page.locator("#card-upper")).to_have_text("Upper section: 33, 30 more for the bonus of 35")
    for faces, said in ((range(1, 7), "Upper section: 21, bonus missed"), ((3, 6, 9, 12, 15, 18), None)):
        upper = "%2C".join(f"{box}%3D{points}" for box, points in zip(UPPER, faces))
        open_page(page, server + f"/?variant=kniffel&card={upper}")
        settled(page)
        expect(page.locator("#card-upper")).to_have_text(said or "Upper section: 63, bonus 35 earned")
    expect(page.locator("#card-points")).to_have_text("— 98 points")
    open_page(page, server + "/?variant=generala")  # no upper bonus: no line
    settled(page)
    expect(page.locator("#card-upper")).to_be_hidden()
    page.close()


def test_a_full_card_says_whether_the_target_was_reached(server, browser):  # noqa: F811
    """The game over with a target set: the page said nothing of it."""
    page = browser.new_page(viewport=PHONE)
    card = "ones=3,sixes=18,three_of_a_kind=20,kniffel=0,chance=20".replace("=", "%3D").replace(",", "%2C")
    open_page(page, server + f"/?variant=kniffel-mini&card={card}&target=60")
    settled(page)
    expect(page.locator("#card-value")).to_have_text("Game over: final score 71")  # 61 and the bonus of 10
    expect(page.locator("#target-note")).to_have_text("Target 60 reached: final score 71")
    enter(page, "#target", "80")
    expect(page.locator("#target-note")).to_have_text("Target 80 missed by 9: final score 71")
    page.close()


def test_points_typed_are_kept_as_typed_and_the_rules_refusal_shown(server, browser):  # noqa: F811
    """-3 became 0 and 2.6 became 3 in silence; a link with a card the rules refuse showed an empty pad (and
    the next move replaced the link)."""
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/?variant=kniffel&card=chance%3D22")
    settled(page)
    enter(page, "#box-ones", "-3")
    expect(page.locator("#error")).to_contain_text("Ones=-3")
    expect(page.locator("#error")).to_contain_text("allowed: 0, 1, 2, 3, 4, 5")
    reload(page)  # the link now holds the refused card: the pad keeps it, with the refusal
    expect(page.locator("#error")).to_contain_text("allowed: 0, 1, 2, 3, 4, 5")
    expect(page.locator("#box-ones")).to_have_value("-3")
    expect(page.locator("#box-chance")).to_have_value("22")
    enter(page, "#box-ones", "2.6")
    expect(page.locator("#error")).to_contain_text("points must be a whole number")
    enter(page, "#box-ones", "3")
    expect(page.locator("#error")).to_have_text("")
    expect(page.locator("#card-points")).to_have_text("— 25 points")
    page.close()


def type_into(page, box, keys):
    """Keys typed into a card box as a player types them (fill() refuses what is no number)."""
    page.locator(box).click()
    page.keyboard.press("Control+A")
    page.keyboard.type(keys)
    page.keyboard.press("Tab")


def test_what_a_player_types_wrong_changes_nothing_unseen(server, browser):  # noqa: F811
    """A second audit: '1-2' typed over a filled box cleared it; a huge number became 1e+23, and after a reload
    the whole pad was empty; a refused entry in a free box ended the turn."""
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/?variant=kniffel&card=ones%3D3%2Cchance%3D20&dice=66553&roll=2")
    settled(page)
    type_into(page, "#box-chance", "1-2")  # no number at all: the box keeps its 20
    settled(page)
    expect(page.locator("#box-chance")).to_have_value("20")
    type_into(page, "#box-sixes", "-3")  # a number the rules refuse, in a free box: shown, and the roll stays
    settled(page)
    expect(page.locator("#error")).to_contain_text("Sixes cannot hold -3")
    expect(page.locator("#die-0")).to_have_text("6")
    type_into(page, "#box-sixes", "99999999999999999999999")
    settled(page)
    expect(page.locator("#error")).to_contain_text("Sixes cannot hold 99999999999999999999999")
    reload(page)
    expect(page.locator("#error")).to_contain_text("cannot hold 99999999999999999999999")
    expect(page.locator("#box-ones")).to_have_value("3")
    expect(page.locator("#box-chance")).to_have_value("20")
    page.close()


@pytest.mark.parametrize("bonus_typed", [True, False])
def test_a_stop_survives_a_bonus_marked_and_a_reload_and_a_typed_box_pays_the_bonus(server, browser, bonus_typed):  # noqa: F811
    """The stop (every die kept) was forgotten when the bonus was marked or the page reloaded; typed by hand, the box
    of a further Kniffel lost its bonus, which Fill pays (and pays once where it was marked before)."""
    page = browser.new_page(viewport=PHONE)
    open_page(page, server + "/?variant=kniffel&card=kniffel%3D50%2Cones%3D3&dice=66666&roll=1")
    settled(page)
    page.locator("#next-roll").click()
    settled(page)
    if bonus_typed:
        enter(page, "#box-extra", "50")
    assert "box=1" in page.url
    reload(page)
    settled(page)
    expect(page.locator("#best")).to_contain_text("Best: score Sixes for 30, +50 Kniffel bonus")
    enter(page, "#box-sixes", "30")
    expect(page.locator("#box-extra")).to_have_value("50")
    expect(page.locator("#card-points")).to_have_text("— 133 points")
    expect(page.locator("#dice .die.empty")).to_have_count(5)
    page.close()
