"""The dynamic program: the Numba kernels and the plain-Python driver around them.

A state at the start of a turn is (mask of filled boxes, upper total capped at
the highest bonus threshold, flag: the joker box holds points). Its value is
the expected number of points still to come under optimal play.

All upper totals of one (mask, flag) are solved together: every array of the
turn ("widget") has the upper totals as its last, contiguous axis, so the
keep-lattice passes are plain vector loops. Only the upper totals that matter
are solved: those the filled upper boxes can reach, and of the totals whose
future bonuses are the same for every upper sum still to come only one
representative (see upper_states).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from .dice import keep_lattice, multisets
from .scoring import possible_points, score_tables
from .variants import (
    JOKER_BOX_MAX, JOKER_FIXED, JOKER_FORCED, JOKER_FREE, JOKER_NONE, SCRATCH_RESTRICTED, RuleError, Variant)

JOKER_CODES = {JOKER_NONE: 0, JOKER_BOX_MAX: 1, JOKER_FORCED: 2, JOKER_FREE: 3, JOKER_FIXED: 4}


class Rules(NamedTuple):
    """A variant's rules as the arrays the kernels read."""
    score: np.ndarray        # (R, B) int32 normal scores
    joker_score: np.ndarray  # (R, B) int32 scores of a joker roll when the joker applies
    joker_roll: np.ndarray   # (R,) bool
    joker_upper: np.ndarray  # (R,) int32 upper box of the joker roll's face or -1
    is_upper: np.ndarray     # (B,) bool
    bonus_cum: np.ndarray    # (cap + 1,) float64: bonus points earned at each upper total
    params: np.ndarray       # int64: see P_* below
    # A "move" is what an entry does to the state: fill box b, add inc to the
    # upper total, set the flag (-1: keep it). Entries with equal moves share
    # one next-state vector per turn.
    move_box: np.ndarray     # (M,) int64
    move_inc: np.ndarray     # (M,) int64
    move_flag: np.ndarray    # (M,) int64
    norm_move: np.ndarray    # (R, B) int64: move of the normal score
    joker_move: np.ndarray   # (R, B) int64: move of the joker score
    zero_move: np.ndarray    # (B,) int64: move of a scratch


PAD = 8  # columns per item are padded to a multiple of this (whole AVX vectors, see _solve_layer)
P_JOKER, P_JOKER_BOX, P_RESTRICTED, P_EXTRA, P_CAP, P_MIN_KEEP, P_FLAGS = range(7)


def rules_bonus(variant: Variant) -> np.ndarray:
    """Bonus points earned at each upper total (capped at the highest threshold)."""
    bonus_cum = np.zeros(variant.upper_cap + 1)
    for b in variant.bonuses:
        bonus_cum[b.threshold:] += b.points
    return bonus_cum


def rules_arrays(variant: Variant, roll_faces) -> Rules:
    t = score_tables(variant, roll_faces)
    cap = variant.upper_cap
    bonus_cum = rules_bonus(variant)
    params = np.array([
        JOKER_CODES[variant.joker], variant.joker_index, variant.scratch == SCRATCH_RESTRICTED,
        variant.extra_points, cap, variant.min_keep_last_reroll, 2 if variant.has_flag else 1,
    ], dtype=np.int64)
    is_upper = np.array([b.is_upper for b in variant.boxes])
    joker_index, has_flag = variant.joker_index, variant.has_flag
    moves: dict[tuple[int, int, int], int] = {}

    def move(b: int, points: int) -> int:
        inc = min(points, cap) if is_upper[b] else 0
        flag = -1
        if b == joker_index:
            flag = int(points > 0 and has_flag)
        return moves.setdefault((b, inc, flag), len(moves))

    n_rolls, n_boxes = t.score.shape
    norm_move = np.array([[move(b, t.score[r, b]) for b in range(n_boxes)] for r in range(n_rolls)])
    joker_move = np.array([[move(b, t.joker_score[r, b]) for b in range(n_boxes)] for r in range(n_rolls)])
    zero_move = np.array([move(b, 0) for b in range(n_boxes)])
    box, inc, flag = (np.array(col, dtype=np.int64) for col in zip(*moves))
    return Rules(t.score, t.joker_score, t.joker_roll, t.joker_upper, is_upper, bonus_cum, params,
                 box, inc, flag, norm_move.astype(np.int64), joker_move.astype(np.int64),
                 zero_move.astype(np.int64))


# ---------------------------------------------------------------------------
# Kernels


@njit(cache=True)
def _free_boxes(mask, n_boxes):
    """Indices of the boxes not in mask."""
    free = np.empty(n_boxes, dtype=np.int64)
    n = 0
    for b in range(n_boxes):
        if (mask >> b) & 1 == 0:
            free[n] = b
            n += 1
    return free[:n]


