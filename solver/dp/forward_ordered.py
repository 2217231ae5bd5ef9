"""The forward pass for dice told apart (Kniffel 7): per reached state, the turn's policy exactly as the
advisor picks it, and the mass pushed from roll 1 through the chosen partial assignments to the entries.

Per state, once:
  * the advisor's final-roll values and compact keeps after roll 2 (ordered._compact_keeps);
  * the choice of every roll (forward_ordered_choices.py) by max passes that carry, beside the maximum,
    the rank of the keep the tie rule picks (ordered_play._pick_keep: the first keep in preference order
    within TIE of the roll's best); a near tie whose pick is unknown is scanned as _pick_keep does (rare:
    options 1e-13 to 1e-9 apart). After roll 2 first: its maxima are the value of every roll 2, whose
    means are the keep values after roll 1 (the advisor's sums: ordered._keep_values_from_final, in its
    order: bit for bit), then the choices after roll 1;
  * the mass: roll 1 uniform, each roll's mass on its chosen partial assignment (or on its final roll
    when it stops), spread over the rerolled dice (_push_first); roll 2's mass on the compact keep of its
    choice, spread down the compact keeps to the final rolls by multiset (_push_last), then by entry (box,
    points, next flag): the groups of forward.advance. The probabilities are sums in another order than a
    plain pass's (within a few 1e-16).
The passes run as the EV kernel's (dp/ordered.py): along die d only where the later reads need it, the low
dice's block by block (in cache), contiguous runs of rows (vectorised).
The states of a layer run on Python threads (forward_ordered_layers.py; the kernel releases the GIL), each with
its own work arrays (_work).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .compile import njit, unsigned
from .entries import _box_options, _entry_arrays, _final_roll_values, _pick_option
from .forward_ordered_choices import _choices, _second_choices
from .ordered import _compact_keeps
from .ordered_dice import DieGroup, die_group
from .ordered_play import TIE, keep_preferences
from .rules import P_CAP, P_EXTRA


class Tables(NamedTuple):
    """Index tables of the pass, built once per number of dice and engine."""

    rolls: np.ndarray  # (6^n,) partial assignment of each roll
    roll_ms: np.ndarray  # (6^n,) multiset row of each roll
    pa_bits: np.ndarray  # (7^n,) the dice a partial assignment keeps (bit d: die d)
    prefs: np.ndarray  # (2^n,) every choice of kept dice (bits), in the tie rule's order
    deltas: np.ndarray  # (6^n, n): what rerolling die d adds to the partial assignment of roll q
    rank: np.ndarray  # (2^n,) the place of each choice in prefs
    low: DieGroup  # the kernel's low dice (a block: the low dice's partial assignments, the high dice fixed)
    high: DieGroup  # and high dice (passes across blocks)
    run_starts: np.ndarray  # the high dice's max passes: runs of rows from these low partial assignments ...
    run_length: int  # ... this long (dice 0-1 any code, the other low dice faces only)
    mean_run_ptr: np.ndarray  # (low + 1,) the low dice's mean passes: runs of 7^d rows (die d) in a block ...
    mean_run_start: np.ndarray  # ... from these rows, where the low dice after die d show faces
    keep_low: np.ndarray  # (6^low, 2^low) int16: the low partial assignment of low roll (base 6) keeping these dice
    keep_high: np.ndarray  # (6^high, 2^high): the same for the high dice
    key_low: np.ndarray  # (6^low, 2^low) int16 (both: in cache): ordered.low_key of keep_low's assignments
    key_bits: np.ndarray  # (low keys,): the low dice each low key keeps (bits)


_TABLES: dict = {}
RUN_DICE = 2  # the high dice's max passes run along rows where dice 0-1 show anything (runs of 49 rows to vectorise)


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
        key_bits = np.zeros(ordered.n_low_keys, dtype=np.int64)
        key_bits[ordered.low_key] = bits[: 7**n_low] & ((1 << n_low) - 1)
        prefs = keep_preferences(n)
        rank = np.empty_like(prefs)
        rank[prefs] = np.arange(prefs.shape[0])
        deltas = (6 - roll_digits) * 7 ** np.arange(n)
        low_digits = digits[: 7**n_low, :n_low]
        run_dice = min(RUN_DICE, n_low)
        run_starts = np.flatnonzero(
            (low_digits[:, :run_dice] == 0).all(axis=1) & (low_digits[:, run_dice:] < 6).all(axis=1)
        )
        mean_runs = [
            np.flatnonzero((low_digits[:, : d + 1] == 0).all(axis=1) & (low_digits[:, d + 1 :] < 6).all(axis=1))
            for d in range(n_low)
        ]
        _TABLES[variant] = Tables(
            group.faces, roll_ms.astype(np.int64), bits.astype(np.int64), prefs, deltas, rank,
            ordered.low, ordered.high, run_starts.astype(np.int64), 7**run_dice,
            np.cumsum([0] + [len(m) for m in mean_runs]).astype(np.int64), np.concatenate(mean_runs).astype(np.int64),
            _keeps_of_rolls(n_low).astype(np.int16), _keeps_of_rolls(n - n_low),
            ordered.low_key[_keeps_of_rolls(n_low)].astype(np.int16), key_bits,
        )  # fmt: skip
    return _TABLES[variant]


def _keeps_of_rolls(n: int) -> np.ndarray:
    """(6^n, 2^n): the partial assignment (base 7) of each roll of n dice (base 6) keeping the dice in bits."""
    faces = (np.arange(6**n)[:, None] // 6 ** np.arange(n)) % 6
    kept = (np.arange(1 << n)[:, None] >> np.arange(n)) & 1
    digits = np.where(kept[None, :, :] == 1, faces[:, None, :], 6)
    return (digits * 7 ** np.arange(n)).sum(axis=2).astype(np.int64)


@njit(inline="always")
def _spread_runs(mass, first, step, length):
    """Along one die (rows step apart): the mass of rows first + 6*step + i (the die rerolled), i < length,
    added in sixths to its face rows first + c*step + i (the rerolled rows keep theirs: no later read)."""
    star = first + 6 * step
    for c in range(6):
        x = first + c * step
        for i in range(length):
            mass[unsigned(x + i)] += mass[unsigned(star + i)] * (1.0 / 6.0)


@njit(cache=True, nogil=True)
def _push_first(chosen, tables, stops, mass, p_roll):
    """Roll 1 (each roll 1/6^n) goes to its chosen keep: stopping adds to stops (by multiset), other keeps
    are rerolled: p_roll[q] ends as the probability of roll 2 being q. The mass by partial assignment, spread
    along dice 1 to 4 block by block (in cache, whole runs of rows), the high dice across blocks (runs that
    hold the rows where dice 2 to 4 show faces), die 0 last on the rolls' lines only, read on the way. A
    rerolled row keeps its mass after its die's spread: rows with that die rerolled are not read again."""
    roll_ms, keep_low, keep_high, rolls = tables.roll_ms, tables.keep_low, tables.keep_high, tables.rolls
    low, high = tables.low, tables.high
    size_low = 7**low.n
    n_low_rolls, low_bits = keep_low.shape[0], (1 << low.n) - 1
    everything = (1 << (low.n + high.n)) - 1
    p = 1.0 / rolls.shape[0]
    mass[:] = 0.0
    for hq in range(keep_high.shape[0]):  # the high dice's keeps: a few blocks of mass at a time (in cache)
        for lq in range(n_low_rolls):
            q = hq * n_low_rolls + lq
            bits = chosen[q]
            if bits == everything:
                stops[roll_ms[q]] += p
            else:
                mass[keep_high[hq, bits >> low.n] * size_low + keep_low[lq, bits & low_bits]] += p
    for off in range(0, mass.shape[0], size_low):
        for d in range(1, low.n):
            for first in range(off, off + size_low, 7 ** (d + 1)):
                _spread_runs(mass, first, 7**d, 7**d)
    run = tables.run_length
    for d in range(high.n):
        for k in range(high.max_ptr[d], high.max_ptr[d + 1]):
            for t in tables.run_starts:
                _spread_runs(mass, high.max_start[k] * size_low + t, size_low * 7**d, run)
    for q0 in range(0, rolls.shape[0], 6):  # die 0, on the line of rolls q0 .. q0 + 5
        line = rolls[q0]
        share = mass[line + 6] * (1.0 / 6.0)
        for c in range(6):
            p_roll[q0 + c] = mass[line + c] + share


