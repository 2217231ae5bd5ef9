"""The family around Kniffel (issue 17): Kismet, Yams and Generala, built from the same rules as data; docs/RULES.md
gives the sources and the readings chosen."""

from __future__ import annotations

from .boxes import (
    D6,
    UPPER_63,
    chance_box,
    groups_box,
    runs,
    straight_box,
    upper_boxes,
)
from .variant import (
    CHANCE,
    FIXED,
    GROUPS,
    STRAIGHT,
    SUM_ALL,
    SUM_GROUPS,
    SUM_PLUS,
    Bonus,
    Box,
    Joker,
    Variant,
)

# Kismet (1964): pips coloured in pairs; docs/RULES.md gives the sources and the readings chosen.
KISMET = Variant(
    name="kismet",
    title="Kismet (coloured dice, 15 boxes)",
    dice=(D6,) * 5,
    boxes=upper_boxes(6)
    + (
        groups_box(
            "two_pair_same_colour",
            "Zwei Paare gleicher Farbe",
            "Two Pair Same Colour",
            (2, 2),
            SUM_ALL,
            same_colour=True,
            aliases=("Two Pair Same Color", "2PSC"),
        ),
        groups_box("three_of_a_kind", "Dreierpasch", "Three of a Kind", (3,), SUM_ALL, aliases=("3K",)),
        straight_box("straight", "Straße", "Straight", runs(5, 1, 6), FIXED, points=30),
        Box("flush", "Flush", "Flush", CHANCE, FIXED, points=35, same_colour=True, aliases=("Farbe",)),
        groups_box(
            "full_house", "Full House", "Full House", (3, 2), SUM_PLUS, points=15, distinct=True, joker_points=True
        ),
        groups_box(
            "full_house_same_colour",
            "Full House gleicher Farbe",
            "Full House Same Colour",
            (3, 2),
            SUM_PLUS,
            points=20,
            distinct=True,
            joker_points=True,
            same_colour=True,
            aliases=("Full House Same Color", "FHSC"),
        ),
        groups_box("four_of_a_kind", "Viererpasch", "Four of a Kind", (4,), SUM_PLUS, points=25, aliases=("4K",)),
        Box("yarborough", "Yarborough", "Yarborough", CHANCE, SUM_ALL, aliases=("Chance",)),
        groups_box("kismet", "Kismet", "Kismet", (5,), SUM_PLUS, points=50, aliases=("five of a kind",)),
    ),
    bonuses=(Bonus(63, 35), Bonus(71, 20), Bonus(78, 20)),  # 35 from 63, 55 from 71, 75 from 78
    joker_box="kismet",
    joker=Joker.FITS,  # a further Kismet may go into any lower box but the Straight
    colours=((1, 6), (2, 5), (3, 4)),
)

# Yams (Yam's), the French pad of sirtin.fr (docs/RULES.md): Yahtzee's boxes with Yatzy-like sums, no joker
YAMS = Variant(
    name="yams",
    title="Yams (French, the common printed pad)",
    dice=(D6,) * 5,
    boxes=upper_boxes(6)
    + (
        groups_box("brelan", "Dreierpasch", "Brelan", (3,), SUM_GROUPS, aliases=("Three of a Kind", "3K")),
        groups_box("carre", "Viererpasch", "Carré", (4,), SUM_GROUPS, aliases=("Carre", "Four of a Kind", "4K")),
        groups_box("full", "Full House", "Full", (3, 2), FIXED, points=25, distinct=True, aliases=("Full House",)),
        straight_box(
            "petite_suite", "Kleine Straße", "Petite Suite", ((1, 2, 3, 4, 5),), FIXED, points=30, aliases=("Small",)
        ),
        straight_box(
            "grande_suite", "Große Straße", "Grande Suite", ((2, 3, 4, 5, 6),), FIXED, points=40, aliases=("Large",)
        ),
        groups_box("yams", "Kniffel", "Yams", (5,), FIXED, points=50, aliases=("Yam's", "Yahtzee")),
        chance_box(),
    ),
    bonuses=UPPER_63,
    aliases=("yam", "yam-s"),
    lang="fr",
)

# Generala (Argentina, Spain), the common printed pad (docs/RULES.md): the servida is the first-roll points
SERVIDA = 5

GENERALA = Variant(
    name="generala",
    title="Generala (servida bonus, Doble Generala)",
    dice=(D6,) * 5,
    boxes=upper_boxes(6)
    + (
        Box(
            "escalera",
            "Straße",
            "Escalera",
            STRAIGHT,
            FIXED,
            runs=runs(5, 1, 6) + ((1, 3, 4, 5, 6),),  # 3-4-5-6-1: the ace continues the six
            points=20,
            first_roll_points=SERVIDA,
            aliases=("Straight", "Large Straight", "Escalera servida"),
        ),
        Box(
            "full",
            "Full House",
            "Full",
            GROUPS,
            FIXED,
            groups=(3, 2),
            distinct=True,
            points=30,
            first_roll_points=SERVIDA,
            aliases=("Full House", "FH"),
        ),
        Box(
            "poker",
            "Viererpasch",
            "Póker",
            GROUPS,
            FIXED,
            groups=(4,),
            points=40,
            first_roll_points=SERVIDA,
            aliases=("Poker", "Four of a Kind", "4K"),
        ),
        groups_box("generala", "Generala", "Generala", (5,), FIXED, points=50, aliases=("Kniffel", "Yahtzee")),
        Box(
            "doble_generala",
            "Doppel-Generala",
            "Doble Generala",
            GROUPS,
            FIXED,
            groups=(5,),
            points=100,
            joker_points=True,
            only_as_joker=True,  # a second Generala, while the Generala box holds 50
            aliases=("Double Generala", "Doble"),
        ),
    ),
    bonuses=(),
    joker_box="generala",
    joker=Joker.FITS,
    aliases=("escalero",),
    lang="es",
)
