"""The forward pass for dice told apart (Kniffel 7): per reached state, the turn's policy exactly as the
advisor picks it, and the mass pushed from roll 1 through the chosen partial assignments to the entries.

Per state, once:
  * the advisor's own keep values (ordered.ordered_keep_values: one value per partial assignment after
    roll 2 and after roll 1, the final-roll values by multiset);
  * the choice of every roll by a max pass that carries, beside the maximum, the keep the tie rule picks
    (ordered_play._pick_keep: the first keep in preference order within TIE of the roll's best). A pass
    merges two sets of keeps; the pick of a set stays known while it lies within TIE of the merged best,
    else the roll is marked and its keeps are scanned as _pick_keep does (rare: options 1e-13 to 1e-9 apart);
  * the mass: roll 1 uniform, each roll's mass on its chosen partial assignment (or on its final roll
    when it stops), spread over the rerolled dice die by die (a mean pass backwards), the same again for
    roll 2; final rolls by multiset, then by entry (box, points, next flag): the groups of
    forward.advance.
The states of a layer run on Python threads (the kernel releases the GIL), each with its own work arrays.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from typing import NamedTuple

import numpy as np

from ..rules.scoring import possible_points
from .compile import njit
from .entries import _box_options, _pick_entry
from .forward import Layer, advance, layer_pmf, next_keys, start_layer
from .ordered import _ordered_keep_values
from .ordered_dice import die_group
from .ordered_play import TIE, keep_preferences
from .rules import P_CAP, P_EXTRA


class Tables(NamedTuple):
    """Index tables of the pass, built once per number of dice and engine."""

    rolls: np.ndarray  # (6^n,) partial assignment of each roll
    roll_ms: np.ndarray  # (6^n,) multiset row of each roll
    pa_bits: np.ndarray  # (7^n,) the dice a partial assignment keeps (bit d: die d)
    rank: np.ndarray  # (2^n,) place of each choice of kept dice in the tie rule's order
    prefs: np.ndarray  # (2^n,) the choices in that order
    deltas: np.ndarray  # (6^n, n): what rerolling die d adds to the partial assignment of roll q


_TABLES: dict = {}


def forward_tables(engine) -> Tables:
    """The pass's tables for the engine's dice, built once per variant."""
    variant, ordered = engine.variant, engine.ordered
    if variant not in _TABLES:
        n = variant.n_dice
        group = die_group(n)
        digits = (np.arange(7**n)[:, None] // 7 ** np.arange(n)) % 7
        bits = ((digits < 6) << np.arange(n)).sum(axis=1)
        roll_digits = digits[group.faces]
        n_low = ordered.low.n
        low = (roll_digits[:, :n_low] * 7 ** np.arange(n_low)).sum(axis=1)
        high = (roll_digits[:, n_low:] * 7 ** np.arange(n - n_low)).sum(axis=1)
        roll_ms = ordered.base_ms[ordered.high_low_keep[high * ordered.n_low_keys + ordered.low_key[low]]]
        prefs = keep_preferences(n)
        rank = np.empty_like(prefs)
        rank[prefs] = np.arange(prefs.shape[0])
        deltas = (6 - roll_digits) * 7 ** np.arange(n)
        _TABLES[variant] = Tables(group.faces, roll_ms.astype(np.int64), bits.astype(np.int64), rank, prefs, deltas)
    return _TABLES[variant]


@njit(inline="always")
def _merge(m1, v1, r1, m2, v2, r2):
    """Two sets of keeps, each as (best value, value and rank of its pick; rank -1: pick unknown), merged.
    A set whose best is within TIE of the merged best keeps its pick only if the pick is too, else which
    of its other keeps is the pick is unknown. Branch-free: the passes vectorise."""
    m = max(m1, m2)
    lim = m - TIE
    in1, in2 = m1 >= lim, m2 >= lim
    lost = (in1 and (r1 < 0 or v1 < lim)) or (in2 and (r2 < 0 or v2 < lim))
    take1 = not in2 or (in1 and r1 < r2)
    r = r1 if take1 else r2
    return m, v1 if take1 else v2, -1 if lost else r


@njit(cache=True, nogil=True)
def _choices(vals, tables, best, pick_v, pick_r, chosen):
    """chosen[q]: the kept dice (bits) roll q picks among its keeps (vals by partial assignment, the roll's
    own entry: stopping), the tie rule of _pick_keep; best[pa] ends as the best keep of each roll. The max
    passes run along whole lines (contiguous, vectorised), also where only rolls are read afterwards."""
    rolls, rank, prefs, deltas = tables.rolls, tables.rank, tables.prefs, tables.deltas
    n = deltas.shape[1]
    size = vals.shape[0]
    best[:] = vals
    pick_v[:] = vals
    for pa in range(size):
        pick_r[pa] = rank[tables.pa_bits[pa]]
    for d in range(n):
        step = 7**d
        for hi in range(0, size, 7 * step):
            for c in range(6):
                for r in range(hi, hi + step):
                    x, star = r + c * step, r + 6 * step
                    best[x], pick_v[x], pick_r[x] = _merge(
                        best[x], pick_v[x], pick_r[x], best[star], pick_v[star], pick_r[star]
                    )
    for q in range(rolls.shape[0]):
        pa = rolls[q]
        k = pick_r[pa]
        if k < 0:  # scan the roll's keeps in preference order, as _pick_keep
            lim = best[pa] - TIE
            for k in range(prefs.shape[0]):
                if vals[_kept(q, prefs[k], rolls, deltas)] >= lim:
                    break
        chosen[q] = prefs[k]


@njit(inline="always")
def _kept(q, bits, rolls, deltas):
    """The partial assignment keeping the dice in bits of roll q (the others rerolled: code 6)."""
    pa = rolls[q]
    for d in range(deltas.shape[1]):
        if not bits >> d & 1:
            pa += deltas[q, d]
    return pa


@njit(cache=True, nogil=True)
def _push(p_roll, chosen, tables, stops, mass):
    """Roll q (probability p_roll[q], or p_roll[pa of q] when p_roll has 7^n entries) goes to its chosen
    keep: stopping adds to stops (by multiset), other keeps are rerolled; leaves the next roll's
    probabilities in mass (by partial assignment, rolls only)."""
    rolls, roll_ms, deltas = tables.rolls, tables.roll_ms, tables.deltas
    n = deltas.shape[1]
    everything = (1 << n) - 1
    by_pa = p_roll.shape[0] != rolls.shape[0]
    mass[:] = 0.0
    for q in range(rolls.shape[0]):
        p = p_roll[rolls[q]] if by_pa else p_roll[q]
        if chosen[q] == everything:
            stops[roll_ms[q]] += p
        else:
            mass[_kept(q, chosen[q], rolls, deltas)] += p
    size = mass.shape[0]
    for d in range(n):  # each rerolled die's mass spread over its faces
        step = 7**d
        for hi in range(0, size, 7 * step):
            for r in range(hi, hi + step):
                m = mass[r + 6 * step] * (1.0 / 6.0)
                for c in range(6):
                    mass[r + c * step] += m
                mass[r + 6 * step] = 0.0


@njit(cache=True, nogil=True)
def _state_groups(mask, joker_scored, capped_upper, rules, ordered, values, tables, keys, work, out):
    """The entry groups of one state (mask, capped_upper, joker_scored): out = (key, shift, prob), the
    first returned-count entries; keys = (key_base, up_row, solved_total) as forward._item_groups."""
    after_second, after_first, best, pick_v, pick_b, mass, stops, chosen = work
    rolls = tables.rolls
    final = _ordered_keep_values(mask, joker_scored, capped_upper, rules, ordered, values, after_second, after_first)
    for q in range(rolls.shape[0]):  # after roll 1, keeping every die is stopping
        after_first[rolls[q]] = after_second[rolls[q]]
    stops[:] = 0.0
    p1 = np.full(rolls.shape[0], 1.0 / rolls.shape[0])
    _choices(after_first, tables, best, pick_v, pick_b, chosen)
    _push(p1, chosen, tables, stops, mass)
    _choices(after_second, tables, best, pick_v, pick_b, chosen)
    p2 = mass.copy()
    _push(p2, chosen, tables, stops, mass)
    for q in range(rolls.shape[0]):
        stops[tables.roll_ms[q]] += mass[rolls[q]]
    return _entry_groups(mask, joker_scored, capped_upper, rules, values, final, stops, keys, out)


@njit(cache=True, nogil=True)
def _entry_groups(mask, joker_scored, capped_upper, rules, values, final, stops, keys, out):
    """Final rolls (probabilities stops, by multiset) grouped by their entry, _pick_entry's."""
    key_base, up_row, solved_total = keys
    out_key, out_shift, out_prob = out
    n_rolls, n_boxes = rules.score.shape
    option_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
    option_points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_options = np.empty(n_rolls, dtype=np.int64)
    _box_options(mask, joker_scored, rules, option_move, option_points, n_options)
    cap, extra = rules.params[P_CAP], rules.params[P_EXTRA]
    n = 0
    for r in range(n_rolls):
        p = stops[r]
        if p == 0.0:
            continue
        box, points, next_flag = _pick_entry(
            r, mask, joker_scored, capped_upper, rules, values, option_move, option_points, n_options, TIE
        )
        nmask = mask | (1 << box)
        nu = min(capped_upper + points, cap) if rules.is_upper[box] else capped_upper
        shift = points + (extra if joker_scored == 1 and rules.joker_roll[r] else 0)
        shift += np.int64(rules.bonus_cum[nu] - rules.bonus_cum[capped_upper])
        key = (nmask * key_base[0] + next_flag) * key_base[1] + solved_total[up_row[nmask, next_flag], nu]
        g = 0
        while g < n and not (out_key[g] == key and out_shift[g] == shift):
            g += 1
        if g == n:
            out_key[g], out_shift[g], out_prob[g] = key, shift, 0.0
            n += 1
        out_prob[g] += p
    return n


def _work(engine, tables: Tables):
    size = tables.pa_bits.shape[0]
    n_ms = engine.rules.score.shape[0]
    return (
        np.empty(size),
        np.empty(size),
        np.empty(size),
        np.empty(size),
        np.empty(size, dtype=np.int64),
        np.empty(size),
        np.empty(n_ms),
        np.empty(tables.rolls.shape[0], dtype=np.int64),
    )


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


SECONDS_PER_STATE = 0.1  # one thread, measured (benchmarks/bench_distribution_k7.py): the estimate's rate


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
