"""Solve times, first-run compile time and peak memory; optionally yatzy-solver (PyPI) beside ours.

    python benchmarks/bench_solve.py                     # our solver, 5 runs each
    python benchmarks/bench_solve.py --compare           # + yatzy-solver in its own venv
    python benchmarks/bench_solve.py --warm-only         # without the first run's compile (a minute)
    NUMBA_NUM_THREADS=1 python benchmarks/bench_solve.py --warm-only --cpu   # CPU seconds: for a loaded machine

Times are wall seconds of the full table solve with the JIT cache warm (median, min, max of --runs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OTHER_VENV = HERE / ".venv-yatzy-solver"


def our_times(names, runs, clock=time.perf_counter):
    from solver import dp
    from solver.rules.presets import PRESETS

    rows = {}
    for name in names:
        v = PRESETS[name]
        dp.solve(v)  # warm: compile or load the cache
        ts = []
        for _ in range(runs):
            t = clock()
            values, states = dp.solve(v)
            ts.append(clock() - t)
        rows[name] = {
            "median": statistics.median(ts),
            "min": min(ts),
            "max": max(ts),
            "start_value": float(values[0, 0, 0]),
            "states": states,
        }
    return rows


CHILD = textwrap.dedent("""
    import resource, sys, time
    t0 = time.perf_counter()
    from solver import dp
    from solver.rules.presets import PRESETS
    t1 = time.perf_counter()
    dp.solve(PRESETS[sys.argv[1]])
    t2 = time.perf_counter()
    print(t1 - t0, t2 - t1, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
""")


def fresh_process(name, cache_dir=None):
    env = dict(os.environ)
    if cache_dir:
        env["NUMBA_CACHE_DIR"] = cache_dir
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", CHILD, name], capture_output=True, text=True, env=env, check=True)
    wall = time.perf_counter() - t
    imp, solve, peak_mb = map(float, out.stdout.split())
    return {"wall": wall, "import": imp, "solve": solve, "peak_mb": peak_mb}


OTHER_CHILD = textwrap.dedent("""
    import statistics, sys, time
    import yatzy_solver as ys
    runs = int(sys.argv[1])
    for name in sys.argv[2:]:
        ts = []
        for _ in range(runs):
            t = time.perf_counter()
            ys.Solver.build(ys.Variant(name))
            ts.append(time.perf_counter() - t)
        print(name, statistics.median(ts), min(ts), max(ts))
""")


def other_times(runs):
    if not (OTHER_VENV / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(OTHER_VENV)], check=True)
        subprocess.run([str(OTHER_VENV / "bin" / "pip"), "install", "-q", "yatzy-solver"], check=True)
    out = subprocess.run(
        [str(OTHER_VENV / "bin" / "python"), "-c", OTHER_CHILD, str(runs), "american", "yatzy-scandinavian"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = {}
    for line in out.stdout.splitlines():
        name, med, lo, hi = line.split()
        rows[name] = {"median": float(med), "min": float(lo), "max": float(hi)}
    return rows


def first_run_figures() -> dict:
    with tempfile.TemporaryDirectory() as cache:
        cold = fresh_process("kniffel", cache_dir=cache)
        warm = fresh_process("kniffel", cache_dir=cache)
    print(
        f"first run, empty JIT cache (kniffel): {cold['wall']:.1f} s wall "
        f"(import {cold['import']:.1f} s, compile + solve {cold['solve']:.1f} s)"
    )
    print(
        f"second process, cache warm (kniffel): {warm['wall']:.2f} s wall "
        f"(import {warm['import']:.2f} s, load + solve {warm['solve']:.2f} s), peak memory {warm['peak_mb']:.0f} MB"
    )
    return {"first_run": cold, "warm_process": warm}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--variants", nargs="*", default=["yahtzee", "kniffel", "kniffel-meister", "yatzy", "yatzy6"])
    ap.add_argument("--compare", action="store_true", help="also time yatzy-solver from PyPI (own venv)")
    ap.add_argument("--json", type=Path, help="write the figures to this file")
    ap.add_argument("--warm-only", action="store_true", help="leave out the first run with an empty JIT cache")
    ap.add_argument("--cpu", action="store_true", help="CPU seconds of this process instead of wall seconds")
    args = ap.parse_args()

    clock = "CPU seconds" if args.cpu else "wall seconds"
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.runs} runs each, JIT cache warm, {clock}")
    ours = our_times(args.variants, args.runs, time.process_time if args.cpu else time.perf_counter)
    print(f"{'variant':<20} {'median s':>9} {'min':>7} {'max':>7} {'states':>9}  start value")
    for name, r in ours.items():
        print(
            f"{name:<20} {r['median']:>9.3f} {r['min']:>7.3f} {r['max']:>7.3f} {r['states']:>9,}  "
            f"{r['start_value']:.7f}"
        )

    result = {"ours": ours}
    if not args.warm_only:
        result.update(first_run_figures())

    if args.compare:
        other = other_times(args.runs)
        result["yatzy_solver"] = other
        pairs = [("american", "yahtzee-free-joker"), ("yatzy-scandinavian", "yatzy")]
        for theirs, mine in pairs:
            if mine not in ours:
                ours.update(our_times([mine], args.runs))
            ratio = other[theirs]["median"] / ours[mine]["median"]
            print(
                f"yatzy-solver {theirs:<20} {other[theirs]['median']:>7.3f} s median  vs ours ({mine}) "
                f"{ours[mine]['median']:.3f} s: ours is {ratio:.1f}x faster"
            )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
