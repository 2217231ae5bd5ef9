"""State-value tables on disk: <variant>.npy plus a JSON sidecar.

Writing is atomic (temporary files, then rename), so an interrupted solve never
leaves a half table. Loading checks the sidecar against the variant's rules
fingerprint and the array's shape and dtype, and refuses anything else with a
message that names the fix.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np

from . import __version__
from .dp import table_shape
from .errors import KniffelError
from .rules import Variant

TABLE_FORMAT = 1
ENV_DIR = "KNIFFEL_TABLES"


class TableError(KniffelError):
    """A table is missing, stale or damaged."""


class TableMissing(TableError):
    pass


def tables_dir(override: str | os.PathLike | None = None) -> Path:
    """--tables, else $KNIFFEL_TABLES, else the default folder (see locations.py)."""
    if override:
        return Path(override)
    if os.environ.get(ENV_DIR):
        return Path(os.environ[ENV_DIR])
    from .locations import default_tables_dir

    return default_tables_dir()


def paths(variant: Variant, directory: Path) -> tuple[Path, Path]:
    return directory / f"{variant.name}.npy", directory / f"{variant.name}.json"


def save(variant: Variant, values: np.ndarray, directory: Path, *, states: int, seconds: float) -> dict:
    directory.mkdir(parents=True, exist_ok=True)
    npy, meta_path = paths(variant, directory)
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
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    tmp_npy = npy.with_name(f".{npy.name}.{os.getpid()}.tmp")
    tmp_meta = meta_path.with_name(f".{meta_path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp_npy, "wb") as fh:
            np.save(fh, values)
        tmp_meta.write_text(json.dumps(meta, indent=2) + "\n")
        os.replace(tmp_npy, npy)  # the table first: a sidecar never describes an older table
        os.replace(tmp_meta, meta_path)
    finally:
        for tmp in (tmp_npy, tmp_meta):
            tmp.unlink(missing_ok=True)
    return meta


def read_meta(variant: Variant, directory: Path) -> dict | None:
    """The sidecar if it exists and parses, else None."""
    try:
        return json.loads(paths(variant, directory)[1].read_text())
    except (OSError, ValueError):
        return None


def load(variant: Variant, directory: Path) -> tuple[np.ndarray, dict]:
    npy, meta_path = paths(variant, directory)
    fix = f"rebuild it with `kniffel solve {variant.name}`"
    if not npy.exists() or not meta_path.exists():
        raise TableMissing(f"no table for {variant.name} in {directory}; build it with `kniffel solve {variant.name}`")
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError) as exc:
        raise TableError(f"table sidecar {meta_path} is unreadable ({exc}); {fix}") from None
    if not isinstance(meta, dict):
        raise TableError(f"table sidecar {meta_path} is damaged; {fix}")
    if meta.get("format") != TABLE_FORMAT or meta.get("fingerprint") != variant.fingerprint():
        raise TableError(f"table {npy} was built for other rules or an older format; {fix}")
    try:
        values = np.load(npy, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise TableError(f"table {npy} is damaged ({exc}); {fix}") from None
    if values.shape != table_shape(variant) or values.dtype != np.float64:
        raise TableError(
            f"table {npy} has shape {values.shape} {values.dtype}, expected {table_shape(variant)} float64; {fix}"
        )
    start = values[0, 0, 0]
    if not np.isfinite(start) or abs(start - meta.get("start_value", np.nan)) > 1e-9:
        raise TableError(f"table {npy} does not match its sidecar; {fix}")
    return values, meta


# -- checkpoints of long solves ---------------------------------------------
def checkpoint_paths(variant: Variant, directory: Path) -> tuple[Path, Path]:
    return directory / f".{variant.name}.checkpoint.npy", directory / f".{variant.name}.checkpoint.json"


def save_checkpoint(
    variant: Variant, directory: Path, values: np.ndarray, next_layer: int, solved: int, seconds: float
) -> None:
    """The layers solved so far, written atomically (a crash leaves the previous checkpoint)."""
    directory.mkdir(parents=True, exist_ok=True)
    npy, meta_path = checkpoint_paths(variant, directory)
    tmp = npy.with_name(npy.name + ".tmp")
    with open(tmp, "wb") as fh:
        np.save(fh, values)
    os.replace(tmp, npy)
    meta = {
        "fingerprint": variant.fingerprint(),
        "format": TABLE_FORMAT,
        "next_layer": next_layer,
        "solved": solved,
        "seconds": seconds,
    }
    tmp = meta_path.with_name(meta_path.name + ".tmp")
    tmp.write_text(json.dumps(meta) + "\n")
    os.replace(tmp, meta_path)


def load_checkpoint(variant: Variant, directory: Path):
    """(values, next_layer, solved, seconds) of a matching checkpoint, or None."""
    npy, meta_path = checkpoint_paths(variant, directory)
    try:
        meta = json.loads(meta_path.read_text())
        if meta.get("fingerprint") != variant.fingerprint() or meta.get("format") != TABLE_FORMAT:
            return None
        values = np.load(npy, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if values.shape != table_shape(variant):
        return None
    return values, int(meta["next_layer"]), int(meta["solved"]), float(meta["seconds"])


def remove_checkpoint(variant: Variant, directory: Path) -> None:
    for path in checkpoint_paths(variant, directory):
        path.unlink(missing_ok=True)
