"""The forward pass: the exact final-score distribution of the advisor's play (identical dice).

Probability mass lives on (state, points so far): one points vector per reached state, layer by
layer in the number of filled boxes, only two layers alive. Per (mask, joker_scored) item the turn's policy
comes from the value table with the turn kernel's own arithmetic (_move_values, _keep_means, and the
maxima of _final_roll_values and _best_sub_keeps, exact in any loop order, taken here in passes that also
pick each final roll's entry or read a row once); the roll-1 distribution is pushed through the chosen
keeps (the reverse of a keep mean: a keep's mass spreads over one more die at a time) to the probability
of each final roll, and final rolls are grouped by their entry (move, points) so each group shifts a
points vector once.

Ties (options within TIE of the best) are broken by one rule, the advisor's: after roll 1 or 2 the
keep with the most dice (keeping all dice = stopping), then the smallest sorted tuple of kept faces;
after the final roll the lowest box index.

The kernels step() calls release the GIL (nogil): a server's other threads answer advice meanwhile.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .compile import njit
from .lanes import in_threads
from .policy import (
    _next_state,
    _policy,
    _push,
    ranked_sub_keeps,
)
from .rules import P_EXTRA

ITEMS_PER_TASK = 8  # items a thread takes at a time in the policy phase (dynamic scheduling)
CHUNK_COLUMNS = 4096  # states per parallel block of the policy phase (bounds its buffers)


class Layer(NamedTuple):
    """Reached states of one layer, sorted by (mask, flag, upper), with their points vectors."""

    mask: np.ndarray  # (S,) int64
    upper: np.ndarray  # (S,) int64 (capped)
    joker_scored: np.ndarray  # (S,) int64
    lo: np.ndarray  # (S,) int64: points so far of the vector's first entry
    ptr: np.ndarray  # (S + 1,) int64: vector of state i is data[ptr[i]:ptr[i + 1]]
    data: np.ndarray  # float64 probabilities


# inlined into _layer_groups, its one caller (see compile.py)
@njit(cache=True, inline="always")
def _item_groups(
    mask, joker_scored, upper_totals, rules, lattice, values, subs, keys, out_key, out_shift, out_prob, out_n
):
    """The policy of item (mask, joker_scored) at upper totals upper_totals and the entry groups it leads to.

    For column j: out_key[j, g] (next state's key), out_shift[j, g] (points gained), out_prob[j, g]
    for g < out_n[j]. keys = (key_base, up_row, solved_total): the key of (mask | bit, joker_scored', upper') is
    ((mask | bit) * key_base[0] + joker_scored') * key_base[1] + upper', where upper' is the representative
    solved_total[up_row[mask | bit, joker_scored'], u'] of the new total u' (UpperStates): totals that share one
    future share the table's values, hence the policy, the points and every later total's class,
    so their mass is merged into one state (a third fewer states).
    """
    _, size_start, add, _, roll_prob = lattice
    key_base, up_row, solved_total = keys
    n_rolls = rules.score.shape[0]
    first_roll = size_start[size_start.shape[0] - 2]
    nj = upper_totals.shape[0]
    keep1, keep2, entry_move, entry_points, _ = _policy(mask, joker_scored, upper_totals, rules, lattice, values, subs)
    # mass: roll 1, keep, roll 2, keep, roll 3 (stops after roll 1 in rows R + r where they enter other scores)
    stop = np.zeros((entry_move.shape[0], nj))
    mass = np.empty((add.shape[0], nj))
    p1 = np.empty((n_rolls, nj))
    for r in range(n_rolls):
        for j in range(nj):
            p1[r, j] = roll_prob[r]
    _push(p1, keep1, lattice, stop[stop.shape[0] - n_rolls :], mass)
    p2 = mass[first_roll:].copy()
    _push(p2, keep2, lattice, stop, mass)
    for r in range(n_rolls):
        for j in range(nj):
            stop[r, j] += mass[first_roll + r, j]
    # final rolls grouped by entry (move, points)
    n_moves = rules.move_box.shape[0]
    n_pts = max(rules.first_score.max(), rules.first_joker_score.max()) + rules.params[P_EXTRA] + 1
    acc = np.zeros(n_moves * n_pts)
    touched = np.empty(n_rolls, dtype=np.int64)
    for j in range(nj):
        n_touched = 0
        for r in range(stop.shape[0]):
            p = stop[r, j]
            if p == 0.0:
                continue
            key = entry_move[r, j] * n_pts + entry_points[r, j]
            if acc[key] == 0.0:
                touched[n_touched] = key
                n_touched += 1
            acc[key] += p
        for g in range(n_touched):
            key = touched[g]
            m, s = key // n_pts, key % n_pts
            nmask, next_joker_scored, nu, bonus = _next_state(mask, joker_scored, upper_totals[j], m, rules)
            out_key[j, g] = (nmask * key_base[0] + next_joker_scored) * key_base[1] + solved_total[
                up_row[nmask, next_joker_scored], nu
            ]
            out_shift[j, g] = s + np.int64(bonus)
            out_prob[j, g] = acc[key]
            acc[key] = 0.0
        out_n[j] = n_touched


@njit(cache=True, nogil=True)
def _layer_groups(
    lo, hi, items, masks, jokers_scored, uppers, rules, lattice, values, subs, keys, col0, gk, gs, gp, gn
):
    """_item_groups for the items lo <= t < hi of a block (items = runs of states sharing (mask, joker_scored));
    state i's groups land in row i - col0 of gk/gs/gp/gn."""
    for t in range(lo, hi):
        a, b = items[t], items[t + 1]
        c, d = a - col0, b - col0
        _item_groups(
            masks[a],
            jokers_scored[a],
            uppers[a:b],
            rules,
            lattice,
            values,
            subs,
            keys,
            gk[c:d],
            gs[c:d],
            gp[c:d],
            gn[c:d],
        )


@njit(cache=True, nogil=True)
def _compact(gk, gs, gp, gn, col0):
    """The groups of a block as flat arrays (key, shift, prob, source state)."""
    total = gn.sum()
    key = np.empty(total, dtype=np.int64)
    shift = np.empty(total, dtype=np.int64)
    prob = np.empty(total)
    src = np.empty(total, dtype=np.int64)
    n = 0
    for i in range(gn.shape[0]):
        for g in range(gn[i]):
            key[n], shift[n], prob[n], src[n] = gk[i, g], gs[i, g], gp[i, g], col0 + i
            n += 1
    return key, shift, prob, src


@njit(cache=True, nogil=True)
def _distinct_keys(keys, slot):
    """The distinct keys, in order of first appearance (slot is all -1 on entry; their slots are 0 on exit)."""
    n = 0
    uniq = np.empty(keys.shape[0], dtype=np.int64)
    for i in range(keys.shape[0]):
        if slot[keys[i]] < 0:
            slot[keys[i]] = 0
            uniq[n] = keys[i]
            n += 1
    return uniq[:n]


@njit(cache=True, nogil=True)
def _key_states(keys, slot, uniq):
    """The index in uniq of each key's state (slot: as _distinct_keys leaves it; all -1 again on exit)."""
    for i in range(uniq.shape[0]):
        slot[uniq[i]] = i
    dst = np.empty(keys.shape[0], dtype=np.int64)
    for i in range(keys.shape[0]):
        dst[i] = slot[keys[i]]
    for i in range(uniq.shape[0]):
        slot[uniq[i]] = -1
    return dst


def _next_states(keys, slot):
    """Distinct keys in sorted order and the index of each key's state (slot is all -1 on entry and
    on exit). NumPy sorts them, not a kernel: np.sort in a kernel compiled Numba's quicksort (about 3 s of a
    first `distribution`)."""
    uniq = np.sort(_distinct_keys(keys, slot))
    return uniq, _key_states(keys, slot, uniq)


@njit(cache=True, nogil=True)
def _sort_groups(dst, n_dst):
    """Counting sort of the groups by destination: (order, start of each destination's run)."""
    start = np.zeros(n_dst + 1, dtype=np.int64)
    for i in range(dst.shape[0]):
        start[dst[i] + 1] += 1
    for d in range(n_dst):
        start[d + 1] += start[d]
    fill = start[:-1].copy()
    order = np.empty(dst.shape[0], dtype=np.int64)
    for i in range(dst.shape[0]):
        order[fill[dst[i]]] = i
        fill[dst[i]] += 1
    return order, start


@njit(cache=True, nogil=True)
def _shift_add(d_lo, d_hi, order, start, src, shift, prob, lo, ptr, data, new_lo, new_ptr, new_data):
    """Destination vectors d_lo <= d < d_hi = sum over its groups of prob * the source vector shifted."""
    for d in range(d_lo, d_hi):
        base = new_ptr[d]
        for i in range(start[d], start[d + 1]):
            g = order[i]
            s = src[g]
            p = prob[g]
            off = base + lo[s] + shift[g] - new_lo[d]
            for t in range(ptr[s + 1] - ptr[s]):
                new_data[off + t] += p * data[ptr[s] + t]


@njit(cache=True, nogil=True)
def _bounds(d_lo, d_hi, order, start, src, shift, lo, ptr, new_lo, new_len):
    """Points range (new_lo, new_len) of the destination vectors d_lo <= d < d_hi."""
    for d in range(d_lo, d_hi):
        a, b = 1 << 62, -(1 << 62)
        for i in range(start[d], start[d + 1]):
            g = order[i]
            s = src[g]
            a = min(a, lo[s] + shift[g])
            b = max(b, lo[s] + shift[g] + ptr[s + 1] - ptr[s])
        new_lo[d], new_len[d] = a, b - a


def start_layer(mask: int, upper: int, joker_scored: int, points: int) -> Layer:
    """The layer of one card: all mass on (its state, its points)."""

    def one(value):
        return np.array([value], dtype=np.int64)

    return Layer(one(mask), one(upper), one(joker_scored), one(points), np.array([0, 1], dtype=np.int64), np.ones(1))


def step(engine, values: np.ndarray, layer: Layer, slot: np.ndarray, subs: np.ndarray) -> Layer:
    """One turn of every reached state of a layer: the next layer. slot: (2^B * flags * (cap + 1),)
    int64 of -1 (scratch, restored on return)."""
    rules, lattice = engine.rules, engine.lattice
    tables = (rules, lattice, values, subs, next_keys(engine, values))
    # items: runs of equal (mask, joker_scored); the layer is sorted by (mask, flag, upper)
    change = np.flatnonzero((np.diff(layer.mask) != 0) | (np.diff(layer.joker_scored) != 0)) + 1
    item_start = np.concatenate([[0], change, [layer.mask.shape[0]]]).astype(np.int64)
    n_rolls = rules.score.shape[0]
    keys: list[np.ndarray] = []
    shifts: list[np.ndarray] = []
    probs: list[np.ndarray] = []
    srcs: list[np.ndarray] = []
    i0 = 0
    while i0 < item_start.shape[0] - 1:  # blocks of items with at most CHUNK_COLUMNS states
        i1 = int(np.searchsorted(item_start, item_start[i0] + CHUNK_COLUMNS, side="right")) - 1
        i1 = min(max(i1, i0 + 1), item_start.shape[0] - 1)
        col0, col1 = int(item_start[i0]), int(item_start[i1])
        cols = col1 - col0
        gk = np.empty((cols, n_rolls), dtype=np.int64)
        gs = np.empty((cols, n_rolls), dtype=np.int64)
        gp = np.empty((cols, n_rolls))
        gn = np.empty(cols, dtype=np.int64)
        in_threads(  # items differ in size: threads take a few at a time
            _layer_groups,
            i1 - i0,
            item_start[i0 : i1 + 1],
            layer.mask,
            layer.joker_scored,
            layer.upper,
            *tables,
            col0,
            gk,
            gs,
            gp,
            gn,
            chunk=ITEMS_PER_TASK,
        )
        for out, part in zip((keys, shifts, probs, srcs), _compact(gk, gs, gp, gn, col0)):
            out.append(part)
        i0 = i1
    groups = tuple(np.concatenate(x) for x in (keys, shifts, probs, srcs))
    return advance(values, layer, groups, slot)


def next_keys(engine, values: np.ndarray):
    """(key_base, up_row, solved_total): how the kernels name a next state (_item_groups)."""
    key_base = np.array([values.shape[2], values.shape[1]], dtype=np.int64)
    return key_base, engine.upper.row, engine.upper.solved_total


def advance(values: np.ndarray, layer: Layer, groups, slot: np.ndarray) -> Layer:
    """The next layer from a layer's groups (key of the next state, points gained, probability, source state),
    whichever kernel made them: every next vector is the sum of its groups' shifted source vectors."""
    key, shift, prob, src = groups
    n_flags = values.shape[2]
    uniq, dst = _next_states(key, slot)
    order, start = _sort_groups(dst, uniq.shape[0])
    n_dst = uniq.shape[0]
    new_lo, new_len = np.empty(n_dst, dtype=np.int64), np.empty(n_dst, dtype=np.int64)
    in_threads(_bounds, n_dst, order, start, src, shift, layer.lo, layer.ptr, new_lo, new_len)
    new_ptr = np.zeros(n_dst + 1, dtype=np.int64)
    np.cumsum(new_len, out=new_ptr[1:])
    new_data = np.zeros(int(new_ptr[-1]))
    args = (order, start, src, shift, prob, layer.lo, layer.ptr, layer.data, new_lo, new_ptr, new_data)
    in_threads(_shift_add, n_dst, *args)
    upper = uniq % values.shape[1]
    rest = uniq // values.shape[1]
    return Layer(rest // n_flags, upper, rest % n_flags, new_lo, new_ptr, new_data)


def forward_pmf(
    engine, values: np.ndarray, mask: int, upper: int, joker_scored: int, points: int, progress=None
) -> np.ndarray:
    """P(final score = s) for s = 0 ... max, from the card (mask, upper, joker_scored) with `points` on it
    at the start of a turn, every later decision the advisor's (the tie rule above)."""
    if engine.lattice is None:
        raise ValueError("dice told apart: forward_ordered_layers.ordered_pmf")
    n_boxes = len(engine.variant.boxes)
    layer = start_layer(mask, upper, joker_scored, points)
    slot = np.full(values.shape[0] * values.shape[1] * values.shape[2], -1, dtype=np.int64)
    subs = ranked_sub_keeps(engine.lattice)
    for _ in range(bin(mask).count("1"), n_boxes):
        layer = step(engine, values, layer, slot, subs)
        if progress is not None:
            progress(1)
    return layer_pmf(layer)


def layer_pmf(layer: Layer) -> np.ndarray:
    """The final layer's points vectors summed: P(final score = s), s = 0 ... max."""
    hi = int((layer.lo + np.diff(layer.ptr)).max())
    pmf = np.zeros(hi)
    for i in range(layer.lo.shape[0]):
        pmf[layer.lo[i] : layer.lo[i] + layer.ptr[i + 1] - layer.ptr[i]] += layer.data[layer.ptr[i] : layer.ptr[i + 1]]
    return pmf
