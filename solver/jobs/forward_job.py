"""The forward pass of dice told apart (Kniffel 7) as a job: resumable, and run in chunks on threads or Dask.

Per layer (boxes filled, from the card's up to full) the layer's reached states are cut into chunks of about
a minute of work (plan.chunk_budget over the state count x SECONDS_PER_STATE); a chunk's task computes the
entry groups of its states (forward_ordered_layers.ordered_groups on one thread: the in-process pass's kernel,
_state_groups) and writes them as a shard, atomically, then its mark (the shard's SHA-256 and the layer's). When
every shard of the layer is there the driver moves the mass through them (forward.advance, the groups in state
order as the in-process pass hands them over: the same arrays, so the same sums, bit for bit) and saves the
next layer as the job's checkpoint before that layer's chunks start.

    job.json                 identity (variant, rules, version, kind "forward", the card, the value table's
                             SHA-256) and the chunk sizing
    forward.json             the checkpoints kept: boxes filled -> states, SHA-256s, seconds; the pmf's SHA-256;
                             every layer's states and points-so-far values (for status and benchmarks)
    states-KK.npy            a checkpoint's states: (S, 5) int64 (mask, upper, joker_scored, lo, length)
    mass-KK.npy              and their points-so-far vectors, one after another (float64)
    shards/layer-KK-chunk-NNNNN.npy    a chunk's groups: int64 [counts per state, keys, shifts, probs' bits]
    marks/layer-KK-chunk-NNNNN.sha256  written after it: its SHA-256 and the checkpoint states' SHA-256
    pmf.npy                  the result: P(points still to come = s)

Only the last two checkpoints and their shards are kept: a damaged checkpoint is rebuilt from the one before
it (its shards reused), or, with both damaged, from the card. A damaged or missing shard is built again.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..dp.forward import Layer, advance, layer_pmf, next_keys, start_layer
from ..dp.forward_ordered_layers import SECONDS_PER_STATE, ordered_groups, state_bound
from ..i18n.texts import count_text, number, t
from ..rules.variant import Variant
from ..store.expected_play_cache import values_digest
from ..store.files import _TEMP, _alive, make_folder, read_json
from .folder import MAX_JSON, JobError, JobFolder
from .job_files import file_sha256, read_mark, save_atomic
from .plan import chunk_budget, chunk_ranges
from .task import job_engine

RECORD, PMF = "forward.json", "pmf.npy"
_CONTEXT: dict = {}  # per process: (engine, values, keys) of the job's value table, loaded once
_LOCK = threading.Lock()


class ForwardTask(NamedTuple):
    folder: str
    variant: Variant
    tables_dir: str  # where the value table is read (else the package's): its SHA-256 is the job's
    filled: int
    chunk: int
    first: int  # the layer's states first..last-1
    last: int
    kind: str = "forward"


def open_forward_job(
    variant: Variant,
    path: Path,
    values: np.ndarray,
    state: tuple[int, int, int],
    chunk_seconds: float | None = None,
    card_text: str = "",
) -> JobFolder:
    """The forward job from the card `state` (mask, upper, joker_scored) with this value table: made when new,
    else checked to be of the same variant, rules, version, card and table (JobError, one line). The manifest
    also holds the chunk sizing, state_bound's count (for progress and status) and the card as written."""
    extra = {"card": [int(x) for x in state], "values_sha256": values_digest(values)}

    def sizing() -> dict:
        bound = state_bound(job_engine(variant), *state)
        return {
            "plan": [],
            "seconds_per_state": SECONDS_PER_STATE,
            "chunk_seconds": chunk_seconds,
            "states_bound": bound,
            "card_text": card_text,
        }

    job = JobFolder.open(path, variant, "forward", 0, sizing, from_filled=0, extra=extra)
    make_folder(path / "shards")
    for folder in (path, path / "shards", path / "marks"):  # a killed run's temporary files (a checkpoint: GBs)
        for entry in folder.glob(".*.tmp"):
            m = _TEMP.match(entry.name)
            if m and m["name"].endswith("." + socket.gethostname()) and not _alive(int(m["pid"])):
                entry.unlink(missing_ok=True)
    return job


