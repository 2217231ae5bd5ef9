"""A job folder: what a layer-parallel build has done so far, so that a rerun continues where it stopped.

    job.json            the manifest: variant, rules fingerprint, solver version, table kind, N, the plan
    lengths.npy         target tables: the item lengths (computed once, on the driver)
    layers.json         the finished layers: checksum, wall seconds, cost, CPU seconds of the chunks computed
    layer-KK.npy        a finished layer (KK boxes filled)
    layer-KK.npy.part   the layer under way: made by the driver at its full size (a .npy header, then room
                        for every value), each chunk's task writing its values into its own stretch in place
    marks/*.sha256      a chunk done: the SHA-256 of the values it wrote, written after them

No chunk's values are written twice or read back by the driver: when every chunk of a layer has its mark,
the driver checks the .part file's size, fsyncs it and renames it into place. A layer's checksum is the
SHA-256 of its header and its chunks' SHA-256s one after another (from the marks, not from reading the
layer again); a rerun recomputes it from the file, chunk by chunk. The other files are written atomically,
under a temporary name unique per host and process (many machines may share the folder), hashed as they
are written, and fsynced; the marks and the chunks' writes are not (a chunk torn by a power loss fails its
mark's checksum and is built again). A rerun keeps a layer or a chunk only when its checksum still matches;
a folder made for another variant, rules, version, kind, N or job format is refused with one line.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
from pathlib import Path

import numpy as np

from ..errors import KniffelError
from ..i18n.texts import os_reason, t
from ..rules.variant import Variant
from ..store.files import NotRegularFile, fsync_folder, make_folder, read_bounded, read_json, regular_fd
from ..version import __version__
from .job_files import (
    file_sha256,
    layer_digest,
    npy_header,
    npy_shape,
    pwrite_all,
    range_digest,
    read_mark,
    reader,
    save_atomic,
)
from .plan import layer_name, mark_name

MANIFEST, DONE, LENGTHS = "job.json", "layers.json", "lengths.npy"
# 2: value-table layers (items, 2, cap + 1), the shards' bytes one after another; 3: no shards, chunks written
# in place into the layer's .part file, a layer's checksum from its chunks' marks
JOB_FORMAT = 3
MAX_JSON = 64 << 20  # a plan of Balut's size stays far below
MAX_LENGTHS = 1 << 30  # (2^boxes, 2) int64: 4 MB at 18 boxes
DTYPE = np.dtype(np.float64)  # every layer file's


class JobError(KniffelError):
    """A job folder that cannot be used, or a scheduler that does not answer."""


def identity(variant: Variant, kind: str, n_max: int, from_filled: int, extra: dict | None = None) -> dict:
    """What a job folder is a build of; extra: a kind's own fields (a forward job's card and value table)."""
    identity = {
        "format": JOB_FORMAT,
        "variant": variant.name,
        "fingerprint": variant.fingerprint(),
        "solver_version": __version__,
        "kind": kind,
        "n_max": n_max,
    }
    if from_filled:  # only the layers with at least this many boxes filled (Kniffel 7's end game)
        identity["from_filled"] = from_filled
    return {**identity, **(extra or {})}


def manifest_digest(manifest: dict) -> str:
    """The SHA-256 of job.json's fields but this one (keys sorted): a change that still parses, such as a digit
    of a chunk's bounds, would otherwise build a table with a gap or an overlap and no word said."""
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _number(value) -> bool:
    """A count or seconds as written: finite and not negative (json reads NaN and Infinity too)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < math.inf


def _chunk_ok(chunk) -> bool:
    """[first, last, cost] as written: rows first..last-1 of the layer, and their cost."""
    return (
        isinstance(chunk, list)
        and len(chunk) == 3
        and all(isinstance(x, int) and not isinstance(x, bool) for x in chunk[:2])
        and 0 <= chunk[0] <= chunk[1]
        and _number(chunk[2])
    )


def _layer_ok(layer) -> bool:
    """A layer of the plan as written: boxes filled, rows, chunks [first, last, cost] within the rows, cost, and
    where each chunk's values start in the layer file (at: one more than the chunks, from 0, never back)."""
    if not (isinstance(layer, dict) and isinstance(layer.get("filled"), int) and _number(layer.get("cost"))):
        return False
    chunks, rows, at = layer.get("chunks"), layer.get("rows"), layer.get("at")
    if not (isinstance(chunks, list) and all(map(_chunk_ok, chunks)) and isinstance(rows, int)):
        return False
    if not (isinstance(at, list) and len(at) == len(chunks) + 1 and all(isinstance(x, int) for x in at)):
        return False
    return all(chunk[1] <= rows for chunk in chunks) and at[0] == 0 and all(a <= b for a, b in zip(at, at[1:]))


