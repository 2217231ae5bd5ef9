"""The choice passes of the Kniffel 7 forward pass (forward_ordered.py): for every roll after roll 1 and after
roll 2, the keep the advisor picks (ordered_play._pick_keep's tie rule), by max passes that carry beside each
maximum the rank of the pick.

After roll 2 the keeps' values are the compact keeps' (ordered._compact_keeps), so those choices run as the EV
kernel's step 1 (ordered._high_roll_block): per high roll, the best keep of each low key over the ways of
keeping the high dice, then a block of the low partial assignments (in cache), maxes along the low dice. After
roll 1 over every partial assignment (_choices). Merges are exact in any order: the picks do not depend on it.
"""

from __future__ import annotations

import numpy as np

from .compile import njit, unsigned
from .ordered_play import TIE


@njit(inline="always")
def _merge(m1, r1, m2, r2):
    """Two sets of keeps, each as (best value, rank of its pick; rank -1: pick unknown), merged. A set whose
    best is within TIE of the merged best, but below it, may hold keeps that the merged tie rule picks or not
    (its pick's value is not kept): its pick is then unknown unless the other set's ranks before it; a set
    whose best is the merged best keeps its pick (within TIE of it). An unknown pick (-1) ranks first, so it
    stays unknown where its set counts. Branch-free: the passes vectorise."""
    m = max(m1, m2)
    lim = m - TIE
    take1 = (m2 < lim) | ((m1 >= lim) & (r1 < r2))
    return m, -1 if (m1 if take1 else m2) < m else (r1 if take1 else r2)


@njit(inline="always")
def _merge_rows(best, pick_r, x, star, length):
    """Rows x + i merge in the keeps of rows star + i, i < length (contiguous: the loop vectorises)."""
    for i in range(length):
        a, b = unsigned(x + i), unsigned(star + i)
        best[a], pick_r[a] = _merge(best[a], pick_r[a], best[b], pick_r[b])


@njit(inline="always")
def _merge_runs(best, pick_r, first, step, length):
    """Along one die (rows step apart): the face rows first + c*step + i merge in the rerolled row's keeps."""
    for c in range(6):
        _merge_rows(best, pick_r, first + c * step, first + 6 * step, length)


@njit(cache=True, nogil=True)
def _choices(vals, tables, best, pick_r, chosen):
    """chosen[q]: the kept dice (bits) roll q picks among its keeps (vals by partial assignment, the roll's
    own entry: stopping), the tie rule of _pick_keep; best[pa] ends as the best keep of each roll. Merges are
    exact in any order, so die 0 (adjacent rows, the one pass that cannot run along contiguous rows) comes
    last, on the rolls' lines only, each line's picks read at once. Before it the max pass along a die runs
    only where the dice before it show faces (and on whole runs of rows, to vectorise): dice 1 to 4 block by
    block in cache, then the high dice across blocks."""
    rolls, prefs, deltas, pa_bits, rank = tables.rolls, tables.prefs, tables.deltas, tables.pa_bits, tables.rank
    low, high = tables.low, tables.high
    size_low = 7**low.n
    low_dice = (1 << low.n) - 1
    for off in range(0, vals.shape[0], size_low):
        high_bits = pa_bits[off] & ~low_dice
        for i in range(size_low):
            pa = off + i
            best[pa], pick_r[pa] = vals[pa], rank[pa_bits[i] & low_dice | high_bits]
        for d in range(1, low.n):  # whole runs of rows (every face of the dice before: more rows, vectorised)
            for first in range(off, off + size_low, 7 ** (d + 1)):
                _merge_runs(best, pick_r, first, 7**d, 7**d)
    run = tables.run_length
    scans = 0
    for d in range(high.n):
        for k in range(high.max_ptr[d], high.max_ptr[d + 1]):
            for t in tables.run_starts:
                _merge_runs(best, pick_r, high.max_start[k] * size_low + t, size_low * 7**d, run)
    for q0 in range(0, rolls.shape[0], 6):  # die 0, on the line of rolls q0 .. q0 + 5
        line = rolls[q0]
        m2, r2 = best[line + 6], pick_r[line + 6]
        for c in range(6):
            pa = line + c
            best[pa], k = _merge(best[pa], pick_r[pa], m2, r2)
            if k < 0:  # scan the roll's keeps in preference order, as _pick_keep
                scans += 1
                lim = best[pa] - TIE
                for k in range(prefs.shape[0]):
                    if vals[_kept(q0 + c, prefs[k], rolls, deltas)] >= lim:
                        break
            chosen[q0 + c] = prefs[k]
    return scans


