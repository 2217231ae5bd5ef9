"""The preset variants (Kniffel, Yahtzee, Yatzy, Kniffel 7; the family around Kniffel from family.py), built from the
rules of variant.py with the builders of boxes.py, and finding one by name."""

from __future__ import annotations

import dataclasses

from .boxes import (
    D6,
    STRAIGHT_ALIASES,
    UPPER_63,
    chance_box,
    groups_box,
    kniffel_boxes,
    runs,
    straight_box,
    upper_boxes,
)
from .family import CHEERIO, CHEERIO7, CHEERIO7_PLAIN, GENERALA, KISMET, YACHT, YAMS
from .variant import (
    FIXED,
    SUM_ALL,
    SUM_GROUPS,
    Bonus,
    Joker,
    RuleError,
    Scratch,
    Variant,
    normalize,
)

KNIFFEL = Variant(
    name="kniffel",
    title="Kniffel (Schmidt Spiele, basic rules)",
    dice=(D6,) * 5,
    boxes=kniffel_boxes("kniffel", "Kniffel", "Kniffel", False),
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

# Würfelpoker, the scorecard game: Kniffel under the names of the poker hands (docs/RULES.md)
WUERFELPOKER_NAMES = {
    "three_of_a_kind": "Drilling",
    "four_of_a_kind": "Vierling",
    "kniffel": "Fünfling",
}
WUERFELPOKER = dataclasses.replace(
    KNIFFEL,
    name="wuerfelpoker",
    title="Würfelpoker (Kniffel under poker names)",
    boxes=tuple(
        dataclasses.replace(b, name_de=WUERFELPOKER_NAMES[b.key], aliases=(b.name_de, *b.aliases))
        if b.key in WUERFELPOKER_NAMES
        else b
        for b in KNIFFEL.boxes
    ),
    aliases=("wuerfel-poker", "dice-poker-card"),
    options=(),
)

KNIFFEL_MEISTER = Variant(
    name="kniffel-meister",
    title="Kniffel with the Meisterschaftsregel",
    dice=(D6,) * 5,
    boxes=kniffel_boxes("kniffel", "Kniffel", "Kniffel", False),
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
    boxes=kniffel_boxes("yahtzee", "Kniffel", "Yahtzee", True),
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
        CHEERIO,
        CHEERIO7,
        CHEERIO7_PLAIN,
        YACHT,
        WUERFELPOKER,
    )
}


MAX_VARIANT_NAME = 100


def find_variant(name: str, keep_one: bool = False) -> Variant:
    """A preset by name or alias; `keep_one` applies the seed-001 house rule (kniffel only)."""
    from ..i18n.texts import did_you_mean, t
    from .checks import flag, text

    if len(text("variant", name, "'kniffel'")) > MAX_VARIANT_NAME:  # the message quotes it: not a flood of a line
        raise RuleError(t("variant_too_long", length=len(name), most=MAX_VARIANT_NAME))
    wanted = normalize(name)
    keep_one = flag("keep_one", keep_one)
    for variant in PRESETS.values():
        if wanted in {normalize(n) for n in (variant.name, *variant.aliases)}:
            break
    else:
        spellings = {n: v.name for v in PRESETS.values() for n in (v.name, *v.aliases)}  # aliases show their name
        suggest = did_you_mean(name, spellings, normalize)
        raise RuleError(t("err_unknown_variant", name=name, suggest=suggest, variants=", ".join(PRESETS)))
    return with_keep_one(variant, keep_one)


def with_keep_one(variant: Variant, keep_one: bool) -> Variant:
    """The variant under the seed-001 house rule when keep_one (kniffel only; one that has it already stays)."""
    from ..i18n.texts import t

    if keep_one and variant.min_keep_last_reroll == 0:
        if variant is not KNIFFEL:
            raise RuleError(t("keep_one_variant", variant=variant.name))
        return KNIFFEL_KEEP_ONE
    return variant
