"""Target tables on disk: tables/<variant>.target.npy (the flat float64 array of solver/dp/target.py
without the layers target_layers.choose_dropped leaves out, about half of the values, recomputed
bit for bit when read: kniffel 397 MB instead of 793 MB; float32 would halve the file too, but
benchmarks/bench_target.py found the best option changed in 5 of 3,000 random situations, all between
options less than 1e-6 apart, so float64 it is) plus the sidecar <variant>.target.json (rules
fingerprint, N, the layout's item lengths and the layers left out, SHA-256 of the .npy bytes and of
the lengths).

The layout is a pure function of the rules and N; the sidecar carries the item lengths so that
loading need not recompute the most each state can still score (the layers left out follow from
them; the sidecar's list must agree). Writes are atomic (temporary files
in the same folder, fsync, rename); loading verifies both checksums and refuses anything else with a
message naming the file and the fix.

Hashing the 397 MB kniffel table takes about a second, too long for every `advise --target`; so a verified
table leaves a stamp, .<variant>.target.verified: the checksum together with the file's size, inode,
mtime and ctime. A load whose file still has exactly those skips the hash (any rewrite, even one
that restores the mtime, changes the ctime or the inode); anything else hashes the file again.
A loaded table is memory-mapped; a holder that lives on (the server, an API Table) compares that identity
before each use and loads the file again when it has changed (chances/targets.TargetTable.unchanged): a rewrite
in place would else be read unchecked, and a truncation be SIGBUS. Left open: a change within the
same clock tick as the check, or while a request reads.
"""

from __future__ import annotations

import hashlib
import io
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..dp import Engine
from ..dp.target_layout import TargetLayout, layout_order, target_layout
from ..errors import KniffelError
from ..i18n.texts import t
from ..rules.variant import Variant
from ..version import __version__
from .files import atomic_write_bytes, atomic_write_files, fix_for, make_folder, open_regular, read_json
from .tables import HEADER_LIMIT
from .target_layers import choose_dropped, layer_sizes, pack

TARGET_FORMAT = 2
# per (mask, joker_scored): representative upper totals x needs 1..min(N, most still possible), the
# layers of target_layers.choose_dropped left out (recomputed when read)
LAYOUT = "compact-v2"
MAX_SIDECAR_BYTES = 1 << 20
STORED_DTYPE = np.float64  # the dtype on disk (see the module's doc)
BLOCK = 16 << 20  # bytes a read when a table is saved from its layers' files


class TargetTableError(KniffelError):
    """A target table is missing, stale or damaged."""


class TargetTableMissing(TargetTableError):
    pass


def target_paths(variant: Variant, directory: Path) -> tuple[Path, Path]:
    return directory / f"{variant.name}.target.npy", directory / f"{variant.name}.target.json"


def _sha256(path: Path, limit: int) -> str:
    """The checksum of a regular file of at most `limit` bytes (files.open_regular), read in chunks."""
    digest = hashlib.sha256()
    with open_regular(path, limit, t("word_target_table"), TargetTableError) as fh:
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()


class _Digest:
    """A file-like sink: np.save into it gives the SHA-256 of the file np.save would write."""

    def __init__(self):
        self.sha256 = hashlib.sha256()

    def write(self, data) -> None:
        self.sha256.update(data)


def _lengths_digest(lengths: list[int]) -> str:
    return hashlib.sha256(np.asarray(lengths, dtype="<i8").tobytes()).hexdigest()


def _stamp_path(npy: Path) -> Path:
    return npy.with_name(f".{npy.name.removesuffix('.npy')}.verified")


def _file_identity(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns]


def file_identity(path: Path) -> list[int] | None:
    """The file's size, inode, mtime and ctime (None when it is gone): any rewrite changes one of them."""
    try:
        return _file_identity(path)
    except OSError:
        return None


def _write_stamp(npy: Path, digest: str) -> None:
    """Remember that `npy` (as it is now) has checksum `digest`; best effort (a read-only folder
    only means hashing again next time)."""
    try:
        atomic_write_bytes(_stamp_path(npy), json.dumps({"sha256": digest, "file": _file_identity(npy)}).encode())
    except (OSError, KniffelError):
        pass


