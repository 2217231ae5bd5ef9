"""The public API: the README's example, structured and string inputs alike, installs that work anywhere."""

import enum
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import solver
from solver.advice.cards import Card
from solver.rules.presets import PRESETS

ROOT = Path(__file__).resolve().parent.parent


def readme_example() -> str:
    text = (ROOT / "README.md").read_text()
    return re.search(r"## Python API\n\n```python\n(.*?)```", text, re.S).group(1)


@pytest.fixture(scope="module")
def table(tables_of):
    return solver.load("kniffel", tables_dir=tables_of("kniffel"), progress=False)


def test_readme_example_runs(tmp_path):
    env = {**os.environ, "KNIFFEL_TABLES": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", readme_example()], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert abs(float(lines[0]) - 235.8555687150) < 1e-6
    assert lines[1].startswith("keep 3 3, reroll 3 dice 232.885")
    assert abs(float(lines[2]) - 248.08) < 1.5  # 10,000 games: standard error about 0.5


def test_structured_and_string_inputs_agree(table):
    assert table.value("chance=30,kniffel=50,extra=50") == table.value({"chance": 30, "kniffel": 50, "extra": 50})
    assert table.value("") == table.value({}) == table.value(None) == table.start_value
    a = table.advise("chance=22", dice="33516", roll=1)
    b = table.advise({"chance": 22}, dice=(3, 3, 5, 1, 6), roll=1)
    c = table.advise({"Chance": 22}, dice=np.array([3, 3, 5, 1, 6]), roll=1)
    assert a.as_dict() == b.as_dict() == c.as_dict()
    assert a.best.text == "keep 3 3, reroll 3 dice" and a.then is None and a.action == "keep"


def test_advice_then_and_state_value(table):
    advice = table.advise("", dice="66666", roll=1)
    assert advice.best.keep == (6, 6, 6, 6, 6) and advice.then.text == "score Kniffel for 50"
    assert table.state_value(0, 0, False) == table.start_value
    assert table.future("chance=22") == table.state_value(1 << 12, 0, 0)


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.value({"chance": 99}),
        lambda t: t.value({"chance": "22"}),
        lambda t: t.value({"chance": True}),
        lambda t: t.value({"cha,nce": 22}),
        lambda t: t.value(5),
        lambda t: t.advise("", dice=(1, 2, 3), roll=1),
        lambda t: t.advise("", dice=(1, 2, 3, 4, 7), roll=1),
        lambda t: t.advise("", dice=(1, 2, 3, 4, 5.0), roll=1),
        lambda t: t.advise("", dice="12345", roll=0),
        lambda t: t.advise("", dice="12345", roll=True),
        lambda t: t.state_value(1 << 13, 0, 0),
        lambda t: t.state_value(1, 7, 0),  # Einser alone cannot make 7
        lambda t: t.state_value(31, 100),  # above the cap, but Ones to Fives make at most 75 (it answered 160.58)
        lambda t: t.state_value(63, 106),  # all six upper boxes: at most 105
        lambda t: t.option_values_batch([31], [100], [0], [[1, 2, 3, 4, 5]], [1]),
        lambda t: t.advise("", dice="1" * 10**6, roll=1),  # not a message of a million characters
        lambda t: t.value("x" * 10**6 + "=3"),
        lambda t: solver.load("a" * 10**6),
        lambda t: solver.simulate(t, games=0),
        lambda t: solver.simulate(t, games=1),  # one game has no spread: its std and ± were 0.0
        lambda t: t.best_action(Card(PRESETS["kniffel"], {99: 1}), dice="12345", roll=2),  # a box index too big
        lambda t: t.advise(Card(PRESETS["kniffel"], {"ones": 3}), dice="12345", roll=2),  # a key, not an index
        lambda t: t.best_action(Card(PRESETS["kniffel"], {0: 3.5}), dice="12345", roll=2),
    ],
)
def test_bad_input_raises_the_one_error_class(table, call):
    with pytest.raises(solver.KniffelError):
        call(table)


def test_long_input_is_refused_in_a_short_line(table):
    for call in (
        lambda: table.advise("", dice="1" * 10**6, roll=1),
        lambda: table.value("x" * 10**6 + "=3"),
        lambda: solver.load("a" * 10**6),
    ):
        with pytest.raises(solver.KniffelError) as refused:
            call()
        assert len(str(refused.value)) < 100 and "characters long; at most" in str(refused.value)


def test_a_negative_face_is_named(table):
    """(3, 3, 5, 1, -1) was 'expected 5 numbers such as 1,2,3,4,5' (the text '-1' is no number to the
    parser); it is a face that is on no die, as 7 is."""
    for dice, face in (((3, 3, 5, 1, -1), -1), ((3, 3, 5, 1, 7), 7), ([-4, 1, 2, 3, 4], -4)):
        with pytest.raises(solver.KniffelError, match=f"face {face} is not on a die \\(faces 1-6\\)"):
            table.advise("", dice, 1)


