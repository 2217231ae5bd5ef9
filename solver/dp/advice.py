"""The advice kernel (identical dice): the value of every option of many situations at once.

A situation is a state (mask, upper total, joker_held), a roll of the dice (a keep-lattice roll row)
and the number of the roll just made (1-3). Its options:

* roll 1 or 2: every distinct keep of the roll (keeping all dice = stop rolling), in the advisor's
  order: the product over the faces of "keep 0 .. count of this face", the last face counting fastest;
  at roll 2 keeps smaller than the variant's min_keep_last_reroll are left out.
* roll 3: every entry the rules allow (box order, as _roll_range_options lists them).
* roll code ENTRY_AFTER_FIRST (4): the entries of a turn stopped after roll 1, with the first-roll scores
  (Generala's servida); after roll 1 the value of stopping is _first_roll_stops' where a variant has them.

Option codes: a box b is code b (0 <= b < B); a keep is B + its keep-lattice index. A value is the
expected number of points still to come from this decision on (this turn's box points, a bonus the
entry reaches and extra points included), i.e. expected final score minus the points on the card.

Situations that share a state share the turn's work: the caller sorts them by state and hands over
the groups; each group computes the keep values of its turn once (only as far as its rolls need).
"""

from __future__ import annotations

from itertools import product
from typing import NamedTuple

import numpy as np

from ..rules.dice import KeepLattice
from .compile import buffer_view, njit, prange, unmasked, unsigned
from .entries import (
    _final_roll_values,
    _first_roll_rules,
    _first_roll_stops,
    _free_boxes,
    _joker_roll_values,
    _move_values,
    _roll_range_options,
)
from .forward import TIE
from .identical import _best_sub_keeps, _keep_means, _keep_means_one
from .rules import P_CAP, P_EXTRA, P_FIRST_ROLL, P_MIN_KEEP, P_RESTRICTED, Rules

ENTRY_AFTER_FIRST = 4  # the roll code of the entries of a turn stopped after roll 1


class AdviceTables(NamedTuple):
    """Per roll of the keep lattice: its distinct sub-multisets (itself included, last) in the advisor's order."""

    roll_subs: np.ndarray  # (R, S) int64 keep indices, -1 padded
    n_subs: np.ndarray  # (R,) int64
    keep_size: np.ndarray  # (K,) int64 number of dice kept


def advice_tables(lattice: KeepLattice) -> AdviceTables:
    counts = lattice.counts
    n = int(lattice.size_start.shape[0] - 2)
    first = int(lattice.size_start[n])
    index = {tuple(int(c) for c in row): k for k, row in enumerate(counts)}
    rows = [[index[kept] for kept in product(*(range(int(c) + 1) for c in roll))] for roll in counts[first:]]
    subs = np.full((len(rows), max(map(len, rows))), -1, dtype=np.int64)
    for r, ks in enumerate(rows):
        subs[r, : len(ks)] = ks
    sizes = counts.sum(axis=1).astype(np.int64)
    return AdviceTables(subs, np.array([len(ks) for ks in rows], dtype=np.int64), sizes)


def max_options(lattice: KeepLattice, n_boxes: int) -> int:
    """Columns of the option arrays: the most options a situation can have."""
    return max(int(advice_tables(lattice).n_subs.max()), n_boxes)


