"""The solve's layer kernel for identical dice: the value of every state and the second moment of its points
still to come, in one pass.

M2[state] = E[(points still to come)^2] when every decision is the advisor's (policy.py's tie rule). It rides
along the values: the turn's policy (policy._turn_policy) takes the solver's maxima of the same sums, so it
gives the values and, with the maxima, the choices. A final roll entered with gain d into next state n is worth
d^2 + 2 d V[n] + M2[n]; keeps average these over one more die (_keep_means, linear), and each roll takes the
second moment of the keep the policy chooses. The spread of an option is then sqrt(M2 - V^2) of what it leads
to (chances/spread.py): one turn's work per advice, from the table's M2.
"""

from __future__ import annotations

import numpy as np

from .compile import njit
from .identical import _keep_means
from .lanes import run_lanes
from .policy import _next_state, _policy, ranked_sub_keeps
from .rules import PAD


@njit(cache=True)
def _move_moments(mask, joker_scored, upper_totals, rules, values, m2, gain, after, after2):
    """For every move m into a free box and upper total upper_totals[j]: gain[m, j] the bonus it crosses,
    after/after2[m, j] the value and second moment of the state it leads to (what an entry's moment reads:
    once a move, not once a roll)."""
    for m in range(rules.move_box.shape[0]):
        if (mask >> rules.move_box[m]) & 1 == 0:
            for j in range(upper_totals.shape[0]):
                nmask, next_joker_scored, nu, bonus = _next_state(mask, joker_scored, upper_totals[j], m, rules)
                gain[m, j] = bonus
                after[m, j] = values[nmask, nu, next_joker_scored]
                after2[m, j] = m2[nmask, nu, next_joker_scored]


@njit(inline="always")
def _entry_moment(points, gain, after, after2):
    """E[(points still to come)^2] after an entry of `points` that crosses a bonus of `gain` into a state of
    value `after` and second moment `after2`."""
    d = points + gain
    return d * d + 2.0 * d * after + after2


# inlined into _solve_lane, the one kernel of the solve and of the advice's spread (turn_moments): a kernel's
# compile optimises again the code of every kernel it calls (see compile.py), one level less is seconds less
@njit(inline="always")
def _turn(mask, joker_scored, upper_totals, rules, lattice, values, m2, subs, out2, out1, start):
    """One turn of (mask, joker_scored) at upper totals upper_totals: start[0, j] its value, start[1, j] its
    second moment; out2 (K, nj) the second moments of the keeps after roll 2, out1 after roll 1 (roll rows
    of both: stop, after roll 1 with the first-roll scores where the variant has them)."""
    _, size_start, add, _, roll_prob = lattice
    n_rolls = rules.score.shape[0]
    first_roll = size_start[size_start.shape[0] - 2]
    nj = upper_totals.shape[0]
    keep1, keep2, move, points, after_first = _policy(mask, joker_scored, upper_totals, rules, lattice, values, subs)
    n_moves = rules.move_box.shape[0]
    gain, after, after2 = np.empty((n_moves, nj)), np.empty((n_moves, nj)), np.empty((n_moves, nj))
    _move_moments(mask, joker_scored, upper_totals, rules, values, m2, gain, after, after2)
    for r in range(n_rolls):
        for j in range(nj):
            m = move[r, j]
            out2[first_roll + r, j] = _entry_moment(points[r, j], gain[m, j], after[m, j], after2[m, j])
    _keep_means(out2, add, size_start)
    for r in range(n_rolls):  # roll 2: the second moment of the chosen keep (the keep rows follow from these)
        for j in range(nj):
            out1[first_roll + r, j] = out2[keep2[r, j], j]
    _keep_means(out1, add, size_start)
    for r in range(first_roll, out1.shape[0]):  # loops, not slice copies: see compile.py
        for j in range(out1.shape[1]):
            out1[r, j] = out2[r, j]
    for r in range(move.shape[0] - n_rolls):  # rows R + r: a stop after roll 1 enters the first-roll scores
        for j in range(nj):
            m = move[n_rolls + r, j]
            out1[first_roll + r, j] = _entry_moment(points[n_rolls + r, j], gain[m, j], after[m, j], after2[m, j])
    for j in range(nj):
        start[0, j] = 0.0
        start[1, j] = 0.0
    for r in range(n_rolls):
        for j in range(nj):
            start[0, j] += roll_prob[r] * after_first[r, j]
            start[1, j] += roll_prob[r] * out1[keep1[r, j], j]


