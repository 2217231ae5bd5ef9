"""The dice-poker duel (issue 31): CPU seconds to build every exact value of one rule set (the second player's
answer to each of the 252 first hands, the first player's values), and of one advice once built.

    python benchmarks/bench_poker.py --runs 5

CPU seconds (time.process_time), medians: the figures to read on a loaded machine.
"""

from __future__ import annotations

import argparse
import statistics
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    from solver.poker.advice import poker_advice
    from solver.poker.duel import Duel, DuelRules

    for rules in (DuelRules(), DuelRules(max_reroll=3, match_rolls=True)):
        builds = []
        for _ in range(runs):
            start = time.process_time()
            Duel(rules)
            builds.append(time.process_time() - start)
        print(f"build {rules}: median {statistics.median(builds):.3f} s CPU (min {min(builds):.3f})")
    poker_advice("12666", "55666")  # built once
    asks = []
    for _ in range(runs):
        start = time.process_time()
        for _ in range(100):
            poker_advice("12666", "55666")
        asks.append((time.process_time() - start) / 100)
    print(f"one advice, rules built: median {statistics.median(asks) * 1000:.2f} ms CPU")


if __name__ == "__main__":
    main()