@njit(cache=True, nogil=True)
def _push_last(p_roll, chosen, tables, ordered, stops):
    """Roll 2 (probability p_roll[q]) goes to its chosen keep's compact keep (ordered._compact_keeps: the
    final roll's multiset depends only on the dice kept and the faces they show), then each compact keep's
    mass down its lowest rerolled die's faces (most dice rerolled first) to the final rolls, added to stops by
    multiset. The same probabilities as a spread over partial assignments, summed in another order."""
    key_low, keep_high = tables.key_low, tables.keep_high
    n_low_rolls, n_low = key_low.shape[0], ordered.low.n
    low_bits = (1 << n_low) - 1
    high_low_keep, n_keys = ordered.high_low_keep, ordered.n_low_keys
    order, child, base_ms = ordered.order, ordered.child, ordered.base_ms
    cmass = np.zeros(order.shape[0])
    for hq in range(keep_high.shape[0]):
        for lq in range(n_low_rolls):
            q = hq * n_low_rolls + lq
            bits = chosen[q]
            row = keep_high[hq, bits >> n_low] * n_keys
            cmass[high_low_keep[row + key_low[lq, bits & low_bits]]] += p_roll[q]
    for k in range(order.shape[0] - 1, -1, -1):
        i = order[k]
        if base_ms[i] >= 0:
            stops[base_ms[i]] += cmass[i]
        else:
            share = cmass[i] * (1.0 / 6.0)
            for c in range(6):
                cmass[child[i, c]] += share