def test_a_joker_flag_where_the_variant_has_none_is_refused(tmp_path):
    """state_value took joker=True on yatzy (no joker flag) as False in silence; state_values refused it."""
    small = solver.load(PRESETS["yatzy"].reduced(boxes=["ones", "sixes", "yatzy", "chance"]), tables_dir=tmp_path)
    assert small.state_value(0, 0, False) == small.start_value
    with pytest.raises(solver.KniffelError, match="has no joker flag"):
        small.state_value(0, 0, True)


def test_keep_one_applies_to_a_variant_object_too(tmp_path):
    """load(Variant, keep_one=True) gave the variant without the house rule in silence."""
    from solver.api.inputs import _variant

    assert _variant(PRESETS["kniffel"], True) is PRESETS["kniffel-keep-one"]
    assert _variant(PRESETS["kniffel-keep-one"], True) is PRESETS["kniffel-keep-one"]
    with pytest.raises(solver.KniffelError, match="kniffel only"):
        solver.load(PRESETS["yahtzee"], keep_one=True, tables_dir=tmp_path)


def test_tables_compare_by_identity(table):
    """A Table compared with another raised numpy's 'truth value of an array is ambiguous'."""
    assert table == table and table in [table] and len({table, table}) == 1
    assert table != solver.load("kniffel", tables_dir=table.directory)


def test_kniffel7_distribution_and_odds_through_the_table(tmp_path):
    """The API refused them ('identical dice only') where the CLI answers: the empty card from the shipped pmf,
    a card whose forward pass would take hours refused in one line (limit, as chances has)."""
    k7 = solver.load("kniffel7", solve=False, tables_dir=tmp_path)
    assert k7.distribution(at_least=[300]).mean == pytest.approx(365.27, abs=0.01)
    odds = k7.odds(["", ""], ["Anna", "Ben"])
    assert odds.players[0].win == pytest.approx(odds.players[1].win) and 0 < odds.tie < 0.02
    for call in (lambda: k7.distribution("chance=20"), lambda: k7.odds(["chance=20", "einser=1"])):
        with pytest.raises(solver.KniffelError, match="turn states, about [0-9]+ h, more than limit allows"):
            call()
    with pytest.raises(solver.KniffelError, match="limit must be a number of seconds"):
        k7.distribution("chance=20", limit="x")


def test_simulation_result(table):
    result = solver.simulate(table, games=500, seed=3)
    assert result.games == 500 and len(result.scores) == 500
    assert result.mean == pytest.approx(result.scores.mean())
    d = result.as_dict()
    assert {"mean", "std", "median", "percentiles", "p_at_least", "boxes", "seed", "seconds"} <= d.keys()
    assert solver.simulate(table, games=500, seed=3).mean == result.mean  # same seed, same games


def test_variants_and_lookup():
    assert [v.name for v in solver.variants()] == list(PRESETS)
    assert solver.find_variant("Yahtzee").name == "yahtzee"
    with pytest.raises(solver.KniffelError):
        solver.load("nope")