def _verified(npy: Path, digest: str, limit: int) -> bool:
    """Whether `npy` has checksum `digest`: from its stamp when the file is unchanged since it was
    hashed, else by hashing it (and stamping it when it matches)."""
    try:
        stamp = read_json(_stamp_path(npy), MAX_SIDECAR_BYTES, t("word_target_table"), TargetTableError)
        if stamp == {"sha256": digest, "file": _file_identity(npy)}:
            return True
    except (OSError, TargetTableError):
        pass
    if _sha256(npy, limit) != digest:
        return False
    _write_stamp(npy, digest)
    return True


def stored(flat: np.ndarray) -> np.ndarray:
    """The table as it is stored (and used after a build, so that advice never depends on whether
    the table was just built or loaded)."""
    return np.ascontiguousarray(flat, dtype=STORED_DTYPE)


def save_target(variant: Variant, flat: np.ndarray, layout: TargetLayout, directory: Path, *, seconds: float) -> dict:
    """Write the table (as stored(flat), a full table as built, its layers of choose_dropped left out)
    and its sidecar atomically; return the sidecar."""
    make_folder(directory)
    npy, meta_path = target_paths(variant, directory)
    dropped = choose_dropped(layer_sizes(variant, layout))
    values = stored(pack(variant, layout, flat, dropped))
    digest = _Digest()
    np.save(digest, values, allow_pickle=False)  # np.save is deterministic: the same bytes go to the file
    meta = _sidecar(variant, layout, dropped, int(values.shape[0]), digest.sha256.hexdigest(), seconds)
    atomic_write_files(  # the table first: a sidecar never describes an older table
        [
            (npy, lambda fh: np.save(fh, values, allow_pickle=False)),
            (meta_path, (json.dumps(meta, indent=2) + "\n").encode()),
        ]
    )
    _write_stamp(npy, meta["sha256"])
    return meta


def save_target_layers(
    variant: Variant, layout: TargetLayout, layer_file: Callable[[int], Path], directory: Path, *, seconds: float
) -> dict:
    """As save_target, the table's layers streamed from their files instead of from one array in memory (a
    job's: layer_file(k) is the .npy file of the layer with k boxes filled, its values in layout order), each
    byte read once and hashed as it is written: the same file, bit for bit; return the sidecar."""
    make_folder(directory)
    npy, meta_path = target_paths(variant, directory)
    sizes = layer_sizes(variant, layout)
    dropped = choose_dropped(sizes)
    kept = [k for k in range(len(variant.boxes) - 1, -1, -1) if k not in dropped]
    header = _npy_header((int(sizes[kept].sum()),))
    digest = hashlib.sha256(header)

    def write_table(fh) -> None:
        fh.write(header)
        buffer = memoryview(bytearray(BLOCK))
        for k in kept:
            with open(layer_file(k), "rb") as layer:
                np.lib.format.read_magic(layer)
                shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(layer)
                if shape != (int(sizes[k]),) or fortran_order or dtype != STORED_DTYPE:
                    got, expected = f"{shape} {dtype}", f"({int(sizes[k])},) {np.dtype(STORED_DTYPE).name}"
                    fix = t("target_fix", variant=variant.name)
                    raise TargetTableError(t("target_shape", path=layer_file(k), got=got, expected=expected, fix=fix))
                while n := layer.readinto(buffer):
                    fh.write(buffer[:n])
                    digest.update(buffer[:n])

    def write_sidecar(fh) -> None:  # after the table: its checksum is known by then
        meta.update(_sidecar(variant, layout, dropped, int(sizes[kept].sum()), digest.hexdigest(), seconds))
        fh.write((json.dumps(meta, indent=2) + "\n").encode())

    meta: dict = {}
    atomic_write_files([(npy, write_table), (meta_path, write_sidecar)])
    _write_stamp(npy, meta["sha256"])
    return meta


def _npy_header(shape: tuple) -> bytes:
    """The header np.save writes before a C-ordered float64 array of this shape."""
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        out, {"descr": np.lib.format.dtype_to_descr(np.dtype(STORED_DTYPE)), "fortran_order": False, "shape": shape}
    )
    return out.getvalue()


