"""Yams (issue 17): the French pad as data only (no new rule kind). Scores against the worked examples
of the source and tests/naive.py; values against the naive solver on reduced and end-game cards."""

import pytest
from naive import NaiveSolver
from test_dp_vs_naive import fast_value

from solver import dp
from solver.rules.presets import YAMS
from solver.rules.scoring import box_score

TOL = 1e-9


def yams(box, dice):
    return box_score(YAMS.boxes[YAMS.box_index(box)], dice)


def test_source_examples():
    # sirtin.fr: Brelan the sum of the three equal dice, Carré of the four, Full 25, Petite Suite 1-5: 30,
    # Grande Suite 2-6: 40, Yams 50; upper boxes face x count
    assert yams("brelan", (4, 4, 4, 1, 6)) == 12
    assert yams("carre", (5, 5, 5, 5, 1)) == 20
    assert yams("full", (2, 2, 3, 3, 3)) == 25 and yams("full", (3, 3, 3, 3, 3)) == 0
    assert yams("petite_suite", (5, 3, 1, 2, 4)) == 30 and yams("petite_suite", (2, 3, 4, 5, 6)) == 0
    assert yams("grande_suite", (6, 2, 3, 4, 5)) == 40 and yams("grande_suite", (1, 2, 3, 4, 6)) == 0
    assert yams("yams", (6, 6, 6, 6, 6)) == 50
    assert yams("chance", (4, 5, 6, 4, 1)) == 20  # synonyme-du-mot.com: 4+5+6+4+1 = 20
    assert yams("fours", (3, 3, 4, 4, 6)) == 8  # binjoug.prootrecords.com: 3-3-4-4-6 in the 4: 8 points
    assert list(dp.rules_bonus(YAMS)[[62, 63]]) == [0, 35]


ENDGAME = [
    {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 12, "brelan": 15, "carre": 16,
     "petite_suite": 30, "grande_suite": 0, "yams": 50},
    {"ones": 2, "twos": 8, "threes": 9, "fours": 16, "fives": 20, "brelan": 18, "carre": 0, "full": 25,
     "petite_suite": 0, "grande_suite": 40, "chance": 23},
]  # fmt: skip


@pytest.mark.parametrize("card", ENDGAME)
def test_endgame_cards_against_naive(card, solved):
    assert abs(fast_value(YAMS, solved("yams"), card) - NaiveSolver("yams").state_value(card)) < TOL


def test_start_value(solved):
    """No published optimum exists (benchmarks/published_figures.md); this solver's figure, pinned."""
    assert abs(solved("yams")[0, 0, 0] - YAMS_START) < 1e-8


YAMS_START = 211.5325507454
