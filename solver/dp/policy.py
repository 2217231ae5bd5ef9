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
from .identical import _keep_means
from .rules import P_CAP, P_EXTRA, P_FIRST_ROLL, P_MIN_KEEP

TIE = 1e-9


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
def _best_keeps_chosen(by_keep, keep_values, sub, size_start, min_keep, subs, chosen):
    """_best_sub_keeps in place on by_keep (each row the best of the keeps inside it of at least min_keep
    dice, keep_values: a copy of its rows before) and the tie rule's choice: chosen[r, j] the first keep in tie
    order (subs) within TIE of roll r's best (first_roll + r: stop). The lattice carries each keep's argmax and
    the best value of any other keep inside it: where that runner-up is more than TIE below the best, the
    argmax is the only keep within TIE and the tie rule's pick; only a near tie (about 1.5 % of rolls and
    columns) scans subs. A scan of every roll in tie order read about three times the rows that this lattice
    reads. The merge takes four columns at a time, all loads before the stores: LLVM's loop vectoriser leaves
    a loop of three stores into arrays that may overlap scalar, its SLP vectoriser packs these four into
    vectors (the pass 1.35x faster)."""
    n = size_start.shape[0] - 2
    nj = by_keep.shape[1]
    lo, first_roll = size_start[min_keep], size_start[n]
    arg = np.empty((by_keep.shape[0] - lo, nj), dtype=np.int64)  # rows from lo
    second = np.empty((by_keep.shape[0] - lo, nj))
    nj4 = nj - nj % 4
    for k in range(lo, by_keep.shape[0]):
        for j in range(nj):
            arg[k - lo, j] = k
            second[k - lo, j] = -np.inf
        for f in range(sub.shape[1]):
            s = sub[k, f]
            if s < lo:  # none, or fewer dice than min_keep (the smallest keeps hold only themselves)
                continue
            for j in range(0, nj4, 4):
                x0 = _merge(by_keep, arg, second, k, s, lo, j)
                x1 = _merge(by_keep, arg, second, k, s, lo, j + 1)
                x2 = _merge(by_keep, arg, second, k, s, lo, j + 2)
                x3 = _merge(by_keep, arg, second, k, s, lo, j + 3)
                by_keep[k, j], by_keep[k, j + 1], by_keep[k, j + 2], by_keep[k, j + 3] = x0[0], x1[0], x2[0], x3[0]
                arg[k - lo, j], arg[k - lo, j + 1], arg[k - lo, j + 2], arg[k - lo, j + 3] = x0[1], x1[1], x2[1], x3[1]
                second[k - lo, j], second[k - lo, j + 1] = x0[2], x1[2]
                second[k - lo, j + 2], second[k - lo, j + 3] = x2[2], x3[2]
            for j in range(nj4, nj):
                by_keep[k, j], arg[k - lo, j], second[k - lo, j] = _merge(by_keep, arg, second, k, s, lo, j)
    for r in range(chosen.shape[0]):
        row = first_roll + r - lo
        for j in range(nj):
            lim = by_keep[first_roll + r, j] - TIE
            chosen[r, j] = arg[row, j] if second[row, j] < lim else _first_within(keep_values, lim, subs, r, j, lo)


@njit(inline="always")
def _merge(by_keep, arg, second, k, s, lo, j):
    """(best, argmax, runner-up) of keep k at column j with keep s's merged in (rows of arg and second from
    lo); a keep reached both ways counts once."""
    b, a, s2 = by_keep[k, j], arg[k - lo, j], second[k - lo, j]
    bs, a_s, s2s = by_keep[s, j], arg[s - lo, j], second[s - lo, j]
    top = a_s if bs > b else a
    return unmasked(max(b, bs)), top, max(s2 if top == a else b, s2s if top == a_s else bs)


@njit(cache=True)
def _first_within(keep_values, lim, subs, r, j, min_start):
    """The first keep in roll r's tie order (subs[r]) of at least min_start's dice whose value at column j is at
    least lim (-1: none)."""
    for i in range(subs.shape[1]):
        c = subs[r, i]
        if c < min_start:  # -1 padding, or fewer dice than the house rule allows (sizes descend)
            return -1
        if keep_values[c, j] >= lim:
            return c
    return -1


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


# inlined into _policy, its one caller (see compile.py)
@njit(cache=True, inline="always")
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
    _best_keeps_chosen(by_keep, after_second, sub, size_start, min_keep, subs, keep2)
    # by_keep's roll rows: the best keep of each roll 2
    _keep_means(by_keep, add, size_start)
    for r in range(final.shape[0]):  # loops, not slice copies: see compile.py
        for j in range(nj):
            by_keep[first_roll + r, j] = final[r, j]
    if rules.params[P_FIRST_ROLL] != 0:  # a stop after roll 1 enters the first-roll scores (_first_roll_stops)
        stops = by_keep[first_roll:]
        _final_entries(
            mask, joker_scored, _first_roll_rules(rules), vecs, stops, entry_move[n_rolls:], entry_points[n_rolls:]
        )
    after_first = by_keep.copy()  # keeps after roll 1; roll rows: stop
    _best_keeps_chosen(by_keep, after_first, sub, size_start, np.int64(0), subs, keep1)
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
    limit, first = np.empty(nj), np.empty(nj)  # first: the entry's index, as a float (-1: none yet)
    for r in range(n_rolls):
        n = n_options[r]
        if n < 0:  # the implicit list: every free box, normal score
            n = free.shape[0]
            for i in range(n):
                moves[i], points[i] = rules.norm_move[r, free[i]], rules.score[r, free[i]]
        else:
            for i in range(n):
                moves[i], points[i] = option_move[r, i], option_points[r, i]
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
        # the entry: the first within TIE of the best, found by a pass over the entries from the last to the
        # first that keeps each column's latest (a vectorised select; the columns' scans cost twice as much)
        for j in range(nj):
            limit[j] = final[r, j] - joker_extra - TIE
            first[j] = -1.0
        for i in range(n - 1, -1, -1):
            m, s, at = moves[i], float(points[i]), float(i)
            for j in range(nj):
                first[j] = unmasked(at if s + vecs[m, j] >= limit[j] else first[j])
        for j in range(nj):
            i = int(first[j])
            entry_move[r, j] = moves[i] if i >= 0 else -1  # none: a roll with no entry (never in a solve)
            entry_points[r, j] = points[i] + joker_extra


def _policy_tables(mask, joker_scored, upper_totals, rules, lattice, values, subs):
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


# inlined into its callers, the solve's turn (moments._turn) and the forward pass's (forward._item_groups): as a
# kernel of its own, each of them would optimise its code once more (see compile.py)
_policy = njit(inline="always")(_policy_tables)


@njit(cache=True)
def _next_state(mask, joker_scored, capped_upper, m, rules):
    """(mask, flag, capped upper total) after move m from (mask, flag, capped_upper), and the bonus it earns."""
    nu = min(capped_upper + rules.move_inc[m], rules.params[P_CAP])
    next_joker_scored = joker_scored if rules.move_flag[m] < 0 else rules.move_flag[m]
    return mask | (1 << rules.move_box[m]), next_joker_scored, nu, rules.bonus_cum[nu] - rules.bonus_cum[capped_upper]