@njit(cache=True)
def _box_option_values(
    mask, capped_upper, joker_scored, r, rules, values, option_move, option_points, n_option, codes, vals, pts, i, base
):
    """Roll 3: codes[i, :n], vals[i, :n] (and pts[i, :n], the points entered, when pts has rows) for every
    entry roll r allows; returns (n, column of the best).

    Same arithmetic as _final_roll_values, so the best entry equals the final-roll value bit for bit."""
    n_boxes = rules.score.shape[1]
    params, bonus_cum = rules.params, rules.bonus_cum
    cap = params[P_CAP]
    free = _free_boxes(mask, n_boxes)
    _roll_range_options(mask, joker_scored, rules, r, r + 1, option_move, option_points, n_option, free)
    n = n_option[0]
    implicit = n < 0
    if implicit:
        n = free.shape[0]
    extra = float(params[P_EXTRA]) if joker_scored == 1 and rules.joker_roll[r] else 0.0
    best, best_v = 0, -np.inf
    for o in range(n):
        if implicit:
            m, s = rules.norm_move[r, free[o]], rules.score[r, free[o]]
        else:
            m, s = option_move[0, o], option_points[0, o]
        b = rules.move_box[m]
        nu = min(capped_upper + rules.move_inc[m], cap)
        nf = joker_scored if rules.move_flag[m] < 0 else rules.move_flag[m]
        v = float(s) + (bonus_cum[nu] - bonus_cum[capped_upper] + values[mask | (1 << b), nu, nf])
        if extra != 0.0:
            v += extra
        codes[i, o] = b
        vals[i, o] = v
        if pts.shape[0] > 0:
            pts[i, o] = s
        if base + v > best_v:
            best, best_v = o, base + v
    return n, best


@njit(cache=True)
def _keep_option_values(r, by_keep, c, final_r, min_keep, n_boxes, tabs, codes, vals, i, base):
    """Roll 1 or 2: codes[i, :n], vals[i, :n] for every keep of roll r (by_keep[:, c]: this roll's keep
    values, final_r: the value of stopping); returns (n, column of the best)."""
    roll_subs, n_subs, keep_size = tabs
    n, best, best_v = 0, 0, -np.inf
    last = n_subs[r] - 1
    for t in range(n_subs[r]):
        k = roll_subs[r, t]
        if keep_size[k] < min_keep:
            continue
        v = final_r if t == last else by_keep[k, c]
        codes[i, n] = n_boxes + k
        vals[i, n] = v
        if base + v > best_v:
            best, best_v = n, base + v
        n += 1
    return n, best


@njit(cache=True)
def _pad_row(codes, vals, i, n):
    for o in range(n, codes.shape[1]):
        codes[i, o] = -1
        vals[i, o] = np.nan


@njit(cache=True)
def _advise_block(
    s_lo, s_hi, state_ptr, order, mask, upper, joker_scored, roll_row, roll, rules, lattice, tabs, values, out, base
):
    """The situations of states s_lo <= s < s_hi (situations order[state_ptr[s]:state_ptr[s + 1]] share
    state s). The states whose situations need keep values share one lattice array, a column each.
    The best option is the first with the highest base + value (the advisor ranks expected final
    scores, points on the card + value, whose rounding can tie two values 1e-14 apart)."""
    codes, vals, n_options, best, pts = out
    _, size_start, add, sub, _ = lattice
    n_keeps = add.shape[0]
    n_boxes = rules.score.shape[1]
    first_roll = size_start[size_start.shape[0] - 2]
    n_st = s_hi - s_lo
    col = np.full(n_st, -1, dtype=np.int64)
    n_cols, need_first = 0, False
    for s in range(s_lo, s_hi):
        need = 3
        for t in range(state_ptr[s], state_ptr[s + 1]):
            need = min(need, roll[order[t]])
        if need < 3:
            col[s - s_lo] = n_cols
            n_cols += 1
            need_first = need_first or need == 1
    if n_cols > 0:
        by_keep = np.zeros((n_keeps, n_cols))
        upper_totals = np.empty(1, dtype=np.int64)
        for s in range(s_lo, s_hi):
            c = col[s - s_lo]
            if c >= 0:
                i = order[state_ptr[s]]
                upper_totals[0] = upper[i]
                _final_roll_values(
                    mask[i], joker_scored[i], upper_totals, rules, values, by_keep[:, c : c + 1], first_roll
                )
        final = by_keep[first_roll:].copy()
        stops1 = final  # the value of stopping after roll 1
        if need_first and rules.params[P_FIRST_ROLL] != 0:
            stops1 = np.empty_like(final)
            for s in range(s_lo, s_hi):
                c = col[s - s_lo]
                if c >= 0:
                    i = order[state_ptr[s]]
                    upper_totals[0] = upper[i]
                    stops1[:, c] = _first_roll_stops(mask[i], joker_scored[i], upper_totals, rules, values)[:, 0]
        _keep_means(by_keep, add, size_start)  # keep values after roll 2
        min_keep = rules.params[P_MIN_KEEP]
        for rl in (2, 1):
            if rl == 1:
                if not need_first:
                    break
                _best_sub_keeps(by_keep, sub, size_start, min_keep)
                _keep_means(by_keep, add, size_start)  # keep values after roll 1
                min_keep = 0
            for s in range(s_lo, s_hi):
                c = col[s - s_lo]
                if c < 0:
                    continue
                for t in range(state_ptr[s], state_ptr[s + 1]):
                    i = order[t]
                    if roll[i] == rl:
                        r = roll_row[i]
                        n_options[i], best[i] = _keep_option_values(
                            r,
                            by_keep,
                            c,
                            stops1[r, c] if rl == 1 else final[r, c],
                            min_keep,
                            n_boxes,
                            tabs,
                            codes,
                            vals,
                            i,
                            base,
                        )
                        _pad_row(codes, vals, i, n_options[i])
    option_move = np.empty((1, n_boxes), dtype=np.int64)
    option_points = np.empty((1, n_boxes), dtype=np.int64)
    n_option = np.empty(1, dtype=np.int64)
    for t in range(state_ptr[s_lo], state_ptr[s_hi]):
        i = order[t]
        if roll[i] >= 3:
            n_options[i], best[i] = _box_option_values(
                mask[i],
                upper[i],
                joker_scored[i],
                roll_row[i],
                _first_roll_rules(rules) if roll[i] == ENTRY_AFTER_FIRST else rules,
                values,
                option_move,
                option_points,
                n_option,
                codes,
                vals,
                pts,
                i,
                base,
            )
            _pad_row(codes, vals, i, n_options[i])


