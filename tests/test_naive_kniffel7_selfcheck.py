"""Self-checks of the Kniffel 7 end-game reference (tests/naive_kniffel7.py), with no fast code.

The expected numbers come from small calculations by hand (derivations in the comments)
from /work/shared/RULES.md, or from the consistency of its three functions.
"""

import random
from collections import Counter
from fractions import Fraction as F
from math import comb

import numpy as np
import pytest
from naive import kniffel7_endgame_value
from naive_kniffel7 import BOXES, DIE_FACES, SCORES, SHAPE, expected_final, final_pmf_max_ev, max_prob_final_at_least

TOL = 1e-9


def card(free, **points):
    """A card with the boxes `free` free and every other box holding 0, or `points`."""
    filled = {box: 0 for box in BOXES if box not in free}
    filled.update(points)
    return filled


def tail(pmf, target):
    return sum(q for score, q in pmf.items() if score >= target)


def check_consistent(filled, targets):
    """pmf sums to 1, its mean is the max EV; max P(final >= T) falls with T and beats the pmf's tail."""
    pmf = final_pmf_max_ev(filled)
    assert sum(pmf.values()) == pytest.approx(1, abs=TOL)
    assert sum(s * q for s, q in pmf.items()) == pytest.approx(expected_final(filled), abs=TOL)
    probs = [max_prob_final_at_least(filled, t) for t in targets]
    assert all(a >= b - TOL for a, b in zip(probs, probs[1:]))
    for t, p in zip(targets, probs):
        assert p >= tail(pmf, t) - TOL
    return pmf, probs


# ------------------------------------------------------------------ scoring


def plain_score(box, dice):
    """The RULES.md table for one roll, written with a Counter."""
    counts = Counter(dice)
    faces = set(dice)
    upper = ("ones", "twos", "threes", "fours", "fives", "sixes", "sevens")
    if box in upper:
        v = upper.index(box) + 1
        return v * counts[v]
    most = max(counts.values())
    runs = [set(range(s, s + n)) for n in (5, 6) for s in range(1, 9 - n)]
    return {
        "four_of_a_kind": sum(dice) if most >= 4 else 0,
        "five_of_a_kind": sum(dice) if most >= 5 else 0,
        "double_triple": 25 if sum(c >= 3 for c in counts.values()) >= 2 else 0,
        "straight_five": 30 if any(r <= faces for r in runs if len(r) == 5) else 0,
        "straight_six": 40 if any(r <= faces for r in runs if len(r) == 6) else 0,
        "super_kniffel": 60 if most >= 6 else 0,
        "chance": sum(dice),
    }[box]


def reference_score(box, dice):
    index = np.ravel_multi_index([DIE_FACES[k].index(f) for k, f in enumerate(dice)], SHAPE)
    return int(SCORES[box][index])


# dice in die order 1..7 (die k cannot show k, die 7 cannot show 7)
EXAMPLES = [
    ((7, 7, 7, 7, 1, 1, 1), {"sevens": 28, "ones": 3, "four_of_a_kind": 31, "double_triple": 25, "chance": 31}),
    (
        (2, 1, 4, 3, 7, 5, 6),
        {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6, "sevens": 7}
        | {"straight_five": 30, "straight_six": 40, "chance": 28},
    ),
    (
        (2, 1, 1, 1, 1, 1, 1),
        {"super_kniffel": 60, "five_of_a_kind": 8, "four_of_a_kind": 8, "ones": 6, "twos": 2} | {"chance": 8},
    ),
    ((3, 3, 2, 2, 2, 3, 1), {"double_triple": 25, "threes": 9, "twos": 6, "ones": 1, "chance": 16}),
    (
        (3, 3, 4, 5, 6, 7, 6),
        {"threes": 6, "fours": 4, "fives": 5, "sixes": 12, "sevens": 7, "straight_five": 30, "chance": 34},
    ),
]


@pytest.mark.parametrize("dice,points", EXAMPLES)
def test_scoring_examples(dice, points):
    for box in BOXES:
        assert reference_score(box, dice) == points.get(box, 0), box


