"""The keep-lattice passes of identical dice: rolls and keeps are multisets on the keep lattice
(see dice.keep_lattice). Keep values are means over one more die; the best keep inside a roll is a
max over the lattice, one die removed at a time. (The solve's turn: policy.py and moments.py.)"""

from __future__ import annotations

import numpy as np

from .compile import njit, unmasked, unsigned
from .entries import _final_roll_values, _first_roll_stops
from .rules import P_MIN_KEEP


@njit(cache=True)
def _keep_means(by_keep, add, size_start):
    """Expected value of every keep smaller than a roll, in place on by_keep (K, nj).

    On entry by_keep's roll rows hold the value of each roll; the keeps are filled
    from large to small, each the mean over one more die. Plain 2-D indexing
    in simple loops over the last axis: LLVM vectorises these; array views per
    keep cost more than the work.
    """
    n_faces = add.shape[1]
    n = size_start.shape[0] - 2
    nj = by_keep.shape[1]
    inv = 1.0 / n_faces
    if nj == 1:  # one column (advice)
        _keep_means_one(by_keep.reshape(by_keep.shape[0]), add, size_start)  # C-contiguous, as best_one's rows
        return
    if n_faces == 6:  # one pass over row k: the same sums in the same order as the loop below
        for k in range(size_start[n] - 1, -1, -1):
            a, b, c, d, e, f = add[k, 0], add[k, 1], add[k, 2], add[k, 3], add[k, 4], add[k, 5]
            for j in range(nj):
                by_keep[k, j] = (
                    by_keep[a, j] + by_keep[b, j] + by_keep[c, j] + (by_keep[d, j] + by_keep[e, j] + by_keep[f, j])
                ) * inv
        return
    for k in range(size_start[n] - 1, -1, -1):
        a, b, c = add[k, 0], add[k, 1], add[k, 2]  # three faces per pass: fewer loads and stores of row k
        for j in range(nj):
            by_keep[k, j] = by_keep[a, j] + by_keep[b, j] + by_keep[c, j]
        for f in range(3, n_faces - 2, 3):
            a, b, c = add[k, f], add[k, f + 1], add[k, f + 2]
            for j in range(nj):
                by_keep[k, j] += by_keep[a, j] + by_keep[b, j] + by_keep[c, j]
        for f in range(n_faces - n_faces % 3, n_faces):
            a = add[k, f]
            for j in range(nj):
                by_keep[k, j] += by_keep[a, j]
        for j in range(nj):
            by_keep[k, j] *= inv


@njit(cache=True)
def _keep_means_one(by_keep, add, size_start):
    """_keep_means of one column (by_keep (K,)): the same sums in the same order, as scalars. The loads are
    the work (an index and a value per face), so six faces are written out and the indices read unsigned."""
    n_faces = add.shape[1]
    n = size_start.shape[0] - 2
    inv = 1.0 / n_faces
    if n_faces == 6:
        for k in range(size_start[n] - 1, -1, -1):
            by_keep[k] = (
                by_keep[unsigned(add[k, 0])]
                + by_keep[unsigned(add[k, 1])]
                + by_keep[unsigned(add[k, 2])]
                + (by_keep[unsigned(add[k, 3])] + by_keep[unsigned(add[k, 4])] + by_keep[unsigned(add[k, 5])])
            ) * inv
        return
    for k in range(size_start[n] - 1, -1, -1):
        acc = by_keep[unsigned(add[k, 0])] + by_keep[unsigned(add[k, 1])] + by_keep[unsigned(add[k, 2])]
        for f in range(3, n_faces - 2, 3):
            acc += by_keep[unsigned(add[k, f])] + by_keep[unsigned(add[k, f + 1])] + by_keep[unsigned(add[k, f + 2])]
        for f in range(n_faces - n_faces % 3, n_faces):
            acc += by_keep[unsigned(add[k, f])]
        by_keep[k] = acc * inv


@njit(cache=True)
def _best_sub_keeps(by_keep, sub, size_start, min_keep):
    """Each keep's row becomes the best over the keeps inside it of at least min_keep dice.

    A max over the lattice, one die removed at a time; on exit the roll rows
    hold the value of each roll one roll earlier.
    """
    n = size_start.shape[0] - 2
    nj = by_keep.shape[1]
    if nj == 1:  # one column (advice): scalars
        for k in range(size_start[min_keep + 1], size_start[n + 1]):
            acc = by_keep[k, 0]
            for f in range(sub.shape[1]):
                s = sub[k, f]
                if s >= 0:
                    acc = max(acc, by_keep[s, 0])
            by_keep[k, 0] = acc
        return
    _best_sub_keeps_rows(by_keep, sub, size_start[min_keep + 1], size_start[n + 1])


