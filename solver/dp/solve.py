"""The solve driver: a variant's engine, then layer by layer from the full card back to the empty
one. States with the same number of filled boxes are independent and solved in parallel."""

from __future__ import annotations

import numpy as np

from .. import numba_setup
from ..rules.variant import Variant
from .compile import require_jit, thread_count
from .engine import Engine, make_engine
from .layers import _fill_equivalent, solve_layer
from .moments import NO_KEEPS, _solve_lane, _solve_layer
from .ordered_layer import _solve_layer_ordered, ordered_work
from .policy import ranked_sub_keeps
from .states import layer_items, upper_states


def table_shape(variant: Variant) -> tuple[int, int, int]:
    return (1 << len(variant.boxes), variant.upper_cap + 1, 2 if variant.has_flag else 1)


def solve(
    variant: Variant, progress=None, engine: Engine | None = None, resume=None, after_layer=None
) -> tuple[np.ndarray, int]:
    """The full table of state values, and the number of states solved (solve_with_moments)."""
    values, _, solved = solve_with_moments(variant, progress, engine, resume, after_layer)
    return values, solved


def solve_with_moments(
    variant: Variant, progress=None, engine: Engine | None = None, resume=None, after_layer=None
) -> tuple[np.ndarray, np.ndarray | None, int]:
    """The full table of state values, the second moments of the points still to come under the advisor's play
    (moments.py; identical dice, None for dice told apart) and the number of states solved.

    `progress`, if given, is called after each layer with the layer's number of
    solved states. `resume` = (values, n_filled, solved) continues a solve whose
    layers above n_filled are done (dice told apart: their long solves keep checkpoints);
    `after_layer(values, n_filled, solved)` is called after each layer. Unreachable states hold NaN.
    """
    require_jit("jit_solve", variant=variant.name)
    engine = engine or make_engine(variant)
    upper_states = engine.upper
    counts = np.diff(upper_states.totals_ptr)
    identical = engine.ordered is None
    if resume is None:
        values = np.full(table_shape(variant), np.nan)
        values[(1 << len(variant.boxes)) - 1] = 0.0
        first_layer, solved = len(variant.boxes) - 1, 0
    else:
        assert not identical, "resume: dice told apart only (no second moments in a checkpoint)"
        values, first_layer, solved = resume
        if progress is not None:
            progress(solved)
    m2 = values.copy() if identical else None  # NaN, and 0.0 at the full card
    subs = ranked_sub_keeps(engine.lattice) if identical else None
    work = None if identical else [ordered_work(engine.ordered) for _ in range(thread_count())]
    for n_filled in range(first_layer, -1, -1):
        if identical:
            masks, jokers_scored = solve_layer(engine, n_filled, values, _solve_layer, engine.lattice, subs, m2)
            _fill_equivalent(masks, jokers_scored, upper_states.row, upper_states.solved_total, m2)
        else:
            masks, jokers_scored = layer_items(variant, n_filled)
            _solve_layer_ordered(masks, jokers_scored, upper_states, engine.rules, engine.ordered, values, work)
            _fill_equivalent(masks, jokers_scored, upper_states.row, upper_states.solved_total, values)
        n_states = int(counts[upper_states.row[masks, jokers_scored]].sum())
        solved += n_states
        if progress is not None:
            progress(n_states)
        if after_layer is not None:
            after_layer(values, n_filled - 1, solved)
    return values, m2, solved


def solve_items(engine: Engine, masks: np.ndarray, jokers_scored: np.ndarray, values, m2, subs) -> None:
    """The values and second moments of the work items (masks, jokers_scored) of one layer (identical dice), on
    this thread, copied to their equivalent upper totals: as solve_with_moments' layer computes them, bit for
    bit (each item reads only the next layer), for a job's chunk (solver/jobs/task.py)."""
    upper_states = engine.upper
    args = upper_states.totals_ptr, upper_states.totals_list, upper_states.row, engine.rules, engine.lattice
    _solve_lane(0, masks.shape[0], masks, jokers_scored, *args, subs, m2, values, NO_KEEPS)
    for table in (values, m2):
        _fill_equivalent(masks, jokers_scored, upper_states.row, upper_states.solved_total, table)


def count_states(variant: Variant) -> int:
    """How many states solve() will solve (the progress bar's total)."""
    states = upper_states(variant)
    counts = np.diff(states.totals_ptr)
    return int(sum(counts[states.row[layer_items(variant, n)]].sum() for n in range(len(variant.boxes))))


def set_threads(n: int | None) -> None:
    """Threads for the parallel kernels (at most the cores Numba found)."""
    if n:
        if not numba_setup.JIT:
            return  # interpreted kernels (KNIFFEL_JIT=0): one thread, Numba not loaded
        import numba

        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
