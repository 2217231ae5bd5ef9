"""A variant's rules as the plain arrays the kernels read (the only way rules reach a kernel)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..rules.scoring import score_tables
from ..rules.variant import Joker, Scratch, Variant

JOKER_CODES = {Joker.NONE: 0, Joker.BOX_MAX: 1, Joker.FORCED: 2, Joker.FREE: 3, Joker.FIXED: 4, Joker.FITS: 5}


class Rules(NamedTuple):
    """A variant's rules as the arrays the kernels read. Every array but bonus_cum is int64 (flags 0/1), as in
    the advice kernels' packed buffers (advice_pack.py): a kernel compiles once per argument types, and one
    dtype for each field makes one version of each kernel serve the solve and the advice alike."""

    score: np.ndarray  # (R, B) normal scores
    joker_score: np.ndarray  # (R, B) scores of a joker roll when the joker applies
    joker_roll: np.ndarray  # (R,) 1 where the roll is a joker roll
    joker_upper: np.ndarray  # (R,) upper box of the joker roll's face or -1
    is_upper: np.ndarray  # (B,) 1 for an upper box
    bonus_cum: np.ndarray  # (cap + 1,) float64: bonus points earned at each upper total
    params: np.ndarray  # int64: see P_* below
    # A "move" is what an entry does to the state: fill box b, add inc to the
    # upper total, set the flag (-1: keep it). Entries with equal moves share
    # one next-state vector per turn.
    move_box: np.ndarray  # (M,) int64
    move_inc: np.ndarray  # (M,) int64
    move_flag: np.ndarray  # (M,) int64
    norm_move: np.ndarray  # (R, B) int64: move of the normal score
    joker_move: np.ndarray  # (R, B) int64: move of the joker score
    zero_move: np.ndarray  # (B,) int64: move of a scratch
    # a turn that stops after roll 1 enters these scores instead (Generala's servida; equal to score and
    # joker_score elsewhere); the moves are the same (no upper box takes first-roll points)
    first_score: np.ndarray  # (R, B)
    first_joker_score: np.ndarray  # (R, B)


PAD = 8  # columns per item are padded to a multiple of this (whole AVX vectors, see _solve_layer)
P_JOKER, P_JOKER_BOX, P_RESTRICTED, P_EXTRA, P_CAP, P_MIN_KEEP, P_FLAGS, P_FIRST_ROLL = range(8)


def rules_bonus(variant: Variant) -> np.ndarray:
    """Bonus points earned at each upper total (capped at the highest threshold)."""
    bonus_cum = np.zeros(variant.upper_cap + 1)
    for b in variant.bonuses:
        bonus_cum[b.threshold :] += b.points
    return bonus_cum


def rules_arrays(variant: Variant, roll_faces) -> Rules:
    t = score_tables(variant, roll_faces)
    cap = variant.upper_cap
    bonus_cum = rules_bonus(variant)
    params = np.array(
        [
            JOKER_CODES[variant.joker],
            variant.joker_index,
            variant.scratch == Scratch.RESTRICTED,
            variant.extra_points,
            cap,
            variant.min_keep_last_reroll,
            2 if variant.has_flag else 1,
            variant.has_first_roll_points,
        ],
        dtype=np.int64,
    )
    is_upper = np.array([b.is_upper for b in variant.boxes])
    joker_index, has_flag = variant.joker_index, variant.has_flag
    moves: dict[tuple[int, int, int], int] = {}

    def move(b: int, points: int) -> int:
        inc = min(points, cap) if is_upper[b] else 0
        joker_scored = -1
        if b == joker_index:
            joker_scored = int(points > 0 and has_flag)
        return moves.setdefault((b, inc, joker_scored), len(moves))

    n_rolls, n_boxes = t.score.shape
    norm_move = np.array([[move(b, t.score[r, b]) for b in range(n_boxes)] for r in range(n_rolls)])
    joker_move = np.array([[move(b, t.joker_score[r, b]) for b in range(n_boxes)] for r in range(n_rolls)])
    zero_move = np.array([move(b, 0) for b in range(n_boxes)])
    box, inc, joker_scored = (np.array(col, dtype=np.int64) for col in zip(*moves))
    i64 = np.int64
    return Rules(
        t.score.astype(i64),
        t.joker_score.astype(i64),
        t.joker_roll.astype(i64),
        t.joker_upper.astype(i64),
        is_upper.astype(i64),
        bonus_cum,
        params,
        box,
        inc,
        joker_scored,
        norm_move.astype(i64),
        joker_move.astype(i64),
        zero_move.astype(i64),
        t.first_score.astype(i64),
        t.first_joker_score.astype(i64),
    )
