"""Warm speed of two checkouts, A/B: the kernels a compile-time change touches, run alternately in fresh
processes on one thread, CPU seconds (for a shared machine).

    git archive main | tar -x -C /tmp/main-export
    .venv/bin/python benchmarks/bench_warm_ab.py --against /tmp/main-export [--rounds 3]

A is this checkout, B the folder given (run with PYTHONPATH at it). Each round runs A then B (B then A in odd
rounds), each a fresh process with NUMBA_NUM_THREADS=1 and its kernels warm (a first call, untimed); a
process prints the CPU seconds (time.process_time) of each task, the minimum of --reps calls. The table:
the median over rounds of each side, and B / A (above 1: A is faster). The first round also compiles each
side's kernels into the Numba cache (the tasks' warm-up call).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = textwrap.dedent("""
    import json, sys, time
    import numpy as np
    from solver import dp
    from solver.advice.batch import option_values_batch
    from solver.chances.distribution import distribution
    from solver.chances.simulation import simulate
    from solver.advice.cards import Card
    from solver.rules.presets import PRESETS

    reps = int(sys.argv[1])
    out = {}

    def timed(name, fn):
        fn()
        best = float("inf")
        for _ in range(reps):
            t = time.process_time()
            fn()
            best = min(best, time.process_time() - t)
        out[name] = best

    for name in ("kniffel", "yatzy"):
        v = PRESETS[name]
        timed(f"solve {name}", lambda: dp.solve_with_moments(v))
    v = PRESETS["kniffel"]
    values, m2, _ = dp.solve_with_moments(v)
    engine = dp.make_engine(v)
    timed("distribution kniffel", lambda: distribution(v, values, Card(v), engine=engine))
    timed("simulate kniffel 20000", lambda: simulate(v, values, 20000, seed=1))
    rng = np.random.default_rng(1)
    n = 200000
    mask = rng.integers(0, 2 ** 13 - 1, n)
    upper = np.zeros(n, dtype=np.int64)
    dice = rng.integers(1, 7, (n, 5))
    roll = rng.integers(1, 4, n)
    joker = np.zeros(n, dtype=np.int64)
    timed("advice batch kniffel 200000", lambda: option_values_batch(engine, values, mask, upper, joker, dice, roll))
    print(json.dumps(out))
""")


def run(tree: Path | None, reps: int) -> dict:
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    cwd = tree if tree is not None else HERE.parent
    done = subprocess.run([sys.executable, "-c", CHILD, str(reps)], env=env, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", type=Path, required=True, help="B: a plain copy of the other checkout")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    a_runs, b_runs = [], []
    for r in range(args.rounds):
        for side in ("A", "B") if r % 2 == 0 else ("B", "A"):
            row = run(None if side == "A" else args.against.resolve(), args.reps)
            (a_runs if side == "A" else b_runs).append(row)
            print(f"round {r + 1} {side}: " + ", ".join(f"{k} {v:.3f}" for k, v in row.items()), flush=True)
    print(f"\n{'task':<30} {'A CPU s':>9} {'B CPU s':>9} {'B / A':>7}")
    for k in a_runs[0]:
        a = statistics.median(row[k] for row in a_runs)
        b = statistics.median(row[k] for row in b_runs)
        print(f"{k:<30} {a:9.3f} {b:9.3f} {b / a:7.3f}")


if __name__ == "__main__":
    main()