@njit(cache=True)
def _box_options(mask, flag, rules, opt_move, opt_score, n_opts):
    """For every final roll r: the entries it may make in state (mask, flag).

    Fills opt_move[r, :n_opts[r]] and opt_score[r, :n_opts[r]] (the move and
    the points of each entry); n_opts[r] = -1 stands for the common case, every
    free box with its normal score (see roll_entries). This is the one place
    where the scratching and joker rules act. (All rolls in one call: a call
    per roll costs more than its work.)
    """
    score, joker_score, joker_roll, joker_upper, is_upper = rules[:5]
    params, norm_move, joker_move, zero_move = rules.params, rules.norm_move, rules.joker_move, rules.zero_move
    n_rolls, n_boxes = score.shape
    mode = params[P_JOKER]
    jb = params[P_JOKER_BOX]
    restricted = params[P_RESTRICTED] != 0
    jb_filled = jb >= 0 and (mask >> jb) & 1 == 1
    free = _free_boxes(mask, n_boxes)
    n_free = free.shape[0]
    for r in range(n_rolls):
        joker = False
        if mode != 0 and joker_roll[r]:
            if mode == 1 or mode == 4:  # box maximum / fixed score: while the joker box holds points
                joker = flag == 1
            elif mode == 2:  # forced: whenever the joker box is filled
                joker = jb_filled
            else:  # free choice: joker box filled and the matching upper box filled (or absent)
                u = joker_upper[r]
                joker = jb_filled and (u < 0 or (mask >> u) & 1 == 1)
        n = 0
        if joker and mode == 2:
            u = joker_upper[r]
            if u >= 0 and (mask >> u) & 1 == 0:  # the matching upper box must be used
                opt_move[r, 0] = norm_move[r, u]
                opt_score[r, 0] = score[r, u]
                n = 1
            else:
                for b in free[:n_free]:  # else any free lower box
                    if not is_upper[b]:
                        opt_move[r, n] = joker_move[r, b]
                        opt_score[r, n] = joker_score[r, b]
                        n += 1
                if n == 0:
                    for b in free[:n_free]:  # else scratch an upper box
                        opt_move[r, n] = zero_move[b]
                        opt_score[r, n] = 0
                        n += 1
            n_opts[r] = n
            continue
        if not joker and not restricted:
            n_opts[r] = -1  # the common case, left implicit: every free box, normal score
            continue
        any_fit = False
        for b in free[:n_free]:
            if joker:
                opt_move[r, n] = joker_move[r, b]
                opt_score[r, n] = joker_score[r, b]
            else:
                opt_move[r, n] = norm_move[r, b]
                opt_score[r, n] = score[r, b]
            any_fit = any_fit or opt_score[r, n] > 0
            n += 1
        if restricted and any_fit:
            kept = 0
            for i in range(n):  # a box may only be scratched when nothing fits
                if opt_score[r, i] > 0:
                    opt_move[r, kept] = opt_move[r, i]
                    opt_score[r, kept] = opt_score[r, i]
                    kept += 1
            n = kept
        n_opts[r] = n


def roll_entries(rules: Rules, mask: int, flag: int, r: int) -> list[tuple[int, int]]:
    """(box, points) of every entry final roll r may make in state (mask, flag)."""
    n_rolls, n_boxes = rules.score.shape
    moves = np.empty((n_rolls, n_boxes), dtype=np.int64)
    points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_opts = np.empty(n_rolls, dtype=np.int64)
    _box_options(mask, flag, rules, moves, points, n_opts)
    if n_opts[r] < 0:
        return [(b, int(rules.score[r, b])) for b in range(n_boxes) if not mask >> b & 1]
    return [(int(rules.move_box[moves[r, i]]), int(points[r, i])) for i in range(n_opts[r])]


@njit(cache=True)
def _final_roll_values(mask, flag, ups, rules, values, out, first):
    """out[first + r, j]: best value of ending the turn with roll r at upper total ups[j].

    Value = box score + extra points + bonus crossed + value of the next state.
    The next-state vectors depend only on the move, so they are built once per
    turn and shared by all rolls.
    """
    n_rolls, n_boxes = rules.score.shape
    params, bonus_cum = rules.params, rules.bonus_cum
    cap = params[P_CAP]
    nj = ups.shape[0]
    opt_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
    opt_score = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_opts = np.empty(n_rolls, dtype=np.int64)
    _box_options(mask, flag, rules, opt_move, opt_score, n_opts)
    n_moves = rules.move_box.shape[0]
    vecs = np.empty((n_moves, nj))
    for m in range(n_moves):
        b = rules.move_box[m]
        if (mask >> b) & 1 == 0:
            nmask = mask | (1 << b)
            inc = rules.move_inc[m]
            nflag = flag if rules.move_flag[m] < 0 else rules.move_flag[m]
            for j in range(nj):
                nu = min(ups[j] + inc, cap)
                vecs[m, j] = bonus_cum[nu] - bonus_cum[ups[j]] + values[nmask, nu, nflag]
    free = _free_boxes(mask, n_boxes)
    n_free = free.shape[0]
    extra = float(params[P_EXTRA])
    for r in range(n_rolls):
        row = first + r
        for j in range(nj):
            out[row, j] = -np.inf
        implicit = n_opts[r] < 0
        for i in range(n_free if implicit else n_opts[r]):
            if implicit:
                k = rules.norm_move[r, free[i]]
                s = float(rules.score[r, free[i]])
            else:
                k = opt_move[r, i]
                s = float(opt_score[r, i])
            for j in range(nj):
                out[row, j] = max(out[row, j], s + vecs[k, j])
        if flag == 1 and rules.joker_roll[r]:
            for j in range(nj):
                out[row, j] += extra


