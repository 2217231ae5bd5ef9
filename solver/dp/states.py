"""Which states exist: the upper totals each scorecard pattern can reach (and which of them share
one future), and the work items of each layer."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..rules.scoring import possible_points
from ..rules.variant import Variant
from .rules import rules_bonus


class UpperStates(NamedTuple):
    """Which upper totals each (mask, joker_scored) can have, and which of them share one future.

    A row is a pattern of filled upper boxes and whether joker points can lie in them and can still
    come (Kniffel 7's Super-Points: 60 in any box, only while the Super-Kniffel box holds 60).
    Totals u and u' share one future when every upper sum the free boxes can still add pays the
    same further bonus from both; only one of them (the smallest reachable) is solved.
    """

    row: np.ndarray  # (2^B, flags) int64: the row of each (mask, joker_scored)
    solved_total: np.ndarray  # (rows, cap + 1) int64: the total solved for each reachable total, else -1
    reachable: np.ndarray  # (rows, cap + 1) bool
    totals_ptr: np.ndarray  # CSR over rows of the totals to solve
    totals_list: np.ndarray

    def totals(self, mask: int, joker_scored: int) -> np.ndarray:
        """The upper totals solved for (mask, joker_scored)."""
        row = self.row[mask, joker_scored]
        return self.totals_list[self.totals_ptr[row] : self.totals_ptr[row + 1]]


def upper_states(variant: Variant) -> UpperStates:
    """Reachable upper totals of every row, and the representative of each one."""
    cap = variant.upper_cap
    upper = [i for i, b in enumerate(variant.boxes) if b.is_upper]
    bonus_cum = rules_bonus(variant)
    n_rows = 4 << len(upper)
    reachable = np.zeros((n_rows, cap + 1), dtype=bool)
    solved_total = np.full((n_rows, cap + 1), -1, dtype=np.int64)
    ptr, lst = [0], []
    n_pat = 1 << len(upper)
    sums = {}  # (jokers, pattern) -> the capped sums the pattern's boxes can hold
    for jokers in (False, True):
        points = [possible_points(variant, i, jokers) for i in upper]
        sums[jokers, 0] = np.zeros(1, dtype=np.int64)
        for pat in range(1, n_pat):
            bit = (pat & -pat).bit_length() - 1
            rest = sums[jokers, pat & (pat - 1)]
            sums[jokers, pat] = np.unique(np.minimum(rest[:, None] + np.array(points[bit])[None, :], cap))
    known: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # rows often repeat (jokers that add no upper points)
    for row in range(n_rows):
        pat, jokers_in, jokers_to_come = row >> 2, bool(row >> 1 & 1), bool(row & 1)
        us, more = sums[jokers_in, pat], sums[jokers_to_come, (n_pat - 1) ^ pat]
        key = (us.tobytes(), more.tobytes())
        if key not in known:
            future = bonus_cum[np.minimum(us[:, None] + more[None, :], cap)] - bonus_cum[us][:, None]
            _, first, group = np.unique(future, axis=0, return_index=True, return_inverse=True)
            known[key] = (us[first[group.ravel()]], np.unique(us[first]))
        reachable[row, us] = True
        solved_total[row, us], solve = known[key]
        lst.extend(solve.tolist())
        ptr.append(len(lst))
    masks = np.arange(1 << len(variant.boxes))
    pattern = np.zeros_like(masks)
    for bit, i in enumerate(upper):
        pattern |= ((masks >> i) & 1) << bit
    jokers_scored = np.arange(2 if variant.has_flag else 1)
    jokers_in, jokers_to_come = joker_classes(variant, masks[:, None], jokers_scored[None, :])
    rows = pattern[:, None] * 4 + jokers_in * 2 + jokers_to_come
    return UpperStates(
        rows.astype(np.int64), solved_total, reachable, np.array(ptr, dtype=np.int64), np.array(lst, dtype=np.int64)
    )


def joker_classes(variant: Variant, mask, joker_scored):
    """Whether joker points can lie in the filled boxes of (mask, joker_scored), and whether they can still come.

    Only where a joker needs the joker box to hold points (box maximum, fixed score) does the flag
    tell; otherwise both are taken as possible."""
    mask, joker_scored = np.asarray(mask), np.asarray(joker_scored)
    if variant.joker.needs_points_in_box:
        jb_free = (mask >> variant.joker_index) & 1 == 0
        return (joker_scored == 1).astype(np.int64), ((joker_scored == 1) | jb_free).astype(np.int64)
    everywhere = np.ones(np.broadcast(mask, joker_scored).shape, dtype=np.int64)
    return everywhere, everywhere


def layer_items(variant: Variant, n_filled: int):
    """(masks, flags) of the work items whose cards have n_filled boxes."""
    n_boxes = len(variant.boxes)
    masks = np.arange(1 << n_boxes, dtype=np.int64)
    popcount = np.zeros_like(masks)
    for b in range(n_boxes):
        popcount += (masks >> b) & 1
    layer = masks[popcount == n_filled]
    jokers_scored = np.zeros_like(layer)
    if variant.has_flag:
        with_box = layer[(layer >> variant.joker_index) & 1 == 1]
        layer = np.concatenate([layer, with_box])
        jokers_scored = np.concatenate([jokers_scored, np.ones_like(with_box)])
    return layer, jokers_scored
