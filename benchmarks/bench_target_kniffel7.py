"""Kniffel 7 target play from a card, on demand (chances/target_ordered.py): the worst cards found.

    python benchmarks/bench_target_kniffel7.py [--free 3] [--runs 3] [--worst 2] [--every-need]

Cards: every choice of --free free boxes among the boxes whose scores spread most (the rest filled as in
FILLED, upper total kept below both bonus thresholds when an upper box is free, so that the bonuses are
still open), each with targets over its whole range (card points + 10 %, 20 %, ... 90 % of the most it can
still score). The plan's (state, need) columns rank them (the kernel's cost is per column); the --worst
cards are computed --runs times each, and the median wall time is printed, with the estimate the CLI
makes (columns x SECONDS_PER_COLUMN / threads) and the CPU time a column
(less sensitive to a busy machine than the wall time). --every-need: every need at once (the opponent's case).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time

import numba
import numpy as np

from solver.advice.cards import parse_card
from solver.chances import ordered_chances, target_ordered
from solver.rules.presets import KNIFFEL7

# upper total 56: both bonuses open
FILLED = dict(
    entry.split("=")
    for entry in "ones=2,twos=4,threes=6,fours=8,fives=10,sixes=12,sevens=14,four_of_a_kind=30,five_of_a_kind=0,"
    "double_triple=25,straight_five=30,straight_six=40,super_kniffel=0,chance=30".split(",")
)
SPREAD = (
    "sixes",
    "sevens",
    "four_of_a_kind",
    "five_of_a_kind",
    "double_triple",
    "straight_six",
    "super_kniffel",
    "chance",
)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--free", type=int, default=3)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--worst", type=int, default=2)
    ap.add_argument("--every-need", action="store_true")
    args = ap.parse_args()
    engine = ordered_chances._engine(KNIFFEL7)
    found = []
    for free in itertools.combinations(SPREAD, args.free):
        card = parse_card(KNIFFEL7, ",".join(f"{k}={v}" for k, v in FILLED.items() if k not in free))
        most = target_ordered.plan(engine, card.state, np.arange(1, 2)).most[card.state]
        grid = [np.arange(1, most + 1)] if args.every_need else [np.array([most * k // 10]) for k in range(1, 10)]
        for needs in grid:
            pl = target_ordered.plan(engine, card.state, needs)
            target = "every" if args.every_need else str(card.points + int(needs[0]))
            found.append((pl.columns, free, target, card, needs))
    found.sort(key=lambda f: -f[0])
    print(f"{len(found)} (card, target) pairs planned; the most columns: {[f[0] for f in found[:5]]}")
    threads = numba.get_num_threads()
    target_ordered.compute(engine, target_ordered.plan(engine, found[-1][3].state, found[-1][4]))  # compiles
    for columns, free, target, card, needs in found[: args.worst]:
        pl = target_ordered.plan(engine, card.state, needs)
        times, cpu = [], []
        for _ in range(args.runs):
            t0, c0 = time.perf_counter(), time.process_time()
            target_ordered.compute(engine, pl)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        print(
            f"free {'+'.join(free)}, target {target}: {columns} columns, median {statistics.median(times):.2f} s "
            f"wall on {threads} threads (runs {', '.join(f'{t:.2f}' for t in times)}; "
            f"estimate {pl.seconds(threads):.1f} s), "
            f"CPU {1000 * statistics.median(cpu) / columns:.2f} ms a column"
        )


if __name__ == "__main__":
    main()
