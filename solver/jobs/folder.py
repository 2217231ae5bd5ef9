"""A job folder: what a layer-parallel build has done so far, so that a rerun continues where it stopped.

    job.json            the manifest: variant, rules fingerprint, solver version, table kind, N, the plan
    lengths.npy         target tables: the item lengths (computed once, on the driver)
    layers.json         the finished layers: SHA-256 of each layer file, its seconds and cost
    layer-KK.npy        a finished layer (KK boxes filled), assembled by the driver from its shards
    shards/*.npy        a chunk's result, each with a .sha256 beside it written after it

Every file is written atomically, under a temporary name unique per host and process (many machines may
share the folder), and hashed as it is written; all but the shards are fsynced too (a shard torn by a power
loss fails its checksum and is built again). A rerun trusts a shard or layer only when its checksum still
matches; a folder made for another variant, rules, version, kind or N is refused with one line.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path

import numpy as np

from ..errors import KniffelError
from ..i18n.texts import t
from ..rules.variant import Variant
from ..store.files import make_folder, read_json
from ..version import __version__
from .plan import layer_name, shard_name

MANIFEST, DONE, LENGTHS = "job.json", "layers.json", "lengths.npy"
JOB_FORMAT = 2  # 2: value-table layers (items, 2, cap + 1), the shards' bytes one after another
MAX_JSON = 64 << 20  # a plan of Balut's size stays far below
BLOCK = 16 << 20  # bytes a read when the driver assembles a layer


class JobError(KniffelError):
    """A job folder that cannot be used, or a scheduler that does not answer."""


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_atomic(path: Path, data: np.ndarray | bytes, durable: bool = True) -> str:
    """Write an array (as np.save writes it) or bytes to `path` atomically; the SHA-256 of the bytes written."""
    if isinstance(data, bytes):
        return _write_atomic(path, [data], durable)
    data = np.asarray(data)
    raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)  # also an empty or 0-d array, as np.save takes it
    return _write_atomic(path, [_npy_header(data.shape, data.dtype), raw], durable)


def _write_atomic(path: Path, pieces: Iterable, durable: bool = True) -> str:
    """Write the pieces (buffers) one after another to `path` atomically: a temporary file named for this host
    and process in the same folder, renamed into place (durable: fsynced before, its folder after). Each byte
    is hashed as it is written, never read back. Returns the SHA-256 of the file."""
    tmp = path.with_name(f".{path.name}.{socket.gethostname()}.{os.getpid()}.tmp")
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as fh:
            for piece in pieces:
                fh.write(piece)
                digest.update(piece)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    if durable:
        _fsync_folder(path.parent)
    return digest.hexdigest()


def _npy_header(shape: tuple, dtype: np.dtype) -> bytes:
    """The header np.save writes before a C-ordered array of this shape and type."""
    out = io.BytesIO()
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(out, header)
    return out.getvalue()


def _npy_shape(fh) -> tuple[tuple, np.dtype]:
    """The shape and type of the .npy file open in fh (left at its data); ValueError unless as we write them."""
    if np.lib.format.read_magic(fh) != (1, 0):
        raise ValueError("not a .npy file of version 1.0")
    shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(fh)
    if fortran_order:
        raise ValueError("Fortran order")
    return shape, dtype


def _checked_blocks(path: Path, recorded: str, buffer: memoryview) -> Iterator[memoryview]:
    """The data bytes of a shard, block by block through `buffer` (each block used before the next is read);
    JobError after the last unless the whole file still has the SHA-256 recorded when it was written."""
    check = hashlib.sha256()
    with open(path, "rb") as fh:
        _npy_shape(fh)
        start = fh.tell()
        fh.seek(0)
        check.update(fh.read(start))
        while n := fh.readinto(buffer):
            check.update(buffer[:n])
            yield buffer[:n]
    if check.hexdigest() != recorded:
        raise JobError(t("job_shard_damaged", path=path))


def _hash(path: Path):
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    return digest


def file_sha256(path: Path) -> str | None:
    """The file's SHA-256, None when it is missing."""
    try:
        return _hash(path).hexdigest()
    except FileNotFoundError:
        return None


def _identity(variant: Variant, kind: str, n_max: int, from_filled: int) -> dict:
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
    return identity


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _manifest_ok(manifest: dict) -> bool:
    """job.json as written: its identity's fields, and a plan of layers (boxes filled, chunks, cost)."""
    if not (isinstance(manifest.get("variant"), str) and manifest.get("kind") in ("ev", "target")):
        return False
    if not (isinstance(manifest.get("n_max"), int) and isinstance(manifest.get("from_filled", 0), int)):
        return False
    return all(
        isinstance(layer, dict)
        and isinstance(layer.get("filled"), int)
        and isinstance(layer.get("chunks"), list)
        and _number(layer.get("cost"))
        for layer in manifest["plan"]
    )


