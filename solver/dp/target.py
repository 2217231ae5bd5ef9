"""Target tables: for every state at the start of a turn and every need n (points still needed), the
maximum probability of scoring at least n more points.

It is the expected-value recursion with vectors as values. A final roll is worth, for each need n,
the max over its allowed entries of P_next(n - points - bonus - extra); the keep-lattice passes of
identical.py (element-wise means and maxes) then run unchanged over a longer column axis: upper
totals x needs. P(n <= 0) = 1. P_s(n) reads only needs <= n of the next states, so a table up to
N is exact for every need up to N.

Layout (compact): the work item (mask, joker_scored) stores, for each upper total it solves (states.py's
representatives) and each need 1..L, one float64, where L = min(N, the most the item can still
score); needs above L have probability 0. flat[offset + col * L + n - 1], col = the upper total's
position among the item's solved totals. A built table holds every layer; a loaded one leaves the
layers in layout.dropped out of flat (offset -1) and recomputes them when read (solver/store/target_layers.py).
"""

from __future__ import annotations

import numpy as np

from .compile import njit, require_jit, unmasked
from .engine import Engine
from .entries import _box_options, _first_roll_rules, _free_boxes
from .identical import _best_sub_keeps_rows, _keep_means, turn_from_final_rolls
from .lanes import layer_lanes, run_lanes
from .rules import P_CAP, P_EXTRA, P_FIRST_ROLL, P_MIN_KEEP
from .states import layer_items
from .target_layout import (
    TargetLayout,
)

# columns per pass of the turn kernel: (K, BLOCK) float64 stays in the L2 cache; 16, 32 and 64 were
# measured slower (kniffel, layers 9-10, one thread: 3.9, 3.0, 3.3 us a column against 2.5 for 128)
BLOCK = 128


# -- the turn kernel over (upper total, need) columns ---------------------------------------------
@njit(cache=True)
def _item_setup(mask, joker_scored, upper_totals, rules, offset, length, col, row):
    """What a turn of work item (mask, joker_scored) needs for every block of its columns.

    The entries of the final rolls as slots: each distinct (move, points gained) pair is one slot, and
    roll r's entries are slots roll_slot[r, :roll_n[r]] (many rolls share a slot: a box scores the same
    for many rolls). Per (move, upper total j): where the next state's needs start in flat (base), how
    many it stores (nlen) and the bonus points the move earns (shift)."""
    n_rolls, n_boxes = rules.score.shape
    cap = rules.params[P_CAP]
    extra = rules.params[P_EXTRA]
    option_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
    option_points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_options = np.empty(n_rolls, dtype=np.int64)
    _box_options(mask, joker_scored, rules, option_move, option_points, n_options)
    n_moves, n_totals = rules.move_box.shape[0], upper_totals.shape[0]
    free = _free_boxes(mask, n_boxes)
    n_free = free.shape[0]
    most = extra + 1
    for r in range(n_rolls):
        for b in range(n_boxes):
            most = max(most, rules.score[r, b] + extra + 1)
        for e in range(max(n_options[r], 0)):
            most = max(most, option_points[r, e] + extra + 1)
    slot_of = np.full((n_moves, most), -1, dtype=np.int64)
    roll_slot = np.empty((n_rolls, n_boxes), dtype=np.int64)
    roll_n = np.empty(n_rolls, dtype=np.int64)
    slot_move = np.empty(n_rolls * n_boxes, dtype=np.int64)
    slot_gain = np.empty(n_rolls * n_boxes, dtype=np.int64)
    n_slots = 0
    for r in range(n_rolls):
        bonus_extra = extra if joker_scored == 1 and rules.joker_roll[r] else 0
        implicit = n_options[r] < 0
        roll_n[r] = n_free if implicit else n_options[r]
        for e in range(roll_n[r]):
            if implicit:
                m, gain = rules.norm_move[r, free[e]], rules.score[r, free[e]] + bonus_extra
            else:
                m, gain = option_move[r, e], option_points[r, e] + bonus_extra
            if slot_of[m, gain] < 0:
                slot_of[m, gain] = n_slots
                slot_move[n_slots] = m
                slot_gain[n_slots] = gain
                n_slots += 1
            roll_slot[r, e] = slot_of[m, gain]
    base = np.zeros((n_moves, n_totals), dtype=np.int64)
    nlen = np.zeros((n_moves, n_totals), dtype=np.int64)
    shift = np.zeros((n_moves, n_totals), dtype=np.int64)
    for m in range(n_moves):
        b = rules.move_box[m]
        if (mask >> b) & 1 == 0:
            nmask = mask | (1 << b)
            next_joker_scored = joker_scored if rules.move_flag[m] < 0 else rules.move_flag[m]
            ln = length[nmask, next_joker_scored]
            for j in range(n_totals):
                nu = min(upper_totals[j] + rules.move_inc[m], cap)
                nlen[m, j] = ln
                base[m, j] = offset[nmask, next_joker_scored] + col[row[nmask, next_joker_scored], nu] * ln - 1
                shift[m, j] = int(rules.bonus_cum[nu] - rules.bonus_cum[upper_totals[j]])
    return roll_slot, roll_n, slot_move[:n_slots].copy(), slot_gain[:n_slots].copy(), base, nlen, shift


