"""Advice latency: `kniffel advise` as a fresh process, and the work of one `play` step.

    python benchmarks/bench_advise.py [--runs 7]

The kniffel table must exist (kniffel solve kniffel); the first run of each mode warms the JIT cache and the
second-moment cache (.m2.npy). The fresh process is timed with compiled kernels and with KNIFFEL_JIT=0.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def fresh_process(runs, interpreted=False):
    """Wall and CPU seconds (user + sys of the child) of each run. interpreted: KNIFFEL_JIT=0 (the kernels
    as plain Python, Numba not imported; see solver/dp/compile.py)."""
    exe = shutil.which("kniffel") or str(Path(sys.executable).with_name("kniffel"))
    cmd = [exe, "advise", "kniffel", "--dice", "13356", "--roll", "1"]  # prints every option's std too
    env = (
        {**os.environ, "KNIFFEL_JIT": "0"}
        if interpreted
        else {k: v for k, v in os.environ.items() if k != "KNIFFEL_JIT"}
    )
    subprocess.run(cmd, check=True, capture_output=True, env=env)  # warm: table solved, JIT and .m2 cache filled
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus


def play_steps(runs):
    """One play step = advice for a new card state (a turn never seen before) + saving the record."""
    from solver.advice.advisor import Advisor
    from solver.advice.cards import Card, box_values
    from solver.game.record import Game
    from solver.rules.presets import PRESETS
    from solver.store import tables

    v = PRESETS["kniffel"]
    values, _ = tables.load(v, tables.tables_dir())
    adv = Advisor(v, values)
    rng = random.Random(1)
    game = Game(v, seed=1, roll_for_me=True)
    path = Path(tempfile.mkdtemp()) / "game.json"
    ts = []
    for i in range(runs * 10):
        card = Card(v)
        for b in rng.sample(range(13), rng.randrange(0, 12)):
            card.filled[b] = rng.choice(box_values(v, b))
        dice = tuple(rng.randint(1, 6) for _ in range(5))
        t = time.perf_counter()
        adv.advise(card, dice, 1 + i % 3)
        game.save(path)
        ts.append(time.perf_counter() - t)
    return ts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    for interpreted in (False, True):
        walls, cpus = fresh_process(args.runs, interpreted)
        print(
            f"kniffel advise kniffel --dice 13356 --roll 1, fresh process, "
            f"{'KNIFFEL_JIT=0 (kernels interpreted)' if interpreted else 'JIT (cached kernels)'}: "
            f"wall median {statistics.median(walls):.3f} s (min {min(walls):.3f}, max {max(walls):.3f}), "
            f"CPU median {statistics.median(cpus):.3f} s (min {min(cpus):.3f}, max {max(cpus):.3f}), {args.runs} runs"
        )
    ps = play_steps(args.runs)
    print(
        f"play step (advice for a new state + save): median {statistics.median(ps) * 1000:.1f} ms, "
        f"max {max(ps) * 1000:.1f} ms ({len(ps)} steps)"
    )


if __name__ == "__main__":
    main()
