"""The Dask path's overhead over the in-process build (issue 28): a target table built A/B interleaved,
in-process (dp.target.solve_target on --threads threads) and through a job folder on a LocalCluster of
--workers one-thread workers (cluster start-up included, and the driver's assembly of each layer and of
the table). Also checks that both give the same bits.

    .venv/bin/python benchmarks/bench_jobs.py --variant kniffel --n 100 --runs 2 --chunk-seconds 2
"""

import argparse
import os
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="kniffel")
    parser.add_argument("--n", type=int, default=100, help="the largest need of the target table")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk-seconds", type=float, default=2.0)
    args = parser.parse_args()

    from solver import dp
    from solver.dp.target import solve_target
    from solver.dp.target_layout import item_lengths, target_layout
    from solver.jobs.build import open_job, run_job, target_table
    from solver.jobs.executors import DaskExecutor
    from solver.rules.presets import PRESETS

    variant = PRESETS[args.variant]
    dp.set_threads(args.workers)
    engine = dp.make_engine(variant)
    layout = target_layout(engine, args.n, item_lengths(engine, args.n))
    reference = solve_target(engine, layout)  # the compile, and the bits to compare with
    print(f"{variant.name} target table, N {args.n}: {layout.size:,} values; load {os.getloadavg()[0]:.1f}")
    a_times, b_times, a_cpu, b_cpu = [], [], [], []
    for run in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        solve_target(engine, layout)
        a_times.append(time.perf_counter() - t0)
        a_cpu.append(time.process_time() - c0)
        with tempfile.TemporaryDirectory() as tmp:
            t0, c0 = time.perf_counter(), time.process_time()
            executor = DaskExecutor.local(args.workers)
            started = time.perf_counter() - t0
            workers0 = executor.client.run(time.process_time)  # the workers' CPU: started, kernels not loaded
            job = open_job(variant, "target", Path(tmp) / "job", n_max=args.n, chunk_seconds=args.chunk_seconds)
            run_job(job, variant, executor)
            flat, _ = target_table(job, variant)
            workers = sum(executor.client.run(time.process_time).values()) - sum(workers0.values())
            b_times.append(time.perf_counter() - t0)
            b_cpu.append(time.process_time() - c0 + workers)
            executor.close()
            chunks = sum(len(layer["chunks"]) for layer in job.plan)
        assert flat.tobytes() == reference.tobytes(), "the Dask path's table differs"
        print(
            f"run {run + 1}: in-process {a_times[-1]:.1f} s ({a_cpu[-1]:.1f} s CPU), Dask {b_times[-1]:.1f} s "
            f"({b_cpu[-1]:.1f} s CPU: driver and workers; cluster start {started:.1f} s, {chunks} chunks), "
            f"load {os.getloadavg()[0]:.1f}"
        )
    for what, a_list, b_list in (("wall", a_times, b_times), ("CPU", a_cpu, b_cpu)):
        a, b = sorted(a_list)[len(a_list) // 2], sorted(b_list)[len(b_list) // 2]
        print(f"median {what}: in-process {a:.1f} s, Dask {b:.1f} s: overhead {100 * (b / a - 1):+.1f} %")
    print("same bits")


if __name__ == "__main__":
    main()
