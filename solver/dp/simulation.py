"""The simulation kernel: one turn of many games of optimal play at once (identical dice)."""

from __future__ import annotations

import numpy as np

from .compile import njit, prange
from .entries import _box_options, _final_roll_values
from .identical import _best_sub_keeps, _keep_means
from .rules import P_CAP, P_MIN_KEEP

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
def simulate_turn(
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
    g_flag,
    g_boxes,
    g_extra,
    rng,
    roll_subs,
    rules,
    lattice,
    values,
):
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
        ups = col_up[group_col[grp] : group_col[grp + 1]]
        nc = ups.shape[0]
        by_keep = np.empty((n_keeps, nc))
        _final_roll_values(mask, flag, ups, rules, values, by_keep, first_roll)
        final = by_keep[first_roll:].copy()
        _keep_means(by_keep, add, size_start)
        after_second = by_keep.copy()
        _best_sub_keeps(by_keep, sub, size_start, params[P_MIN_KEEP])
        _keep_means(by_keep, add, size_start)  # by_keep: keep values after the first roll
        opt_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
        opt_score = np.empty((n_rolls, n_boxes), dtype=np.int64)
        n_opts = np.empty(n_rolls, dtype=np.int64)
        _box_options(mask, flag, rules, opt_move, opt_score, n_opts)
        for i in range(task_lo[t], task_hi[t]):
            g = games[i]
            c = game_col[g]
            r = _reroll(rng, g, 0, n_dice, add, size_start)
            k = _best_keep(r, by_keep, c, final[r - first_roll, c], roll_subs, 0, size_start)
            if k != r:
                r = _reroll(rng, g, k, n_dice, add, size_start)
                k = _best_keep(r, after_second, c, final[r - first_roll, c], roll_subs, params[P_MIN_KEEP], size_start)
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
