"""The simulation kernel: one turn of many games of optimal play at once (identical dice)."""

from __future__ import annotations

import numpy as np

from .compile import njit
from .entries import _box_options, _final_roll_values, _first_roll_rules, _first_roll_stops, _pick_entry
from .identical import _best_sub_keeps, _keep_means
from .policy import ranked_sub_keeps
from .rules import P_CAP, P_FIRST_ROLL, P_MIN_KEEP

TIE = 1e-9  # options this close to the best are tied (advisor.TIE)

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
def _best_keep(r, keep_values, col, stop_value, ranked_subs, min_start, first_roll):
    """The keep roll r (a keep index; r itself = stop) takes, given the keep values keep_values[:, col]:
    among the keeps within TIE of the best, the first in the tie order of ranked_subs (most dice, then
    the smallest sorted faces): the advisor's choice. min_start: the first keep index with enough dice."""
    subs = ranked_subs[r - first_roll]
    best = stop_value
    for i in range(1, subs.shape[0]):  # subs[0] is r itself
        k = subs[i]
        if k < min_start:  # -1 padding, or fewer dice than the house rule allows (sizes descend)
            break
        best = max(best, keep_values[k, col])
    if stop_value >= best - TIE:
        return r
    for i in range(1, subs.shape[0]):
        k = subs[i]
        if k < min_start:
            break
        if keep_values[k, col] >= best - TIE:
            return k
    return r


# inlined into simulate_turn and _turn_choice (see compile.py)
@njit(cache=True, inline="always")
def _turn_tables(mask, joker_scored, upper_totals, rules, lattice, values):
    """Keep values of one turn at upper totals upper_totals (one column each): (after roll 1, after roll 2,
    final-roll values (R, nc), values of stopping after roll 1 (R, nc)); the roll rows of the keep tables
    are not the stop values."""
    _, size_start, add, sub, _ = lattice
    first_roll = size_start[size_start.shape[0] - 2]
    by_keep = np.empty((add.shape[0], upper_totals.shape[0]))
    _final_roll_values(mask, joker_scored, upper_totals, rules, values, by_keep, first_roll)
    final = by_keep[first_roll:].copy()
    _keep_means(by_keep, add, size_start)
    after_second = by_keep.copy()
    _best_sub_keeps(by_keep, sub, size_start, rules.params[P_MIN_KEEP])
    _keep_means(by_keep, add, size_start)
    stops = _first_roll_stops(mask, joker_scored, upper_totals, rules, values)
    return by_keep, after_second, final, stops if stops.shape[0] else final


@njit(cache=True)
def _entry_options(mask, joker_scored, rules):
    """(option_move, option_points, n_options) of every final roll: _box_options into new arrays."""
    n_rolls, n_boxes = rules.score.shape
    option_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
    option_points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_options = np.empty(n_rolls, dtype=np.int64)
    _box_options(mask, joker_scored, rules, option_move, option_points, n_options)
    return option_move, option_points, n_options


@njit(cache=True)
def _enter(g, mask, joker_scored, r, box, points, next_flag, rules, g_mask, g_upper, g_joker_scored, g_boxes, g_extra):
    """Game g (at mask, joker_scored) enters `points` in `box` with final roll r (its row): its card after the turn
    (next_flag: _pick_entry's joker_scored after it). Identical dice and dice told apart (ordered_play.py) alike."""
    g_boxes[g, box] = points
    g_mask[g] = mask | (1 << box)
    if rules.is_upper[box]:
        g_upper[g] += points
    if joker_scored == 1 and rules.joker_roll[r]:
        g_extra[g] += 1
    g_joker_scored[g] = next_flag


