"""`advise --opponent` latency (issue 13): fresh processes, JIT cache warm, tables built.

    .venv/bin/python benchmarks/bench_opponent.py [--variant kniffel] [--runs 5] [--tables tables]

Runs `kniffel advise VARIANT 33516 --roll 1 --opponent ""` in a scratch folder that links to the
variant's tables (value table, target table and their sidecars; nothing is copied or changed):
"cold" with no expected-play cache (the opponent's forward pass from the empty card runs), "cached"
with it (a lookup: what a `kniffel solve VARIANT --target` leaves behind). Prints the median wall
time and the median CPU time (user + sys of the child: the figure to read on a loaded machine), and
the forward pass from the empty card in this process (CPU, after a warm-up).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver import dp  # noqa: E402
from solver.dp.forward import forward_pmf  # noqa: E402
from solver.rules.presets import PRESETS  # noqa: E402
from solver.store.solving import load_table  # noqa: E402

DICE = {"generala": "23456"}


def child_run(cmd: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def report(label: str, samples: list[tuple[float, float]]) -> None:
    walls, cpus = [s[0] for s in samples], [s[1] for s in samples]
    print(
        f"{label}: median {statistics.median(walls):.3f} s wall (min {min(walls):.3f}), "
        f"median {statistics.median(cpus):.3f} s CPU (min {min(cpus):.3f}), {len(samples)} runs"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="kniffel")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tables", default=str(ROOT / "tables"))
    args = parser.parse_args()
    name, tables = args.variant, Path(args.tables).resolve()
    variant = PRESETS[name]
    print(f"load average {os.getloadavg()}, NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', '(all)')}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for suffix in (".npy", ".json", ".m2.npy", ".m2.json", ".target.npy", ".target.json"):
            if (tables / f"{name}{suffix}").exists():
                (folder / f"{name}{suffix}").symlink_to(tables / f"{name}{suffix}")
        cache = folder / f"{name}.expected-play.json"
        cmd = [".venv/bin/kniffel", "--tables", str(folder), "--no-progress", "advise", name, DICE.get(name, "33516")]
        cmd += ["--roll", "1", "--opponent", ""]
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)  # the target table's stamp, JIT cache
        cold = []
        for _ in range(args.runs):
            cache.unlink(missing_ok=True)
            cold.append(child_run(cmd))
        report(f"{name}: advise --opponent '' (cold: forward pass)", cold)
        report(f"{name}: advise --opponent '' (cached)", [child_run(cmd) for _ in range(args.runs)])
    values, _ = load_table(variant, tables)
    engine = dp.make_engine(variant)
    forward_pmf(engine, values, (1 << len(variant.boxes)) - 2, 0, 0, 0)  # the kernels loaded
    cpus = []
    for _ in range(args.runs):
        t0 = time.process_time()
        forward_pmf(engine, values, 0, 0, 0, 0)
        cpus.append(time.process_time() - t0)
    print(
        f"{name}: forward pass from the empty card, in process: median {statistics.median(cpus):.3f} s CPU "
        f"(min {min(cpus):.3f}, max {max(cpus):.3f}), {args.runs} runs"
    )


if __name__ == "__main__":
    main()