def test_scoring_matches_plain_rules_on_sampled_rolls():
    rng = random.Random(7)
    for _ in range(3000):
        dice = tuple(rng.choice(faces) for faces in DIE_FACES)
        for box in BOXES:
            assert reference_score(box, dice) == plain_score(box, dice)


def test_six_equal_dice_are_42_rolls():
    # six equal v: the six dice other than die v (the one that lacks v) all show v, die v shows anything
    assert int((SCORES["super_kniffel"] > 0).sum()) == 7 * 6


# --------------------------------------------------------------- one box


def die_chance_value(faces):
    """Optimal stopping of one die over three rolls, maximising its face (exact)."""
    e = F(sum(faces), 6)
    for _ in range(2):
        e = sum(max(F(f), e) for f in faces) / 6
    return e


# Chance alone (Super-Kniffel scratched: no Super-Points): the sum is additive over the
# dice and each die is rerolled on its own, so the best turn is each die's optimal stopping.
CHANCE_TURN = sum(die_chance_value(faces) for faces in DIE_FACES)


@pytest.mark.parametrize(
    "points,already",
    [
        ({}, 0),
        ({"sevens": 42, "sixes": 18, "fives": 5}, 65 + 35),  # upper 65: first bonus
        ({"sevens": 42, "sixes": 36, "ones": 6, "four_of_a_kind": 30}, 84 + 30 + 70),  # upper 84: both bonuses
    ],
)
def test_chance_alone(points, already):
    filled = card(["chance"], **points)
    assert expected_final(filled) == pytest.approx(float(already + CHANCE_TURN), abs=TOL)
    pmf, _ = check_consistent(filled, range(already + 20, already + 50, 3))
    assert min(pmf) >= already + 8 and max(pmf) <= already + 48  # chance: 8 .. 48 points


def test_chance_at_its_maximum():
    # 48 = every die at its top face (7 on dice 1-6, 6 on die 7): keep the top faces, reroll the rest
    top = 1 - (5 / 6) ** 3
    assert max_prob_final_at_least(card(["chance"]), 48) == pytest.approx(top**7, abs=TOL)
    assert max_prob_final_at_least(card(["chance"]), 49) == 0


def test_chance_with_super_points_is_worth_more():
    # Super-Kniffel holds 60: six equal dice put 60 into Chance instead of their sum (<= 48)
    plain = expected_final(card(["chance"]))
    with_sp = expected_final(card(["chance"], super_kniffel=60))
    assert 60 < with_sp - plain < 60 + 0.2
    assert max(final_pmf_max_ev(card(["chance"], super_kniffel=60))) == 60 + 60


def threes_pmf(upper):
    """Points to come {points: P} with only `threes` free at upper total `upper` (no Super-Points).

    Six dice can show a 3 (not die 3).  Keeping every 3 and rerolling the rest is best for any
    payoff rising in the number of 3s, so that number is Binomial(6, 1 - (5/6)**3).
    """
    hit = 1 - F(5, 6) ** 3
    out = Counter()
    for c in range(7):
        gain = 3 * c + sum(35 for t in (63, 84) if upper < t <= upper + 3 * c)
        out[gain] += comb(6, c) * hit**c * (1 - hit) ** (6 - c)
    return out


@pytest.mark.parametrize(
    "points",
    [
        {"sevens": 35, "sixes": 12, "fives": 10, "fours": 0, "twos": 2, "ones": 1},  # upper 60: 63 needs one 3
        {"sevens": 42, "sixes": 24, "fives": 5, "ones": 4},  # upper 75: 84 needs three 3s
        {"sevens": 14, "sixes": 6},  # upper 20: no bonus reachable
    ],
)
def test_threes_alone_crossing_the_bonus(points):
    filled = card(["threes"], **points)
    upper = sum(points.values())
    earned = upper + sum(35 for t in (63, 84) if upper >= t)
    expected = {earned + g: float(q) for g, q in threes_pmf(upper).items()}
    pmf, probs = check_consistent(filled, range(earned, earned + 60))
    assert pmf.keys() == expected.keys()
    for score, q in expected.items():
        assert pmf[score] == pytest.approx(q, abs=TOL)
        # the same keep-the-3s play maximises every P(final >= T)
        assert max_prob_final_at_least(filled, score) == pytest.approx(tail(expected, score), abs=TOL)


