"""The Numba DP against the slow, independent reference in tests/naive.py."""

import itertools
import random

import numpy as np
import pytest
from helpers import quick_only
from naive import NaiveSolver

from solver import dp
from solver.rules.presets import PRESETS
from solver.rules.scoring import possible_points

NAMES = ["kniffel", "kniffel-meister", "yahtzee", "yahtzee-free-joker", "yatzy", "yatzy6"]
QUICK = {"kniffel", "yahtzee"}  # the whole tables of the others in the slow tests; their rules: REDUCED
TOL = 1e-9


def fast_value(variant, values, filled: dict) -> float:
    """Future value of a card (box key -> points) from a solved table."""
    mask, upper = 0, 0
    for key, pts in filled.items():
        b = variant.box_index(key)
        mask |= 1 << b
        if variant.boxes[b].is_upper:
            upper += pts
    joker_scored = 0
    if variant.has_flag and filled.get(variant.joker_box, 0) > 0:
        joker_scored = 1
    return float(values[mask, min(upper, variant.upper_cap), joker_scored])


# Reduced variants: few boxes and dice, each special rule exercised, bonus thresholds moved
# within reach so the bonus logic runs.
REDUCED = [
    ("kniffel", ["ones", "sixes", "kniffel", "chance"], 2, [(6, 10)]),
    ("kniffel", ["twos", "full_house", "kniffel"], 3, [(4, 7)]),
    ("kniffel", ["threes", "small_straight", "kniffel", "large_straight"], 3, None),
    ("kniffel", ["fives", "three_of_a_kind", "kniffel", "chance"], 3, [(10, 20)]),
    ("kniffel-meister", ["ones", "kniffel", "chance"], 3, [(2, 5)]),
    ("kniffel-meister", ["sixes", "four_of_a_kind", "kniffel", "full_house"], 3, [(12, 9)]),
    ("yahtzee", ["ones", "twos", "yahtzee", "chance"], 2, [(3, 35)]),
    ("yahtzee", ["threes", "yahtzee", "full_house", "small_straight"], 3, [(6, 10)]),
    ("yahtzee", ["ones", "twos", "yahtzee"], 3, [(4, 10)]),
    ("yahtzee-free-joker", ["ones", "twos", "yahtzee", "chance"], 2, [(3, 35)]),
    ("yahtzee-free-joker", ["sixes", "yahtzee", "full_house", "large_straight"], 3, [(12, 5)]),
    ("yatzy", ["ones", "one_pair", "two_pairs", "yatzy"], 3, [(2, 50)]),
    ("yatzy", ["fours", "three_of_a_kind", "small_straight", "full_house"], 3, None),
    ("yatzy", ["sixes", "two_pairs", "four_of_a_kind", "chance"], 3, [(12, 50)]),
    # six dice (issue 4): partition boxes, the straights and the sums of all six dice
    ("yatzy6", ["fives", "three_pairs", "two_triples"], 6, [(15, 50)]),
    ("yatzy6", ["sixes", "full_house", "five_straight"], 6, [(24, 50)]),
    ("yatzy6", ["ones", "straight", "five_yatzy"], 6, [(3, 50)]),
    ("yatzy6", ["twos", "yatzy", "chance"], 4, [(4, 50)]),
    # issue 17: Kismet's colour boxes, sums plus points, the second Kismet and three bonus steps; Yams
    ("kismet", ["ones", "full_house", "kismet"], 3, [(2, 5)]),
    ("kismet", ["twos", "full_house_same_colour", "kismet", "flush"], 3, [(2, 3), (4, 5), (6, 7)]),
    ("kismet", ["fives", "two_pair_same_colour", "four_of_a_kind", "kismet"], 4, [(10, 10), (15, 20)]),
    ("kismet", ["threes", "straight", "yarborough", "three_of_a_kind"], 5, [(3, 35), (6, 20), (9, 20)]),
    ("yams", ["ones", "brelan", "yams", "chance"], 3, [(2, 35)]),
    ("yams", ["sixes", "carre", "full", "yams"], 4, [(12, 10)]),
    ("yams", ["twos", "petite_suite", "grande_suite", "full"], 5, [(4, 35)]),
]


