"""The turn's policy from the value table, with the turn kernel's own arithmetic and one tie rule (TIE; after roll 1
or 2 the keep with the most dice, then the smallest sorted tuple of kept faces; after the final roll the lowest
box index): the keeps chosen and each final roll's entry, for the forward pass, the moments and simulations."""

from __future__ import annotations

from functools import cache
from itertools import product

import numpy as np

from ..rules.dice import keep_lattice
from .compile import njit, unmasked
from .entries import _box_options, _first_roll_rules, _free_boxes, _move_values
from .identical import _best_sub_keeps, _keep_means
from .rules import P_CAP, P_EXTRA, P_FIRST_ROLL, P_MIN_KEEP

TIE = 1e-9
FEW_COLUMNS = 6  # up to this many columns _choose_keeps scans column by column (measured crossover: 8-16)


def ranked_sub_keeps(lattice) -> np.ndarray:
    """For every roll: keep indices of all its sub-multisets (itself first = stop), in tie order:
    most dice first, then the lexicographically smallest sorted tuple of faces; padded with -1."""
    n = int(lattice.size_start.shape[0] - 2)
    return _ranked_sub_keeps(n, int(lattice.counts.shape[1])).copy()


@cache
def _ranked_sub_keeps(n: int, n_faces: int) -> np.ndarray:
    lattice = keep_lattice(n, n_faces)
    counts = [tuple(int(c) for c in row) for row in lattice.counts]
    index = {kept: k for k, kept in enumerate(counts)}

    def rank(kept):
        faces = tuple(f for f, c in enumerate(kept) for _ in range(c))
        return (-len(faces), faces)

    rows = [
        [index[kept] for kept in sorted(product(*(range(c + 1) for c in roll)), key=rank)]
        for roll in counts[int(lattice.size_start[n]) :]
    ]
    out = np.full((len(rows), max(map(len, rows))), -1, dtype=np.int64)
    for i, subs in enumerate(rows):
        out[i, : len(subs)] = subs
    return out


@njit(cache=True)
def _choose_keeps(by_keep, best, subs, min_start, chosen):
    """chosen[r, j]: the keep roll r takes at column j, the first in tie order whose value by_keep[k, j] is
    within TIE of best[r, j] (first_roll + r: stop)."""
    nj = by_keep.shape[1]
    if nj <= FEW_COLUMNS:  # one scan per column: most end after a few keeps, a loop over columns costs more
        for r in range(chosen.shape[0]):
            for j in range(nj):
                lim = best[r, j] - TIE
                chosen[r, j] = -1
                for i in range(subs.shape[1]):
                    c = subs[r, i]
                    if c < min_start:
                        break
                    if by_keep[c, j] >= lim:
                        chosen[r, j] = c
                        break
        return
    limit = np.empty(nj)
    for r in range(chosen.shape[0]):
        for j in range(nj):
            chosen[r, j] = -1
            limit[j] = best[r, j] - TIE
        for i in range(subs.shape[1]):  # all columns at once: they mostly agree, so the scans end together
            c = subs[r, i]
            if c < min_start:  # -1 padding, or fewer dice than the house rule allows (sizes descend)
                break
            open_cols = 0
            for j in range(nj):
                hit = chosen[r, j] < 0 and by_keep[c, j] >= limit[j]
                chosen[r, j] = c if hit else chosen[r, j]
                open_cols += chosen[r, j] < 0
            if open_cols == 0:
                break


@njit(cache=True)
def _push(r_prob, chosen, lattice, stop, mass):
    """Roll r (probability r_prob[r, j]) goes to keep chosen[r, j]: stopping adds to stop[r, j], other
    keeps are rerolled; leaves the next roll's probabilities in mass[first_roll:]."""
    size_start, add = lattice.size_start, lattice.add
    first_roll = size_start[size_start.shape[0] - 2]
    nj = chosen.shape[1]
    mass[:] = 0.0
    for r in range(r_prob.shape[0]):
        for j in range(nj):
            c = chosen[r, j]
            if c == first_roll + r:
                stop[r, j] += r_prob[r, j]
            else:
                mass[c, j] += r_prob[r, j]
    inv = 1.0 / add.shape[1]
    for k in range(first_roll):  # small keeps first: each spreads over one more die
        for f in range(add.shape[1]):
            a = add[k, f]
            for j in range(nj):
                mass[a, j] += mass[k, j] * inv


