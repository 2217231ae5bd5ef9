"""The Dask path's overhead over the in-process build (issue 28): a target table built A/B interleaved, each
side in a fresh process of its own, as a user runs it:

* A (in-process, `kniffel solve kniffel --target`): the engine, the item lengths, dp.target.solve_target on
  --workers threads, the table saved (store.target_tables.save_target);
* B (Dask, `kniffel solve kniffel --target --workers 2`): the same table through a job folder on a
  LocalCluster of --workers one-thread workers: cluster start, plan, chunks (each writing its values into
  the layer's file in place), each layer's barrier (fsync, rename), the table saved streamed from the layer
  files (jobs.build.save_target_table), the cluster's close.

CPU = the process's own CPU plus that of its children (the Dask workers, reaped at the cluster's close),
from the process's start (Python's start and the imports included); wall from the process's start. Both
sides end with the table saved in a tables folder of their own; the saved file's SHA-256 (its sidecar's)
shows that both wrote the same bytes. B also prints where its time went (driver CPU and wall per phase, the
workers' CPU). At the end: the medians of B over A, run by run.

    .venv/bin/python benchmarks/bench_jobs.py --variant kniffel --runs 3
    PYTHONPATH=<an older checkout> .venv/bin/python benchmarks/bench_jobs.py ...   # its code, this script
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def cpu() -> float:
    """This process's CPU and its reaped children's, user + sys, in seconds."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def in_process(args, tables: Path) -> tuple[dict, dict]:
    from solver import dp
    from solver.chances.targets import target_engine
    from solver.dp.target import solve_target
    from solver.dp.target_layout import item_lengths, target_layout
    from solver.rules.presets import PRESETS
    from solver.store.target_tables import save_target

    variant = PRESETS[args.variant]
    dp.set_threads(args.workers)
    engine = target_engine(variant)
    layout = target_layout(engine, args.n, item_lengths(engine, args.n))
    flat = solve_target(engine, layout)
    return save_target(variant, flat, layout, tables, seconds=0.0), {}


def by_dask(args, tables: Path) -> tuple[dict, dict]:
    from solver.jobs import folder  # the driver's imports (Dask's on the cluster's start)
    from solver.jobs.build import open_job, run_job

    try:
        from solver.jobs.build import save_target_table
    except ImportError:  # a checkout from before it (PYTHONPATH=... for a before/after): the CLI's way then

        def save_target_table(job, variant, tables, seconds):
            from solver.jobs.build import target_table
            from solver.store.target_tables import save_target

            return save_target(variant, *target_table(job, variant), tables, seconds=seconds)

    from solver.jobs.executors import DaskExecutor
    from solver.rules.presets import PRESETS

    variant = PRESETS[args.variant]
    phases: dict = {}
    mark = [args.started, 0.0]  # from the process's start

    def phase(name: str) -> None:
        now = [time.time(), time.process_time()]
        phases[name] = {"wall": now[0] - mark[0], "cpu": now[1] - mark[1]}
        mark[:] = now

    barrier = {"wall": 0.0, "cpu": 0.0}
    finish_layer = folder.JobFolder.finish_layer

    def timed_finish(self, *a, **k):
        t0, c0 = time.perf_counter(), time.process_time()
        finish_layer(self, *a, **k)
        barrier["wall"] += time.perf_counter() - t0
        barrier["cpu"] += time.process_time() - c0

    folder.JobFolder.finish_layer = timed_finish
    phase("imports")
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        executor = DaskExecutor.local(args.workers)
        phase("cluster start")
        started = sum(executor.client.run(time.process_time).values())
        job = open_job(variant, "target", Path(tmp) / "job", n_max=args.n, chunk_seconds=args.chunk_seconds or None)
        phase("plan and lengths")
        run_job(job, variant, executor)
        phase("layers (chunks and barriers)")
        phases["  of which the driver's barriers (fsync, rename)"] = barrier
        meta = save_target_table(job, variant, tables, seconds=0.0)
        phase("table saved from the layers")
        workers = executor.client.run(time.process_time)
        executor.close()
        phase("cluster close")
    chunks = sum(len(layer["chunks"]) for layer in job.plan)
    extra = {
        "phases": phases,
        "workers_cpu_at_start": started,
        "workers_cpu": sorted(workers.values()),
        "chunks": chunks,
    }
    return meta, extra


def one(args) -> None:
    """One side in this process; prints a JSON line: wall since the process started, CPU, the saved table's
    SHA-256 (its sidecar's, hashed as it was written)."""
    with tempfile.TemporaryDirectory(dir=args.tmp) as tables:
        meta, extra = (in_process if args.one == "A" else by_dask)(args, Path(tables))
        seconds, used = time.time() - args.started, cpu()
    print(json.dumps({"wall": seconds, "cpu": used, "sha256": meta["sha256"], "values": meta["size"], **extra}))


def side(args, which: str) -> dict:
    command = [sys.executable, __file__, "--one", which, "--started", repr(time.time())]
    command += ["--variant", args.variant, "--n", str(args.n), "--workers", str(args.workers)]
    command += ["--chunk-seconds", str(args.chunk_seconds)] + (["--tmp", args.tmp] if args.tmp else [])
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="kniffel")
    parser.add_argument("--n", type=int, default=0, help="the largest need (default: the preset's, kniffel 400)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk-seconds", type=float, default=0.0, help="0: the plan's (plan.chunk_budget)")
    parser.add_argument("--tmp", default=None, help="where the job folder and tables go (default: the temp folder)")
    parser.add_argument("--one", choices=("A", "B"), help=argparse.SUPPRESS)
    parser.add_argument("--started", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.n:
        from solver.chances.targets import TARGET_N

        args.n = TARGET_N[args.variant]
    if args.one:
        one(args)
        return
    print(f"{args.variant} target table, N {args.n}, {args.workers} workers; load {os.getloadavg()[0]:.1f}")
    a_runs, b_runs = [], []
    for run in range(args.runs):
        a_runs.append(side(args, "A"))
        b_runs.append(side(args, "B"))
        a, b = a_runs[-1], b_runs[-1]
        assert a["sha256"] == b["sha256"], "the Dask path's saved table differs"
        print(
            f"run {run + 1}: A {a['wall']:.1f} s wall, {a['cpu']:.1f} s CPU; B {b['wall']:.1f} s wall, "
            f"{b['cpu']:.1f} s CPU ({b['chunks']} chunks); "
            f"B - A: {b['cpu'] - a['cpu']:+.1f} s CPU ({100 * (b['cpu'] / a['cpu'] - 1):+.1f} %); "
            f"load {os.getloadavg()[0]:.1f}"
        )
        for name, p in b["phases"].items():
            print(f"    B {name}: {p['wall']:.1f} s wall, {p['cpu']:.2f} s driver CPU")
        print(
            f"    B workers' CPU: {b['workers_cpu_at_start']:.1f} s at start, {sum(b['workers_cpu']):.1f} s at the end"
        )
    for what in ("wall", "cpu"):
        over = sorted(100 * (b[what] / a[what] - 1) for a, b in zip(a_runs, b_runs))
        print(
            f"B over A in {what}, run by run (A and B of a run back to back): median {statistics.median(over):+.1f} %"
            f" ({', '.join(f'{x:+.1f}' for x in over)})"
        )
    print(f"same file ({a_runs[0]['values']:,} values stored, SHA-256 {a_runs[0]['sha256'][:16]}...)")


if __name__ == "__main__":
    main()
