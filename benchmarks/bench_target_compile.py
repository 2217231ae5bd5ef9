"""Compile seconds (one core's CPU) of the target build's kernels, per kernel, with an empty Numba cache: the
value table's kernels compiled first (a first `chances` solves before it builds), then a target table of a
small variant (3 boxes, 3 dice) so that the run is the compile.

    NUMBA_CACHE_DIR=$(mktemp -d) .venv/bin/python benchmarks/bench_target_compile.py [VARIANT]

A kernel's seconds include those of the kernels it compiles on its way (its callees).
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from solver import dp  # noqa: E402
from solver.chances.targets import build_target_table  # noqa: E402
from solver.rules.presets import PRESETS  # noqa: E402

seconds: dict[str, float] = defaultdict(float)
starts: list[float] = []


def main() -> None:
    from numba.core import event  # after solver: its Numba environment first

    class Compiles(event.Listener):
        def on_start(self, ev):
            starts.append(time.process_time())

        def on_end(self, ev):
            fn = ev.data["dispatcher"].py_func
            seconds[f"{fn.__module__}.{fn.__qualname__}"] += time.process_time() - starts.pop()

    name = sys.argv[1] if len(sys.argv) > 1 else "kniffel"
    small = PRESETS[name].reduced(boxes=[b.key for b in PRESETS[name].boxes[:3]], n_dice=3)
    dp.solve(small)
    event.register("numba:compile", Compiles())
    c0 = time.process_time()
    build_target_table(small)
    print(f"target build of {small.name}: {time.process_time() - c0:.1f} s CPU")
    for kernel, s in sorted(seconds.items(), key=lambda x: -x[1]):
        if kernel.startswith("solver."):
            print(f"  {s:6.2f} s  {kernel}")


if __name__ == "__main__":
    main()
