"""Target tables with layers left out (layout compact-v2): about half the values are not stored but
recomputed when asked for, bit for bit the values of the build.

A layer is the set of work items with the same number of boxes filled. A state's column (one upper
total, needs 1..L) reads only the next layer, so when no two neighbouring layers are both left out
(the full card counts as kept: it is P = 1 for n <= 0, else 0), any left-out column is one turn
kernel call over stored values: L columns, about a millisecond. Which layers: the heaviest set of
layers no two of them neighbours, layers under 1 % of the values always kept (for kniffel the layers
4, 6, 8 and 10: 49.9 % of the values).

Every column is computed on its own by dp.target.item_columns (the passes are element-wise over
columns, no fast-math), so a recomputed column equals the build's bit for bit; tests check this.
"""

from __future__ import annotations

import numpy as np

from ..dp import Engine
from ..dp.rules import P_CAP
from ..dp.states import layer_items
from ..dp.target import item_columns
from ..dp.target_layout import TargetLayout
from ..rules.variant import Variant

CACHE_MAX = 20_000  # recomputed columns kept per table (each at most N float64)
# layers with less than this share of the values are always stored: they cost little, and among them
# are the opening's (kniffel: 0-2 boxes filled, 0.3 %), which `chances` and the first turns' advice
# then only read (no kernel to load in a fresh process)
KEEP_SMALL = 0.01


def layer_sizes(variant: Variant, layout: TargetLayout) -> np.ndarray:
    """Values of each layer (boxes filled 0..B-1) when stored."""
    n_totals = layout.col.max(axis=1) + 1  # representatives per row: each is its own column
    sizes = np.zeros(len(variant.boxes), dtype=np.int64)
    for k in range(len(variant.boxes)):
        masks, jokers_scored = layer_items(variant, k)
        sizes[k] = int(n_totals[layout.row[masks, jokers_scored]].dot(layout.length[masks, jokers_scored]))
    return sizes


def choose_dropped(sizes: np.ndarray) -> tuple[int, ...]:
    """The layers to leave out: the heaviest set of layers without two neighbours among those with at
    least KEEP_SMALL of the values (a path's maximum-weight independent set, a function of the sizes)."""
    small = sizes < KEEP_SMALL * sizes.sum()
    best_without, best_with = [0], [0]  # best over layers < k, with layer k-1 out or in
    take: list[tuple[int, ...]] = [()]
    skip: list[tuple[int, ...]] = [()]
    for k, size in enumerate(sizes.tolist()):
        if small[k]:
            size = -1  # never left out
        with_k = best_without[-1] + size, skip[-1] + (k,)
        without_k = max((best_without[-1], skip[-1]), (best_with[-1], take[-1]))
        best_without.append(without_k[0])
        skip.append(without_k[1])
        best_with.append(with_k[0])
        take.append(with_k[1])
    return max((best_with[-1], take[-1]), (best_without[-1], skip[-1]))[1]


def pack(variant: Variant, layout: TargetLayout, flat: np.ndarray, dropped: tuple[int, ...]) -> np.ndarray:
    """The stored values of a full table (layout without dropped layers): its layers but `dropped`, in
    the order of target_layout(..., dropped) (late layers first, each layer one contiguous span)."""
    assert not layout.dropped
    sizes = layer_sizes(variant, layout)
    parts = []
    for k in range(len(variant.boxes) - 1, -1, -1):
        if k in dropped:
            continue
        masks, jokers_scored = layer_items(variant, k)
        start = int(layout.offset[masks[0], jokers_scored[0]])
        parts.append(flat[start : start + int(sizes[k])])
    return np.concatenate(parts) if parts else np.zeros(0)


def _filled(mask: int) -> int:
    return bin(mask).count("1")


def state_column(
    engine: Engine,
    layout: TargetLayout,
    flat: np.ndarray,
    mask: int,
    upper: int,
    joker_scored: int,
    needs: int | None = None,
) -> np.ndarray:
    """P(at least n more points), n = 1..L, at state (mask, upper, joker_scored) (a read-only view when
    stored, else recomputed from the next layer and cached); with `needs`, a left-out state may give
    only n = 1..min(L, needs) (P(n) reads only needs <= n, so these are the full column's values).
    Unreachable (no column): ValueError."""
    ln = int(layout.length[mask, joker_scored])
    j = int(layout.col[layout.row[mask, joker_scored], upper])
    if j < 0:
        raise ValueError(f"state {(mask, upper, joker_scored)} is unreachable")
    if ln == 0:
        return np.zeros(0)
    start = int(layout.offset[mask, joker_scored])
    if start >= 0:
        return flat[start + j * ln : start + (j + 1) * ln]
    want = ln if needs is None else max(1, min(ln, needs))
    cache = layout.cache if layout.cache is not None else {}
    key = (mask, joker_scored, j)
    column = cache.get(key)
    if column is None or column.shape[0] < want:
        assert _filled(mask) + 1 not in layout.dropped, "two neighbouring layers left out"
        first = int(engine.upper.totals_ptr[layout.row[mask, joker_scored]])
        representative = engine.upper.totals_list[first + j : first + j + 1].copy()
        column = np.empty(want)
        length = layout.length.copy()
        length[mask, joker_scored] = want  # this item's own needs: only its columns' stride reads it
        item_columns(engine, layout._replace(length=length), flat, mask, joker_scored, representative, column)
        column.flags.writeable = False
        if len(cache) >= CACHE_MAX:
            cache.clear()
        cache[key] = column
    return column


def next_tables(
    engine: Engine,
    layout: TargetLayout,
    flat: np.ndarray,
    mask: int,
    upper: int,
    joker_scored: int,
    needs: int | None = None,
) -> tuple[np.ndarray, TargetLayout]:
    """(flat, layout) holding every state one turn from (mask, upper, joker_scored) reads: the table
    itself when the next layer is stored, else a small table of the recomputed next states (with
    `needs`: only their needs up to it, enough for the turn's needs up to it)."""
    if _filled(mask) + 1 not in layout.dropped:
        return flat, layout
    rules = engine.rules
    cap = int(rules.params[P_CAP])
    row = np.full_like(layout.row, -1)
    offset = np.full_like(layout.offset, -1)
    length = layout.length.copy()
    uppers: dict[tuple[int, int], list[int]] = {}
    for m in range(rules.move_box.shape[0]):
        b = int(rules.move_box[m])
        if (mask >> b) & 1:
            continue
        flag = int(rules.move_flag[m])
        item = (mask | (1 << b), joker_scored if flag < 0 else flag)
        nu = min(upper + int(rules.move_inc[m]), cap)
        if nu not in uppers.setdefault(item, []):
            uppers[item].append(nu)
    col = np.full((len(uppers), cap + 1), -1, dtype=np.int64)
    parts, size = [], 0
    for i, (item, nus) in enumerate(uppers.items()):
        row[item] = i
        offset[item] = size
        columns = [state_column(engine, layout, flat, item[0], nu, item[1], needs) for nu in nus]
        ln = min(c.shape[0] for c in columns) if columns else 0
        length[item] = ln  # beyond it the small table says 0: never read for the turn's needs
        for j, column in enumerate(columns):
            col[i, nus[j]] = j
            parts.append(column[:ln])
        size += len(nus) * ln
    small = np.concatenate(parts) if parts else np.zeros(1)
    return small, layout._replace(offset=offset, length=length, col=col, row=row, size=size, dropped=(), cache={})
