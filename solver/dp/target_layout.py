"""Where a target table keeps its numbers (TargetLayout): for each work item and each upper total it solves, the
needs 1..L up to the most the state can still score (max_remaining; sure_minimum is the least it surely scores)."""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np

from .compile import njit
from .engine import Engine
from .entries import _final_roll_values, _first_roll_stops
from .identical import _best_sub_keeps, _with_first_roll_stops
from .lanes import run_lanes
from .layers import backward_layers
from .rules import P_MIN_KEEP
from .solve import table_shape
from .states import layer_items


class TargetLayout(NamedTuple):
    """Where each state's needs lie in the flat target table."""

    n_max: int  # N: the largest need stored
    offset: np.ndarray  # (2^B, flags) int64: start of the item's block
    length: np.ndarray  # (2^B, flags) int64: L, the needs stored per upper total (0: none)
    col: np.ndarray  # (rows, cap + 1) int64: position of each upper total's representative, -1 unreachable
    row: np.ndarray  # (2^B, flags) int64: UpperStates.row
    size: int  # values in flat
    dropped: tuple[int, ...] = ()  # layers (boxes filled) not in flat: offset -1, recomputed (store/target_layers.py)
    cache: dict | None = None  # recomputed columns of dropped items (solver/store/target_layers.py)


@njit(cache=True)
def _item(i, masks, jokers_scored, totals_ptr, totals_list, upper_row):
    """Work item i of a layer: (mask, joker_scored, the upper totals it solves), as _max_lane and _sure_lane
    take it."""
    mask, joker_scored = masks[i], jokers_scored[i]
    u = upper_row[mask, joker_scored]
    return mask, joker_scored, totals_list[totals_ptr[u] : totals_ptr[u + 1]].copy()


# -- the most a state can still score -------------------------------------------------------------
@njit(cache=True, nogil=True)
def _max_lane(first, last, masks, jokers_scored, totals_ptr, totals_list, upper_row, rules, best):
    """best[mask, u, flag] = the most the state can still score: every roll can come, so it is the
    final-roll value (the expected-value one, with best as the next values) maximised over rolls, and
    over the stops after roll 1 with first-roll (servida) points where the variant has them. Items
    first..last-1 of a layer: one lane (lanes.run_lanes)."""
    n_rolls = rules.score.shape[0]
    for i in range(first, last):
        mask, joker_scored, upper_totals = _item(i, masks, jokers_scored, totals_ptr, totals_list, upper_row)
        out = np.empty((n_rolls, upper_totals.shape[0]))
        _final_roll_values(mask, joker_scored, upper_totals, rules, best, out, np.int64(0))
        stops = _first_roll_stops(mask, joker_scored, upper_totals, rules, best)
        for j in range(upper_totals.shape[0]):
            m = out[0, j]
            for r in range(1, n_rolls):
                m = max(m, out[r, j])
            for r in range(stops.shape[0]):
                m = max(m, stops[r, j])
            best[mask, upper_totals[j], joker_scored] = m


@njit(cache=True)
def _keep_mins(by_keep, add, size_start):
    """The worst value of every keep smaller than a roll, in place (as identical._keep_means with a
    min over one more die instead of the mean)."""
    n = size_start.shape[0] - 2
    nj = by_keep.shape[1]
    for k in range(size_start[n] - 1, -1, -1):
        for j in range(nj):
            by_keep[k, j] = by_keep[add[k, 0], j]
        for f in range(1, add.shape[1]):
            a = add[k, f]
            for j in range(nj):
                by_keep[k, j] = min(by_keep[k, j], by_keep[a, j])


