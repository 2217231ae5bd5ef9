"""The points still to come under max-expected play, cached on disk (issue 13: `chances` and
`advise --opponent` as fresh processes).

The forward pass from a card costs seconds (about 2 s CPU from an early kniffel card), the rest of
`chances` milliseconds. Its result depends only on the card's state (mask, upper total, joker flag) and
the value table, so tables/<variant>.expected-play.json keeps the pmf of the points to come per state
(at most MAX_STATES, the newest kept), keyed by the SHA-256 of the value table's bytes and checked
by the SHA-256 of its own entries. Python's float repr reads back bit for bit. Anything that does not
match is ignored and rewritten; writing is best effort (a read-only folder only means no cache).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ..errors import KniffelError
from ..i18n.texts import t
from ..rules.variant import Variant
from .files import atomic_write_bytes, read_json

MAX_STATES = 64
MAX_BYTES = 16 << 20


def cache_path(variant: Variant, directory: Path) -> Path:
    return directory / f"{variant.name}.expected-play.json"


def values_digest(values: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()


def _entries_digest(entries: dict) -> str:
    return hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()


def _load(path: Path):
    """The parsed cache file (files.read_json: a regular file of at most MAX_BYTES), or None."""
    try:
        return read_json(path, MAX_BYTES, t("word_file"), KniffelError)
    except KniffelError:
        return None


def _read(path: Path, digest: str) -> dict:
    try:
        data = _load(path)
        entries = data["entries"]
        if data.get("values_sha256") != digest or data.get("sha256") != _entries_digest(entries):
            return {}
        return entries if isinstance(entries, dict) else {}
    except (KeyError, TypeError):
        return {}


def _key(state) -> str:
    return ",".join(str(int(x)) for x in state)


def cached_rest(variant: Variant, directory: Path, digest: str, state) -> np.ndarray | None:
    """The cached pmf of the points still to come from `state`, or None."""
    rest = _read(cache_path(variant, directory), digest).get(_key(state))
    if not isinstance(rest, list) or not all(isinstance(x, float) for x in rest):
        return None
    return np.array(rest, dtype=np.float64)


def has_state(path: Path, table_sha256, state) -> bool:
    """Whether the cache holds `state` for the value table whose file has checksum `table_sha256` (its
    sidecar's): a quick look that loads no table (target_quick.py)."""
    try:
        data = _load(path)
        return data.get("table_sha256") == table_sha256 is not None and _key(state) in data["entries"]
    except (KeyError, TypeError, AttributeError):
        return False


def store_rest(
    variant: Variant, directory: Path, digest: str, state, rest: np.ndarray, table_sha256: str | None = None
) -> None:
    """Add a state's pmf to the cache (atomically; the oldest entries go beyond MAX_STATES);
    `table_sha256`: the value table file's checksum (its sidecar's), for has_state."""
    path = cache_path(variant, directory)
    entries = _read(path, digest)
    entries.pop(_key(state), None)
    entries[_key(state)] = [float(x) for x in rest]
    while len(entries) > MAX_STATES:
        entries.pop(next(iter(entries)))
    data = {
        "variant": variant.name,
        "values_sha256": digest,
        "table_sha256": table_sha256,
        "sha256": _entries_digest(entries),
        "entries": entries,
    }
    try:
        atomic_write_bytes(path, json.dumps(data).encode())
    except (OSError, KniffelError):
        pass  # best effort: a read-only folder, or something not a file in the way, only means no cache
