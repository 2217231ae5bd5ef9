"""A memo that forgets its oldest entries beyond a memory budget.

The simulations memoise per-state arrays (a turn's keep vectors over every need are megabytes each);
a count limit alone let `simulate yatzy --versus -n 2000` grow past 18 GB.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _size(value: Any) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, tuple):
        return sum(_size(v) for v in value)
    return 64


class BoundedCache:
    """A memo whose values (numpy arrays, or tuples of them) hold at most max_bytes: storing beyond it drops the
    oldest entries first (the newest is always kept). Only `in`, `cache[key]`, `cache[key] = value` and len()."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: dict = {}

    def __contains__(self, key) -> bool:
        return key in self._entries

    def __getitem__(self, key):
        return self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self):
        return iter(self._entries)

    def __setitem__(self, key, value) -> None:
        if key in self._entries:
            self.bytes -= _size(self._entries.pop(key))
        size = _size(value)
        while self._entries and self.bytes + size > self.max_bytes:
            self.bytes -= _size(self._entries.pop(next(iter(self._entries))))
        self._entries[key] = value
        self.bytes += size
