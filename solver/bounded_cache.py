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


class BoundedCache(dict):
    """A dict whose values (numpy arrays, or tuples of them) hold at most max_bytes: storing beyond it drops
    the oldest entries first."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__()
        self.max_bytes = max_bytes
        self.bytes = 0

    def __setitem__(self, key, value) -> None:
        if key in self:
            self.bytes -= _size(self[key])
            super().__delitem__(key)
        size = _size(value)
        while self and self.bytes + size > self.max_bytes:
            oldest = next(iter(self))
            self.bytes -= _size(self[oldest])
            super().__delitem__(oldest)
        super().__setitem__(key, value)
        self.bytes += size
