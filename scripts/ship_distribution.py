"""Compute the final-score distribution of Kniffel 7 from the empty card once and write it as package data
beside its value table (solver/data/kniffel7.pmf.npy and its stamp kniffel7.pmf.json, with the pmf's SHA-256),
so that `kniffel distribution kniffel7` and `odds kniffel7` from empty cards answer at once.

The forward pass visits about a million turn states: CPU-hours (benchmarks/README.md, docs/cluster.md). It runs
as a forward job (solver/jobs/forward_job.py) in JOB_DIR: chunks of about a minute, each layer's mass saved as
the job's checkpoint; run again, it resumes (finished layers and chunks are kept). Kill it any time (plain kill,
Ctrl-C). The pmf is written only when the job is finished and its mean equals the table's start value to 1e-9.

    nice -n 19 .venv/bin/python scripts/ship_distribution.py --job-dir /work/k7-empty-job [--threads N]
    .venv/bin/python scripts/ship_distribution.py --job-dir DIR --workers N           # a Dask LocalCluster
    .venv/bin/python scripts/ship_distribution.py --job-dir DIR --scheduler tcp://HOST:8786
    .venv/bin/kniffel solve --status DIR                                              # how far it is
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from solver.jobs.executors import DaskExecutor, ThreadExecutor
from solver.jobs.folder import JobError
from solver.jobs.forward_job import forward_status, open_forward_job, record, run_forward_job
from solver.rules.presets import KNIFFEL7
from solver.store import tables
from solver.store.expected_play_cache import values_digest
from solver.store.locations import SHIPPED
from solver.store.shipped_pmf import write_shipped_pmf


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--job-dir", type=Path, required=True, help="the job folder (resumable)")
    parser.add_argument("--threads", type=int, default=1, help="in-process threads (default 1)")
    parser.add_argument("--workers", type=int, default=0, help="a Dask LocalCluster of N one-thread workers")
    parser.add_argument("--scheduler", default="", help="a Dask scheduler's address, tcp://HOST:8786")
    parser.add_argument("--out", type=Path, default=SHIPPED, help="where the pmf goes (default: solver/data)")
    args = parser.parse_args()
    values, meta = tables.load(KNIFFEL7, SHIPPED)
    digest = values_digest(values)
    try:
        job = open_forward_job(KNIFFEL7, args.job_dir, values, (0, 0, 0), card_text="-")
        print("\n".join(forward_status(job)), flush=True)
        executor: DaskExecutor | ThreadExecutor
        if args.scheduler:
            executor = DaskExecutor.connect(args.scheduler)
        else:
            executor = DaskExecutor.local(args.workers) if args.workers else ThreadExecutor(args.threads)
        t0, done = time.perf_counter(), [0]

        def progress(k: int) -> None:
            done[0] += k
            print(f"  {done[0]} states ({time.perf_counter() - t0:.0f} s)", flush=True)

        try:
            pmf = run_forward_job(job, KNIFFEL7, SHIPPED, values, executor, progress)
        finally:
            executor.close()
    except JobError as exc:
        print(f"ship_distribution: {exc}", file=sys.stderr)
        return 2
    mean, start = float(np.arange(pmf.shape[0]) @ pmf), float(values[0, 0, 0])
    if abs(mean - start) > 1e-9:
        print(f"ship_distribution: mean {mean!r} is not the table's {start!r}: nothing written", file=sys.stderr)
        return 1
    seconds = float(record(job).get("seconds_done", 0.0))
    stamp = write_shipped_pmf(KNIFFEL7, pmf, digest, meta["sha256"], seconds, args.out)
    print(f"written to {args.out}: mean {stamp['mean']:.9f} (table {start:.9f}), sha256 {stamp['pmf_sha256']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
