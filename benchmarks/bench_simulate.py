"""Simulation speed, and the score distribution of optimal play.

python benchmarks/bench_simulate.py [--runs 5] [--games 200000]
python benchmarks/bench_simulate.py --published   # yahtzee-free-joker, 1,000,000 games: std and median
"""

from __future__ import annotations

import argparse
import statistics
import time

from solver import dp
from solver.rules import PRESETS
from solver.simulation import simulate, summary


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
        s = summary(simulate(v, values, 1_000_000, seed=2026))
        print(
            f"yahtzee-free-joker, 1,000,000 games (seed 2026), {time.perf_counter() - t:.1f} s: mean {s['mean']:.3f} "
            f"± {s['stderr']:.3f} (table {values[0, 0, 0]:.4f}), std {s['std']:.3f}, median {s['median']:g}"
        )
        return
    v = PRESETS[args.variant]
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


if __name__ == "__main__":
    main()
