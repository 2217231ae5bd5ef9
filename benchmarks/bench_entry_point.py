"""Advisor.best_action on a new situation every call, with best_one's compiled entry point and with Numba's
dispatcher, runs interleaved (the machine's load drifts).

    python benchmarks/bench_entry_point.py [--variant yahtzee] [--runs 6] [--calls 3000]

Each run: a fresh Advisor that has seen every order of the dice (so only the card states are new), then
--calls random situations (new Card objects, rolls 1-3), each asked once; prints the median µs per call of
each run and the median of the runs, per mode.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    from bench_advice_batch import random_cards

    from solver import dp
    from solver.advice.advisor import Advisor
    from solver.dp.best_one import best_one
    from solver.rules.presets import PRESETS

    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="yahtzee")
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--calls", type=int, default=3000)
    args = parser.parse_args()
    variant = PRESETS[args.variant]
    values, _ = dp.solve(variant)
    medians: dict[str, list[float]] = {"entry point": [], "dispatcher": []}
    for run in range(args.runs):
        for mode in list(medians) if run % 2 == 0 else list(medians)[::-1]:
            advisor = Advisor(variant, values)
            card = random_cards(variant, values, 1, 1)[0][0]
            for dice in product(*variant.dice):
                advisor.best_action(card, dice, 3)
            if mode == "dispatcher":
                advisor._best_one = best_one.__call__  # not best_one itself: best_action would swap it again
            times = []
            for card, dice, roll in random_cards(variant, values, args.calls, 1000 + run):
                start = time.perf_counter()
                advisor.best_action(card, dice, roll)
                times.append(time.perf_counter() - start)
            medians[mode].append(statistics.median(times) * 1e6)
    for mode, runs in medians.items():
        print(f"{mode:12s} median {statistics.median(runs):6.2f} µs; runs {' '.join(f'{x:.2f}' for x in runs)}")


if __name__ == "__main__":
    main()
