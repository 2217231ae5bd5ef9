"""Simulation speed, and the score distribution of optimal play.

python benchmarks/bench_simulate.py [--runs 5] [--games 200000]
python benchmarks/bench_simulate.py --published   # yahtzee-free-joker, 1,000,000 games: std and median
python benchmarks/bench_simulate.py --variant kniffel7 [--runs 3] [--games 400]

kniffel7 plays with the committed table (solver/data) and reports wall and CPU time per game, and, as
a yardstick of how busy the machine is, the solve kernel's CPU time per state (_ordered_turn, 8 states
a call) measured in the same process (about 2.3 ms CPU per state on the quiet machine: 1.17 ms wall
per state on two threads for the whole solve, benchmarks/README.md).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from solver import dp
from solver.chances.simulation import simulate, summary, tally
from solver.rules.presets import PRESETS
from solver.store import solving, tables


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--variant", default="kniffel")
    ap.add_argument("--published", action="store_true")
    args = ap.parse_args()
    if args.published:
        v = PRESETS["yahtzee-free-joker"]
        values, _ = dp.solve(v)
        t = time.perf_counter()
        s = summary(tally(v, values, 1_000_000, seed=2026))
        print(
            f"yahtzee-free-joker, 1,000,000 games (seed 2026), {time.perf_counter() - t:.1f} s: mean {s['mean']:.3f} "
            f"± {s['stderr']:.3f} (table {values[0, 0, 0]:.4f}), std {s['std']:.3f}, median {s['median']:g}"
        )
        return
    v = PRESETS[args.variant]
    if not v.identical_dice:
        bench_ordered(v, args.runs, args.games)
        return
    values, _ = dp.solve(v)
    simulate(v, values, 2000, seed=0)  # warm the JIT
    rates = []
    for run in range(args.runs):
        t = time.perf_counter()
        simulate(v, values, args.games, seed=run)
        rates.append(args.games / (time.perf_counter() - t))
    print(
        f"{v.name}: {args.games:,} games per run, median {statistics.median(rates):,.0f} games/s "
        f"(min {min(rates):,.0f}, max {max(rates):,.0f}, {args.runs} runs)"
    )


def solve_kernel_ms_per_state(v, values) -> float:
    """CPU ms per state of the solve kernel on 4 calls of 8 states (a yardstick of the machine's load)."""
    from solver.dp.ordered import _ordered_turn
    from solver.dp.ordered_layer import ordered_work

    engine = dp.make_engine(v, allow_slow=True)
    work, result = ordered_work(engine.ordered), np.empty(8)
    calls = [(mask, np.arange(8)) for mask in (5, 77, 300, 1000)]
    _ordered_turn(np.full(8, 5), np.zeros(8, np.int64), calls[0][1], engine.rules, engine.ordered, values, work, result)
    t = time.process_time()
    for mask, upper_totals in calls:
        _ordered_turn(
            np.full(8, mask), np.zeros(8, np.int64), upper_totals, engine.rules, engine.ordered, values, work, result
        )
    return (time.process_time() - t) / (8 * len(calls)) * 1e3


def bench_ordered(v, runs: int, games: int) -> None:
    values, meta = solving.load_table(v, tables.tables_dir())
    if games == 200_000:  # the identical-dice default; Kniffel 7 plays about a hundred games a second
        games = 400
    simulate(v, values, 8, seed=0)  # warm the JIT
    rates, cpu, yardstick = [], [], []
    for run in range(runs):
        yardstick.append(solve_kernel_ms_per_state(v, values))
        t, c = time.perf_counter(), time.process_time()
        s = summary(tally(v, values, games, seed=run))
        rates.append(games / (time.perf_counter() - t))
        cpu.append((time.process_time() - c) / games * 1e3)
        print(
            f"  run {run}: {rates[-1]:.1f} games/s wall, {cpu[-1]:.1f} ms CPU per game, solve kernel "
            f"{yardstick[-1]:.2f} ms CPU per state; mean {s['mean']:.2f} ± {s['stderr']:.2f} "
            f"(table {meta['start_value']:.4f})"
        )
    print(
        f"{v.name}: {games:,} games per run, median {statistics.median(rates):.1f} games/s wall "
        f"(min {min(rates):.1f}, max {max(rates):.1f}), median {statistics.median(cpu):.1f} ms CPU per game; "
        f"solve kernel median {statistics.median(yardstick):.2f} ms CPU per state ({runs} runs)"
    )


if __name__ == "__main__":
    main()
