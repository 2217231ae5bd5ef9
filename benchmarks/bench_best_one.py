"""The best_one kernel alone (Advisor.best_action's one kernel call), per roll, on random situations: each
state new (a fresh turn pool, every state asked once: its turn is worked out) and asked again (its turn
remembered: a look-up).

    NUMBA_NUM_THREADS=1 python benchmarks/bench_best_one.py [--variant yahtzee] [--n 3000] [--runs 5] [--against REV]

--against REV: also the kernel of git revision REV (its solver/ copied into a temporary folder as the package
`solver_base`), run interleaved with this checkout's in the same process on the same situations; their answers
are compared bit for bit. Per roll and kernel: the median over runs of the median wall µs per call
(perf_counter around each call of the compiled entry point, the arguments built before), and the mean CPU µs
per call of the new states (process_time over the run's calls, the loop's Python included).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_advice_batch import random_cards  # noqa: E402


def base_package(rev: str) -> str:
    """Revision rev's solver/ as the importable package solver_base (its own JIT cache: the kernels hash apart)."""
    folder = Path(tempfile.mkdtemp(prefix="kniffel-base-"))
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "solver"], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    (folder / "solver").rename(folder / "solver_base")
    sys.path.insert(0, str(folder))
    return "solver_base"


def _module(package: str, path: str, before_issue_26: str):
    """A module of the package by its path, or by its path before the re-cut of issue 26 (an older REV)."""
    try:
        return importlib.import_module(f"{package}.{path}")
    except ModuleNotFoundError:
        return importlib.import_module(f"{package}.{before_issue_26}")


def kernel(package: str, variant_name: str, values):
    """(compiled entry point of best_one, packed buffers, a maker of empty turn pools) of a package."""
    advice = _module(package, "dp.best_one", "dp.advice")
    entry_point = importlib.import_module(f"{package}.dp.compile").entry_point
    advisor = _module(package, "advice.advisor", "advisor").Advisor(
        _module(package, "rules.presets", "presets").PRESETS[variant_name], values
    )
    packed = advice.pack_best(advisor.engine.rules, advisor._lattice, advisor._prep.tabs)
    pool = advice.new_turn_pool(advisor._lattice)
    args = (0, 0, 0, 0, 2, 0.0, *packed, values, pool)
    advice.best_one(*args)
    return entry_point(advice.best_one, args), packed, lambda: advice.new_turn_pool(advisor._lattice)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="yahtzee")
    ap.add_argument("--n", type=int, default=3000, help="random situations a run")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--against", metavar="REV", help="also this git revision's kernel, interleaved")
    args = ap.parse_args()
    from solver.advice.advisor import Advisor
    from solver.rules.presets import PRESETS
    from solver.store.solving import load_table

    variant = PRESETS[args.variant]
    values, _ = load_table(variant, ROOT / "tables")
    advisor = Advisor(variant, values)
    situations = []
    for card, dice, _ in random_cards(variant, values, args.n, 11):
        mask, upper, joker, points = card.summary()
        situations.append((mask, upper, joker, advisor._roll_row(dice), float(points)))
    kernels = {"this": kernel("solver", args.variant, values)}
    if args.against:
        kernels[args.against] = kernel(base_package(args.against), args.variant, values)
    pc, cpu = time.perf_counter, time.process_time
    wall: dict[tuple, list[float]] = {}
    answers: dict[tuple, list] = {}
    for run in range(args.runs):
        names = list(kernels) if run % 2 == 0 else list(reversed(kernels))
        for roll in (1, 2, 3):
            for name in names:
                fn, packed, new_pool = kernels[name]
                pool = new_pool()
                calls = [(m, u, j, r, roll, p, *packed, values, pool) for m, u, j, r, p in situations]
                times, out = [], []
                c0 = cpu()
                for a in calls:
                    t = pc()
                    out.append(fn(*a))
                    times.append(pc() - t)
                wall.setdefault((roll, "cpu new", name), []).append((cpu() - c0) / len(calls) * 1e6)
                wall.setdefault((roll, "new", name), []).append(statistics.median(times) * 1e6)
                times = []
                for a in calls[:500]:
                    fn(*a)
                    t = pc()
                    fn(*a)
                    times.append(pc() - t)
                wall.setdefault((roll, "again", name), []).append(statistics.median(times) * 1e6)
                answers[roll, name] = out
    if args.against:
        for roll in (1, 2, 3):
            mine, theirs = answers[roll, "this"], answers[roll, args.against]
            same = all(
                a[0] == b[0] and a[2] == b[2] and np.float64(a[1]).tobytes() == np.float64(b[1]).tobytes()
                for a, b in zip(mine, theirs)
            )
            print(f"roll {roll}: {len(mine)} answers bit for bit equal: {same}")
    print(f"{args.variant}, best_one µs per call (median of {args.runs} runs; each run's figures after it)")
    for key in sorted(wall):
        figures = wall[key]
        print(
            f"roll {key[0]} {key[1]:>7} {key[2]:>10}: {statistics.median(figures):6.2f}   "
            + " ".join(f"{x:.2f}" for x in figures)
        )


if __name__ == "__main__":
    main()
