"""Box scores: every roll of every variant against the naive reading, plus the seeds' worked examples."""

from itertools import combinations_with_replacement

import naive
import pytest

from solver.rules.dice import possible_rolls
from solver.rules.presets import KNIFFEL, KNIFFEL7, PRESETS, YAHTZEE, YATZY, YATZY6
from solver.rules.scoring import box_score, possible_points, score_tables

NAIVE_NAME = {"kniffel-keep-one": "kniffel", "wuerfelpoker": "kniffel"}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_roll_matches_naive(name):
    v = PRESETS[name]
    rolls = list(combinations_with_replacement(v.faces, v.n_dice))
    for roll in rolls:
        for box in v.boxes:
            assert box_score(box, roll, v.colours, v.wild) == naive.score(NAIVE_NAME.get(name, name), box.key, roll), (
                box.key,
                roll,
            )


def kniffel(box, dice):
    return box_score(KNIFFEL.boxes[KNIFFEL.box_index(box)], dice)


def test_seed_001_worked_examples():
    assert kniffel("ones", (2, 2, 2, 1, 6)) == 1
    assert kniffel("twos", (2, 2, 5, 1, 6)) == 4
    assert kniffel("threes", (3, 3, 3, 1, 6)) == 9
    assert kniffel("fours", (4, 4, 4, 4, 6)) == 16
    assert kniffel("fives", (5, 5, 5, 1, 6)) == 15
    assert kniffel("sixes", (6, 6, 6, 1, 6)) == 24
    # The seed prints 11 and 20: slips, the dice sum to 13 and 22 and the box scores the sum (RULES.md).
    assert kniffel("three_of_a_kind", (2, 2, 2, 1, 6)) == 13
    assert kniffel("four_of_a_kind", (4, 4, 4, 4, 6)) == 22
    assert kniffel("full_house", (2, 2, 3, 3, 3)) == 25
    assert kniffel("small_straight", (1, 2, 3, 4, 6)) == 30
    assert kniffel("large_straight", (1, 2, 3, 4, 5)) == 40
    assert kniffel("kniffel", (4, 4, 4, 4, 4)) == 50
    assert kniffel("chance", (2, 3, 4, 5, 6)) == 20


def test_seed_000_rules():
    assert kniffel("fours", (4, 4, 4, 1, 2)) == 12  # "Drei Vierer bringen im Viererfeld 12 Punkte"
    assert kniffel("full_house", (4, 4, 4, 1, 1)) == 25  # "drei Vieren und zwei Einsen"
    assert kniffel("full_house", (5, 5, 5, 5, 5)) == 0  # five equal are no Full House
    assert kniffel("small_straight", (3, 4, 5, 6, 6)) == 30
    assert kniffel("small_straight", (1, 2, 3, 5, 6)) == 0
    assert kniffel("large_straight", (2, 3, 4, 5, 6)) == 40
    assert kniffel("three_of_a_kind", (6, 6, 6, 6, 6)) == 30


def test_kniffel_joker_box_maxima():
    """RULES.md's list of box maxima for a further Kniffel."""
    tables = score_tables(KNIFFEL, possible_rolls(KNIFFEL.dice))
    expected = [5, 10, 15, 20, 25, 30, 30, 30, 25, 30, 40, 50, 30]
    assert tables.box_max.tolist() == expected
    r = possible_rolls(KNIFFEL.dice).index((3, 3, 3, 3, 3))
    assert tables.joker_score[r, KNIFFEL.box_index("large_straight")] == 40  # "Kniffel aus Dreien ... 40"


def test_yahtzee_joker_scores():
    tables = score_tables(YAHTZEE, possible_rolls(YAHTZEE.dice))
    r = possible_rolls(YAHTZEE.dice).index((2, 2, 2, 2, 2))
    joker = {b.key: int(tables.joker_score[r, i]) for i, b in enumerate(YAHTZEE.boxes)}
    assert joker["full_house"] == 25 and joker["small_straight"] == 30 and joker["large_straight"] == 40
    assert joker["three_of_a_kind"] == 10 and joker["chance"] == 10 and joker["twos"] == 10
    assert tables.joker_upper[r] == YAHTZEE.box_index("twos")


def yatzy(box, dice):
    return box_score(YATZY.boxes[YATZY.box_index(box)], dice)