@njit(cache=True, nogil=True)
def simulate_turn(
    lo,
    hi,
    task_group,
    task_lo,
    task_hi,
    group_mask,
    group_flag,
    group_col,
    col_up,
    games,
    game_col,
    g_mask,
    g_upper,
    g_joker_scored,
    g_boxes,
    g_extra,
    rng,
    ranked_subs,
    rules,
    lattice,
    values,
):
    """Play one turn of the games of tasks lo .. hi - 1 optimally (the advisor's choices, its tie rule). A task
    is a slice of the games of one (mask, joker_scored) group; each task solves its group's turn once for the
    group's distinct upper totals. A plain kernel run on threads (lanes.in_threads), not a prange kernel: its
    compile a third shorter (no parallel pass, no second copy of the call tree), the wall on two threads shorter
    (balanced shares), but about 7 % slower on one thread (likely as Numba marks a prange body's arrays noalias
    for LLVM, which it does not for a plain kernel's; benchmarks/README.md)."""
    _, size_start, add, _, _ = lattice
    n_dice = size_start.shape[0] - 2
    first_roll = size_start[n_dice]
    n_rolls, n_boxes = rules.score.shape
    cap = rules.params[P_CAP]
    min_start = size_start[rules.params[P_MIN_KEEP]]
    servida = rules.params[P_FIRST_ROLL] != 0
    for t in range(lo, hi):
        grp = task_group[t]
        mask, joker_scored = group_mask[grp], group_flag[grp]
        upper_totals = col_up[group_col[grp] : group_col[grp + 1]]
        by_keep, after_second, final, stops1 = _turn_tables(mask, joker_scored, upper_totals, rules, lattice, values)
        entries = _entry_options(mask, joker_scored, rules)
        first_rules = _first_roll_rules(rules)  # a stop after roll 1 enters the first-roll scores
        first_entries = _entry_options(mask, joker_scored, first_rules) if servida else entries
        for i in range(task_lo[t], task_hi[t]):
            g = games[i]
            c = game_col[g]
            r = _reroll(rng, g, np.int64(0), n_dice, add, size_start)
            k = _best_keep(r, by_keep, c, stops1[r - first_roll, c], ranked_subs, np.int64(0), first_roll)
            stopped_first = k == r and servida
            if k != r:
                r = _reroll(rng, g, k, n_dice, add, size_start)
                k = _best_keep(r, after_second, c, final[r - first_roll, c], ranked_subs, min_start, first_roll)
                if k != r:
                    r = _reroll(rng, g, k, n_dice, add, size_start)
            ri = r - first_roll
            entry_rules, (option_move, option_points, n_options) = (
                (first_rules, first_entries) if stopped_first else (rules, entries)
            )
            box, points, next_flag = _pick_entry(
                ri,
                mask,
                joker_scored,
                min(g_upper[g], cap),
                entry_rules,
                values,
                option_move,
                option_points,
                n_options,
                TIE,
            )
            _enter(
                g,
                mask,
                joker_scored,
                ri,
                box,
                points,
                next_flag,
                rules,
                g_mask,
                g_upper,
                g_joker_scored,
                g_boxes,
                g_extra,
            )


@njit(cache=True)
def _turn_choice(mask, joker_scored, capped_upper, rules, lattice, values, ranked_subs, r, roll):
    """What simulate_turn decides for one state and roll r (a keep index): the keep after roll 1 or 2
    (r = stop), or the box after roll 3."""
    size_start = lattice.size_start
    first_roll = size_start[size_start.shape[0] - 2]
    by_keep, after_second, final, stops1 = _turn_tables(
        mask, joker_scored, np.full(1, capped_upper), rules, lattice, values
    )
    if roll == 1:
        return _best_keep(r, by_keep, np.int64(0), stops1[r - first_roll, 0], ranked_subs, np.int64(0), first_roll)
    if roll == 2:
        min_start = size_start[rules.params[P_MIN_KEEP]]
        return _best_keep(r, after_second, np.int64(0), final[r - first_roll, 0], ranked_subs, min_start, first_roll)
    n_rolls, n_boxes = rules.score.shape
    option_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
    option_points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_options = np.empty(n_rolls, dtype=np.int64)
    _box_options(mask, joker_scored, rules, option_move, option_points, n_options)
    return _pick_entry(
        r - first_roll, mask, joker_scored, capped_upper, rules, values, option_move, option_points, n_options, TIE
    )[0]


def simulated_choice(engine, values, mask: int, upper: int, joker_scored: int, keep_row: int, roll: int) -> int:
    """The simulation's decision for one situation, identical dice: the roll is keep-lattice row
    keep_row; after roll 1 or 2 the keep row chosen (keep_row itself = stop), after roll 3 the box."""
    lattice, rules = engine.lattice, engine.rules
    capped_upper = min(upper, int(rules.params[P_CAP]))
    return int(
        _turn_choice(
            mask, joker_scored, capped_upper, rules, lattice, values, ranked_sub_keeps(lattice), keep_row, roll
        )
    )