@njit(inline="always")
def _mean_runs(a, first, step, length):
    """Along one die (rows step apart): rows first + 6*step + i (the die rerolled), i < length, become the
    means of their face rows first + c*step + i, summed in face order."""
    for i in range(length):
        acc = a[unsigned(first + i)]
        for c in range(1, 6):
            acc += a[unsigned(first + c * step + i)]
        a[unsigned(first + 6 * step + i)] = acc * (1.0 / 6.0)


@njit(cache=True, nogil=True)
def _second_values(mask, joker_scored, capped_upper, rules, ordered, values):
    """(the final-roll values by multiset, the value of every compact keep after roll 2: the advisor's)."""
    upper_totals = np.full(8, capped_upper)
    final = np.empty((rules.score.shape[0], 8))
    _final_roll_values(mask, joker_scored, upper_totals, rules, values, final, np.int64(0))
    return final[:, 0].copy(), _compact_keeps(final, ordered)[:, 0].copy()


@njit(cache=True, nogil=True)
def _first_keeps(a, tables):
    """a: the value of every roll after roll 2 (its rows; the others are overwritten) becomes the value of every
    partial assignment kept after roll 1, the advisor's means (ordered._keep_values_from_final). The mean
    along die d runs where the dice after it show faces: every other row is written by a later die's mean."""
    low, high = tables.low, tables.high
    size_low = 7**low.n
    for h in high.faces:
        off = h * size_low
        for d in range(low.n):
            for k in range(tables.mean_run_ptr[d], tables.mean_run_ptr[d + 1]):
                _mean_runs(a, off + tables.mean_run_start[k], 7**d, 7**d)
    for d in range(high.n):
        for k in range(high.mean_ptr[d], high.mean_ptr[d + 1]):
            _mean_runs(a, high.mean_start[k] * size_low, size_low * 7**d, size_low)


@njit(cache=True, nogil=True)
def _state_groups(mask, joker_scored, capped_upper, rules, ordered, values, tables, keys, work, out):
    """The entry groups of one state (mask, capped_upper, joker_scored): out = (key, shift, prob), the
    first returned-count entries; keys = (key_base, up_row, solved_total) as forward._item_groups.
    The choices after roll 2 come first: their max pass leaves the value of every roll 2, from which the
    keeps after roll 1 are valued."""
    after_first, best, pick_r, mass, stops, chosen1, chosen2, p_roll = work
    rolls = tables.rolls
    final, kept = _second_values(mask, joker_scored, capped_upper, rules, ordered, values)
    _second_choices(kept, tables, ordered, best, pick_r, after_first, chosen2)
    _first_keeps(after_first, tables)
    for q in range(rolls.shape[0]):  # after roll 1, keeping every die is stopping
        after_first[rolls[q]] = final[tables.roll_ms[q]]
    _choices(after_first, tables, best, pick_r, chosen1)
    stops[:] = 0.0
    _push_first(chosen1, tables, stops, mass, p_roll)
    _push_last(p_roll, chosen2, tables, ordered, stops)
    return _entry_groups(mask, joker_scored, capped_upper, rules, values, final, stops, keys, out)


@njit(cache=True, nogil=True)
def _entry_groups(mask, joker_scored, capped_upper, rules, values, final, stops, keys, out):
    """Final rolls (probabilities stops, by multiset) grouped by their entry, _pick_entry's (_pick_option)."""
    key_base, up_row, solved_total = keys
    out_key, out_shift, out_prob = out
    n_rolls, n_boxes = rules.score.shape
    option_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
    option_points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_options = np.empty(n_rolls, dtype=np.int64)
    _box_options(mask, joker_scored, rules, option_move, option_points, n_options)
    cap, extra = rules.params[P_CAP], rules.params[P_EXTRA]
    arrays = _entry_arrays(rules)  # Rules' arrays read once, not in the loop: each read counts a reference
    is_upper, joker_roll, bonus_cum = rules.is_upper, rules.joker_roll, rules.bonus_cum
    n = 0
    for r in range(n_rolls):
        p = stops[r]
        if p == 0.0:
            continue
        box, points, next_flag = _pick_option(
            r, mask, joker_scored, capped_upper, arrays, cap, values, option_move, option_points, n_options, TIE
        )
        nmask = mask | (1 << box)
        nu = min(capped_upper + points, cap) if is_upper[box] else capped_upper
        shift = points + (extra if joker_scored == 1 and joker_roll[r] else 0)
        shift += np.int64(bonus_cum[nu] - bonus_cum[capped_upper])
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
        np.empty(size, dtype=np.int8),  # ranks (< 2^7 for seven dice)
        np.empty(size),
        np.empty(n_ms),
        np.empty(tables.rolls.shape[0], dtype=np.uint8),  # the choices (kept dice as bits: < 2^7)
        np.empty(tables.rolls.shape[0], dtype=np.uint8),
        np.empty(tables.rolls.shape[0]),
    )
