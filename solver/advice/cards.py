"""Scorecards: the card syntax shared by every command, validated against a variant's rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, Self

from ..i18n.texts import bonus_name, box_name, t
from ..rules.scoring import possible_points
from ..rules.variant import RuleError, Variant, normalize, per_variant
from .card_checks import boxes_a_joker_could_fill, check_extra, check_whole_card
from .upper_bonus import check_upper_bonus, is_upper_bonus_name


def box_values(variant: Variant, box_index: int) -> tuple[int, ...]:
    return possible_points(variant, box_index)


class Entries(dict):
    """A card's entries, box index -> points. Every change drops what was worked out from them (`summary`:
    Card.summary's; `checked`: the variant and extra points a whole check passed with, api.as_card's), so that a
    card asked about again is not read again and a changed card is."""

    summary: tuple | None = None  # (variant, mask, capped upper total, joker flag, points but the extras)
    checked: tuple | None = None  # (variant, extra)

    def __setitem__(self, box, points):
        self.summary = self.checked = None
        super().__setitem__(box, points)

    def __delitem__(self, box):
        self.summary = self.checked = None
        super().__delitem__(box)

    def __ior__(self, other: Any) -> Self:  # type: ignore[misc]  # typeshed ties it to dict.__or__
        self.summary = self.checked = None
        return super().__ior__(other)

    def clear(self):
        self.summary = self.checked = None
        super().clear()

    def pop(self, *args):
        self.summary = self.checked = None
        return super().pop(*args)

    def popitem(self):
        self.summary = self.checked = None
        return super().popitem()

    def setdefault(self, box, points=None):
        self.summary = self.checked = None
        return super().setdefault(box, points)

    def update(self, *args, **kwargs):
        self.summary = self.checked = None
        super().update(*args, **kwargs)


@dataclass
class Card:
    """Points entered so far: box index -> points, plus extra points from further jokers."""

    variant: Variant
    filled: dict[int, int] = field(default_factory=Entries)
    extra: int = 0

    def __post_init__(self):
        if type(self.filled) is not Entries:  # the card's own copy, which knows when it changes
            self.filled = Entries(self.filled)

    @property
    def mask(self) -> int:
        return sum(1 << b for b in self.filled)

    @property
    def upper_total(self) -> int:
        return sum(p for b, p in self.filled.items() if self.variant.boxes[b].is_upper)

    @property
    def upper_free(self) -> int:
        """Upper boxes still free (none: the upper bonus can grow no more)."""
        return sum(box.is_upper for b, box in enumerate(self.variant.boxes) if b not in self.filled)

    @property
    def joker_scored(self) -> int:
        jb = self.variant.joker_index
        return int(self.variant.has_flag and self.filled.get(jb, 0) > 0)

    def summary(self) -> tuple[int, int, int, int]:
        """(mask, capped upper total, joker flag, points on the card): the table index of this card and its
        points, in one pass over the entries, kept with them until they change (the advice asks every roll)."""
        filled = self.filled
        kept = filled.summary if type(filled) is Entries else None
        if kept is None or kept[0] is not self.variant:
            kept = _summary(self.variant, filled)
            if type(filled) is Entries:
                filled.summary = kept
        return kept[1], kept[2], kept[3], kept[4] + self.extra

    @property
    def state(self) -> tuple[int, int, int]:
        """(mask, capped upper total, flag): the table index of this card."""
        mask, capped_upper, joker_scored, _ = self.summary()
        return mask, capped_upper, joker_scored

    @property
    def bonus(self) -> int:
        return sum(b.points for b in self.variant.bonuses if self.upper_total >= b.threshold)

    @property
    def points(self) -> int:
        """Points on the card: boxes, bonuses earned, extra points."""
        return self.summary()[3]

    @property
    def full(self) -> bool:
        return len(self.filled) == len(self.variant.boxes)

    def with_entry(self, box: int, points: int, extra: int = 0) -> Card:
        return Card(self.variant, Entries({**self.filled, box: points}), self.extra + extra)

    def format(self) -> str:
        """The card in card syntax (round-trips through parse_card)."""
        parts = [f"{self.variant.boxes[b].key}={p}" for b, p in sorted(self.filled.items())]
        if self.extra:
            parts.append(f"extra={self.extra}")
        return ",".join(parts)


@per_variant
def _card_reading(variant: Variant) -> tuple[list[int], list[bool], tuple[tuple[int, int], ...], int, int]:
    """What _summary reads a card with: each box's bit, whether it is an upper box, the bonuses (threshold,
    points), the upper cap, and the joker box whose points set the flag (-1: no flag)."""
    return (
        [1 << b for b in range(len(variant.boxes))],
        [box.is_upper for box in variant.boxes],
        tuple((bonus.threshold, bonus.points) for bonus in variant.bonuses),
        variant.upper_cap,
        variant.joker_index if variant.has_flag else -1,
    )


def _summary(variant: Variant, filled: dict[int, int]) -> tuple:
    """Entries.summary of these entries: one loop, as this is on the advice's path for every new card."""
    bits, is_upper, bonuses, cap, joker_box = _card_reading(variant)
    mask = upper = 0
    for b, points in filled.items():
        mask |= bits[b]
        if is_upper[b]:
            upper += points
    total = sum(filled.values())
    for threshold, points in bonuses:
        if upper >= threshold:
            total += points
    joker_scored = int(joker_box >= 0 and filled.get(joker_box, 0) > 0)
    return variant, mask, min(upper, cap), joker_scored, total


MAX_CARD_TEXT = 1000  # characters of a card as typed (every box by its longest name: about 400)