def _sidecar(variant: Variant, layout: TargetLayout, dropped: tuple, size: int, sha256: str, seconds: float) -> dict:
    masks, jokers_scored = layout_order(variant)
    lengths = layout.length[masks, jokers_scored].tolist()
    return {
        "variant": variant.name,
        "kind": "target",
        "fingerprint": variant.fingerprint(),
        "format": TARGET_FORMAT,
        "solver_version": __version__,
        "n_max": int(layout.n_max),
        "layout": LAYOUT,
        "size": size,
        "dropped_layers": list(dropped),  # boxes filled; a pure function of the lengths
        "dtype": np.dtype(STORED_DTYPE).name,
        "sha256": sha256,
        "seconds": round(float(seconds), 3),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "lengths_sha256": _lengths_digest(lengths),
        "lengths": lengths,  # L of each work item in layout_order (solver/dp/target.py)
    }


def load_target(
    variant: Variant, engine: Engine, directory: Path
) -> tuple[np.ndarray, TargetLayout, dict, list[int] | None]:
    """(flat table, layout, sidecar, the file's identity), verified against the rules, the layout and the
    checksum. The table is memory-mapped: whoever keeps it checks the identity before each use (a file
    rewritten in place, by cp or rsync --inplace, would else be read unchecked, or kill the process with
    SIGBUS when truncated)."""
    npy, meta_path = target_paths(variant, directory)
    fix = t("target_fix", variant=variant.name)
    if not npy.exists() or not meta_path.exists():
        raise TargetTableMissing(t("target_missing", variant=variant.name, directory=directory))
    meta = read_json(meta_path, MAX_SIDECAR_BYTES, t("word_target_sidecar"), TargetTableError, fix)
    lengths = meta.get("lengths") if isinstance(meta, dict) else None
    if (
        not isinstance(meta, dict)
        or not isinstance(meta.get("n_max"), int)
        or not isinstance(meta.get("sha256"), str)
        or not isinstance(lengths, list)
        or not all(isinstance(x, int) for x in lengths)
        or meta.get("lengths_sha256") != _lengths_digest(lengths)
    ):
        raise TargetTableError(t("target_sidecar_damaged", path=meta_path, fix=fix))
    if (
        meta.get("format") != TARGET_FORMAT
        or meta.get("layout") != LAYOUT
        or meta.get("fingerprint") != variant.fingerprint()
    ):
        raise TargetTableError(t("target_other_rules", path=npy, fix=fix))
    masks, jokers_scored = layout_order(variant)
    if len(lengths) != len(masks):
        raise TargetTableError(t("target_states", path=meta_path, fix=fix))
    length = np.zeros(engine.upper.row.shape, dtype=np.int64)
    length[masks, jokers_scored] = lengths
    dropped = choose_dropped(layer_sizes(variant, target_layout(engine, meta["n_max"], length)))
    if meta.get("dropped_layers") != list(dropped):
        raise TargetTableError(t("target_sidecar_damaged", path=meta_path, fix=fix))
    layout = target_layout(engine, meta["n_max"], length, dropped)
    identity = file_identity(npy)
    try:  # hashed through files.open_regular (or stamped so, unchanged since): regular, the layout's size
        verified = _verified(npy, meta["sha256"], layout.size * np.dtype(STORED_DTYPE).itemsize + HEADER_LIMIT)
    except TargetTableError as exc:
        raise TargetTableError(f"{exc}; {fix_for(npy, fix)}") from None
    if not verified:
        raise TargetTableError(t("target_checksum", path=npy, fix=fix))
    try:
        flat = np.load(npy, allow_pickle=False, mmap_mode="r")
    except (OSError, ValueError) as exc:
        raise TargetTableError(t("target_damaged", path=npy, error=exc, fix=fix)) from None
    if flat.ndim != 1 or flat.dtype != STORED_DTYPE or flat.shape[0] != layout.size:
        expected = f"({layout.size},) {np.dtype(STORED_DTYPE).name}"
        raise TargetTableError(
            t("target_shape", path=npy, got=f"{flat.shape} {flat.dtype}", expected=expected, fix=fix)
        )
    if file_identity(npy) != identity:  # rewritten between its checksum and its mapping
        raise TargetTableError(t("target_changing", path=npy))
    return flat, layout, meta, identity