@njit(cache=True, parallel=True)
def advise_batch(
    block_ptr, state_ptr, order, mask, upper, joker_scored, roll_row, roll, rules, lattice, tabs, values, out
):
    """Every option of every situation, in parallel over blocks of states.

    order lists the situations grouped by state: state s is order[state_ptr[s]:state_ptr[s + 1]], block b
    the states block_ptr[b] .. block_ptr[b + 1] - 1 (a few: their turns run as the columns of one
    keep-lattice array, so the lattice passes are vector loops). upper is capped at the variant's cap;
    roll_row is the roll's row (its keep index minus the first roll's). out = (codes, vals, n_options, best,
    pts): codes/vals (N, M) padded with -1 / NaN, n_options (N,), best (N,): the column of the best option, the
    first of the highest value in option order; pts (N, M) the points of box options, or (0, 0): not wanted."""
    for b in prange(block_ptr.shape[0] - 1):
        _advise_block(
            block_ptr[b],
            block_ptr[b + 1],
            state_ptr,
            order,
            mask,
            upper,
            joker_scored,
            roll_row,
            roll,
            rules,
            lattice,
            tabs,
            values,
            out,
            0.0,
        )


@njit(cache=True)
def _advise_one(m, u, f, r, rl, ints, floats, values, codes, vals, pts, base):
    """One situation, all arguments packed (see pack_single): Numba unboxes each array argument of a call
    (a few tenths of a µs each), so the single call takes five instead of twenty."""
    rules, lattice, tabs = _unpack(ints, floats)
    ptr = np.arange(2)
    order = np.zeros(1, dtype=np.int64)
    mask, upper, joker_scored = np.full(1, m), np.full(1, u), np.full(1, f)
    roll_row, roll = np.full(1, r), np.full(1, rl)
    n_options = np.empty(1, dtype=np.int64)
    best = np.empty(1, dtype=np.int64)
    _advise_block(
        0,
        1,
        ptr,
        order,
        mask,
        upper,
        joker_scored,
        roll_row,
        roll,
        rules,
        lattice,
        tabs,
        values,
        (codes, vals, n_options, best, pts),
        base,
    )
    return n_options[0], best[0]


