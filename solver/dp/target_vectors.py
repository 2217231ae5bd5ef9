"""Target probabilities of every keep of one turn for every need at once (issue 13: playing against
an opponent, whose final score can be any of hundreds of values).

The same passes as target.target_keep_values, with the needs 1..L of the state as the column axis
instead of one need: one call gives P(reaching need n | keep) for every keep and every n.
"""

from __future__ import annotations

import numpy as np

from .engine import Engine
from .identical import _best_sub_keeps, _keep_means
from .rules import P_MIN_KEEP
from .target import _item_setup, final_roll_values, first_roll_target_stops
from .target_layout import TargetLayout


def target_keep_vectors(
    engine: Engine, layout: TargetLayout, flat: np.ndarray, mask: int, upper: int, joker_scored: int
) -> tuple[np.ndarray, np.ndarray]:
    """(after roll 2, after roll 1), each (K, L): P(at least n more points), n = 1..L, for every keep
    (keep-lattice rows; a keep of every die = stopping). L = the needs the state stores (needs above
    it have probability 0)."""
    lattice, rules = engine.lattice, engine.rules
    assert lattice is not None
    n_len = int(layout.length[mask, joker_scored])
    first_roll = int(lattice.size_start[-2])
    by_keep = np.empty((lattice.add.shape[0], max(n_len, 1)))
    if n_len == 0:
        by_keep[:] = 0.0
        return by_keep.copy(), by_keep
    upper_totals = np.array([upper], dtype=np.int64)
    setup = _item_setup(mask, joker_scored, upper_totals, rules, layout.offset, layout.length, layout.col, layout.row)
    runs = np.zeros(1, dtype=np.int64), np.array([1], dtype=np.int64), np.array([0, n_len], dtype=np.int64)
    final_roll_values(setup, runs, flat, by_keep, first_roll)
    _keep_means(by_keep, lattice.add, lattice.size_start)
    after_second = by_keep.copy()
    _best_sub_keeps(by_keep, lattice.sub, lattice.size_start, rules.params[P_MIN_KEEP])
    _keep_means(by_keep, lattice.add, lattice.size_start)
    after_first = by_keep.copy()
    after_first[first_roll:] = after_second[first_roll:]
    stops = first_roll_target_stops(engine, layout, flat, mask, upper, joker_scored, runs, n_len)
    if stops is not None:  # stopping after roll 1 enters the first-roll scores
        after_first[first_roll:] = stops
    return after_second, after_first