@njit(cache=True, nogil=True)
def _sure_lane(first, last, masks, jokers_scored, totals_ptr, totals_list, upper_row, rules, lattice, sure):
    """sure[mask, u, flag] = the most points the state can make certain: the turn kernel with the
    worst die instead of the mean (a keep is worth its worst completion, a roll its best keep; after
    roll 1 also the stop with first-roll points, as in the solve's turn). Items first..last-1 of a layer:
    one lane (lanes.run_lanes)."""
    n_keeps = lattice.add.shape[0]
    size_start = lattice.size_start
    first_roll = size_start[size_start.shape[0] - 2]
    n_rolls = n_keeps - first_roll
    for i in range(first, last):
        mask, joker_scored, upper_totals = _item(i, masks, jokers_scored, totals_ptr, totals_list, upper_row)
        by_keep = np.empty((n_keeps, upper_totals.shape[0]))
        _final_roll_values(mask, joker_scored, upper_totals, rules, sure, by_keep, first_roll)
        _keep_mins(by_keep, lattice.add, size_start)
        _best_sub_keeps(by_keep, lattice.sub, size_start, rules.params[P_MIN_KEEP])
        _keep_mins(by_keep, lattice.add, size_start)
        _best_sub_keeps(by_keep, lattice.sub, size_start, np.int64(0))
        _with_first_roll_stops(by_keep, _first_roll_stops(mask, joker_scored, upper_totals, rules, sure), first_roll)
        for j in range(upper_totals.shape[0]):
            m = by_keep[first_roll, j]
            for r in range(1, n_rolls):
                m = min(m, by_keep[first_roll + r, j])
            sure[mask, upper_totals[j], joker_scored] = m


def sure_minimum(engine: Engine) -> np.ndarray:
    """The most points each state (mask, upper, joker_scored) can make certain: P(need n) = 1 exactly for
    n up to it, < 1 above. NaN where unreachable."""
    return backward_layers(
        engine, np.full(table_shape(engine.variant), np.nan), partial(run_lanes, _sure_lane), engine.lattice
    )


def max_remaining(engine: Engine, down_to: int = 0) -> np.ndarray:
    """The most each state (mask, upper, joker_scored) can still score; NaN where unreachable and in the
    layers with fewer than `down_to` boxes filled (an end-game job needs only its own layers)."""
    table = np.full(table_shape(engine.variant), np.nan)
    return backward_layers(engine, table, partial(run_lanes, _max_lane), down_to=down_to)


def layout_order(variant) -> tuple[np.ndarray, np.ndarray]:
    """(masks, flags) of every work item in the order of the flat table: late layers first."""
    items = [layer_items(variant, n) for n in range(len(variant.boxes) - 1, -1, -1)]
    return np.concatenate([m for m, _ in items]), np.concatenate([f for _, f in items])


def item_lengths(engine: Engine, n_max: int, best: np.ndarray | None = None) -> np.ndarray:
    """L of every work item: min(N, the most any of its states can still score)."""
    if best is None:
        best = max_remaining(engine)
    most = np.where(np.isnan(best), 0.0, best).max(axis=1)  # (2^B, flags)
    return np.minimum(np.rint(most).astype(np.int64), n_max)


def target_layout(
    engine: Engine, n_max: int, length: np.ndarray | None = None, dropped: tuple[int, ...] = ()
) -> TargetLayout:
    """The compact layout of a target table up to need n_max (a pure function of the rules and N;
    `length` = item_lengths(engine, n_max) when already known); the items of the layers `dropped`
    (boxes filled) are left out of flat (offset -1)."""
    variant, upper_states = engine.variant, engine.upper
    if length is None:
        length = item_lengths(engine, n_max)
    col = np.full(upper_states.solved_total.shape, -1, dtype=np.int64)
    for row in range(upper_states.solved_total.shape[0]):
        upper_totals = upper_states.totals_list[upper_states.totals_ptr[row] : upper_states.totals_ptr[row + 1]]
        reach = np.flatnonzero(upper_states.solved_total[row] >= 0)
        col[row, reach] = np.searchsorted(
            upper_totals, upper_states.solved_total[row, reach]
        )  # upper_totals are sorted
    masks, jokers_scored = layout_order(variant)
    sizes = np.diff(upper_states.totals_ptr)[upper_states.row[masks, jokers_scored]] * length[masks, jokers_scored]
    filled = sum((masks >> b) & 1 for b in range(len(variant.boxes)))
    kept = ~np.isin(filled, list(dropped))
    sizes = np.where(kept, sizes, 0)
    offset = np.full_like(length, -1)
    offset[masks, jokers_scored] = np.where(kept, np.cumsum(sizes) - sizes, -1)
    return TargetLayout(n_max, offset, length, col, upper_states.row, int(sizes.sum()), tuple(sorted(dropped)), {})
