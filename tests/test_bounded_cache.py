"""The memory-bounded memo of the simulations (solver/store/bounded_cache.py)."""

from __future__ import annotations

import numpy as np

from solver.store.bounded_cache import BoundedCache


def test_the_oldest_entries_go_once_the_budget_is_full():
    cache = BoundedCache(max_bytes=3 * 800)
    for i in range(10):
        cache[i] = (np.zeros(50), np.zeros(50))  # 800 bytes each
        assert cache.bytes <= cache.max_bytes
    assert list(cache) == [7, 8, 9]
    assert cache.bytes == 3 * 800


def test_replacing_an_entry_counts_its_new_size_only():
    cache = BoundedCache(max_bytes=10_000)
    cache["a"] = np.zeros(100)
    cache["a"] = np.zeros(10)
    assert cache.bytes == 80 and list(cache) == ["a"]
