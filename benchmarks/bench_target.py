"""Target tables (issue 13): build time and memory, file size, advice latency, and the float32 check.

    .venv/bin/python benchmarks/bench_target.py                    # build kniffel's table (JIT warm) + float32 check
    .venv/bin/python benchmarks/bench_target.py --latency          # fresh-process chances / advise --target
    .venv/bin/python benchmarks/bench_target.py --variant yahtzee

The build runs in this process after a warm-up on a small variant (so the JIT is warm); peak memory is
the process's max RSS. The float32 check (is float32 storage safe?): for many random situations (cards, dice, roll,
target) the best option under the float64 table against the best under its float32 rounding, and
the largest difference of any probability.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver import dp  # noqa: E402
from solver.advisor import Advisor  # noqa: E402
from solver.cards import Card, box_values  # noqa: E402
from solver.presets import PRESETS  # noqa: E402
from solver.target_tables import save_target, target_paths  # noqa: E402
from solver.targets import TargetTable, build_target_table, target_options  # noqa: E402


def build(name: str) -> tuple[TargetTable, float]:
    small = PRESETS[name].reduced(boxes=[b.key for b in PRESETS[name].boxes[:3]], n_dice=3)
    build_target_table(small)  # warm the JIT
    t0, c0 = time.perf_counter(), time.process_time()
    table = build_target_table(PRESETS[name])
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"build: {seconds:.1f} s wall, {cpu:.1f} s CPU (all threads)", flush=True)
    return table, seconds


def random_situation(variant, rng):
    keys = [b.key for b in variant.boxes]
    n_filled = rng.randrange(0, len(keys))
    filled = {}
    for k in rng.sample(keys, n_filled):
        filled[variant.box_index(k)] = rng.choice(box_values(variant, variant.box_index(k)))
    card = Card(variant, filled)
    dice = tuple(rng.randint(1, 6) for _ in range(variant.n_dice))
    return card, dice, rng.choice((1, 2, 3))


def check_float32(table: TargetTable, values: np.ndarray, situations: int, seed: int) -> None:
    variant = table.variant
    single = table._replace(flat=np.ascontiguousarray(table.flat, dtype=np.float32))
    advisor = Advisor(variant, values)
    rng = random.Random(seed)
    changed = near = checked = 0
    worst = 0.0
    while checked < situations:
        card, dice, roll = random_situation(variant, rng)
        if not np.isfinite(values[card.state]):
            continue
        target = card.points + rng.randint(1, table.n_max)
        _, wide = target_options(variant, table, advisor, card, dice, roll, target)
        _, narrow = target_options(variant, single, advisor, card, dice, roll, target)
        by_text = {o.option.text: o.probability for o in narrow}
        worst = max(worst, max(abs(o.probability - by_text[o.option.text]) for o in wide))
        changed += wide[0].option.text != narrow[0].option.text
        near += any(a.option.text != b.option.text for a, b in zip(wide, narrow))  # any rank moved
        checked += 1
    print(
        f"float32 check, {checked} random situations: best option changed {changed} times, some lower rank "
        f"changed {near} times, largest probability difference {worst:.2e}"
    )


def latency(name: str, runs: int) -> None:
    commands = {
        "chances": [".venv/bin/kniffel", "chances", name, "--card", "einser=3,chance=22", "--target", "300"],
        "advise --target": [".venv/bin/kniffel", "advise", name, "--dice", "33516", "--roll", "1", "--target", "300"],
    }
    for label, cmd in commands.items():
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
            times.append(time.perf_counter() - t0)
        print(
            f"{label}: median {statistics.median(times):.3f} s "
            f"(min {min(times):.3f}, max {max(times):.3f}, {runs} runs)"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="kniffel")
    parser.add_argument("--latency", action="store_true", help="fresh-process latency (the table must exist)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--situations", type=int, default=20000)
    args = parser.parse_args()
    if args.latency:
        latency(args.variant, args.runs)
        return
    table, seconds = build(args.variant)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{args.variant}: target table up to N={table.n_max}, {table.layout.size:,} values, built in {seconds:.1f} s; "
        f"peak RSS {rss:.0f} MB"
    )
    with tempfile.TemporaryDirectory() as tmp:
        save_target(table.variant, table.flat, table.layout, Path(tmp), seconds=seconds)
        size = target_paths(table.variant, Path(tmp))[0].stat().st_size
    print(f"file {size / 1e6:.0f} MB ({table.flat.dtype})")
    values, _ = dp.solve(table.variant)
    check_float32(table, values, args.situations, seed=13)


if __name__ == "__main__":
    main()
