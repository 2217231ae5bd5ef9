"""`kniffel play` driven through a pseudo-terminal (pexpect), as a player types; the text catalogues;
the players' box names and 'did you mean'."""

import re
from pathlib import Path

import pytest
from helpers import spawn

from solver.advice.cards import parse_card
from solver.i18n.texts import CATALOGUES, choose_language, locale_language, set_language
from solver.rules.presets import KNIFFEL, PRESETS, YAHTZEE, find_variant
from solver.rules.variant import RuleError

pexpect = pytest.importorskip("pexpect")
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def kdir(tables_of):
    return tables_of("kniffel", "yahtzee")


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_kniffel7_keep_is_by_face_value_and_echoed_by_colour(tmp_path):
    child = spawn(REPO / "tables", tmp_path, "kniffel7")  # Kniffel 7's table ships with the package
    child.expect(r"Wurf 1, alle 7 Würfel \(blau grün lila gelb rot schwarz weiß\):")
    child.sendline("6151616")
    child.expect("blau 6, grün 1, lila 5, gelb 1, rot 6, schwarz 1, weiß 6")
    child.expect("Welche Würfel behalten")
    child.sendline("6 6")  # two of the sixes, by face value (not dice number 6)
    child.expect(r"behalten: (\w+ 6, \w+ 6); 5 Würfel neu")
    assert child.match.group(1).count(" 6") == 2
    child.expect(r"die anderen 5 Würfel \(([^)]+)\):")
    assert len(child.match.group(1).split()) == 5
    child.sendline("undo")
    child.expect("zurückgenommen")
    child.expect("Welche Würfel behalten")
    child.sendline("keep #1 #6")  # by position
    child.expect("behalten: blau 6, schwarz 1; 5 Würfel neu")
    child.expect(r"\(grün lila gelb rot weiß\):")
    child.sendline("gr=3 l=4 ge=3 r=7 w=5")  # the rerolled dice by colour code
    child.expect("blau 6, grün 3, lila 4, gelb 3, rot 7, schwarz 1, weiß 5")
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_stop_then_box_prompt_has_advice_options_and_card(kdir, tmp_path):
    child = spawn(kdir, tmp_path, "kniffel", "--lang", "en")
    child.expect("Roll 1, all 5 dice:")
    child.sendline("2 3 4 5 6")
    child.expect("Keep which dice")
    child.sendline("stop")
    child.expect(r"Advice: score Large Straight for 40")
    child.expect("Which box")
    child.sendline("options")
    child.expect(r"score Small Straight for 30")
    child.expect("Which box")
    child.sendline("card")
    child.expect("upper total")
    child.expect("Which box")
    child.sendline("sm straight")
    child.expect(r"-> score Small Straight for 30")
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_joker_turn_explains_the_rule_and_refusals_say_why(kdir, tmp_path):
    child = spawn(kdir, tmp_path, "kniffel")  # German by default
    child.expect("Wurf 1, alle 5 Würfel:")
    child.sendline("44444")
    child.expect("Welche Würfel behalten")
    child.sendline("")  # advice: stop and score Kniffel
    child.expect("-> Kniffel für 50 eintragen")
    child.expect("Wurf 1")
    child.sendline("2 2 2 2 2")
    child.expect("Welche Würfel behalten")
    child.sendline("stopp")
    child.expect(r"\+50 Kniffel-Bonus")
    child.expect(r"Regel: Kniffel hat 50: \+50 Kniffel-Bonus; der Wurf darf in jedes freie Feld")
    child.expect("Welches Feld")
    child.sendline("kniffel")
    child.expect("Kniffel ist schon belegt")
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_restricted_scratching_refusal_points_to_the_meister_rules(kdir, tmp_path):
    child = spawn(kdir, tmp_path, "kniffel", "--lang", "en")
    child.expect("Roll 1")
    child.sendline("1 2 3 4 6")
    child.sendline("stop")
    child.expect("Which box")
    child.sendline("fh")
    child.expect("kniffel-meister")
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_an_english_yahtzee_game_and_reroll_only_entry(kdir, tmp_path):
    child = spawn(kdir, tmp_path, "yahtzee")
    child.expect(r"== Turn 1 of 13 ==")
    child.expect("Roll 1, all 5 dice:")
    child.sendline("3 3 5 1 6")
    child.expect("Advice: keep 3 3, reroll 3 dice")
    child.sendline("keep 3 3")
    child.expect("kept 3 3; rerolling 3 dice")
    child.expect("Roll 2, kept 3 3 — the other 3 dice:")
    child.sendline("3 2 6")  # only the rerolled dice
    child.expect(r"= 3 3 3 2 6")
    child.sendline("dreierpash")
    child.expect("Did you mean box Three of a Kind")
    child.sendline("q")
    child.expect("Continue with: kniffel play --resume")
    child.expect(pexpect.EOF)
    resumed = spawn(kdir, tmp_path, "--resume", str(tmp_path / "g.json"))
    resumed.expect(r"Turn 1 of 13, roll 2: 3 3 3 2 6")
    resumed.expect("Card: empty")
    resumed.sendline("q")
    resumed.expect(pexpect.EOF)


