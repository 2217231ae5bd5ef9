"""Target tables (issue 13): build time and memory, file size, advice latency, and the float32 check.

    .venv/bin/python benchmarks/bench_target.py                    # build kniffel's table (JIT warm) + float32 check
    .venv/bin/python benchmarks/bench_target.py --latency          # fresh-process chances / advise --target
    .venv/bin/python benchmarks/bench_target.py --variant yahtzee
    .venv/bin/python benchmarks/bench_target.py --ranges           # values with 0 < P < 1 (per-state ranges)
    .venv/bin/python benchmarks/bench_target.py --build-only       # the build alone (no float32 check)
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_target.py --profile   # CPU per column of each pass

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
from solver.advice.advisor import Advisor  # noqa: E402
from solver.advice.cards import Card, box_values  # noqa: E402
from solver.chances.targets import TargetTable, build_target_table, target_options  # noqa: E402
from solver.rules.presets import PRESETS  # noqa: E402
from solver.store.target_tables import save_target, target_paths  # noqa: E402


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


def ranges(name: str) -> None:
    """How many values a layout of per-state need ranges would store: only needs n with 0 < P < 1,
    i.e. sure minimum < n <= min(N, most still possible), against the per-item layout."""
    from solver.chances.targets import default_n, target_engine
    from solver.dp.target_layout import item_lengths, max_remaining, sure_minimum, target_layout

    variant = PRESETS[name]
    engine = target_engine(variant)
    n_max = default_n(variant, engine)
    best, sure = max_remaining(engine), sure_minimum(engine)
    layout = target_layout(engine, n_max, item_lengths(engine, n_max, best))
    up = engine.upper
    per_state = 0
    for mask in range(best.shape[0]):
        for joker_scored in range(best.shape[2]):
            upper_totals = up.totals(mask, joker_scored)
            hi, lo = best[mask, upper_totals, joker_scored], sure[mask, upper_totals, joker_scored]
            ok = ~np.isnan(hi)
            per_state += int(np.maximum(np.minimum(hi[ok], n_max) - np.minimum(lo[ok], n_max), 0).sum())
    print(
        f"{name}, N={n_max}: per-item layout {layout.size:,} values; per-state ranges (0 < P < 1) {per_state:,} "
        f"({per_state / layout.size:.1%}); start: sure minimum {sure[0, 0, 0]:.0f}, most possible {best[0, 0, 0]:.0f}"
    )


def profile(name: str, repeats: int = 2000) -> None:
    """CPU time per (upper total, need) column of each pass of the turn kernel, on one block of 128
    columns of a mid-game item (random next-state values: the work does not depend on them)."""
    from solver.chances.targets import default_n, target_engine
    from solver.dp.compile import njit
    from solver.dp.identical import _best_sub_keeps_rows, _keep_means
    from solver.dp.target import BLOCK, _item_setup, _start_of_turn, _target_final_rolls
    from solver.dp.target_layout import item_lengths, target_layout

    variant = PRESETS[name]
    engine = target_engine(variant)
    lattice, rules = engine.lattice, engine.rules
    assert lattice is not None
    layout = target_layout(engine, default_n(variant, engine), item_lengths(engine, default_n(variant, engine)))
    flat = np.random.default_rng(0).random(layout.size) * 0.5
    w, result = np.random.default_rng(1).random((lattice.add.shape[0], BLOCK)), np.empty(BLOCK)
    mask, joker_scored = (1 << (len(variant.boxes) // 2)) - 1, 0  # the first half of the boxes filled
    setup = _item_setup(mask, joker_scored, engine.upper.totals(mask, joker_scored).copy(), rules, *layout[1:5])
    runs = np.array([0], dtype=np.int64), np.array([1], dtype=np.int64), np.array([0, BLOCK], dtype=np.int64)
    first_roll = int(lattice.size_start[-2])

    @njit
    def turn(n, w, rules, lattice, result, stops):
        for _ in range(n):
            _start_of_turn(w, rules, lattice, result, stops)

    @njit
    def means(n, w, lattice):
        for _ in range(n):
            _keep_means(w, lattice.add, lattice.size_start)

    @njit
    def sub_keeps(n, w, lattice):
        for _ in range(n):
            _best_sub_keeps_rows(w, lattice.sub, lattice.size_start[1], lattice.size_start[-1])

    @njit
    def final_rolls(n, setup, run_j, run_n, run_c, flat, w, first_roll, slot_values):
        for _ in range(n):
            _target_final_rolls(setup, run_j, run_n, run_c, flat, w, first_roll, slot_values)

    passes = [
        ("start of turn (all four passes)", turn, (w, rules, lattice, result, np.empty((0, BLOCK)))),
        ("one keep-means pass", means, (w, lattice)),
        ("one keeps-inside pass", sub_keeps, (w, lattice)),
        ("final-roll values", final_rolls, (setup, *runs, flat, w, first_roll, np.empty((setup[2].shape[0], BLOCK)))),
    ]
    for label, fn, args in passes:
        fn(1, *args)
        t0 = time.process_time()
        fn(repeats, *args)
        print(f"{label}: {(time.process_time() - t0) / repeats / BLOCK * 1e9:.0f} ns CPU a column")


def latency(name: str, runs: int) -> None:
    """Fresh processes, the tables built: median wall time and median CPU time (user + sys of the
    child, which is what counts on a loaded machine)."""
    commands = {
        "chances (empty card)": [".venv/bin/kniffel", "chances", name, "--target", "300"],
        "chances": [".venv/bin/kniffel", "chances", name, "--card", "einser=3,chance=22", "--target", "300"],
        "advise --target": [".venv/bin/kniffel", "advise", name, "--dice", "33516", "--roll", "1", "--target", "300"],
        "advise (no target)": [".venv/bin/kniffel", "advise", name, "--dice", "33516", "--roll", "1"],
    }
    for label, cmd in commands.items():
        times, cpus = [], []
        subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)  # caches filled (first run of a card)
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
            times.append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        print(
            f"{label}: median {statistics.median(times):.3f} s wall (min {min(times):.3f}, max {max(times):.3f}), "
            f"median {statistics.median(cpus):.3f} s CPU (min {min(cpus):.3f}), {runs} runs"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="kniffel")
    parser.add_argument("--latency", action="store_true", help="fresh-process latency (the table must exist)")
    parser.add_argument("--ranges", action="store_true", help="count the values of per-state need ranges")
    parser.add_argument("--profile", action="store_true", help="CPU per column of each pass of the turn kernel")
    parser.add_argument("--build-only", action="store_true", help="build and report, no float32 check")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--situations", type=int, default=20000)
    args = parser.parse_args()
    if args.ranges:
        ranges(args.variant)
        return
    if args.profile:
        profile(args.variant)
        return
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
    if args.build_only:
        return
    values, _ = dp.solve(table.variant)
    check_float32(table, values, args.situations, seed=13)


if __name__ == "__main__":
    main()
