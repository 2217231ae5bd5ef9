"""The upper bonus written on a card (`bonus=35`): the score pad has a line for it, so players copy it along;
the rules derive it from the upper boxes, so the entry is checked against them and adds nothing to the card.
(The bonus of further Kniffels/Yahtzees is another entry: `extra=100`, `yahtzee bonus=100`; cards.py.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n.texts import t
from ..rules.variant import RuleError, normalize

if TYPE_CHECKING:
    from .cards import Card

UPPER_BONUS_NAMES = frozenset(("bonus", "upperbonus", "bonusupper", "obererbonus", "bonusoben", "oberbonus"))


def is_upper_bonus_name(name: str) -> bool:
    return normalize(name) in UPPER_BONUS_NAMES


def upper_bonus_entry(seen: tuple[str, int] | None, entry: str, points: int) -> tuple[str, int]:
    """The card's one upper bonus entry (a second one is refused)."""
    if seen is not None:
        raise RuleError(t("card_upper_bonus_twice", entry=entry, first=seen[0]))
    return entry, points


def check_upper_bonus(card: Card, entry: str, points: int) -> None:
    """`entry` (say 'bonus=35') must be the upper bonus that the card's upper boxes earn."""
    v = card.variant
    if points == card.bonus:
        return
    if not v.bonuses:
        raise RuleError(t("card_no_upper_bonus", entry=entry, variant=v.name))
    rule = ", ".join(t("card_upper_bonus_rule", points=b.points, threshold=b.threshold) for b in v.bonuses)
    raise RuleError(t("card_upper_bonus", entry=entry, upper=card.upper_total, bonus=card.bonus, rule=rule))
