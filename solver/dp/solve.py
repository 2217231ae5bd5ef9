"""The solve driver: a variant's engine, then layer by layer from the full card back to the empty
one. States with the same number of filled boxes are independent and solved in parallel."""

from __future__ import annotations

import numpy as np

from .. import numba_setup
from ..rules.variant import Variant
from .compile import njit, require_jit
from .engine import Engine, make_engine
from .identical import _solve_layer
from .lanes import layer_lanes
from .ordered import _solve_layer_ordered, ordered_work
from .states import layer_items, upper_states


@njit(cache=True)
def _fill_equivalent(masks, jokers_scored, upper_row, solved_total, values):
    """Copy each solved representative to every upper total that shares its future."""
    for i in range(masks.shape[0]):
        mask, joker_scored = masks[i], jokers_scored[i]
        c = solved_total[upper_row[mask, joker_scored]]
        for u in range(c.shape[0]):
            if c[u] >= 0:
                values[mask, u, joker_scored] = values[mask, c[u], joker_scored]


def table_shape(variant: Variant) -> tuple[int, int, int]:
    return (1 << len(variant.boxes), variant.upper_cap + 1, 2 if variant.has_flag else 1)


def solve(
    variant: Variant, progress=None, engine: Engine | None = None, resume=None, after_layer=None
) -> tuple[np.ndarray, int]:
    """The full table of state values, and the number of states solved.

    `progress`, if given, is called after each layer with the layer's number of
    solved states. `resume` = (values, n_filled, solved) continues a solve whose
    layers above n_filled are done; `after_layer(values, n_filled, solved)` is
    called after each layer (checkpoints). Unreachable states hold NaN.
    """
    require_jit(f"solving {variant.name}")
    engine = engine or make_engine(variant)
    upper_states = engine.upper
    counts = np.diff(upper_states.totals_ptr)
    if resume is None:
        values = np.full(table_shape(variant), np.nan)
        values[(1 << len(variant.boxes)) - 1] = 0.0
        first_layer, solved = len(variant.boxes) - 1, 0
    else:
        values, first_layer, solved = resume
        if progress is not None:
            progress(solved)
    import numba

    work = None if engine.ordered is None else [ordered_work(engine.ordered) for _ in range(numba.get_num_threads())]
    for n_filled in range(first_layer, -1, -1):
        masks, jokers_scored = layer_items(variant, n_filled)
        if engine.ordered is None:
            lane_start, masks, jokers_scored = layer_lanes(
                masks, jokers_scored, counts[upper_states.row[masks, jokers_scored]]
            )
            _solve_layer(
                lane_start,
                masks,
                jokers_scored,
                upper_states.totals_ptr,
                upper_states.totals_list,
                upper_states.row,
                engine.rules,
                engine.lattice,
                values,
            )
        else:
            _solve_layer_ordered(masks, jokers_scored, upper_states, engine.rules, engine.ordered, values, work)
        _fill_equivalent(masks, jokers_scored, upper_states.row, upper_states.solved_total, values)
        n_states = int(counts[upper_states.row[masks, jokers_scored]].sum())
        solved += n_states
        if progress is not None:
            progress(n_states)
        if after_layer is not None:
            after_layer(values, n_filled - 1, solved)
    return values, solved


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
