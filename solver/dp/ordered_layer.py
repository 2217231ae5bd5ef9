"""Driving the turn kernel for dice told apart (Kniffel 7, dp/ordered.py): its work arrays, states packed into
calls of ORDERED_COLUMNS, a layer's calls on threads, and the advisor's keep values of one turn."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TYPE_CHECKING

import numpy as np

from .compile import njit
from .ordered import ORDERED_COLUMNS, _ordered_keep_values, _ordered_turn

if TYPE_CHECKING:
    from .engine import Engine
    from .states import UpperStates


def ordered_work(ordered) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The work arrays of one _ordered_turn thread (keeps, block, by_high: 26 MB for seven dice), allocated
    once per solve."""
    low, high = ordered.low, ordered.high
    rows = (ordered.n_low_keys, 7**low.n, 7**high.n * low.faces.shape[0])
    keeps, block, by_high = (np.empty((r, ORDERED_COLUMNS)) for r in rows)
    return keeps, block, by_high


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
