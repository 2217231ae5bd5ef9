"""Time the Kniffel 7 end-game reference (tests/naive_kniffel7.py) from empty caches.

    .venv/bin/python benchmarks/bench_naive_kniffel7.py --runs 3            # 1, 2 and 3 free boxes
    .venv/bin/python benchmarks/bench_naive_kniffel7.py --runs 3 --max-free 2

For each card and function: median wall and CPU seconds of `--runs` calls, each from empty memo tables
(the import, about 1 s, is not timed). max_prob asks for the target round(expected_final).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import naive_kniffel7 as n7  # noqa: E402

CARDS = [  # (free boxes, points of the filled boxes that are not 0)
    (["chance"], {}),
    (["straight_six"], {"sevens": 35, "sixes": 24}),
    (["chance", "threes"], {"sevens": 35, "sixes": 24}),
    (["fours", "sevens"], {"super_kniffel": 60, "sixes": 30, "fives": 20}),
    (["chance", "threes", "four_of_a_kind"], {"sevens": 35, "sixes": 24}),
    (["ones", "twos", "threes"], {"sevens": 42, "sixes": 12}),
]


def timed(function, arguments, runs):
    walls, cpus = [], []
    for _ in range(runs):
        n7.clear_caches()
        wall, cpu = time.perf_counter(), time.process_time()
        function(*arguments)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-free", type=int, default=3)
    args = parser.parse_args()
    for free, points in CARDS:
        if len(free) > args.max_free:
            continue
        filled = {box: points.get(box, 0) for box in n7.BOXES if box not in free}
        target = round(n7.expected_final(filled))
        calls = [
            (n7.expected_final, (filled,)),
            (n7.final_pmf_max_ev, (filled,)),
            (n7.max_prob_final_at_least, (filled, target)),
        ]
        for function, arguments in calls:
            wall, cpu = timed(function, arguments, args.runs)
            name = function.__name__
            print(f"{len(free)} free {'+'.join(free):34s} {name:24s} wall {wall:6.2f} s  cpu {cpu:6.2f} s", flush=True)


if __name__ == "__main__":
    main()
