"""The API's inputs: variants by name, cards and dice in any of their accepted forms, checked."""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..advice.cards import Card, Entries, check_entries, parse_card
from ..game.dice_input import dice_example, parse_dice
from ..i18n.texts import t
from ..rules import checks
from ..rules.presets import PRESETS, find_variant, with_keep_one
from ..rules.variant import RuleError, Variant

CardLike = str | Mapping[str, int] | Card | None
DiceLike = str | Sequence[int]


def variants() -> tuple[Variant, ...]:
    """Every preset variant, in the order of `kniffel variants`."""
    return tuple(PRESETS.values())


def _variant(variant: str | Variant, keep_one: bool = False) -> Variant:
    if isinstance(variant, Variant):
        return with_keep_one(variant, keep_one)
    return find_variant(variant, keep_one)


def as_card(variant: Variant, card: CardLike) -> Card:
    """A validated Card from any of the accepted forms."""
    if isinstance(card, Card):
        filled = card.filled
        extra = card.extra
        if (
            type(filled) is Entries
            and type(extra) is int
            and filled.checked == (variant, extra)
            and card.variant is variant
        ):
            return card  # checked as it is, unchanged since (extra's type too: 50.0 == 50)
        checks.variant("variant", variant)
        checks.variant("the card's variant", card.variant)  # a Card changed by hand: each part checked
        if card.variant is not variant and card.variant != variant:  # equal variants: a slow comparison
            raise RuleError(f"that card belongs to {card.variant.name}, not {variant.name}")
        if not isinstance(filled, Mapping):
            raise RuleError(f"a Card's filled boxes are a mapping of box index to points, not {checks.shown(filled)}")
        n_boxes = len(variant.boxes)
        for box, points in filled.items():
            if not checks.is_whole(box) or not 0 <= box < n_boxes:  # IntEnum too
                raise RuleError(f"Card entry key {box!r}: a box index 0-{n_boxes - 1} of {variant.name}")
            _whole_points(box, points)
        _whole_points("extra", extra)
        plain = type(extra) is int and all(type(b) is int and type(p) is int for b, p in filled.items())
        if type(filled) is not Entries or not plain:
            return parse_card(variant, card.format())  # re-validated like any other input, numbers made ints
        check_entries(card if card.variant is variant else Card(variant, filled, extra))
        filled.checked = (variant, extra)  # the card itself is valid: used as it is until it changes
        return card
    checks.variant("variant", variant)
    if card is None:
        return Card(variant)
    if isinstance(card, str):
        return parse_card(variant, card)
    if isinstance(card, Mapping):
        entries = []
        for key, points in card.items():
            if not isinstance(key, str) or any(c in key for c in ",="):
                raise RuleError(f"card key {key!r}: a box name such as 'chance', or 'extra'")
            if isinstance(points, bool) or not isinstance(points, int | np.integer):
                raise RuleError(f"card entry {key!r}: points must be a whole number, not {points!r}")
            entries.append(f"{key}={int(points)}")
        return parse_card(variant, ",".join(entries))
    raise RuleError(f"a card is a string such as 'chance=22' or a mapping such as {{'chance': 22}}, not {card!r}")


def _whole_points(entry, points) -> None:
    """A changed Card's points: format() would write '22' or None as if they were numbers."""
    if not checks.is_whole(points):
        raise RuleError(f"card entry {entry!r}: points must be a whole number, not {checks.shown(points)}")


def as_dice(variant: Variant, dice: DiceLike) -> tuple[int, ...]:
    """Validated dice (faces in die order) from a string or a sequence of faces."""
    if not isinstance(variant, Variant):  # inline: the common case costs one isinstance
        checks.variant("variant", variant)
    if isinstance(dice, str):
        return parse_dice(variant, dice)
    if type(dice) is tuple and len(dice) == len(variant.dice) and all(type(f) is int for f in dice):
        if all(map(operator.contains, variant.dice, dice)):  # the common case: a face of each die
            return dice
    one_row = not isinstance(dice, np.ndarray) or dice.ndim == 1  # a 0-d array cannot be listed
    if isinstance(dice, Sequence | np.ndarray) and not isinstance(dice, bytes | bytearray) and one_row:
        faces: list[Any] = list(dice)
        if not all(map(checks.is_whole, faces)):
            raise RuleError(f"dice {faces!r}: faces must be whole numbers")
        text = ",".join(str(int(f)) for f in faces)
        if len(faces) != variant.n_dice:  # parse_dice would read '200' as three dice
            example = dice_example(variant)
            given, count = len(faces), variant.n_dice
            raise RuleError(
                t("dice_count", text=text, given=given, count=given, variant=variant.name, total=count, example=example)
            )
        return parse_dice(variant, text)
    raise RuleError(f"dice are a string such as '33516' or a sequence such as (3, 3, 5, 1, 6), not {dice!r}")
