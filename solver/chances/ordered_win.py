"""`advise kniffel7 --opponent`: a turn's options ranked by the probability of beating the opponent, dice told apart.

As win.py for identical dice: an option is worth  sum_i P(opponent finishes with i) x P(I finish with at least
i + 1 | option), my probabilities computed on demand from my card for every need (target_ordered.py). The
opponent's final-score pmf under max-expected play: exact (distribution.py) when its forward pass is quick,
else estimated from SIMULATED_GAMES games simulated from its card.
"""

from __future__ import annotations

import numpy as np

from ..advice.advisor import Advisor
from ..advice.cards import Card
from ..advice.ordered import OrderedAdvisor
from ..dp.ordered_target import target_keep_values
from ..rules.variant import Variant
from .distribution import final_pmf, pmf_work
from .ordered_chances import EXACT_PASS_SECONDS, SIMULATED_GAMES, OnPlan, targets_from
from .simulation import batches
from .target_ordered import OrderedTargets
from .win import WinOption, _rank

EVERY_NEED = 10_000  # above any Kniffel 7 score


def opponent_pmf(variant: Variant, values: np.ndarray, opponent: Card) -> tuple[np.ndarray, bool]:
    """(the opponent's final-score pmf under max-expected play, whether it is exact): exact (the distribution)
    when its forward pass takes at most EXACT_PASS_SECONDS, else the scores of SIMULATED_GAMES simulated games."""
    if pmf_work(variant, values, opponent)[1] <= EXACT_PASS_SECONDS:  # a full card, or a quick forward pass
        return final_pmf(variant, values, opponent), True
    scores = np.concatenate([g.scores for g in batches(variant, values, SIMULATED_GAMES, 1, card=opponent)])
    return np.bincount(scores.astype(np.int64)) / len(scores), False


def my_targets(variant: Variant, card: Card, on_plan: OnPlan | None = None) -> OrderedTargets | None:
    """My probabilities of every need from `card` (the plan keeps the needs up to the most the card can still
    score; None: beyond one machine's minutes)."""
    return targets_from(variant, card, np.arange(1, EVERY_NEED), on_plan)


def win_probability(opp_pmf: np.ndarray, card: Card, found: OrderedTargets) -> float:
    """P(I beat the opponent) from `card` (at the start of a turn, or full), playing for each need."""
    return _win(opp_pmf, card.points, lambda n: 0.0 if card.full else found.probability(card.state, n))


def _win(opp_pmf: np.ndarray, points: int, p_at_least) -> float:
    """beaten for sure below my points; opponent score i >= points needs i + 1 - points more."""
    total = float(opp_pmf[:points].sum())
    for i in np.flatnonzero(opp_pmf[points:]) + points:
        total += float(opp_pmf[i]) * p_at_least(int(i) + 1 - points)
    return total


def ordered_opponent_options(
    advisor: Advisor, found: OrderedTargets, card: Card, dice, roll: int, opp_pmf: np.ndarray, box_now: bool = False
) -> tuple[str, list[WinOption]]:
    """('keep' or 'box', every option ranked by the probability of beating the opponent)."""
    assert isinstance(advisor, OrderedAdvisor)
    action, options = advisor.advise(card, dice, roll, box_now)
    if action == "box":
        return action, _rank(
            [WinOption(o, win_probability(opp_pmf, card.with_entry(o.box, o.points, o.extra), found)) for o in options]
        )
    rows = [
        advisor._roll_row(dice)
        if len(o.keep_dice) == advisor.variant.n_dice
        else advisor.partial_assignment(dice, o.keep_dice)
        for o in options
    ]
    stops = [len(o.keep_dice) == advisor.variant.n_dice for o in options]
    by_need: dict[int, np.ndarray] = {}
    for i in np.flatnonzero(opp_pmf[card.points :]) + card.points:
        n = int(i) + 1 - card.points
        if n <= found.states.length[found.number[card.state]]:
            final, after_second, after_first = target_keep_values(found.engine, (*card.state, n), found.states)
            by_keep = after_first if roll == 1 else after_second
            by_need[n] = np.array([final[r] if stop else by_keep[r] for r, stop in zip(rows, stops)])
    ranked = [
        WinOption(o, _win(opp_pmf, card.points, lambda n, k=k: float(by_need[n][k]) if n in by_need else 0.0))
        for k, o in enumerate(options)
    ]
    return action, _rank(ranked)
