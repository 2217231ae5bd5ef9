"""The README's test command (the quick tests) with an empty Numba cache, as CI and a new user run it.

    .venv/bin/python benchmarks/bench_quick_suite.py            # one run, a fresh cache folder
    .venv/bin/python benchmarks/bench_quick_suite.py --warm     # and a second run on the cache the first left

Prints wall seconds, the CPU seconds of pytest and every process under it (workers, the processes tests
start), and the load average before and after: on a shared machine the CPU seconds are the figure to compare.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMAND = ["-m", "pytest", "-q", "-m", "not slow", "-n", "2", "--dist", "loadfile", "-p", "no:cacheprovider"]


def run(cache: Path) -> None:
    load_before = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, *COMMAND], env=dict(os.environ, NUMBA_CACHE_DIR=str(cache)))
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    load_after = os.getloadavg()[0]
    print(f"exit {done.returncode}: {wall:.0f} s wall, {cpu:.0f} s CPU, load {load_before:.1f} -> {load_after:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", action="store_true", help="then once more on the cache the first run left")
    args = parser.parse_args()
    os.chdir(Path(__file__).resolve().parent.parent)
    cache = Path(tempfile.mkdtemp(prefix="quick-suite-numba-"))
    run(cache)
    if args.warm:
        run(cache)


if __name__ == "__main__":
    main()
