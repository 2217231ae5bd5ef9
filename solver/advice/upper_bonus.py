"""The upper bonus written on a card (`bonus=35`): the score pad has a line for it, so players copy it along;
the rules derive it from the upper boxes, so the entry is checked against them and adds nothing to the card.
(The bonus of further Kniffels/Yahtzees is another entry: `extra=100`, `yahtzee bonus=100`; cards.py.)"""

from __future__ import annotations

from ..i18n.texts import t
from ..rules.variant import RuleError, normalize

UPPER_BONUS_NAMES = frozenset(("bonus", "upperbonus", "bonusupper", "obererbonus", "bonusoben", "oberbonus"))


def is_upper_bonus_name(name: str) -> bool:
    return normalize(name) in UPPER_BONUS_NAMES


def check_upper_bonus(card, text: str) -> None:
    """The card's text (parse_card's, its entries checked) has at most one upper bonus entry (say 'bonus=35'),
    and it is the upper bonus that the card's upper boxes earn (card: a cards.Card)."""
    entries = [e.strip() for e in text.split(",") if is_upper_bonus_name(e.partition("=")[0])]
    if not entries:
        return
    entry = entries[-1]
    points = int(entry.partition("=")[2])
    if len(entries) > 1:
        raise RuleError(t("card_upper_bonus_twice", entry=entry, first=entries[0]))
    v = card.variant
    if points == card.bonus:
        return
    if not v.bonuses:
        raise RuleError(t("card_no_upper_bonus", entry=entry, variant=v.name))
    rule = ", ".join(t("card_upper_bonus_rule", points=b.points, threshold=b.threshold) for b in v.bonuses)
    raise RuleError(t("card_upper_bonus", entry=entry, upper=card.upper_total, bonus=card.bonus, rule=rule))
