"""The spread of each advised option: the standard deviation of the final score it leads to.

Computed from the table of second moments that the solve makes with the values (dp/moments.py), kept on
disk beside the table (store/tables.py; store/solving.table_moments reads it, or solves the table again
where it lacks them).
"""

from __future__ import annotations

import numpy as np

from ..advice.cards import Card


def _stds(m2, mean):
    d = m2 - mean * mean
    return np.sqrt(np.where(d > 0.0, d, 0.0))  # as max(0.0, d): never -0.0, rounding below 0 is 0


def _std(m2: float, mean: float) -> float:
    return float(_stds(m2, mean))


def keep_stds(engine, values, m2, state) -> tuple[np.ndarray, np.ndarray]:
    """Standard deviation of the final score after every keep of one turn from `state` (after roll 2,
    after roll 1; by keep-lattice row)."""
    from ..dp import keep_values
    from ..dp.moments import turn_moments

    after_second, after_first = keep_values(engine, values, *state)
    m2_second, m2_first = turn_moments(engine, values, m2, *state)
    return _stds(m2_second, after_second), _stds(m2_first, after_first)


def option_stds(variant, values, m2, card: Card, dice, roll: int, options, advisor, memo=None) -> list[float]:
    """Standard deviation of the final score each option (advisor.Option, keep or box) leads to when the
    rest of the game is played by the advisor (advisor.Advisor of these values). memo: a BoundedCache of
    keep_stds by card state (the same card is advised for each roll and many dice)."""
    out = []
    if options and options[0].kind == "keep":
        state = card.state
        if memo is not None and state in memo:
            after_second, after_first = memo[state]
        else:
            after_second, after_first = keep_stds(advisor.engine, values, m2, state)
            if memo is not None:
                memo[state] = after_second, after_first
        stds = after_first if roll == 1 else after_second
        faces = variant.faces
        return [float(stds[advisor.keep_index[tuple(o.keep.count(f) for f in faces)]]) for o in options]
    for o in options:
        after = card.with_entry(o.box, o.points, o.extra)
        out.append(0.0 if after.full else _std(m2[after.state], values[after.state]))
    return out
