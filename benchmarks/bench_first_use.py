"""A command's first use on a fresh install (issue 27): wall and CPU seconds of `kniffel ARGS...` with an empty
Numba cache and an empty tables folder (cold), then with the cache that run left and an empty tables folder
again (warm: the tables built, nothing compiled).

    .venv/bin/python benchmarks/bench_first_use.py chances kniffel --target 300
    .venv/bin/python benchmarks/bench_first_use.py --runs 3 solve kniffel

CPU seconds are the children's user + system time (every thread): the figure to read on a loaded machine.
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

KNIFFEL = Path(sys.executable).with_name("kniffel")


def one_run(args: list[str], cache: Path, tables: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one `kniffel --no-progress ARGS` with this cache and tables folder."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "KNIFFEL_TABLES": str(tables)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([str(KNIFFEL), "--no-progress", *args], env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1, help="cold and warm runs each (medians)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the kniffel command")
    opts = parser.parse_args()
    cold, warm = [], []
    for _ in range(opts.runs):
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch)
            cold.append(one_run(opts.args, root / "cache", root / "tables-cold"))
            warm.append(one_run(opts.args, root / "cache", root / "tables-warm"))
    for name, runs in (("cold", cold), ("warm", warm)):
        wall, cpu = statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)
        print(f"{name}: {wall:.1f} s wall, {cpu:.1f} s CPU (median of {len(runs)}), load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
