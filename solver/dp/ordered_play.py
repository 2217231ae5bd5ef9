"""Playing with dice told apart (Kniffel 7): the advisor's decisions for many games, turn by turn.

The advisor (ordered_keep_values) values every partial assignment of a turn; a game needs far less.
Per state, once (shared by the games in that state):
  * the compact keeps after roll 2 (_compact_keeps): every keep after roll 2 and stopping;
  * the value of every roll after roll 2 (the best keep inside it), by the max passes of _ordered_turn
    (steps 1-2), 8 states per call;
  * the means of those roll values over die 0, dice 0-1, ... (the keeps of roll 1 that keep none).
Per game and roll 1, only the 128 keeps of its roll: means over the rerolled dice, die by die (die 0
innermost), a binary tree of partial means, each node shared by the keeps below it.
Every value is the advisor's, bit for bit: the same compact keeps, maxes (exact in any order) and
means summed in the advisor's order (faces 0..5, then times 1/6; lower dice innermost).

Ties: options within TIE of the best count as tied (the tie rule of tests/naive.py): keeps with the
most dice (all = stop), then the smallest ascending tuple of kept die indices; entries in the lowest box.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .compile import njit
from .entries import _box_options, _pick_entry
from .ordered import _add_rows, _ev_final_rolls, _rolls_after_second, _row
from .ordered_layer import ordered_work
from .simulation import _enter, _next_random

if TYPE_CHECKING:
    from .engine import Engine

TIE = 1e-9  # options this close to the best are tied (advisor.TIE)


@njit(cache=True)
def _high_rows(ordered):
    """Row of by_high where the high dice show the faces hq (base 6) and the low dice their first roll."""
    n_high = ordered.high.n
    rows = np.empty(6**n_high, dtype=np.int64)
    for hq in range(6**n_high):
        h, p, rest = 0, 1, hq
        for _ in range(n_high):
            h += (rest % 6) * p
            rest //= 6
            p *= 7
        rows[hq] = h * ordered.low.faces.shape[0]
    return rows


@njit(cache=True)
def _zero_chains(by_high, n_real, h_rows, n_low_faces, chain8, zero_chain):
    """zero_chain[j] (j < n_real): the means of state j's roll values (by_high's column j) over dice
    0..d-1, nothing kept, for d = 1..n in turn, each level in base 6 over dice d..n-1 (die d lowest).
    Computed for 8 states at once in chain8 (die 0's faces are consecutive rows of by_high)."""
    q = 0
    for h_row in h_rows:
        for lf in range(0, n_low_faces, 6):
            acc = _row(by_high, h_row + lf)
            for c in range(1, 6):
                acc = _add_rows(acc, _row(by_high, h_row + lf + c))
            for j in range(8):
                chain8[q, j] = acc[j] * (1.0 / 6.0)
            q += 1
    src_at, size, at = 0, q, q
    while size > 1:
        size //= 6
        for i in range(size):
            acc = _row(chain8, src_at + 6 * i)
            for c in range(1, 6):
                acc = _add_rows(acc, _row(chain8, src_at + 6 * i + c))
            for j in range(8):
                chain8[at + i, j] = acc[j] * (1.0 / 6.0)
        src_at = at
        at += size
    for j in range(n_real):
        for r in range(at):
            zero_chain[j, r] = chain8[r, j]


@njit(cache=True)
def _first_keep_values(codes, by_high, j, h_rows, zero_chain, level_a, level_b, out):
    """out[bits]: value after roll 1 of keeping the dice in bits (die d kept: bit d) from the roll
    `codes`, for every bits but all dice (stopping, valued apart); the roll values are by_high's column
    j. Level d of the tree holds, for every choice over dice 0..d-1 (node bits), the mean over its
    rerolled dice of the roll values as a function of dice d..n-1 (base 6, die d lowest); node 0
    (nothing kept) is the state's zero chain."""
    n = codes.shape[0]
    size = level_a.shape[0] // 2  # 6^(n-1): level 1, node 1 (die 0 kept at its face)
    n_lq = size // h_rows.shape[0]
    f = codes[0]
    for hq in range(h_rows.shape[0]):
        for lq in range(n_lq):
            level_a[size + hq * n_lq + lq] = by_high[h_rows[hq] + f + 6 * lq, j]
    cur, nxt, chain_at = level_a, level_b, 0
    for d in range(1, n):
        child = size // 6
        f = codes[d]
        for node in range(1 << d):
            if node == 0:
                src, at = zero_chain, chain_at
            else:
                src, at = cur, node * size
            keep_at = (node | (1 << d)) * child
            for q in range(child):  # die d kept at its face
                nxt[keep_at + q] = src[at + 6 * q + f]
            if node != 0:  # die d rerolled: the mean over its faces (node 0's is the zero chain)
                for q in range(child):
                    acc = src[at + 6 * q]
                    for c in range(1, 6):
                        acc += src[at + 6 * q + c]
                    nxt[node * child + q] = acc * (1.0 / 6.0)
        chain_at += size
        cur, nxt, size = nxt, cur, child
    out[0] = zero_chain[chain_at]
    for bits in range(1, (1 << n) - 1):
        out[bits] = cur[bits]


@njit(cache=True)
def _compact_of(codes, bits, ordered):
    """The compact keep (row of _compact_keeps) of keeping the dice in bits at their faces."""
    n_low = ordered.low.n
    low, p = 0, 1
    for d in range(n_low):
        low += (codes[d] if bits >> d & 1 else 6) * p
        p *= 7
    h, p = 0, 1
    for d in range(n_low, codes.shape[0]):
        h += (codes[d] if bits >> d & 1 else 6) * p
        p *= 7
    return ordered.high_low_keep[h * ordered.n_low_keys + ordered.low_key[low]]


@njit(cache=True)
def _pick_keep(vals, prefs):
    """The keep (bits) chosen among vals by the tie rule; prefs: every bits, most dice first, then the
    smallest tuple of kept dice."""
    best = -np.inf
    for v in vals:
        best = max(best, v)
    for bits in prefs:
        if vals[bits] >= best - TIE:
            return bits
    return prefs[0]


@njit(cache=True)
def _second_keep_values(codes, kept, j, ordered, out):
    """out[bits]: value after roll 2 of keeping the dice in bits (all dice: stopping)."""
    for bits in range(out.shape[0]):
        out[bits] = kept[_compact_of(codes, bits, ordered), j]


@njit(cache=True)
def _roll_dice(rng, g, codes, bits):
    """Roll the dice not in bits (die by die, lowest first) from game g's stream."""
    for d in range(codes.shape[0]):
        if not bits >> d & 1:
            codes[d] = np.int64(_next_random(rng, g) % np.uint64(6))


@njit(cache=True)
def _play_turn(
    g,
    j,
    mask,
    joker_scored,
    capped_upper,
    kept,
    rolls,
    zero_chain,
    bufs,
    codes,
    rules,
    ordered,
    values,
    prefs,
    opts,
    games,
):
    """One turn of game g (its state: column j of the call): roll, keep, roll, keep, roll, enter.
    rolls = (by_high, its high rows) of the call."""
    g_mask, g_upper, g_joker_scored, g_boxes, g_extra, rng = games
    option_move, option_points, n_options = opts
    level_a, level_b, vals = bufs
    everything = vals.shape[0] - 1
    _roll_dice(rng, g, codes, 0)
    _first_keep_values(codes, rolls[0], j, rolls[1], zero_chain, level_a, level_b, vals)
    vals[everything] = kept[_compact_of(codes, everything, ordered), j]
    bits = _pick_keep(vals, prefs)
    if bits != everything:
        _roll_dice(rng, g, codes, bits)
        _second_keep_values(codes, kept, j, ordered, vals)
        bits = _pick_keep(vals, prefs)
        if bits != everything:
            _roll_dice(rng, g, codes, bits)
    r = ordered.base_ms[_compact_of(codes, everything, ordered)]
    box, points, next_flag = _pick_entry(
        r, mask, joker_scored, capped_upper, rules, values, option_move, option_points, n_options, TIE
    )
    _enter(g, mask, joker_scored, r, box, points, next_flag, rules, g_mask, g_upper, g_joker_scored, g_boxes, g_extra)


@njit(cache=True, nogil=True)
def _play_call(masks, jokers_scored, upper_totals, n_real, state_games, rules, ordered, values, prefs, work, games):
    """One turn of every game in the call's states: state j (j < n_real) of the call is (masks[j],
    upper_totals[j], flags[j]), its games state_games[j][0] .. (a slice of the game order: start, stop, order)."""
    starts, stops, order = state_games
    kept = _rolls_after_second(_ev_final_rolls(masks, jokers_scored, upper_totals, rules, values), ordered, work)
    n_dice = ordered.low.n + ordered.high.n
    h_rows = _high_rows(ordered)
    chain8, zero_chain, level_a, level_b = work[3], work[4], work[5], work[6]
    _zero_chains(work[2], n_real, h_rows, ordered.low.faces.shape[0], chain8, zero_chain)
    bufs = (level_a, level_b, np.empty(1 << n_dice))
    codes = np.empty(n_dice, dtype=np.int64)
    n_rolls, n_boxes = rules.score.shape
    opts = (
        np.empty((n_rolls, n_boxes), dtype=np.int64),
        np.empty((n_rolls, n_boxes), dtype=np.int64),
        np.empty(n_rolls, dtype=np.int64),
    )
    for j in range(n_real):
        if j == 0 or masks[j] != masks[j - 1] or jokers_scored[j] != jokers_scored[j - 1]:
            _box_options(masks[j], jokers_scored[j], rules, opts[0], opts[1], opts[2])
        for i in range(starts[j], stops[j]):
            _play_turn(
                order[i], j, masks[j], jokers_scored[j], upper_totals[j], kept, (work[2], h_rows), zero_chain[j],
                bufs, codes, rules, ordered, values, prefs, opts, games,
            )  # fmt: skip


@njit(cache=True)
def _turn_choices(mask, joker_scored, capped_upper, rules, ordered, values, prefs, work, codes, roll, vals):
    """What the play kernels decide for one state and one roll: fills vals (keep values by kept bits
    after roll 1 or 2; entry values are not kept) and returns the chosen bits, or after roll 3 the box."""
    masks, jokers_scored, upper_totals = np.full(8, mask), np.full(8, joker_scored), np.full(8, capped_upper)
    kept = _rolls_after_second(_ev_final_rolls(masks, jokers_scored, upper_totals, rules, values), ordered, work)
    n_dice = codes.shape[0]
    everything = (1 << n_dice) - 1
    if roll == 3:
        n_rolls, n_boxes = rules.score.shape
        option_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
        option_points = np.empty((n_rolls, n_boxes), dtype=np.int64)
        n_options = np.empty(n_rolls, dtype=np.int64)
        _box_options(mask, joker_scored, rules, option_move, option_points, n_options)
        r = ordered.base_ms[_compact_of(codes, everything, ordered)]
        return _pick_entry(
            r, mask, joker_scored, capped_upper, rules, values, option_move, option_points, n_options, TIE
        )[0]
    if roll == 1:
        h_rows = _high_rows(ordered)
        # np.int64, not literals: the versions _play_call compiles, not second ones (see compile.py)
        _zero_chains(work[2], np.int64(1), h_rows, ordered.low.faces.shape[0], work[3], work[4])
        _first_keep_values(codes, work[2], np.int64(0), h_rows, work[4][0], work[5], work[6], vals)
        vals[everything] = kept[_compact_of(codes, everything, ordered), 0]
    else:
        _second_keep_values(codes, kept, np.int64(0), ordered, vals)
    return _pick_keep(vals, prefs)


def ordered_play_work(engine: Engine):
    """The work arrays of one play thread, allocated once per simulation: those of _ordered_turn (26 MB
    for seven dice), then the zero chains (8 states at once, then by state) and the two tree levels."""
    assert engine.ordered is not None
    n_dice = engine.variant.n_dice
    n_chain = 6 ** (n_dice - 1) * 6 // 5  # levels 1..n: 6^(n-1) + 6^(n-2) + ... + 1 entries
    level = 2 * 6 ** (n_dice - 1)
    chains = (np.empty((n_chain, 8)), np.empty((8, n_chain)), np.empty(level), np.empty(level))
    return ordered_work(engine.ordered) + chains


def keep_preferences(n_dice: int) -> np.ndarray:
    """Every choice of kept dice (bit d: die d kept) in the tie rule's order: most dice first, then
    the smallest ascending tuple of kept die indices."""
    chosen = [tuple(d for d in range(n_dice) if bits >> d & 1) for bits in range(1 << n_dice)]
    order = sorted(range(1 << n_dice), key=lambda bits: (-len(chosen[bits]), chosen[bits]))
    return np.array(order, dtype=np.int64)


def ordered_turn_choice(
    engine: Engine, values: np.ndarray, mask: int, upper: int, joker_scored: int, dice, roll: int
) -> tuple[int, np.ndarray]:
    """The simulation's decision for one situation, dice told apart: after roll 1 or 2 (the kept dice
    as bits, die d = bit d; all = stop, and the value of every choice by bits), after roll 3 (the box,
    and an empty array). `dice`: the faces, die by die."""
    variant, ordered = engine.variant, engine.ordered
    assert ordered is not None
    codes = np.array([variant.dice[d].index(f) for d, f in enumerate(dice)], dtype=np.int64)
    vals = np.empty(1 << variant.n_dice)
    capped_upper = min(upper, variant.upper_cap)
    prefs = keep_preferences(variant.n_dice)
    work = ordered_play_work(engine)
    choice = _turn_choices(
        mask, joker_scored, capped_upper, engine.rules, ordered, values, prefs, work, codes, roll, vals
    )
    return int(choice), (vals if roll in (1, 2) else np.empty(0))


def play_ordered_turn(engine: Engine, values, calls, state_games, games, works) -> None:
    """One turn of many games (see solver/chances/simulation.py) on len(works) threads (Python threads: the
    kernel releases the GIL), each with its own work arrays (ordered_work). calls = (masks, flags, upper_totals,
    n_real): (n_calls, 8) arrays, the states of call c being its first n_real[c] columns; state_games
    = (starts, stops, order): the games of state j of call c are order[starts[c, j]:stops[c, j]].
    Games = (mask, upper total, joker_scored, boxes, extra, random streams) of every game, updated in place.
    Which thread plays a game changes nothing: a game's turn depends on its state and its stream."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    masks, jokers_scored, upper_totals, n_real = calls
    starts, stops, order = state_games
    prefs = keep_preferences(engine.variant.n_dice)
    n_calls = masks.shape[0]
    items = iter(range(n_calls))
    lock = threading.Lock()

    def run(work):
        while True:
            with lock:
                c = next(items, None)
            if c is None:
                return
            _play_call(
                masks[c], jokers_scored[c], upper_totals[c], n_real[c], (starts[c], stops[c], order),
                engine.rules, engine.ordered, values, prefs, work, games,
            )  # fmt: skip

    with ThreadPoolExecutor(len(works)) as pool:
        for future in [pool.submit(run, work) for work in works]:
            future.result()
