"""First use on an empty Numba cache: what each command of a new user's first minutes costs, and where the
kernels' compile time goes.

    .venv/bin/python benchmarks/bench_compile.py              # the scenario below, fresh caches, one table
    .venv/bin/python benchmarks/bench_compile.py --kernels 25  # and the kernels that cost most to compile
    .venv/bin/python benchmarks/bench_compile.py --one -- solve kniffel   # one command in this process
    .venv/bin/python benchmarks/bench_compile.py --prewarm wait   # with the background compile, waited for

Each command of the scenario runs in a fresh process; they share one new Numba cache folder and one new
tables folder, in order (advise reads the table that solve wrote), as a new user would run them. A row: wall
seconds, CPU seconds of the process, and the CPU seconds its thread spent compiling (the outermost compiles
only: a kernel's compile includes its callees'). Compile CPU is the figure to read on a busy machine.

--prewarm: the background compile of a new install (solver/cli/prewarm.py) is off by default here (each command
compiles its own kernels: the kernels' compile cost); `wait`: on, and the scenario waits after the first command
until it has finished (a user reading the first answer), `race`: on, the commands back to back.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

SCENARIO = (
    ("solve kniffel", ["solve", "kniffel"]),
    ("advise kniffel (after solve)", ["advise", "kniffel", "--dice", "3,3,5,1,6", "--roll", "1"]),
    ("distribution kniffel --card einser=3", ["distribution", "kniffel", "--card", "einser=3"]),
    ("simulate kniffel -n 1000", ["simulate", "kniffel", "-n", "1000"]),
    ("advise yahtzee (solves it)", ["advise", "yahtzee", "--dice", "3,3,5,1,6", "--roll", "1"]),
)


def record_compiles() -> dict:
    """Listen to Numba's compile events from now on: the returned dict fills with "compile" (CPU s of the
    outermost compiles), "kernels" (name -> [compiles, inclusive s, self s]) and "signatures" (name -> the
    argument types of each compile). Nested compiles are inside their caller's; self leaves them out."""
    import solver  # noqa: F401  (sets Numba's environment first)

    # isort: split
    from numba.core import event

    kernels: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])  # compiles, inclusive s, self s
    signatures: dict[str, list[str]] = defaultdict(list)
    stack: list[list[float]] = []  # [start, seconds of nested compiles]
    figures = {"compile": 0.0, "kernels": kernels, "signatures": signatures}

    class Listener(event.Listener):
        def on_start(self, ev):
            stack.append([time.thread_time(), 0.0])

        def on_end(self, ev):
            start, nested = stack.pop()
            spent = time.thread_time() - start
            if stack:
                stack[-1][1] += spent
            fn = ev.data["dispatcher"].py_func
            name = f"{fn.__module__}.{fn.__qualname__}"
            row = kernels[name]
            row[0] += 1
            row[1] += spent
            row[2] += spent - nested
            signatures[name].append(str(ev.data["args"]))
            if not stack:
                figures["compile"] += spent

    event.register("numba:compile", Listener())
    return figures


def run_one(argv: list[str], report: Path | None) -> None:
    """Run the CLI in this process, listening to Numba's compile events; the figures as JSON into report."""
    figures = record_compiles()
    from solver.cli import main

    try:
        main(argv)
    except SystemExit:
        pass
    if report is not None:
        report.write_text(json.dumps(figures))


def wait_for_prewarm(cache: Path, started: float) -> None:
    """Until the background compile's lock is gone: say when that was, from the first command's start."""
    from solver.cli import prewarm

    while any(prewarm.running(lock.parent) for lock in cache.glob(f"*/{prewarm.LOCK}")):
        time.sleep(0.2)
    print(f"{'(background compile finished)':<40} {time.perf_counter() - started:7.1f}", flush=True)


def run_scenario(n_kernels: int, show_repeats: bool, prewarm: str) -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-compile-"))
    env = dict(os.environ, NUMBA_CACHE_DIR=str(work / "numba"), KNIFFEL_TABLES=str(work / "tables"))
    env["KNIFFEL_PREWARM"] = "0" if prewarm == "off" else "1"
    first_start = time.perf_counter()
    print(f"{'command':<40} {'wall s':>7} {'CPU s':>7} {'compile CPU s':>14} {'compiles':>9}")
    all_kernels: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    repeats: dict[str, list[str]] = {}
    total_compile = 0.0
    for label, argv in SCENARIO:
        report = work / "report.json"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        cmd = [sys.executable, __file__, "--one", "--report", str(report), "--", "--no-progress", *argv]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{label}: exit {done.returncode}\n{done.stderr}")
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        data = json.loads(report.read_text())
        n = sum(int(row[0]) for row in data["kernels"].values())
        print(f"{label:<40} {wall:7.1f} {cpu:7.1f} {data['compile']:14.1f} {n:9d}", flush=True)
        if prewarm == "wait" and label == SCENARIO[0][0]:
            wait_for_prewarm(work / "numba", first_start)
        total_compile += data["compile"]
        for name, row in data["kernels"].items():
            for i in range(3):
                all_kernels[name][i] += row[i]
        repeats.update({k: v for k, v in data["signatures"].items() if len(v) > 1})
    print(f"{'all of them':<40} {'':>7} {'':>7} {total_compile:14.1f}")
    print(f"(tables and cache in {work})")
    if n_kernels:
        print(f"\nthe {n_kernels} kernels that cost most to compile (self: without the kernels they call)")
        rows = sorted(all_kernels.items(), key=lambda kv: -kv[1][2])[:n_kernels]
        for name, (n, inclusive, own) in rows:
            print(f"  {own:6.2f} s self {inclusive:6.2f} s with callees  {int(n):2d}x  {name}")
    if show_repeats:
        print("\nkernels compiled more than once in one process (a line a signature: the arguments that differ)")
        for name, sigs in repeats.items():
            print(f"  {name}")
            split = [_arguments(sig) for sig in sigs]
            differ = [i for i in range(len(split[0])) if len({tuple(a[i : i + 1]) for a in split}) > 1]
            for args in split:
                print("      " + "; ".join(f"#{i} {args[i] if i < len(args) else '-'}" for i in differ)[:400])


def _arguments(signature: str) -> list[str]:
    """The top-level arguments of a signature's text '(a, b(c, d), ...)'."""
    args, depth, start = [], 0, 1
    for i, ch in enumerate(signature):
        depth += ch in "([" and 1 or ch in ")]" and -1 or 0
        if (ch == "," and depth == 1) or (depth == 0 and ch == ")"):
            args.append(signature[start:i].strip())
            start = i + 1
    return [a for a in args if a]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=0, help="list the N kernels costliest to compile")
    parser.add_argument("--repeats", action="store_true", help="list kernels compiled for several signatures")
    parser.add_argument("--one", action="store_true", help="run one CLI command (after --) in this process")
    parser.add_argument("--report", type=Path, help="with --one: write the figures here as JSON")
    parser.add_argument("--prewarm", choices=["off", "wait", "race"], default="off", help="the background compile")
    parser.add_argument("argv", nargs="*")
    args = parser.parse_args()
    if args.one:
        run_one(args.argv, args.report)
    else:
        run_scenario(args.kernels, args.repeats, args.prewarm)


if __name__ == "__main__":
    main()
