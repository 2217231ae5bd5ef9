"""The family around Kniffel (issues 17 and 31): Kismet, Yams, Generala, Cheerio and Yacht, built from the same rules
as data; docs/RULES.md gives the sources and the readings chosen."""

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


def five_in_a_row(key, de, en, faces, points, aliases):
    """Cheerio's and Yacht's straights: exactly these five faces."""
    return straight_box(key, de, en, (faces,), FIXED, points=points, aliases=aliases)


LITTLE, BIG = (1, 2, 3, 4, 5), (2, 3, 4, 5, 6)
LITTLE_ALIASES, BIG_ALIASES = ("Small Straight", "Kleine"), ("Large Straight", "Grosse")
# three of one value and two of another, scoring the dice's sum (five equal dice are none: Cheerio's maximum is 28)
SUM_FULL_HOUSE = groups_box(
    "full_house", "Full House", "Full House", (3, 2), SUM_GROUPS, distinct=True, aliases=("FH",)
)


def bonusless_sheet(name: str, title: str, lower: tuple[Box, ...], **rules) -> Variant:
    """Five ordinary dice, the six upper boxes and `lower`, no upper bonus (Cheerio's and Yacht's sheets)."""
    return Variant(name=name, title=title, dice=(D6,) * 5, boxes=upper_boxes(6) + lower, bonuses=(), **rules)


CHEERIO_BOX = groups_box("cheerio", "Cheerio", "Cheerio", (5,), FIXED, points=50, aliases=("five of a kind",))

# Cheerio (England), the 11-combination sheet (docs/RULES.md: the sources and the choices)
CHEERIO = bonusless_sheet(
    "cheerio",
    "Cheerio (the 11-combination sheet)",
    (
        five_in_a_row("little_straight", "Kleine Straße", "Little Straight", LITTLE, 20, LITTLE_ALIASES),
        five_in_a_row("big_straight", "Große Straße", "Big Straight", BIG, 25, BIG_ALIASES),
        SUM_FULL_HOUSE,
        Box("big_hand", "Große Hand", "Big Hand", CHANCE, SUM_ALL, aliases=("Chance",)),
        CHEERIO_BOX,
    ),
)

# the traditional game: the six numbers and Cheerio, ones wild (a one counts as any number another die shows)
CHEERIO7 = bonusless_sheet(
    "cheerio7",
    "Cheerio, the traditional 7 categories, ones wild",
    (CHEERIO_BOX,),
    wild=1,
    aliases=("cheerio-traditional", "cheerio-wild"),
)
CHEERIO7_PLAIN = bonusless_sheet(
    "cheerio7-plain", "Cheerio, the traditional 7 categories, no wilds", (CHEERIO_BOX,), aliases=("cheerio-no-wilds",)
)

# Yacht, the classic sheet (docs/RULES.md): 12 categories, no bonus, no joker
YACHT = bonusless_sheet(
    "yacht",
    "Yacht (the classic 12 categories)",
    (
        SUM_FULL_HOUSE,
        groups_box("four_of_a_kind", "Viererpasch", "Four of a Kind", (4,), SUM_GROUPS, aliases=("4K",)),
        five_in_a_row("little_straight", "Kleine Straße", "Little Straight", LITTLE, 30, LITTLE_ALIASES),
        five_in_a_row("big_straight", "Große Straße", "Big Straight", BIG, 30, BIG_ALIASES),
        Box("choice", "Chance", "Choice", CHANCE, SUM_ALL, aliases=("Chance",)),
        groups_box("yacht", "Yacht", "Yacht", (5,), FIXED, points=50, aliases=("five of a kind", "Yahtzee")),
    ),
)
