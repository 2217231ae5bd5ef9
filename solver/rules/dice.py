"""Dice outcomes and the keep lattice for identical dice.

Rolls and keeps are multisets of faces, stored as count vectors. All keeps of
0 … n dice are indexed together, ordered by size; the keeps of n dice are the
rolls. Two index tables turn the per-turn work into cheap passes:

* ``add[k, f]``: keep k plus one die showing face f (the mean over one more
  die gives the expected value of a keep from the keeps one die larger);
* ``sub[k, f]``: keep k minus one die showing f, or -1 (the best keep inside
  a roll is a max over this lattice, one die removed at a time).
"""

from __future__ import annotations

from itertools import combinations_with_replacement
from math import factorial
from typing import NamedTuple

import numpy as np

MAX_SEED = 2**32 - 1  # random dice are seeded from 32 bits: larger seeds are refused, not cut
MIN_GAMES = 2  # games of one simulation (simulate -n, solver.simulate): the spread (± stderr, std) needs two
MAX_GAMES = 100_000_000


class KeepLattice(NamedTuple):
    counts: np.ndarray  # (K, F) int8: how many dice show each face
    size_start: np.ndarray  # (n + 2,) int64: keeps of size s are size_start[s]:size_start[s+1]
    add: np.ndarray  # (K, F) int64, -1 for keeps of n dice
    sub: np.ndarray  # (K, F) int64, -1 where the face is absent
    roll_prob: np.ndarray  # (R,) float64: chance of each roll of all n dice


def multisets(n: int, n_faces: int) -> list[tuple[int, ...]]:
    """Count vectors of every multiset of n dice over n_faces faces, in a fixed order."""
    out = []
    for combo in combinations_with_replacement(range(n_faces), n):
        counts = [0] * n_faces
        for f in combo:
            counts[f] += 1
        out.append(tuple(counts))
    return out


def multinomial_prob(counts) -> float:
    """Chance that fair dice (len(counts) faces each) show exactly these counts."""
    n = sum(counts)
    ways = factorial(n)
    for c in counts:
        ways //= factorial(c)
    return ways / len(counts) ** n


def keep_lattice(n: int, n_faces: int) -> KeepLattice:
    keeps = [m for size in range(n + 1) for m in multisets(size, n_faces)]
    index = {m: i for i, m in enumerate(keeps)}
    size_start = np.zeros(n + 2, dtype=np.int64)
    for size in range(n + 1):
        size_start[size + 1] = size_start[size] + len(multisets(size, n_faces))
    # int64 like every index array the kernels read: one compiled version of each kernel (see dp/rules.py)
    add = np.full((len(keeps), n_faces), -1, dtype=np.int64)
    sub = np.full((len(keeps), n_faces), -1, dtype=np.int64)
    for i, m in enumerate(keeps):
        for f in range(n_faces):
            bigger = list(m)
            bigger[f] += 1
            add[i, f] = index.get(tuple(bigger), -1)
            if m[f]:
                smaller = list(m)
                smaller[f] -= 1
                sub[i, f] = index[tuple(smaller)]
    rolls = keeps[size_start[n] :]
    return KeepLattice(
        counts=np.array(keeps, dtype=np.int8),
        size_start=size_start,
        add=add,
        sub=sub,
        roll_prob=np.array([multinomial_prob(m) for m in rolls]),
    )


def possible_rolls(dice: tuple[tuple[int, ...], ...]) -> list[tuple[int, ...]]:
    """Every roll the dice can show, as sorted face tuples (order of the dice forgotten)."""
    if all(die == dice[0] for die in dice):
        faces = dice[0]
        return [tuple(f for f, c in zip(faces, m) for _ in range(c)) for m in multisets(len(dice), len(faces))]
    seen: set[tuple[int, ...]] = {()}
    for die in dice:  # one die at a time: the sorted rolls, not all ordered ones
        seen = {tuple(sorted(roll + (f,))) for roll in seen for f in die}
    return sorted(seen)
