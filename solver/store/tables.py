"""State-value tables on disk (<variant>.npy, a JSON sidecar), second moments beside them, checkpoints of long solves.

Everything read back is untrusted. The sidecar is size-bounded, parsed safely and schema-checked; it holds the SHA-256
of the table file's bytes, verified on every load (about 50 ms for Kniffel 7's 22 MB table), so a flipped bit, a
truncated file or an .npz under the .npy name is refused with one line naming the file and the fix.

Writing is atomic (solver/store/files.py: temp files, fsync, rename; Ctrl-C and kill held back while a table and its
sidecar are written): the moments, then the table are renamed into place, then the sidecar; a process killed between
the renames leaves the new sidecar as a temp file, which the next load checks and completes.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
import stat
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

from ..errors import KniffelError
from ..i18n.texts import os_error_text, os_reason, t
from ..rules.variant import Variant
from ..version import __version__
from .files import (
    _TEMP,
    _alive,
    atomic_write_files,
    fix_for,
    make_folder,
    no_interrupts,
    open_regular,
    read_bounded,
    read_json,
    writable_target,
)

TABLE_FORMAT = 1
ENV_DIR = "KNIFFEL_TABLES"
SIDECAR_LIMIT = 64 * 1024  # a sidecar is a few hundred bytes
HEADER_LIMIT = 64 * 1024  # room for the .npy header around the array's bytes
NPY_MAGIC = b"\x93NUMPY"


class TableError(KniffelError):
    """A table is missing, stale or damaged."""


class TableMissing(TableError):
    pass


class TableDamaged(TableError):
    """The table or its sidecar exists but cannot be used (damaged, changed, other rules)."""


def tables_dir(override: str | os.PathLike | None = None) -> Path:
    """--tables, else $KNIFFEL_TABLES, else the default folder (see locations.py)."""
    if override:
        return Path(override)
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR])
    from .locations import default_tables_dir

    return default_tables_dir()


def check_tables_dir(directory: Path, source: str) -> None:
    """Refuse a tables folder that is a file or a device (or lies under one) before any work."""
    path = Path(directory)
    for p in (path, *path.parents):
        try:
            exists, folder = p.exists(), p.is_dir()
        except OSError as exc:  # a name too long for the file system: no folder to use
            raise TableError(os_error_text(exc)) from None
        if exists and not folder:
            key = "tables_not_folder" if p == path else "tables_under_file"
            raise TableError(t(key, source=source, directory=directory, parent=p))
        if exists:
            break


def check_writable_folder(directory: Path, files: tuple[Path, ...] = ()) -> None:
    """Before seconds to minutes of solving: the folder the result goes to exists (made if need be) and takes a
    file (a real write, not os.access: root passes every permission check, but not a read-only mount), and
    each of the result's `files` is a regular file or new (files.writable_target)."""
    make_folder(directory)  # a folder that cannot be made names itself (files.FileOperationError)
    for path in files:
        writable_target(path, t("word_table"))
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".kniffel-write-check."):
            pass
    except OSError as exc:
        raise TableError(t("tables_not_writable", directory=directory, reason=os_reason(exc), env=ENV_DIR)) from None


def paths(variant: Variant, directory: Path) -> tuple[Path, Path]:
    return directory / f"{variant.name}.npy", directory / f"{variant.name}.json"


def checksum(data: bytes | bytearray) -> str:
    return hashlib.sha256(data).hexdigest()


def _npy_bytes(values: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, values, allow_pickle=False)
    return buf.getvalue()


