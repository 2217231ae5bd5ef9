"""Playing to the target (`simulate --target`): many games, each keep chosen for the best chance to reach the target
(targets.target_options), and how often they reach it."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from ..advice.advisor import Advisor
from ..advice.cards import Card
from ..rules.variant import Variant
from ..store.bounded_cache import BoundedCache
from .targets import TargetTable, _lookup, need, target_keep_probabilities

PLAY_CACHE_BYTES = 256 * 2**20  # keep probabilities kept by simulate --target (two vectors of K a state and need)


@dataclass(frozen=True)
class TargetRun:
    games: int
    target: int
    reached: int
    seed: int

    @property
    def p_reached(self) -> float:
        return self.reached / self.games

    @property
    def stderr(self) -> float:
        p = self.p_reached
        return float(np.sqrt(max(p * (1 - p), 0.0) / self.games))

    def as_dict(self) -> dict:
        return {
            "games": self.games,
            "target": self.target,
            "seed": self.seed,
            "p_reached": self.p_reached,
            "stderr": self.stderr,
        }


def _sub_keeps(dice: tuple[int, ...], faces) -> list[tuple[int, ...]]:
    counts = [sum(1 for d in dice if d == f) for f in faces]
    return [
        tuple(f for f, c in zip(faces, kept) for _ in range(c)) for kept in product(*(range(c + 1) for c in counts))
    ]


def simulate_target(
    variant: Variant, table: TargetTable, advisor: Advisor, games: int, target: int, seed: int = 0, progress=None
) -> TargetRun:
    """Play `games` games, each decision the one that maximises the probability of finishing with at
    least `target` (ties: the first option in the order the advisor lists them). A plain Python loop:
    a few milliseconds per game."""
    rng = np.random.default_rng(seed)
    faces = variant.faces
    need(table, Card(variant), target)  # the target must be within the table
    reached = 0
    cache = BoundedCache(PLAY_CACHE_BYTES)  # keep probabilities per (state, need)
    for _ in range(games):
        card = Card(variant)
        while not card.full:
            card = _play_turn(variant, table, advisor, card, target, rng, faces, cache)
        reached += card.points >= target
        if progress is not None:
            progress(1)
    return TargetRun(games, target, reached, seed)


def _play_turn(variant, table, advisor, card, target, rng, faces, cache) -> Card:
    n_dice = variant.n_dice
    n = target - card.points
    dice = tuple(sorted(int(x) for x in rng.choice(faces, n_dice)))
    entry_roll = 3  # 1: stopped after roll 1 (first-roll points, Generala's servida)
    for roll in (1, 2):
        if n <= 0:
            break
        key = (card.state, n)
        if key not in cache:
            cache[key] = target_keep_probabilities(table, card, n)
        after_second, after_first = cache[key]
        probs = after_first if roll == 1 else after_second
        min_keep = variant.min_keep_last_reroll if roll == 2 else 0
        best, best_p = None, -1.0
        for kept in _sub_keeps(dice, faces):
            if len(kept) < min_keep:
                continue
            p = float(probs[advisor.keep_index[tuple(sum(1 for d in kept if d == f) for f in faces)]])
            if p > best_p:
                best, best_p = kept, p
        assert best is not None
        if len(best) == n_dice:
            entry_roll = roll
            break  # stop rolling
        dice = tuple(sorted(best + tuple(int(x) for x in rng.choice(faces, n_dice - len(best)))))
    best_card, best_p = None, -1.0
    for o in advisor.box_options(card, dice, entry_roll):  # ranked by expected score: ties go to the better one
        after = card.with_entry(o.box, o.points, o.extra)
        p = _lookup(table, after, target - after.points)  # 1 once reached, 0 on a full card short of it
        if p > best_p:
            best_card, best_p = after, p
    assert best_card is not None
    return best_card
