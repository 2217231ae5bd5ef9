"""Advice against a brute-force recomputation from the same table (every keep and box enumerated)."""

import itertools
import random
from functools import cache, lru_cache
from math import factorial

import numpy as np
import pytest
from naive import NaiveSolver

from solver import dp
from solver.advisor import Advisor
from solver.cards import Card, box_values
from solver.variants import PRESETS

NAMES = ["kniffel", "kniffel-meister", "yahtzee", "yahtzee-free-joker", "yatzy", "yatzy6", "kniffel-keep-one"]
NAIVE_NAME = {"kniffel-keep-one": "kniffel"}


@pytest.fixture(scope="module")
def advisors():
    return {name: Advisor(PRESETS[name], dp.solve(PRESETS[name])[0]) for name in NAMES}


def random_card(variant, rng, n_filled):
    card = Card(variant)
    for b in rng.sample(range(len(variant.boxes)), n_filled):
        card.filled[b] = rng.choice(box_values(variant, b))
    if variant.joker_box and variant.joker_index in card.filled and rng.random() < 0.5:
        card.filled[variant.joker_index] = max(box_values(variant, variant.joker_index))
    return card


class BruteForce:
    """Expected final scores by plain enumeration: the naive rules for entries, the table for the rest."""

    def __init__(self, name, values, card):
        self.v = PRESETS[name]
        self.values = values
        self.card = card
        self.naive = NaiveSolver(NAIVE_NAME.get(name, name))
        self.filled = {self.v.boxes[b].key: p for b, p in card.filled.items()}
        self.final_value = lru_cache(maxsize=None)(self._final_value)
        self.after_second = lru_cache(maxsize=None)(self._after_second)

    def entries(self, dice):
        """Entries of a final roll. The advisor leaves out a 0 in a box the roll fits (free
        scratching allows it, but scoring the box is never worse), so the naive list is thinned alike."""
        out = {}
        options = self.naive.final_options(self.filled, dice)
        scored = {key for key, pts, _ in options if pts > 0}
        for key, pts, extra in options:
            if pts == 0 and key in scored:
                continue
            after = self.card.with_entry(self.v.box_index(key), pts, extra)
            out[(key, pts)] = after.points + float(self.values[after.state])
        return out

    def _final_value(self, dice):
        return max(self.entries(dice).values())

    def outcomes(self, kept):
        """Rolls after rerolling the other dice, with their chances (multinomial counting)."""
        n = self.v.n_dice - len(kept)
        faces = self.v.faces
        for rest in itertools.combinations_with_replacement(faces, n):
            ways = factorial(n)
            for f in set(rest):
                ways //= factorial(rest.count(f))
            yield tuple(sorted(kept + rest)), ways / len(faces) ** n

    def keep_value_after_second(self, kept):
        return self._after_second_keep(tuple(sorted(kept)))

    @cache  # noqa: B019 (one short-lived object per test)
    def _after_second_keep(self, kept):
        return sum(p * self.final_value(d) for d, p in self.outcomes(kept))

    def _after_second(self, dice):
        """Value of a roll shown after roll 2: best keep (at least min_keep dice) or stop."""
        best = self.final_value(dice)
        for kept in sub_multisets(dice):
            if len(kept) >= self.v.min_keep_last_reroll and len(kept) < len(dice):
                best = max(best, self.keep_value_after_second(kept))
        return best

    def keep_value_after_first(self, kept):
        return sum(p * self.after_second(d) for d, p in self.outcomes(tuple(sorted(kept))))


def sub_multisets(dice):
    seen = set()
    for r in range(len(dice) + 1):
        for combo in itertools.combinations(sorted(dice), r):
            if combo not in seen:
                seen.add(combo)
                yield combo


@pytest.mark.parametrize("name", NAMES)
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


@pytest.mark.parametrize("name", NAMES)
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


def test_house_rule_forbids_rerolling_everything_after_roll_two(advisors):
    adv = advisors["kniffel-keep-one"]
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
