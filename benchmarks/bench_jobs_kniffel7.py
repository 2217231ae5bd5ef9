"""Kniffel 7's target table through the job path (issue 28 step 4): its layers from --from-filled boxes filled
up, needs 1..--n, on a Dask LocalCluster of --workers one-thread workers. Prints per layer: columns, wall
seconds and the CPU seconds of its chunks (as the job records them in layers.json), CPU ms a column, layer file
size; the workers' whole process CPU; then the workers' and the driver's peak RSS and the extrapolation to the
whole table (every layer, needs up to the highest score) at the measured CPU a column.

    .venv/bin/python benchmarks/bench_jobs_kniffel7.py --from-filled 11 --n 4
    .venv/bin/python benchmarks/bench_jobs_kniffel7.py --from-filled 10 --n 4 --job-dir DIR   # kept, to check
"""

import argparse
import resource
import tempfile
from pathlib import Path


def _worker_usage():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss  # seconds, KiB


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--from-filled", type=int, default=11)
    parser.add_argument("--n", type=int, default=4, help="the largest need stored")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk-seconds", type=float, default=20.0)
    parser.add_argument("--job-dir", type=Path, help="a new folder for the job, kept (default: a temporary one)")
    args = parser.parse_args()

    import numpy as np

    from solver import dp
    from solver.dp.target_layout import item_lengths
    from solver.jobs.build import most, open_job, run_job
    from solver.jobs.executors import DaskExecutor
    from solver.jobs.plan import layer_name
    from solver.rules.presets import PRESETS

    kniffel7 = PRESETS["kniffel7"]
    executor = DaskExecutor.local(args.workers)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = args.job_dir / "target" if args.job_dir else Path(tmp) / "job"  # solve --job-dir's layout
            job = open_job(kniffel7, "target", folder, args.n, args.chunk_seconds, args.from_filled)
            executor.client.run(lambda: [__import__("solver.jobs.task")])  # imports, not compiles
            cpu0 = sum(c for c, _ in executor.client.run(_worker_usage).values())
            run_job(job, kniffel7, executor)  # each layer's wall and its chunks' CPU go into layers.json
            workers_cpu = sum(c for c, _ in executor.client.run(_worker_usage).values()) - cpu0
            per_ms = []
            done = job.done()
            for layer in job.plan:
                record = done[layer["filled"]]
                size = (job.path / layer_name(layer["filled"])).stat().st_size
                ms = 1e3 * record["cpu"] / max(record["cpu_cost"], 1)
                per_ms.append(ms)
                print(
                    f"layer {layer['filled']}: {layer['cost']:,} columns in {len(layer['chunks'])} chunks, "
                    f"{record['seconds']:.1f} s wall, {record['cpu']:.1f} s CPU (the chunks' threads"
                    f"{'; compiling included' if layer is job.plan[0] else ''}), {ms:.2f} ms CPU a column, "
                    f"file {size / 1e6:.2f} MB"
                )
            chunks = sum(done[layer["filled"]]["cpu"] for layer in job.plan)
            print(f"the workers' processes: {workers_cpu:.1f} s CPU in all, the chunks {chunks:.1f} s of it")
            rss = [r for _, r in executor.client.run(_worker_usage).values()]
            print(f"peak RSS: workers {[round(r / 1024) for r in rss]} MB, driver {_worker_usage()[1] // 1024} MB")
    finally:
        executor.close()
    engine = dp.make_engine(kniffel7, allow_slow=True)
    best = most(kniffel7)
    full_n = int(round(best[0, 0, 0]))
    lengths = item_lengths(engine, full_n, best)
    upper = engine.upper
    total = 0
    for n_filled in range(len(kniffel7.boxes) - 1, -1, -1):
        masks, flags = dp.layer_items(kniffel7, n_filled)
        columns = int((np.diff(upper.totals_ptr)[upper.row[masks, flags]] * lengths[masks, flags]).sum())
        total += columns
        print(f"  full table, layer {n_filled}: {columns:,} columns ({columns * 8 / 1e9:.2f} GB)")
    ms = per_ms[-1]  # the last (largest) layer: compile time diluted most
    print(
        f"full table (N {full_n}): {total:,} columns, {total * 8 / 1e9:.1f} GB as float64; "
        f"at {ms:.2f} ms a column: {total * ms / 3.6e6:,.0f} CPU-hours"
    )


if __name__ == "__main__":
    main()
