"""A job folder: what a layer-parallel build has done so far, so that a rerun continues where it stopped.

    job.json            the manifest: variant, rules fingerprint, solver version, table kind, N, the plan
    lengths.npy         target tables: the item lengths (computed once, on the driver)
    layers.json         the finished layers: SHA-256 of each layer file, its seconds and cost
    layer-KK.npy        a finished layer (KK boxes filled), assembled by the driver from its shards
    shards/*.npy        a chunk's result, each with a .sha256 beside it written after it

Every file is written atomically, under a temporary name unique per host and process (many machines may
share the folder). A rerun trusts a shard or layer only when its checksum still matches; a folder made for
another variant, rules, version, kind or N is refused with one line.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
from pathlib import Path

import numpy as np

from ..errors import KniffelError
from ..i18n.texts import t
from ..rules.variant import Variant
from ..store.files import make_folder, read_json
from ..version import __version__
from .plan import layer_name, shard_name

MANIFEST, DONE, LENGTHS = "job.json", "layers.json", "lengths.npy"
JOB_FORMAT = 1
MAX_JSON = 64 << 20  # a plan of Balut's size stays far below


class JobError(KniffelError):
    """A job folder that cannot be used, or a scheduler that does not answer."""


def _fsync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_atomic(path: Path, data: np.ndarray | bytes) -> str:
    """Write an array (as np.save writes it) or bytes to `path` atomically: a temporary file named for this
    host and process in the same folder, fsync, rename. Returns the SHA-256 of the bytes written."""
    tmp = path.with_name(f".{path.name}.{socket.gethostname()}.{os.getpid()}.tmp")
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as fh:
            if isinstance(data, bytes):
                fh.write(data)
                digest.update(data)
            else:
                np.save(fh, data, allow_pickle=False)
            fh.flush()
            os.fsync(fh.fileno())
        if not isinstance(data, bytes):
            digest = _hash(tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_folder(path.parent)
    return digest.hexdigest()


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
        return {int(k): v for k, v in read_json(path, MAX_JSON, t("word_job"), JobError).items()}

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
        path = self.shard_path(n_filled, index)
        digest = save_atomic(path, shard)
        save_atomic(path.with_suffix(".sha256"), (digest + "\n").encode())
        return digest

    def finish_layer(self, n_filled: int, axis: int, seconds: float) -> None:
        """Assemble the layer from its shards (in chunk order, along `axis`), rename it into place, record it
        in layers.json and remove its shards."""
        layer = next(entry for entry in self.plan if entry["filled"] == n_filled)
        paths = [self.shard_path(n_filled, i) for i in range(len(layer["chunks"]))]
        parts = [np.load(p, allow_pickle=False) for p in paths]
        digest = save_atomic(self.path / layer_name(n_filled), np.concatenate(parts, axis=axis))
        done = {str(k): v for k, v in self.done().items()}
        done[str(n_filled)] = {"sha256": digest, "seconds": round(seconds, 3), "cost": layer["cost"]}
        save_atomic(self.path / DONE, (json.dumps(done, sort_keys=True) + "\n").encode())
        for p in paths:
            p.unlink(missing_ok=True)
            p.with_suffix(".sha256").unlink(missing_ok=True)

    def layer(self, n_filled: int) -> np.ndarray:
        """A finished layer, memory-mapped copy-on-write: never written (the kernels write their own shards),
        and of the same array type as the in-process build's tables, so Numba compiles no second version."""
        return np.load(self.path / layer_name(n_filled), mmap_mode="c", allow_pickle=False)
