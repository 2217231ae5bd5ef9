"""Kniffel 7's shipped empty-card distribution against many simulated games (issue 30: "the forward pass against
the simulation, 1e5 games, chi-square"): the slow test plays 2,000 games; this plays as many as asked (1e5: 702 s
of CPU, 7 ms a game, benchmarks/README.md).

    .venv/bin/python benchmarks/check_kniffel7_pmf.py --games 100000 [--seed 11] [--least 40]

Prints: games played and the time, the simulated mean against the pmf's (with the standard error), no game where
the pmf has no mass, and the chi-square over score intervals of at least --least expected games with its degrees
of freedom and z = (chi2 - dof) / sqrt(2 dof) (|z| under 4 passes, as the test's bound).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_distribution_kniffel7 import interval_cells  # noqa: E402

from solver.chances.simulation import tally  # noqa: E402
from solver.rules.presets import KNIFFEL7  # noqa: E402
from solver.store import solving, tables  # noqa: E402
from solver.store.expected_play_cache import values_digest  # noqa: E402
from solver.store.shipped_pmf import shipped_pmf  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--least", type=float, default=40.0)
    args = ap.parse_args()
    values, _ = solving.load_table(KNIFFEL7, tables.tables_dir())
    pmf = shipped_pmf(KNIFFEL7, values_digest(values))
    if pmf is None:
        sys.exit("no shipped pmf for this table")
    t, c = time.perf_counter(), time.process_time()
    counts = tally(KNIFFEL7, values, args.games, seed=args.seed).score_counts
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    n = int(counts.sum())
    top = max(pmf.shape[0], counts.shape[0])
    expected, observed = np.pad(pmf, (0, top - pmf.shape[0])) * n, np.pad(counts, (0, top - counts.shape[0]))
    points = np.arange(pmf.shape[0])
    mean = float(points @ pmf)
    std = math.sqrt(float((points - mean) ** 2 @ pmf))
    sim_mean = float(np.arange(top) @ observed) / n
    print(f"{n} games (seed {args.seed}) in {wall:.0f} s wall, {cpu:.0f} s CPU ({1e3 * cpu / n:.1f} ms CPU a game)")
    se = std / math.sqrt(n)
    print(f"mean: simulated {sim_mean:.4f}, pmf {mean:.4f}, difference {(sim_mean - mean) / se:+.2f} standard errors")
    print(f"games where the pmf has no mass: {int(observed[expected == 0].sum())}")
    cells_expected, cells_observed = interval_cells(expected, observed, args.least)
    chi2 = float(((cells_observed - cells_expected) ** 2 / cells_expected).sum())
    dof = cells_expected.shape[0] - 1
    z = (chi2 - dof) / math.sqrt(2 * dof)
    print(f"chi-square {chi2:.1f} over {dof + 1} intervals ({dof} degrees of freedom): z = {z:+.2f}")


if __name__ == "__main__":
    main()
