"""Kniffel 7's forward pass through the forward job (solver/jobs/forward_job.py) against the in-process pass
(forward_ordered_layers.ordered_pmf), both on one thread, from the cards of bench_distribution_k7.py with 8 and 10
boxes filled, runs alternated (A, B, A, B, ...): CPU seconds (user + sys of this process, all its threads) per
turn state visited, and whether the pmfs are the same bits.

    .venv/bin/python benchmarks/bench_forward_job.py [--pairs 3] [--filled 10 8] [--chunk-seconds S]

--layers DIR: instead, the layers of a forward job folder (its record): states, points-so-far values, the
checkpoint's bytes (states 40 B + 8 B a value), as far as the job got; and per layer the table's states with
a bound of a checkpoint's bytes (every table state with a vector over every total its filled boxes can hold).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_distribution_k7 import CARDS

from solver import dp
from solver.advice.cards import parse_card
from solver.dp.forward_ordered_layers import ordered_pmf
from solver.jobs import forward_job as fj
from solver.jobs.executors import ThreadExecutor
from solver.rules.presets import KNIFFEL7
from solver.rules.scoring import possible_points
from solver.store import solving, tables


def layers(path: Path) -> None:
    """Per layer: the table's turn states (the bound: every state of the layer), those the job reached, their
    points-so-far values and the checkpoint's size."""
    data = json.loads((path / fj.RECORD).read_text())
    engine = fj.job_engine(KNIFFEL7)
    upper = engine.upper
    reached = {int(k): v for k, v in data.get("layers", {}).items()}
    top = np.array([max(possible_points(KNIFFEL7, b)) for b in range(len(KNIFFEL7.boxes))])
    extra = sum(b.points for b in KNIFFEL7.bonuses) + KNIFFEL7.extra_points * (len(KNIFFEL7.boxes) - 1)
    head = f"{'filled':>6} {'table states':>12} {'bound MB':>9} {'reached':>9} {'values':>12} {'values/state':>12}"
    print(head + f" {'checkpoint MB':>13}")
    for k in range(len(KNIFFEL7.boxes)):
        masks, flags = dp.layer_items(KNIFFEL7, k)
        totals = np.diff(upper.totals_ptr)[upper.row[masks, flags]]
        bound = int(totals.sum())
        # every table state, each with a vector of every points total its filled boxes can hold (an upper bound)
        span = ((masks[:, None] >> np.arange(len(top))) & 1) @ top + extra + 1
        bound_mb = f"{(bound * 40 + int(totals @ span) * 8) / 1e6:9.0f}"
        if k not in reached:
            print(f"{k:>6} {bound:>12} {bound_mb}")
            continue
        states, values = reached[k]["states"], reached[k]["values"]
        mb = (states * 40 + values * 8) / 1e6
        print(f"{k:>6} {bound:>12} {bound_mb} {states:>9} {values:>12} {values / states:>12.1f} {mb:>13.2f}")
    built = data.get("states_built", data.get("states_done"))  # a record of before states_built: states done
    if built:
        print(f"pace: {data['seconds_done'] / built:.4f} s wall a state built ({built} states)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--filled", type=int, nargs="+", default=[10, 8])
    parser.add_argument("--chunk-seconds", type=float, default=None, help="default: the job's (about a minute)")
    parser.add_argument("--layers", type=Path, default=None)
    args = parser.parse_args()
    if args.layers is not None:
        return layers(args.layers)
    values, _ = solving.load_table(KNIFFEL7, tables.tables_dir())
    engine = dp.make_engine(KNIFFEL7, allow_slow=True)
    for filled in args.filled:
        state = parse_card(KNIFFEL7, CARDS[filled]).state
        seen: list[int] = []
        ref = ordered_pmf(engine, values, *state, 0, 1, seen.append)  # also the JIT's warm-up
        n_states = sum(seen)
        cpu: dict[str, list[float]] = {"in-process": [], "job": [], "job's opening": []}
        same = True
        for _ in range(args.pairs):
            c = time.process_time()
            ordered_pmf(engine, values, *state, 0, 1)
            cpu["in-process"].append(time.process_time() - c)
            with tempfile.TemporaryDirectory() as folder:
                c = time.process_time()
                job = fj.open_forward_job(KNIFFEL7, Path(folder), values, state, args.chunk_seconds)
                cpu["job's opening"].append(time.process_time() - c)
                pmf = fj.run_forward_job(job, KNIFFEL7, tables.tables_dir(), values, ThreadExecutor(1))
                cpu["job"].append(time.process_time() - c)
            same = same and pmf.shape == ref.shape and bool((pmf.view(np.int64) == ref.view(np.int64)).all())
        for name, runs in cpu.items():
            per = [x / n_states * 1e3 for x in runs]
            shown = ", ".join(f"{x:.1f}" for x in per)
            median = statistics.median(per)
            print(f"{filled} filled, {n_states} states, {name:>13}: {median:.1f} ms CPU a state ({shown})")
        print(f"{filled} filled: same bits: {same}")


if __name__ == "__main__":
    main()