def layer_chunks(job: JobFolder, n_states: int) -> list[tuple[int, int]]:
    """A layer's chunks (state ranges) of about a minute of work, from its state count alone."""
    rate, seconds = job.manifest["seconds_per_state"], job.manifest["chunk_seconds"]
    budget = (chunk_budget(n_states * rate) if seconds is None else seconds) / rate
    return chunk_ranges(np.ones(n_states), max(budget, 1.0))


def _names(n_filled: int, chunk: int | None = None) -> tuple[str, str]:
    if chunk is None:
        return f"states-{n_filled:02d}.npy", f"mass-{n_filled:02d}.npy"
    return f"shards/layer-{n_filled:02d}-chunk-{chunk:05d}.npy", f"marks/layer-{n_filled:02d}-chunk-{chunk:05d}.sha256"


def record(job: JobFolder) -> dict:
    """forward.json: {"checkpoints": {KK: {...}}, "pmf_sha256": ...}; JobError when it is not as written."""
    path = job.path / RECORD
    if not path.exists():
        return {"checkpoints": {}}
    data = read_json(path, MAX_JSON, t("word_job"), JobError)
    checkpoints = data.get("checkpoints") if isinstance(data, dict) else None
    if not isinstance(checkpoints, dict) or not all(
        k.isdigit() and isinstance(v, dict) and isinstance(v.get("states"), int) for k, v in checkpoints.items()
    ):
        raise JobError(t("job_file_damaged", path=path))
    return data


def _save_record(job: JobFolder, data: dict) -> None:
    save_atomic(job.path / RECORD, (json.dumps(data, sort_keys=True) + "\n").encode())


def save_checkpoint(
    job: JobFolder, n_filled: int, layer: Layer, seconds: float, processed: int = 0, built: int = 0
) -> None:
    """The layer as the job's checkpoint (atomically), recorded with the states processed to reach it, those
    whose groups this run built and the seconds it took (summed: the status's pace is seconds a state built);
    the checkpoint and shards two layers back go."""
    states = np.column_stack([layer.mask, layer.upper, layer.joker_scored, layer.lo, np.diff(layer.ptr)])
    names = _names(n_filled)
    entry = {
        "states": int(layer.mask.shape[0]),
        "states_sha256": save_atomic(job.path / names[0], states.astype(np.int64)),
        "mass_sha256": save_atomic(job.path / names[1], layer.data),
        "seconds": round(seconds, 3),
    }
    data = record(job)
    data["checkpoints"][str(n_filled)] = entry
    data.setdefault("layers", {})[str(n_filled)] = {"states": entry["states"], "values": int(layer.data.shape[0])}
    data["states_done"] = int(data.get("states_done", 0)) + processed
    data["seconds_done"] = round(float(data.get("seconds_done", 0.0)) + seconds, 3)
    data["states_built"] = int(data.get("states_built", 0)) + built
    for k in [k for k in data["checkpoints"] if int(k) < n_filled - 1]:
        del data["checkpoints"][k]
    _save_record(job, data)
    for k in range(n_filled - 1):  # also what a run killed before this point left
        _forget(job, k)


def _forget(job: JobFolder, n_filled: int) -> None:
    for name in _names(n_filled):
        (job.path / name).unlink(missing_ok=True)
    for pattern in (f"shards/layer-{n_filled:02d}-*", f"marks/layer-{n_filled:02d}-*"):
        for path in job.path.glob(pattern):
            path.unlink(missing_ok=True)


def load_checkpoint(job: JobFolder, n_filled: int, entry: dict) -> Layer | None:
    """The checkpoint when both its files still have their checksums, else None (it is built again)."""
    names = _names(n_filled)
    if file_sha256(job.path / names[0]) != entry.get("states_sha256"):
        return None
    if file_sha256(job.path / names[1]) != entry.get("mass_sha256"):
        return None
    states = np.load(job.path / names[0], allow_pickle=False)
    data = np.load(job.path / names[1], allow_pickle=False)
    ptr = np.concatenate([[0], np.cumsum(states[:, 4])]).astype(np.int64)
    mask, upper, joker_scored, lo = (np.ascontiguousarray(states[:, i]) for i in range(4))
    return Layer(mask, upper, joker_scored, lo, ptr, data)


