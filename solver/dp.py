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

from .dice import keep_lattice, multisets
from .scoring import score_tables, upper_values
from .variants import (
    JOKER_BOX_MAX, JOKER_FIXED, JOKER_FORCED, JOKER_FREE, JOKER_NONE, SCRATCH_RESTRICTED, Variant)

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
    return Rules(t.score, t.joker_score, t.joker_roll, t.joker_upper, is_upper, bonus_cum, params)


# ---------------------------------------------------------------------------
# Kernels


@njit(cache=True)
def _box_options(r, mask, flag, rules, box_out, score_out):
    """The boxes roll r may fill in state (mask, flag) and what each scores.

    Writes box indices and scores into the output arrays and returns their
    number. This is the one place where scratching and joker rules act.
    """
    score, joker_score, joker_roll, joker_upper, is_upper, _, params = rules
    n_boxes = score.shape[1]
    mode = params[P_JOKER]
    jb = params[P_JOKER_BOX]
    joker = False
    if joker_roll[r] and mode != 0:
        if mode == 1 or mode == 4:  # box maximum / fixed score: while the joker box holds points
            joker = flag == 1
        elif mode == 2:  # forced: whenever the joker box is filled
            joker = (mask >> jb) & 1 == 1
        else:  # free choice: joker box filled and the matching upper box filled (or absent)
            u = joker_upper[r]
            joker = (mask >> jb) & 1 == 1 and (u < 0 or (mask >> u) & 1 == 1)
    n = 0
    if joker and mode == 2:
        u = joker_upper[r]
        if u >= 0 and (mask >> u) & 1 == 0:
            box_out[0] = u
            score_out[0] = score[r, u]
            return 1
        for b in range(n_boxes):
            if (mask >> b) & 1 == 0 and not is_upper[b]:
                box_out[n] = b
                score_out[n] = joker_score[r, b]
                n += 1
        if n > 0:
            return n
        for b in range(n_boxes):
            if (mask >> b) & 1 == 0:
                box_out[n] = b
                score_out[n] = 0
                n += 1
        return n
    any_fit = False
    for b in range(n_boxes):
        if (mask >> b) & 1 == 0:
            s = joker_score[r, b] if joker else score[r, b]
            box_out[n] = b
            score_out[n] = s
            any_fit = any_fit or s > 0
            n += 1
    if params[P_RESTRICTED] and any_fit:
        kept = 0
        for i in range(n):  # a box may only be scratched when nothing fits
            if score_out[i] > 0:
                box_out[kept] = box_out[i]
                score_out[kept] = score_out[i]
                kept += 1
        n = kept
    return n


@njit(cache=True)
def _final_roll_values(mask, flag, ups, rules, values, out):
    """out[r, j]: best value of ending the turn with roll r at upper total ups[j].

    Value = box score + extra points + bonus crossed + value of the next state.
    The next-state vectors depend only on (box, upper increment, next flag), so
    they are built once per turn and shared by all rolls.
    """
    score, _, joker_roll, _, is_upper, bonus_cum, params = rules
    n_rolls, n_boxes = score.shape
    cap = params[P_CAP]
    jb = params[P_JOKER_BOX]
    two_flags = params[P_FLAGS] == 2
    nj = ups.shape[0]
    slot = np.full((n_boxes, cap + 1, 2), -1, dtype=np.int64)
    vecs = np.empty((n_boxes * 16, nj))
    n_vecs = 0
    box_buf = np.empty(n_boxes, dtype=np.int64)
    score_buf = np.empty(n_boxes, dtype=np.int64)
    for r in range(n_rolls):
        n_opts = _box_options(r, mask, flag, rules, box_buf, score_buf)
        row = out[r]
        row[:] = -np.inf
        for i in range(n_opts):
            b = box_buf[i]
            s = score_buf[i]
            inc = min(s, cap) if is_upper[b] else 0
            nflag = flag
            if b == jb:
                nflag = 1 if (two_flags and s > 0) else 0
            k = slot[b, inc, nflag]
            if k < 0:
                if n_vecs == vecs.shape[0]:
                    grown = np.empty((2 * n_vecs, nj))
                    grown[:n_vecs] = vecs
                    vecs = grown
                k = n_vecs
                n_vecs += 1
                slot[b, inc, nflag] = k
                nmask = mask | (1 << b)
                for j in range(nj):
                    nu = min(ups[j] + inc, cap)
                    vecs[k, j] = bonus_cum[nu] - bonus_cum[ups[j]] + values[nmask, nu, nflag]
            v = vecs[k]
            for j in range(nj):
                row[j] = max(row[j], s + v[j])
        if flag == 1 and joker_roll[r]:
            row += params[P_EXTRA]


