"""Advice latency: `kniffel advise` as a fresh process, and the work of one `play` step.

    python benchmarks/bench_advise.py [--runs 7]

The kniffel table must exist (kniffel solve kniffel) and the JIT cache be warm (any earlier run).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def fresh_process(runs):
    exe = shutil.which("kniffel") or str(Path(sys.executable).with_name("kniffel"))
    cmd = [exe, "advise", "kniffel", "--card", "einser=3,chance=22", "--dice", "33516", "--roll", "1"]
    subprocess.run(cmd, check=True, capture_output=True)  # warm: table solved, JIT cache filled
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        ts.append(time.perf_counter() - t)
    return ts


def play_steps(runs):
    """One play step = advice for a new card state (a turn never seen before) + saving the record."""
    from solver import tables
    from solver.advisor import Advisor
    from solver.cards import Card, box_values
    from solver.game import Game
    from solver.presets import PRESETS

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
    fp = fresh_process(args.runs)
    print(
        f"kniffel advise, fresh process, table present, JIT warm: median {statistics.median(fp):.3f} s "
        f"(min {min(fp):.3f}, max {max(fp):.3f}, {args.runs} runs)"
    )
    ps = play_steps(args.runs)
    print(
        f"play step (advice for a new state + save): median {statistics.median(ps) * 1000:.1f} ms, "
        f"max {max(ps) * 1000:.1f} ms ({len(ps)} steps)"
    )


if __name__ == "__main__":
    main()
