"""One chunk of Kniffel 7's target table (dice told apart): the distinct-dice target kernel
(dp/ordered_target.py) run over the chunk's (state, need) columns, reading the next layer's file.

The layer files hold the flat layout of dp/target_layout.py (per item, per solved upper total, needs 1..L),
so a finished table is read as the identical-dice ones are. The kernel looks states up through
TargetStates: here the next layer's states (its file, copied in front) and the chunk's own (written after
it); every reachable upper total points at the state of the total solved for it, as the layout stores it.
"""

from __future__ import annotations

import numpy as np

from ..dp.engine import Engine
from ..dp.ordered import ORDERED_COLUMNS
from ..dp.ordered_target import TargetStates, target_calls
from ..dp.target_layout import TargetLayout


def _items_states(engine: Engine, layout: TargetLayout, masks, jokers_scored, base: int, first_state: int):
    """Per item: (mask, joker_scored, solved upper totals, offset of its block in prob, its first state)."""
    upper = engine.upper
    out = []
    state = first_state
    for mask, flag in zip(masks.tolist(), jokers_scored.tolist()):
        row = upper.row[mask, flag]
        totals = upper.totals_list[upper.totals_ptr[row] : upper.totals_ptr[row + 1]]
        out.append((mask, flag, totals, int(layout.offset[mask, flag]) - base, state))
        state += len(totals)
    return out, state


def _lookup(engine: Engine, layout: TargetLayout, items, n_states: int, n_values: int) -> TargetStates:
    """TargetStates over the listed items (offsets in a prob array of n_values, NaN until computed)."""
    upper = engine.upper
    masks = sorted({item[0] for item in items})
    mask_row = np.full(1 << len(engine.variant.boxes), -1, dtype=np.int64)
    mask_row[masks] = np.arange(len(masks))
    state_of = np.full((len(masks), upper.solved_total.shape[1], 2), -1, dtype=np.int64)
    offset = np.zeros(n_states, dtype=np.int64)
    length = np.zeros(n_states, dtype=np.int64)
    for mask, flag, totals, at, state in items:
        row = upper.row[mask, flag]
        n = int(layout.length[mask, flag])
        reach = np.flatnonzero(upper.solved_total[row] >= 0)
        state_of[mask_row[mask], reach, flag] = state + layout.col[row, reach]
        offset[state : state + len(totals)] = at + n * np.arange(len(totals))
        length[state : state + len(totals)] = n
    return TargetStates(mask_row, state_of, offset, length, np.full(n_values, np.nan))


def _columns(layout: TargetLayout, items, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """The chunk's columns (mask, upper, joker_scored, need) in calls of 8 and where each goes in prob
    (the last call padded with repeats, dest -1): per item its solved upper totals lo..hi-1, every need; one
    item's columns run together: entries listed once."""
    rows, dest = [], []
    for (mask, flag, totals, at, _state), first, last in zip(items, lo.tolist(), hi.tolist()):
        n = int(layout.length[mask, flag])
        if n == 0 or first == last:
            continue
        needs = np.tile(np.arange(1, n + 1), last - first)
        uppers = np.repeat(totals[first:last], n)
        rows.append(np.column_stack([np.full(len(needs), mask), uppers, np.full(len(needs), flag), needs]))
        dest.append(at + first * n + np.arange(len(needs)))
    cols = np.concatenate(rows).astype(np.int64) if rows else np.zeros((0, 4), np.int64)
    to = np.concatenate(dest).astype(np.int64) if dest else np.zeros(0, np.int64)
    pad = -len(cols) % ORDERED_COLUMNS
    if pad:
        cols = np.concatenate([cols, np.repeat(cols[-1:], pad, axis=0)])
        to = np.concatenate([to, np.full(pad, -1, np.int64)])
    return cols.reshape(-1, ORDERED_COLUMNS, 4), to.reshape(-1, ORDERED_COLUMNS)


def ordered_target_chunk(engine: Engine, layout: TargetLayout, work, masks, jokers_scored, lo, hi, nxt) -> np.ndarray:
    """The chunk's stretch of the flat target table: the items' solved upper totals lo..hi-1 (task.chunk_states).
    nxt: (the next layer's items (masks, jokers_scored), its file) or None in the last layer (the next states are
    full cards: probability 0 of any need)."""
    if nxt is None:
        next_items, size_next, n_states = [], 0, 0
    else:
        (next_masks, next_jokers), flat = nxt
        base = int(layout.offset[next_masks[0], next_jokers[0]])
        next_items, n_states = _items_states(engine, layout, next_masks, next_jokers, base, 0)
        size_next = flat.shape[0]
    base = int(layout.offset[masks[0], jokers_scored[0]]) - size_next
    items, n_states = _items_states(engine, layout, masks, jokers_scored, base, n_states)
    size = sum(len(item[2]) * int(layout.length[item[0], item[1]]) for item in items)
    states = _lookup(engine, layout, next_items + items, n_states, size_next + size)
    if nxt is not None:
        states.prob[:size_next] = nxt[1]
    cols, dest = _columns(layout, items, lo, hi)
    target_calls(engine, cols, dest, states, work)
    lengths = layout.length[masks, jokers_scored]
    first = size_next + int(lo[0] * lengths[0])  # the first item's states before lo are another chunk's
    return states.prob[first : first + int(((hi - lo) * lengths).sum())].copy()
