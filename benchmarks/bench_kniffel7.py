"""Kniffel 7 (seven different dice): time per turn state of the ordered-dice kernel.

    python benchmarks/bench_kniffel7.py [--samples 24] [--threads 2] [--repeat 3]

Takes a fixed sample of real work items (mask, flag) of kniffel7 and times dp.ordered._ordered_turn on them,
8 upper totals per call: (1) one thread, median per state, wall and CPU; (2) all --threads threads at once,
as the solver runs them (each thread its own calls), wall and CPU (all threads) per state - the wall figure
predicts the whole solve on a quiet machine, since the threads share the memory bandwidth; on a shared
machine compare CPU seconds, and run old and new kernels in alternation. The whole solve itself:
`time kniffel --tables DIR solve kniffel7`.

Before/after a kernel change: run this script with PYTHONPATH pointing at a checkout of the old code
(`git archive OLD | tar -x -C DIR`), then without; the script uses only what both kernels have.
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from solver import dp
from solver.rules.presets import KNIFFEL7


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=24, help="calls of 8 states")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--layer", type=int, default=None, help="take the calls of this layer (filled boxes)")
    args = ap.parse_args()
    t = time.perf_counter()
    engine = dp.make_engine(KNIFFEL7, allow_slow=True)
    print(f"engine tables: {time.perf_counter() - t:.2f} s")
    values = np.zeros(dp.table_shape(KNIFFEL7))  # any finite next-state values: the cost does not depend on them
    upper_states = engine.upper
    rng = np.random.default_rng(7)
    masks, jokers_scored = [], []
    if args.layer is not None:
        masks, jokers_scored = dp.layer_items(KNIFFEL7, args.layer)
        pick = rng.permutation(len(masks))
        masks, jokers_scored = masks[pick], jokers_scored[pick]
    while len(masks) < args.samples:
        mask = int(rng.integers(0, (1 << 14) - 1))
        masks.append(mask)
        jokers_scored.append(int(mask >> KNIFFEL7.joker_index & 1 and rng.random() < 0.5))
    calls = dp.ordered_layer._ordered_calls(masks, jokers_scored, upper_states.totals)
    calls = tuple(a[: args.samples] for a in calls)
    n_states = int(calls[3].sum())
    work = [dp.ordered_layer.ordered_work(engine.ordered) for _ in range(args.threads)]
    result = np.empty(dp.ordered.ORDERED_COLUMNS)
    dp.ordered_layer._solve_calls_ordered(
        *(a[:1] for a in calls), engine.rules, engine.ordered, values, work[0], 0, 1
    )  # compile

    times, cpu_times = [], []
    for c in range(args.samples):
        t, cpu = time.perf_counter(), time.thread_time()
        dp.ordered._ordered_turn(
            calls[0][c], calls[1][c], calls[2][c], engine.rules, engine.ordered, values, work[0], result
        )
        cpu_times.append((time.thread_time() - cpu) / calls[3][c])
        times.append((time.perf_counter() - t) / calls[3][c])
    one, one_cpu = statistics.median(times), statistics.median(cpu_times)
    print(
        f"one thread: median {one * 1000:.2f} ms wall per turn state (min {min(times) * 1000:.2f}, "
        f"max {max(times) * 1000:.2f}; {args.samples} calls of 8 states); CPU median {one_cpu * 1000:.3f} ms "
        f"(min {min(cpu_times) * 1000:.3f})"
    )

    def run(t):
        dp.ordered_layer._solve_calls_ordered(*calls, engine.rules, engine.ordered, values, work[t], t, args.threads)

    walls, cpus = [], []
    for _ in range(args.repeat):
        t, cpu = time.perf_counter(), time.process_time()
        with ThreadPoolExecutor(args.threads) as pool:
            list(pool.map(run, range(args.threads)))
        walls.append((time.perf_counter() - t) / n_states)
        cpus.append((time.process_time() - cpu) / n_states)
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    states = dp.count_states(KNIFFEL7)
    print(
        f"{args.threads} threads: median {wall * 1000:.3f} ms wall per state ({args.repeat} runs of "
        f"{n_states} states) -> {states:,} states in {states * wall / 60:.1f} min; CPU (all threads) "
        f"{cpu * 1000:.3f} ms per state (min {min(cpus) * 1000:.3f}) -> {states * cpu / 3600:.2f} CPU hours"
    )


if __name__ == "__main__":
    main()
