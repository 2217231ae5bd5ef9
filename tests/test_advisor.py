"""Advice against a brute-force recomputation from the same table (every keep and box enumerated)."""

import random
from copy import copy

import numpy as np
import pytest
from helpers import BruteForce, quick_only, random_card

from solver.advice.advisor import Advisor, rank_options
from solver.advice.cards import Card
from solver.rules.presets import PRESETS

NAMES = ["kniffel", "kniffel-meister", "yahtzee", "yahtzee-free-joker", "yatzy", "yatzy6", "kniffel-keep-one"]
QUICK = {"kniffel", "yahtzee"}  # the other presets' whole tables: slow tests


@pytest.fixture(scope="module")
def advisors(solved):
    """advisors[name]: an Advisor on the table solved once a run (conftest.py), made when first asked."""

    class Advisors(dict):
        def __missing__(self, name):
            self[name] = Advisor(PRESETS[name], solved(name))
            return self[name]

    return Advisors()


@pytest.mark.parametrize("name", quick_only(NAMES, QUICK))
def test_box_advice_matches_brute_force(name, advisors):
    adv = advisors[name]
    v = adv.variant
    rng = random.Random(NAMES.index(name))
    for trial in range(25):
        card = random_card(v, rng, rng.randrange(0, len(v.boxes)))
        dice = tuple(sorted(rng.choice(v.faces) for _ in range(v.n_dice)))
        if trial % 5 == 0:
            dice = (rng.choice(v.faces),) * v.n_dice  # joker rolls
        brute = BruteForce(name, adv.values, card).entries(dice)
        got = {(v.boxes[o.box].key, o.points): o.expected_final_score for o in adv.box_options(card, dice)}
        assert got.keys() == brute.keys(), (card.format(), dice)
        for k in got:
            assert abs(got[k] - brute[k]) < 1e-9


@pytest.mark.parametrize("name", quick_only(NAMES, QUICK))
def test_keep_advice_matches_brute_force(name, advisors):
    adv = advisors[name]
    v = adv.variant
    rng = random.Random(100 + NAMES.index(name))
    n_filled = len(v.boxes) - (2 if v.n_dice == 5 else 1)  # keep the pure-Python enumeration quick
    for _trial in range(3):
        card = random_card(v, rng, n_filled)
        dice = tuple(rng.choice(v.faces) for _ in range(v.n_dice))
        brute = BruteForce(name, adv.values, card)
        roll2 = {o.keep: o.expected_final_score for o in adv.keep_options(card, dice, 2)}
        for kept, value in roll2.items():
            expected = (
                brute.final_value(tuple(sorted(dice))) if len(kept) == v.n_dice else brute.keep_value_after_second(kept)
            )
            assert abs(value - expected) < 1e-9, (kept, card.format())
        if v.n_dice == 5:
            roll1 = {o.keep: o.expected_final_score for o in adv.keep_options(card, dice, 1)}
            for kept, value in roll1.items():
                expected = (
                    brute.final_value(tuple(sorted(dice)))
                    if len(kept) == v.n_dice
                    else brute.keep_value_after_first(kept)
                )  # keeping every die = stop rolling
                assert abs(value - expected) < 1e-9, (kept, card.format())
        # the start-of-turn value is the mean of the first roll
        assert abs(adv.expected_final(card) - (card.points + float(adv.values[card.state]))) < 1e-12


def test_house_rule_forbids_rerolling_everything_after_roll_two():
    from solver import dp

    v = PRESETS["kniffel-keep-one"].reduced(boxes=["ones", "sixes", "kniffel", "chance"])  # the rule, a small table
    adv = Advisor(v, dp.solve(v)[0])
    card = Card(adv.variant)
    second = adv.keep_options(card, (1, 2, 3, 4, 6), 2)
    assert all(len(o.keep) >= 1 for o in second)
    first = adv.keep_options(card, (1, 2, 3, 4, 6), 1)
    assert any(len(o.keep) == 0 for o in first)


def test_worked_situations(advisors):
    """The README's worked situations."""
    adv = advisors["kniffel"]
    empty = Card(adv.variant)
    action, options = adv.advise(empty, (6, 6, 6, 6, 6), 1)
    assert action == "keep" and options[0].keep == (6, 6, 6, 6, 6)
    best_box = adv.box_options(empty, (6, 6, 6, 6, 6))[0]
    assert adv.variant.boxes[best_box.box].key == "kniffel" and best_box.points == 50
    # keeping 3 3 from 3 3 5 1 6 at the start of a game
    assert adv.keep_options(empty, (3, 3, 5, 1, 6), 1)[0].keep == (3, 3)
    # a further Kniffel in the basic rules: joker, any box at its maximum, +50
    card = Card(adv.variant, {adv.variant.box_index("kniffel"): 50})
    opts = adv.box_options(card, (2, 2, 2, 2, 2))
    ls = next(o for o in opts if adv.variant.boxes[o.box].key == "large_straight")
    assert ls.points == 40 and ls.extra == 50
    assert len(opts) == len(adv.variant.boxes) - 1