@njit(cache=True)
def _best_sub_keeps_rows(by_keep, sub, k_start, k_end):
    """_best_sub_keeps over rows k_start:k_end of many columns: the keeps inside a keep taken up to five at a
    time, one pass over row k for them instead of one read-modify-write pass each (this pass was the
    costliest of the target table's turn: 0.73 of 2.5 us a column). Maxima are exact, so the values do not
    depend on the grouping."""
    nj = by_keep.shape[1]
    inside = np.empty(sub.shape[1], dtype=np.int64)
    for k in range(k_start, k_end):
        c = 0
        for f in range(sub.shape[1]):
            if sub[k, f] >= 0:
                inside[c] = sub[k, f]
                c += 1
        if c == 4:  # one pass for four or five keeps too
            a, b, d, e = inside[0], inside[1], inside[2], inside[3]
            for j in range(nj):
                by_keep[k, j] = unmasked(
                    max(max(by_keep[k, j], by_keep[a, j]), max(max(by_keep[b, j], by_keep[d, j]), by_keep[e, j]))
                )
            continue
        if c == 5:
            a, b, d, e, g = inside[0], inside[1], inside[2], inside[3], inside[4]
            for j in range(nj):
                by_keep[k, j] = unmasked(
                    max(
                        max(max(by_keep[k, j], by_keep[a, j]), max(by_keep[b, j], by_keep[d, j])),
                        max(by_keep[e, j], by_keep[g, j]),
                    )
                )
            continue
        f = 0
        while f + 3 <= c:
            a, b, d = inside[f], inside[f + 1], inside[f + 2]
            for j in range(nj):
                by_keep[k, j] = unmasked(max(max(by_keep[k, j], by_keep[a, j]), max(by_keep[b, j], by_keep[d, j])))
            f += 3
        if c - f == 2:
            a, b = inside[f], inside[f + 1]
            for j in range(nj):
                by_keep[k, j] = unmasked(max(by_keep[k, j], max(by_keep[a, j], by_keep[b, j])))
        elif c - f == 1:
            a = inside[f]
            for j in range(nj):
                by_keep[k, j] = unmasked(max(by_keep[k, j], by_keep[a, j]))


@njit(cache=True)
def _with_first_roll_stops(by_keep, stops, first_roll):
    """Roll rows after roll 1: the better of the keep-lattice value and stopping with first-roll points."""
    for r in range(stops.shape[0]):
        for j in range(stops.shape[1]):
            by_keep[first_roll + r, j] = unmasked(max(by_keep[first_roll + r, j], stops[r, j]))


def keep_values(engine, values, mask: int, upper: int, joker_held: int) -> tuple[np.ndarray, np.ndarray]:
    """Future points of every keep of one turn of state (mask, upper, joker_held): (after roll 2,
    after roll 1), indexed by keep-lattice row. A keep of every die means stopping: its row holds
    the final-roll value in both (after roll 1 with first-roll points, where the variant has them)."""
    lattice, rules = engine.lattice, engine.rules
    first_roll = int(lattice.size_start[-2])
    by_keep = np.empty((lattice.add.shape[0], 1))
    _final_roll_values(mask, joker_held, np.array([upper]), rules, values, by_keep, first_roll)
    stops = _first_roll_stops(mask, joker_held, np.array([upper]), rules, values)
    return turn_from_final_rolls(by_keep, lattice, rules, first_roll, stops)


def turn_from_final_rolls(by_keep, lattice, rules, first_roll: int, stops) -> tuple[np.ndarray, np.ndarray]:
    """One column's turn from its final-roll values (rows first_roll.. of by_keep, whatever they value: expected
    points or a target's probability): every keep's value after roll 2 and after roll 1. A keep of every die
    means stopping; after roll 1 that enters the first-roll scores `stops` where the variant has them (None
    or no rows: it has none)."""
    _keep_means(by_keep, lattice.add, lattice.size_start)
    after_second = by_keep[:, 0].copy()
    _best_sub_keeps(by_keep, lattice.sub, lattice.size_start, rules.params[P_MIN_KEEP])
    _keep_means(by_keep, lattice.add, lattice.size_start)
    after_first = by_keep[:, 0].copy()
    after_first[first_roll:] = after_second[first_roll:]
    if stops is not None and stops.shape[0]:  # stopping after roll 1 enters the first-roll scores
        after_first[first_roll:] = stops[:, 0]
    return after_second, after_first