def _context(task: ForwardTask, want: str):
    """(engine, values, keys) of the job's value table, loaded once per process; JobError when the table found
    is not the one the job was started with."""
    from ..store.solving import load_table

    key = (task.variant, task.tables_dir, want)
    with _LOCK:
        if key not in _CONTEXT:
            values, _ = load_table(task.variant, Path(task.tables_dir))
            if values_digest(values) != want:
                raise JobError(t("job_forward_table", path=task.folder, variant=task.variant.name))
            engine = job_engine(task.variant)
            _CONTEXT.clear()
            _CONTEXT[key] = engine, values, next_keys(engine, values)
        return _CONTEXT[key]


def run_forward_chunk(task: ForwardTask) -> str:
    """The entry groups of the chunk's states (one thread), written as its shard, then its mark; the shard's
    SHA-256."""
    job = JobFolder.read(Path(task.folder))
    engine, values, keys = _context(task, job.manifest["values_sha256"])
    entry = record(job)["checkpoints"].get(str(task.filled))
    path = job.path / _names(task.filled)[0]
    if entry is None or file_sha256(path) != entry["states_sha256"]:
        raise JobError(t("job_shard_damaged", path=path))
    states = np.load(path, mmap_mode="r", allow_pickle=False)[task.first : task.last]
    cols = [np.ascontiguousarray(states[:, i]) for i in range(3)]
    key, shift, prob, src = ordered_groups(engine, values, cols[0], cols[1], cols[2], keys, 1)
    counts = np.bincount(src, minlength=task.last - task.first).astype(np.int64)
    shard, mark = _names(task.filled, task.chunk)
    digest = save_atomic(job.path / shard, np.concatenate([counts, key, shift, prob.view(np.int64)]), durable=False)
    save_atomic(job.path / mark, f"{digest} {entry['states_sha256']}\n".encode(), durable=False)
    return digest


def read_shard(job: JobFolder, n_filled: int, chunk: int, n_states: int, states_sha256: str):
    """The chunk's groups (counts, key, shift, prob) when its shard and mark are whole and of this layer's
    states, else None (the chunk is built again)."""
    shard, mark = _names(n_filled, chunk)
    try:
        recorded = read_mark(job.path / mark).split()
    except OSError:
        return None
    if recorded != [file_sha256(job.path / shard), states_sha256]:
        return None
    flat = np.load(job.path / shard, allow_pickle=False)
    n = (flat.shape[0] - n_states) // 3
    if flat.ndim != 1 or flat.dtype != np.int64 or n < 0 or n_states + 3 * n != flat.shape[0]:
        return None
    if flat[:n_states].sum() != n:
        return None
    parts = [flat[n_states + i * n : n_states + (i + 1) * n] for i in range(3)]
    return flat[:n_states], parts[0], parts[1], parts[2].view(np.float64)


def _start(job: JobFolder, n_filled: int):
    """(layer, boxes filled) to go on from: the latest checkpoint that still matches its checksums, else the
    card (saved as the first checkpoint)."""
    checkpoints = record(job)["checkpoints"]
    for k in sorted((int(k) for k in checkpoints), reverse=True):
        layer = load_checkpoint(job, k, checkpoints[str(k)])
        if layer is not None:
            return layer, k
    mask, upper, joker_scored = job.manifest["card"]
    layer = start_layer(mask, upper, joker_scored, 0)
    save_checkpoint(job, n_filled, layer, 0.0)
    return layer, n_filled