def _done_ok(done) -> bool:
    """layers.json as written: boxes filled -> {sha256, seconds, cost}."""
    return isinstance(done, dict) and all(
        key.isdigit()
        and isinstance(entry, dict)
        and isinstance(entry.get("sha256"), str)
        and _number(entry.get("seconds"))
        and _number(entry.get("cost"))
        for key, entry in done.items()
    )


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
        return cls(path, manifest)

    @classmethod
    def open(
        cls, path: Path, variant: Variant, kind: str, n_max: int, make_plan, lengths=None, from_filled: int = 0
    ) -> JobFolder:
        """The job folder of this build: made (with make_plan()) when new, else checked to be of the same
        variant, rules, solver version, kind, N and first layer."""
        want = _identity(variant, kind, n_max, from_filled)
        if (path / MANIFEST).exists():
            job = cls.read(path)
            got = {k: job.manifest.get(k) for k in want}
            if got != want or job.from_filled != from_filled:
                found = f"{got['variant']} {got['kind']} (N {got['n_max']}, version {got['solver_version']})"
                wanted = f"{variant.name} {kind} (N {n_max}, version {__version__})"
                if job.from_filled != from_filled:
                    found, wanted = f"{found} >= {job.from_filled}", f"{wanted} >= {from_filled}"
                raise JobError(t("job_other", path=path, found=found, wanted=wanted))
            if lengths is not None and file_sha256(path / LENGTHS) != job.manifest.get("lengths_sha256"):
                raise JobError(t("job_damaged", path=path / LENGTHS))
            return job
        make_folder(path)
        make_folder(path / "shards")
        manifest = {**want, "plan": make_plan()}
        if lengths is not None:
            manifest["lengths_sha256"] = save_atomic(path / LENGTHS, lengths)
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
        return np.load(self.path / LENGTHS, allow_pickle=False)

    def done(self) -> dict[int, dict]:
        """The finished layers (boxes filled -> sha256, seconds, cost), as recorded."""
        path = self.path / DONE
        if not path.exists():
            return {}
        done = read_json(path, MAX_JSON, t("word_job"), JobError)
        if not _done_ok(done):
            raise JobError(t("job_file_damaged", path=path))
        return {int(k): v for k, v in done.items()}

    def verified_done(self) -> dict[int, dict]:
        """The finished layers whose files still have their checksums (the others are built again)."""
        return {k: v for k, v in self.done().items() if file_sha256(self.path / layer_name(k)) == v["sha256"]}

    def shard_path(self, n_filled: int, index: int) -> Path:
        return self.path / shard_name(n_filled, index)

    def shard_written(self, n_filled: int, index: int) -> bool:
        """Whether the shard's checksum file exists (a shard is written first, then its checksum)."""
        return self.shard_path(n_filled, index).with_suffix(".sha256").exists()

    def shard_ok(self, n_filled: int, index: int) -> bool:
        """Whether the shard is there, whole: the bytes still have the checksum written after them."""
        path = self.shard_path(n_filled, index)
        try:
            recorded = path.with_suffix(".sha256").read_text().strip()
        except FileNotFoundError:
            return False
        return file_sha256(path) == recorded

    def write_shard(self, n_filled: int, index: int, shard: np.ndarray) -> str:
        """Write the shard, then its checksum, each atomically but not fsynced (a few ms a task): a shard torn
        by a power loss no longer has its checksum, and shard_ok has it built again."""
        path = self.shard_path(n_filled, index)
        digest = save_atomic(path, shard, durable=False)
        save_atomic(path.with_suffix(".sha256"), (digest + "\n").encode(), durable=False)
        return digest

    def finish_layer(self, n_filled: int, seconds: float) -> None:
        """Assemble the layer file from its shards, rename it into place, record it in layers.json and remove
        the shards. The layer is the shards' data one after another (chunk order, along the first axis),
        each byte read once, checked against its shard's recorded checksum on the way (JobError when one no
        longer matches: a rerun builds that chunk again) and hashed for the layer's."""
        layer = next(entry for entry in self.plan if entry["filled"] == n_filled)
        paths = [self.shard_path(n_filled, i) for i in range(len(layer["chunks"]))]
        try:
            shapes = []
            for path in paths:
                with open(path, "rb") as fh:
                    shapes.append(_npy_shape(fh))
            recorded = [path.with_suffix(".sha256").read_text().strip() for path in paths]
        except (OSError, ValueError):
            raise JobError(t("job_shard_damaged", path=self.path / "shards")) from None
        (shape, dtype), rows = shapes[0], sum(each[0] for each, _ in shapes)
        assert all(other[1:] == shape[1:] and other_type == dtype for other, other_type in shapes)
        buffer = memoryview(bytearray(BLOCK))
        shards = (_checked_blocks(path, digest, buffer) for path, digest in zip(paths, recorded))
        pieces = chain([_npy_header((rows, *shape[1:]), dtype)], *shards)
        digest = _write_atomic(self.path / layer_name(n_filled), pieces)
        done = {str(k): v for k, v in self.done().items()}
        done[str(n_filled)] = {"sha256": digest, "seconds": round(seconds, 3), "cost": layer["cost"]}
        save_atomic(self.path / DONE, (json.dumps(done, sort_keys=True) + "\n").encode())
        for p in paths:
            p.unlink(missing_ok=True)
            p.with_suffix(".sha256").unlink(missing_ok=True)

    def read_layer(self, n_filled: int, out: np.ndarray) -> int:
        """Read a finished target-table layer (1-D float64) into the front of out; its length. Read, not
        memory-mapped and copied: a copy out of a mapping costs a page fault every few pages."""
        with open(self.path / layer_name(n_filled), "rb") as fh:
            shape, dtype = _npy_shape(fh)
            if len(shape) != 1 or dtype != out.dtype or shape[0] > len(out):
                raise JobError(t("job_damaged", path=self.path / layer_name(n_filled)))
            want = shape[0] * dtype.itemsize
            if fh.readinto(out[: shape[0]].data.cast("B")) != want:
                raise JobError(t("job_damaged", path=self.path / layer_name(n_filled)))
        return shape[0]

    def layer(self, n_filled: int) -> np.ndarray:
        """A finished layer, memory-mapped copy-on-write: never written (the kernels write their own shards),
        and of the same array type as the in-process build's tables, so Numba compiles no second version."""
        return np.load(self.path / layer_name(n_filled), mmap_mode="c", allow_pickle=False)