@njit(inline="always")
def _kept(q, bits, rolls, deltas):
    """The partial assignment keeping the dice in bits of roll q (the others rerolled: code 6)."""
    pa = rolls[q]
    for d in range(deltas.shape[1]):
        if not bits >> d & 1:
            pa += deltas[q, d]
    return pa


@njit(cache=True, nogil=True)
def _second_choices(kept, tables, ordered, block_m, block_r, roll_values, chosen):
    """chosen[q]: the kept dice (bits) roll q picks after roll 2 (the tie rule of _pick_keep), from kept, the
    value of every compact keep (stopping: the roll's own); roll_values[rolls[q]]: the value of roll q (its
    best keep). Per high roll: the best keep of each low key over the ways of keeping the high dice (key_m,
    key_r), filled into a block of the low partial assignments (block_m, block_r: their first 7^low rows),
    maxes along low dice 1 to 4 on whole runs of rows, then die 0 on the rolls' lines, each roll's pick read
    at once (a near tie's keeps scanned, as in _choices). Returns how many rolls were scanned."""
    keep_low, keep_high, key_low, key_bits = tables.keep_low, tables.keep_high, tables.key_low, tables.key_bits
    rank, prefs, rolls = tables.rank, tables.prefs, tables.rolls
    high_low_keep, low_key, n_keys = ordered.high_low_keep, ordered.low_key, ordered.n_low_keys
    n_low = ordered.low.n
    size_low, n_low_rolls, all_low = 7**n_low, keep_low.shape[0], (1 << n_low) - 1
    key_m, key_r = np.empty(n_keys), np.empty(n_keys, dtype=np.int8)
    scans = 0
    for hq in range(keep_high.shape[0]):
        for key in range(n_keys):
            kb = key_bits[key]
            m, r = kept[high_low_keep[keep_high[hq, 0] * n_keys + key]], rank[kb]
            for hb in range(1, keep_high.shape[1]):
                m, r = _merge(m, r, kept[high_low_keep[keep_high[hq, hb] * n_keys + key]], rank[kb | hb << n_low])
            key_m[key], key_r[key] = m, r
        for lp in range(size_low):
            k = low_key[lp]
            block_m[lp], block_r[lp] = key_m[k], key_r[k]
        for d in range(1, n_low):
            for first in range(0, size_low, 7 ** (d + 1)):
                _merge_runs(block_m, block_r, first, 7**d, 7**d)
        for lq0 in range(0, n_low_rolls, 6):  # die 0, on the line of low rolls lq0 .. lq0 + 5
            line = keep_low[lq0, all_low]
            m2, r2 = block_m[line + 6], block_r[line + 6]
            for c in range(6):
                m, k = _merge(block_m[line + c], block_r[line + c], m2, r2)
                if k < 0:  # scan the roll's keeps in preference order, as _pick_keep
                    scans += 1
                    for k in range(prefs.shape[0]):
                        bits = prefs[k]
                        row = keep_high[hq, bits >> n_low] * n_keys + key_low[lq0 + c, bits & all_low]
                        if kept[high_low_keep[row]] >= m - TIE:
                            break
                q = hq * n_low_rolls + lq0 + c
                roll_values[rolls[q]] = m
                chosen[q] = prefs[k]
    return scans
