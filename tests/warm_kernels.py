"""Compile the kernels the quick tests use into the Numba disk cache before the test workers start.

With an empty cache every xdist worker compiles each kernel it meets, the same kernels on both workers at
once: about a minute and a half of one core each. conftest.py's pytest_configure (on the xdist controller,
when the cache is cold) runs this file as two processes, one a group, so that the compiling is split over
the two cores and done once; the workers then load the kernels from the cache. Small variants keep the
work itself short: a kernel compiles for its arguments' types, the same for every variant.

    python tests/warm_kernels.py identical   # solve, advice, simulation, forward pass (generala)
    python tests/warm_kernels.py play        # target table, dice told apart (Kniffel 7)
"""

from __future__ import annotations

import sys
import tempfile

import numpy as np


def _identical(tables: str) -> None:
    """The solve with its moments, one turn's advice with the std column, a batch, a simulation and its choice
    in one situation, the forward pass, the final roll's box options (called from Python by tests: its own
    cache entry) and the least points each state makes certain (a target kernel, here for the groups' balance)."""
    import solver
    from solver import dp
    from solver.advice.cards import Card
    from solver.chances import distribution
    from solver.dp.entries import _box_options
    from solver.dp.target_layout import sure_minimum

    table = solver.load("generala", tables_dir=tables, progress=False)
    table.advise("", "1,1,2,3,5", 1, spread=True)
    table.best_action("", "1,1,2,3,5", 2)
    zero = np.zeros(2, dtype=np.int64)
    table.option_values_batch(zero, zero, zero, np.ones((2, 5), dtype=np.int64), np.ones(2, dtype=np.int64))
    solver.simulate(table, 64)
    engine = dp.make_engine(table.variant)
    dp.simulated_choice(engine, table.values, 0, 0, 0, engine.lattice.size_start[-2], 3)  # simulate's callees
    distribution.distribution(table.variant, table.values, Card(table.variant), (), engine)
    n_rolls, n_boxes = engine.rules.score.shape
    options = np.empty((n_rolls, n_boxes), dtype=np.int64), np.empty((n_rolls, n_boxes), dtype=np.int64)
    _box_options(0, 0, engine.rules, *options, np.empty(n_rolls, dtype=np.int64))
    sure_minimum(engine)  # the least points each state makes certain (the target's), here for the balance


def _play(tables: str) -> None:
    """The dice-told-apart kernels (solve, advice, play, one situation's choice, forward pass, target chances) on
    a small Kniffel 7, then a target table and one recomputed column of it. (The simulation's one-situation
    choice is in the identical group, beside the simulation whose callees it shares; the least points each state
    makes certain too: the two groups take about as long, benchmarks/compile_table.py measures them.)"""
    from solver import dp
    from solver.advice.cards import Card
    from solver.advice.choose import make_advisor
    from solver.chances import distribution, simulation
    from solver.chances.ordered_chances import targets_from
    from solver.chances.targets import build_target_table
    from solver.dp.target import item_columns
    from solver.rules.presets import PRESETS

    k7 = PRESETS["kniffel7"].reduced(boxes=["sevens", "fours", "chance"], n_dice=4, bonuses=[(8, 35)], name="k7")
    k7_values, _ = dp.solve(k7)
    first_faces = tuple(die[0] for die in k7.dice)
    make_advisor(k7, k7_values).advise(Card(k7), first_faces, 1, False)
    dp.ordered_turn_choice(dp.make_engine(k7), k7_values, 0, 0, 0, first_faces, 1)
    simulation.tally(k7, k7_values, 16, seed=0)
    distribution.final_pmf(k7, k7_values, Card(k7))
    targets_from(k7, Card(k7), [10])
    target = build_target_table(PRESETS["generala"], 40)
    engine = target.engine
    upper = engine.upper  # the empty card's column, as a table without some layers recomputes one
    first = int(upper.totals_ptr[upper.row[0, 0]])
    column = np.empty(int(target.layout.length[0, 0]))
    item_columns(engine, target.layout, target.flat, 0, 0, upper.totals_list[first : first + 1].copy(), column)


GROUPS = {"identical": _identical, "play": _play}


def main(names: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="warm-kernels-") as tables:
        for name in names:
            GROUPS[name](tables)


if __name__ == "__main__":
    main(sys.argv[1:])