def save(
    variant: Variant, values: np.ndarray, directory: Path, *, states: int, seconds: float, m2: np.ndarray | None = None
) -> dict:
    """The table, its sidecar and (m2, from the same solve) its second moments, in one atomic write."""
    make_folder(directory)
    npy, meta_path = paths(variant, directory)
    data = _npy_bytes(values)
    digest = checksum(data)
    meta = {
        "variant": variant.name,
        "title": variant.title,
        "fingerprint": variant.fingerprint(),
        "format": TABLE_FORMAT,
        "solver_version": __version__,
        "start_value": float(values[0, 0, 0]),
        "states": int(states),
        "seconds": round(float(seconds), 3),
        "shape": list(values.shape),
        "dtype": str(values.dtype),
        "sha256": digest,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    moments = [] if m2 is None else _moment_files(variant, directory, values, m2, digest)
    with no_interrupts():  # moments first, table next, sidecar last: a sidecar never describes an older table
        atomic_write_files([*moments, (npy, data), (meta_path, (json.dumps(meta, indent=2) + "\n").encode())])
    return meta


# -- second moments ------------------------------------------------------------
# Made by the solve with the values (dp/moments.py) and saved with them; read back only when made from these
# values (a CRC of them and the table file's SHA-256 in their sidecar) and whole (a CRC of the moments).
def moment_paths(variant: Variant, directory: Path) -> tuple[Path, Path]:
    return directory / f"{variant.name}.m2.npy", directory / f"{variant.name}.m2.json"


def _crc(a: np.ndarray) -> int:
    return zlib.crc32(np.ascontiguousarray(a).tobytes())


def _moment_files(variant: Variant, directory: Path, values: np.ndarray, m2: np.ndarray, table_sha256: str):
    npy, meta = moment_paths(variant, directory)
    info = {"variant": variant.name, "fingerprint": variant.fingerprint(), "values_crc32": _crc(values)}
    info.update(m2_crc32=_crc(m2), table_sha256=table_sha256)
    return [(npy, _npy_bytes(m2)), (meta, json.dumps(info).encode())]


def _moment_sidecar(variant: Variant, directory: Path) -> dict | None:
    try:
        info = read_json(moment_paths(variant, directory)[1], SIDECAR_LIMIT, t("word_file"), TableError)
    except TableError:
        return None
    return info if isinstance(info, dict) and info.get("fingerprint") == variant.fingerprint() else None


def _whole_npy(path: Path, shape) -> bool:
    """Is path a regular file of the size np.save writes for a float64 array of this shape? (not a folder, a
    FIFO, a file cut short; the sidecar's shape unchecked: a bad one fits no file)"""
    header = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": tuple(shape)})
        size, info = header.tell() + int(math.prod(shape)) * 8, os.stat(path)
    except (OSError, TypeError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size == size


def moments_ready(variant: Variant, directory: Path) -> bool:
    """Are second moments on disk made from the table on disk? (sidecars, and the sizes of both files: no
    table read, no kernel)"""
    table, info = read_meta(variant, directory), _moment_sidecar(variant, directory)
    if table is None or info is None or info.get("table_sha256") != table.get("sha256"):
        return False
    files, shape = (paths(variant, directory)[0], moment_paths(variant, directory)[0]), table.get("shape")
    return table.get("dtype") == "float64" and all(_whole_npy(path, shape) for path in files)


def load_moments(variant: Variant, directory: Path, values: np.ndarray) -> np.ndarray | None:
    """The second moments of `values` from directory, None where there are none made from them, or damaged."""
    info = _moment_sidecar(variant, directory)
    if info is None or info.get("values_crc32") != _crc(values):
        return None
    try:
        with open_regular(
            moment_paths(variant, directory)[0], values.nbytes + HEADER_LIMIT, t("word_file"), TableError
        ) as fh:
            m2 = np.load(fh, allow_pickle=False)
    except (OSError, ValueError, TableError):
        return None
    ok = m2.shape == values.shape and m2.dtype == np.float64 and info.get("m2_crc32") == _crc(m2)
    return m2 if ok else None


# -- sidecars ------------------------------------------------------------------
def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _meta_problem(meta, variant: Variant, *, checkpoint: bool = False) -> str | None:
    """What is wrong with a parsed sidecar, or None. Other rules or format: 'other rules'."""
    if not isinstance(meta, dict):
        return t("meta_not_object", kind=type(meta).__name__)
    if meta.get("format") != TABLE_FORMAT or meta.get("fingerprint") != variant.fingerprint():
        return "other rules"
    digest = meta.get("sha256")
    if not isinstance(digest, str) or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        return t("meta_no_checksum")
    fields = ("next_layer", "solved", "seconds") if checkpoint else ("start_value", "states", "seconds")
    for key in fields:
        value = meta.get(key)
        if not _is_number(value) or not math.isfinite(float(value)):  # type: ignore[arg-type]
            return t("meta_not_number", key=key, value=value)
    if checkpoint:
        if not isinstance(meta["next_layer"], int) or not -1 <= meta["next_layer"] < len(variant.boxes):
            return t("meta_bad_layer", value=meta["next_layer"], variant=variant.name)
        if not isinstance(meta["solved"], int) or meta["solved"] < 0:
            return t("meta_bad_solved", value=meta["solved"])
    elif not isinstance(meta["states"], int) or meta["states"] < 0:
        return t("meta_bad_states", value=meta["states"])
    return None


def read_meta(variant: Variant, directory: Path) -> dict | None:
    """The sidecar if it exists, parses and matches the rules (its table unchecked), else None."""
    try:
        meta = read_json(paths(variant, directory)[1], SIDECAR_LIMIT, t("word_sidecar"), TableError)
    except TableError:
        return None
    return meta if _meta_problem(meta, variant) is None else None


def _shape(variant: Variant) -> tuple[int, ...]:
    from ..dp import table_shape  # here, not at the top: reading a folder's name must not start Numba

    return table_shape(variant)


def _size_limit(shape: tuple[int, ...]) -> int:
    """The most bytes a .npy file of this float64 shape takes (its header included)."""
    return int(np.prod(shape)) * 8 + HEADER_LIMIT


def _read_npy(npy: Path, variant: Variant, digest: str, fix: str) -> np.ndarray:
    """The array of a table file whose bytes have this SHA-256; anything else is TableDamaged."""
    shape = _shape(variant)
    try:
        data = read_bounded(npy, _size_limit(shape), t("word_table"), TableDamaged)
    except TableDamaged as exc:
        raise TableDamaged(f"{exc}; {fix_for(npy, fix)}") from None
    if data[:2] == b"PK":
        raise TableDamaged(t("table_zip", path=npy, fix=fix))
    if not data.startswith(NPY_MAGIC):
        raise TableDamaged(t("table_not_npy" if data else "table_empty", path=npy, fix=fix))
    if checksum(data) != digest:
        raise TableDamaged(t("table_checksum", path=npy, fix=fix))
    header = io.BytesIO(bytes(data[:HEADER_LIMIT]))
    try:
        version = np.lib.format.read_magic(header)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        got_shape, fortran, dtype = read_header(header)
    except (OSError, ValueError, EOFError, SyntaxError, TypeError) as exc:
        raise TableDamaged(t("table_damaged", path=npy, error=exc, fix=fix)) from None
    if got_shape != shape or dtype != np.dtype("<f8") or fortran:
        raise TableDamaged(t("table_shape", path=npy, got=got_shape, dtype=dtype, shape=shape, fix=fix))
    offset = header.tell()
    if len(data) - offset != np.prod(shape) * 8:
        raise TableDamaged(t("table_length", path=npy, fix=fix))
    return np.frombuffer(data, dtype=np.float64, offset=offset).reshape(shape)  # writable: a bytearray, no copy


def _complete_interrupted_save(npy: Path, meta_path: Path, variant: Variant) -> bool:
    """A save killed between its two renames leaves the new sidecar as a temp file whose checksum
    matches the new table: finish that save. True if it did."""
    try:
        data = read_bounded(npy, _size_limit(_shape(variant)), t("word_table"), TableError)
    except TableError:
        return False  # not a table file of this size: nothing to complete
    try:
        candidates = [
            p for p in meta_path.parent.iterdir() if (m := _TEMP.match(p.name)) and m["name"] == meta_path.name
        ]
    except OSError:
        return False
    digest = checksum(data)
    for tmp in candidates:
        pid = int(_TEMP.match(tmp.name)["pid"])  # type: ignore[index]
        if pid != os.getpid() and _alive(pid):
            continue  # a save in progress: not ours to finish
        try:
            meta = read_json(tmp, SIDECAR_LIMIT, t("word_sidecar"), TableError)
        except TableError:
            continue
        if _meta_problem(meta, variant) is None and meta["sha256"] == digest:
            try:
                os.replace(tmp, meta_path)
            except OSError:
                return False
            return True
    return False


def load(variant: Variant, directory: Path) -> tuple[np.ndarray, dict]:
    npy, meta_path = paths(variant, directory)
    fix = t("table_fix", variant=variant.name)
    if not npy.exists() or not meta_path.exists():
        raise TableMissing(t("table_missing", variant=variant.name, directory=directory))
    meta = read_json(meta_path, SIDECAR_LIMIT, t("word_sidecar"), TableDamaged, fix)
    problem = _meta_problem(meta, variant)
    if problem == "other rules":
        raise TableDamaged(t("table_other_rules", path=npy, fix=fix))
    if problem:
        raise TableDamaged(t("table_sidecar_damaged", path=meta_path, problem=problem, fix=fix))
    try:
        values = _read_npy(npy, variant, meta["sha256"], fix)
    except TableDamaged:
        if not _complete_interrupted_save(npy, meta_path, variant):
            raise
        return load(variant, directory)
    start = values[0, 0, 0]
    if not np.isfinite(start) or abs(start - meta["start_value"]) > 1e-9:
        raise TableDamaged(t("table_start_value", path=npy, fix=fix))
    return values, meta


# -- checkpoints of long solves ---------------------------------------------
def checkpoint_paths(variant: Variant, directory: Path) -> tuple[Path, Path]:
    return directory / f".{variant.name}.checkpoint.npy", directory / f".{variant.name}.checkpoint.json"


def save_checkpoint(
    variant: Variant, directory: Path, values: np.ndarray, next_layer: int, solved: int, seconds: float
) -> None:
    """The layers solved so far. The array goes to a file named by its layer, then the sidecar that
    names it (the commit), then the older array is removed: a kill at any moment leaves a valid
    checkpoint, the previous or the new one."""
    make_folder(directory)
    npy, meta_path = checkpoint_paths(variant, directory)
    data = _npy_bytes(values)
    layer_file = npy.with_name(f".{variant.name}.checkpoint.{next_layer + 1}.npy")
    meta = {
        "fingerprint": variant.fingerprint(),
        "format": TABLE_FORMAT,
        "next_layer": int(next_layer),
        "solved": int(solved),
        "seconds": float(seconds),
        "file": layer_file.name,
        "sha256": checksum(data),
    }
    with no_interrupts():
        atomic_write_files([(layer_file, data), (meta_path, (json.dumps(meta) + "\n").encode())])
        for old in _checkpoint_arrays(variant, directory):
            if old != layer_file:
                old.unlink(missing_ok=True)


def _checkpoint_arrays(variant: Variant, directory: Path) -> list[Path]:
    try:
        return sorted(directory.glob(f".{variant.name}.checkpoint*.npy"))
    except OSError:
        return []


def load_checkpoint(variant: Variant, directory: Path):
    """(values, next_layer, solved, seconds) of a matching checkpoint, None when there is none (or it
    belongs to other rules); a damaged one is TableDamaged naming the files and the fix."""
    npy, meta_path = checkpoint_paths(variant, directory)
    if not meta_path.exists():
        return None
    fix = t("checkpoint_fix", path=meta_path)
    meta = read_json(meta_path, SIDECAR_LIMIT, t("word_checkpoint"), TableDamaged, fix)
    problem = _meta_problem(meta, variant, checkpoint=True)
    if problem == "other rules":
        return None
    if problem:
        raise TableDamaged(t("checkpoint_damaged", path=meta_path, problem=problem, fix=fix))
    name = meta.get("file")
    if not isinstance(name, str) or name != Path(name).name or not name.startswith(f".{variant.name}.checkpoint"):
        raise TableDamaged(t("checkpoint_no_file", path=meta_path, fix=fix))
    values = _read_npy(directory / name, variant, meta["sha256"], fix)
    return values, meta["next_layer"], meta["solved"], float(meta["seconds"])


def remove_checkpoint(variant: Variant, directory: Path) -> None:
    for path in (*_checkpoint_arrays(variant, directory), *checkpoint_paths(variant, directory)):
        path.unlink(missing_ok=True)
