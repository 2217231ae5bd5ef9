"""The README's first line after pip, on an empty Numba cache and an empty tables folder (issue 27): wall and
CPU seconds (user + system of the commands) of each step, medians of --runs fresh starts.

    python benchmarks/bench_first_run.py --runs 2
    python benchmarks/bench_first_run.py --runs 2 --against /tmp/main   # A/B: B is `git archive` of another commit

With --against, the same steps run alternately with PYTHONPATH=DIR (B), so both see the same machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

KNIFFEL = str(Path(sys.executable).with_name("kniffel"))
ADVISE = ["advise", "kniffel", "--dice", "3,3,5,1,6", "--roll", "1"]
STEPS = [  # (name, fresh folders first?, arguments)
    ("solve kniffel yahtzee yatzy", True, ["solve", "kniffel", "yahtzee", "yatzy"]),
    ("then advise kniffel ... --roll 1", False, ADVISE),
    ("solve kniffel alone", True, ["solve", "kniffel"]),
    ("then advise kniffel ... --roll 1", False, ADVISE),
]


def timed(args: list[str], env: dict) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([KNIFFEL, *args], env=env, check=True, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--against", type=Path, help="B: a source tree (PYTHONPATH) to time alternately")
    args = ap.parse_args()
    sides = {"A": None} if args.against is None else {"A": None, "B": str(args.against)}
    figures: dict[tuple[str, int], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as work:
        for _ in range(args.runs):
            for side, path in sides.items():
                env = dict(os.environ)
                if path:
                    env["PYTHONPATH"] = path
                for i, (_, fresh, step) in enumerate(STEPS):
                    if fresh:
                        for folder in ("numba", "tables"):
                            shutil.rmtree(f"{work}/{folder}", ignore_errors=True)
                        env.update(NUMBA_CACHE_DIR=f"{work}/numba", KNIFFEL_TABLES=f"{work}/tables")
                    figures.setdefault((side, i), []).append(timed(step, env))
    for (side, i), runs in sorted(figures.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        wall, cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        print(f"{side}  {STEPS[i][0]:<34} wall {wall:7.1f} s  CPU {cpu:6.1f} s  ({len(runs)} runs)")


if __name__ == "__main__":
    main()
