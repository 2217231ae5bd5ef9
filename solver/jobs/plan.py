"""A job's plan: pure functions of the engine, the table kind, the item lengths and the chunk size.

A table is built layer by layer (boxes filled, from B - 1 down to 0); a layer's rows (row_costs: its work
items, dp.layer_items, in that order, or for target tables their states) are cut into contiguous chunks of
about a minute of work each (chunk_budget), so that a layer is its chunks' values one after another in
chunk order (each chunk writes its stretch of the layer file in place), and the table its layers one after
another (target tables: exactly the flat layout of solver/dp/target_layout.py; value tables: each item's
values and second moments).
"""

from __future__ import annotations

import numpy as np

from ..dp import Engine, layer_items
from ..dp.ordered_target import SECONDS_PER_COLUMN

# seconds of one core per cost unit, measured (benchmarks/README.md): ev, one state with its second moments:
# kniffel's 310,654 states in 0.338 s on two threads, about 2.2 us; target, one (upper total, need) column:
# kniffel N 100, 31.0 M columns in 16.2-16.7 s of CPU at load 17-21, about 0.54 us; target with dice told
# apart (Kniffel 7): one (state, need) column of the distinct-dice kernel (its own figure)
SECONDS_PER_UNIT = {"ev": 2.2e-6, "target": 0.54e-6, "ordered target": SECONDS_PER_COLUMN}
CHUNK_SECONDS = 60.0
LAYER_CHUNKS = 16
MIN_CHUNK_SECONDS = 1.0


def row_costs(kind: str, engine: Engine, n_filled: int, length: np.ndarray | None) -> np.ndarray:
    """The cost of each row of a layer, in the layer's order: the rows are what chunks are cut from. Value
    tables: a row is a work item (cost: its upper totals solved). Target tables: a state, a work item at one
    of its solved upper totals (cost: its needs), so that a chunk may take part of a large item (Kniffel 7:
    up to 64 totals x 910 needs, about two minutes) and chunks balance; each state's needs are computed on
    their own, so where an item is cut changes no bit."""
    upper = engine.upper
    masks, jokers_scored = layer_items(engine.variant, n_filled)
    totals = np.diff(upper.totals_ptr)[upper.row[masks, jokers_scored]]
    if kind == "target":
        assert length is not None
        return np.repeat(length[masks, jokers_scored], totals)
    return totals


def chunk_ranges(costs: np.ndarray, budget: float) -> list[tuple[int, int]]:
    """Contiguous row ranges [first, last) of about `budget` cost each (at least one row per chunk), covering
    all rows; none for a layer without rows."""
    ranges: list[tuple[int, int]] = []
    first, load = 0, 0.0
    for i, cost in enumerate(costs.tolist()):
        load += cost
        if load >= budget:
            ranges.append((first, i + 1))
            first, load = i + 1, 0.0
    if first < len(costs):
        ranges.append((first, len(costs)))
    return ranges


def chunk_budget(layer_seconds: float) -> float:
    """The seconds of work a chunk of a layer gets by default: CHUNK_SECONDS (about a minute: scheduling is
    milliseconds a task); a smaller layer in LAYER_CHUNKS chunks, so that no worker idles long at its barrier,
    but none under MIN_CHUNK_SECONDS (a task costs Dask a few ms, its write and mark as much: under 1 %)."""
    return min(CHUNK_SECONDS, max(layer_seconds / LAYER_CHUNKS, MIN_CHUNK_SECONDS))


def unit_seconds(kind: str, ordered: bool) -> float:
    """Seconds of one core a cost unit of a job of `kind` takes (ordered: dice told apart)."""
    return SECONDS_PER_UNIT["ordered target" if kind == "target" and ordered else kind]


def make_plan(
    kind: str, engine: Engine, length: np.ndarray | None, chunk_seconds: float | None = None, from_filled: int = 0
) -> list[dict]:
    """The layers from B - 1 filled boxes down to from_filled: {"filled", "rows", "cost", "chunks": [[first,
    last, cost], ...], "shape", "at"} (a chunk: the layer's rows first..last-1, row_costs), chunks of about
    chunk_seconds of work (None: chunk_budget's). shape: the layer file's array (float64; target tables: its
    values, one per cost unit; value tables: (items, 2, cap + 1)); at: where each chunk's values start in it,
    and the layer's size last."""
    unit = unit_seconds(kind, ordered=engine.ordered is not None)
    layers = []
    for n_filled in range(len(engine.variant.boxes) - 1, from_filled - 1, -1):
        costs = row_costs(kind, engine, n_filled, length)
        seconds = chunk_budget(float(costs.sum()) * unit) if chunk_seconds is None else chunk_seconds
        budget = max(seconds / unit, 1.0)
        chunks = [[a, b, int(costs[a:b].sum())] for a, b in chunk_ranges(costs, budget)]
        shape = [int(costs.sum())] if kind == "target" else [len(costs), 2, engine.variant.upper_cap + 1]
        width = 1 if kind == "target" else 2 * (engine.variant.upper_cap + 1)  # values a row (target: a cost unit)
        sizes = [c for _, _, c in chunks] if kind == "target" else [(b - a) * width for a, b, _ in chunks]
        at = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).tolist()
        layers.append(
            {
                "filled": n_filled,
                "rows": len(costs),
                "cost": int(costs.sum()),
                "chunks": chunks,
                "shape": shape,
                "at": at,
            }
        )
    return layers


def layer_name(n_filled: int) -> str:
    return f"layer-{n_filled:02d}.npy"


def mark_name(n_filled: int, index: int) -> str:
    """A chunk's mark: written when its values are in the layer's .part file, holding their SHA-256."""
    return f"marks/layer-{n_filled:02d}-chunk-{index:05d}.sha256"