@njit(cache=True)
def _target_final_rolls(setup, run_j, run_n, run_c, flat, by_keep, first, slot_values):
    """by_keep[first + r, c]: the best probability of reaching the column's need when ending the turn with
    roll r. Columns come in runs: run i covers columns run_c[i] .. run_c[i+1]-1 at upper total j =
    run_j[i] and needs run_n[i], run_n[i] + 1, ...: a slot's next needs are then a shifted contiguous
    slice of its next state's column. Each slot's values are read once into slot_values (n_slots, nc);
    a roll's row is then the max of its slots' rows."""
    roll_slot, roll_n, slot_move, slot_gain, base, nlen, shift = setup
    n_runs = run_j.shape[0]
    nc = by_keep.shape[1]
    for sl in range(slot_move.shape[0]):
        m, gain = slot_move[sl], slot_gain[sl]
        for i in range(n_runs):
            j, c0, c1 = run_j[i], run_c[i], run_c[i + 1]
            # need n at column c0 + k is run_n[i] + k; the next need is n - gained
            n0 = run_n[i] - (gain + shift[m, j])
            k_one = min(max(1 - n0, 0), c1 - c0)  # next need <= 0: certain
            for k in range(k_one):
                slot_values[sl, c0 + k] = 1.0
            k_end = min(max(nlen[m, j] - n0 + 1, k_one), c1 - c0)  # next need in 1..L_next: read it
            src = base[m, j] + n0
            for k in range(k_one, k_end):
                slot_values[sl, c0 + k] = flat[src + k]
            for k in range(k_end, c1 - c0):  # beyond L_next the probability is 0
                slot_values[sl, c0 + k] = 0.0
    for r in range(roll_n.shape[0]):
        out_row, n = first + r, roll_n[r]
        if n == 0:
            for c in range(nc):
                by_keep[out_row, c] = 0.0
            continue
        a = roll_slot[r, 0]
        b = roll_slot[r, 1] if n > 1 else a
        for c in range(nc):
            by_keep[out_row, c] = max(slot_values[a, c], slot_values[b, c])
        e = 2
        while e + 2 <= n:  # two slots per pass: fewer loads and stores of the roll's row
            a, b = roll_slot[r, e], roll_slot[r, e + 1]
            for c in range(nc):
                by_keep[out_row, c] = unmasked(max(by_keep[out_row, c], max(slot_values[a, c], slot_values[b, c])))
            e += 2
        if e < n:
            a = roll_slot[r, e]
            for c in range(nc):
                by_keep[out_row, c] = unmasked(max(by_keep[out_row, c], slot_values[a, c]))


