"""The turn kernel for dice told apart (Kniffel 7): a roll says which die shows which face, so
keeps are partial assignments (each die: a face or rerolled) and the passes run along one die at a
time."""

from __future__ import annotations

import numpy as np

from .compile import njit, unmasked
from .entries import _final_roll_values

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


@njit(inline="always")
def _max_rows(t, u):
    return (
        unmasked(max(t[0], u[0])), unmasked(max(t[1], u[1])), unmasked(max(t[2], u[2])), unmasked(max(t[3], u[3])),
        unmasked(max(t[4], u[4])), unmasked(max(t[5], u[5])), unmasked(max(t[6], u[6])), unmasked(max(t[7], u[7])),
    )  # fmt: skip


@njit(cache=True)
def _transform(a, group, first, stride, offsets, mean):
    """Means or maxes along every die of a group, on the rows first + offsets[i] + stride * q, where q
    runs over the group's partial assignments (the other dice held fixed)."""
    _passes(a, group, 0, group.n, first, stride, offsets, mean)


@njit(cache=True)
def _passes(a, group, d0, d1, first, stride, offsets, mean):
    """_transform along the group's dice d0 .. d1 - 1 only."""
    ptr, start = (group.mean_ptr, group.mean_start) if mean else (group.max_ptr, group.max_start)
    for d in range(d0, d1):
        step = stride * 7**d
        for k in range(ptr[d], ptr[d + 1]):
            r0 = first + start[k] * stride
            for i in offsets:
                if mean:
                    _mean_line(a, r0 + i, step)
                else:
                    _max_line(a, r0 + i, step)


@njit(cache=True)
def _maxes_out(block, group, first, stride, offsets, low_face_row, out, out_first):
    """_transform's maxes along the group's dice in block, the last die's pass writing its results (rolls
    only: the dice before it show faces, and offsets only rows whose other dice do) to out at row
    out_first + low_face_row[block row] instead of back into block; an empty group copies those rows."""
    if group.n == 0:
        for i in offsets:
            _set_row(out, out_first + low_face_row[first + i], _row(block, first + i))
        return
    d = group.n - 1
    _passes(block, group, 0, d, first, stride, offsets, False)
    step = stride * 7**d
    for k in range(group.max_ptr[d], group.max_ptr[d + 1]):
        r0 = first + group.max_start[k] * stride
        for i in offsets:
            star = _row(block, r0 + i + 6 * step)
            for c in range(6):
                r = r0 + i + c * step
                _set_row(out, out_first + low_face_row[r], _max_rows(_row(block, r), star))


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
        # into a C-contiguous array, copied: a column slice's layout would compile _final_roll_values (and its
        # callees) a second time, beside the version every other kernel shares
        part = np.empty((final.shape[0], j1 - j0))
        _final_roll_values(masks[j0], jokers_scored[j0], upper_totals[j0:j1], rules, values, part, np.int64(0))
        for r in range(final.shape[0]):  # loops, not slice copies: see compile.py
            for j in range(j1 - j0):
                final[r, j0 + j] = part[r, j]
        j0 = j1
    return final


@njit(cache=True)
def _roll_keeps(h, ordered, kept, keeps):
    """keeps[key]: for the high roll h, the best keep after roll 2 with low key `key` (row of
    ordered.low_key) over every way of keeping the high dice (each of them kept or rerolled)."""
    high, n_keys = ordered.high, ordered.n_low_keys
    for bits in range(1 << high.n):  # the high dice rerolled
        sub, x, p = 0, h, 1
        for d in range(high.n):
            sub += (6 if bits >> d & 1 else x % 7) * p
            x //= 7
            p *= 7
        rows = ordered.high_low_keep[sub * n_keys : (sub + 1) * n_keys]
        for key in range(n_keys):
            t = _row(kept, rows[key])
            _set_row(keeps, key, t if bits == 0 else _max_rows(_row(keeps, key), t))


