"""The arrays of the advice kernels: each roll's sub-keeps in the advisor's order (AdviceTables), and the
single-situation kernels' arrays packed in two buffers (pack_single; _unpack is its inverse inside a kernel)."""

from __future__ import annotations

from itertools import product
from typing import NamedTuple

import numpy as np

from ..rules.dice import KeepLattice
from .compile import buffer_view, njit
from .rules import Rules


class AdviceTables(NamedTuple):
    """Per roll of the keep lattice: its distinct sub-multisets (itself included, last) in the advisor's order."""

    roll_subs: np.ndarray  # (R, S) int64 keep indices, -1 padded
    n_subs: np.ndarray  # (R,) int64
    keep_size: np.ndarray  # (K,) int64 number of dice kept


def advice_tables(lattice: KeepLattice) -> AdviceTables:
    counts = lattice.counts
    n = int(lattice.size_start.shape[0] - 2)
    first = int(lattice.size_start[n])
    index = {tuple(int(c) for c in row): k for k, row in enumerate(counts)}
    rows = [[index[kept] for kept in product(*(range(int(c) + 1) for c in roll))] for roll in counts[first:]]
    subs = np.full((len(rows), max(map(len, rows))), -1, dtype=np.int64)
    for r, ks in enumerate(rows):
        subs[r, : len(ks)] = ks
    sizes = counts.sum(axis=1).astype(np.int64)
    return AdviceTables(subs, np.array([len(ks) for ks in rows], dtype=np.int64), sizes)


def max_options(lattice: KeepLattice, n_boxes: int) -> int:
    """Columns of the option arrays: the most options a situation can have."""
    return max(int(advice_tables(lattice).n_subs.max()), n_boxes)


# The single-situation kernels' arrays in two buffers (an array argument costs a few tenths of a µs to pass):
# each buffer starts with the offset of each of its arrays, in the order below; an array is its shape, then
# its items. A kernel reads an array through a view without a reference count (compile.buffer_view), made
# where it reads it.
INT_ARRAYS = (
    *(f for f in Rules._fields if f != "bonus_cum"),
    *KeepLattice._fields[1:4],  # size_start, add, sub
    *AdviceTables._fields,
    "tie_rank",  # pack_best's, for best_one: the keeps' places in the tie rule's order
    "move_t",  # (B, R): the normal moves by box
    "sub_or_none",  # the lattice's sub with K (a row holding -inf) for a missing face
    "const_move",  # (B,): each box's move when all rolls make the same one, else -1
    "pair_of",  # (B, R): which of the box's distinct (normal score, move) pairs roll r makes (box_pairs)
    "pair_move",  # (B, PAIRS): the move of each pair (the first PAIRS)
    "n_pairs",  # (B,): the box's number of distinct pairs
)

FLOAT_ARRAYS = (
    "bonus_cum",
    "roll_prob",
    "score_t",  # (B, R): the normal scores by box (pack_best's)
    "pair_score",  # (B, PAIRS): the score of each pair (the first PAIRS)
)

# numpy integers, not Python ones: a kernel reads a Python int constant as a type of its own (a literal), and
# _arr1 and _arr2 would compile once for each index
(
    I_SCORE,
    I_JOKER_SCORE,
    I_JOKER_ROLL,
    I_JOKER_UPPER,
    I_IS_UPPER,
    I_PARAMS,
    I_MOVE_BOX,
    I_MOVE_INC,
    I_MOVE_FLAG,
    I_NORM_MOVE,
    I_JOKER_MOVE,
    I_ZERO_MOVE,
    I_FIRST_SCORE,
    I_FIRST_JOKER_SCORE,
    I_SIZE_START,
    I_ADD,
    I_SUB,
    I_ROLL_SUBS,
    I_N_SUBS,
    I_KEEP_SIZE,
    I_TIE_RANK,
    I_MOVE_T,
    I_SUB_OR_NONE,
    I_CONST_MOVE,
    I_PAIR_OF,
    I_PAIR_MOVE,
    I_N_PAIRS,
) = map(np.int64, range(len(INT_ARRAYS)))

F_BONUS_CUM, F_ROLL_PROB, F_SCORE_T, F_PAIR_SCORE = map(np.int64, range(len(FLOAT_ARRAYS)))


def _pack(arrays: list[np.ndarray], dtype) -> np.ndarray:
    """One buffer: the offset of each array, then each array's shape and items."""
    parts = [np.concatenate([np.shape(a), np.ravel(a)]).astype(dtype) for a in arrays]
    offsets = len(arrays) + np.cumsum([0] + [part.shape[0] for part in parts[:-1]])
    return np.concatenate([offsets.astype(dtype), *parts])


def pack_single(rules: Rules, lattice: KeepLattice, tabs: AdviceTables) -> tuple[np.ndarray, np.ndarray]:
    """(ints, floats): every array the advice kernel reads, in two buffers (for _advise_one; see INT_ARRAYS)."""
    named = {**rules._asdict(), **lattice._asdict(), **tabs._asdict()}
    return (
        _pack([named[name] for name in INT_ARRAYS[:I_TIE_RANK]], np.int64),
        _pack([named[name] for name in FLOAT_ARRAYS[:F_SCORE_T]], np.float64),
    )


@njit(cache=True)
def _arr1(buf, i):
    """Array i of a buffer (one dimension)."""
    o = int(buf[i])
    return buffer_view(buf, o + 1, (int(buf[o]),))


@njit(cache=True)
def _arr2(buf, i):
    """Array i of a buffer (two dimensions)."""
    o = int(buf[i])
    return buffer_view(buf, o + 2, (int(buf[o]), int(buf[o + 1])))


@njit(cache=True)
def _unpack_rules(ints, floats):
    """Rules as views of the buffers."""
    return Rules(
        _arr2(ints, I_SCORE),
        _arr2(ints, I_JOKER_SCORE),
        _arr1(ints, I_JOKER_ROLL),
        _arr1(ints, I_JOKER_UPPER),
        _arr1(ints, I_IS_UPPER),
        _arr1(floats, F_BONUS_CUM),
        _arr1(ints, I_PARAMS),
        _arr1(ints, I_MOVE_BOX),
        _arr1(ints, I_MOVE_INC),
        _arr1(ints, I_MOVE_FLAG),
        _arr2(ints, I_NORM_MOVE),
        _arr2(ints, I_JOKER_MOVE),
        _arr1(ints, I_ZERO_MOVE),
        _arr2(ints, I_FIRST_SCORE),
        _arr2(ints, I_FIRST_JOKER_SCORE),
    )


@njit(cache=True)
def _unpack(ints, floats):
    """The inverse of pack_single: Rules, KeepLattice and AdviceTables as views of two buffers."""
    add = _arr2(ints, I_ADD)
    lattice = KeepLattice(add[:0], _arr1(ints, I_SIZE_START), add, _arr2(ints, I_SUB), _arr1(floats, F_ROLL_PROB))
    tabs = AdviceTables(_arr2(ints, I_ROLL_SUBS), _arr1(ints, I_N_SUBS), _arr1(ints, I_KEEP_SIZE))
    return _unpack_rules(ints, floats), lattice, tabs  # lattice.counts: unused by the kernels
