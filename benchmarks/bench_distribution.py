"""Speed and memory of the exact distribution (forward pass) and of the odds between players.

python benchmarks/bench_distribution.py [--runs 5] [--variant kniffel]

Prints medians (min, max) of wall seconds, JIT warm: the distribution from the empty card and from a
mid-game card, odds for two players, the same run's solve time as a yardstick of the machine's load,
and the peak memory (max RSS) of the process.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from solver import dp
from solver.advice.cards import Card, parse_card
from solver.chances.distribution import distribution, odds
from solver.rules.presets import PRESETS

MID_GAME = "einser=3,zweier=6,dreier=9,vierer=12,fuenfer=15,sechser=18,chance=22,kniffel=50"  # 8 of 13 filled


def timed(fn, runs: int) -> str:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return f"median {statistics.median(times):.3f} s (min {min(times):.3f}, max {max(times):.3f}, {runs} runs)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--variant", default="kniffel")
    args = ap.parse_args()
    v = PRESETS[args.variant]
    engine = dp.make_engine(v)
    values, _ = dp.solve(v, engine=engine)
    empty = Card(v)
    mid = parse_card(v, MID_GAME) if v.name.startswith("kniffel") else Card(v)
    distribution(v, values, mid, engine=engine)  # warm the JIT
    runs = args.runs
    print(f"{v.name}: solve (yardstick of the load)   {timed(lambda: dp.solve(v, engine=engine), runs)}")
    print(f"{v.name}: distribution, empty card    {timed(lambda: distribution(v, values, empty, engine=engine), runs)}")
    print(f"{v.name}: distribution, mid-game card {timed(lambda: distribution(v, values, mid, engine=engine), runs)}")
    two = [parse_card(v, "chance=22"), parse_card(v, "kniffel=50")] if v.name.startswith("kniffel") else [empty, empty]
    print(f"{v.name}: odds, two players            {timed(lambda: odds(v, values, two), runs)}")
    d = distribution(v, values, empty, engine=engine)
    print(f"{v.name}: mean {d.mean:.9f} (table {values[0, 0, 0]:.9f}), std {d.std:.6f}, median {d.median}")
    print(f"peak memory (max RSS): {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
