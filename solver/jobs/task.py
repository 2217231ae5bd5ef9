"""One chunk of a layer: its work items computed from the next layer's file and written into its stretch of
the layer's .part file, in place, then marked done (JobFolder.write_chunk).

A task is idempotent: it reads only finished layers (never changed once renamed into place) and writes only
its own stretch, always the same bytes, so a chunk whose worker was lost is simply run again. The kernels are
the in-process build's lane kernels (dp.solve_items, dp.target.target_items; dice told apart: the target
turn kernel of dp/ordered_target.py through ordered_task.py), run serially on the calling
thread (one core a task, no Numba threading layer: a cluster image may lack one): each item reads only
the next layer, so which chunk or process computes it changes no bit.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .. import dp
from ..dp.ordered_layer import ordered_work
from ..dp.target import item_columns, target_items
from ..dp.target_layout import TargetLayout, target_layout
from ..rules.variant import Variant
from .folder import JobFolder
from .ordered_task import ordered_target_chunk

_CONTEXT: dict = {}  # per process: the engine and what every chunk of a job shares (built once)
_LOCK = threading.Lock()  # the in-process executor's threads share it
_THREAD = threading.local()  # per thread: the distinct-dice kernel's work arrays (26 MB for seven dice)


class ChunkTask(NamedTuple):
    folder: str
    variant: Variant
    kind: str  # "ev" or "target"
    n_max: int  # target tables: the largest need (0 for value tables)
    filled: int  # boxes filled in the chunk's layer
    chunk: int  # the chunk's number in its layer
    first: int  # its rows first..last-1 (plan.row_costs: value tables, items; target tables, states)
    last: int
    from_filled: int = 0  # the least boxes filled the job builds (Kniffel 7's target table: its end game)


def _context(task: ChunkTask, folder: JobFolder):
    """(engine, ranked sub-keeps for value tables | the target layout), built once per process and job."""
    key = (task.folder, task.variant, task.kind, task.n_max, task.from_filled)
    with _LOCK:
        if key not in _CONTEXT:
            _CONTEXT.clear()
            engine = job_engine(task.variant)
            if task.kind == "ev":
                _CONTEXT[key] = engine, dp.ranked_sub_keeps(engine.lattice)
            else:
                dropped = tuple(range(task.from_filled))
                _CONTEXT[key] = engine, target_layout(engine, task.n_max, folder.lengths(), dropped)
        return _CONTEXT[key]


def job_engine(variant: Variant) -> dp.Engine:
    """The variant's engine (Kniffel 7's too: a job is the slow build it is refused elsewhere)."""
    return dp.make_engine(variant, allow_slow=True)


def run_chunk(task: ChunkTask) -> float:
    """Compute the chunk, write its values into the layer's .part file and its mark; returns the CPU seconds
    it took (of its thread: the kernels are serial), which the driver records a layer."""
    start = time.thread_time()
    folder = JobFolder.read(Path(task.folder))
    engine, shared = _context(task, folder)
    last_layer = task.filled + 1 == len(task.variant.boxes)
    if task.kind == "ev":
        masks, jokers_scored = dp.layer_items(task.variant, task.filled)
        masks, jokers_scored = masks[task.first : task.last], jokers_scored[task.first : task.last]
        values = _ev_chunk(task, folder, engine, shared, masks, jokers_scored, last_layer)
    elif engine.ordered is not None:
        nxt = None if last_layer else (dp.layer_items(task.variant, task.filled + 1), folder.layer(task.filled + 1))
        if getattr(_THREAD, "ordered", None) is not engine.ordered:
            _THREAD.ordered, _THREAD.work = engine.ordered, ordered_work(engine.ordered)
        states = chunk_states(engine, task.filled, task.first, task.last)
        values = ordered_target_chunk(engine, shared, _THREAD.work, *states, nxt)
    else:
        values = _target_chunk(task, folder, engine, shared, last_layer)
    folder.write_chunk(task.filled, task.chunk, values)
    return time.thread_time() - start


def chunk_states(
    engine: dp.Engine, n_filled: int, first: int, last: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The work items that a target-table chunk's rows (the layer's states first..last-1, plan.row_costs) belong
    to, and per item the positions lo..hi-1 of its solved upper totals in the chunk (only the first and the
    last item may be cut): (masks, jokers_scored, lo, hi)."""
    upper = engine.upper
    masks, jokers_scored = dp.layer_items(engine.variant, n_filled)
    start = np.concatenate([[0], np.cumsum(np.diff(upper.totals_ptr)[upper.row[masks, jokers_scored]])])
    i0 = int(np.searchsorted(start, first, side="right")) - 1
    i1 = int(np.searchsorted(start, last, side="left"))
    lo = np.maximum(start[i0:i1], first) - start[i0:i1]
    hi = np.minimum(start[i0 + 1 : i1 + 1], last) - start[i0:i1]
    return masks[i0:i1], jokers_scored[i0:i1], lo, hi


def _ev_chunk(task, folder, engine, subs, masks, jokers_scored, last_layer) -> np.ndarray:
    """(items, 2, cap + 1): the items' values and second moments at every upper total (NaN: unreachable)."""
    values = np.full(dp.table_shape(task.variant), np.nan)
    m2 = values.copy()
    if last_layer:
        values[-1] = m2[-1] = 0.0  # the full card
    else:
        next_masks, next_jokers = dp.layer_items(task.variant, task.filled + 1)
        nxt = folder.layer(task.filled + 1)
        values[next_masks, :, next_jokers] = nxt[:, 0]
        m2[next_masks, :, next_jokers] = nxt[:, 1]
    dp.solve_items(engine, masks, jokers_scored, values, m2, subs)
    return np.stack([values[masks, :, jokers_scored], m2[masks, :, jokers_scored]], axis=1)


def _target_chunk(task, folder, engine, layout: TargetLayout, last_layer) -> np.ndarray:
    """The chunk's stretch of the flat target table (layout order: contiguous in a layer): whole items through
    the build's lane kernel, an item cut by the chunk's ends through its kernel over the states asked for."""
    upper = engine.upper
    masks, jokers_scored, lo, hi = chunk_states(engine, task.filled, task.first, task.last)
    rows = upper.row[masks, jokers_scored]
    sizes = (hi - lo) * layout.length[masks, jokers_scored]
    at = np.cumsum(sizes) - sizes
    dest = np.empty(int(sizes.sum()))
    if last_layer:  # the next states are full cards: they store no needs and are never read
        flat, offset = np.zeros(1), layout.offset
    else:
        next_masks, next_jokers = dp.layer_items(task.variant, task.filled + 1)
        flat = folder.layer(task.filled + 1)
        offset = layout.offset - layout.offset[next_masks[0], next_jokers[0]]  # the next layer's file starts at 0
    layout = layout._replace(offset=offset)
    whole = (lo == 0) & (hi == np.diff(upper.totals_ptr)[rows])
    target_items(engine, layout, flat, masks[whole], jokers_scored[whole], dest, at[whole])
    for i in np.flatnonzero(~whole):
        totals = upper.totals_list[upper.totals_ptr[rows[i]] + lo[i] : upper.totals_ptr[rows[i]] + hi[i]]
        item_columns(engine, layout, flat, int(masks[i]), int(jokers_scored[i]), totals, dest[at[i] : at[i] + sizes[i]])
    return dest