def test_yatzy_rules():
    assert yatzy("one_pair", (3, 3, 5, 5, 1)) == 10  # the highest pair
    assert yatzy("two_pairs", (3, 3, 5, 5, 1)) == 16
    assert yatzy("two_pairs", (3, 3, 3, 3, 1)) == 0  # the pairs must differ
    assert yatzy("three_of_a_kind", (4, 4, 4, 4, 1)) == 12
    assert yatzy("four_of_a_kind", (4, 4, 4, 4, 4)) == 16
    assert yatzy("small_straight", (1, 2, 3, 4, 5)) == 15
    assert yatzy("small_straight", (2, 3, 4, 5, 6)) == 0
    assert yatzy("large_straight", (2, 3, 4, 5, 6)) == 20
    assert yatzy("full_house", (2, 2, 6, 6, 6)) == 22
    assert yatzy("full_house", (6, 6, 6, 6, 6)) == 0
    assert yatzy("yatzy", (1, 1, 1, 1, 1)) == 50


def yatzy6(box, dice):
    return box_score(YATZY6.boxes[YATZY6.box_index(box)], dice)


def test_yatzy6_seed_002():
    assert [yatzy6(b, (1, 1, 1, 2, 2, 5)) for b in ("ones", "twos", "fives")] == [3, 4, 5]  # seed's example
    # "Ein Full House kann auch als Drei Paare gewertet werden"
    assert yatzy6("full_house", (2, 2, 2, 2, 5, 5)) == 40 and yatzy6("three_pairs", (2, 2, 2, 2, 5, 5)) == 20
    # "Eine Straße kann auch als 5er-Straße gewertet werden"
    assert yatzy6("straight", (1, 2, 3, 4, 5, 6)) == 50 and yatzy6("five_straight", (1, 2, 3, 4, 5, 6)) == 21
    # "Ein Yatzy kann auch als 5er-Yatzy, Full House, Zwei Drillinge und Drei Paare gewertet werden"
    six = (4,) * 6
    assert [yatzy6(b, six) for b in ("yatzy", "five_yatzy", "full_house", "two_triples", "three_pairs")] == [
        60,
        24,
        40,
        30,
        20,
    ]
    assert yatzy6("two_triples", (3, 3, 3, 5, 5, 5)) == 30
    assert yatzy6("five_yatzy", (2, 2, 2, 2, 2, 6)) == 16  # all six dice count
    assert yatzy6("chance", (1, 2, 2, 4, 5, 6)) == 20
    # near misses
    assert yatzy6("three_pairs", (2, 2, 3, 3, 1, 6)) == 0
    assert yatzy6("two_triples", (3, 3, 3, 2, 2, 1)) == 0
    assert yatzy6("five_straight", (1, 2, 3, 4, 6, 6)) == 0
    assert yatzy6("full_house", (3, 3, 3, 2, 2, 2)) == 0


def k7(box, dice):
    return box_score(KNIFFEL7.boxes[KNIFFEL7.box_index(box)], dice)


def test_kniffel7_rulebook():
    assert k7("sevens", (7, 7, 7, 1, 2, 3, 4)) == 21
    assert k7("four_of_a_kind", (5, 5, 5, 5, 6, 3, 4)) == 33
    assert k7("five_of_a_kind", (3, 3, 3, 3, 3, 5, 6)) == 26
    assert k7("double_triple", (2, 2, 2, 6, 6, 6, 1)) == 25
    assert k7("double_triple", (2, 2, 2, 2, 6, 6, 6)) == 25  # 4 + 3
    assert k7("double_triple", (2, 2, 2, 2, 2, 2, 6)) == 0  # six equal do not count
    assert k7("straight_five", (3, 4, 5, 6, 7, 1, 1)) == 30  # 7 follows 6
    assert k7("straight_six", (2, 3, 4, 5, 6, 7, 7)) == 40
    assert k7("super_kniffel", (4, 4, 4, 4, 4, 4, 1)) == 60
    assert k7("chance", (1, 2, 3, 4, 5, 6, 7)) == 28


def test_kniffel7_possible_points():
    sevens = possible_points(KNIFFEL7, KNIFFEL7.box_index("sevens"))
    assert 42 in sevens and 49 not in sevens and 60 in sevens  # six dice carry a 7; Super-Points 60
    chance = possible_points(KNIFFEL7, KNIFFEL7.box_index("chance"))
    assert 48 in chance and 60 in chance and 49 not in chance
