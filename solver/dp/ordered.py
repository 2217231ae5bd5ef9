"""The turn kernel for dice told apart (Kniffel 7): a roll says which die shows which face, so
keeps are partial assignments (each die: a face or rerolled) and the passes run along one die at a
time."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TYPE_CHECKING

import numpy as np

from .compile import njit, unmasked
from .entries import _final_roll_values

if TYPE_CHECKING:
    from .engine import Engine
    from .states import UpperStates


# ---------------------------------------------------------------------------
# Dice told apart (Kniffel 7): transforms along one die axis at a time
#
# A partial assignment gives every die a face code (0-5) or 6 (rerolled); as a
# base-7 number, digit d is die d. Two transforms along one die turn a turn's
# values into the next stage's: "mean" fills the rerolled entry with the mean
# over the die's faces (the value of keeping the others), "max" makes each face
# entry the max with the rerolled one (the best keep inside a roll, die by die).
# Only entries that matter are computed: a max pass only where the dice before
# it show faces (only rolls are read afterwards), a mean pass only where the
# dice after it show faces (only rolls have values before it).


ORDERED_COLUMNS = 8  # upper totals per call, exactly: each row of 8 doubles is handled as one tuple (_row)
TILE = 16  # face rows of the low dice per tile when transforming the high dice


@njit(inline="always")
def _row(a, r):
    """Row r of an (rows, 8) array as a tuple. Tuple code leaves LLVM free to load, max and add whole
    rows as vectors (with the SLP vectoriser, see solver/__init__.py); loops over a row do not."""
    return (a[r, 0], a[r, 1], a[r, 2], a[r, 3], a[r, 4], a[r, 5], a[r, 6], a[r, 7])


@njit(inline="always")
def _set_row(a, r, t):
    for j in range(8):
        a[r, j] = t[j]


@njit(inline="always")
def _add_rows(t, u):
    return (t[0] + u[0], t[1] + u[1], t[2] + u[2], t[3] + u[3], t[4] + u[4], t[5] + u[5], t[6] + u[6], t[7] + u[7])


@njit(inline="always")
def _max_line(a, r, step):
    """Rows r + c*step (the die's faces, c < 6) become the max with row r + 6*step (the die rerolled)."""
    star = _row(a, r + 6 * step)
    for c in range(6):
        rc = r + c * step
        for j in range(8):
            a[rc, j] = unmasked(max(a[rc, j], star[j]))


@njit(inline="always")
def _mean_line(a, r, step):
    """Row r + 6*step (the die rerolled) becomes the mean of rows r + c*step (its faces)."""
    acc = _row(a, r)
    for c in range(1, 6):
        acc = _add_rows(acc, _row(a, r + c * step))
    star = r + 6 * step
    for j in range(8):
        a[star, j] = acc[j] * (1.0 / 6.0)


@njit(cache=True)
def _transform(a, group, first, stride, offsets, mean):
    """Means or maxes along every die of a group, on the rows first + offsets[i] + stride * q, where q
    runs over the group's partial assignments (the other dice held fixed)."""
    ptr, start = (group.mean_ptr, group.mean_start) if mean else (group.max_ptr, group.max_start)
    for d in range(group.n):
        step = stride * 7**d
        for k in range(ptr[d], ptr[d + 1]):
            r0 = first + start[k] * stride
            for i in offsets:
                if mean:
                    _mean_line(a, r0 + i, step)
                else:
                    _max_line(a, r0 + i, step)


@njit(cache=True)
def _compact_keeps(final, ordered):
    """Value of every compact keep after roll 2: the mean over its lowest rerolled die's faces."""
    order, child, base_ms = ordered.order, ordered.child, ordered.base_ms
    kept = np.empty((order.shape[0], 8))
    for i in order:
        if base_ms[i] >= 0:
            _set_row(kept, i, _row(final, base_ms[i]))
        else:
            acc = _row(kept, child[i, 0])
            for c in range(1, 6):
                acc = _add_rows(acc, _row(kept, child[i, c]))
            for j in range(8):
                kept[i, j] = acc[j] * (1.0 / 6.0)
    return kept


@njit(cache=True)
def _ev_final_rolls(masks, jokers_scored, upper_totals, rules, values):
    """(R, 8): the expected-value final-roll values of 8 states (one _final_roll_values call per run of
    columns that share (mask, joker_scored))."""
    final = np.empty((rules.score.shape[0], 8))
    j0 = 0
    while j0 < 8:  # one (mask, joker_scored) run of columns at a time
        j1 = j0 + 1
        while j1 < 8 and masks[j1] == masks[j0] and jokers_scored[j1] == jokers_scored[j0]:
            j1 += 1
        _final_roll_values(
            masks[j0], jokers_scored[j0], upper_totals[j0:j1], rules, values, final[:, j0:j1], np.int64(0)
        )
        j0 = j1
    return final


@njit(cache=True)
def _rolls_after_second(final, ordered, work):
    """Compact keeps (C, 8) of 8 columns, and by_high (= work[2]) holding the value of every roll after
    roll 2 (its best keep, stopping included) at row h * 6^low + low roll: steps 1-2 of _turn_from_final
    (final: the 8 columns' final-roll values by roll multiset; work: its work arrays first)."""
    high_keeps, block, by_high = work[0], work[1], work[2]
    low, inner, outer, high = ordered.low, ordered.inner, ordered.outer, ordered.high
    n_keys = ordered.n_low_keys
    n_low_faces = low.faces.shape[0]
    n_inner = 7**inner.n
    kept = _compact_keeps(final, ordered)
    for i in range(high_keeps.shape[0]):
        _set_row(high_keeps, i, _row(kept, ordered.high_low_keep[i]))
    _transform(high_keeps, high, 0, n_keys, ordered.row_offsets[:n_keys], False)
    for h in high.faces:
        for o in range(7**outer.n):
            for i in range(o * n_inner, (o + 1) * n_inner):
                _set_row(block, i, _row(high_keeps, h * n_keys + ordered.low_key[i]))
            _transform(block, inner, o * n_inner, 1, ordered.zero, False)
        _transform(block, outer, 0, n_inner, inner.faces, False)
        for lf in range(n_low_faces):
            _set_row(by_high, h * n_low_faces + lf, _row(block, low.faces[lf]))
    return kept


@njit(cache=True)
def _ordered_turn(masks, jokers_scored, upper_totals, rules, ordered, values, work, result):
    """result[j]: value at the start of a turn of (masks[j], upper_totals[j], flags[j]), dice told apart;
    8 columns (states of several items may share a call)."""
    _turn_from_final(_ev_final_rolls(masks, jokers_scored, upper_totals, rules, values), ordered, work, result)


@njit(cache=True)
def _turn_from_final(final, ordered, work, result):
    """result[j]: the value at the start of a turn of column j, from final[r, j], the value of ending the
    turn with roll r (any value that is a max over entries: expected points, or a target's probability).

    The dice split into low dice (0..4), handled block by block in cache, and high dice (5, 6),
    handled tile by tile across blocks. by_high holds one row per (high partial assignment, low roll).
      1. Keeps after roll 2 by (high partial assignment, low key), maxes along the high dice.
      2. Per high roll: a block of every low partial assignment, maxes along the low dice: the
         value of every roll after roll 2.
      3. Tiles: means along the high dice.
      4. Per high partial assignment: means along the low dice (keeps after roll 1), then maxes.
      5. Tiles: maxes along the high dice (every roll after roll 1), summed.
    Inside a block the inner dice (0..2) are transformed sub-block by sub-block (in L1), the outer
    dice (3, 4) along lines across the block. Means commute with means and maxes with maxes,
    which allows this order.
    """
    block, by_high = work[1], work[2]
    low, inner, outer, high = ordered.low, ordered.inner, ordered.outer, ordered.high
    n_low_faces = low.faces.shape[0]
    n_inner = 7**inner.n
    everything = ordered.row_offsets[:n_inner]
    _rolls_after_second(final, ordered, work)  # 1. and 2.
    for c0 in range(0, n_low_faces, TILE):  # 3.
        _transform(by_high, high, 0, n_low_faces, ordered.row_offsets[c0 : min(c0 + TILE, n_low_faces)], True)
    for h in range(7**high.n):  # 4.
        row = h * n_low_faces
        for o in outer.faces:
            for i in inner.faces:
                _set_row(block, o * n_inner + i, _row(by_high, row))
                row += 1
            _transform(block, inner, o * n_inner, 1, ordered.zero, True)
        _transform(block, outer, 0, n_inner, everything, True)
        _transform(block, outer, 0, n_inner, everything, False)
        row = h * n_low_faces
        for o in outer.faces:
            _transform(block, inner, o * n_inner, 1, ordered.zero, False)
            for i in inner.faces:
                _set_row(by_high, row, _row(block, o * n_inner + i))
                row += 1
    total = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for c0 in range(0, n_low_faces, TILE):  # 5.
        c1 = min(c0 + TILE, n_low_faces)
        _transform(by_high, high, 0, n_low_faces, ordered.row_offsets[c0:c1], False)
        for h in high.faces:
            for lf in range(h * n_low_faces + c0, h * n_low_faces + c1):
                total = _add_rows(total, _row(by_high, lf))
    n_rolls = float(n_low_faces * high.faces.shape[0])
    for j in range(8):
        result[j] = total[j] / n_rolls


def ordered_work(ordered) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The work arrays of one _ordered_turn thread (34 MB for seven dice), allocated once per solve."""
    low, high = ordered.low, ordered.high
    rows = (7**high.n * ordered.n_low_keys, 7**low.n, 7**high.n * low.faces.shape[0])
    high_keeps, block, by_high = (np.empty((r, ORDERED_COLUMNS)) for r in rows)
    return high_keeps, block, by_high


def ordered_turn(engine: Engine, mask: int, joker_scored: int, upper_totals, values: np.ndarray) -> np.ndarray:
    """Start-of-turn values of (mask, u, flag) for each upper total u in upper_totals, dice told apart."""
    work = ordered_work(engine.ordered)
    out = []
    for call_mask, call_flag, call_upper, n_real in zip(
        *_ordered_calls([mask], [joker_scored], lambda m, f: upper_totals)
    ):
        result = np.empty(ORDERED_COLUMNS)
        _ordered_turn(call_mask, call_flag, call_upper, engine.rules, engine.ordered, values, work, result)
        out.append(result[:n_real])
    return np.concatenate(out)


@njit(cache=True)
def _ordered_keep_values(mask, joker_scored, capped_upper, rules, ordered, values, after_second, after_first):
    """The advisor's view of one turn: the value of every partial assignment kept after roll 2 and
    after roll 1 (one value each, plain passes over all 7^n); returns the final-roll values."""
    upper_totals = np.full(8, capped_upper)
    final = np.empty((rules.score.shape[0], 8))
    _final_roll_values(mask, joker_scored, upper_totals, rules, values, final, np.int64(0))
    _keep_values_from_final(final, ordered, after_second, after_first)
    return final[:, 0]


@njit(cache=True)
def _keep_values_from_final(final, ordered, after_second, after_first):
    """_ordered_keep_values from final-roll values (column 0 of final, (R, 8)): the value of every partial
    assignment kept after roll 2 and after roll 1."""
    kept = _compact_keeps(final, ordered)
    n_low = 7**ordered.low.n
    for pa in range(after_second.shape[0]):
        h, low = divmod(pa, n_low)
        after_second[pa] = kept[ordered.high_low_keep[h * ordered.n_low_keys + ordered.low_key[low]], 0]
        after_first[pa] = after_second[pa]
    n_dice = ordered.low.n + ordered.high.n
    for mean in (False, True):  # best keep inside each roll after roll 2, then keeps after roll 1
        for d in range(n_dice):
            step = 7**d
            for hi in range(0, after_first.shape[0], 7 * step):
                for r in range(hi, hi + step):
                    star = r + 6 * step
                    if mean:
                        acc = after_first[r]
                        for c in range(1, 6):
                            acc += after_first[r + c * step]
                        after_first[star] = acc * (1.0 / 6.0)
                    else:
                        for c in range(6):
                            after_first[r + c * step] = unmasked(max(after_first[r + c * step], after_first[star]))


def ordered_keep_values(engine: Engine, values, mask: int, upper: int, joker_held: int):
    """(final-roll values by roll multiset, keep values after roll 2, after roll 1 by partial
    assignment) of one turn, dice told apart."""
    size = 7**engine.variant.n_dice
    after_second, after_first = np.empty(size), np.empty(size)
    final = _ordered_keep_values(
        mask, joker_held, upper, engine.rules, engine.ordered, values, after_second, after_first
    )
    return final, after_second, after_first


@njit(cache=True, nogil=True)
def _solve_calls_ordered(call_mask, call_flag, call_upper, n_real, rules, ordered, values, work, first, step):
    """Calls first, first + step, ... of a layer, on one thread with its own work arrays. Call c solves
    the states (call_mask[c, j], call_upper[c, j], call_flag[c, j]); the first n_real[c] are real, the
    rest pad the call (repeats)."""
    result = np.empty(ORDERED_COLUMNS)
    for c in range(first, call_mask.shape[0], step):
        _ordered_turn(call_mask[c], call_flag[c], call_upper[c], rules, ordered, values, work, result)
        for j in range(n_real[c]):
            values[call_mask[c, j], call_upper[c, j], call_flag[c, j]] = result[j]


def _ordered_calls(masks, jokers_scored, upper_totals_of):
    """The states of a layer (each item's upper totals from upper_totals_of(mask, joker_scored)) packed into calls
    of ORDERED_COLUMNS states each, across items; the last call padded with repeats."""
    upper_totals = [np.asarray(upper_totals_of(m, f), dtype=np.int64) for m, f in zip(masks, jokers_scored)]
    counts = np.array([len(u) for u in upper_totals])
    states = np.stack([np.repeat(masks, counts), np.repeat(jokers_scored, counts), np.concatenate(upper_totals)])
    n_states = states.shape[1]
    n_calls = -(-n_states // ORDERED_COLUMNS)
    states = np.concatenate(
        [states, np.repeat(states[:, -1:], n_calls * ORDERED_COLUMNS - n_states, axis=1)], axis=1
    ).reshape(3, n_calls, ORDERED_COLUMNS)
    n_real = np.full(n_calls, ORDERED_COLUMNS, dtype=np.int64)
    n_real[-1] = n_states - (n_calls - 1) * ORDERED_COLUMNS
    return states[0], states[1], states[2], n_real


CALLS_PER_ITEM = 4  # calls per work item (about 0.1 s for Kniffel 7): how soon a stop request is seen


def _solve_layer_ordered(masks, jokers_scored, upper_states: UpperStates, rules, ordered, values, work) -> None:
    """One layer on len(work) threads (see on_threads). Which thread solves a state changes no value: each
    state's value depends only on the layers below."""
    call_mask, call_flag, call_upper, n_real = _ordered_calls(masks, jokers_scored, upper_states.totals)

    def run(a, b, w):
        _solve_calls_ordered(
            call_mask[a:b], call_flag[a:b], call_upper[a:b], n_real[a:b], rules, ordered, values, w, 0, 1
        )

    on_threads(call_mask.shape[0], run, work)


def on_threads(n_calls: int, run, work) -> None:
    """run(a, b, work[t]) for the calls a..b-1 of a layer, on len(work) threads (Python threads: the kernels
    release the GIL; Numba's prange cannot pass the nested index tables). Each thread takes the next work item
    of CALLS_PER_ITEM calls until none is left, or until the main thread is interrupted (Ctrl-C): then every
    thread stops after its current item and the interrupt goes on, with the layer unfinished (its values are
    never saved: checkpoints are written between layers only)."""
    items = iter(range(0, n_calls, CALLS_PER_ITEM))
    lock = threading.Lock()
    stop = threading.Event()

    def worker(t):
        while not stop.is_set():
            with lock:
                a = next(items, None)
            if a is None:
                return
            run(a, min(a + CALLS_PER_ITEM, n_calls), work[t])

    pool = ThreadPoolExecutor(len(work))
    try:
        futures = [pool.submit(worker, t) for t in range(len(work))]
        while wait(futures, timeout=0.1).not_done:  # short waits: Ctrl-C is seen even if a worker got the signal
            pass
        for future in futures:
            future.result()  # a worker's exception, if any
    finally:
        stop.set()  # after an interrupt (or an error): the other threads end at their next item
        pool.shutdown(wait=True)
