"""Kniffel 7 (seven different dice): time per turn state of the ordered-dice kernel.

    python benchmarks/bench_kniffel7.py [--samples 20] [--threads 2]

Times dp._ordered_turn (8 upper totals per call, one thread) on a fixed sample of real work items
(mask, flag) and reports the median per state, plus an extrapolation to the whole table on
--threads cores. The whole solve itself: `time kniffel solve kniffel7 --force`.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from solver import dp
from solver.variants import KNIFFEL7


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    t = time.perf_counter()
    engine = dp.make_engine(KNIFFEL7, allow_slow=True)
    print(f"engine tables: {time.perf_counter() - t:.2f} s")
    values = np.zeros(dp.table_shape(KNIFFEL7))  # any finite next-state values: the cost does not depend on them
    up = engine.upper
    rng = np.random.default_rng(7)
    items = []
    while len(items) < args.samples:
        mask = int(rng.integers(0, (1 << 14) - 1))
        flag = int(mask >> KNIFFEL7.joker_index & 1 and rng.random() < 0.5)
        row = up.row[mask, flag]
        items.append((mask, flag, up.ups_list[up.ups_ptr[row]:up.ups_ptr[row + 1]][:dp.ORDERED_COLUMNS]))
    dp.ordered_turn(engine, *items[0], values)  # compile or load
    work = dp.ordered_work(engine.ordered)
    result = np.empty(dp.ORDERED_COLUMNS)
    times = []
    for mask, flag, ups in items:
        call = [np.full(dp.ORDERED_COLUMNS, mask), np.full(dp.ORDERED_COLUMNS, flag), np.resize(ups, dp.ORDERED_COLUMNS)]
        t = time.perf_counter()
        dp._ordered_turn(*call, engine.rules, engine.ordered, values, work, result)
        times.append((time.perf_counter() - t) / dp.ORDERED_COLUMNS)
    per_state = statistics.median(times)
    states = dp.count_states(KNIFFEL7)
    print(f"median {per_state * 1000:.2f} ms per turn state (min {min(times) * 1000:.2f}, max "
          f"{max(times) * 1000:.2f}; {args.samples} calls of 8 upper totals, one thread)")
    print(f"{states:,} states -> {states * per_state / 60 / args.threads:.1f} min on {args.threads} cores "
          f"(if the threads scale)")


if __name__ == "__main__":
    main()