@njit(cache=True)
def _start_of_turn(by_keep, rules, lattice, result, stops):
    """The turn's lattice passes (keep means, best keeps, then the stop after roll 1) with
    _best_sub_keeps_rows: from the final-roll values in by_keep's roll rows to result[j], the probability
    at the turn's start (stops: the stops after roll 1 with first-roll points, no rows without them)."""
    _, size_start, add, sub, roll_prob = lattice
    first_roll = size_start[size_start.shape[0] - 2]
    _keep_means(by_keep, add, size_start)  # keeps after the second roll
    _best_sub_keeps_rows(by_keep, sub, size_start[rules.params[P_MIN_KEEP] + 1], first_roll + roll_prob.shape[0])
    _keep_means(by_keep, add, size_start)  # keeps after the first roll
    _best_sub_keeps_rows(by_keep, sub, size_start[1], first_roll)
    _first_roll_sum(by_keep, sub, first_roll, roll_prob, stops, result)


@njit(cache=True)
def _first_roll_sum(by_keep, sub, first_roll, roll_prob, stops, result):
    """result[j] = the sum over rolls r of P(r) x the best after roll 1 with roll r (its best keep, or the
    stop with first-roll points): the last keeps-inside pass, summed as it goes instead of stored: the same
    maxes and the same sum in the same order as _best_sub_keeps, then _with_first_roll_stops, then the sum."""
    nj = by_keep.shape[1]
    inside = np.empty(sub.shape[1], dtype=np.int64)
    for j in range(nj):
        result[j] = 0.0
    for r in range(roll_prob.shape[0]):
        k, p = first_roll + r, roll_prob[r]
        c = 0
        for f in range(sub.shape[1]):
            if sub[k, f] >= 0:
                inside[c] = sub[k, f]
                c += 1
        if stops.shape[0] > 0 or c > 5 or c < 1:  # the general case: store the row, then add it
            _best_sub_keeps_rows(by_keep, sub, k, k + 1)
            if stops.shape[0] > 0:
                for j in range(nj):
                    by_keep[k, j] = unmasked(max(by_keep[k, j], stops[r, j]))
            for j in range(nj):
                result[j] += p * by_keep[k, j]
        elif c == 1:
            a = inside[0]
            for j in range(nj):
                result[j] += p * max(by_keep[k, j], by_keep[a, j])
        elif c == 2:
            a, b = inside[0], inside[1]
            for j in range(nj):
                result[j] += p * max(by_keep[k, j], max(by_keep[a, j], by_keep[b, j]))
        elif c == 3:
            a, b, d = inside[0], inside[1], inside[2]
            for j in range(nj):
                result[j] += p * max(max(by_keep[k, j], by_keep[a, j]), max(by_keep[b, j], by_keep[d, j]))
        elif c == 4:
            a, b, d, e = inside[0], inside[1], inside[2], inside[3]
            for j in range(nj):
                result[j] += p * max(
                    max(by_keep[k, j], by_keep[a, j]), max(max(by_keep[b, j], by_keep[d, j]), by_keep[e, j])
                )
        else:
            a, b, d, e, g = inside[0], inside[1], inside[2], inside[3], inside[4]
            for j in range(nj):
                result[j] += p * max(
                    max(max(by_keep[k, j], by_keep[a, j]), max(by_keep[b, j], by_keep[d, j])),
                    max(by_keep[e, j], by_keep[g, j]),
                )