@njit(cache=True)
def _keep_means(w, add, size_start):
    """Expected value of every keep smaller than a roll, in place on w (K, nj).

    On entry w's roll rows hold the value of each roll; the keeps are filled
    from large to small, each the mean over one more die. Plain 2-D indexing
    in simple loops over the last axis: LLVM vectorises these; array views per
    keep cost more than the work.
    """
    n_faces = add.shape[1]
    n = size_start.shape[0] - 2
    nj = w.shape[1]
    inv = 1.0 / n_faces
    for k in range(size_start[n] - 1, -1, -1):
        a, b, c = add[k, 0], add[k, 1], add[k, 2]  # three faces per pass: fewer loads and stores of row k
        for j in range(nj):
            w[k, j] = w[a, j] + w[b, j] + w[c, j]
        for f in range(3, n_faces - 2, 3):
            a, b, c = add[k, f], add[k, f + 1], add[k, f + 2]
            for j in range(nj):
                w[k, j] += w[a, j] + w[b, j] + w[c, j]
        for f in range(n_faces - n_faces % 3, n_faces):
            a = add[k, f]
            for j in range(nj):
                w[k, j] += w[a, j]
        for j in range(nj):
            w[k, j] *= inv


@njit(cache=True)
def _best_sub_keeps(w, sub, size_start, min_keep):
    """Each keep's row becomes the best over the keeps inside it of at least min_keep dice.

    A max over the lattice, one die removed at a time; on exit the roll rows
    hold the value of each roll one roll earlier.
    """
    n = size_start.shape[0] - 2
    nj = w.shape[1]
    for k in range(size_start[min_keep + 1], size_start[n + 1]):
        for f in range(sub.shape[1]):
            s = sub[k, f]
            if s >= 0:
                for j in range(nj):
                    w[k, j] = max(w[k, j], w[s, j])


@njit(cache=True)
def _start_of_turn(w, rules, lattice, result):
    """From the final-roll values in w's roll rows to result[j], the value at the turn's start."""
    _, size_start, add, sub, roll_prob = lattice
    first_roll = size_start[size_start.shape[0] - 2]
    _keep_means(w, add, size_start)  # keeps after the second roll
    _best_sub_keeps(w, sub, size_start, rules.params[P_MIN_KEEP])
    _keep_means(w, add, size_start)  # keeps after the first roll
    _best_sub_keeps(w, sub, size_start, 0)
    for j in range(w.shape[1]):
        result[j] = 0.0
    for r in range(roll_prob.shape[0]):
        for j in range(w.shape[1]):
            result[j] += roll_prob[r] * w[first_roll + r, j]


