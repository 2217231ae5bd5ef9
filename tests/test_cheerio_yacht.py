"""Cheerio and Yacht (issue 31): presets as data (wild ones are a score-function setting, no new kernel). Every
scoring example of the sources replayed (docs/RULES.md), the DP against tests/naive.py on reduced cards, the
start values pinned."""

import pytest
from naive import NaiveSolver
from test_dp_vs_naive import fast_value

from solver import dp
from solver.rules.presets import PRESETS
from solver.rules.scoring import box_score

TOL = 1e-9


def score(name, box, dice):
    v = PRESETS[name]
    return box_score(v.boxes[v.box_index(box)], dice, v.colours, v.wild)


def test_yacht_examples():
    # exercism's yacht exercise (problem-specifications), every case
    cases = [
        ((5, 5, 5, 5, 5), "yacht", 50), ((1, 3, 3, 2, 5), "yacht", 0), ((1, 1, 1, 3, 5), "ones", 3),
        ((3, 1, 1, 5, 1), "ones", 3), ((4, 3, 6, 5, 5), "ones", 0), ((2, 3, 4, 5, 6), "twos", 2),
        ((1, 4, 1, 4, 1), "fours", 8), ((3, 3, 3, 3, 3), "threes", 15), ((3, 3, 3, 3, 3), "fives", 0),
        ((1, 5, 3, 5, 3), "fives", 10), ((2, 3, 4, 5, 6), "sixes", 6), ((2, 2, 4, 4, 4), "full_house", 16),
        ((5, 3, 3, 5, 3), "full_house", 19), ((2, 2, 4, 4, 5), "full_house", 0), ((1, 4, 4, 4, 4), "full_house", 0),
        ((2, 2, 2, 2, 2), "full_house", 0), ((6, 6, 4, 6, 6), "four_of_a_kind", 24),
        ((3, 3, 3, 3, 3), "four_of_a_kind", 12), ((3, 3, 3, 5, 5), "four_of_a_kind", 0),
        ((3, 5, 4, 1, 2), "little_straight", 30), ((1, 2, 3, 4, 5), "big_straight", 0),
        ((1, 1, 2, 3, 4), "little_straight", 0), ((1, 2, 3, 4, 6), "little_straight", 0),
        ((1, 1, 3, 4, 5), "little_straight", 0), ((4, 6, 2, 5, 3), "big_straight", 30),
        ((6, 5, 4, 3, 2), "little_straight", 0), ((6, 5, 4, 3, 1), "big_straight", 0),
        ((3, 3, 5, 6, 6), "choice", 23), ((2, 2, 2, 2, 2), "choice", 10),
    ]  # fmt: skip
    for dice, box, points in cases:
        assert score("yacht", box, dice) == points, (dice, box)


def test_cheerio_sheet_examples():
    # thegamesforum.com's Cheerio: upper boxes face x count, 1-2-3-4-5: 20, 2-3-4-5-6: 25, the full house scores
    # its dice (1,1,1,2,2: 7; 2,2,2,1,1: 8; at most 28 with 6,6,6,5,5)
    assert score("cheerio", "ones", (1, 1, 1, 1, 1)) == 5 and score("cheerio", "sixes", (6, 6, 6, 6, 6)) == 30
    assert score("cheerio", "little_straight", (5, 4, 3, 2, 1)) == 20
    assert score("cheerio", "big_straight", (2, 3, 4, 5, 6)) == 25
    assert score("cheerio", "little_straight", (2, 3, 4, 5, 6)) == 0
    assert score("cheerio", "full_house", (1, 1, 1, 2, 2)) == 7 and score("cheerio", "full_house", (2, 2, 2, 1, 1)) == 8
    assert score("cheerio", "full_house", (6, 6, 6, 5, 5)) == 28
    assert score("cheerio", "full_house", (6, 6, 6, 6, 6)) == 0  # 28 is the most: five equal are no full house
    assert score("cheerio", "cheerio", (4, 4, 4, 4, 4)) == 50 and score("cheerio", "cheerio", (4, 4, 4, 4, 3)) == 0