@njit(cache=True)
def _high_roll_block(h, ordered, kept, keeps, block):
    """Step 1 of _turn_from_final for the high roll h: block (a row per low partial assignment) holds at
    its rolls the value of every roll after roll 2 (its best keep, stopping included); maxes along the
    low dice."""
    inner, outer = ordered.inner, ordered.outer
    low_key = ordered.low_key
    n_inner = 7**inner.n
    _roll_keeps(h, ordered, kept, keeps)
    for o in range(7**outer.n):
        # the sub-block's rows filled and the maxes along inner die 0 (all its lines) in one go
        for k in range(inner.max_ptr[0], inner.max_ptr[1]):
            r0 = o * n_inner + inner.max_start[k]
            star = _row(keeps, low_key[r0 + 6])
            _set_row(block, r0 + 6, star)
            for c in range(6):
                _set_row(block, r0 + c, _max_rows(_row(keeps, low_key[r0 + c]), star))
        _passes(block, inner, 1, inner.n, o * n_inner, 1, ordered.zero, False)
    _transform(block, outer, 0, n_inner, inner.faces, False)


@njit(cache=True)
def _rolls_after_second(final, ordered, work):
    """Compact keeps (C, 8) of 8 columns, and by_high (= work[2]) holding the value of every roll after
    roll 2 (its best keep, stopping included) at row h * 6^low + low roll: step 1 of _turn_from_final
    for every high roll (final: the 8 columns' final-roll values by roll multiset; work: its work arrays)."""
    keeps, block, by_high = work[0], work[1], work[2]
    low = ordered.low
    n_low_faces = low.faces.shape[0]
    kept = _compact_keeps(final, ordered)
    for h in ordered.high.faces:
        _high_roll_block(h, ordered, kept, keeps, block)
        for lf in range(n_low_faces):
            _set_row(by_high, h * n_low_faces + lf, _row(block, low.faces[lf]))
    return kept


@njit(cache=True)
def _ordered_turn(masks, jokers_scored, upper_totals, rules, ordered, values, work, result):
    """result[j]: value at the start of a turn of (masks[j], upper_totals[j], flags[j]), dice told apart;
    8 columns (states of several items may share a call)."""
    _turn_from_final(_ev_final_rolls(masks, jokers_scored, upper_totals, rules, values), ordered, work, result)


@njit(inline="always")
def _faces_below(pa, d):
    """Whether the dice before die d show faces in the partial assignment pa (of a group)."""
    for _ in range(d):
        if pa % 7 == 6:
            return False
        pa //= 7
    return True


@njit(cache=True)
def _high_means_of_roll(h, ordered, block, by_high):
    """Step 2 of _turn_from_final, the part the high roll h feeds (its rows in block): for each high die d,
    the running sum of the mean along d whose line holds h (the dice after d show faces, and so do those
    before it), in by_high at the row of h with die d rerolled. The high rolls come in increasing order, so each sum
    adds its faces in the order of _mean_line: the same sums, bit for bit."""
    low, high = ordered.low, ordered.high
    n_low_faces = low.faces.shape[0]
    for d in range(high.n):
        digit = h // 7**d % 7
        target = (h + (6 - digit) * 7**d) * n_low_faces
        for lf in range(n_low_faces):
            t = _row(block, low.faces[lf])
            if digit > 0:
                t = _add_rows(_row(by_high, target + lf), t)
            _set_row(by_high, target + lf, t)


@njit(cache=True)
def _high_means_rest(ordered, by_high):
    """Step 4 of _turn_from_final: the running sums of _high_means_of_roll made means, then the means along the
    high dice whose lines hold a rerolled die before (fed by means, not by rolls), in _transform's order."""
    high = ordered.high
    n_low_faces = ordered.low.faces.shape[0]
    for d in range(high.n):
        for k in range(high.mean_ptr[d], high.mean_ptr[d + 1]):
            r0 = high.mean_start[k] * n_low_faces
            step = n_low_faces * 7**d
            if _faces_below(high.mean_start[k], d):
                for r in range(r0 + 6 * step, r0 + 6 * step + n_low_faces):
                    for j in range(8):
                        by_high[r, j] = by_high[r, j] * (1.0 / 6.0)
            else:
                for i in range(n_low_faces):
                    _mean_line(by_high, r0 + i, step)


