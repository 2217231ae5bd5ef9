"""Scorecards: the card syntax shared by every command, validated against a variant's rules."""

from __future__ import annotations

from dataclasses import dataclass, field

from .rules import RuleError, Variant
from .scoring import possible_points


def box_values(variant: Variant, box_index: int) -> tuple[int, ...]:
    return possible_points(variant, box_index)


@dataclass
class Card:
    """Points entered so far: box index -> points, plus extra points from further jokers."""

    variant: Variant
    filled: dict[int, int] = field(default_factory=dict)
    extra: int = 0

    @property
    def mask(self) -> int:
        return sum(1 << b for b in self.filled)

    @property
    def upper_total(self) -> int:
        return sum(p for b, p in self.filled.items() if self.variant.boxes[b].is_upper)

    @property
    def flag(self) -> int:
        jb = self.variant.joker_index
        return int(self.variant.has_flag and self.filled.get(jb, 0) > 0)

    @property
    def state(self) -> tuple[int, int, int]:
        """(mask, capped upper total, flag): the table index of this card."""
        return self.mask, min(self.upper_total, self.variant.upper_cap), self.flag

    @property
    def bonus(self) -> int:
        return sum(b.points for b in self.variant.bonuses if self.upper_total >= b.threshold)

    @property
    def points(self) -> int:
        """Points on the card: boxes, bonuses earned, extra points."""
        return sum(self.filled.values()) + self.bonus + self.extra

    @property
    def full(self) -> bool:
        return len(self.filled) == len(self.variant.boxes)

    def with_entry(self, box: int, points: int, extra: int = 0) -> Card:
        return Card(self.variant, {**self.filled, box: points}, self.extra + extra)

    def format(self) -> str:
        """The card in card syntax (round-trips through parse_card)."""
        parts = [f"{self.variant.boxes[b].key}={p}" for b, p in sorted(self.filled.items())]
        if self.extra:
            parts.append(f"extra={self.extra}")
        return ",".join(parts)


def parse_card(variant: Variant, text: str | None) -> Card:
    """Parse 'box=points,...,extra=N'; every entry is checked against the rules."""
    card = Card(variant)
    if text is None or not text.strip():
        return card
    extra_seen = False
    for raw in text.split(","):
        entry = raw.strip()
        if not entry:
            continue
        name, sep, value = entry.partition("=")
        if not sep:
            raise RuleError(f"card entry {entry!r} is not of the form box=points")
        try:
            points = int(value.strip())
        except ValueError:
            raise RuleError(f"card entry {entry!r}: points must be a whole number") from None
        if name.strip().lower() in ("extra", "extras", "bonus-extra", "zusatz", "zusatzpunkte"):
            if extra_seen:
                raise RuleError("card entry 'extra' appears twice")
            extra_seen = True
            card.extra = points
            continue
        b = variant.find_box(name)
        if b in card.filled:
            raise RuleError(f"card entry {entry!r}: box {variant.box_name(b)} appears twice")
        allowed = box_values(variant, b)
        if points not in allowed:
            raise RuleError(
                f"card entry {entry!r}: {variant.box_name(b)} cannot hold {points} in {variant.name}; "
                f"allowed: {_ranges(allowed)}"
            )
        card.filled[b] = points
    _check_extra(card)
    return card


def _check_extra(card: Card) -> None:
    v = card.variant
    if card.extra == 0:
        return
    if v.extra_points == 0:
        raise RuleError(f"extra={card.extra}: {v.name} pays no extra points")
    if card.extra < 0 or card.extra % v.extra_points:
        raise RuleError(f"extra={card.extra}: extra points come in steps of {v.extra_points}")
    if card.filled.get(v.joker_index, 0) == 0:
        box = v.box_name(v.joker_index)
        raise RuleError(f"extra={card.extra}: extra points need {box} filled with points first")
    if card.extra // v.extra_points > len(card.filled) - 1:
        raise RuleError(f"extra={card.extra}: more further jokers than boxes filled after {v.joker_box}")


def _ranges(values) -> str:
    values = list(values)
    if len(values) > 12:
        return f"{', '.join(map(str, values[:10]))}, ..., {values[-1]}"
    return ", ".join(map(str, values))
