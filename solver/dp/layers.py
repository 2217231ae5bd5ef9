"""Layer by layer from the full card back to the empty one: the loop that the solve and the tables built
like it (the most a state can still score, the least it surely scores) share.

A layer's work items are dealt to lanes (lanes.py), its layer kernel fills the table for the upper totals
that the solve solves (states.py's representatives), and each representative's entry is then copied to the
upper totals that share its future.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .compile import njit
from .lanes import layer_lanes
from .states import layer_items

if TYPE_CHECKING:
    from .engine import Engine


@njit(cache=True)
def _fill_equivalent(masks, jokers_scored, upper_row, solved_total, values):
    """Copy each solved representative to every upper total that shares its future."""
    for i in range(masks.shape[0]):
        mask, joker_scored = masks[i], jokers_scored[i]
        c = solved_total[upper_row[mask, joker_scored]]
        for u in range(c.shape[0]):
            if c[u] >= 0:
                values[mask, u, joker_scored] = values[mask, c[u], joker_scored]


def solve_layer(engine: Engine, n_filled: int, table: np.ndarray, layer_kernel, *args) -> tuple[np.ndarray, np.ndarray]:
    """One layer (n_filled boxes filled) of the table: layer_kernel(lane_start, masks, jokers_scored, totals_ptr,
    totals_list, upper_row, rules, *args, table) over its work items dealt to lanes, then the representatives'
    entries copied to their equivalent upper totals. Returns the layer's (masks, jokers_scored) in lane order."""
    upper_states = engine.upper
    masks, jokers_scored = layer_items(engine.variant, n_filled)
    lane_start, masks, jokers_scored = layer_lanes(
        masks, jokers_scored, np.diff(upper_states.totals_ptr)[upper_states.row[masks, jokers_scored]]
    )
    layer_kernel(
        lane_start,
        masks,
        jokers_scored,
        upper_states.totals_ptr,
        upper_states.totals_list,
        upper_states.row,
        engine.rules,
        *args,
        table,
    )
    _fill_equivalent(masks, jokers_scored, upper_states.row, upper_states.solved_total, table)
    return masks, jokers_scored


def backward_layers(engine: Engine, table: np.ndarray, layer_kernel, *args, down_to: int = 0) -> np.ndarray:
    """The table layer by layer from the full card (0.0, set here) back to the layer with `down_to` boxes
    filled (0: the empty card, the whole table; solve_layer); the layers below are left as they are."""
    n_boxes = len(engine.variant.boxes)
    table[(1 << n_boxes) - 1] = 0.0
    for n_filled in range(n_boxes - 1, down_to - 1, -1):
        solve_layer(engine, n_filled, table, layer_kernel, *args)
    return table