def test_a_german_game_and_the_locale(kdir, tmp_path):
    child = spawn(kdir, tmp_path, "yahtzee", env={"LANG": "de_DE.UTF-8"})  # the locale overrides the variant
    child.expect("Runde 1 von 13")
    child.sendline("hilfe")
    child.expect("Befehle an jeder Eingabe")
    child.sendline("q")
    child.expect(pexpect.EOF)
    assert locale_language({"LC_ALL": "en_GB.UTF-8", "LANG": "de_DE"}) == "en"
    assert locale_language({"LANG": "C"}) is None and choose_language(None, "de", {"LANG": "C"}) == "de"
    assert choose_language("en", "de", {"LANG": "de_DE"}) == "en"


# -- catalogues, names ------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["de", "es", "fr"])
def test_every_catalogue_has_every_message_with_the_same_fields(lang):
    assert set(CATALOGUES[lang]) == set(CATALOGUES["en"])
    field = re.compile(r"{(\w+)")
    for key, text in CATALOGUES["en"].items():
        assert set(field.findall(text)) == set(field.findall(CATALOGUES[lang][key])), key


@pytest.mark.parametrize(
    "name, key",
    [
        ("Aces", "ones"),
        ("Sm Straight", "small_straight"),
        ("Lg Straight", "large_straight"),
        ("3K", "three_of_a_kind"),
        ("4K", "four_of_a_kind"),
        ("FH", "full_house"),
        ("SS", "small_straight"),
        ("LS", "large_straight"),
        ("Yahtzee", "yahtzee"),
    ],
)
def test_yahtzee_players_box_names(name, key):
    assert YAHTZEE.boxes[YAHTZEE.find_box(name)].key == key


def test_yahtzee_bonus_by_name_and_suggestions():
    card = parse_card(YAHTZEE, "yahtzee=50,fours=20,Yahtzee bonus=100")
    assert card.extra == 100
    card = parse_card(YAHTZEE, "yahtzee=50,extra=100")  # one bonus Yahtzee (its box may still be open)
    assert card.extra == 100 and card.points == 150
    with pytest.raises(RuleError, match="2 × Yahtzee bonus .* add those boxes"):
        parse_card(YAHTZEE, "yahtzee=50,extra=200")
    with pytest.raises(RuleError, match="Did you mean Three of a Kind"):
        KNIFFEL.find_box("dreierpash")
    set_language("de")
    with pytest.raises(RuleError, match="Meinten Sie Dreierpasch"):
        KNIFFEL.find_box("dreierpash")
    with pytest.raises(RuleError, match="Meinten Sie yahtzee"):
        find_variant("yahtze")
    assert PRESETS["kniffel7"].find_die("weiß") == 6 and PRESETS["kniffel7"].find_die("#2") == 1


def test_long_lines_break_where_a_player_reads_them():
    from solver.advice.explain import WIDTH, fit

    advice = (
        "Advice: keep all: 4 4 4 4 4 (stop rolling), then score Fours for 20, +100 Yahtzee bonus  (expected 433.07)"
    )
    assert fit(advice).split("\n")[1] == "    (expected 433.07)"  # before the figure in parentheses
    first, second = (
        "Forced joker: a further Yahtzee must go into Fours while that box is free.",
        "Yahtzee holds 50: +100 bonus.",
    )
    assert fit(f"{first} {second}").split("\n") == [first, "    " + second]  # after the sentence
    words = "Einser 3, Zweier 6, " * 10
    assert all(len(line) <= WIDTH for line in fit(words).split("\n")) and fit("short") == "short"


def test_none_kept_before_the_third_roll_under_the_house_rule_is_refused_in_a_line(kdir, tmp_path):
    """'none' at roll 2 with --keep-one ended the game with a traceback (StopIteration)."""
    child = spawn(kdir, tmp_path, "kniffel", "--keep-one", "--lang", "en")
    child.expect("Roll 1, all 5 dice:")
    child.sendline("12346")
    child.expect("Keep which dice")
    child.sendline("none")
    child.expect("Roll 2")
    child.sendline("12456")
    child.expect("Keep which dice")
    child.sendline("none")
    child.expect("house rule: keep at least one die before the third roll")
    child.expect("Keep which dice")
    child.sendline("q")
    child.expect(pexpect.EOF)
    assert "Traceback" not in child.before


def test_the_next_turns_header_comes_again_after_a_box_undone_and_scored_again(kdir, tmp_path):
    """After 'undo' of a box and the box scored again, the new turn started without its header."""
    child = spawn(kdir, tmp_path, "yahtzee", "--lang", "en")
    child.expect("Roll 1, all 5 dice:")
    child.sendline("12345")
    for undone in (False, True):
        if undone:
            child.sendline("undo")  # the box undone: back at the roll, stopping kept no record of its own
        child.expect("Keep which dice")
        child.sendline("stop")
        child.expect("Which box")
        child.sendline("chance")
        child.expect("== Turn 2 of 13 ==")
    child.expect("Roll 1, all 5 dice:")
    child.sendline("q")
    child.expect(pexpect.EOF)
