"""The preset variants, built from the rules of rules.py, and finding one by name."""

from __future__ import annotations

import dataclasses

from .variant import (
    CHANCE,
    FACE,
    FIXED,
    GROUPS,
    STRAIGHT,
    SUM_ALL,
    SUM_GROUPS,
    SUM_PLUS,
    UPPER,
    Bonus,
    Box,
    Joker,
    RuleError,
    Scratch,
    Variant,
    normalize,
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


def _kniffel_boxes(five_key: str, five_de: str, five_en: str, joker_points: bool) -> tuple[Box, ...]:
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

KNIFFEL = Variant(
    name="kniffel",
    title="Kniffel (Schmidt Spiele, basic rules)",
    dice=(D6,) * 5,
    boxes=_kniffel_boxes("kniffel", "Kniffel", "Kniffel", False),
    bonuses=UPPER_63,
    scratch=Scratch.RESTRICTED,
    joker_box="kniffel",
    extra_points=50,
    joker=Joker.BOX_MAX,
    aliases=("schmidt",),
    options=("house rule: --keep-one",),
    lang="de",
)

KNIFFEL_KEEP_ONE = dataclasses.replace(
    KNIFFEL,
    name="kniffel-keep-one",
    title="Kniffel, house rule: keep a die before the third roll",
    min_keep_last_reroll=1,
    aliases=("kniffel-house",),
    options=(),
)

KNIFFEL_MEISTER = Variant(
    name="kniffel-meister",
    title="Kniffel with the Meisterschaftsregel",
    dice=(D6,) * 5,
    boxes=_kniffel_boxes("kniffel", "Kniffel", "Kniffel", False),
    bonuses=UPPER_63,
    scratch=Scratch.FREE,
    joker_box="kniffel",
    extra_points=50,
    joker=Joker.NONE,
    aliases=("meister", "meisterschaft", "kniffel-master"),
    lang="de",
)

YAHTZEE = Variant(
    name="yahtzee",
    title="Yahtzee (Hasbro official rules, forced joker)",
    dice=(D6,) * 5,
    boxes=_kniffel_boxes("yahtzee", "Kniffel", "Yahtzee", True),
    bonuses=UPPER_63,
    scratch=Scratch.FREE,
    joker_box="yahtzee",
    extra_points=100,
    joker=Joker.FORCED,
    aliases=("hasbro",),
)

YAHTZEE_FREE_JOKER = dataclasses.replace(
    YAHTZEE,
    name="yahtzee-free-joker",
    title="Yahtzee, free-choice joker (1999 solver convention)",
    joker=Joker.FREE,
    aliases=("yahtzee-free",),
)

YATZY = Variant(
    name="yatzy",
    title="Scandinavian Yatzy",
    dice=(D6,) * 5,
    boxes=upper_boxes(6)
    + (
        groups_box("one_pair", "Ein Paar", "One Pair", (2,), SUM_GROUPS, aliases=("Paar", "Pair")),
        groups_box("two_pairs", "Zwei Paare", "Two Pairs", (2, 2), SUM_GROUPS, distinct=True),
        groups_box(
            "three_of_a_kind", "Dreierpasch", "Three of a Kind", (3,), SUM_GROUPS, aliases=("Drei Gleiche", "3K")
        ),
        groups_box("four_of_a_kind", "Viererpasch", "Four of a Kind", (4,), SUM_GROUPS, aliases=("Vier Gleiche", "4K")),
        straight_box(
            "small_straight",
            "Kleine Straße",
            "Small Straight",
            ((1, 2, 3, 4, 5),),
            FIXED,
            points=15,
            aliases=STRAIGHT_ALIASES["small"],
        ),
        straight_box(
            "large_straight",
            "Große Straße",
            "Large Straight",
            ((2, 3, 4, 5, 6),),
            FIXED,
            points=20,
            aliases=STRAIGHT_ALIASES["large"],
        ),
        groups_box("full_house", "Full House", "Full House", (3, 2), SUM_GROUPS, distinct=True, aliases=("FH",)),
        chance_box(),
        groups_box("yatzy", "Yatzy", "Yatzy", (5,), FIXED, points=50, aliases=("Kniffel", "Yahtzee")),
    ),
    bonuses=(Bonus(63, 50),),
    aliases=("scandinavian", "skandinavisch"),
)

YATZY6 = Variant(
    name="yatzy6",
    title="Yatzy with six dice",
    dice=(D6,) * 6,
    boxes=upper_boxes(6)
    + (
        groups_box("three_pairs", "Drei Paare", "Three Pairs", (2, 2, 2), FIXED, points=20),
        groups_box("two_triples", "Zwei Drillinge", "Two Triples", (3, 3), FIXED, points=30),
        groups_box("full_house", "Full House", "Full House", (4, 2), FIXED, points=40),
        straight_box(
            "straight",
            "Straße",
            "Straight",
            ((1, 2, 3, 4, 5, 6),),
            FIXED,
            points=50,
            aliases=("Große Straße", "Large Straight"),
        ),
        groups_box("yatzy", "Yatzy", "Yatzy", (6,), FIXED, points=60),
        straight_box(
            "five_straight",
            "5er-Straße",
            "Five Straight",
            runs(5, 1, 6),
            SUM_ALL,
            aliases=("Fünfer-Straße", "Kleine Straße", "Small Straight"),
        ),
        groups_box("five_yatzy", "5er-Yatzy", "Five Yatzy", (5,), SUM_ALL, aliases=("Fünfer-Yatzy",)),
        chance_box(),
    ),
    bonuses=(Bonus(84, 50),),
    aliases=("yatzy-6", "sechs-wuerfel", "six-dice"),
    lang="de",
)

KNIFFEL7_DICE = tuple(tuple(f for f in range(1, 8) if f != k) for k in range(1, 8))

KNIFFEL7 = Variant(
    name="kniffel7",
    title="Kniffel 7 (seven different dice)",
    dice=KNIFFEL7_DICE,
    boxes=upper_boxes(7)
    + (
        groups_box("four_of_a_kind", "Viererpasch", "Four of a Kind", (4,), SUM_ALL),
        groups_box("five_of_a_kind", "Fünferpasch", "Five of a Kind", (5,), SUM_ALL),
        groups_box("double_triple", "Doppel-Drilling", "Double-Triple", (3, 3), FIXED, points=25, distinct=True),
        straight_box("straight_five", "Straße 5", "Straight Five", runs(5, 1, 7), FIXED, points=30),
        straight_box("straight_six", "Straße 6", "Straight Six", runs(6, 1, 7), FIXED, points=40),
        groups_box("super_kniffel", "Super-Kniffel", "Super-Kniffel", (6,), FIXED, points=60),
        chance_box(),
    ),
    bonuses=(Bonus(63, 35), Bonus(84, 35)),
    joker_box="super_kniffel",
    joker=Joker.FIXED,
    joker_score=60,
    die_names=("blue", "green", "purple", "yellow", "red", "black", "white"),
    aliases=("kniffel-7",),
    lang="de",
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
)

PRESETS: dict[str, Variant] = {
    v.name: v
    for v in (
        KNIFFEL,
        KNIFFEL_MEISTER,
        YAHTZEE,
        YAHTZEE_FREE_JOKER,
        YATZY,
        YATZY6,
        KNIFFEL7,
        KNIFFEL_KEEP_ONE,
        KISMET,
        YAMS,
        GENERALA,
    )
}


def find_variant(name: str, keep_one: bool = False) -> Variant:
    """A preset by name or alias; `keep_one` applies the seed-001 house rule (kniffel only)."""
    from ..i18n.texts import did_you_mean, t
    from .checks import flag, text

    wanted = normalize(text("variant", name, "'kniffel'"))
    keep_one = flag("keep_one", keep_one)
    for variant in PRESETS.values():
        if wanted in {normalize(n) for n in (variant.name, *variant.aliases)}:
            break
    else:
        names = [n for v in PRESETS.values() for n in (v.name, *v.aliases)]
        suggest = did_you_mean(name, names, normalize)
        raise RuleError(t("err_unknown_variant", name=name, suggest=suggest, variants=", ".join(PRESETS)))
    if keep_one and variant.min_keep_last_reroll == 0:
        if variant is not KNIFFEL:
            raise RuleError(t("keep_one_variant", variant=variant.name))
        variant = KNIFFEL_KEEP_ONE
    return variant