# The single-situation kernels' arrays in two buffers (an array argument costs a few tenths of a µs to pass):
# each buffer starts with the offset of each of its arrays, in the order below; an array is its shape, then
# its items. A kernel reads an array through a view without a reference count (compile.buffer_view), made
# where it reads it.
INT_ARRAYS = (
    *(f for f in Rules._fields if f != "bonus_cum"),
    *KeepLattice._fields[1:4],  # size_start, add, sub
    *AdviceTables._fields,
    "tie_rank",  # pack_best's, for best_one: the keeps' places in the tie rule's order
    "move_t",  # (B, R): the normal moves by box
    "sub_or_none",  # the lattice's sub with K (a row holding -inf) for a missing face
    "const_move",  # (B,): each box's move when all rolls make the same one, else -1
    "pair_of",  # (B, R): which of the box's distinct (normal score, move) pairs roll r makes (box_pairs)
    "pair_move",  # (B, PAIRS): the move of each pair (the first PAIRS)
    "n_pairs",  # (B,): the box's number of distinct pairs
)
FLOAT_ARRAYS = (
    "bonus_cum",
    "roll_prob",
    "score_t",  # (B, R): the normal scores by box (pack_best's)
    "pair_score",  # (B, PAIRS): the score of each pair (the first PAIRS)
)
(
    I_SCORE,
    I_JOKER_SCORE,
    I_JOKER_ROLL,
    I_JOKER_UPPER,
    I_IS_UPPER,
    I_PARAMS,
    I_MOVE_BOX,
    I_MOVE_INC,
    I_MOVE_FLAG,
    I_NORM_MOVE,
    I_JOKER_MOVE,
    I_ZERO_MOVE,
    I_FIRST_SCORE,
    I_FIRST_JOKER_SCORE,
    I_SIZE_START,
    I_ADD,
    I_SUB,
    I_ROLL_SUBS,
    I_N_SUBS,
    I_KEEP_SIZE,
    I_TIE_RANK,
    I_MOVE_T,
    I_SUB_OR_NONE,
    I_CONST_MOVE,
    I_PAIR_OF,
    I_PAIR_MOVE,
    I_N_PAIRS,
) = range(len(INT_ARRAYS))
F_BONUS_CUM, F_ROLL_PROB, F_SCORE_T, F_PAIR_SCORE = range(len(FLOAT_ARRAYS))


def _pack(arrays: list[np.ndarray], dtype) -> np.ndarray:
    """One buffer: the offset of each array, then each array's shape and items."""
    parts = [np.concatenate([np.shape(a), np.ravel(a)]).astype(dtype) for a in arrays]
    offsets = len(arrays) + np.cumsum([0] + [part.shape[0] for part in parts[:-1]])
    return np.concatenate([offsets.astype(dtype), *parts])


def pack_single(rules: Rules, lattice: KeepLattice, tabs: AdviceTables) -> tuple[np.ndarray, np.ndarray]:
    """(ints, floats): every array the advice kernel reads, in two buffers (for _advise_one; see INT_ARRAYS)."""
    named = {**rules._asdict(), **lattice._asdict(), **tabs._asdict()}
    return (
        _pack([named[name] for name in INT_ARRAYS[:I_TIE_RANK]], np.int64),
        _pack([named[name] for name in FLOAT_ARRAYS[:F_SCORE_T]], np.float64),
    )


@njit(cache=True)
def _arr1(buf, i):
    """Array i of a buffer (one dimension)."""
    o = int(buf[i])
    return buffer_view(buf, o + 1, (int(buf[o]),))


@njit(cache=True)
def _arr2(buf, i):
    """Array i of a buffer (two dimensions)."""
    o = int(buf[i])
    return buffer_view(buf, o + 2, (int(buf[o]), int(buf[o + 1])))


@njit(cache=True)
def _unpack_rules(ints, floats):
    """Rules as views of the buffers."""
    return Rules(
        _arr2(ints, I_SCORE),
        _arr2(ints, I_JOKER_SCORE),
        _arr1(ints, I_JOKER_ROLL),
        _arr1(ints, I_JOKER_UPPER),
        _arr1(ints, I_IS_UPPER),
        _arr1(floats, F_BONUS_CUM),
        _arr1(ints, I_PARAMS),
        _arr1(ints, I_MOVE_BOX),
        _arr1(ints, I_MOVE_INC),
        _arr1(ints, I_MOVE_FLAG),
        _arr2(ints, I_NORM_MOVE),
        _arr2(ints, I_JOKER_MOVE),
        _arr1(ints, I_ZERO_MOVE),
        _arr2(ints, I_FIRST_SCORE),
        _arr2(ints, I_FIRST_JOKER_SCORE),
    )


