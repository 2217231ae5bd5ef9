"""The driver of a layer-parallel build: per layer, the layer's .part file is made at its full size and the
chunks not yet done go to the executor, each writing its values into it in place; when all are back (the
barrier) the file is fsynced and renamed into place before the next layer starts. At the end the table is
put together from its layers (or saved from them, streamed), bit for bit the in-process build's."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

from .. import dp
from ..dp.target_layout import TargetLayout, item_lengths, max_remaining, target_layout
from ..rules.variant import Variant
from .folder import JobFolder
from .plan import layer_name, make_plan
from .task import ChunkTask, job_engine, run_chunk


def open_job(
    variant: Variant,
    kind: str,
    path: Path,
    n_max: int = 0,
    chunk_seconds: float | None = None,
    from_filled: int = 0,
) -> JobFolder:
    """The job folder of the variant's value table (kind "ev") or target table up to N (kind "target") from
    its last layer down to `from_filled` boxes filled, made with its plan when new (target tables: the item
    lengths computed here, once)."""
    engine = job_engine(variant)
    lengths = item_lengths(engine, n_max, most(variant, from_filled)) if kind == "target" else None
    return JobFolder.open(
        path,
        variant,
        kind,
        n_max,
        lambda: make_plan(kind, engine, lengths, chunk_seconds, from_filled),
        lengths,
        from_filled,
    )


@lru_cache(maxsize=4)
def most(variant: Variant, from_filled: int = 0) -> np.ndarray:
    """The most each state with at least `from_filled` boxes filled can still score, NaN below
    (dp.target_layout.max_remaining; Kniffel 7's whole table: about 12 s of CPU, once)."""
    return max_remaining(job_engine(variant), from_filled)


def run_job(job: JobFolder, variant: Variant, executor, progress: Callable[[int], None] | None = None) -> None:
    """Build every layer not yet done (a rerun: the chunks whose marks still match are kept); progress(cost)
    after each chunk, and once for the work found done."""
    kind, n_max, from_filled = job.manifest["kind"], job.manifest["n_max"], job.from_filled
    costs = {(layer["filled"], i): chunk[2] for layer in job.plan for i, chunk in enumerate(layer["chunks"])}

    cpu, cpu_cost = [0.0], [0]  # CPU seconds and cost of the chunks this run computed, in the layer under way

    def chunk_done(task: ChunkTask, seconds: float) -> None:
        cpu[0] += seconds
        cpu_cost[0] += costs[task.filled, task.chunk]
        if progress is not None:
            progress(costs[task.filled, task.chunk])

    done = job.verified_done()
    for layer in job.plan:
        n_filled = layer["filled"]
        if n_filled in done:
            if progress is not None:
                progress(layer["cost"])
            continue
        t0 = time.perf_counter()
        cpu[0], cpu_cost[0] = 0.0, 0
        job.start_layer(n_filled)
        tasks = []
        for index, (first, last, cost) in enumerate(layer["chunks"]):
            if job.chunk_ok(n_filled, index):
                if progress is not None:
                    progress(cost)
            else:
                tasks.append(ChunkTask(str(job.path), variant, kind, n_max, n_filled, index, first, last, from_filled))
        executor.run(run_chunk, tasks, chunk_done)
        job.finish_layer(n_filled, time.perf_counter() - t0, cpu=cpu[0], cpu_cost=cpu_cost[0])


def total_cost(job: JobFolder) -> int:
    return sum(layer["cost"] for layer in job.plan)


def costs_left(job: JobFolder) -> list[int]:
    """The cost of each chunk still to build as the folder says (a layer not finished, a chunk without its mark):
    what --status and a job's first line count; the run itself checks the checksums too, and may build more."""
    done = job.done()
    return [
        chunk[2]
        for layer in job.plan
        if layer["filled"] not in done
        for i, chunk in enumerate(layer["chunks"])
        if not job.chunk_written(layer["filled"], i)
    ]


def ev_table(job: JobFolder, variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """(values, second moments) of a finished value-table job, as dp.solve_with_moments returns them."""
    values = np.full(dp.table_shape(variant), np.nan)
    values[-1] = 0.0  # the full card
    m2 = values.copy()
    for layer in job.plan:
        masks, jokers_scored = dp.layer_items(variant, layer["filled"])
        rows = job.layer(layer["filled"])
        values[masks, :, jokers_scored] = rows[:, 0]
        m2[masks, :, jokers_scored] = rows[:, 1]
    return values, m2


def target_table(job: JobFolder, variant: Variant) -> tuple[np.ndarray, TargetLayout]:
    """(flat, layout) of a finished target-table job, as dp.target.solve_target builds them (the layers below
    from_filled boxes filled left out: offset -1)."""
    dropped = tuple(range(job.from_filled))
    layout = target_layout(job_engine(variant), job.manifest["n_max"], job.lengths(), dropped)
    flat = np.empty(layout.size)
    at = 0
    for layer in job.plan:
        at += job.read_layer(layer["filled"], flat[at:])
    assert at == layout.size
    return flat, layout


def save_target_table(job: JobFolder, variant: Variant, directory: Path, *, seconds: float) -> dict:
    """Save a finished whole target-table job where `kniffel solve --target` saves its table, streamed from the
    layer files (store.target_tables.save_target_layers: no table in memory), the same file bit for bit; its
    sidecar."""
    from ..store.target_tables import save_target_layers

    assert job.from_filled == 0, "an end-game job's layers are not a whole table"
    layout = target_layout(job_engine(variant), job.manifest["n_max"], job.lengths())
    return save_target_layers(variant, layout, lambda k: job.path / layer_name(k), directory, seconds=seconds)
