"""The solve's choices under the tie rule (policy.py) against the obvious scans: the keep lattice that carries
each keep's argmax and runner-up (_best_keeps_chosen) and the final entries checked against column 0's pick
(_final_entries) must pick exactly what a scan in tie order picks, near ties and exact ties included."""

from __future__ import annotations

import numpy as np
import pytest

from solver.dp.engine import make_engine
from solver.dp.entries import _box_options, _free_boxes
from solver.dp.identical import _best_sub_keeps
from solver.dp.policy import TIE, _best_keeps_chosen, _final_entries, ranked_sub_keeps
from solver.dp.rules import P_EXTRA
from solver.rules.presets import PRESETS


def tied_values(rng, shape) -> np.ndarray:
    """Values with many exact ties, ties within TIE and gaps just over it."""
    base = rng.integers(0, 4, size=shape).astype(np.float64)
    nudge = rng.choice([0.0, 0.3 * TIE, -0.6 * TIE, 2.5 * TIE, 0.5], size=shape)
    return base + nudge


@pytest.mark.parametrize("name,min_keep", [("kniffel", 0), ("kniffel-keep-one", 1), ("yatzy6", 0)])
def test_keep_choice_equals_the_scan(name, min_keep):
    lattice = make_engine(PRESETS[name]).lattice
    subs = ranked_sub_keeps(lattice)
    size_start, sub = lattice.size_start, lattice.sub
    first_roll, min_start = int(size_start[-2]), int(size_start[min_keep])
    rng = np.random.default_rng(27 + min_keep)
    for nj in (1, 3, 16):
        values = tied_values(rng, (sub.shape[0], nj))
        expected_best = values.copy()
        _best_sub_keeps(expected_best, sub, size_start, np.int64(min_keep))
        by_keep = values.copy()
        chosen = np.full((sub.shape[0] - first_roll, nj), -7, dtype=np.int64)
        _best_keeps_chosen(by_keep, values, sub, size_start, np.int64(min_keep), subs, chosen)
        assert np.array_equal(by_keep, expected_best)
        near = 0
        for r in range(chosen.shape[0]):
            for j in range(nj):
                inside = [int(c) for c in subs[r] if c >= min_start]
                best = max(values[c, j] for c in inside)
                assert best == by_keep[first_roll + r, j]
                within = [c for c in inside if values[c, j] >= best - TIE]
                near += len(within) > 1
                assert chosen[r, j] == within[0], (r, j)
        assert near > 0  # the near-tie path ran


def test_final_entry_equals_the_scan():
    engine = make_engine(PRESETS["yahtzee"])
    rules = engine.rules
    n_rolls, n_boxes = rules.score.shape
    rng = np.random.default_rng(5)
    mask, joker_scored = 0b0001100100101, 1
    option_move = np.empty((n_rolls, n_boxes), dtype=np.int64)
    option_points = np.empty((n_rolls, n_boxes), dtype=np.int64)
    n_options = np.empty(n_rolls, dtype=np.int64)
    _box_options(mask, joker_scored, rules, option_move, option_points, n_options)
    free = _free_boxes(mask, n_boxes)
    near = 0
    for nj in (1, 9):
        vecs = tied_values(rng, (rules.move_box.shape[0], nj))
        final = np.empty((n_rolls, nj))
        move = np.empty((n_rolls, nj), dtype=np.int64)
        points = np.empty((n_rolls, nj), dtype=np.int64)
        _final_entries(mask, joker_scored, rules, vecs, final, move, points)
        for r in range(n_rolls):
            if n_options[r] < 0:
                options = [(int(rules.norm_move[r, b]), int(rules.score[r, b])) for b in free]
            else:
                options = [(int(option_move[r, i]), int(option_points[r, i])) for i in range(n_options[r])]
            extra = int(rules.params[P_EXTRA]) if joker_scored == 1 and rules.joker_roll[r] else 0
            for j in range(nj):
                best = max(s + vecs[m, j] for m, s in options)
                assert final[r, j] == best + extra
                within = [(m, s) for m, s in options if s + vecs[m, j] >= final[r, j] - extra - TIE]
                near += len(within) > 1
                assert (move[r, j], points[r, j]) == (within[0][0], within[0][1] + extra), (r, j)
    assert near > 0