def run_forward_job(job: JobFolder, variant: Variant, tables_dir: Path, values: np.ndarray, executor, progress=None):
    """Every layer not yet done; the pmf of the points still to come (also saved as pmf.npy). progress(k): k more
    states done (states found done count at once)."""
    done = record(job)
    pmf_path = job.path / PMF
    if done.get("pmf_sha256") is not None and file_sha256(pmf_path) == done["pmf_sha256"]:
        return np.load(pmf_path, allow_pickle=False)
    n_boxes = len(variant.boxes)
    layer, k = _start(job, bin(job.manifest["card"][0]).count("1"))
    slot = np.full(values.size, -1, dtype=np.int64)
    while k < n_boxes:
        t0 = time.perf_counter()
        entry = record(job)["checkpoints"][str(k)]
        ranges = layer_chunks(job, entry["states"])
        shards, built = _layer_shards(job, variant, tables_dir, executor, k, ranges, entry["states_sha256"], progress)
        counts, key, shift, prob = (np.concatenate([s[i] for s in shards]) for i in range(4))
        src = np.repeat(np.arange(entry["states"], dtype=np.int64), counts)
        layer = advance(values, layer, (key, shift, prob, src), slot)
        k += 1
        save_checkpoint(job, k, layer, time.perf_counter() - t0, entry["states"], built)
    pmf = layer_pmf(layer)
    data = record(job)
    data["pmf_sha256"] = save_atomic(pmf_path, pmf)
    data["checkpoints"] = {}  # the pmf is all a rerun needs
    _save_record(job, data)
    for k in range(n_boxes + 1):
        _forget(job, k)
    return pmf


def _layer_shards(job, variant, tables_dir, executor, k, ranges, states_sha256, progress) -> tuple[list, int]:
    """(every chunk's groups of layer k, the states whose groups were built): the shards that still match are
    read, the others built (twice at most: a shard damaged between its task and its reading is built again
    once, then it is one line)."""
    shards: list = [None] * len(ranges)
    counted = set()
    built = 0

    def count(i: int) -> None:
        if progress is not None and i not in counted:
            progress(ranges[i][1] - ranges[i][0])
        counted.add(i)

    for _ in range(2):
        for i, (a, b) in enumerate(ranges):
            if shards[i] is None:
                shards[i] = read_shard(job, k, i, b - a, states_sha256)
                if shards[i] is not None:
                    count(i)
        tasks = [
            ForwardTask(str(job.path), variant, str(tables_dir), k, i, a, b)
            for i, (a, b) in enumerate(ranges)
            if shards[i] is None
        ]
        if not tasks:
            return shards, built
        executor.run(run_forward_chunk, tasks, lambda task, _digest: count(task.chunk))
        built += sum(task.last - task.first for task in tasks)
    raise JobError(t("job_shard_damaged", path=job.path / _names(k, tasks[0].chunk)[0]))


def forward_status(job: JobFolder) -> list[str]:
    """The status lines of a forward job: layers done, chunks left in the layer under way, time left at the
    pace so far (the states left: state_bound's count less those done, an upper bound)."""
    m, data = job.manifest, record(job)
    shown = dict(path=job.path, variant=m["variant"], kind=t("job_kind_forward"), card=m.get("card_text") or "-")
    first, n_boxes = bin(m["card"][0]).count("1"), None
    checkpoints = {int(k): v for k, v in data["checkpoints"].items()}
    if data.get("pmf_sha256") is not None and file_sha256(job.path / PMF) == data["pmf_sha256"]:
        pmf = np.load(job.path / PMF, allow_pickle=False)  # checked first: a FIFO or a cut file is never read
        return [t("job_forward_finished", **shown, mean=f"{float(np.arange(pmf.shape[0]) @ pmf):.6f}")]
    from ..rules.presets import find_variant

    n_boxes = len(find_variant(m["variant"]).boxes)
    k = max(checkpoints, default=first)
    n_states = checkpoints[k]["states"] if k in checkpoints else 1
    ranges = layer_chunks(job, n_states) if k < n_boxes else []
    left = sum(not (job.path / _names(k, i)[1]).exists() for i in range(len(ranges)))
    lines = [
        t("job_forward_status", **shown, layers_done=k - first, layers=n_boxes - first, chunks_left=left,
          chunks=len(ranges), filled=k)
    ]  # fmt: skip
    if data.get("states_built"):
        rate = data["seconds_done"] / data["states_built"]
        states_left = max(m["states_bound"] - data["states_done"], 0)
        hours = number(states_left * rate / 3600, ".1f")
        lines.append(
            t("job_forward_status_time", hours=hours, rate=number(rate, ".4f"), states=count_text(states_left))
        )
    else:
        lines.append(t("job_status_no_time"))
    return lines
