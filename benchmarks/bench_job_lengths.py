"""What an end-game target job of Kniffel 7 spends on its item lengths (issue 28): max_remaining over the
whole table (what `open_job` computed before) against only the layers from --from-filled up (what it
computes now), interleaved, CPU seconds (process_time) with the kernels warm; then open_job itself
(engine, lengths, plan, folder), as `kniffel solve kniffel7 --target --from-filled K` runs it before its
chunks. The end-game rows are checked equal to the whole pass's.

    .venv/bin/python benchmarks/bench_job_lengths.py --from-filled 10 --runs 3
"""

import argparse
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--from-filled", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    import numpy as np

    from solver.chances.distribution import max_score
    from solver.dp.target_layout import max_remaining
    from solver.jobs.build import open_job
    from solver.jobs.task import job_engine
    from solver.rules.presets import PRESETS

    kniffel7 = PRESETS["kniffel7"]
    engine = job_engine(kniffel7)
    t0 = time.process_time()
    max_remaining(engine, len(kniffel7.boxes) - 1)  # compiles the kernel (or loads it from the cache)
    print(f"first call (compile or cache load): {time.process_time() - t0:.1f} s CPU")
    filled = np.array([bin(mask).count("1") for mask in range(1 << len(kniffel7.boxes))])
    for run in range(args.runs):
        t0 = time.process_time()
        whole = max_remaining(engine)
        t1 = time.process_time()
        part = max_remaining(engine, args.from_filled)
        t2 = time.process_time()
        needed = filled >= args.from_filled
        assert np.array_equal(part[needed], whole[needed], equal_nan=True)
        print(f"run {run + 1}: whole table {t1 - t0:.2f} s CPU, from {args.from_filled} filled {t2 - t1:.3f} s CPU")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.process_time()
        n_max = max_score(kniffel7)
        open_job(kniffel7, "target", Path(tmp) / "job", n_max, from_filled=args.from_filled)
        print(f"open_job (N {n_max}, from {args.from_filled} filled): {time.process_time() - t0:.2f} s CPU")


if __name__ == "__main__":
    main()
