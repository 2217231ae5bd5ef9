"""Compile the kernels the quick tests use into the Numba disk cache before the test workers start.

With an empty cache every xdist worker compiles each kernel it meets, the same kernels on both workers at
once: about a minute and a half of one core each. conftest.py's pytest_configure (on the xdist controller,
when the cache is cold) runs this file as two processes, one a group, so that the compiling is split over
the two cores and done once; the workers then load the kernels from the cache. Small variants keep the
work itself short: a kernel compiles for its arguments' types, the same for every variant.

    python tests/warm_kernels.py identical   # solve with moments, advice, batch, forward pass (generala)
    python tests/warm_kernels.py play        # target table, least sure points, simulation, best action (generala)

Kniffel 7's kernels (dice told apart) are not here: the quick tests run them interpreted
(tests/test_kniffel7_interpreted.py), the slow tests compile them.
"""

from __future__ import annotations

import sys
import tempfile

import numpy as np


def _identical(tables: str) -> None:
    """The solve with its moments, one turn's advice with the std column, a batch, the forward pass and the final
    roll's box options (called from Python by tests: its own cache entry)."""
    import solver
    from solver import dp
    from solver.advice.cards import Card
    from solver.chances import distribution
    from solver.dp.entries import _box_options

    table = solver.load("generala", tables_dir=tables, progress=False)
    table.advise("", "1,1,2,3,5", 1, spread=True)
    zero = np.zeros(2, dtype=np.int64)
    table.option_values_batch(zero, zero, zero, np.ones((2, 5), dtype=np.int64), np.ones(2, dtype=np.int64))
    engine = dp.make_engine(table.variant)
    distribution.distribution(table.variant, table.values, Card(table.variant), (), engine)
    n_rolls, n_boxes = engine.rules.score.shape
    options = np.empty((n_rolls, n_boxes), dtype=np.int64), np.empty((n_rolls, n_boxes), dtype=np.int64)
    _box_options(0, 0, engine.rules, *options, np.empty(n_rolls, dtype=np.int64))


def _play(tables: str) -> None:
    """A target table and one recomputed column of it, the least points each state makes certain, a simulation
    with its one-situation choice and the best action alone (on a random value table: the kernels compile for its
    type, whatever its numbers). The two groups take about as long: 41-46 s CPU each on an empty cache, both at once
    (the best action here, not in the identical group: 50.9 and 54.0 s wall before, 47.5 and 43.3 after)."""
    from solver import dp
    from solver.advice.advisor import Advisor
    from solver.advice.cards import Card
    from solver.chances import simulation
    from solver.chances.targets import build_target_table
    from solver.dp.target import item_columns
    from solver.dp.target_layout import sure_minimum
    from solver.rules.presets import PRESETS

    generala = PRESETS["generala"]
    target = build_target_table(generala, 40)
    engine = target.engine
    upper = engine.upper  # the empty card's column, as a table without some layers recomputes one
    first = int(upper.totals_ptr[upper.row[0, 0]])
    column = np.empty(int(target.layout.length[0, 0]))
    item_columns(engine, target.layout, target.flat, 0, 0, upper.totals_list[first : first + 1].copy(), column)
    sure_minimum(engine)
    values = np.random.default_rng(0).uniform(0.0, 100.0, dp.table_shape(generala))
    simulation.tally(generala, values, 64, seed=0)
    dp.simulated_choice(engine, values, 0, 0, 0, engine.lattice.size_start[-2], 3)  # simulate's callees
    Advisor(generala, values).best_action(Card(generala), (1, 1, 2, 3, 5), 2)


GROUPS = {"identical": _identical, "play": _play}


def main(names: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="warm-kernels-") as tables:
        for name in names:
            GROUPS[name](tables)


if __name__ == "__main__":
    main(sys.argv[1:])