@njit(cache=True)
def _low_keeps_to_rolls(h, ordered, block, by_high, d0):
    """Step 3 of _turn_from_final for the high partial assignment h, its rolls' rows in block (all other
    rows are written before they are read), the means along inner dice before d0 done: the low dice's means (keeps after
    roll 1), then maxes, written to by_high's rows of h: the value of every roll after roll 1."""
    inner, outer = ordered.inner, ordered.outer
    n_inner = 7**inner.n
    for o in outer.faces:
        _passes(block, inner, d0, inner.n, o * n_inner, 1, ordered.zero, True)
    everything = ordered.row_offsets[:n_inner]
    if outer.n > 0:
        last = outer.n - 1
        _passes(block, outer, 0, last, 0, n_inner, everything, True)
        # the last outer die: its means and its maxes (maxes commute) line by line, in one go
        step = n_inner * 7**last
        for k in range(outer.mean_ptr[last], outer.mean_ptr[last + 1]):
            r0 = outer.mean_start[k] * n_inner
            for i in everything:
                _mean_line(block, r0 + i, step)
                _max_line(block, r0 + i, step)
        _passes(block, outer, 0, last, 0, n_inner, everything, False)
    rows = h * ordered.low.faces.shape[0]
    for o in outer.faces:
        _maxes_out(block, inner, o * n_inner, 1, ordered.zero, ordered.low_face_row, by_high, rows)


@njit(cache=True)
def _rolls_in(h, ordered, by_high, block):
    """by_high's rows of h copied into block at its rolls, and the means along inner die 0 (lines of rolls)
    taken on the way, as _mean_line takes them."""
    inner, face_row = ordered.inner, ordered.low_face_row
    rows = h * ordered.low.faces.shape[0]
    n_inner = 7**inner.n
    for o in ordered.outer.faces:
        for k in range(inner.mean_ptr[0], inner.mean_ptr[1]):
            r0 = o * n_inner + inner.mean_start[k]
            acc = _row(by_high, rows + face_row[r0])
            _set_row(block, r0, acc)
            for c in range(1, 6):
                t = _row(by_high, rows + face_row[r0 + c])
                _set_row(block, r0 + c, t)
                acc = _add_rows(acc, t)
            for j in range(8):
                block[r0 + 6, j] = acc[j] * (1.0 / 6.0)


@njit(cache=True)
def _turn_from_final(final, ordered, work, result):
    """result[j]: the value at the start of a turn of column j, from final[r, j], the value of ending the
    turn with roll r (any value that is a max over entries: expected points, or a target's probability).

    The dice split into low dice (0..4), handled block by block in cache, and high dice (5, 6).
    by_high holds one row per (high partial assignment, low roll).
      1. Per high roll, in increasing order: the best keep after roll 2 of each low key, over the ways of
         keeping the high dice; a block of every low partial assignment, maxes along the low dice: the
         value of every roll after roll 2.
      2. Its rows added to the running sums of the means along the high dice (_high_means_of_roll).
      3. In the same block: means along the low dice (keeps after roll 1), then maxes: the value of
         every roll after roll 1, into by_high.
      4. The means along the high dice finished; the same as 3. for each high partial assignment with a
         die rerolled, its block copied in from by_high.
      5. Tiles: maxes along the high dice (every roll after roll 1), summed.
    Inside a block the inner dice (0..2) are transformed sub-block by sub-block (in L1), the outer
    dice (3, 4) along lines across the block. Means commute with means and maxes with maxes, which
    allows this order; every mean adds the same numbers in the same order as a plain pass along its
    die, and maxes are exact in any order: the values do not depend on the order of the work.
    """
    keeps, block, by_high = work[0], work[1], work[2]
    low, high = ordered.low, ordered.high
    n_low_faces = low.faces.shape[0]
    kept = _compact_keeps(final, ordered)
    for h in high.faces:
        _high_roll_block(h, ordered, kept, keeps, block)  # 1.
        _high_means_of_roll(h, ordered, block, by_high)  # 2.
        _low_keeps_to_rolls(h, ordered, block, by_high, np.int64(0))  # 3.
    _high_means_rest(ordered, by_high)  # 4.
    for h in range(7**high.n):
        if not _faces_below(h, high.n):
            _rolls_in(h, ordered, by_high, block)
            _low_keeps_to_rolls(h, ordered, block, by_high, np.int64(1))
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
