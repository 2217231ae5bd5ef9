"""The best option of one situation (Advisor.best_action): best_one values only what the tie rule needs, from a
pool of remembered turns (the same turn is asked again within its rolls), with the arrays packed in two
buffers (pack_best, advice_pack.py)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..rules.dice import KeepLattice
from .advice import _box_option_values, _box_scratch
from .advice_pack import (
    F_PAIR_SCORE,
    F_SCORE_T,
    FLOAT_ARRAYS,
    I_ADD,
    I_CONST_MOVE,
    I_KEEP_SIZE,
    I_MOVE_T,
    I_N_PAIRS,
    I_N_SUBS,
    I_PAIR_MOVE,
    I_PAIR_OF,
    I_PARAMS,
    I_ROLL_SUBS,
    I_SCORE,
    I_SIZE_START,
    I_SUB_OR_NONE,
    I_TIE_RANK,
    INT_ARRAYS,
    AdviceTables,
    _arr1,
    _arr2,
    _pack,
    _unpack_rules,
)
from .compile import njit, unmasked, unsigned
from .entries import (
    _free_boxes,
    _joker_roll_values,
    _move_values,
)
from .identical import _keep_means_one
from .policy import TIE
from .rules import P_MIN_KEEP, P_RESTRICTED, Rules


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
        n, best = _box_option_values(
            mask, capped_upper, joker_scored, r, rules, values, _box_scratch(n_boxes), codes, vals, pts, 0, base
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
