"""The spread of each advised option: the standard deviation of the final score it leads to.

Computed from a table of second moments beside the values (dp.moments: one backward pass, about as
long as a solve), kept on disk as <variant>.m2.npy next to the table and rebuilt when the table it was
computed from changes (a CRC of the values is stored in the file's sidecar, and one of the moments, so
that a damaged file is computed again rather than trusted).
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np

from ..advice.cards import Card
from ..errors import KniffelError
from ..i18n.texts import t
from ..store import tables
from ..store.files import atomic_write_files, open_regular, read_json

SIDECAR_LIMIT = 64 * 1024


def _crc(values: np.ndarray) -> int:
    return zlib.crc32(np.ascontiguousarray(values).tobytes())


def _paths(variant, directory: Path) -> tuple[Path, Path]:
    return directory / f"{variant.name}.m2.npy", directory / f"{variant.name}.m2.json"


def _sidecar(variant, directory: Path) -> dict | None:
    try:
        info = read_json(_paths(variant, directory)[1], SIDECAR_LIMIT, t("word_file"), KniffelError)
    except KniffelError:
        return None
    return info if isinstance(info, dict) and info.get("fingerprint") == variant.fingerprint() else None


def cached_for_table(variant, directory: Path) -> bool:
    """Are the moments on disk made from the table on disk? (sidecars only: no table read, no kernel)"""
    table = tables.read_meta(variant, directory)
    info = _sidecar(variant, directory)
    return table is not None and info is not None and info.get("table_sha256") == table.get("sha256")


def moments(variant, values: np.ndarray, directory: Path | None, engine=None, table_sha256=None) -> np.ndarray:
    """The second-moment table of `values`: from directory/<variant>.m2.npy when it was made from these
    values and is whole, else computed (and saved there when the folder is writable)."""
    crc = _crc(values)
    if directory is not None:
        npy, meta = _paths(variant, directory)
        info = _sidecar(variant, directory)
        if info is not None and info.get("values_crc32") == crc:
            try:
                with open_regular(npy, values.nbytes + tables.HEADER_LIMIT, t("word_file"), KniffelError) as fh:
                    m2 = np.load(fh, allow_pickle=False)
                if m2.shape == values.shape and m2.dtype == np.float64 and info.get("m2_crc32") == _crc(m2):
                    return m2
            except (OSError, ValueError, KniffelError):
                pass
    from ..dp import make_engine
    from ..dp.moments import moments_table

    m2 = moments_table(engine or make_engine(variant), values)
    if directory is not None:
        info = {"variant": variant.name, "fingerprint": variant.fingerprint(), "values_crc32": crc}
        info.update(m2_crc32=_crc(m2), table_sha256=table_sha256)
        try:
            atomic_write_files([(npy, lambda f: np.save(f, m2, allow_pickle=False)), (meta, json.dumps(info).encode())])
        except (OSError, KniffelError):
            pass  # a read-only tables folder, or something not a file in the way: computed again next time
    return m2


def _stds(m2, mean):
    d = m2 - mean * mean
    return np.sqrt(np.where(d > 0.0, d, 0.0))  # as max(0.0, d): never -0.0, rounding below 0 is 0


def _std(m2: float, mean: float) -> float:
    return float(_stds(m2, mean))


def keep_stds(engine, values, m2, state) -> tuple[np.ndarray, np.ndarray]:
    """Standard deviation of the final score after every keep of one turn from `state` (after roll 2,
    after roll 1; by keep-lattice row)."""
    from ..dp import keep_values
    from ..dp.moments import turn_moments

    after_second, after_first = keep_values(engine, values, *state)
    m2_second, m2_first = turn_moments(engine, values, m2, *state)
    return _stds(m2_second, after_second), _stds(m2_first, after_first)


def option_stds(variant, values, m2, card: Card, dice, roll: int, options, advisor, memo=None) -> list[float]:
    """Standard deviation of the final score each option (advisor.Option, keep or box) leads to when the
    rest of the game is played by the advisor (advisor.Advisor of these values). memo: a BoundedCache of
    keep_stds by card state (the same card is advised for each roll and many dice)."""
    out = []
    if options and options[0].kind == "keep":
        state = card.state
        if memo is not None and state in memo:
            after_second, after_first = memo[state]
        else:
            after_second, after_first = keep_stds(advisor.engine, values, m2, state)
            if memo is not None:
                memo[state] = after_second, after_first
        stds = after_first if roll == 1 else after_second
        faces = variant.faces
        return [float(stds[advisor.keep_index[tuple(o.keep.count(f) for f in faces)]]) for o in options]
    for o in options:
        after = card.with_entry(o.box, o.points, o.extra)
        out.append(0.0 if after.full else _std(m2[after.state], values[after.state]))
    return out