@pytest.mark.parametrize("name,boxes,n_dice,bonuses", REDUCED)
def test_reduced_variants_every_state(name, boxes, n_dice, bonuses):
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    values, _ = dp.solve(variant)
    naive = NaiveSolver(name, boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    assert abs(fast_value(variant, values, {}) - naive.start_value()) < TOL
    # every card with one or two boxes filled, each with a spread of legal points
    rng = random.Random(1)
    checked = 0
    for k in (1, 2):
        for filled_keys in itertools.combinations(boxes, k):
            for _ in range(4):
                card = {key: rng.choice(legal_points(variant, key)) for key in filled_keys}
                assert abs(fast_value(variant, values, card) - naive.state_value(card)) < TOL, card
                checked += 1
    assert checked > 0


def legal_points(variant, key):
    from solver.advice.cards import box_values

    return box_values(variant, variant.box_index(key))


def test_house_rule_keep_one_matches_naive():
    boxes = ["ones", "sixes", "kniffel", "chance"]
    variant = PRESETS["kniffel-keep-one"].reduced(boxes=boxes, n_dice=3, bonuses=[(9, 10)])
    values, _ = dp.solve(variant)
    naive = NaiveSolver("kniffel", boxes=boxes, n_dice=3, bonuses=[(9, 10)], keep_one=True)
    assert abs(fast_value(variant, values, {}) - naive.start_value()) < TOL
    plain, _ = dp.solve(PRESETS["kniffel"].reduced(boxes=boxes, n_dice=3, bonuses=[(9, 10)]))
    assert fast_value(variant, values, {}) < plain[0, 0, 0] - 1e-6  # the rule costs something


@pytest.fixture(scope="module")
def full_tables(solved):
    """full_tables[name]: the table solved once a run (conftest.py), when first asked."""

    class Tables(dict):
        def __missing__(self, name):
            self[name] = solved(name)
            return self[name]

    return Tables()


def endgame_cards(variant, n_free, count, seed):
    rng = random.Random(seed)
    keys = [b.key for b in variant.boxes]
    for _ in range(count):
        free = rng.sample(keys, n_free)
        card = {k: rng.choice(legal_points(variant, k)) for k in keys if k not in free}
        if variant.joker_box in card and rng.random() < 0.5:
            card[variant.joker_box] = max(legal_points(variant, variant.joker_box))
        yield free, card


@pytest.mark.parametrize("name", quick_only(NAMES, QUICK))
def test_endgame_states_of_real_variants(name, full_tables):
    variant = PRESETS[name]
    values = full_tables[name]
    n = 0
    for n_free, count in ((1, 6), (2, 3)):
        for free, card in endgame_cards(variant, n_free, count, seed=NAMES.index(name)):
            naive = NaiveSolver(name)
            assert abs(fast_value(variant, values, card) - naive.state_value(card)) < TOL, (free, card)
            n += 1
    assert n == 9


@pytest.mark.parametrize("name", quick_only(NAMES, QUICK))
def test_endgame_joker_states(name, full_tables):
    """Joker box filled (with points and scratched), the joker's target boxes still free."""
    variant = PRESETS[name]
    if variant.joker_box is None:
        pytest.skip("no joker box")
    values = full_tables[name]
    keys = [b.key for b in variant.boxes]
    for free in (["full_house", "threes"], ["large_straight", "sixes"], ["ones"]):
        for jpts in (0, 50):
            card = {k: 0 for k in keys if k not in free}
            card[variant.joker_box] = jpts
            naive = NaiveSolver(name)
            assert abs(fast_value(variant, values, card) - naive.state_value(card)) < TOL, (free, jpts)


def test_no_nan_in_reachable_states(full_tables):
    variant = PRESETS["kniffel"]
    upper_states = dp.upper_states(variant)
    values = full_tables["kniffel"]
    masks = np.arange(1 << len(variant.boxes))
    assert np.isfinite(values[:, :, 0][upper_states.reachable[upper_states.row[masks, 0]]]).all()
    with_flag = masks[(masks >> variant.joker_index) & 1 == 1]
    assert np.isfinite(values[with_flag, :, 1][upper_states.reachable[upper_states.row[with_flag, 1]]]).all()


# Dice told apart (issue 5): die k lacks face k; reduced to the first n dice.
ORDERED = [
    (["sevens", "chance"], 3, [(14, 35), (21, 35)]),
    (["ones", "straight_five", "chance"], 3, None),
    (["fours", "double_triple", "four_of_a_kind"], 4, [(8, 35)]),
    (["twos", "sevens", "straight_five"], 4, [(4, 10), (14, 20)]),
]


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
@pytest.mark.parametrize("boxes,n_dice,bonuses", ORDERED)
def test_dice_told_apart_match_naive(boxes, n_dice, bonuses):
    variant = PRESETS["kniffel7"].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    values, _ = dp.solve(variant)
    naive = NaiveSolver("kniffel7", boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    assert abs(fast_value(variant, values, {}) - naive.start_value()) < TOL
    for key in boxes:
        for pts in legal_points(variant, key)[::3]:
            card = {key: pts}
            assert abs(fast_value(variant, values, card) - naive.state_value(card)) < TOL, card


# Super-Kniffel and its Super-Points on fewer dice: the box asks for all dice but one equal (six of
# seven), so three or four dice can throw it (the same convention in tests/naive.py).
SUPER = [
    (["super_kniffel", "chance"], 3, None),
    (["sevens", "super_kniffel", "straight_five"], 4, [(14, 35)]),
    (["ones", "super_kniffel", "four_of_a_kind"], 4, [(2, 20)]),
]


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
@pytest.mark.parametrize("boxes,n_dice,bonuses", SUPER)
def test_super_points_on_dice_told_apart_match_naive(boxes, n_dice, bonuses):
    variant = PRESETS["kniffel7"].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    assert variant.boxes[variant.joker_index].groups == (n_dice - 1,)
    values, _ = dp.solve(variant)
    naive = NaiveSolver("kniffel7", boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    assert abs(fast_value(variant, values, {}) - naive.start_value()) < TOL
    checked = 0
    for k in (1, 2):
        for keys in itertools.combinations(boxes, k):
            for super_kniffel in [0, 60] if "super_kniffel" in keys else [None]:
                # Super-Points (60 in any box) only on cards whose Super-Kniffel holds 60
                points = [
                    [super_kniffel]
                    if key == "super_kniffel"
                    else possible_points(variant, variant.box_index(key), jokers=super_kniffel == 60)
                    for key in keys
                ]
                for pts in itertools.product(*points):
                    card = dict(zip(keys, pts))
                    assert abs(fast_value(variant, values, card) - naive.state_value(card)) < TOL, card
                    checked += 1
    assert checked > 20


@pytest.mark.parametrize(
    "name,boxes",
    [
        ("yahtzee", ["ones", "sixes", "yahtzee", "full_house"]),
        ("kniffel", ["threes", "kniffel", "small_straight", "chance"]),
        ("yatzy", ["fives", "two_pairs", "yatzy"]),
    ],
)
@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_ordered_kernel_equals_multiset_kernel_on_identical_dice(name, boxes):
    """Both kernels on the same identical dice: every state of the table agrees."""
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=4, bonuses=[(10, 35)])
    multiset, _ = dp.solve(variant)
    ordered, _ = dp.solve(variant, engine=dp.make_engine(variant, ordered=True))
    assert np.allclose(multiset, ordered, atol=1e-9, equal_nan=True)
    assert np.isnan(multiset).sum() == np.isnan(ordered).sum()
