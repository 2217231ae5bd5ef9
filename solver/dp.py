"""The dynamic program: the Numba kernels and the plain-Python driver around them.

A state at the start of a turn is (mask of filled boxes, upper total capped at
the highest bonus threshold, flag: the joker box holds points). Its value is
the expected number of points still to come under optimal play.

All upper totals of one (mask, flag) are solved together: every array of the
turn ("widget") has the upper totals as its last, contiguous axis, so the
keep-lattice passes are plain vector loops. Only the upper totals that matter
are solved: those the filled upper boxes can reach, and of the totals that can
no longer reach the next bonus threshold only one representative, since they
all share one future.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from itertools import product

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


def rules_arrays(variant: Variant, roll_faces) -> Rules:
    t = score_tables(variant, roll_faces)
    cap = variant.upper_cap
    bonus_cum = np.zeros(cap + 1)
    for b in variant.bonuses:
        bonus_cum[b.threshold:] += b.points
    params = np.array([
        JOKER_CODES[variant.joker], variant.joker_index, variant.scratch == SCRATCH_RESTRICTED,
        variant.extra_points, cap, variant.min_keep_last_reroll, 2 if variant.has_flag else 1,
    ], dtype=np.int64)
    is_upper = np.array([b.is_upper for b in variant.boxes])
    moves: dict[tuple[int, int, int], int] = {}

    def move(b: int, points: int) -> int:
        inc = min(points, cap) if is_upper[b] else 0
        flag = -1
        if b == variant.joker_index:
            flag = int(points > 0 and variant.has_flag)
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
def _solve_layer(masks, flags, ups_ptr, ups_list, upper_id, rules, lattice, values):
    """Solve every (mask, flag) work item of one layer; items write disjoint slots."""
    n_keeps = lattice.add.shape[0]
    first_roll = lattice.size_start[lattice.size_start.shape[0] - 2]
    for i in prange(masks.shape[0]):
        mask = masks[i]
        flag = flags[i]
        u = upper_id[mask]
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
def _fill_equivalent(masks, flags, upper_id, canon, values):
    """Copy each solved representative to every upper total that shares its future."""
    for i in range(masks.shape[0]):
        mask, flag = masks[i], flags[i]
        c = canon[upper_id[mask]]
        for u in range(c.shape[0]):
            if c[u] >= 0:
                values[mask, u, flag] = values[mask, c[u], flag]


# ---------------------------------------------------------------------------
# Distinguishable dice (Kniffel 7): transforms along one die axis at a time


ORDERED_COLUMNS = 8  # upper totals per ordered-dice call: 7^7 x 8 doubles = 53 MB per thread
LOW_AXES = 4  # dice whose transforms run inside one block of 7^4 rows (fits the L2 cache)
TILE = 49     # rows of the low index handled together when transforming the other dice


@njit(cache=True)
def _line_op(xf, first, step, width, mean):
    """One axis step on 7 runs of `width` values, `step` apart (run 6 = the die rerolled).

    mean: run 6 becomes the mean of runs 0-5 (the expected value over the die's faces).
    max:  runs 0-5 become the max with run 6 (the die may be rerolled instead).
    (Views per run: with plain offsets Numba's negative-index checks stop vectorisation.)
    """
    star = xf[first + 6 * step:first + 6 * step + width]
    if mean:
        run = xf[first:first + width]
        for t in range(width):
            star[t] = run[t]
        for c in range(1, 6):
            run = xf[first + c * step:first + c * step + width]
            for t in range(width):
                star[t] += run[t]
        for t in range(width):
            star[t] *= 1.0 / 6.0
    else:
        for c in range(6):
            run = xf[first + c * step:first + c * step + width]
            for t in range(width):
                run[t] = max(run[t], star[t])


@njit(cache=True)
def _low_axes(x, xf, n_low, block_row, mean):
    """Transform along dice 0..n_low-1 inside the block of 7^n_low rows starting at block_row."""
    nj = x.shape[1]
    for row in range(block_row, block_row + 7 ** n_low, 7):  # die 0: seven adjacent rows, no views
        if mean:
            for j in range(nj):
                x[row + 6, j] = x[row, j]
            for c in range(1, 6):
                for j in range(nj):
                    x[row + 6, j] += x[row + c, j]
            for j in range(nj):
                x[row + 6, j] *= 1.0 / 6.0
        else:
            for c in range(6):
                for j in range(nj):
                    x[row + c, j] = max(x[row + c, j], x[row + 6, j])
    for d in range(1, n_low):
        run = 7 ** d
        for hi in range(7 ** (n_low - d - 1)):
            _line_op(xf, (block_row + hi * 7 * run) * nj, run * nj, run * nj, mean)


@njit(cache=True)
def _high_axes(xf, nj, n_low, n_high, c0, c1, mean):
    """Transform along dice n_low.. for the rows whose low index lies in [c0, c1)."""
    block = 7 ** n_low
    for e in range(n_high):
        run = 7 ** e
        for hi in range(7 ** (n_high - e - 1)):
            for lo in range(run):
                h = hi * 7 * run + lo
                _line_op(xf, (h * block + c0) * nj, run * block * nj, (c1 - c0) * nj, mean)


@njit(cache=True)
def _compact_keeps(final, ordered):
    """Value of every compact keep after roll 2: the mean over its lowest rerolled die's faces."""
    _, _, _, order, child, base_ms = ordered
    nj = final.shape[1]
    kept = np.empty((order.shape[0], nj))
    for i in order:
        if base_ms[i] >= 0:
            for j in range(nj):
                kept[i, j] = final[base_ms[i], j]
        else:
            for j in range(nj):
                acc = 0.0
                for c in range(6):
                    acc += kept[child[i, c], j]
                kept[i, j] = acc * (1.0 / 6.0)
    return kept


@njit(cache=True)
def _ordered_keep_values(mask, flag, up, rules, ordered, values, after_second, after_first):
    """The advisor's view of one turn (one upper total, no fused sweeps): the value of every
    partial assignment kept after roll 2 and after roll 1; returns the final-roll values."""
    n_dice, _, compact = ordered[0], ordered[1], ordered[2]
    final = np.empty((rules.score.shape[0], 1))
    _final_roll_values(mask, flag, np.array([up]), rules, values, final, 0)
    kept = _compact_keeps(final, ordered)
    for row in range(compact.shape[0]):
        after_second[row, 0] = kept[compact[row], 0]
        after_first[row, 0] = kept[compact[row], 0]
    xf = after_first.reshape(-1)
    n_low = min(n_dice, LOW_AXES)
    block = 7 ** n_low
    for mean in (False, True):  # best keep inside each roll after roll 2, then keeps after roll 1
        for h in range(7 ** (n_dice - n_low)):
            _low_axes(after_first, xf, n_low, h * block, mean)
        for c0 in range(0, block, TILE):
            _high_axes(xf, 1, n_low, n_dice - n_low, c0, min(c0 + TILE, block), mean)
    return final[:, 0]


@njit(cache=True)
def _ordered_turn(mask, flag, ups, rules, ordered, values, x, result):
    """result[j]: value at the start of a turn of (mask, ups[j], flag), dice told apart.

    x (7^n, nj) holds one value per partial assignment and upper total. The turn
    is four transforms along every die: means (keeps after roll 2), maxes (best
    keep inside each roll), means (keeps after roll 1), maxes. The first runs on
    compact keeps. Means commute with means and maxes with maxes, so the dice are
    split into low dice, transformed block by block in cache, and high dice,
    transformed tile by tile: four sweeps over x instead of one per die and
    transform.
    """
    n_dice, full_pos, compact, order, child, base_ms = ordered
    nj = ups.shape[0]
    xf = x.reshape(-1)
    n_low = min(n_dice, LOW_AXES)
    n_high = n_dice - n_low
    block = 7 ** n_low
    final = np.empty((rules.score.shape[0], nj))
    _final_roll_values(mask, flag, ups, rules, values, final, 0)
    kept = _compact_keeps(final, ordered)
    for h in range(7 ** n_high):  # spread them over the partial assignments, then the low dice's maxes
        for row in range(h * block, (h + 1) * block):
            for j in range(nj):
                x[row, j] = kept[compact[row], j]
        _low_axes(x, xf, n_low, h * block, False)
    for c0 in range(0, block, TILE):  # rolls after roll 2 complete; keeps after roll 1 on the high dice
        c1 = min(c0 + TILE, block)
        _high_axes(xf, nj, n_low, n_high, c0, c1, False)
        _high_axes(xf, nj, n_low, n_high, c0, c1, True)
    for h in range(7 ** n_high):  # keeps after roll 1 complete; rolls after roll 1 on the low dice
        _low_axes(x, xf, n_low, h * block, True)
        _low_axes(x, xf, n_low, h * block, False)
    for c0 in range(0, block, TILE):
        _high_axes(xf, nj, n_low, n_high, c0, min(c0 + TILE, block), False)
    for j in range(nj):
        result[j] = 0.0
    for i in range(full_pos.shape[0]):
        for j in range(nj):
            result[j] += x[full_pos[i], j]
    for j in range(nj):
        result[j] /= full_pos.shape[0]


@njit(cache=True, parallel=True)
def _solve_layer_ordered(masks, flags, ups_ptr, ups_list, upper_id, rules, ordered, values):
    """As _solve_layer, for distinguishable dice."""
    for i in prange(masks.shape[0]):
        mask, flag = masks[i], flags[i]
        u = upper_id[mask]
        all_ups = ups_list[ups_ptr[u]:ups_ptr[u + 1]]
        rows = 7 ** ordered.n_dice
        buf = np.empty(rows * min(ORDERED_COLUMNS, all_ups.shape[0]))
        for j0 in range(0, all_ups.shape[0], ORDERED_COLUMNS):  # bounded memory: a few columns at a time
            ups = all_ups[j0:j0 + ORDERED_COLUMNS]
            result = np.empty(ups.shape[0])
            x = buf[:rows * ups.shape[0]].reshape((rows, ups.shape[0]))
            _ordered_turn(mask, flag, ups, rules, ordered, values, x, result)
            for j in range(ups.shape[0]):
                values[mask, ups[j], flag] = result[j]


# ---------------------------------------------------------------------------
# Driver


class UpperStates(NamedTuple):
    upper_id: np.ndarray  # (2^B,) int64: which filled-upper-boxes pattern a mask has
    canon: np.ndarray     # (patterns, cap + 1) int64: representative total, -1 if unreachable
    reachable: np.ndarray  # (patterns, cap + 1) bool
    ups_ptr: np.ndarray   # CSR over patterns of the totals to solve
    ups_list: np.ndarray


def upper_states(variant: Variant) -> UpperStates:
    """Reachable upper totals for every pattern of filled upper boxes, and their representatives."""
    cap = variant.upper_cap
    upper = [i for i, b in enumerate(variant.boxes) if b.is_upper]
    n_boxes = len(variant.boxes)
    n_pat = 1 << len(upper)
    options = [possible_points(variant, i) for i in upper]
    thresholds = sorted(b.threshold for b in variant.bonuses)
    reachable = np.zeros((n_pat, cap + 1), dtype=bool)
    canon = np.full((n_pat, cap + 1), -1, dtype=np.int64)
    ptr, lst = [0], []
    for pat in range(n_pat):
        totals = {0}
        remaining = 0
        for bit, vals in enumerate(options):
            if pat >> bit & 1:
                totals = {min(t + v, cap) for t in totals for v in vals}
            else:
                remaining += max(vals)
        reachable[pat, sorted(totals)] = True
        for u in range(cap + 1):
            crossed = [t for t in thresholds if t <= u]
            nxt = [t for t in thresholds if t > u]
            live = bool(nxt) and u + remaining >= nxt[0]
            canon[pat, u] = u if live else (crossed[-1] if crossed else 0)
        solve = sorted({int(canon[pat, u]) for u in totals})
        canon[pat, ~np.isin(canon[pat], solve)] = -1
        lst.extend(solve)
        ptr.append(len(lst))
    upper_id = np.zeros(1 << n_boxes, dtype=np.int64)
    masks = np.arange(1 << n_boxes)
    for bit, i in enumerate(upper):
        upper_id |= ((masks >> i) & 1) << bit
    return UpperStates(upper_id, canon, reachable, np.array(ptr, dtype=np.int64),
                       np.array(lst, dtype=np.int64))


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


class OrderedDice(NamedTuple):
    """Distinguishable dice: partial assignments die -> face code (0-5) or 6 = rerolled, as a flat
    base-7 index (die d is digit d). The full assignments are the rolls.

    After roll 2 a keep's value depends only on (multiset kept, dice rerolled): those "compact
    keeps" (28,760 for seven dice instead of 823,543 partial assignments) get their values first.
    """
    n_dice: int
    full_pos: np.ndarray   # (6^n,) flat index of each full assignment, ascending
    compact: np.ndarray    # (P,) int64: compact keep of each partial assignment
    order: np.ndarray      # (C,) compact keeps by number of dice rerolled, none first
    child: np.ndarray      # (C, 6): the compact keep with its lowest rerolled die showing face code c
    base_ms: np.ndarray    # (C,): for keeps of all dice, the multiset row of the roll tables, else -1


class Engine(NamedTuple):
    """Everything the kernels need for one variant."""
    variant: Variant
    rules: Rules
    lattice: object               # KeepLattice for identical dice, None for distinguishable dice
    upper: UpperStates
    ordered: OrderedDice | None   # distinguishable dice only


MAX_ORDERED_DICE = 5  # beyond this a solve takes long (seven dice: over an hour): only an explicit `solve`


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
    if variant.n_dice > MAX_ORDERED_DICE and not allow_slow:
        raise RuleError(f"{variant.name}: its table takes over an hour to build; build it once with "
                        f"`kniffel solve {variant.name}` (resumable)")
    return Engine(variant, rules, None, upper_states(variant), ordered_dice(variant))


def ordered_dice(variant: Variant) -> OrderedDice:
    """Index tables of the ordered-dice kernel (numpy over all 7^n partial assignments)."""
    n, faces = variant.n_dice, variant.faces
    radix = n + 1  # a multiset as a number: digit f = how many dice show face f
    code_face = np.array([[faces.index(f) for f in die] + [-1] for die in variant.dice])  # (n, 7)
    pa = np.arange(7 ** n, dtype=np.int64)
    digits = (pa[:, None] // 7 ** np.arange(n)) % 7
    rerolled = ((digits == 6) << np.arange(n)).sum(axis=1)
    face = code_face[np.arange(n), digits]
    kept = np.where(face >= 0, radix ** np.maximum(face, 0), 0).sum(axis=1)
    keys, compact = np.unique(kept * (1 << n) + rerolled, return_inverse=True)
    r_bits, kept_of = keys % (1 << n), keys // (1 << n)
    child = np.full((len(keys), 6), -1, dtype=np.int64)
    for i in np.nonzero(r_bits)[0]:
        d = int(r_bits[i] & -r_bits[i]).bit_length() - 1
        for c in range(6):
            child[i, c] = np.searchsorted(keys, (kept_of[i] + radix ** code_face[d, c]) * (1 << n) + (r_bits[i] ^ (1 << d)))
    ms_number = {sum(c * radix ** f for f, c in enumerate(m)): i for i, m in enumerate(multisets(n, len(faces)))}
    base_ms = np.array([ms_number[int(k)] if r == 0 else -1 for k, r in zip(kept_of, r_bits)], dtype=np.int64)
    popcount = np.array([bin(int(r)).count("1") for r in r_bits])
    return OrderedDice(n, pa[rerolled == 0], compact.astype(np.int64), np.argsort(popcount, kind="stable"),
                       child, base_ms)


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
    for n_filled in range(first_layer, -1, -1):
        masks, flags = layer_items(variant, n_filled)
        order = np.argsort(-counts[up.upper_id[masks]], kind="stable")  # big items first balances threads
        masks, flags = masks[order], flags[order]
        if engine.ordered is None:
            _solve_layer(masks, flags, up.ups_ptr, up.ups_list, up.upper_id, engine.rules, engine.lattice, values)
        else:
            _solve_layer_ordered(masks, flags, up.ups_ptr, up.ups_list, up.upper_id, engine.rules,
                                 engine.ordered, values)
        _fill_equivalent(masks, flags, up.upper_id, up.canon, values)
        n_states = int(counts[up.upper_id[masks]].sum())
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
    return int(sum(counts[up.upper_id[layer_items(variant, n)[0]]].sum() for n in range(len(variant.boxes))))


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