@njit(cache=True)
def _unpack(ints, floats):
    """The inverse of pack_single: Rules, KeepLattice and AdviceTables as views of two buffers."""
    add = _arr2(ints, I_ADD)
    lattice = KeepLattice(add[:0], _arr1(ints, I_SIZE_START), add, _arr2(ints, I_SUB), _arr1(floats, F_ROLL_PROB))
    tabs = AdviceTables(_arr2(ints, I_ROLL_SUBS), _arr1(ints, I_N_SUBS), _arr1(ints, I_KEEP_SIZE))
    return _unpack_rules(ints, floats), lattice, tabs  # lattice.counts: unused by the kernels


def advise_one(
    packed, values, mask, upper, joker_scored, roll_row, roll, codes, vals, pts, base=0.0
) -> tuple[int, int]:
    """One situation into row 0 of codes, vals, pts (1, M) int64, float64, int64: (number of options, column
    of the best: the first of the highest base + value). packed = pack_single(...); upper capped at the
    variant's cap."""
    ints, floats = packed
    return _advise_one(mask, upper, joker_scored, roll_row, roll, ints, floats, values, codes, vals, pts, float(base))


# -- the best option of one situation (Advisor.best_action) ------------------------------------------


def tie_ranks(lattice: KeepLattice) -> np.ndarray:
    """(K,) int64: each keep's place in the tie rule's order, the most dice first, then the smallest sorted
    faces (faces ascend with their index, so the index tuples sort as the faces do)."""
    faces = [tuple(f for f, c in enumerate(row) for _ in range(int(c))) for row in lattice.counts]
    order = sorted(range(len(faces)), key=lambda k: (-len(faces[k]), faces[k]))
    ranks = np.empty(len(faces), dtype=np.int64)
    ranks[order] = np.arange(len(faces))
    return ranks


PAIRS = 6  # the (score, move) pairs _final_values_by_box picks from with selects (n_dice + 1 in an upper box)


