"""Poker hands of dice: the ranking, the tie rules and reading dice (docs/RULES.md, "Würfelpoker, the duel").

A hand's key is a tuple; a higher key is the better hand. Its first entry is the category (CATEGORIES, from
nothing 0 up to five of a kind 8), then the numbers that make the hand (the higher group first), then, under the
tie rule "kickers", the other dice from the highest down.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..errors import KniffelError
from ..i18n.texts import t
from ..rules.checks import is_whole

CATEGORIES = (
    "nothing",
    "pair",
    "two_pairs",
    "three",
    "low_straight",
    "high_straight",
    "full_house",
    "four",
    "five",
)
TIES = ("kickers", "hand")  # kickers: the other dice decide a tie of equal hands; hand: equal hands tie
LOW_STRAIGHT, HIGH_STRAIGHT = (1, 2, 3, 4, 5), (2, 3, 4, 5, 6)


class PokerError(KniffelError):
    """Bad input to the dice-poker advisor: dice, rolls, options."""


def category(dice: tuple[int, ...]) -> int:
    """The index in CATEGORIES of the hand the dice show."""
    sizes = sorted(Counter(dice).values(), reverse=True) + [0]
    if sizes[0] >= 5:
        return 8
    if sizes[0] == 4:
        return 7
    if sizes[0] == 3:
        return 6 if sizes[1] == 2 else 3
    if sizes[0] == 2:
        return 2 if sizes[1] == 2 else 1
    ordered = tuple(sorted(dice))
    return 5 if ordered == HIGH_STRAIGHT else 4 if ordered == LOW_STRAIGHT else 0


def hand_key(dice, ties: str = "kickers") -> tuple[int, ...]:
    """The key that orders hands (higher is better); equal keys tie."""
    dice = tuple(dice)
    cat = category(dice)
    if cat in (4, 5):  # a straight's numbers are fixed: equal straights tie
        return (cat,)
    counts = Counter(dice)
    # the groups of the hand: larger groups first, then higher numbers (full house: the three, then the two)
    groups = sorted(counts.items(), key=lambda fc: (fc[1], fc[0]), reverse=True)
    made = [f for f, c in groups if c >= 2]
    kickers = sorted((f for f, c in groups if c == 1), reverse=True)
    if ties == "hand":
        return (cat, *made)
    return (cat, *made, *kickers)


def outcome(mine, theirs, ties: str = "kickers") -> float:
    """1 for a win of `mine`, 0.5 for a tie, 0 for a loss."""
    a, b = hand_key(mine, ties), hand_key(theirs, ties)
    return 1.0 if a > b else 0.5 if a == b else 0.0


def read_dice(text, what: str, n_dice: int = 5) -> tuple[int, ...]:
    """Dice as '66655', '6 6 6 5 5', '6,6,6,5,5' or a list of numbers; sorted."""
    if isinstance(text, str):
        faces = [c for c in text if c not in " ,"]
        values = [int(c) if c.isascii() and c.isdigit() else -1 for c in faces]
    elif isinstance(text, list | tuple | np.ndarray) and np.ndim(text) == 1:
        values = [int(v) if is_whole(v) else -1 for v in text]  # numpy's integers too, never floats or bools
    else:
        values = []
    if len(values) != n_dice or any(not 1 <= v <= 6 for v in values):
        raise PokerError(t("poker_bad_dice", what=what, dice=str(text)[:40], count=n_dice))
    return tuple(sorted(values))
