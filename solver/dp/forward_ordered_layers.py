"""The forward pass for dice told apart (Kniffel 7), layer by layer: each layer's states on Python threads
(forward_ordered._state_groups per state, each thread with its own work arrays), the pmf from a card, and
how many states a pass from a card visits at most (the estimate said before a long pass)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from ..rules.scoring import possible_points
from .forward import Layer, advance, layer_pmf, next_keys, start_layer
from .forward_ordered import _state_groups, _work, forward_tables


def ordered_groups(engine, values, masks, uppers, flags, keys, threads: int, progress=None):
    """The entry groups of every state (masks[i], uppers[i], flags[i]) on `threads` Python threads:
    (key, shift, prob, src) flat arrays. progress(k), in the calling thread: k more states done (it may
    raise to stop); then, as after Ctrl-C, the threads stop after their current state and it goes on."""
    tables = forward_tables(engine)
    n_states = masks.shape[0]
    n_ms = engine.rules.score.shape[0]
    results: list = [None] * n_states
    items = iter(range(n_states))
    lock = threading.Lock()
    stop = threading.Event()
    done = [0]

    def run():
        work = _work(engine, tables)
        out = (np.empty(n_ms, dtype=np.int64), np.empty(n_ms, dtype=np.int64), np.empty(n_ms))
        while not stop.is_set():
            with lock:
                i = next(items, None)
            if i is None:
                return
            n = _state_groups(
                masks[i], flags[i], uppers[i], engine.rules, engine.ordered, values, tables, keys, work, out
            )
            results[i] = (out[0][:n].copy(), out[1][:n].copy(), out[2][:n].copy())
            with lock:
                done[0] += 1

    pool = ThreadPoolExecutor(threads)
    shown = 0
    try:
        futures = [pool.submit(run) for _ in range(threads)]
        while True:  # short waits: Ctrl-C is seen here, and progress is shown from this thread
            pending = wait(futures, timeout=0.1).not_done
            if progress is not None and done[0] > shown:
                progress(done[0] - shown)
                shown = done[0]
            if not pending:
                break
        for future in futures:
            future.result()
    finally:
        stop.set()
        pool.shutdown(wait=True)
    counts = np.array([len(r[0]) for r in results], dtype=np.int64)
    key, shift, prob = (np.concatenate([r[i] for r in results]) for i in range(3))
    return key, shift, prob, np.repeat(np.arange(n_states, dtype=np.int64), counts)


def ordered_pmf(
    engine, values, mask: int, upper: int, joker_scored: int, points: int, threads: int = 2, progress=None
) -> np.ndarray:
    """P(final score = s) for s = 0 ... max from the card (mask, upper, joker_scored) with `points` on it at the
    start of a turn, dice told apart, every later decision the advisor's. progress(k): k more states done."""
    last = start_layer(mask, upper, joker_scored, points)
    for last in ordered_layers(engine, values, last, threads, progress):  # noqa: B007, B020 (the last layer)
        pass
    return layer_pmf(last)


def ordered_layers(engine, values, layer: Layer, threads: int = 2, progress=None) -> Iterator[Layer]:
    """Every next layer from `layer` (its states share one number of filled boxes) up to the full cards."""
    slot = np.full(values.size, -1, dtype=np.int64)
    keys = next_keys(engine, values)
    for _ in range(bin(int(layer.mask[0])).count("1"), len(engine.variant.boxes)):
        groups = ordered_groups(engine, values, layer.mask, layer.upper, layer.joker_scored, keys, threads, progress)
        layer = advance(values, layer, groups, slot)
        yield layer


SECONDS_PER_STATE = 0.025  # one thread, measured (benchmarks/bench_distribution_k7.py, loaded): the estimate's rate


FREE_COUNTED = 10  # state_bound counts the states reachable from cards with at most this many free boxes


def state_bound(engine, mask: int, upper: int, joker_scored: int) -> int:
    """At most how many turn states a forward pass from a card visits: those reached by entering, turn by
    turn, any points a free box can hold (upper totals merged as the pass merges them). Early in a game
    (where that count costs seconds and the pass hours) the table's states of the fuller cards instead."""
    variant, states = engine.variant, engine.upper
    n_boxes, cap, n_flags = len(variant.boxes), variant.upper_cap, states.row.shape[1]
    joker = variant.joker_index if variant.has_flag else -1
    free = [1 << b for b in range(n_boxes) if not mask >> b & 1]
    if len(free) > FREE_COUNTED:
        count = 0
        for chosen in range((1 << len(free)) - 1):  # every fuller card but the full one
            fuller = mask | sum(bit for i, bit in enumerate(free) if chosen >> i & 1)
            flags = (joker_scored,) if joker < 0 or mask >> joker & 1 else (0, 1) if fuller >> joker & 1 else (0,)
            count += sum(len(states.totals(fuller, f)) for f in flags)
        return count
    points = [[np.array(possible_points(variant, b, f == 1)) for f in range(2)] for b in range(n_boxes)]
    m, u, f = (np.array([x], dtype=np.int64) for x in (mask, upper, joker_scored))
    count = 0
    for _ in range(bin(mask).count("1"), n_boxes):
        count += m.shape[0]
        parts = []
        for b in range(n_boxes):
            for flag in range(n_flags):
                sel = (m >> b & 1 == 0) & (f == flag)
                if not sel.any():
                    continue
                for p in points[b][flag]:
                    nm = m[sel] | (1 << b)
                    nf = np.full(nm.shape[0], int(p > 0) if b == joker else flag)
                    nu = np.minimum(u[sel] + p, cap) if variant.boxes[b].is_upper else u[sel]
                    nu = states.solved_total[states.row[nm, nf], nu]
                    parts.append((nm * n_flags + nf) * (cap + 1) + nu)
        keys = np.unique(np.concatenate(parts))
        m, f, u = keys // (cap + 1) // n_flags, keys // (cap + 1) % n_flags, keys % (cap + 1)
    return count
