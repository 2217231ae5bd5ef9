"""Target play for dice told apart (Kniffel 7), on demand: the probability of scoring at least n more points.

A column is (mask, upper total, joker_scored, need n). Ending the turn with roll r is worth, for that column,
the max over its allowed entries of P_next(n - points - bonus - extra), P(n <= 0) = 1; the turn passes of
ordered.py (maxes over keeps, means over rerolled dice) then run unchanged over those probabilities.

The next states' probabilities come from the caller's arrays, filled layer by layer from the last:
state s (a row of state_of[mask_row[mask], upper, joker_scored]) holds needs 1..length[s] at
prob[offset[s] + n - 1]; needs above length[s] (the most it can still score) have probability 0.
"""

from __future__ import annotations

import numpy as np

from .compile import njit, unmasked
from .entries import _box_options, _free_boxes
from .ordered import ORDERED_COLUMNS, _keep_values_from_final, _turn_from_final
from .rules import P_CAP, P_EXTRA

# one core's time per (state, need) column, for estimates and job chunks only: the worst cards with 3 and 4
# free boxes took 3.0-3.1 ms of CPU a column on two threads of a quiet machine
# (benchmarks/bench_target_kniffel7.py, 2026-12-06)
SECONDS_PER_COLUMN = 0.003


class TargetStates:
    """Where the caller keeps the probabilities of the states it computes (see the module's doc)."""

    def __init__(self, mask_row, state_of, offset, length, prob):
        self.mask_row = mask_row  # (2^B,) int64: row of a mask in state_of, -1 for masks not kept
        self.state_of = state_of  # (rows, cap + 1, 2) int64: state number, -1 for none
        self.offset = offset  # (states,) int64
        self.length = length  # (states,) int64: the most the state can still score
        self.prob = prob  # float64, NaN where not computed

    def arrays(self):
        return self.mask_row, self.state_of, self.offset, self.length, self.prob


@njit(cache=True)
def _next_probability(nmask, nu, nflag, nn, mask_row, state_of, offset, length, prob):
    """P(at least nn more points) from the next state (1 for nn <= 0; 0 from a full card or beyond its most)."""
    if nn <= 0:
        return 1.0
    row = mask_row[nmask]
    s = state_of[row, nu, nflag] if row >= 0 else -1
    if s < 0 or nn > length[s]:
        return 0.0
    return prob[offset[s] + nn - 1]


@njit(cache=True)
def _target_final_rolls(cols, rules, mask_row, state_of, offset, length, prob):
    """(R, 8): the probability of reaching each column's need when ending the turn with roll r (the best entry)."""
    n_rolls, n_boxes = rules.score.shape
    cap, extra = rules.params[P_CAP], rules.params[P_EXTRA]
    final = np.empty((n_rolls, ORDERED_COLUMNS))
    option_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
    option_points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_options = np.empty(n_rolls, dtype=np.int64)
    for j in range(ORDERED_COLUMNS):
        mask, upper, flag, need = cols[j, 0], cols[j, 1], cols[j, 2], cols[j, 3]
        if j == 0 or mask != cols[j - 1, 0] or flag != cols[j - 1, 2]:  # else the entries of the column before
            _box_options(mask, flag, rules, option_move, option_points, n_options)
        free = _free_boxes(mask, n_boxes)
        for r in range(n_rolls):
            implicit = n_options[r] < 0
            bonus_extra = extra if flag == 1 and rules.joker_roll[r] else 0
            best = 0.0
            for i in range(free.shape[0] if implicit else n_options[r]):
                if implicit:
                    m, s = rules.norm_move[r, free[i]], rules.score[r, free[i]]
                else:
                    m, s = option_move[r, i], option_points[r, i]
                nu = min(upper + rules.move_inc[m], cap)
                nflag = flag if rules.move_flag[m] < 0 else rules.move_flag[m]
                gained = s + bonus_extra + int(rules.bonus_cum[nu] - rules.bonus_cum[upper])
                p = _next_probability(
                    mask | (1 << rules.move_box[m]), nu, nflag, need - gained, mask_row, state_of, offset, length, prob
                )
                best = unmasked(max(best, p))
            final[r, j] = best
    return final


@njit(cache=True, nogil=True)
def _target_calls(cols, dest, rules, ordered, mask_row, state_of, offset, length, prob, work):
    """Calls of 8 columns (cols[c]: (8, 4) rows of mask, upper, joker_scored, need): each column's
    probability at the start of its turn into prob[dest[c, j]] (dest -1: a padding column). The columns
    of a call read only states of later layers, never written here."""
    result = np.empty(ORDERED_COLUMNS)
    for c in range(cols.shape[0]):
        final = _target_final_rolls(cols[c], rules, mask_row, state_of, offset, length, prob)
        _turn_from_final(final, ordered, work, result)
        for j in range(ORDERED_COLUMNS):
            if dest[c, j] >= 0:
                prob[dest[c, j]] = result[j]


def target_calls(engine, cols: np.ndarray, dest: np.ndarray, states: TargetStates, work) -> None:
    """_target_calls on this thread (it releases the GIL: callers run several at once)."""
    _target_calls(cols, dest, engine.rules, engine.ordered, *states.arrays(), work)


def target_keep_values(engine, column, states: TargetStates) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(final-roll probabilities by roll multiset, after roll 2, after roll 1 by partial assignment) of one
    column (mask, upper, joker_scored, need), as ordered_layer.ordered_keep_values gives expected points."""
    cols = np.repeat(np.asarray(column, dtype=np.int64)[None, :], ORDERED_COLUMNS, axis=0)
    final = _target_final_rolls(cols, engine.rules, *states.arrays())
    size = 7**engine.variant.n_dice
    after_second, after_first = np.empty(size), np.empty(size)
    _keep_values_from_final(final, engine.ordered, after_second, after_first)
    return final[:, 0].copy(), after_second, after_first
