"""The end of a turn: which entries a final roll may make (the one place where the scratching and
joker rules act) and what each final roll is worth."""

from __future__ import annotations

import numpy as np

from .compile import njit, unmasked
from .rules import P_CAP, P_EXTRA, P_FIRST_ROLL, P_JOKER, P_JOKER_BOX, P_RESTRICTED, Rules


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
def _box_options(mask, joker_scored, rules, option_move, option_points, n_options):
    """For every final roll r: the entries it may make in state (mask, joker_scored).

    Fills option_move[r, :n_options[r]] and option_points[r, :n_options[r]] (the move and
    the points of each entry); n_options[r] = -1 stands for the common case, every
    free box with its normal score (see roll_entries).
    """
    free = _free_boxes(mask, rules.score.shape[1])  # passed: one compiled version of _roll_range_options (below)
    _roll_range_options(
        mask, joker_scored, rules, np.int64(0), rules.score.shape[0], option_move, option_points, n_options, free
    )


@njit(cache=True)
def _roll_range_options(mask, joker_scored, rules, r_lo, r_hi, option_move, option_points, n_options, free):
    """_box_options for the final rolls r_lo <= r < r_hi only, into rows r - r_lo. This is the one place where
    the scratching and joker rules act. (A range of rolls in one call: a call costs more than a roll's work,
    0.1-0.2 us of reference counts of the rules' arrays; free: _free_boxes(mask), which every caller has or
    makes: an optional argument compiles a version of this kernel for each caller that leaves it out.)
    """
    score, joker_score, joker_roll, joker_upper, is_upper = rules[:5]
    params, norm_move, joker_move, zero_move = rules.params, rules.norm_move, rules.joker_move, rules.zero_move
    mode = params[P_JOKER]
    jb = params[P_JOKER_BOX]
    restricted = params[P_RESTRICTED] != 0
    jb_filled = jb >= 0 and (mask >> jb) & 1 == 1
    n_free = free.shape[0]
    for r in range(r_lo, r_hi):
        o = r - r_lo
        joker = False
        if mode != 0 and joker_roll[r]:
            if mode == 1 or mode == 4 or mode == 5:  # box maximum / fixed score / fits: while the box holds points
                joker = joker_scored == 1
            elif mode == 2:  # forced: whenever the joker box is filled
                joker = jb_filled
            else:  # free choice: joker box filled and the matching upper box filled (or absent)
                u = joker_upper[r]
                joker = jb_filled and (u < 0 or (mask >> u) & 1 == 1)
        n = 0
        if joker and mode == 2:
            u = joker_upper[r]
            if u >= 0 and (mask >> u) & 1 == 0:  # the matching upper box must be used
                option_move[o, 0] = norm_move[r, u]
                option_points[o, 0] = score[r, u]
                n = 1
            else:
                for b in free[:n_free]:  # else any free lower box
                    if not is_upper[b]:
                        option_move[o, n] = joker_move[r, b]
                        option_points[o, n] = joker_score[r, b]
                        n += 1
                if n == 0:
                    for b in free[:n_free]:  # else scratch an upper box
                        option_move[o, n] = zero_move[b]
                        option_points[o, n] = 0
                        n += 1
            n_options[o] = n
            continue
        if not joker and not restricted:
            n_options[o] = -1  # the common case, left implicit: every free box, normal score
            continue
        any_fit = False
        for b in free[:n_free]:
            if joker:
                option_move[o, n] = joker_move[r, b]
                option_points[o, n] = joker_score[r, b]
            else:
                option_move[o, n] = norm_move[r, b]
                option_points[o, n] = score[r, b]
            any_fit = any_fit or option_points[o, n] > 0
            n += 1
        if restricted and any_fit:
            kept = 0
            for i in range(n):  # a box may only be scratched when nothing fits
                if option_points[o, i] > 0:
                    option_move[o, kept] = option_move[o, i]
                    option_points[o, kept] = option_points[o, i]
                    kept += 1
            n = kept
        n_options[o] = n


def roll_entries(rules: Rules, mask: int, joker_scored: int, r: int) -> list[tuple[int, int]]:
    """(box, points) of every entry final roll r may make in state (mask, joker_scored)."""
    n_rolls, n_boxes = rules.score.shape
    moves = np.empty((n_rolls, n_boxes), dtype=np.int64)
    points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_options = np.empty(n_rolls, dtype=np.int64)
    _box_options(int(mask), int(joker_scored), rules, moves, points, n_options)  # ints: a bool compiles anew
    if n_options[r] < 0:
        return [(b, int(rules.score[r, b])) for b in range(n_boxes) if not mask >> b & 1]
    return [(int(rules.move_box[moves[r, i]]), int(points[r, i])) for i in range(n_options[r])]


