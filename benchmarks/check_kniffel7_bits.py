"""Kniffel 7: recompute turn states from the committed table with today's kernel and compare bits.

    python benchmarks/check_kniffel7_bits.py [--layers 11] [--sample 2000 --sample-layers 5 6 7 8] [--threads 2]

Each state's value depends only on the next layers' values, which the committed table (tables/kniffel7.npy,
shipped in solver/data) holds: so a changed kernel can be checked state by state without the half-hour solve.
--layers: whole layers (filled boxes) recomputed; --sample: that many states (in whole calls of 8) drawn from
each of --sample-layers. Prints, per layer, the states compared, how many differ in any bit, and the CPU
seconds a state; exits 1 if any differs.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from solver import dp
from solver.dp.ordered import ORDERED_COLUMNS
from solver.dp.ordered_layer import _ordered_calls, on_threads, ordered_work
from solver.rules.presets import KNIFFEL7
from solver.store import solving, tables


def recompute(engine, values, calls, n_threads):
    """The calls' states solved into a copy of values (their stored values replaced by NaN first)."""
    call_mask, call_flag, call_upper, n_real = calls
    fresh = values.copy()
    for c in range(call_mask.shape[0]):
        fresh[call_mask[c, : n_real[c]], call_upper[c, : n_real[c]], call_flag[c, : n_real[c]]] = np.nan
    work = [ordered_work(engine.ordered) for _ in range(n_threads)]

    def run(a, b, w):
        dp.ordered_layer._solve_calls_ordered(
            call_mask[a:b], call_flag[a:b], call_upper[a:b], n_real[a:b], engine.rules, engine.ordered, fresh, w, 0, 1
        )

    on_threads(call_mask.shape[0], run, work)
    return fresh


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, nargs="*", default=[11])
    ap.add_argument("--sample", type=int, default=2000, help="states drawn from each of --sample-layers")
    ap.add_argument("--sample-layers", type=int, nargs="*", default=[5, 6, 7, 8])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=30)
    args = ap.parse_args()
    engine = dp.make_engine(KNIFFEL7, allow_slow=True)
    values, _ = solving.load_table(KNIFFEL7, tables.tables_dir())
    rng = np.random.default_rng(args.seed)
    jobs = [(n, None) for n in args.layers] + [(n, args.sample) for n in args.sample_layers if args.sample]
    bad = 0
    for n_filled, sample in jobs:
        masks, jokers_scored = dp.layer_items(KNIFFEL7, n_filled)
        calls = _ordered_calls(masks, jokers_scored, engine.upper.totals)
        if sample is not None:
            pick = np.sort(rng.permutation(calls[0].shape[0])[: -(-sample // ORDERED_COLUMNS)])
            calls = tuple(a[pick] for a in calls)
        t = time.process_time()
        fresh = recompute(engine, values, calls, args.threads)
        cpu = time.process_time() - t
        call_mask, call_flag, call_upper, n_real = calls
        idx = tuple(
            np.concatenate([a[c, : n_real[c]] for c in range(a.shape[0])]) for a in (call_mask, call_upper, call_flag)
        )
        mine, stored = fresh[idx], values[idx]
        differ = int(np.count_nonzero(mine.view(np.int64) != stored.view(np.int64)))
        bad += differ
        what = "whole layer" if sample is None else "sample"
        print(
            f"layer {n_filled} ({what}): {mine.size} states, {differ} differ in some bit; "
            f"{cpu / mine.size * 1000:.2f} ms CPU a state (all threads)"
        )
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