@njit(cache=True)
def _turn_policy(
    mask, joker_scored, upper_totals, rules, lattice, values, subs, keep1, keep2, entry_move, entry_points
):
    """The advisor's policy of one turn of (mask, joker_scored) at upper_totals, for every roll r and column
    j: keep1/keep2[r, j] the keep after roll 1/2 (first_roll + r = stop); entry_move/entry_points[r, j]
    the entry of final roll r (points include extra points), and where they have 2R rows (variants with
    first-roll points), row R + r the entry of a stop after roll 1. Returns the value of each roll 1 (R, nj).
    The values are the solve's (moments.py solves with them) and the advisor's: the same sums, and maxima
    (exact) of the same terms. Keeping every die after roll 1 is stopping here, where the keep lattice has the
    best of roll 2: never more, as a keep is worth no less after roll 1 than after roll 2 (rounding is
    monotone) and a stop after roll 1 scores at least the final roll's entry."""
    _, size_start, add, sub, _ = lattice
    n_rolls = rules.score.shape[0]
    first_roll = size_start[size_start.shape[0] - 2]
    nj = upper_totals.shape[0]
    min_keep = rules.params[P_MIN_KEEP]
    vecs = np.empty((rules.move_box.shape[0], nj))  # bonus + next state's value of every move, once per turn
    _move_values(mask, joker_scored, upper_totals, rules, values, vecs)
    by_keep = np.empty((add.shape[0], nj))
    _final_entries(mask, joker_scored, rules, vecs, by_keep[first_roll:], entry_move, entry_points)
    final = by_keep[first_roll:].copy()
    _keep_means(by_keep, add, size_start)
    after_second = by_keep.copy()  # keeps after roll 2; roll rows: final-roll values (stop)
    _best_sub_keeps(by_keep, sub, size_start, min_keep)
    # by_keep's roll rows: the best keep of each roll 2
    _choose_keeps(after_second, by_keep[first_roll:], subs, size_start[min_keep], keep2)
    _keep_means(by_keep, add, size_start)
    by_keep[first_roll:] = final
    if rules.params[P_FIRST_ROLL] != 0:  # a stop after roll 1 enters the first-roll scores (_first_roll_stops)
        stops = by_keep[first_roll:]
        _final_entries(
            mask, joker_scored, _first_roll_rules(rules), vecs, stops, entry_move[n_rolls:], entry_points[n_rolls:]
        )
    after_first = by_keep.copy()  # keeps after roll 1; roll rows: stop
    _best_sub_keeps(by_keep, sub, size_start, np.int64(0))
    _choose_keeps(after_first, by_keep[first_roll:], subs, np.int64(0), keep1)
    return by_keep[first_roll:]


@njit(cache=True)
def _final_entries(mask, joker_scored, rules, vecs, final, entry_move, entry_points):
    """final[r, j]: the value of final roll r as _final_roll_values computes it (the best entry's points
    plus vecs, then the extra points of a joker); entry_move/entry_points[r, j]: its entry, the lowest box
    among those within TIE of the best (options come in box order), points with extra points."""
    n_rolls, n_boxes = rules.score.shape
    nj = final.shape[1]
    option_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
    option_points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_options = np.empty(n_rolls, dtype=np.int64)
    _box_options(mask, joker_scored, rules, option_move, option_points, n_options)
    free = _free_boxes(mask, n_boxes)
    extra = rules.params[P_EXTRA]
    moves = np.empty(n_boxes, dtype=np.int64)
    points = np.empty(n_boxes, dtype=np.int64)
    limit = np.empty(nj)
    for r in range(n_rolls):
        n = n_options[r]
        if n < 0:  # the implicit list: every free box, normal score
            n = free.shape[0]
            for i in range(n):
                moves[i], points[i] = rules.norm_move[r, free[i]], rules.score[r, free[i]]
        else:
            moves[:n], points[:n] = option_move[r, :n], option_points[r, :n]
        for j in range(nj):
            final[r, j] = -np.inf
        for i in range(n):
            m, s = moves[i], float(points[i])
            for j in range(nj):
                final[r, j] = unmasked(max(final[r, j], s + vecs[m, j]))
        joker_extra = extra if joker_scored == 1 and rules.joker_roll[r] else 0
        if joker_extra != 0:
            for j in range(nj):
                final[r, j] += float(extra)
        for j in range(nj):
            limit[j] = final[r, j] - joker_extra - TIE
            entry_move[r, j] = -1
        for i in range(n):  # all columns at once: they mostly agree, so the scans end together
            m, s = moves[i], points[i]
            open_cols = 0
            for j in range(nj):
                hit = entry_move[r, j] < 0 and s + vecs[m, j] >= limit[j]
                entry_move[r, j] = m if hit else entry_move[r, j]
                entry_points[r, j] = s + joker_extra if hit else entry_points[r, j]
                open_cols += entry_move[r, j] < 0
            if open_cols == 0:
                break


@njit(cache=True)
def _policy(mask, joker_scored, upper_totals, rules, lattice, values, subs):
    """(keep1, keep2, entry_move, entry_points, roll-1 values) of one turn at upper totals upper_totals:
    _turn_policy's tables and its value of each roll 1."""
    shape = (rules.score.shape[0], upper_totals.shape[0])
    keep1, keep2 = np.empty(shape, dtype=np.int64), np.empty(shape, dtype=np.int64)
    entry_shape = (shape[0] * (1 + (rules.params[P_FIRST_ROLL] != 0)), shape[1])  # rows R + r: stops after roll 1
    entry_move, entry_points = np.empty(entry_shape, dtype=np.int64), np.empty(entry_shape, dtype=np.int64)
    first = _turn_policy(
        mask, joker_scored, upper_totals, rules, lattice, values, subs, keep1, keep2, entry_move, entry_points
    )
    return keep1, keep2, entry_move, entry_points, first


@njit(cache=True)
def _next_state(mask, joker_scored, capped_upper, m, rules):
    """(mask, flag, capped upper total) after move m from (mask, flag, capped_upper), and the bonus it earns."""
    nu = min(capped_upper + rules.move_inc[m], rules.params[P_CAP])
    next_joker_scored = joker_scored if rules.move_flag[m] < 0 else rules.move_flag[m]
    return mask | (1 << rules.move_box[m]), next_joker_scored, nu, rules.bonus_cum[nu] - rules.bonus_cum[capped_upper]
