"""Second moments of the points still to come under the advisor's play, beside the values.

M2[state] = E[(points still to come)^2] when every decision is the advisor's (the tie rule of
forward.py). One backward pass like the solve: a final roll entered with gain d into next state n is
worth d^2 + 2 d V[n] + M2[n]; keeps average these over one more die (_keep_means, linear), and each
roll takes the second moment of the keep the policy chooses. The spread of an option is then
sqrt(M2 - V^2) of what it leads to: one turn's work per advice, once the table exists.
"""

from __future__ import annotations

import numpy as np

from .compile import njit, prange, require_jit
from .identical import _keep_means
from .layers import backward_layers
from .policy import _next_state, _policy, ranked_sub_keeps


@njit(cache=True)
def _entry_moment(mask, joker_scored, capped_upper, m, points, rules, values, m2):
    """E[(points still to come)^2] after an entry of `points` by move m at upper total capped_upper."""
    nmask, next_joker_scored, nu, bonus = _next_state(mask, joker_scored, capped_upper, m, rules)
    d = points + bonus
    return d * d + 2.0 * d * values[nmask, nu, next_joker_scored] + m2[nmask, nu, next_joker_scored]


@njit(cache=True)
def _turn_moments(mask, joker_scored, upper_totals, rules, lattice, values, m2, subs, out2, out1):
    """Second moments of one turn at upper totals upper_totals: out2 (K, nj) keeps after roll 2, out1 keeps
    after roll 1 (roll rows of both: stop, after roll 1 with the first-roll scores where the variant has
    them). Returns M2 at the turn's start."""
    _, size_start, add, _, roll_prob = lattice
    n_rolls = rules.score.shape[0]
    first_roll = size_start[size_start.shape[0] - 2]
    nj = upper_totals.shape[0]
    keep1, keep2, move, points = _policy(mask, joker_scored, upper_totals, rules, lattice, values, subs)
    for r in range(n_rolls):
        for j in range(nj):
            out2[first_roll + r, j] = _entry_moment(
                mask, joker_scored, upper_totals[j], move[r, j], points[r, j], rules, values, m2
            )
    _keep_means(out2, add, size_start)
    out1[:] = out2
    for r in range(n_rolls):  # roll 2: the second moment of the chosen keep
        for j in range(nj):
            out1[first_roll + r, j] = out2[keep2[r, j], j]
    _keep_means(out1, add, size_start)
    out1[first_roll:] = out2[first_roll:]
    for r in range(move.shape[0] - n_rolls):  # rows R + r: a stop after roll 1 enters the first-roll scores
        for j in range(nj):
            m, d = move[n_rolls + r, j], points[n_rolls + r, j]
            out1[first_roll + r, j] = _entry_moment(mask, joker_scored, upper_totals[j], m, d, rules, values, m2)
    result = np.zeros(nj)
    for r in range(n_rolls):
        for j in range(nj):
            result[j] += roll_prob[r] * out1[keep1[r, j], j]
    return result


@njit(cache=True, parallel=True)
def _moments_layer(
    lane_start, masks, jokers_scored, totals_ptr, totals_list, upper_row, rules, lattice, values, subs, m2
):
    n_keeps = lattice.add.shape[0]
    for lane in prange(lane_start.shape[0] - 1):  # a lane of items per thread (lanes.py)
        for i in range(lane_start[lane], lane_start[lane + 1]):
            mask, joker_scored = masks[i], jokers_scored[i]
            u = upper_row[mask, joker_scored]
            upper_totals = totals_list[totals_ptr[u] : totals_ptr[u + 1]]
            out2 = np.empty((n_keeps, upper_totals.shape[0]))
            out1 = np.empty((n_keeps, upper_totals.shape[0]))
            result = _turn_moments(mask, joker_scored, upper_totals, rules, lattice, values, m2, subs, out2, out1)
            for j in range(upper_totals.shape[0]):
                m2[mask, upper_totals[j], joker_scored] = result[j]


def moments_table(engine, values: np.ndarray) -> np.ndarray:
    """E[(points still to come)^2] of every state under the advisor's play (NaN where values are)."""
    require_jit("the second-moment table (per-option std)")
    subs = ranked_sub_keeps(engine.lattice)
    return backward_layers(engine, np.full(values.shape, np.nan), _moments_layer, engine.lattice, values, subs)


def turn_moments(engine, values, m2, mask: int, upper: int, joker_scored: int) -> tuple[np.ndarray, np.ndarray]:
    """Second moments of every keep of one turn (after roll 2, after roll 1), indexed like keep_values:
    a keep of every die means stopping."""
    k = engine.lattice.add.shape[0]
    out2, out1 = np.empty((k, 1)), np.empty((k, 1))
    subs = ranked_sub_keeps(engine.lattice)
    _turn_moments(mask, joker_scored, np.array([upper]), engine.rules, engine.lattice, values, m2, subs, out2, out1)
    return out2[:, 0], out1[:, 0]
