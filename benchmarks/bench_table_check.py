"""What verifying a table's checksum costs (issue 10): SHA-256 and BLAKE2b of tables/kniffel7.npy
(22 MB), np.load alone, and tables.load (bounded read + SHA-256 + parse + checks). Medians of 9 runs."""

from __future__ import annotations

import hashlib
import statistics
import time
from pathlib import Path

import numpy as np

from solver.rules.presets import KNIFFEL7
from solver.store import tables

REPO = Path(__file__).resolve().parent.parent
NPY = REPO / "tables" / "kniffel7.npy"


def median_ms(fn, runs: int = 9) -> tuple[float, float, float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), min(times), max(times)


def main() -> None:
    data = NPY.read_bytes()
    print(f"{NPY.name}: {len(data):,} bytes")
    rows = {
        "sha256 of the bytes": lambda: hashlib.sha256(data).hexdigest(),
        "blake2b of the bytes": lambda: hashlib.blake2b(data).hexdigest(),
        "np.load (no check)": lambda: np.load(NPY, allow_pickle=False),
        "tables.load (read, sha256, parse, checks)": lambda: tables.load(KNIFFEL7, REPO / "tables"),
    }
    for name, fn in rows.items():
        med, lo, hi = median_ms(fn)
        print(f"{name:<44} median {med:7.1f} ms  (min {lo:.1f}, max {hi:.1f})")


if __name__ == "__main__":
    main()