def box_pairs(rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each box's distinct (normal score, move) pairs over the rolls, in the order rolls first make them:
    (pair_of (B, R): the pair roll r makes, pair_score (B, PAIRS) float, pair_move (B, PAIRS): the first PAIRS
    pairs (pair 0 again in unused places), n_pairs (B,))."""
    n_rolls, n_boxes = rules.score.shape
    pair_of = np.zeros((n_boxes, n_rolls), dtype=np.int64)
    pair_score = np.zeros((n_boxes, PAIRS))
    pair_move = np.zeros((n_boxes, PAIRS), dtype=np.int64)
    n_pairs = np.zeros(n_boxes, dtype=np.int64)
    for b in range(n_boxes):
        pairs: dict[tuple[int, int], int] = {}
        for r in range(n_rolls):
            pair_of[b, r] = pairs.setdefault((int(rules.score[r, b]), int(rules.norm_move[r, b])), len(pairs))
        listed = list(pairs)[:PAIRS]
        listed += listed[:1] * (PAIRS - len(listed))
        pair_score[b] = [score for score, _ in listed]
        pair_move[b] = [move for _, move in listed]
        n_pairs[b] = len(pairs)
    return pair_of, pair_score, pair_move, n_pairs


def pack_best(rules: Rules, lattice: KeepLattice, tabs: AdviceTables) -> tuple[np.ndarray, np.ndarray]:
    """pack_single's buffers with the arrays best_one reads besides (INT_ARRAYS and FLOAT_ARRAYS name them)."""
    named = {**rules._asdict(), **lattice._asdict(), **tabs._asdict()}
    n_keeps = lattice.sub.shape[0]
    moves = rules.norm_move.T
    named["tie_rank"] = tie_ranks(lattice)
    named["move_t"] = moves
    named["sub_or_none"] = np.where(lattice.sub >= 0, lattice.sub, n_keeps)
    named["const_move"] = np.where((moves == moves[:, :1]).all(axis=1), moves[:, 0], -1)
    named["score_t"] = rules.score.T
    named["pair_of"], named["pair_score"], named["pair_move"], named["n_pairs"] = box_pairs(rules)
    return _pack([named[name] for name in INT_ARRAYS], np.int64), _pack([named[n] for n in FLOAT_ARRAYS], np.float64)


class BoxTables(NamedTuple):
    """The normal scores and moves by box (pack_best's arrays of these names), for _final_values_by_box."""

    score_t: np.ndarray
    move_t: np.ndarray
    const_move: np.ndarray
    pair_of: np.ndarray
    pair_score: np.ndarray
    pair_move: np.ndarray
    n_pairs: np.ndarray


@njit(cache=True)
def _box_tables(ints, floats):
    return BoxTables(
        _arr2(floats, F_SCORE_T),
        _arr2(ints, I_MOVE_T),
        _arr1(ints, I_CONST_MOVE),
        _arr2(ints, I_PAIR_OF),
        _arr2(floats, F_PAIR_SCORE),
        _arr2(ints, I_PAIR_MOVE),
        _arr1(ints, I_N_PAIRS),
    )


@njit(cache=True)
def _final_values_by_box(mask, joker_scored, capped_upper, rules, values, by_box, out):
    """out[r]: the value of ending the turn with roll r, the same sums and maxima as _final_roll_values_one,
    looping over the rolls inside a loop over the free boxes (by_box: BoxTables). A box whose rolls all make
    one move (const_move[b] >= 0: the lower boxes but the joker's) adds one number to its scores: a vector
    loop. A box whose rolls make at most PAIRS (score, move) pairs (the upper boxes, the joker's) picks its
    value by pair with selects: a vector loop too, where looking up each roll's move is not."""
    n_rolls, n_boxes = rules.score.shape
    params = rules.params
    score_t, move_t, const_move, pair_of, pair_score, pair_move, n_pairs = by_box
    upper_totals = np.full(1, capped_upper)
    vecs = np.empty((rules.move_box.shape[0], 1))
    _move_values(mask, joker_scored, upper_totals, rules, values, vecs)
    vec = vecs[:, 0]
    free = _free_boxes(mask, n_boxes)
    restricted = params[P_RESTRICTED] != 0
    fit = np.full(n_rolls if restricted else 0, -np.inf)
    for r in range(n_rolls):
        out[r] = -np.inf
    for b in free:
        s_row, m_row, m = score_t[b], move_t[b], const_move[b]
        if m >= 0:
            c = vec[m]
            for r in range(n_rolls):
                v = s_row[r] + c
                o = out[r]
                out[r] = unmasked(v if v > o else o)
        elif n_pairs[b] <= PAIRS:  # the same sums as below, one per pair
            g0 = pair_score[b, 0] + vec[pair_move[b, 0]]
            g1 = pair_score[b, 1] + vec[pair_move[b, 1]]
            g2 = pair_score[b, 2] + vec[pair_move[b, 2]]
            g3 = pair_score[b, 3] + vec[pair_move[b, 3]]
            g4 = pair_score[b, 4] + vec[pair_move[b, 4]]
            g5 = pair_score[b, 5] + vec[pair_move[b, 5]]
            p_row = pair_of[b]
            for r in range(n_rolls):
                p = p_row[r]
                v = g0
                v = g1 if p == 1 else v
                v = g2 if p == 2 else v
                v = g3 if p == 3 else v
                v = g4 if p == 4 else v
                v = g5 if p == 5 else v
                o = out[r]
                out[r] = unmasked(v if v > o else o)
        else:
            for r in range(n_rolls):
                v = s_row[r] + vec[m_row[r]]
                o = out[r]
                out[r] = unmasked(v if v > o else o)
        if restricted:
            for r in range(n_rolls):
                v = s_row[r] + vec[m_row[r]]
                o = fit[r]
                fit[r] = unmasked(v if s_row[r] > 0 and v > o else o)
    if restricted:
        for r in range(n_rolls):
            out[r] = unmasked(fit[r] if fit[r] > -np.inf else out[r])
    _joker_roll_values(mask, joker_scored, rules, vec, out, free)


@njit(cache=True)
def _best_sub_keeps_one(src, dst, sub_or_none, lo, hi):
    """_best_sub_keeps for one column, rows lo:hi, from src into dst (the rest of src copied; a copy first and
    the pass in place cost 0.2 us more): dst[k] is the best of src[k] and dst at the keeps inside k. Without a
    branch per face: a missing face reads row K (dst[K] = -inf). Six faces are written out (a tree of maxima,
    exact in any order) and the indices read unsigned, as in _keep_means_one."""
    n_keeps = dst.shape[0] - 1
    for k in range(lo):
        dst[k] = src[k]
    for k in range(hi, n_keeps):
        dst[k] = src[k]
    dst[n_keeps] = -np.inf
    n_faces = sub_or_none.shape[1]
    if n_faces == 6:
        for k in range(lo, hi):
            a, b = dst[unsigned(sub_or_none[k, 0])], dst[unsigned(sub_or_none[k, 1])]
            c, d = dst[unsigned(sub_or_none[k, 2])], dst[unsigned(sub_or_none[k, 3])]
            e, f = dst[unsigned(sub_or_none[k, 4])], dst[unsigned(sub_or_none[k, 5])]
            dst[k] = max(max(max(src[k], a), max(b, c)), max(max(d, e), f))
        return
    for k in range(lo, hi):
        acc = src[k]
        for f in range(n_faces):
            candidate = dst[unsigned(sub_or_none[k, f])]
            acc = candidate if candidate > acc else acc
        dst[k] = acc


# The turns best_one keeps (11 KB each with 5 dice). A turn is asked again within its 3 rolls; 16 stay in the
# L2 cache, where 256 cost about 4 us more per new state (its slot came from memory).
TURN_SLOTS = 16


def new_turn_pool(lattice: KeepLattice, slots: int = TURN_SLOTS) -> np.ndarray:
    """The turns best_one remembers, (slots, 3, K + 1), a direct-mapped cache: state (mask, upper, joker) lives in
    slot _turn_of(...) while no other state takes it. Per slot, row 0: the final-roll values and the keep
    values after roll 2, row 1: the keep values after roll 1 (column K of each: -inf once the row holds them),
    row 2: the state it holds in columns 0-2 (-1: none). Made once and reused: fresh memory for every new
    state cost more than the turn (page faults)."""
    pool = np.empty((slots, 3, lattice.add.shape[0] + 1))
    pool[:, 2, :3] = -1.0
    return pool


@njit(cache=True)
def _turn_of(pool, mask, capped_upper, joker_scored):
    """This state's slot of the pool, claimed (its rows marked empty) when it holds another state. In the kernel,
    so that the check and the use cannot be split by another thread (a kernel call holds the GIL)."""
    turn = pool[((mask * 1000003 + capped_upper) * 2 + joker_scored) % pool.shape[0]]
    held = turn[2]
    if held[0] != mask or held[1] != capped_upper or held[2] != joker_scored:
        n_keeps = turn.shape[1] - 1
        turn[0, n_keeps] = np.nan
        turn[1, n_keeps] = np.nan
        held[0], held[1], held[2] = mask, capped_upper, joker_scored
    return turn


@njit(cache=True)
def _fill_turn(mask, capped_upper, joker_scored, roll, values, ints, floats, turn):
    """The rows of turn (a slot of new_turn_pool's) that roll 1 or 2 needs and that are not there yet: the same
    sums in the same order as the whole turn in one column, so the values do not depend on which call made
    them. A row's flag (column K: -inf, what sub_or_none reads for a face the keep lacks) is set when it is
    done. The arrays are read from the buffers only when a row is missing."""
    n_keeps = turn.shape[1] - 1
    need_final = not turn[0, n_keeps] == -np.inf
    need_first = roll == 1 and not turn[1, n_keeps] == -np.inf
    if not (need_final or need_first):
        return
    rules = _unpack_rules(ints, floats)
    size_start, add = _arr1(ints, I_SIZE_START), _arr2(ints, I_ADD)
    n = size_start.shape[0] - 2
    if need_final:
        final = turn[0, size_start[n] : n_keeps]
        _final_values_by_box(mask, joker_scored, capped_upper, rules, values, _box_tables(ints, floats), final)
        _keep_means_one(turn[0], add, size_start)  # keep values after roll 2
        turn[0, n_keeps] = -np.inf
    if need_first:
        lo, hi = size_start[rules.params[P_MIN_KEEP] + 1], size_start[n + 1]
        _best_sub_keeps_one(turn[0], turn[1], _arr2(ints, I_SUB_OR_NONE), lo, hi)  # sets the flag (-inf)
        _keep_means_one(turn[1], add, size_start)  # keep values after roll 1


@njit(cache=True)
def best_one(mask, capped_upper, joker_scored, r, roll, base, ints, floats, values, turns):
    """The best option of one situation, the tie rule applied: (code, value, points entered). Among the
    options whose base + value is within TIE (1e-9) of the highest: the keep with the most dice, then the
    smallest sorted faces (tie_ranks); the first entry (box order). value is base + the option's value
    (base: the points on the card, so value is its expected final score); code -1: the state cannot
    occur. Same sums as the advice kernel, so the values equal advise_one's bit for bit.
    (ints, floats) = pack_best(...); upper capped at the variant's cap. turns (new_turn_pool's; read only at
    rolls 1 and 2): the turns remembered, so that a state asked again (new dice, the next roll) is a look-up.
    """
    if not np.isfinite(values[mask, capped_upper, joker_scored]):
        return -1, np.nan, 0
    if roll == 3:
        rules = _unpack_rules(ints, floats)
        n_boxes = rules.score.shape[1]
        codes = np.empty((1, n_boxes), dtype=np.int64)
        vals = np.empty((1, n_boxes))
        pts = np.empty((1, n_boxes), dtype=np.int64)
        option_move = np.empty((1, n_boxes), dtype=np.int64)
        option_points = np.empty((1, n_boxes), dtype=np.int64)
        n_option = np.empty(1, dtype=np.int64)
        n, best = _box_option_values(
            mask,
            capped_upper,
            joker_scored,
            r,
            rules,
            values,
            option_move,
            option_points,
            n_option,
            codes,
            vals,
            pts,
            0,
            base,
        )
        top = base + vals[0, best]
        for o in range(n):  # the first entry tied with the best (within TIE)
            if base + vals[0, o] >= top - TIE:
                return int(codes[0, o]), float(base + vals[0, o]), int(pts[0, o])  # plain numbers, interpreted too
    turn = _turn_of(turns, mask, capped_upper, joker_scored)
    _fill_turn(mask, capped_upper, joker_scored, roll, values, ints, floats, turn)
    n_rolls, n_boxes = _arr2(ints, I_SCORE).shape
    roll_subs, n_subs, keep_size = _arr2(ints, I_ROLL_SUBS), _arr1(ints, I_N_SUBS), _arr1(ints, I_KEEP_SIZE)
    tie_rank = _arr1(ints, I_TIE_RANK)
    final_r = turn[0, turn.shape[1] - 1 - n_rolls + r]  # the value of stopping now (the rolls: the last R keeps)
    by_keep = turn[0] if roll == 2 else turn[1]
    min_keep = _arr1(ints, I_PARAMS)[P_MIN_KEEP] if roll == 2 else 0
    last = n_subs[r] - 1
    top = -np.inf
    for t in range(n_subs[r]):  # the highest, as _keep_option_values finds it
        k = roll_subs[r, t]
        if keep_size[k] >= min_keep:
            e = base + (final_r if t == last else by_keep[k])
            top = e if e > top else top
    chosen, chosen_rank, chosen_e = -1, 0, 0.0
    for t in range(n_subs[r]):  # among those tied with it, the first in the tie rule's order
        k = roll_subs[r, t]
        if keep_size[k] >= min_keep:
            e = base + (final_r if t == last else by_keep[k])
            if e >= top - TIE and (chosen < 0 or tie_rank[k] < chosen_rank):
                chosen, chosen_rank, chosen_e = k, tie_rank[k], e
    return int(n_boxes + chosen), float(chosen_e), 0