@njit(cache=True)
def _item_columns(mask, joker_scored, upper_totals, ln, rules, lattice, flat, offset, length, col, row, out):
    """The target columns of work item (mask, joker_scored) at the upper totals `upper_totals`, needs 1..ln each,
    into out[j * ln + n - 1], the next states read from flat. Every column is computed on its own (the
    passes are element-wise over columns), so a column's values do not depend on which others share
    its block: recomputing one upper total gives the build's values bit for bit."""
    n_keeps = lattice.add.shape[0]
    first_roll = lattice.size_start[lattice.size_start.shape[0] - 2]
    total = upper_totals.shape[0] * ln
    by_keep = np.empty((n_keeps, BLOCK))
    result = np.empty(BLOCK)
    setup = _item_setup(mask, joker_scored, upper_totals, rules, offset, length, col, row)
    servida = rules.params[P_FIRST_ROLL] != 0
    first_setup = (
        _item_setup(mask, joker_scored, upper_totals, _first_roll_rules(rules), offset, length, col, row)
        if servida
        else setup
    )
    stops = np.empty((rules.score.shape[0] if servida else 0, BLOCK))
    slot_values = np.empty((setup[2].shape[0], BLOCK))
    first_slot_values = np.empty((first_setup[2].shape[0], BLOCK))
    run_j = np.empty(BLOCK + 1, dtype=np.int64)
    run_n = np.empty(BLOCK + 1, dtype=np.int64)
    run_c = np.empty(BLOCK + 2, dtype=np.int64)
    for c0 in range(0, total, BLOCK):
        c1 = min(c0 + BLOCK, total)
        # the runs of this block: one per upper total it touches
        n_runs = 0
        c = c0
        while c < c1:
            j, n = c // ln, c % ln + 1
            run_j[n_runs] = j
            run_n[n_runs] = n
            run_c[n_runs] = c - c0
            n_runs += 1
            c = min(c1, (j + 1) * ln)
        run_c[n_runs] = c1 - c0
        if c1 - c0 < BLOCK:  # a short last block: the spare columns repeat the last one
            run_c[n_runs] = BLOCK
        runs = run_j[:n_runs], run_n[:n_runs], run_c[: n_runs + 1]
        _target_final_rolls(setup, runs[0], runs[1], runs[2], flat, by_keep, first_roll, slot_values)
        if servida:  # after roll 1 the player may stop and enter the first-roll (servida) scores
            _target_final_rolls(  # np.int64(0), not the literal 0: the one compiled version, not a second
                first_setup, runs[0], runs[1], runs[2], flat, stops, np.int64(0), first_slot_values
            )
        _start_of_turn(by_keep, rules, lattice, result, stops)
        for k in range(c1 - c0):
            out[c0 + k] = result[k]


@njit(cache=True, nogil=True)
def _target_lane(
    first, last, masks, jokers_scored, totals_ptr, totals_list, rules, lattice, flat, offset, length, col, row, dest, at
):
    """Solve the target columns of the work items first..last-1 of one layer: one lane (dp/lanes.py). The next
    states are read from flat (by offset), item i's columns written to dest from at[i] on (the build: dest is
    flat itself; a job's chunk (solver/jobs): its own shard, the next layer a read-only file)."""
    for i in range(first, last):
        mask, joker_scored = masks[i], jokers_scored[i]
        ln = length[mask, joker_scored]
        if ln == 0:
            continue
        rw = row[mask, joker_scored]
        upper_totals = totals_list[totals_ptr[rw] : totals_ptr[rw + 1]]
        out = dest[at[i] : at[i] + upper_totals.shape[0] * ln]
        _item_columns(mask, joker_scored, upper_totals, ln, rules, lattice, flat, offset, length, col, row, out)


def solve_target(engine: Engine, layout: TargetLayout, progress=None, min_filled: int = 0) -> np.ndarray:
    """The flat target table (see the module's doc); progress(n_values) after each layer.
    `min_filled` > 0 solves only the cards with at least that many boxes filled (end-game tests);
    the others stay 0."""
    variant, upper_states = engine.variant, engine.upper
    if engine.lattice is None:
        raise ValueError("target tables are built for identical dice only")
    require_jit("jit_target", variant=variant.name)
    flat = np.zeros(layout.size)
    for n_filled in range(len(variant.boxes) - 1, min_filled - 1, -1):
        masks, jokers_scored = layer_items(variant, n_filled)
        sizes = (
            np.diff(upper_states.totals_ptr)[upper_states.row[masks, jokers_scored]]
            * layout.length[masks, jokers_scored]
        )
        lane_start, masks, jokers_scored = layer_lanes(masks, jokers_scored, sizes)
        at = layout.offset[masks, jokers_scored]
        run_lanes(_target_lane, lane_start, masks, jokers_scored, *_lane_inputs(engine, layout, flat), flat, at)
        if progress is not None:
            progress(int(sizes.sum()))
    return flat


