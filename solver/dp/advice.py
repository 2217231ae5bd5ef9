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

import numpy as np

from .advice_pack import (
    _unpack,
)
from .compile import njit
from .entries import (
    _final_roll_values,
    _first_roll_rules,
    _first_roll_stops,
    _free_boxes,
    _roll_range_options,
)
from .identical import _best_sub_keeps, _keep_means
from .rules import P_CAP, P_EXTRA, P_FIRST_ROLL, P_MIN_KEEP

ENTRY_AFTER_FIRST = 4  # the roll code of the entries of a turn stopped after roll 1


@njit(inline="always")  # in the hot path of best_one (roll 3): no call, no returned tuple
def _box_scratch(n_boxes):
    """_box_option_values' working arrays (option_move, option_points, n_option): made once, used for every call."""
    return np.empty((1, n_boxes), dtype=np.int64), np.empty((1, n_boxes), dtype=np.int64), np.empty(1, dtype=np.int64)


@njit(cache=True)
def _box_option_values(mask, capped_upper, joker_scored, r, rules, values, scratch, codes, vals, pts, i, base):
    """Roll 3: codes[i, :n], vals[i, :n] (and pts[i, :n], the points entered, when pts has rows) for every
    entry roll r allows; returns (n, column of the best). scratch: _box_scratch's.

    Same arithmetic as _final_roll_values, so the best entry equals the final-roll value bit for bit."""
    option_move, option_points, n_option = scratch
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


def _advise_states(s_lo, s_hi, situations, rules, lattice, tabs, values, out, base):
    """The situations of states s_lo <= s < s_hi (situations order[state_ptr[s]:state_ptr[s + 1]] share
    state s). The states whose situations need keep values share one lattice array, a column each.
    The best option is the first with the highest base + value (the advisor ranks expected final
    scores, points on the card + value, whose rounding can tie two values 1e-14 apart). situations =
    (state_ptr, order, mask, upper, joker_scored, roll_row, roll); out: as advise_batch's."""
    state_ptr, order, mask, upper, joker_scored, roll_row, roll = situations
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
        # a C-contiguous column, copied into by_keep: a column slice's layout would compile _final_roll_values
        # (and its callees) a second time, beside the version every other kernel shares
        column = np.empty((n_keeps, 1))
        for s in range(s_lo, s_hi):
            c = col[s - s_lo]
            if c >= 0:
                i = order[state_ptr[s]]
                upper_totals[0] = upper[i]
                _final_roll_values(mask[i], joker_scored[i], upper_totals, rules, values, column, first_roll)
                for k in range(first_roll, n_keeps):  # loops, not slice copies: see compile.py
                    by_keep[k, c] = column[k, 0]
        final = by_keep[first_roll:].copy()
        stops1 = final  # the value of stopping after roll 1
        if need_first and rules.params[P_FIRST_ROLL] != 0:
            stops1 = np.empty_like(final)
            for s in range(s_lo, s_hi):
                c = col[s - s_lo]
                if c >= 0:
                    i = order[state_ptr[s]]
                    upper_totals[0] = upper[i]
                    stops = _first_roll_stops(mask[i], joker_scored[i], upper_totals, rules, values)
                    for r in range(stops.shape[0]):
                        stops1[r, c] = stops[r, 0]
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
    scratch = _box_scratch(n_boxes)
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
                scratch,
                codes,
                vals,
                pts,
                i,
                base,
            )
            _pad_row(codes, vals, i, n_options[i])


# advise_batch's kernel; _advise_one inlines the same code (one level less to compile: a kernel's compile
# optimises again the code of every kernel it calls, see compile.py)
_advise_block = njit(cache=True)(_advise_states)
_advise_block_inline = njit(inline="always")(_advise_states)


@njit(cache=True, nogil=True)
def advise_batch(
    lo, hi, block_ptr, state_ptr, order, mask, upper, joker_scored, roll_row, roll, rules, lattice, tabs, values, out
):
    """Every option of every situation of the blocks of states lo .. hi - 1 (a plain kernel that
    lanes.in_threads runs on threads: a prange kernel compiles for seconds longer, see compile.py).

    order lists the situations grouped by state: state s is order[state_ptr[s]:state_ptr[s + 1]], block b
    the states block_ptr[b] .. block_ptr[b + 1] - 1 (a few: their turns run as the columns of one
    keep-lattice array, so the lattice passes are vector loops). upper is capped at the variant's cap;
    roll_row is the roll's row (its keep index minus the first roll's). out = (codes, vals, n_options, best,
    pts): codes/vals (N, M) padded with -1 / NaN, n_options (N,), best (N,): the column of the best option, the
    first of the highest value in option order; pts (N, M) the points of box options, or (0, 0): not wanted."""
    situations = (state_ptr, order, mask, upper, joker_scored, roll_row, roll)
    for b in range(lo, hi):  # (rules, lattice, tabs: namedtuples, which no tuple may hold here)
        _advise_block(block_ptr[b], block_ptr[b + 1], situations, rules, lattice, tabs, values, out, 0.0)


@njit(cache=True)
def _advise_one(m, u, f, r, rl, ints, floats, values, codes, vals, pts, base):
    """One situation, all arguments packed (see pack_single): Numba unboxes each array argument of a call
    (a few tenths of a µs each), so the single call takes five instead of twenty."""
    rules, lattice, tabs = _unpack(ints, floats)
    situations = (  # one state with one situation (see _advise_block)
        np.arange(2),
        np.zeros(1, dtype=np.int64),
        np.full(1, m),
        np.full(1, u),
        np.full(1, f),
        np.full(1, r),
        np.full(1, rl),
    )
    n_options = np.empty(1, dtype=np.int64)
    best = np.empty(1, dtype=np.int64)
    _advise_block_inline(
        np.int64(0), np.int64(1), situations, rules, lattice, tabs, values, (codes, vals, n_options, best, pts), base
    )
    return n_options[0], best[0]


def advise_one(
    packed, values, mask, upper, joker_scored, roll_row, roll, codes, vals, pts, base=0.0
) -> tuple[int, int]:
    """One situation into row 0 of codes, vals, pts (1, M) int64, float64, int64: (number of options, column
    of the best: the first of the highest base + value). packed = pack_single(...); upper capped at the
    variant's cap."""
    ints, floats = packed
    return _advise_one(mask, upper, joker_scored, roll_row, roll, ints, floats, values, codes, vals, pts, float(base))