@pytest.mark.slow
def test_wheel_install_runs_anywhere(tmp_path):
    """A plain wheel, installed into its own folder and run from elsewhere: tables go to the user's data
    folder (not site-packages), the shipped Kniffel 7 table answers at once."""
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("kniffel-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "solver/dp/identical.py" in names and "solver/data/kniffel7.npy" in names
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
        check=True,
        capture_output=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "KNIFFEL_TABLES"}
    env.update(PYTHONPATH=str(site), XDG_DATA_HOME=str(tmp_path / "data"))
    code = readme_example() + (
        "k7 = solver.load('kniffel7', solve=False)\n"
        "print(k7.advise('', dice='2,3,7,1,6,7,4', roll=1).best.text)\n"
        "print(solver.__file__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=elsewhere)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].startswith("keep 3 3, reroll 3 dice")
    assert lines[3] == "keep purple 7, black 7; reroll the other five"
    assert lines[4].startswith(str(site))
    assert (tmp_path / "data" / "kniffel" / "tables" / "kniffel.npy").exists()
    assert not (site / "tables").exists()


def test_distribution_and_odds_through_the_table(table):
    card = "chance=22,kniffel=50,einser=3,zweier=6,dreier=9,vierer=12,fuenfer=15,sechser=18,dreierpasch=20"
    result = table.distribution(card, at_least=(250,))
    assert abs(result.mean - table.value(card)) < 1e-9 and abs(sum(result.pmf) - 1) < 1e-12
    odds = table.odds(["chance=22", "kniffel=50"], names=["Anna", "Ben"]).as_dict()
    assert [p["name"] for p in odds["players"]] == ["Anna", "Ben"]
    assert abs(sum(p["win"] for p in odds["players"]) + odds["tie"] - 1) < 1e-12
    with pytest.raises(solver.KniffelError):
        table.odds(["chance=22"])


def test_a_bonus_written_before_its_box_is_paid_once(table):
    """`kniffel=50,extra=50` asked about the Kniffel just rolled: the pad shows its bonus already, the
    rules pay it with the box; advice must not add it a second time (it did: totals 50 too high)."""
    pending = table.advise("kniffel=50,extra=50", dice="66666", roll=3)
    plain = table.advise("kniffel=50", dice="66666", roll=3)
    assert pending.best.extra == 50
    assert [o.expected_final_score for o in pending.options] == [o.expected_final_score for o in plain.options]
    assert pending.card.extra == 0
    assert table.best_action("kniffel=50,extra=50", "66666", 1).expected_final_score == pytest.approx(
        table.best_action("kniffel=50", "66666", 1).expected_final_score
    )
    # a bonus whose box is on the card is counted as it stands
    settled = table.advise("kniffel=50,sechser=30,extra=50", dice="66666", roll=3)
    assert settled.card.extra == 50
    assert settled.best.expected_final_score == pytest.approx(
        table.advise("kniffel=50,sechser=30", dice="66666", roll=3).best.expected_final_score + 50
    )


def test_a_bonus_waiting_for_its_box_needs_dice_that_fit_it(table):
    """A pending bonus was written for the roll asked about: with dice that are no Kniffel, card and dice
    contradict each other, and advice dropped the 50 in silence (it ranked Threes for 6 at 288.01). Asked
    again from the Table's parsed-text memory, and through best_action and advise_target, still refused."""
    for _ in range(2):
        for call in (
            lambda: table.advise("kniffel=50,extra=50", "33516", 3),
            lambda: table.advise("kniffel=50,extra=50", "66665", 1),
            lambda: table.best_action("kniffel=50,extra=50", "33516", 2),
            lambda: table.advise_target("kniffel=50,extra=50", "33516", 3, 200, build=False),
        ):
            with pytest.raises(solver.KniffelError, match="waits for its box.*3 3 5 1 6 is no Kniffel|6 6 6 6 5 is no"):
                call()
    assert table.advise("kniffel=50,extra=50", "11111", 2).action == "keep"  # a Kniffel: the bonus is its
    assert table.advise("kniffel=50,sechser=30,extra=50", "33516", 3).card.extra == 50  # settled: any dice


def test_a_bonus_waiting_for_its_box_has_no_value_at_the_start_of_a_turn(table):
    """value() counted a waiting bonus as paid (351.63) where advise() pays it with its box (301.63 + the box):
    at the start of a turn every bonus has its box, so value, distribution, odds and chances refuse such a
    card; the same bonus with its box on the card is counted as it stands."""
    for call in (
        lambda: table.value("kniffel=50,extra=50"),
        lambda: table.future("kniffel=50,extra=50"),
        lambda: table.distribution("kniffel=50,extra=50"),
        lambda: table.odds(["kniffel=50,extra=50", "kniffel=50"]),
        lambda: table.chances("kniffel=50,extra=50", 300, build=False),
    ):
        with pytest.raises(solver.KniffelError, match="still waits for its box, but at the start of a turn"):
            call()
    assert table.value("kniffel=50,sechser=30,extra=50") == pytest.approx(130 + table.future("kniffel=50,sechser=30"))


def test_best_action_through_the_table_is_advise_best(table):
    """Table.best_action parses each card and roll text once; asked again (and in other forms) it still gives
    advise(...).best, and bad input still raises the one error class."""
    cases = [
        ("chance=22", "33516", 1),
        ("", "66666", 2),
        ("kniffel=50,einser=3", "11111", 3),
        ("einser=2,chance=20", "12345", 3),
    ]
    for _ in range(2):
        for card, dice, roll in cases:
            best = table.best_action(card, dice, roll)
            assert vars(best) == vars(table.advise(card, dice, roll).best)
            assert vars(table.best_action(table.card(card), tuple(map(int, dice)), roll)) == vars(best)
    for bad in [("chance=22", "3351", 1), ("chance=99", "33516", 1), ("chance=22", "33516", 0), ("", "33516", True)]:
        with pytest.raises(solver.KniffelError):
            table.best_action(*bad)


def test_a_card_object_checked_once_is_checked_again_after_any_change(table):
    """A valid Card is used as it is from its first check on, until it changes in any way: then it is checked
    again, and a change that makes it invalid is refused. A card with numpy numbers is answered from a copy."""
    v = table.variant
    card = table.card("einser=3,chance=22")
    assert table.card(card) is card and table.card(card) is card  # checked, then used as it is
    dice = (1, 1, 1, 2, 6)
    assert vars(table.best_action(card, dice, 2)) == vars(table.advise("einser=3,chance=22", "11126", 2).best)
    changes = [
        lambda c: c.filled.__setitem__(v.find_box("chance"), 99),  # no Chance holds 99
        lambda c: c.filled.update({v.find_box("zweier"): 7}),  # 7 is no multiple of 2
        lambda c: setattr(c, "extra", 50),  # a bonus without a Kniffel
        lambda c: c.filled.setdefault(v.find_box("dreier"), 4),
        lambda c: setattr(c, "variant", PRESETS["yahtzee"]),
    ]
    for change in changes:
        changed = table.card("einser=3,chance=22")
        assert table.card(changed) is changed
        change(changed)
        with pytest.raises(solver.KniffelError):
            table.best_action(changed, dice, 2)
    changed = table.card("einser=3,chance=22")
    table.card(changed)
    changed.filled.pop(v.find_box("chance"))  # still a valid card: answered as the card it now is
    assert vars(table.best_action(changed, dice, 2)) == vars(table.advise("einser=3", "11126", 2).best)
    with pytest.raises(solver.KniffelError, match="chance=99"):  # parse_card's message, naming the entry
        table.card(Card(v, {v.find_box("chance"): 99}))
    with pytest.raises(solver.KniffelError, match="Chance"):  # restricted scratching: Chance first
        table.card(Card(v, {0: 0}))
    numpy_card = Card(v, {0: np.int64(3)})
    assert table.card(numpy_card) is not numpy_card and table.card(numpy_card).filled == {0: 3}
    assert type(table.card(numpy_card).filled[0]) is int


def test_advice_card_is_its_own(table):
    """Cards given as text are parsed once per Table; the card an Advice shows is a copy, so that changing it
    changes no later answer."""
    first = table.advise("einser=3,chance=22", "11126", 2)
    first.card.filled[table.variant.find_box("zweier")] = 8
    first.card.extra = 50
    again = table.advise("einser=3,chance=22", "11126", 2)
    assert again.card.format() == table.card("einser=3,chance=22").format()
    assert vars(again.best) == vars(first.best)
    assert vars(table.best_action("einser=3,chance=22", "11126", 2)) == vars(first.best)


def test_a_checked_card_whose_extra_changes_type_is_checked_again(table):
    """extra=50 checked, then set to 50.0 or numpy's 50 (equal numbers, so an equality test of the mark passes):
    answered as a new Card with that extra is (refused, or read from a copy with plain ints), never used as it
    is (an Advice would show 'extra=50.0', a card text that no parser takes)."""
    text = "kniffel=50,sechser=30,extra=50"
    card = table.card(text)
    assert table.card(card) is card
    card.extra = 50.0
    with pytest.raises(solver.KniffelError, match="whole number"):
        table.card(card)
    card = table.card(text)
    assert table.card(card) is card
    card.extra = np.int64(50)
    assert type(table.card(card).extra) is int and table.card(card) == table.card(text)
    assert table.advise(card, "11126", 2).as_dict()["card"] == "sixes=30,kniffel=50,extra=50"


def test_a_card_changed_by_hand_into_junk_is_refused_in_one_line(table):
    """A Card whose parts were set by hand met raw AttributeError/TypeError (a str or None variant, None
    filled), or had '22' and None read as numbers through its text (None extra became 0)."""

    def changed(text, **parts):
        card = solver.as_card(table.variant, text)
        for name, value in parts.items():
            setattr(card, name, value)
        return card

    strings = changed("chance=22")
    strings.filled[12] = "22"
    for card, fragment in (
        (Card("kniffel", {12: 22}), "the card's variant must be a Variant"),
        (changed("chance=22", variant=None), "the card's variant must be a Variant"),
        (changed("chance=22", filled=None), "a mapping of box index to points, not None"),
        (strings, "card entry 12: points must be a whole number, not '22'"),
        (changed("kniffel=50", extra="50"), "card entry 'extra': points must be a whole number, not '50'"),
        (changed("kniffel=50", extra=None), "not None"),
    ):
        with pytest.raises(solver.KniffelError, match=re.escape(fragment)):
            table.value(card)


def test_card_keys_of_an_int_subclass_are_box_indexes(table):
    """IntEnum box indexes (a program's names for the boxes) are box indexes, as they were before a Card object was
    checked on its own entries; bools are not."""

    class Box(enum.IntEnum):
        ONES = 0
        CHANCE = 12

    card = Card(table.variant, {Box.ONES: 3, Box.CHANCE: 22})
    assert table.card(card) == table.card("einser=3,chance=22")
    assert vars(table.best_action(card, "11126", 2)) == vars(table.advise("einser=3,chance=22", "11126", 2).best)
    with pytest.raises(solver.KniffelError, match="box index"):
        table.card(Card(table.variant, {True: 2}))
