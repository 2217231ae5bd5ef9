"""`simulate kniffel7 --target`: games played for the target, dice told apart.

Target-optimal play from the first turn needs the Kniffel 7 target table (a cluster job). What one machine
plays: max-expected play (the simulation's kernels, all games in lockstep) until ENDGAME_FREE boxes are
left, then exact target play from each game's card, computed on demand (target_ordered.py): each keep and
each box the one with the highest probability of reaching the target. The fraction that reaches it is a
lower bound of the target-optimal one.
"""

from __future__ import annotations

import numpy as np

from ..advice.cards import Card
from ..advice.ordered import OrderedAdvisor
from ..dp import roll_entries
from ..dp.ordered_target import target_keep_values
from ..rules.variant import Variant
from .ordered_chances import targets_from
from .simulation import batches
from .target_ordered import OrderedTargets
from .target_play import TargetRun
from .win import Versus

ENDGAME_FREE = 3  # boxes left when the exact target play takes over (at most about 10 s a card on two cores)
TIE = 1e-12  # keeps this close count as tied: the one with more dice kept (stopping first) is taken


def _roll(variant: Variant, rng, dice=None, kept=()) -> tuple[int, ...]:
    """The dice after a roll: die d keeps its face where d is in `kept`, else shows one of its own six."""
    return tuple(dice[d] if d in kept else int(rng.choice(variant.dice[d])) for d in range(variant.n_dice))


def _best_keep(advisor: OrderedAdvisor, turn, dice, roll: int) -> tuple[int, ...]:
    """The dice (indices) to keep for the best chance: keeps by the number of dice kept, most first."""
    final, after_second, after_first = turn
    by_keep = after_first if roll == 1 else after_second
    n = advisor.variant.n_dice
    min_keep = advisor.variant.min_keep_last_reroll if roll == 2 else 0
    best, best_p = tuple(range(n)), float(final[advisor._roll_row(dice)])
    for bits in sorted(range((1 << n) - 1), key=lambda b: -bin(b).count("1")):
        chosen = tuple(d for d in range(n) if bits >> d & 1)
        if len(chosen) < min_keep:
            continue
        p = float(by_keep[advisor.partial_assignment(dice, chosen)])
        if p > best_p + TIE:
            best, best_p = chosen, p
    return best


def _best_box(advisor: OrderedAdvisor, found: OrderedTargets, card: Card, dice, target: int) -> Card:
    """The card after the entry with the best chance (ties: the lowest box)."""
    mask, _, joker_scored = card.state
    rules = found.engine.rules
    r = advisor._roll_row(dice)
    extra = advisor.variant.extra_points if joker_scored and rules.joker_roll[r] else 0
    best, best_p = None, -1.0
    for box, points in sorted(roll_entries(rules, mask, joker_scored, r)):
        after = card.with_entry(box, points, extra)
        p = 1.0 if after.points >= target else found.probability(after.state, target - after.points)
        if p > best_p + TIE:
            best, best_p = after, p
    assert best is not None
    return best


def target_turn(advisor: OrderedAdvisor, found: OrderedTargets, card: Card, target: int, rng) -> Card:
    """One turn played for the target from `card` (found: the probabilities planned from a card at or before it)."""
    variant = advisor.variant
    dice = _roll(variant, rng)
    need = target - card.points
    if need > 0:
        turn = target_keep_values(found.engine, (*card.state, need), found.states)
        for roll in (1, 2):
            kept = _best_keep(advisor, turn, dice, roll)
            if len(kept) == variant.n_dice:
                break
            dice = _roll(variant, rng, dice, kept)
    return _best_box(advisor, found, card, dice, target)


def _endgame_cards(variant: Variant, values: np.ndarray, games: int, seed: int, free: int = ENDGAME_FREE) -> list[Card]:
    """Every game's card when `free` boxes are left, after max-expected play (the simulation's)."""
    turns = len(variant.boxes) - free
    cards = []
    for part in batches(variant, values, games, seed, turns=turns):
        assert part.filled is not None
        for boxes, filled, extra in zip(part.boxes, part.filled, part.extra):
            entries = {int(b): int(boxes[b]) for b in np.flatnonzero(filled)}
            cards.append(Card(variant, entries, int(extra) * variant.extra_points))
    return cards


def simulate_target(
    advisor: OrderedAdvisor, values: np.ndarray, games: int, target: int, seed: int = 0, progress=None
) -> TargetRun:
    """`games` games: max-expected play to ENDGAME_FREE boxes left, then exact target play."""
    variant = advisor.variant
    rng = np.random.default_rng([seed, 3])
    reached = 0
    for card in _endgame_cards(variant, values, games, seed):
        found = targets_from(variant, card, [target - card.points])
        assert found is not None  # ENDGAME_FREE boxes: seconds
        while not card.full:
            card = target_turn(advisor, found, card, target, rng)
        reached += card.points >= target
        if progress is not None:
            progress(1)
    return TargetRun(games, target, reached, seed)


def simulate_versus(advisor: OrderedAdvisor, values: np.ndarray, pairs: int, seed: int = 0, progress=None) -> Versus:
    """`pairs` games against a max-expected player (independent dice, the opponent first each round): max-expected
    play until my last turn, then the exact play to beat the opponent's final score (its game is over by then)."""
    variant = advisor.variant
    rng = np.random.default_rng([seed, 4])
    scores = np.concatenate([g.scores for g in batches(variant, values, pairs, seed + 1)])
    wins = ties = losses = 0
    for card, opponent in zip(_endgame_cards(variant, values, pairs, seed, free=1), scores.tolist()):
        target = int(opponent) + 1
        found = targets_from(variant, card, [target - card.points])
        assert found is not None  # one box: a second at most
        final = target_turn(advisor, found, card, target, rng).points
        wins += final > opponent
        ties += final == opponent
        losses += final < opponent
        if progress is not None:
            progress(1)
    return Versus(pairs, wins, ties, losses, seed)