def _manifest_ok(manifest: dict) -> bool:
    """job.json as written: its identity's fields, and a plan of layers (_layer_ok)."""
    if not (isinstance(manifest.get("variant"), str) and manifest.get("kind") in ("ev", "target", "forward")):
        return False
    if not (isinstance(manifest.get("n_max"), int) and isinstance(manifest.get("from_filled", 0), int)):
        return False
    return all(map(_layer_ok, manifest["plan"]))


def _done_ok(done) -> bool:
    """layers.json as written: boxes filled -> {sha256, seconds, cost, cpu, cpu_cost} (the last two since
    2026-12-07: optional)."""
    return isinstance(done, dict) and all(
        key.isdigit()
        and isinstance(entry, dict)
        and isinstance(entry.get("sha256"), str)
        and _number(entry.get("seconds"))
        and _number(entry.get("cost"))
        and (all(_number(entry.get(k)) for k in ("cpu", "cpu_cost")) or not {"cpu", "cpu_cost"} & entry.keys())
        for key, entry in done.items()
    )


def _remove(path: Path) -> None:
    """Something not a regular file in the place of one this job writes: removed (an empty folder, a FIFO, a
    socket, a link), else one line naming it."""
    try:
        os.rmdir(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
    except OSError as exc:  # a folder with files in it, a file of another user's: theirs to move, not ours
        raise JobError(t("job_in_the_way", path=path, reason=os_reason(exc))) from None


class JobFolder:
    def __init__(self, path: Path, manifest: dict):
        self.path = path
        self.manifest = manifest

    @classmethod
    def read(cls, path: Path) -> JobFolder:
        """An existing job folder (JobError when it holds no readable manifest)."""
        manifest = read_json(path / MANIFEST, MAX_JSON, t("word_job"), JobError) if (path / MANIFEST).exists() else None
        if not isinstance(manifest, dict) or not isinstance(manifest.get("plan"), list):
            raise JobError(t("job_none", path=path))
        if not _manifest_ok(manifest):
            raise JobError(t("job_file_damaged", path=path / MANIFEST))
        digest = manifest.get("manifest_sha256")  # none in the folders written before it: read as they were
        if digest is not None and digest != manifest_digest(manifest):
            raise JobError(t("job_file_damaged", path=path / MANIFEST))
        return cls(path, manifest)

    @classmethod
    def open(
        cls,
        path: Path,
        variant: Variant,
        kind: str,
        n_max: int,
        make_plan,
        lengths=None,
        from_filled: int = 0,
        extra: dict | None = None,
    ) -> JobFolder:
        """The job folder of this build: made (with make_plan()) when new, else checked to be of the same
        variant, rules, solver version, kind, N, first layer and extra fields (identity)."""
        want = identity(variant, kind, n_max, from_filled, extra)
        if (path / MANIFEST).exists():
            job = cls.read(path)
            got = {k: job.manifest.get(k) for k in want}
            if got != want or job.from_filled != from_filled:
                pairs = ((got["n_max"], got["kind"]), (n_max, kind))
                n_got, n_want = (f"N {x}, " if k == "target" else "" for x, k in pairs)  # N: a target table's
                found = f"{got['variant']} {got['kind']} ({n_got}version {got['solver_version']})"
                wanted = f"{variant.name} {kind} ({n_want}version {__version__})"
                if got["format"] != JOB_FORMAT:  # an older layout of the folder's files: not read
                    found, wanted = f"{found}, job format {got['format']}", f"{wanted}, job format {JOB_FORMAT}"
                if job.from_filled != from_filled:
                    found, wanted = f"{found} >= {job.from_filled}", f"{wanted} >= {from_filled}"
                for key in [k for k in extra or {} if got[k] != want[k]]:  # the card, the value table
                    found, wanted = f"{found}, {key} {got[key]}", f"{wanted}, {key} {want[key]}"
                raise JobError(t("job_other", path=path, found=found, wanted=wanted))
            if lengths is not None and file_sha256(path / LENGTHS) != job.manifest.get("lengths_sha256"):
                raise JobError(t("job_damaged", path=path / LENGTHS))
            return job
        make_folder(path)
        make_folder(path / "marks")
        plan = make_plan()
        manifest = {**want, **(plan if isinstance(plan, dict) else {"plan": plan})}
        if lengths is not None:
            manifest["lengths_sha256"] = save_atomic(path / LENGTHS, lengths)
        manifest["manifest_sha256"] = manifest_digest(manifest)
        save_atomic(path / MANIFEST, (json.dumps(manifest) + "\n").encode())
        return cls(path, manifest)

    @property
    def from_filled(self) -> int:
        """The least boxes filled of the layers built (0: the whole table)."""
        return int(self.manifest.get("from_filled", 0))

    @property
    def plan(self) -> list[dict]:
        return self.manifest["plan"]

    def lengths(self) -> np.ndarray:
        """A target job's item lengths, checked against the manifest: missing, cut or changed is a JobError."""
        path = self.path / LENGTHS
        data = read_bounded(path, MAX_LENGTHS, t("word_job"), JobError) if path.exists() else b""
        if hashlib.sha256(data).hexdigest() != self.manifest.get("lengths_sha256"):
            raise JobError(t("job_damaged", path=path))
        return np.load(io.BytesIO(data), allow_pickle=False)

    def done(self) -> dict[int, dict]:
        """The finished layers (boxes filled -> sha256, seconds, cost, and since 2026-12-07 cpu and cpu_cost), as
        recorded."""
        path = self.path / DONE
        if not path.exists():
            return {}
        done = read_json(path, MAX_JSON, t("word_job"), JobError)
        if not _done_ok(done) or not {int(k) for k in done} <= {entry["filled"] for entry in self.plan}:
            raise JobError(t("job_file_damaged", path=path))  # a layer outside the plan: another job's record
        return {int(k): v for k, v in done.items()}

    def verified_done(self) -> dict[int, dict]:
        """The finished layers whose files still have their checksums (the others are built again)."""
        return {k: v for k, v in self.done().items() if self._file_digest(k) == v["sha256"]}

    def layer_ok(self, n_filled: int, sha256: str) -> bool:
        """Whether the finished layer's file still has this checksum (as recorded in layers.json)."""
        return self._file_digest(n_filled) == sha256

    def _layer(self, n_filled: int) -> tuple[dict, bytes]:
        """The layer's plan entry and its file's .npy header."""
        layer = next(entry for entry in self.plan if entry["filled"] == n_filled)
        return layer, npy_header(tuple(layer["shape"]), DTYPE)

    def _file_digest(self, n_filled: int) -> str | None:
        """The checksum of the layer file as it is now (read chunk by chunk); None when it is missing or
        not of the layer's size."""
        layer, header = self._layer(n_filled)
        at = layer["at"]
        try:
            with reader(self.path / layer_name(n_filled)) as fh:
                if fh.read(len(header)) != header:
                    return None
                digests = [range_digest(fh, (b - a) * DTYPE.itemsize) for a, b in zip(at, at[1:])]
                if None in digests or fh.read(1):
                    return None
        except (FileNotFoundError, NotRegularFile):  # a layer built again replaces whatever is there
            return None
        return layer_digest(header, digests)  # type: ignore[arg-type]

    def part_path(self, n_filled: int) -> Path:
        return self.path / f"{layer_name(n_filled)}.part"

    def mark_path(self, n_filled: int, index: int) -> Path:
        return self.path / mark_name(n_filled, index)

    def start_layer(self, n_filled: int) -> None:
        """Make the layer's .part file at its full size (its header, then room for its values: a sparse file
        until the chunks write them). A rerun keeps the one there (its chunks whose marks still match are
        kept), its header written again and its size set again if it was cut or grown."""
        layer, header = self._layer(n_filled)
        size = len(header) + layer["at"][-1] * DTYPE.itemsize
        part = self.part_path(n_filled)
        try:
            fd = regular_fd(part, os.O_RDWR | os.O_CREAT)
        except NotRegularFile:  # not a file this job wrote (a FIFO, a folder): made again
            _remove(part)
            fd = regular_fd(part, os.O_RDWR | os.O_CREAT)
        try:
            os.pwrite(fd, header, 0)
            if os.fstat(fd).st_size != size:
                os.ftruncate(fd, size)
        finally:
            os.close(fd)

    def chunk_written(self, n_filled: int, index: int) -> bool:
        """Whether the chunk's mark exists (its values are written first, then its mark)."""
        return self.mark_path(n_filled, index).exists()

    def chunk_ok(self, n_filled: int, index: int) -> bool:
        """Whether the chunk's values are in the layer's .part file, whole: they still have their mark's
        checksum (read back: only a rerun asks)."""
        layer, header = self._layer(n_filled)
        a, b = layer["at"][index], layer["at"][index + 1]
        try:
            recorded = read_mark(self.mark_path(n_filled, index))
            with reader(self.part_path(n_filled)) as fh:
                fh.seek(len(header) + a * DTYPE.itemsize)
                return range_digest(fh, (b - a) * DTYPE.itemsize) == recorded
        except (FileNotFoundError, NotRegularFile):
            return False

    def write_chunk(self, n_filled: int, index: int, values: np.ndarray) -> str:
        """Write the chunk's values into their stretch of the layer's .part file (in place, os.pwrite: never
        another copy of them), then its mark with their SHA-256 (atomically, neither fsynced: a few ms a
        task; the driver fsyncs the layer). Idempotent: a chunk run twice writes the same bytes."""
        layer, header = self._layer(n_filled)
        a, b = layer["at"][index], layer["at"][index + 1]
        data = np.ascontiguousarray(values, dtype=DTYPE).reshape(-1)
        if data.shape[0] != b - a:
            raise ValueError(f"chunk {index} of layer {n_filled}: {data.shape[0]} values, not {b - a}")
        try:
            fd = regular_fd(self.part_path(n_filled), os.O_WRONLY)
        except (FileNotFoundError, NotRegularFile):  # the driver makes it before it hands out the layer's chunks
            raise JobError(t("job_shard_damaged", path=self.part_path(n_filled))) from None
        try:
            pwrite_all(fd, data, len(header) + a * DTYPE.itemsize)
        finally:
            os.close(fd)
        digest = hashlib.sha256(data.view(np.uint8).data).hexdigest()
        save_atomic(self.mark_path(n_filled, index), (digest + "\n").encode(), durable=False)
        return digest

    def finish_layer(self, n_filled: int, seconds: float, cpu: float = 0.0, cpu_cost: int = 0) -> None:
        """Every chunk of the layer has its mark: check the .part file's size, fsync it, rename it into place,
        record it in layers.json (its checksum from the marks, the wall seconds of this run's part, and the
        CPU seconds of the chunks this run computed with their cost: chunks kept from an earlier run count in
        neither) and remove the marks. A missing mark or a file of another size is JobError (one line): a
        rerun builds the chunks that no longer match again."""
        layer, header = self._layer(n_filled)
        marks = [self.mark_path(n_filled, i) for i in range(len(layer["chunks"]))]
        part = self.part_path(n_filled)
        try:
            digests = [read_mark(mark) for mark in marks]
        except OSError:  # NotRegularFile included
            raise JobError(t("job_shard_damaged", path=self.path / "marks")) from None
        try:
            fd = regular_fd(part)
        except (FileNotFoundError, NotRegularFile):
            raise JobError(t("job_shard_damaged", path=part)) from None
        try:
            if os.fstat(fd).st_size != len(header) + layer["at"][-1] * DTYPE.itemsize:
                raise JobError(t("job_shard_damaged", path=part))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(part, self.path / layer_name(n_filled))
        fsync_folder(self.path)
        done = {str(k): v for k, v in self.done().items()}
        entry = {"sha256": layer_digest(header, digests), "seconds": round(seconds, 3), "cost": layer["cost"]}
        entry.update(cpu=round(cpu, 3), cpu_cost=cpu_cost)
        done[str(n_filled)] = entry
        save_atomic(self.path / DONE, (json.dumps(done, sort_keys=True) + "\n").encode())
        for mark in marks:
            mark.unlink(missing_ok=True)

    def read_layer(self, n_filled: int, out: np.ndarray) -> int:
        """Read a finished target-table layer (1-D float64) into the front of out; its length. Read, not
        memory-mapped and copied: a copy out of a mapping costs a page fault every few pages."""
        try:
            fh = reader(self.path / layer_name(n_filled))
        except (FileNotFoundError, NotRegularFile):
            raise JobError(t("job_damaged", path=self.path / layer_name(n_filled))) from None
        with fh:
            shape, dtype = npy_shape(fh)
            if len(shape) != 1 or dtype != out.dtype or shape[0] > len(out):
                raise JobError(t("job_damaged", path=self.path / layer_name(n_filled)))
            want = shape[0] * dtype.itemsize
            if fh.readinto(out[: shape[0]].data.cast("B")) != want:
                raise JobError(t("job_damaged", path=self.path / layer_name(n_filled)))
        return shape[0]

    def layer(self, n_filled: int) -> np.ndarray:
        """A finished layer, memory-mapped copy-on-write: never written (the kernels write their own chunks),
        and of the same array type as the in-process build's tables, so Numba compiles no second version."""
        path = self.path / layer_name(n_filled)
        try:
            os.close(regular_fd(path))  # np.load would wait for ever on a FIFO
        except (FileNotFoundError, NotRegularFile):
            raise JobError(t("job_damaged", path=path)) from None
        return np.load(path, mmap_mode="c", allow_pickle=False)