def item_columns(
    engine: Engine,
    layout: TargetLayout,
    flat: np.ndarray,
    mask: int,
    joker_scored: int,
    upper_totals: np.ndarray,
    out: np.ndarray,
) -> None:
    """The target columns of item (mask, joker_scored) at the upper totals `upper_totals` (representatives),
    needs 1..L each, into out (len(upper_totals) * L), the next states read from (flat, layout)."""
    ln = int(layout.length[mask, joker_scored])
    lay = layout
    _item_columns(
        mask,
        joker_scored,
        upper_totals,
        ln,
        engine.rules,
        engine.lattice,
        read_only(flat),
        lay.offset,
        lay.length,
        lay.col,
        lay.row,
        out,
    )


def final_roll_values(setup, runs, flat: np.ndarray, by_keep: np.ndarray, first: int) -> None:
    """_target_final_rolls for one state's columns (runs: run_j, run_n, run_c) outside the build."""
    _target_final_rolls(setup, *runs, read_only(flat), by_keep, first, np.empty((setup[2].shape[0], by_keep.shape[1])))


def target_keep_values(
    engine: Engine, layout: TargetLayout, flat: np.ndarray, mask: int, upper: int, joker_scored: int, need: int
) -> tuple[np.ndarray, np.ndarray]:
    """Probability of reaching `need` more points for every keep of one turn: (after roll 2, after
    roll 1), indexed by keep-lattice row, as identical.keep_values gives expected points."""
    lattice, rules = engine.lattice, engine.rules
    assert lattice is not None
    first_roll = int(lattice.size_start[-2])
    by_keep = np.empty((lattice.add.shape[0], 1))
    upper_totals = np.array([upper], dtype=np.int64)
    setup = _item_setup(mask, joker_scored, upper_totals, rules, layout.offset, layout.length, layout.col, layout.row)
    runs = np.zeros(1, dtype=np.int64), np.array([need], dtype=np.int64), np.array([0, 1], dtype=np.int64)
    final_roll_values(setup, runs, flat, by_keep, first_roll)
    stops = first_roll_target_stops(engine, layout, flat, mask, upper, joker_scored, runs, 1)
    return turn_from_final_rolls(by_keep, lattice, rules, first_roll, stops)


def first_roll_target_stops(
    engine: Engine, layout: TargetLayout, flat: np.ndarray, mask: int, upper: int, joker_scored: int, runs, n_cols: int
) -> np.ndarray | None:
    """(R, n_cols): the probability of each need column (runs as _target_final_rolls takes them) when the turn
    stops after roll 1 with roll r and enters the first-roll (servida) scores; None for variants without them."""
    rules = engine.rules
    if rules.params[P_FIRST_ROLL] == 0:
        return None
    first_rules = _first_roll_rules(rules)
    upper_totals = np.array([upper], dtype=np.int64)
    setup = _item_setup(
        mask, joker_scored, upper_totals, first_rules, layout.offset, layout.length, layout.col, layout.row
    )
    stops = np.empty((rules.score.shape[0], n_cols))
    final_roll_values(setup, runs, flat, stops, 0)
    return stops


def target_items(engine: Engine, layout: TargetLayout, flat: np.ndarray, masks, jokers_scored, dest, at) -> None:
    """The build's lane kernel on this thread over the items (masks, jokers_scored): item i's columns into
    dest from at[i] on, the next states read from (flat, layout) (a job's chunk, solver/jobs/task.py)."""
    _target_lane(0, masks.shape[0], masks, jokers_scored, *_lane_inputs(engine, layout, flat), dest, at)


def _lane_inputs(engine: Engine, layout: TargetLayout, flat: np.ndarray) -> tuple:
    """_target_lane's arguments between the items and the output: the rules and the next states' table."""
    upper_states = engine.upper
    return (
        upper_states.totals_ptr,
        upper_states.totals_list,
        engine.rules,
        engine.lattice,
        read_only(flat),
        layout.offset,
        layout.length,
        layout.col,
        layout.row,
    )


def read_only(flat: np.ndarray) -> np.ndarray:
    """flat as the kernels read it: a read-only view (a table loaded from disk is read-only, a table being
    built is not; Numba compiles a kernel once for each, so every call passes this one type)."""
    if not flat.flags.writeable:
        return flat
    view = flat.view()
    view.flags.writeable = False
    return view