@njit(cache=True)
def _move_values(mask, joker_scored, upper_totals, rules, values, vecs):
    """vecs[m, j]: bonus crossed + value of the next state of move m from upper total upper_totals[j] (moves
    into free boxes only; the rest is left untouched)."""
    cap = rules.params[P_CAP]
    bonus_cum = rules.bonus_cum
    for m in range(rules.move_box.shape[0]):
        b = rules.move_box[m]
        if (mask >> b) & 1 == 0:
            nmask = mask | (1 << b)
            inc = rules.move_inc[m]
            next_joker_scored = joker_scored if rules.move_flag[m] < 0 else rules.move_flag[m]
            for j in range(upper_totals.shape[0]):
                nu = min(upper_totals[j] + inc, cap)
                vecs[m, j] = bonus_cum[nu] - bonus_cum[upper_totals[j]] + values[nmask, nu, next_joker_scored]


@njit(cache=True)
def _final_roll_values(mask, joker_scored, upper_totals, rules, values, out, first):
    """out[first + r, j]: best value of ending the turn with roll r at upper total upper_totals[j].

    Value = box score + extra points + bonus crossed + value of the next state.
    The next-state vectors depend only on the move, so they are built once per
    turn and shared by all rolls.
    """
    n_rolls, n_boxes = rules.score.shape
    params = rules.params
    nj = upper_totals.shape[0]
    vecs = np.empty((rules.move_box.shape[0], nj))
    _move_values(mask, joker_scored, upper_totals, rules, values, vecs)
    free = _free_boxes(mask, n_boxes)
    n_free = free.shape[0]
    if nj == 1:  # one column (advice, one state at a time)
        _final_roll_values_one(mask, joker_scored, rules, vecs, out, first, free)
        return
    option_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
    option_points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_options = np.empty(n_rolls, dtype=np.int64)
    _box_options(mask, joker_scored, rules, option_move, option_points, n_options)
    extra = float(params[P_EXTRA])
    for r in range(n_rolls):
        row = first + r
        for j in range(nj):
            out[row, j] = -np.inf
        implicit = n_options[r] < 0
        for i in range(n_free if implicit else n_options[r]):
            if implicit:
                k = rules.norm_move[r, free[i]]
                s = float(rules.score[r, free[i]])
            else:
                k = option_move[r, i]
                s = float(option_points[r, i])
            for j in range(nj):
                out[row, j] = unmasked(max(out[row, j], s + vecs[k, j]))
        if joker_scored == 1 and rules.joker_roll[r]:
            for j in range(nj):
                out[row, j] += extra


@njit(cache=True)
def _final_roll_values_one(mask, joker_scored, rules, vecs, out, first, free):
    """_final_roll_values for one upper total (vecs has one column): the same sums and maxima, without
    listing every roll's entries (that listing cost twice the sums). A roll that is not a joker roll may
    make every free box with its normal score, or under restricted scratching every free box it fits
    (scores more than 0) and all of them when it fits none: both maxima come from one pass over the
    free boxes. The joker rolls take their entries from _roll_range_options, as everywhere."""
    score, norm_move = rules.score, rules.norm_move
    n_rolls = score.shape[0]
    n_free = free.shape[0]
    restricted = rules.params[P_RESTRICTED] != 0
    for r in range(n_rolls):
        best = -np.inf
        fit = -np.inf
        for i in range(n_free):
            b = free[i]
            s = score[r, b]
            v = float(s) + vecs[norm_move[r, b], 0]
            best = max(best, v)
            if s > 0:
                fit = max(fit, v)
        out[first + r, 0] = fit if restricted and fit > -np.inf else best
    # out's column as a C-contiguous vector, vecs' as a column: best_one's types (one compiled version)
    _joker_roll_values(mask, joker_scored, rules, vecs[:, 0], out[first:].reshape(out.shape[0] - first), free)


@njit(cache=True)
def _joker_roll_values(mask, joker_scored, rules, vec, out, free):
    """The one-column final-roll values' joker rolls (vec[m]: bonus crossed + next value of move m; out[r]: the
    value of final roll r, every other roll already done; free: _free_boxes(mask), the caller's): their entries
    from _roll_range_options, then the extra points of a further joker. Skipped where no roll can be a joker in
    this state (the state's half of _roll_range_options' test: the modes that need points in the joker box see
    joker_scored, the others a filled joker box): the entries it lists then are the ones the caller's normal
    pass took the maximum of."""
    params, joker_roll = rules.params, rules.joker_roll
    n_rolls, n_boxes = rules.score.shape
    mode, jb = params[P_JOKER], params[P_JOKER_BOX]
    if mode == 1 or mode == 4 or mode == 5:
        may_joker = joker_scored == 1
    else:
        may_joker = mode != 0 and jb >= 0 and (mask >> jb) & 1 == 1
    if may_joker:
        # one roll a call (a range of one): an array of rolls as a further argument compiled a second version
        option_move = np.empty((1, n_boxes), dtype=np.int64)
        option_points = np.empty((1, n_boxes), dtype=np.int64)
        n_option = np.empty(1, dtype=np.int64)
        for r in range(n_rolls):
            if not joker_roll[r]:
                continue
            _roll_range_options(mask, joker_scored, rules, r, r + 1, option_move, option_points, n_option, free)
            if n_option[0] >= 0:  # else the implicit case: every free box, normal score (as above)
                best = -np.inf
                for i in range(n_option[0]):
                    best = max(best, float(option_points[0, i]) + vec[option_move[0, i]])
                out[r] = best
    if joker_scored == 1:
        extra = float(params[P_EXTRA])
        for r in range(n_rolls):
            out[r] += extra if joker_roll[r] else 0.0  # adding 0.0 elsewhere: a plain store (see unmasked)


