"""Kniffel 7 (seven different dice): time per turn state of the plain ordered-dice kernel.

    python benchmarks/bench_kniffel7.py [--samples 5]

The full table is not solved yet: this measures what one turn state costs with the transforms of
dp._ordered_turn over all 7^7 partial assignments, on a fixed sample of states, and extrapolates.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from solver import dp
from solver.variants import KNIFFEL7


NJS = (8, 16, 32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=5)
    args = ap.parse_args()
    t = time.perf_counter()
    engine = dp.make_engine(KNIFFEL7, allow_slow=True)
    print(f"engine tables: {time.perf_counter() - t:.1f} s")
    values = np.zeros(dp.table_shape(KNIFFEL7))  # any finite next-state values: the cost does not depend on them
    rng = np.random.default_rng(7)
    masks = [int(m) for m in rng.integers(0, 1 << 14, size=args.samples)]
    for nj in NJS:
        ups = np.arange(nj, dtype=np.int64) * 2 % 85
        result = np.empty(nj)
        x = np.empty((7 ** 7, nj))
        dp._ordered_turn(masks[0] & ~1, 0, ups, engine.rules, engine.ordered, values, x, result)  # compile
        ts = []
        for m in masks:
            m &= (1 << 14) - 2  # keep at least one box free
            t = time.perf_counter()
            dp._ordered_turn(m, 0, ups, engine.rules, engine.ordered, values, x, result)
            ts.append((time.perf_counter() - t) / nj)
        per_state = statistics.median(ts)
        states = dp.count_states(KNIFFEL7)
        print(f"{nj} upper totals per call: median {per_state * 1000:.1f} ms per turn state; "
              f"{states:,} states -> {states * per_state / 3600 / 2:.1f} h on 2 cores")


if __name__ == "__main__":
    main()