NO_KEEPS = np.empty((0, 0))  # _solve_lane's keeps in the solve: none wanted


def _solve_layer(lane_start, *args) -> None:
    """Values and second moments of every (mask, joker_scored) work item of one layer, a lane a thread
    (lanes.run_lanes: no prange kernel, whose compile costs seconds more); items write disjoint slots."""
    run_lanes(_solve_lane, lane_start, *args, NO_KEEPS)


@njit(cache=True, nogil=True)
def _solve_lane(
    first, last, masks, jokers_scored, totals_ptr, totals_list, upper_row, rules, lattice, subs, m2, values, keeps
):
    """_solve_layer's items first..last-1 (one lane). keeps with rows (turn_moments: one item at one upper
    total, unpadded) takes the item's keep moments, keeps[0] after roll 2 and keeps[1] after roll 1, and the
    tables stay as they are."""
    n_keeps = lattice.add.shape[0]
    one = keeps.shape[0] > 0
    pad = 1 if one else PAD
    for i in range(first, last):
        mask = masks[i]
        joker_scored = jokers_scored[i]
        u = upper_row[mask, joker_scored]
        n_totals = totals_ptr[u + 1] - totals_ptr[u]
        # pad to whole vector blocks: LLVM's scalar loop tails cost more than the padding
        upper_totals = np.empty((n_totals + pad - 1) // pad * pad, dtype=np.int64)
        for j in range(upper_totals.shape[0]):
            upper_totals[j] = totals_list[totals_ptr[u] + min(j, n_totals - 1)]
        out2 = np.empty((n_keeps, upper_totals.shape[0]))
        out1 = np.empty((n_keeps, upper_totals.shape[0]))
        start = np.empty((2, upper_totals.shape[0]))
        _turn(mask, joker_scored, upper_totals, rules, lattice, values, m2, subs, out2, out1, start)
        if one:
            for k in range(n_keeps):
                keeps[0, k] = out2[k, 0]
                keeps[1, k] = out1[k, 0]
            continue
        for j in range(n_totals):
            values[mask, upper_totals[j], joker_scored] = start[0, j]
            m2[mask, upper_totals[j], joker_scored] = start[1, j]


def turn_moments(engine, values, m2, mask: int, upper: int, joker_scored: int) -> tuple[np.ndarray, np.ndarray]:
    """Second moments of every keep of one turn (after roll 2, after roll 1), indexed like keep_values:
    a keep of every die means stopping. The solve's lane kernel, for one item whose totals are [upper]."""
    upper_row = engine.upper.row
    u = int(upper_row[mask, joker_scored])
    if u < 0:
        raise ValueError(f"state {(mask, upper, joker_scored)} is unreachable")
    totals_ptr = np.zeros(u + 2, dtype=np.int64)
    totals_ptr[u + 1] = 1  # item u's totals: totals_list[0:1]
    item = np.array([mask], dtype=np.int64), np.array([joker_scored], dtype=np.int64)
    keeps = np.empty((2, engine.lattice.add.shape[0]))
    subs = ranked_sub_keeps(engine.lattice)
    args = totals_ptr, np.array([upper], dtype=np.int64), upper_row, engine.rules, engine.lattice, subs, m2, values
    _solve_lane(0, 1, *item, *args, keeps)
    return keeps[0], keeps[1]