@njit(cache=True)
def _reroll_stage(w, add, sub, size_start, min_keep):
    """One reroll decision, in place on w (K, nj).

    On entry w's roll rows hold the value of each roll if the turn's later
    decisions are optimal. On exit they hold the value of each roll one roll
    earlier: the best over every keep inside it (keeping all included) of the
    keep's expected value.
    """
    n_faces = add.shape[1]
    n = size_start.shape[0] - 2
    inv = 1.0 / n_faces
    # expected value of each keep: mean over one more die, from large keeps to small
    for k in range(size_start[n] - 1, -1, -1):
        row = w[k]
        row[:] = w[add[k, 0]]
        for f in range(1, n_faces):
            row += w[add[k, f]]
        row *= inv
    # best keep inside each keep: max over the lattice, one die removed at a time
    for k in range(size_start[min_keep + 1], size_start[n + 1]):
        row = w[k]
        for f in range(n_faces):
            s = sub[k, f]
            if s >= 0:
                np.maximum(row, w[s], row)


@njit(cache=True)
def _turn_values(mask, flag, ups, rules, lattice, values, w):
    """Expected future points of (mask, ups[j], flag) at the start of a turn."""
    _, size_start, add, sub, roll_prob = lattice
    n = size_start.shape[0] - 2
    first_roll = size_start[n]
    _final_roll_values(mask, flag, ups, rules, values, w[first_roll:])
    _reroll_stage(w, add, sub, size_start, rules.params[P_MIN_KEEP])
    _reroll_stage(w, add, sub, size_start, 0)
    result = np.zeros(ups.shape[0])
    for r in range(roll_prob.shape[0]):
        result += roll_prob[r] * w[first_roll + r]
    return result


@njit(cache=True, parallel=True)
def _solve_layer(masks, flags, ups_ptr, ups_list, upper_id, rules, lattice, values):
    """Solve every (mask, flag) work item of one layer; items write disjoint slots."""
    n_keeps = lattice.add.shape[0]
    for i in prange(masks.shape[0]):
        mask = masks[i]
        flag = flags[i]
        u = upper_id[mask]
        ups = ups_list[ups_ptr[u]:ups_ptr[u + 1]]
        w = np.empty((n_keeps, ups.shape[0]))
        res = _turn_values(mask, flag, ups, rules, lattice, values, w)
        for j in range(ups.shape[0]):
            values[mask, ups[j], flag] = res[j]


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
    options = [upper_values(variant, i) for i in upper]
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


class Engine(NamedTuple):
    """Everything the kernels need for one variant (identical dice)."""
    variant: Variant
    rules: Rules
    lattice: object
    upper: UpperStates


def make_engine(variant: Variant) -> Engine:
    if not variant.identical_dice:
        raise NotImplementedError(f"{variant.name}: dice with different faces need the ordered-dice solver")
    faces = variant.faces
    lattice = keep_lattice(variant.n_dice, len(faces))
    rolls = [tuple(f for f, c in zip(faces, m) for _ in range(c)) for m in multisets(variant.n_dice, len(faces))]
    return Engine(variant, rules_arrays(variant, rolls), lattice, upper_states(variant))


def table_shape(variant: Variant) -> tuple[int, int, int]:
    return (1 << len(variant.boxes), variant.upper_cap + 1, 2 if variant.has_flag else 1)


def solve(variant: Variant, progress=None) -> tuple[np.ndarray, int]:
    """The full table of state values, and the number of states solved.

    `progress`, if given, is called after each layer with the layer's number of
    solved states. Unreachable states hold NaN.
    """
    engine = make_engine(variant)
    values = np.full(table_shape(variant), np.nan)
    full = (1 << len(variant.boxes)) - 1
    values[full] = 0.0
    up = engine.upper
    counts = np.diff(up.ups_ptr)
    solved = 0
    for n_filled in range(len(variant.boxes) - 1, -1, -1):
        masks, flags = layer_items(variant, n_filled)
        order = np.argsort(-counts[up.upper_id[masks]], kind="stable")  # big items first balances threads
        masks, flags = masks[order], flags[order]
        _solve_layer(masks, flags, up.ups_ptr, up.ups_list, up.upper_id, engine.rules, engine.lattice, values)
        _fill_equivalent(masks, flags, up.upper_id, up.canon, values)
        n_states = int(counts[up.upper_id[masks]].sum())
        solved += n_states
        if progress is not None:
            progress(n_states)
    return values, solved


def set_threads(n: int | None) -> None:
    if n:
        numba.set_num_threads(n)
