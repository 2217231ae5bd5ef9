"""The final-score distribution from the empty card of a variant whose forward pass takes hours (Kniffel 7),
shipped in the package beside its value table: solver/data/<variant>.pmf.npy and its stamp
<variant>.pmf.json (the SHA-256 of the value table's bytes it was computed from, the SHA-256 of the pmf file,
when, how long). Written by scripts/ship_distribution.py; read only when the stamp names the values in use and
the pmf file still has its checksum.
"""

from __future__ import annotations

import hashlib
import io
import json
import time
from pathlib import Path

import numpy as np

from ..errors import KniffelError
from ..i18n.texts import t
from ..rules.variant import Variant
from .files import atomic_write_files, no_interrupts, read_bounded, read_json
from .locations import SHIPPED

MAX_BYTES = 1 << 20


def paths(variant: Variant, directory: Path = SHIPPED) -> tuple[Path, Path]:
    return directory / f"{variant.name}.pmf.npy", directory / f"{variant.name}.pmf.json"


def shipped_pmf(variant: Variant, values_sha256: str, directory: Path = SHIPPED) -> np.ndarray | None:
    """The shipped pmf from the empty card when its stamp names these values (values_sha256: the SHA-256
    of the table's bytes, expected_play_cache.values_digest), else None."""
    npy, stamp_path = paths(variant, directory)
    if not stamp_path.is_file() or not npy.is_file():
        return None
    try:
        stamp = read_json(stamp_path, MAX_BYTES, t("word_file"), KniffelError)
        if not isinstance(stamp, dict) or stamp.get("values_sha256") != values_sha256:
            return None
        raw = bytes(read_bounded(npy, MAX_BYTES, t("word_file"), KniffelError))
        if hashlib.sha256(raw).hexdigest() != stamp.get("pmf_sha256"):
            return None
        pmf = np.load(io.BytesIO(raw), allow_pickle=False)
    except (KniffelError, ValueError, OSError):
        return None
    ok = pmf.ndim == 1 and pmf.dtype == np.float64 and abs(float(pmf.sum()) - 1.0) < 1e-9 and (pmf >= 0).all()
    return pmf if ok else None


def write_shipped_pmf(
    variant: Variant, pmf: np.ndarray, values_sha256: str, table_sha256: str, seconds: float, directory: Path = SHIPPED
) -> dict:
    """Write the pmf and its stamp together (atomically; Ctrl-C waits until both are written)."""
    npy, stamp_path = paths(variant, directory)
    buf = io.BytesIO()
    np.save(buf, np.asarray(pmf, dtype=np.float64), allow_pickle=False)
    stamp = {
        "variant": variant.name,
        "values_sha256": values_sha256,
        "table_sha256": table_sha256,
        "pmf_sha256": hashlib.sha256(buf.getvalue()).hexdigest(),
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(float(seconds), 1),
        "mean": float(np.arange(pmf.shape[0]) @ pmf),
    }
    with no_interrupts():
        atomic_write_files([(npy, buf.getvalue()), (stamp_path, (json.dumps(stamp, indent=2) + "\n").encode())])
    return stamp