@pytest.mark.parametrize("box,points", [("straight_six", 40), ("straight_five", 30), ("super_kniffel", 60)])
def test_all_or_nothing_box(box, points):
    # a box that scores `points` or 0: max EV = points * max P(completing it)
    filled = card([box], fours=12, four_of_a_kind=30)
    base = 42
    p = max_prob_final_at_least(filled, base + points)
    assert expected_final(filled) == pytest.approx(base + points * p, abs=TOL)
    assert max_prob_final_at_least(filled, base + 1) == pytest.approx(p, abs=TOL)
    assert max_prob_final_at_least(filled, base + points + 1) == 0
    assert max_prob_final_at_least(filled, base) == 1
    pmf, _ = check_consistent(filled, [base, base + 1, base + points])
    assert pmf.keys() <= {base, base + points}
    assert 0 < p < 1


NAIVE_CARDS = [{"sevens": 42, "sixes": 18}, {"twos": 10, "super_kniffel": 60, "fives": 60}]
QUICK = {("four_of_a_kind", 0), ("double_triple", 1)}  # the other pairs: in slow runs


@pytest.mark.parametrize(
    "box,points",
    [
        pytest.param(b, NAIVE_CARDS[i], id=f"{b}-{i}", marks=() if (b, i) in QUICK else pytest.mark.slow)
        for b in BOXES
        for i in range(2)
        if not (b == "super_kniffel" and i == 1)  # Super-Points need Super-Kniffel holding 60
    ],
)
def test_one_box_matches_the_last_turn_of_tests_naive(box, points):
    # tests/naive.py has its own vectorised last turn of a full card (a separate reference)
    filled = card([box], **{b: p for b, p in points.items() if b != box})
    future = kniffel7_endgame_value(filled)
    upper = sum(p for b, p in filled.items() if b in BOXES[:7])
    earned = sum(filled.values()) + sum(35 for t in (63, 84) if upper >= t)
    assert expected_final(filled) == pytest.approx(earned + future, abs=TOL)


# -------------------------------------------------------------- two boxes


def test_two_boxes_consistent():
    filled = card(["chance", "threes"], sevens=35, sixes=24)
    pmf, probs = check_consistent(filled, range(59, 59 + 130, 7))
    assert probs[0] == 1
    assert max(pmf) <= 59 + 48 + 18 + 70


def test_super_points_in_an_upper_box_reach_the_bonus():
    # upper 10 + Super-Points 60 in threes = 70 >= 63: the first bonus; the most to come is
    # Super-Points in both boxes, 60 + 60 + 35 (84 would need 74 in threes)
    filled = card(["threes", "chance"], super_kniffel=60, twos=10)
    assert max_prob_final_at_least(filled, 70 + 155) > 0
    assert max_prob_final_at_least(filled, 70 + 156) == 0
    check_consistent(filled, range(70, 250, 9))


@pytest.mark.parametrize(
    "filled",
    [
        {"pips": 0},
        {"ones": 7},  # 7 ones: no roll
        {"chance": 60},  # Super-Points without Super-Kniffel holding 60
        {"super_kniffel": 30},
        {box: 0 for box in BOXES},  # no free box
    ],
)
def test_bad_cards_are_refused(filled):
    with pytest.raises(ValueError):
        expected_final(filled)


# ------------------------------------------------------------ three boxes


@pytest.mark.slow
@pytest.mark.parametrize(
    "free,points",
    [
        (["chance", "threes", "four_of_a_kind"], {"sevens": 35, "sixes": 24}),
        (["ones", "twos", "straight_six"], {"sevens": 42, "fives": 15}),
        (["fours", "sevens", "chance"], {"super_kniffel": 60, "sixes": 30, "fives": 20}),
    ],
)
def test_three_boxes_consistent(free, points):
    filled = card(free, **points)
    base = sum(points.values())
    check_consistent(filled, range(base, base + 250, 17))
