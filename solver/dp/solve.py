"""The solve driver: a variant's engine, then layer by layer from the full card back to the empty
one. States with the same number of filled boxes are independent and solved in parallel."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import numba_setup
from ..rules.dice import KeepLattice, keep_lattice, multisets
from ..rules.variant import RuleError, Variant
from .compile import njit, require_jit
from .identical import _solve_layer
from .lanes import layer_lanes
from .ordered import OrderedDice, _solve_layer_ordered, ordered_dice, ordered_work
from .rules import Rules, rules_arrays
from .states import UpperStates, layer_items, upper_states


@njit(cache=True)
def _fill_equivalent(masks, jokers_scored, upper_row, solved_total, values):
    """Copy each solved representative to every upper total that shares its future."""
    for i in range(masks.shape[0]):
        mask, joker_scored = masks[i], jokers_scored[i]
        c = solved_total[upper_row[mask, joker_scored]]
        for u in range(c.shape[0]):
            if c[u] >= 0:
                values[mask, u, joker_scored] = values[mask, c[u], joker_scored]


class Engine(NamedTuple):
    """Everything the kernels need for one variant."""

    variant: Variant
    rules: Rules
    lattice: KeepLattice | None  # identical dice only
    upper: UpperStates
    ordered: OrderedDice | None  # dice told apart only


MAX_ORDERED_DICE = 5  # beyond this a solve takes long (seven dice: about half an hour): only an explicit `solve`


def make_engine(variant: Variant, allow_slow: bool = False, ordered: bool | None = None) -> Engine:
    """The kernels' view of a variant: multisets for identical dice, ordered dice otherwise
    (`ordered=True` forces the ordered kernel, which the tests cross-check on identical dice)."""
    faces = variant.faces
    if len(faces) < 3 or any(len(die) != 6 for die in variant.dice):
        raise ValueError(f"{variant.name}: the kernels need six-sided dice")
    rolls = [tuple(f for f, c in zip(faces, m) for _ in range(c)) for m in multisets(variant.n_dice, len(faces))]
    rules = rules_arrays(variant, rolls)
    if ordered is None:
        ordered = not variant.identical_dice
    if not ordered:
        return Engine(variant, rules, keep_lattice(variant.n_dice, len(faces)), upper_states(variant), None)
    if variant.min_keep_last_reroll:
        raise RuleError(f"{variant.name}: the keep-a-die house rule is only solved for identical dice")
    if variant.has_first_roll_points:
        raise RuleError(f"{variant.name}: first-roll (servida) points are only solved for identical dice")
    if variant.n_dice > MAX_ORDERED_DICE and not allow_slow:
        raise RuleError(
            f"{variant.name}: its table takes about half an hour to build; build it once with "
            f"`kniffel solve {variant.name}` (resumable)"
        )
    return Engine(variant, rules, None, upper_states(variant), ordered_dice(variant))


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