def parse_card(variant: Variant, text: str | None) -> Card:
    """Parse 'box=points,...,extra=N'; every entry is checked against the rules."""
    if text is None or not text.strip():
        return Card(variant)
    if len(text) > MAX_CARD_TEXT:  # a message quotes its entries: not a flood of a line
        raise RuleError(t("card_too_long", length=len(text), most=MAX_CARD_TEXT))
    canonical = _canonical_entries(variant)
    known = list(map(canonical.get, text.split(",")))
    if None not in known:  # every entry as format() writes it: the common case, looked up whole
        entries = Entries(known)
        if len(entries) == len(known):  # else a box twice: the loop below says which
            card = Card(variant, entries)
            check_whole_card(card)
            return card
    filled: dict[int, int] = {}  # a plain dict while parsing; the Card takes it whole
    extra = 0
    extra_seen = False
    for raw in text.split(","):
        entry = raw.strip()
        if not entry:
            continue
        known = canonical.get(entry)
        if known is not None and known[0] not in filled:  # 'chance=22' as format() writes it
            filled[known[0]] = known[1]
            continue
        name, sep, value = entry.partition("=")
        if not sep:
            raise RuleError(t("card_entry_form", entry=entry))
        digits = value.strip()
        try:  # ASCII digits, as the dice take: int() alone reads '2_2' as 22, and other scripts' digits
            if not (digits.isascii() and digits.lstrip("+-").isdigit()):
                raise ValueError
            points = int(digits)
        except ValueError:
            raise RuleError(t("card_points_int", entry=entry)) from None
        if is_upper_bonus_name(name):  # the pad's bonus line: checked once the card is whole
            continue
        if is_extra_name(variant, name):
            if extra_seen:
                raise RuleError(t("card_extra_twice", entry=entry))
            extra_seen = True
            extra = points
            continue
        b = variant.find_box(name)
        if b in filled:
            raise RuleError(t("card_box_twice", entry=entry, box=box_name(variant, b)))
        allowed = box_values(variant, b)
        if points not in allowed:
            raise RuleError(
                t(
                    "card_points_allowed",
                    entry=entry,
                    box=box_name(variant, b),
                    points=points,
                    variant=variant.name,
                    allowed=_ranges(allowed),
                )
            )
        filled[b] = points
    card = Card(variant, filled, extra)
    check_upper_bonus(card, text)
    check_extra(card)
    check_whole_card(card)
    return card


def check_entries(card: Card) -> None:
    """parse_card's checks on a Card's own entries (box indexes in range, plain ints): RuleError, with
    parse_card's message, unless each box holds points it can hold and the card passes the whole-card checks."""
    allowed = _allowed_points(card.variant)
    if not all(p in allowed[b] for b, p in card.filled.items()):
        parse_card(card.variant, card.format())  # raises, naming the entry
    check_extra(card)
    check_whole_card(card)


@per_variant
def _allowed_points(variant: Variant) -> tuple[frozenset[int], ...]:
    return tuple(frozenset(box_values(variant, b)) for b in range(len(variant.boxes)))


@per_variant
def _canonical_entries(variant: Variant) -> dict[str, tuple[int, int]]:
    """'key=points' (as Card.format writes an entry) -> (box, points), for every points the box can hold:
    the common case of parse_card without looking names up (the checks below give the same answer)."""
    return {
        f"{box.key}={points}": (b, points)
        for b, box in enumerate(variant.boxes)
        if not is_extra_name(variant, box.key) and variant.find_box(box.key) == b
        for points in box_values(variant, b)
    }


EXTRA_NAMES = ("extra", "extras", "bonusextra", "zusatz", "zusatzpunkte", "extrapunkte", "joker")  # not "bonus"


def is_extra_name(variant: Variant, name: str) -> bool:
    """'extra', or the joker box's bonus by name: 'Yahtzee bonus', 'Yahtzee-Bonus', 'Kniffel-Bonus'."""
    return normalize(name) in _extra_spellings(variant)


@cache
def _extra_spellings(variant: Variant) -> frozenset[str]:
    spellings = set(EXTRA_NAMES)
    if variant.joker_box is not None:
        box = variant.boxes[variant.joker_index]
        for n in {normalize(n) for n in (box.key, box.name_de, box.name_en)}:
            spellings.update((n + "bonus", "bonus" + n, n + "bonuses", n + "extra"))
    return frozenset(spellings)


def _ranges(values) -> str:
    values = list(values)
    if len(values) > 12:
        return f"{', '.join(map(str, values[:10]))}, ..., {values[-1]}"
    return ", ".join(map(str, values))


def without_pending_bonus(card: Card) -> Card:
    """The card as the rules count it while its latest bonus still waits for its box.

    When a card shows one bonus more than the boxes a further joker could have filled, that bonus was
    written for the roll being asked about, before its box was chosen. The rules pay it when that box is
    filled (the advice adds it then), so counting it on the card too would pay it twice."""
    v = card.variant
    if not card.extra or not v.extra_points or card.full:
        return card
    if card.extra // v.extra_points <= len(boxes_a_joker_could_fill(card)):
        return card
    return Card(v, dict(card.filled), card.extra - v.extra_points)


def at_turn_start(card: Card) -> Card:
    """The card, refused when its latest bonus still waits for its box: at the start of a turn every bonus has
    its box, so such a card is one of a turn being played (advise counts it so), with no value of its own
    (value added the bonus to the points of a card whose box was still to fill: neither answer's)."""
    counted = without_pending_bonus(card)
    if counted is not card:
        v = card.variant
        raise RuleError(t("card_bonus_waits", bonus=bonus_name(v), points=card.extra - counted.extra))
    return card
