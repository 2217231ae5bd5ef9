"""The builders of boxes that the presets share (upper boxes, groups, straights, chance; the boxes of Kniffel and
Yahtzee) and the common dice and bonus."""

from __future__ import annotations

from .variant import (
    CHANCE,
    FACE,
    FIXED,
    GROUPS,
    STRAIGHT,
    SUM_ALL,
    UPPER,
    Bonus,
    Box,
)

# -- box builders ------------------------------------------------------
UPPER_DE = ("Einser", "Zweier", "Dreier", "Vierer", "Fünfer", "Sechser", "Siebener")

UPPER_EN = ("Ones", "Twos", "Threes", "Fours", "Fives", "Sixes", "Sevens")

UPPER_KEYS = ("ones", "twos", "threes", "fours", "fives", "sixes", "sevens")


def upper_boxes(n_faces: int) -> tuple[Box, ...]:
    return tuple(
        Box(
            UPPER_KEYS[v - 1],
            UPPER_DE[v - 1],
            UPPER_EN[v - 1],
            UPPER,
            FACE,
            face=v,
            aliases=(f"{v}s", f"{v}er") + (("Einer", "Aces", "Ace") if v == 1 else ()),
        )
        for v in range(1, n_faces + 1)
    )


def runs(length: int, lo: int, hi: int) -> tuple[tuple[int, ...], ...]:
    """Every run of `length` consecutive faces within lo..hi."""
    return tuple(tuple(range(s, s + length)) for s in range(lo, hi - length + 2))


def groups_box(key, de, en, sizes, scores, points=0, distinct=False, aliases=(), joker_points=False, same_colour=False):
    return Box(
        key,
        de,
        en,
        GROUPS,
        scores,
        groups=tuple(sizes),
        distinct=distinct,
        points=points,
        aliases=tuple(aliases),
        joker_points=joker_points,
        same_colour=same_colour,
    )


def straight_box(key, de, en, face_sets, scores, points=0, aliases=(), joker_points=False):
    return Box(
        key,
        de,
        en,
        STRAIGHT,
        scores,
        runs=tuple(face_sets),
        points=points,
        aliases=tuple(aliases),
        joker_points=joker_points,
    )


def chance_box(de="Chance", en="Chance"):
    return Box("chance", de, en, CHANCE, SUM_ALL)


# what players write on their score pads (Yahtzee: "Sm Straight", "LS"; Kniffel: "kleine", "KS")
STRAIGHT_ALIASES = {
    "small": ("Sm Straight", "SS", "Small", "Kleine", "KS", "sm str"),
    "large": ("Lg Straight", "LS", "Large", "Grosse", "GS", "lg str"),
}


def kniffel_boxes(five_key: str, five_de: str, five_en: str, joker_points: bool) -> tuple[Box, ...]:
    return upper_boxes(6) + (
        groups_box(
            "three_of_a_kind",
            "Dreierpasch",
            "Three of a Kind",
            (3,),
            SUM_ALL,
            aliases=("Drei Gleiche", "3er-Pasch", "3 of a kind", "3K", "3oak", "Dreier-Pasch"),
        ),
        groups_box(
            "four_of_a_kind",
            "Viererpasch",
            "Four of a Kind",
            (4,),
            SUM_ALL,
            aliases=("Vier Gleiche", "4er-Pasch", "4 of a kind", "4K", "4oak", "Vierer-Pasch"),
        ),
        groups_box(
            "full_house",
            "Full House",
            "Full House",
            (3, 2),
            FIXED,
            points=25,
            distinct=True,
            joker_points=joker_points,
            aliases=("FH",),
        ),
        straight_box(
            "small_straight",
            "Kleine Straße",
            "Small Straight",
            runs(4, 1, 6),
            FIXED,
            points=30,
            joker_points=joker_points,
            aliases=STRAIGHT_ALIASES["small"],
        ),
        straight_box(
            "large_straight",
            "Große Straße",
            "Large Straight",
            runs(5, 1, 6),
            FIXED,
            points=40,
            joker_points=joker_points,
            aliases=STRAIGHT_ALIASES["large"],
        ),
        groups_box(
            five_key, five_de, five_en, (5,), FIXED, points=50, aliases=("Kniffel", "Yahtzee", "five of a kind")
        ),
        chance_box(),
    )


D6 = (1, 2, 3, 4, 5, 6)

UPPER_63 = (Bonus(63, 35),)