@njit(cache=True, parallel=True)
def _solve_layer(masks, flags, ups_ptr, ups_list, upper_row, rules, lattice, values):
    """Solve every (mask, flag) work item of one layer; items write disjoint slots."""
    n_keeps = lattice.add.shape[0]
    first_roll = lattice.size_start[lattice.size_start.shape[0] - 2]
    for i in prange(masks.shape[0]):
        mask = masks[i]
        flag = flags[i]
        u = upper_row[mask, flag]
        n_ups = ups_ptr[u + 1] - ups_ptr[u]
        # pad to whole vector blocks: LLVM's scalar loop tails cost more than the padding
        ups = np.empty((n_ups + PAD - 1) // PAD * PAD, dtype=np.int64)
        ups[:n_ups] = ups_list[ups_ptr[u]:ups_ptr[u + 1]]
        ups[n_ups:] = ups[n_ups - 1]
        w = np.empty((n_keeps, ups.shape[0]))
        result = np.empty(ups.shape[0])
        _final_roll_values(mask, flag, ups, rules, values, w, first_roll)
        _start_of_turn(w, rules, lattice, result)
        for j in range(n_ups):
            values[mask, ups[j], flag] = result[j]


@njit(cache=True)
def _fill_equivalent(masks, flags, upper_row, canon, values):
    """Copy each solved representative to every upper total that shares its future."""
    for i in range(masks.shape[0]):
        mask, flag = masks[i], flags[i]
        c = canon[upper_row[mask, flag]]
        for u in range(c.shape[0]):
            if c[u] >= 0:
                values[mask, u, flag] = values[mask, c[u], flag]


# ---------------------------------------------------------------------------
# Distinguishable dice (Kniffel 7): transforms along one die axis at a time
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
LOW_DICE = 5     # dice transformed inside one block of 7^5 rows x 8 columns (1 MB: fits the L2 cache)
INNER_DICE = 3   # of these, dice transformed inside sub-blocks of 7^3 rows (22 KB: fits the L1 cache)
TILE = 16        # face rows of the low dice per tile when transforming the high dice


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
    return (t[0] + u[0], t[1] + u[1], t[2] + u[2], t[3] + u[3], t[4] + u[4], t[5] + u[5], t[6] + u[6],
            t[7] + u[7])


@njit(inline="always")
def _max_line(a, r, step):
    """Rows r + c*step (the die's faces, c < 6) become the max with row r + 6*step (the die rerolled)."""
    star = _row(a, r + 6 * step)
    for c in range(6):
        rc = r + c * step
        for j in range(8):
            a[rc, j] = max(a[rc, j], star[j])


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
        step = stride * 7 ** d
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
def _ordered_turn(masks, flags, ups, rules, ordered, values, work, result):
    """result[j]: value at the start of a turn of (masks[j], ups[j], flags[j]), dice told apart;
    8 columns (states of several items may share a call).

    The dice split into low dice (0..4), handled block by block in cache, and high dice (5, 6),
    handled tile by tile across blocks. x holds one row per (high partial assignment, low roll).
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
    hk, block, x = work
    low, inner, outer, high = ordered.low, ordered.inner, ordered.outer, ordered.high
    n_keys = ordered.n_low_keys
    n_low_faces = low.faces.shape[0]
    n_inner = 7 ** inner.n
    everything = ordered.iota[:n_inner]
    final = np.empty((rules.score.shape[0], 8))
    j0 = 0
    while j0 < 8:  # one item's columns at a time
        j1 = j0 + 1
        while j1 < 8 and masks[j1] == masks[j0] and flags[j1] == flags[j0]:
            j1 += 1
        _final_roll_values(masks[j0], flags[j0], ups[j0:j1], rules, values, final[:, j0:j1], 0)
        j0 = j1
    kept = _compact_keeps(final, ordered)
    for i in range(hk.shape[0]):  # 1.
        _set_row(hk, i, _row(kept, ordered.high_low_keep[i]))
    _transform(hk, high, 0, n_keys, ordered.iota[:n_keys], False)
    for h in high.faces:  # 2.
        for o in range(7 ** outer.n):
            for i in range(o * n_inner, (o + 1) * n_inner):
                _set_row(block, i, _row(hk, h * n_keys + ordered.low_key[i]))
            _transform(block, inner, o * n_inner, 1, ordered.zero, False)
        _transform(block, outer, 0, n_inner, inner.faces, False)
        for lf in range(n_low_faces):
            _set_row(x, h * n_low_faces + lf, _row(block, low.faces[lf]))
    for c0 in range(0, n_low_faces, TILE):  # 3.
        _transform(x, high, 0, n_low_faces, ordered.iota[c0:min(c0 + TILE, n_low_faces)], True)
    for h in range(7 ** high.n):  # 4.
        row = h * n_low_faces
        for o in outer.faces:
            for i in inner.faces:
                _set_row(block, o * n_inner + i, _row(x, row))
                row += 1
            _transform(block, inner, o * n_inner, 1, ordered.zero, True)
        _transform(block, outer, 0, n_inner, everything, True)
        _transform(block, outer, 0, n_inner, everything, False)
        row = h * n_low_faces
        for o in outer.faces:
            _transform(block, inner, o * n_inner, 1, ordered.zero, False)
            for i in inner.faces:
                _set_row(x, row, _row(block, o * n_inner + i))
                row += 1
    total = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for c0 in range(0, n_low_faces, TILE):  # 5.
        c1 = min(c0 + TILE, n_low_faces)
        _transform(x, high, 0, n_low_faces, ordered.iota[c0:c1], False)
        for h in high.faces:
            for lf in range(h * n_low_faces + c0, h * n_low_faces + c1):
                total = _add_rows(total, _row(x, lf))
    n_rolls = float(n_low_faces * high.faces.shape[0])
    for j in range(8):
        result[j] = total[j] / n_rolls


def ordered_work(ordered) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The work arrays of one _ordered_turn thread (34 MB for seven dice), allocated once per solve."""
    low, high = ordered.low, ordered.high
    rows = (7 ** high.n * ordered.n_low_keys, 7 ** low.n, 7 ** high.n * low.faces.shape[0])
    return tuple(np.empty((r, ORDERED_COLUMNS)) for r in rows)


def ordered_turn(engine: Engine, mask: int, flag: int, ups, values: np.ndarray) -> np.ndarray:
    """Start-of-turn values of (mask, u, flag) for each upper total u in ups, dice told apart."""
    work = ordered_work(engine.ordered)
    out = []
    for call_mask, call_flag, call_up, n_real in zip(*_ordered_calls([mask], [flag], lambda m, f: ups)):
        result = np.empty(ORDERED_COLUMNS)
        _ordered_turn(call_mask, call_flag, call_up, engine.rules, engine.ordered, values, work, result)
        out.append(result[:n_real])
    return np.concatenate(out)


@njit(cache=True)
def _ordered_keep_values(mask, flag, up, rules, ordered, values, after_second, after_first):
    """The advisor's view of one turn: the value of every partial assignment kept after roll 2 and
    after roll 1 (one value each, plain passes over all 7^n); returns the final-roll values."""
    ups = np.full(8, up)
    final = np.empty((rules.score.shape[0], 8))
    _final_roll_values(mask, flag, ups, rules, values, final, 0)
    kept = _compact_keeps(final, ordered)
    n_low = 7 ** ordered.low.n
    for pa in range(after_second.shape[0]):
        h, low = divmod(pa, n_low)
        after_second[pa] = kept[ordered.high_low_keep[h * ordered.n_low_keys + ordered.low_key[low]], 0]
        after_first[pa] = after_second[pa]
    n_dice = ordered.low.n + ordered.high.n
    for mean in (False, True):  # best keep inside each roll after roll 2, then keeps after roll 1
        for d in range(n_dice):
            step = 7 ** d
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
                            after_first[r + c * step] = max(after_first[r + c * step], after_first[star])
    return final[:, 0]


@njit(cache=True, nogil=True)
def _solve_calls_ordered(call_mask, call_flag, call_up, n_real, rules, ordered, values, work, first, step):
    """Calls first, first + step, ... of a layer, on one thread with its own work arrays. Call c solves
    the states (call_mask[c, j], call_up[c, j], call_flag[c, j]); the first n_real[c] are real, the
    rest pad the call (repeats)."""
    result = np.empty(ORDERED_COLUMNS)
    for c in range(first, call_mask.shape[0], step):
        _ordered_turn(call_mask[c], call_flag[c], call_up[c], rules, ordered, values, work, result)
        for j in range(n_real[c]):
            values[call_mask[c, j], call_up[c, j], call_flag[c, j]] = result[j]


def _ordered_calls(masks, flags, ups_of):
    """The states of a layer (each item's upper totals from ups_of(mask, flag)) packed into calls
    of ORDERED_COLUMNS states each, across items; the last call padded with repeats."""
    ups = [np.asarray(ups_of(m, f), dtype=np.int64) for m, f in zip(masks, flags)]
    counts = np.array([len(u) for u in ups])
    states = np.stack([np.repeat(masks, counts), np.repeat(flags, counts), np.concatenate(ups)])
    n_states = states.shape[1]
    n_calls = -(-n_states // ORDERED_COLUMNS)
    states = np.concatenate([states, np.repeat(states[:, -1:], n_calls * ORDERED_COLUMNS - n_states, axis=1)],
                            axis=1).reshape(3, n_calls, ORDERED_COLUMNS)
    n_real = np.full(n_calls, ORDERED_COLUMNS, dtype=np.int64)
    n_real[-1] = n_states - (n_calls - 1) * ORDERED_COLUMNS
    return states[0], states[1], states[2], n_real


def _solve_layer_ordered(masks, flags, up: UpperStates, rules, ordered, values, work) -> None:
    """One layer on len(work) threads (Python threads: the kernel releases the GIL; Numba's prange
    cannot pass the nested index tables). The calls cost the same: dealt round robin."""
    calls = _ordered_calls(masks, flags, up.totals)

    def run(t):
        _solve_calls_ordered(*calls, rules, ordered, values, work[t], t, len(work))
    with ThreadPoolExecutor(len(work)) as pool:
        list(pool.map(run, range(len(work))))


# ---------------------------------------------------------------------------
# Driver


class UpperStates(NamedTuple):
    """Which upper totals each (mask, flag) can have, and which of them share one future.

    A row is a pattern of filled upper boxes and whether joker points can lie in them and can still
    come (Kniffel 7's Super-Points: 60 in any box, only while the Super-Kniffel box holds 60).
    Totals u and u' share one future when every upper sum the free boxes can still add pays the
    same further bonus from both; only one of them (the smallest reachable) is solved.
    """
    row: np.ndarray       # (2^B, flags) int64: the row of each (mask, flag)
    canon: np.ndarray     # (rows, cap + 1) int64: the total solved for each reachable total, else -1
    reachable: np.ndarray  # (rows, cap + 1) bool
    ups_ptr: np.ndarray   # CSR over rows of the totals to solve
    ups_list: np.ndarray

    def totals(self, mask: int, flag: int) -> np.ndarray:
        """The upper totals solved for (mask, flag)."""
        row = self.row[mask, flag]
        return self.ups_list[self.ups_ptr[row]:self.ups_ptr[row + 1]]


def upper_states(variant: Variant) -> UpperStates:
    """Reachable upper totals of every row, and the representative of each one."""
    cap = variant.upper_cap
    upper = [i for i, b in enumerate(variant.boxes) if b.is_upper]
    bonus_cum = rules_bonus(variant)
    n_rows = 4 << len(upper)
    reachable = np.zeros((n_rows, cap + 1), dtype=bool)
    canon = np.full((n_rows, cap + 1), -1, dtype=np.int64)
    ptr, lst = [0], []
    n_pat = 1 << len(upper)
    sums = {}  # (jokers, pattern) -> the capped sums the pattern's boxes can hold
    for jokers in (False, True):
        points = [possible_points(variant, i, jokers) for i in upper]
        sums[jokers, 0] = np.zeros(1, dtype=np.int64)
        for pat in range(1, n_pat):
            bit = (pat & -pat).bit_length() - 1
            rest = sums[jokers, pat & (pat - 1)]
            sums[jokers, pat] = np.unique(np.minimum(rest[:, None] + np.array(points[bit])[None, :], cap))
    known: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # rows often repeat (jokers that add no upper points)
    for row in range(n_rows):
        pat, jokers_in, jokers_to_come = row >> 2, bool(row >> 1 & 1), bool(row & 1)
        us, more = sums[jokers_in, pat], sums[jokers_to_come, (n_pat - 1) ^ pat]
        key = (us.tobytes(), more.tobytes())
        if key not in known:
            future = bonus_cum[np.minimum(us[:, None] + more[None, :], cap)] - bonus_cum[us][:, None]
            _, first, group = np.unique(future, axis=0, return_index=True, return_inverse=True)
            known[key] = (us[first[group.ravel()]], np.unique(us[first]))
        reachable[row, us] = True
        canon[row, us], solve = known[key]
        lst.extend(solve.tolist())
        ptr.append(len(lst))
    masks = np.arange(1 << len(variant.boxes))
    pattern = np.zeros_like(masks)
    for bit, i in enumerate(upper):
        pattern |= ((masks >> i) & 1) << bit
    flags = np.arange(2 if variant.has_flag else 1)
    jokers_in, jokers_to_come = joker_classes(variant, masks[:, None], flags[None, :])
    rows = pattern[:, None] * 4 + jokers_in * 2 + jokers_to_come
    return UpperStates(rows.astype(np.int64), canon, reachable, np.array(ptr, dtype=np.int64),
                       np.array(lst, dtype=np.int64))


def joker_classes(variant: Variant, mask, flag):
    """Whether joker points can lie in the filled boxes of (mask, flag), and whether they can still come.

    Only where a joker needs the joker box to hold points (box maximum, fixed score) does the flag
    tell; otherwise both are taken as possible."""
    mask, flag = np.asarray(mask), np.asarray(flag)
    if variant.joker in (JOKER_BOX_MAX, JOKER_FIXED):
        jb_free = (mask >> variant.joker_index) & 1 == 0
        return (flag == 1).astype(np.int64), ((flag == 1) | jb_free).astype(np.int64)
    everywhere = np.ones(np.broadcast(mask, flag).shape, dtype=np.int64)
    return everywhere, everywhere


def layer_items(variant: Variant, n_filled: int):
    """(masks, flags) of the work items whose cards have n_filled boxes."""
    n_boxes = len(variant.boxes)
    masks = np.arange(1 << n_boxes, dtype=np.int64)
    popcount = np.zeros_like(masks)
    for b in range(n_boxes):
        popcount += (masks >> b) & 1
    layer = masks[popcount == n_filled]
    flags = np.zeros_like(layer)
    if variant.has_flag:
        with_box = layer[(layer >> variant.joker_index) & 1 == 1]
        layer = np.concatenate([layer, with_box])
        flags = np.concatenate([flags, np.ones_like(with_box)])
    return layer, flags


class DieGroup(NamedTuple):
    """Index tables of the transforms along a group of n dice (partial assignments of the group as
    base-7 numbers): where each pass's lines start (CSR per die), and where the rolls lie."""
    n: int
    max_ptr: np.ndarray     # (n + 1,) max passes: lines where the dice before the die show faces
    max_start: np.ndarray
    mean_ptr: np.ndarray    # (n + 1,) mean passes: lines where the dice after the die show faces
    mean_start: np.ndarray
    faces: np.ndarray       # (6^n,) the partial assignments that are rolls, in base-6 order


def die_group(n: int) -> DieGroup:
    pa = np.arange(7 ** n)
    digits = (pa[:, None] // 7 ** np.arange(n)) % 7
    faces = digits < 6
    tables = []
    for before in (True, False):
        ptr, start = [0], []
        for d in range(n):
            others = faces[:, :d] if before else faces[:, d + 1:]
            start.extend(pa[(digits[:, d] == 0) & others.all(axis=1)].tolist())
            ptr.append(len(start))
        tables += [np.array(ptr, dtype=np.int64), np.array(start, dtype=np.int64)]
    return DieGroup(n, *tables, pa[faces.all(axis=1)])


class OrderedDice(NamedTuple):
    """Distinguishable dice: the index tables of _ordered_turn.

    After roll 2 a keep's value depends only on (multiset kept, dice rerolled): those "compact keeps"
    (28,760 for seven dice instead of 823,543 partial assignments) get their values first. A low
    partial assignment's "low key" is its own (multiset kept, dice rerolled).
    """
    low: DieGroup            # the low dice (0..LOW_DICE-1) ...
    inner: DieGroup          # ... split into inner dice (L1 sub-blocks)
    outer: DieGroup          # ... and outer dice
    high: DieGroup           # the other dice
    low_key: np.ndarray      # (7^low,) low key of each low partial assignment
    n_low_keys: int
    high_low_keep: np.ndarray  # (7^high * n_low_keys,) compact keep of (high partial assignment, low key)
    order: np.ndarray        # (C,) compact keeps by number of dice rerolled, none first
    child: np.ndarray        # (C, 6): the compact keep with its lowest rerolled die showing face code c
    base_ms: np.ndarray      # (C,): for keeps of all dice, the multiset row of the roll tables, else -1
    iota: np.ndarray         # 0, 1, 2, ...: row offsets
    zero: np.ndarray         # [0]


class Engine(NamedTuple):
    """Everything the kernels need for one variant."""
    variant: Variant
    rules: Rules
    lattice: object               # KeepLattice for identical dice, None for distinguishable dice
    upper: UpperStates
    ordered: OrderedDice | None   # distinguishable dice only


MAX_ORDERED_DICE = 5  # beyond this a solve takes long (seven dice: about half an hour): only an explicit `solve`


def make_engine(variant: Variant, allow_slow: bool = False, ordered: bool | None = None) -> Engine:
    """The kernels' view of a variant: multisets for identical dice, ordered dice otherwise
    (`ordered=True` forces the ordered kernel, which the tests cross-check on identical dice)."""
    faces = variant.faces
    if len(faces) < 3 or any(len(die) != 6 for die in variant.dice):
        raise ValueError(f"{variant.name}: the kernels need six-sided dice")
    rolls = [tuple(f for f, c in zip(faces, m) for _ in range(c)) for m in multisets(variant.n_dice, len(faces))]
    rules = rules_arrays(variant, rolls)
    if ordered is None:
        ordered = not variant.identical_dice
    if not ordered:
        return Engine(variant, rules, keep_lattice(variant.n_dice, len(faces)), upper_states(variant), None)
    if variant.min_keep_last_reroll:
        raise RuleError(f"{variant.name}: the keep-a-die house rule is only solved for identical dice")
    if variant.n_dice > MAX_ORDERED_DICE and not allow_slow:
        raise RuleError(f"{variant.name}: its table takes about half an hour to build; build it once with "
                        f"`kniffel solve {variant.name}` (resumable)")
    return Engine(variant, rules, None, upper_states(variant), ordered_dice(variant))


def ordered_dice(variant: Variant) -> OrderedDice:
    """Index tables of the ordered-dice kernel (numpy; the low and high dice apart, then combined)."""
    n, faces = variant.n_dice, variant.faces
    n_low = min(n, LOW_DICE)
    n_inner = min(n_low, INNER_DICE)
    radix = n + 1  # a multiset as a number: digit f = how many dice show face f
    code_face = np.array([[faces.index(f) for f in die] + [-1] for die in variant.dice])  # (n, 7)

    def keys(dice):  # (kept multiset number, rerolled bits) of every partial assignment of these dice
        pa = np.arange(7 ** len(dice))
        digits = (pa[:, None] // 7 ** np.arange(len(dice))) % 7
        face = code_face[np.array(dice, dtype=np.int64), digits]
        kept = np.where(face >= 0, radix ** np.maximum(face, 0), 0).sum(axis=1)
        return kept, ((digits == 6) << np.array(dice, dtype=np.int64)).sum(axis=1)

    low_kept, low_bits = keys(list(range(n_low)))
    high_kept, high_bits = keys(list(range(n_low, n)))
    low_keys, low_key = np.unique(low_kept * (1 << n) + low_bits, return_inverse=True)
    combined = ((high_kept[:, None] + low_keys[None, :] // (1 << n)) * (1 << n)
                + (high_bits[:, None] | low_keys[None, :] % (1 << n)))
    all_keys, high_low_keep = np.unique(combined.ravel(), return_inverse=True)
    r_bits, kept_of = all_keys % (1 << n), all_keys // (1 << n)
    lowest = np.zeros_like(r_bits)  # lowest rerolled die of each compact keep
    for d in range(n - 1, -1, -1):
        lowest = np.where(r_bits >> d & 1, d, lowest)
    child = np.searchsorted(all_keys, (kept_of[:, None] + radix ** code_face[lowest, :6]) * (1 << n)
                            + (r_bits ^ (1 << lowest))[:, None])
    child[r_bits == 0] = -1
    ms_number = {sum(c * radix ** f for f, c in enumerate(m)): i for i, m in enumerate(multisets(n, len(faces)))}
    base_ms = np.array([ms_number[int(k)] if r == 0 else -1 for k, r in zip(kept_of, r_bits)], dtype=np.int64)
    popcount = np.array([bin(int(r)).count("1") for r in r_bits])
    return OrderedDice(
        die_group(n_low), die_group(n_inner), die_group(n_low - n_inner), die_group(n - n_low),
        low_key.astype(np.int64), len(low_keys), high_low_keep.astype(np.int64),
        np.argsort(popcount, kind="stable"), child.astype(np.int64), base_ms,
        np.arange(max(7 ** n_low, len(low_keys)), dtype=np.int64), np.zeros(1, dtype=np.int64))


def table_shape(variant: Variant) -> tuple[int, int, int]:
    return (1 << len(variant.boxes), variant.upper_cap + 1, 2 if variant.has_flag else 1)


def solve(variant: Variant, progress=None, engine: Engine | None = None, resume=None,
          after_layer=None) -> tuple[np.ndarray, int]:
    """The full table of state values, and the number of states solved.

    `progress`, if given, is called after each layer with the layer's number of
    solved states. `resume` = (values, n_filled, solved) continues a solve whose
    layers above n_filled are done; `after_layer(values, n_filled, solved)` is
    called after each layer (checkpoints). Unreachable states hold NaN.
    """
    engine = engine or make_engine(variant)
    up = engine.upper
    counts = np.diff(up.ups_ptr)
    if resume is None:
        values = np.full(table_shape(variant), np.nan)
        values[(1 << len(variant.boxes)) - 1] = 0.0
        first_layer, solved = len(variant.boxes) - 1, 0
    else:
        values, first_layer, solved = resume
        if progress is not None:
            progress(solved)
    work = None if engine.ordered is None else [ordered_work(engine.ordered) for _ in range(numba.get_num_threads())]
    for n_filled in range(first_layer, -1, -1):
        masks, flags = layer_items(variant, n_filled)
        order = np.argsort(-counts[up.row[masks, flags]], kind="stable")  # big items first balances threads
        masks, flags = masks[order], flags[order]
        if engine.ordered is None:
            _solve_layer(masks, flags, up.ups_ptr, up.ups_list, up.row, engine.rules, engine.lattice, values)
        else:
            _solve_layer_ordered(masks, flags, up, engine.rules, engine.ordered, values, work)
        _fill_equivalent(masks, flags, up.row, up.canon, values)
        n_states = int(counts[up.row[masks, flags]].sum())
        solved += n_states
        if progress is not None:
            progress(n_states)
        if after_layer is not None:
            after_layer(values, n_filled - 1, solved)
    return values, solved


def count_states(variant: Variant) -> int:
    """How many states solve() will solve (the progress bar's total)."""
    up = upper_states(variant)
    counts = np.diff(up.ups_ptr)
    return int(sum(counts[up.row[layer_items(variant, n)]].sum() for n in range(len(variant.boxes))))


def set_threads(n: int | None) -> None:
    """Threads for the parallel kernels (at most the cores Numba found)."""
    if n:
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))


# ---------------------------------------------------------------------------
# Simulation of optimal play (identical dice)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True)
def _next_random(rng, g):
    """splitmix64: one stream per game, so results do not depend on threads or batching."""
    rng[g] += _GOLDEN
    z = rng[g]
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _reroll(rng, g, keep, n_dice, add, size_start):
    """Roll the dice not in `keep` (a keep index); the roll's keep index."""
    n_faces = np.uint64(add.shape[1])
    size = 0
    while size_start[size + 1] <= keep:
        size += 1
    for _ in range(n_dice - size):
        keep = add[keep, np.int64(_next_random(rng, g) % n_faces)]
    return keep


@njit(cache=True)
def _best_keep(r, values_row_of, col, stop_value, roll_subs, min_keep, size_start):
    """Best keep of roll r (a keep index, or r itself = stop) given keep values values_row_of[:, col]."""
    best, best_k = stop_value, r
    for i in range(roll_subs.shape[1]):
        k = roll_subs[r - size_start[size_start.shape[0] - 2], i]
        if k < 0:
            break
        if k >= size_start[min_keep] and values_row_of[k, col] > best:
            best, best_k = values_row_of[k, col], k
    return best_k


@njit(cache=True, parallel=True)
def _simulate_turn(task_group, task_lo, task_hi, group_mask, group_flag, group_col, col_up, games, game_col,
                   g_mask, g_upper, g_flag, g_boxes, g_extra, rng, roll_subs, rules, lattice, values):
    """Play one turn of every game optimally. A task is a slice of the games of one (mask, flag)
    group; each task solves its group's turn once for the group's distinct upper totals."""
    _, size_start, add, sub, _ = lattice
    n_dice = size_start.shape[0] - 2
    first_roll = size_start[n_dice]
    n_keeps = add.shape[0]
    n_rolls, n_boxes = rules.score.shape
    params, bonus_cum = rules.params, rules.bonus_cum
    cap = params[P_CAP]
    for t in prange(task_group.shape[0]):
        grp = task_group[t]
        mask, flag = group_mask[grp], group_flag[grp]
        ups = col_up[group_col[grp]:group_col[grp + 1]]
        nc = ups.shape[0]
        w = np.empty((n_keeps, nc))
        _final_roll_values(mask, flag, ups, rules, values, w, first_roll)
        final = w[first_roll:].copy()
        _keep_means(w, add, size_start)
        after_second = w.copy()
        _best_sub_keeps(w, sub, size_start, params[P_MIN_KEEP])
        _keep_means(w, add, size_start)  # w: keep values after the first roll
        opt_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
        opt_score = np.empty((n_rolls, n_boxes), dtype=np.int64)
        n_opts = np.empty(n_rolls, dtype=np.int64)
        _box_options(mask, flag, rules, opt_move, opt_score, n_opts)
        for i in range(task_lo[t], task_hi[t]):
            g = games[i]
            c = game_col[g]
            r = _reroll(rng, g, 0, n_dice, add, size_start)
            k = _best_keep(r, w, c, final[r - first_roll, c], roll_subs, 0, size_start)
            if k != r:
                r = _reroll(rng, g, k, n_dice, add, size_start)
                k = _best_keep(r, after_second, c, final[r - first_roll, c], roll_subs, params[P_MIN_KEEP],
                               size_start)
                if k != r:
                    r = _reroll(rng, g, k, n_dice, add, size_start)
            # the entry: best of the allowed boxes, valued with the table
            ri = r - first_roll
            up = min(g_upper[g], cap)
            best, best_b, best_s, best_f = -np.inf, -1, 0, 0
            implicit = n_opts[ri] < 0
            for o in range(n_boxes if implicit else n_opts[ri]):
                if implicit:
                    if (mask >> o) & 1:
                        continue
                    m, s = rules.norm_move[ri, o], rules.score[ri, o]
                else:
                    m, s = opt_move[ri, o], opt_score[ri, o]
                b = rules.move_box[m]
                nu = min(up + rules.move_inc[m], cap)
                nf = flag if rules.move_flag[m] < 0 else rules.move_flag[m]
                v = s + bonus_cum[nu] - bonus_cum[up] + values[mask | (1 << b), nu, nf]
                if v > best:
                    best, best_b, best_s, best_f = v, b, s, nf
            g_boxes[g, best_b] = best_s
            g_mask[g] = mask | (1 << best_b)
            if rules.is_upper[best_b]:
                g_upper[g] += best_s
            if flag == 1 and rules.joker_roll[ri]:
                g_extra[g] += 1
            g_flag[g] = best_f