@njit(cache=True)
def _first_roll_rules(rules):
    """The rules of an entry made after roll 1: the first-roll (servida) scores in place of the normal ones."""
    return Rules(
        rules.first_score,
        rules.first_joker_score,
        rules.joker_roll,
        rules.joker_upper,
        rules.is_upper,
        rules.bonus_cum,
        rules.params,
        rules.move_box,
        rules.move_inc,
        rules.move_flag,
        rules.norm_move,
        rules.joker_move,
        rules.zero_move,
        rules.first_score,
        rules.first_joker_score,
    )


@njit(cache=True)
def _first_roll_stops(mask, joker_scored, upper_totals, rules, values):
    """(R, nj): the value of stopping after roll 1 with roll r at upper total upper_totals[j], where stopping
    then scores more (first-roll points, Generala's servida); no rows for variants without them. The one
    term every turn kernel adds: the value of roll 1 is the larger of its keep-lattice value and this."""
    if rules.params[P_FIRST_ROLL] == 0:
        return np.empty((0, upper_totals.shape[0]))
    stops = np.empty((rules.score.shape[0], upper_totals.shape[0]))
    _final_roll_values(mask, joker_scored, upper_totals, _first_roll_rules(rules), values, stops, np.int64(0))
    return stops


@njit(inline="always")
def _option_value(m, s, mask, joker_scored, capped_upper, move_inc, move_flag, move_box, bonus_cum, cap, values):
    """The value of making move m with s points at capped upper total capped_upper. A float alone, the arrays
    apart: with a tuple returned (the value and the entry) or passed (Rules' arrays) the loops ran 13x slower."""
    nu = min(capped_upper + move_inc[m], cap)
    nf = joker_scored if move_flag[m] < 0 else move_flag[m]
    return s + bonus_cum[nu] - bonus_cum[capped_upper] + values[mask | (1 << move_box[m]), nu, nf]


@njit(inline="always")
def _entry_arrays(rules):
    """The arrays of Rules that _pick_option reads, read once: each read of one counts a reference
    (atomically), which in the loops of _pick_entry cost more than the sums."""
    return rules.norm_move, rules.score, rules.move_inc, rules.move_flag, rules.move_box, rules.bonus_cum


@njit(cache=True)
def _pick_entry(r, mask, joker_scored, capped_upper, rules, values, option_move, option_points, n_options, tie):
    """(box, points, next flag) of final roll r (multiset row) at capped upper total capped_upper: the best entry,
    the lowest box among those within tie of the best (options come in box order)."""
    return _pick_option(
        r, mask, joker_scored, capped_upper, _entry_arrays(rules), rules.params[P_CAP], values, option_move,
        option_points, n_options, tie,
    )  # fmt: skip


@njit(inline="always")
def _pick_option(r, mask, joker_scored, capped_upper, arrays, cap, values, option_move, option_points, n_options, tie):
    """_pick_entry with Rules' arrays read before (_entry_arrays; a kernel that picks many entries reads them
    once). Two passes that compute the same values: no buffer per call (this runs once per game and turn)."""
    norm_move, score, move_inc, move_flag, move_box, bonus_cum = arrays
    implicit = n_options[r] < 0
    n = score.shape[1] if implicit else n_options[r]
    best = -np.inf
    for o in range(n):
        if implicit and (mask >> o) & 1:
            continue
        m, s = (norm_move[r, o], score[r, o]) if implicit else (option_move[r, o], option_points[r, o])
        v = _option_value(m, s, mask, joker_scored, capped_upper, move_inc, move_flag, move_box, bonus_cum, cap, values)
        best = max(best, v)
    for o in range(n):
        if implicit and (mask >> o) & 1:
            if best == -np.inf:  # every box filled (never in a game)
                return o, 0, joker_scored
            continue
        m, s = (norm_move[r, o], score[r, o]) if implicit else (option_move[r, o], option_points[r, o])
        v = _option_value(m, s, mask, joker_scored, capped_upper, move_inc, move_flag, move_box, bonus_cum, cap, values)
        if v >= best - tie:
            return move_box[m], s, joker_scored if move_flag[m] < 0 else move_flag[m]
    return -1, 0, joker_scored