def test_traditional_wild_ones_examples():
    # rinkworks.com's Cheerio: three fives and two sixes score 15 in fives or 12 in sixes; ones are wild where
    # another die shows the number: three ones, a two and a three count as four twos or four threes, or three ones
    assert score("cheerio7", "fives", (5, 5, 5, 6, 6)) == 15 and score("cheerio7", "sixes", (5, 5, 5, 6, 6)) == 12
    assert score("cheerio7", "twos", (1, 1, 1, 2, 3)) == 8
    assert score("cheerio7", "threes", (1, 1, 1, 2, 3)) == 12
    assert score("cheerio7", "ones", (1, 1, 1, 2, 3)) == 3
    assert score("cheerio7", "fours", (1, 1, 1, 2, 3)) == 0  # no die shows a four
    assert score("cheerio7", "cheerio", (1, 1, 6, 6, 6)) == 50 and score("cheerio7", "cheerio", (1, 1, 1, 1, 1)) == 50
    assert score("cheerio7", "cheerio", (1, 2, 6, 6, 6)) == 0
    assert score("cheerio7-plain", "twos", (1, 1, 1, 2, 3)) == 2  # the same sheet without wilds
    assert score("cheerio7-plain", "cheerio", (1, 1, 6, 6, 6)) == 0


REDUCED = [
    ("cheerio7", ["ones", "twos", "cheerio"], 3),
    ("cheerio7", ["sixes", "fives", "cheerio"], 4),
    ("cheerio7-plain", ["ones", "sixes", "cheerio"], 3),
    ("cheerio", ["threes", "full_house", "big_hand", "cheerio"], 5),
    ("cheerio", ["ones", "little_straight", "big_straight"], 5),
    ("yacht", ["fours", "four_of_a_kind", "yacht", "choice"], 4),
    ("yacht", ["twos", "full_house", "little_straight", "big_straight"], 5),
]


@pytest.mark.parametrize("name,boxes,n_dice", REDUCED)
def test_reduced_against_naive(name, boxes, n_dice):
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice)
    values, _ = dp.solve(variant)
    naive = NaiveSolver(name, boxes=boxes, n_dice=n_dice)
    assert abs(fast_value(variant, values, {}) - naive.start_value()) < TOL
    for key in boxes:  # every card with one box filled, at each of its scores
        for points in sorted({score(name, key, r) for r in naive._tables[0]} | {0}):
            assert abs(fast_value(variant, values, {key: points}) - naive.state_value({key: points})) < TOL


def test_whole_traditional_game_against_naive():
    """Seven boxes, five dice: the whole wild-ones game is small enough for the naive solver."""
    values, _ = dp.solve(PRESETS["cheerio7"])
    assert abs(values[0, 0, 0] - NaiveSolver("cheerio7").start_value()) < TOL


@pytest.mark.parametrize("name,start", [("cheerio", 141.9545130130), ("cheerio7", 125.3825493608),
                                        ("cheerio7-plain", 70.4066423266), ("yacht", 166.9550677046)])  # fmt: skip
def test_start_values(name, start):
    """No published optimum found (docs/RULES.md); this solver's figures, pinned."""
    values, _ = dp.solve(PRESETS[name])
    assert abs(values[0, 0, 0] - start) < 1e-8


def test_wuerfelpoker_is_kniffel_renamed():
    wp, kn = PRESETS["wuerfelpoker"], PRESETS["kniffel"]
    assert wp.fingerprint() == kn.fingerprint()
    assert [b.name_de for b in wp.boxes][6:8] == ["Drilling", "Vierling"] and wp.find_box("Fünfling") == 11
    assert wp.find_box("Dreierpasch") == wp.find_box("Drilling")  # the Kniffel names still resolve


@pytest.mark.parametrize("name", ["cheerio", "cheerio7", "yacht"])
def test_every_command_works(name, tmp_path):
    """solve, advise, value, play, simulate and distribution on the new presets (no upper bonus: simulate's bonus
    count was a float array then)."""
    from click.testing import CliRunner

    from solver.cli import cli

    def run(*args, input=None):
        res = CliRunner().invoke(cli, ["--tables", str(tmp_path), "--no-progress", "--lang", "en", *args], input=input)
        assert res.exit_code == 0, res.output
        return res.output

    assert "start value" in run("solve", name)
    assert "keep" in run("advise", name, "11266")
    assert "expected final score" in run("value", name, "--card", "sixes=18")
    assert "Game over" in run("play", name, "--roll-for-me", "--seed", "3", "--save", str(tmp_path / "g.json"),
                              input="\n" * 100)  # fmt: skip
    assert "mean" in run("simulate", name, "-n", "200").lower()
    assert "%" in run("distribution", name)
