"""Box scores: the one place that turns a variant's box fields into points.

``box_score`` scores one box for one roll; ``ScoreTables`` holds, for every
roll multiset of a variant, the normal score of each box and what a joker
roll scores, as plain arrays for the kernels.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement
from typing import NamedTuple

import numpy as np

from .variant import Box, BoxKind, Joker, Scoring, Scratch, Variant


def _best_groups(counts: dict[int, int], sizes: tuple[int, ...], distinct: bool) -> int:
    """Highest dice sum of disjoint equal-value groups of `sizes`, or -1 if none exist."""
    if not sizes:
        return 0
    size, rest = sizes[0], sizes[1:]
    best = -1
    for face, have in counts.items():
        if have >= size:
            left = dict(counts)
            if distinct:
                del left[face]  # a later group may not reuse this value
            else:
                left[face] = have - size
            sub = _best_groups(left, rest, distinct)
            if sub >= 0:
                best = max(best, size * face + sub)
    return best


def box_score(box: Box, dice, colours: tuple[tuple[int, ...], ...] = (), wild: int = 0) -> int:
    """Normal score (no joker) of `box` for the faces `dice`; 0 when the roll does not fit.
    `colours`: the faces sharing one colour (the variant's), for boxes that ask for one colour.
    `wild`: a face whose dice may each count as itself or as any number another die shows (the best reading)."""
    if box.only_as_joker:
        return 0
    dice = list(dice)
    if wild and wild in dice:
        plain = [d for d in dice if d != wild]
        readings = combinations_with_replacement(sorted({wild, *plain}), len(dice) - len(plain))
        return max(box_score(box, plain + list(reading), colours) for reading in readings)
    counts: dict[int, int] = {}
    for d in dice:
        counts[d] = counts.get(d, 0) + 1
    if box.kind == BoxKind.UPPER:
        fits, used = box.face in counts, box.face * counts.get(box.face, 0)
    elif box.kind == BoxKind.CHANCE:
        fits, used = True, sum(dice)
        if box.same_colour:  # every die one colour
            fits = any(counts.keys() <= set(group) for group in colours)
    elif box.kind == BoxKind.STRAIGHT:
        fits, used = any(set(run) <= counts.keys() for run in box.runs), 0
    elif box.kind == BoxKind.GROUPS:
        sizes = tuple(sorted(box.groups, reverse=True))
        if box.same_colour:  # the groups drawn from the dice of one colour
            used = max(
                _best_groups({f: c for f, c in counts.items() if f in group}, sizes, box.distinct) for group in colours
            )
        else:
            used = _best_groups(counts, sizes, box.distinct)
        fits = used >= 0
    else:
        raise ValueError(f"unknown box kind {box.kind!r}")
    if not fits:
        return 0
    return _points(box, dice, used)


def _points(box: Box, dice, used: int) -> int:
    """What a roll that fits `box` scores there (`used`: the sum of the dice its groups or face use)."""
    if box.scores == Scoring.FIXED:
        return box.points
    if box.scores == Scoring.SUM_ALL:
        return sum(dice)
    if box.scores == Scoring.SUM_PLUS:
        return sum(dice) + box.points
    if box.scores in (Scoring.FACE, Scoring.SUM_GROUPS):
        return used
    raise ValueError(f"unknown scoring {box.scores!r}")


class ScoreTables(NamedTuple):
    score: np.ndarray  # (R, B) int32: normal score of each roll in each box
    joker_score: np.ndarray  # (R, B) int32: what a joker roll scores in each box when the joker applies
    joker_roll: np.ndarray  # (R,) bool: the roll fits the joker box
    joker_upper: np.ndarray  # (R,) int32: upper box of the joker roll's face, -1 if none
    box_max: np.ndarray  # (B,) int32: highest normal score of each box
    first_score: np.ndarray  # (R, B) int32: score entered when the turn stops after roll 1 (servida)
    first_joker_score: np.ndarray  # (R, B) int32: the same for a joker roll


def first_roll_score(box: Box, points: int) -> int:
    """What an entry of `points` in `box` scores when the turn stops after its first roll."""
    return points + box.first_roll_points if points > 0 else points


def score_tables(variant: Variant, roll_faces: list[tuple[int, ...]]) -> ScoreTables:
    """Scores of every roll in `roll_faces` (each a tuple of dice faces)."""
    boxes = variant.boxes
    score = np.array(
        [[box_score(b, roll, variant.colours, variant.wild) for b in boxes] for roll in roll_faces], dtype=np.int32
    )
    box_max = score.max(axis=0).astype(np.int32)
    jb = variant.joker_index
    joker_roll = score[:, jb] > 0 if jb >= 0 else np.zeros(len(roll_faces), dtype=bool)
    joker_upper = np.full(len(roll_faces), -1, dtype=np.int32)
    joker_score = score.copy()
    upper_of_face = {b.face: i for i, b in enumerate(boxes) if b.kind == BoxKind.UPPER}
    for r, roll in enumerate(roll_faces):
        if not joker_roll[r]:
            continue
        face = max(set(roll), key=list(roll).count)
        joker_upper[r] = upper_of_face.get(face, -1)
        for i, b in enumerate(boxes):
            if variant.joker == Joker.BOX_MAX:
                joker_score[r, i] = box_max[i]
            elif variant.joker == Joker.FIXED:
                joker_score[r, i] = variant.joker_score
            elif variant.joker == Joker.FITS and b.joker_points:  # scored as if the roll fit the box
                joker_score[r, i] = _points(b, roll, sum(roll))
            elif b.joker_points:
                joker_score[r, i] = b.points
    servida = np.array([b.first_roll_points for b in boxes], dtype=np.int32)
    first_score = np.where(score > 0, score + servida, score).astype(np.int32)
    first_joker_score = np.where(joker_score > 0, joker_score + servida, joker_score).astype(np.int32)
    return ScoreTables(score, joker_score, joker_roll, joker_upper, box_max, first_score, first_joker_score)


@cache
def _possible_roll_tables(variant: Variant) -> ScoreTables:
    from .dice import possible_rolls

    return score_tables(variant, possible_rolls(variant.dice))


@cache
def possible_points(variant: Variant, box_index: int, jokers: bool = True) -> tuple[int, ...]:
    """Every number of points a box can hold: normal scores, joker entries (unless jokers=False),
    and 0 where it can be scratched."""
    tables = _possible_roll_tables(variant)
    values = set(tables.score[:, box_index].tolist())
    if variant.scratch != Scratch.RESTRICTED or 0 in values:  # restricted: only a box some roll misses
        values.add(0)
    if jokers and variant.joker != Joker.NONE:
        values |= set(tables.joker_score[tables.joker_roll, box_index].tolist())
    if variant.boxes[box_index].first_roll_points:
        values |= set(tables.first_score[:, box_index].tolist())
        if jokers and variant.joker != Joker.NONE:
            values |= set(tables.first_joker_score[tables.joker_roll, box_index].tolist())
    return tuple(sorted(values))