def test_restricted_scratching(advisors):
    adv = advisors["kniffel"]
    v = adv.variant
    card = Card(v, {v.box_index("chance"): 20})
    opts = adv.box_options(card, (1, 1, 2, 3, 5))
    assert all(o.points > 0 for o in opts)  # something fits: no scratching
    full_except = {b: 0 for b in range(len(v.boxes)) if v.boxes[b].key not in ("sixes", "kniffel")}
    opts = adv.box_options(Card(v, full_except), (1, 2, 3, 4, 5))
    assert {v.boxes[o.box].key for o in opts} == {"sixes", "kniffel"} and all(o.points == 0 for o in opts)


def test_yahtzee_forced_joker(advisors):
    adv = advisors["yahtzee"]
    v = adv.variant
    card = Card(v, {v.box_index("yahtzee"): 50})
    opts = adv.box_options(card, (4, 4, 4, 4, 4))
    assert [(v.boxes[o.box].key, o.points, o.extra) for o in opts] == [("fours", 20, 100)]
    card = Card(v, {v.box_index("yahtzee"): 0, v.box_index("fours"): 8})
    keys = {v.boxes[o.box].key: o.points for o in adv.box_options(card, (4, 4, 4, 4, 4))}
    assert keys == {
        "three_of_a_kind": 20,
        "four_of_a_kind": 20,
        "full_house": 25,
        "small_straight": 30,
        "large_straight": 40,
        "chance": 20,
    }
    assert np.isfinite(adv.values[card.state])


def _near_tie_table(v, scale):
    """A made-up value table whose states differ by less than TIE (scale 2e-9; 0: all equal): options of equal
    points lie within TIE of each other without being equal, so the tie rule and the loss clamp decide."""
    shape = (1 << len(v.boxes), v.upper_cap + 1, 2 if v.has_flag else 1)
    return np.random.default_rng(1).uniform(0, scale, shape) if scale else np.zeros(shape)


@pytest.mark.parametrize("name", ["kniffel", "generala", "kniffel-keep-one", "yams", "yahtzee-free-joker", "kismet"])
@pytest.mark.parametrize("scale", [0.0, 2e-9])
def test_near_ties_rank_and_lose_as_rank_options_says(name, scale):
    """keep_options, box_options and decision (review) give what rank_options gives on options within TIE of
    each other: the tie rule's pick first, each loss measured from the highest value (not from the pick, which
    may lie up to TIE below it) and clamped to 0 under TIE. No solve: a made-up table; one situation in a few
    hundred has the pick below the highest. Servida entries after roll 1 (generala), keep-one, jokers' extra."""
    v = PRESETS[name]
    adv = Advisor(v, _near_tie_table(v, scale))
    rng = random.Random(7)
    for _ in range(600):
        card = random_card(v, rng, rng.randrange(0, len(v.boxes)))
        dice = tuple(rng.choice(v.faces) for _ in range(v.n_dice))
        for roll in (1, 2, 3):
            for kind in ["keep", "box"] if roll < 3 else ["box"]:
                options = adv.keep_options(card, dice, roll) if kind == "keep" else adv.box_options(card, dice, roll)
                assert [vars(o) for o in rank_options([copy(o) for o in options])] == [vars(o) for o in options]
                for o in {id(o): o for o in (options[0], options[-1], rng.choice(options))}.values():
                    if kind == "keep":
                        chosen, best = adv.decision(card, dice, roll, kept=o.keep)
                    else:
                        chosen, best = adv.decision(card, dice, roll, box=o.box, points=o.points)
                    assert (vars(chosen), vars(best)) == (vars(o), vars(options[0])), (card.format(), dice, roll)


def test_best_action_calls_its_compiled_kernel_without_dispatch_after_the_first_call(solved):
    """From the second call on, best_action calls best_one's compiled entry point (dp.compile.entry_point:
    0.35 us of a call less); should Numba's internals change, this test says the saving is gone."""
    from solver import numba_setup
    from solver.dp.best_one import best_one

    if not numba_setup.JIT:
        pytest.skip("kernels interpreted (KNIFFEL_JIT=0): no compiled entry point")
    v = PRESETS["kniffel"]
    adv = Advisor(v, solved("kniffel"))
    card = Card(v, {0: 3, 12: 22})
    first = [adv.best_action(card, (1, 1, 5, 6, 6), roll) for roll in (1, 2, 3)]
    assert adv._best_one is not best_one and callable(adv._best_one)
    assert [adv.best_action(card, (1, 1, 5, 6, 6), roll) for roll in (1, 2, 3)] == first
    assert first == [adv.advise(card, (1, 1, 5, 6, 6), roll)[1][0] for roll in (1, 2, 3)]
