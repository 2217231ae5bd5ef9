"""The index tables of the kernel for dice told apart (dp/ordered.py): plain numpy, built once per variant.

The dice are split into low dice (transformed inside one cache-sized block, of which the inner dice in
sub-blocks) and high dice; a partial assignment gives every die a face code (0-5) or 6 (rerolled).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..rules.dice import multisets
from ..rules.variant import Variant

LOW_DICE = 5  # dice transformed inside one block of 7^5 rows x 8 columns (1 MB: fits the L2 cache)
INNER_DICE = 3  # of these, dice transformed inside sub-blocks of 7^3 rows (22 KB: fits the L1 cache)


class DieGroup(NamedTuple):
    """Index tables of the transforms along a group of n dice (partial assignments of the group as
    base-7 numbers): where each pass's lines start (CSR per die), and where the rolls lie."""

    n: int
    max_ptr: np.ndarray  # (n + 1,) max passes: lines where the dice before the die show faces
    max_start: np.ndarray
    mean_ptr: np.ndarray  # (n + 1,) mean passes: lines where the dice after the die show faces
    mean_start: np.ndarray
    faces: np.ndarray  # (6^n,) the partial assignments that are rolls, in base-6 order


def die_group(n: int) -> DieGroup:
    pa = np.arange(7**n)
    digits = (pa[:, None] // 7 ** np.arange(n)) % 7
    faces = digits < 6
    tables = []
    for before in (True, False):
        ptr, start = [0], []
        for d in range(n):
            others = faces[:, :d] if before else faces[:, d + 1 :]
            start.extend(pa[(digits[:, d] == 0) & others.all(axis=1)].tolist())
            ptr.append(len(start))
        tables += [np.array(ptr, dtype=np.int64), np.array(start, dtype=np.int64)]
    max_ptr, max_start, mean_ptr, mean_start = tables
    return DieGroup(n, max_ptr, max_start, mean_ptr, mean_start, pa[faces.all(axis=1)])


class OrderedDice(NamedTuple):
    """Dice told apart: the index tables of _ordered_turn.

    After roll 2 a keep's value depends only on (multiset kept, dice rerolled): those "compact keeps"
    (28,760 for seven dice instead of 823,543 partial assignments) get their values first. A low
    partial assignment's "low key" is its own (multiset kept, dice rerolled).
    """

    low: DieGroup  # the low dice (0..LOW_DICE-1) ...
    inner: DieGroup  # ... split into inner dice (L1 sub-blocks)
    outer: DieGroup  # ... and outer dice
    high: DieGroup  # the other dice
    low_key: np.ndarray  # (7^low,) low key of each low partial assignment
    low_face_row: np.ndarray  # (7^low,) where a low partial assignment that is a roll lies in low.faces, else -1
    n_low_keys: int
    high_low_keep: np.ndarray  # (7^high * n_low_keys,) compact keep of (high partial assignment, low key)
    order: np.ndarray  # (C,) compact keeps by number of dice rerolled, none first
    child: np.ndarray  # (C, 6): the compact keep with its lowest rerolled die showing face code c
    base_ms: np.ndarray  # (C,): for keeps of all dice, the multiset row of the roll tables, else -1
    row_offsets: np.ndarray  # 0, 1, 2, ...
    zero: np.ndarray  # [0]


def ordered_dice(variant: Variant) -> OrderedDice:
    """Index tables of the ordered-dice kernel (numpy; the low and high dice apart, then combined)."""
    n, faces = variant.n_dice, variant.faces
    n_low = min(n, LOW_DICE)
    n_inner = min(n_low, INNER_DICE)
    radix = n + 1  # a multiset as a number: digit f = how many dice show face f
    code_face = np.array([[faces.index(f) for f in die] + [-1] for die in variant.dice])  # (n, 7)

    def keys(dice):  # (kept multiset number, rerolled bits) of every partial assignment of these dice
        pa = np.arange(7 ** len(dice))
        digits = (pa[:, None] // 7 ** np.arange(len(dice))) % 7
        face = code_face[np.array(dice, dtype=np.int64), digits]
        kept = np.where(face >= 0, radix ** np.maximum(face, 0), 0).sum(axis=1)
        return kept, ((digits == 6) << np.array(dice, dtype=np.int64)).sum(axis=1)

    low_kept, low_bits = keys(list(range(n_low)))
    high_kept, high_bits = keys(list(range(n_low, n)))
    low_keys, low_key = np.unique(low_kept * (1 << n) + low_bits, return_inverse=True)
    combined = (high_kept[:, None] + low_keys[None, :] // (1 << n)) * (1 << n) + (
        high_bits[:, None] | low_keys[None, :] % (1 << n)
    )
    all_keys, high_low_keep = np.unique(combined.ravel(), return_inverse=True)
    r_bits, kept_of = all_keys % (1 << n), all_keys // (1 << n)
    lowest = np.zeros_like(r_bits)  # lowest rerolled die of each compact keep
    for d in range(n - 1, -1, -1):
        lowest = np.where(r_bits >> d & 1, d, lowest)
    child = np.searchsorted(
        all_keys, (kept_of[:, None] + radix ** code_face[lowest, :6]) * (1 << n) + (r_bits ^ (1 << lowest))[:, None]
    )
    child[r_bits == 0] = -1
    ms_number = {sum(c * radix**f for f, c in enumerate(m)): i for i, m in enumerate(multisets(n, len(faces)))}
    base_ms = np.array([ms_number[int(k)] if r == 0 else -1 for k, r in zip(kept_of, r_bits)], dtype=np.int64)
    popcount = np.array([bin(int(r)).count("1") for r in r_bits])
    low = die_group(n_low)
    low_face_row = np.full(7**n_low, -1, dtype=np.int64)
    low_face_row[low.faces] = np.arange(low.faces.shape[0])
    return OrderedDice(
        low,
        die_group(n_inner),
        die_group(n_low - n_inner),
        die_group(n - n_low),
        low_key.astype(np.int64),
        low_face_row,
        len(low_keys),
        high_low_keep.astype(np.int64),
        np.argsort(popcount, kind="stable"),
        child.astype(np.int64),
        base_ms,
        np.arange(max(7**n_low, len(low_keys)), dtype=np.int64),
        np.zeros(1, dtype=np.int64),
    )
