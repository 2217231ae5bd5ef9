"""The checks of a whole card (entries each possible but not together) and of its extra points, and the rules'
arrays over every roll that they and the game files read."""

from __future__ import annotations

from functools import cache
from typing import Protocol

from ..i18n.texts import bonus_name, box_name, t
from ..rules.scoring import box_score
from ..rules.variant import Joker, RuleError, Scratch, Variant


class Card(Protocol):
    """What these checks read of a cards.Card (which imports them: a Protocol, not an import circle)."""

    variant: Variant
    filled: dict[int, int]
    extra: int

    @property
    def full(self) -> bool: ...

    @property
    def joker_scored(self) -> int: ...


@cache
def entry_rules(variant: Variant):
    """The rules' arrays over every roll the dice can show (order forgotten), and each roll's row."""
    from ..dp import rules_arrays
    from ..rules.dice import possible_rolls

    rolls = possible_rolls(variant.dice)
    return rules_arrays(variant, rolls), {roll: r for r, roll in enumerate(rolls)}


def check_whole_card(card: Card) -> None:
    """Entries that are each possible but not together (README, "Cards"):

    * restricted scratching: a 0 needs a final roll that fits no free box; a box that every roll
      fits (Chance) therefore had to be filled before any 0;
    * extra points: each further joker filled one box (not the joker box) with an entry such a roll
      allows; there must be at least as many boxes holding such entries as jokers paid, but one: the
      latest bonus may still wait for its box (PENDING_BONUSES).
    * a box scoring only a further joker (Doble Generala) holds points only while the joker box does.
    These are necessary conditions, not sufficient ones; a card that passes them but can still not
    occur is refused by the table (its value is NaN)."""
    v = card.variant
    for b, points in card.filled.items():
        if points and v.boxes[b].only_as_joker and not card.joker_scored:  # the table cannot tell
            raise RuleError(
                t("card_only_as_joker", box=box_name(v, b), points=points, joker=box_name(v, v.joker_index))
            )
    if v.scratch == Scratch.RESTRICTED and 0 in card.filled.values():
        always = [b for b in _always_fitting(v) if b not in card.filled]
        if always:
            zero = box_name(v, next(b for b, p in sorted(card.filled.items()) if p == 0))
            raise RuleError(t("card_zero_restricted", zero=zero, variant=v.name, box=box_name(v, always[0])))
    if card.extra and v.extra_points:
        jokers = card.extra // v.extra_points
        able = boxes_a_joker_could_fill(card)
        pending = 0 if card.full else PENDING_BONUSES
        if jokers > len(able) + pending:
            raise RuleError(
                t(
                    "card_extra_able",
                    extra=card.extra,
                    jokers=jokers,
                    box=box_name(v, v.joker_index),
                    able=len(able),
                    most=len(able) + pending,
                    bonus=bonus_name(v),
                )
            )


# The score pad marks a bonus as soon as the further Kniffel/Yahtzee is rolled, before its box is chosen
# (issue 16: `yahtzee=50,extra=100` is one bonus Yahtzee): one bonus may be on a card without its box.
PENDING_BONUSES = 1


def boxes_a_joker_could_fill(card: Card) -> list[int]:
    v = card.variant
    targets = _joker_entries(v)
    return [b for b, p in card.filled.items() if b != v.joker_index and p in targets[b]]


@cache
def _always_fitting(variant: Variant) -> tuple[int, ...]:
    """Boxes that score more than 0 with every roll of the dice."""
    rules, _ = entry_rules(variant)
    return tuple(b for b in range(len(variant.boxes)) if rules.score[:, b].min() > 0)


@cache
def _joker_entries(variant: Variant) -> dict[int, frozenset[int]]:
    """For each box, the points a further joker roll can put there (with the box free and every other
    box filled, or with the roll's own upper box free too), and 0 where scratching is free (unless a
    forced joker names the box)."""
    from ..dp import roll_entries

    rules, _ = entry_rules(variant)
    n = len(variant.boxes)
    full = (1 << n) - 1
    scratch_any = variant.scratch == Scratch.FREE and variant.joker != Joker.FORCED  # forced: the rules pick the box
    out: dict[int, set[int]] = {b: ({0} if scratch_any else set()) for b in range(n)}
    for r in range(rules.score.shape[0]):
        if not rules.joker_roll[r]:
            continue
        upper = int(rules.joker_upper[r])
        for b in range(n):
            for mask in {full & ~(1 << b), full & ~(1 << b) & ~(1 << upper) if upper >= 0 else full & ~(1 << b)}:
                for box, points in roll_entries(rules, mask, 1, r):
                    if box == b:
                        out[b].add(points)
    return {b: frozenset(p) for b, p in out.items()}


def check_extra(card: Card) -> None:
    v = card.variant
    if card.extra == 0:
        return
    if v.extra_points == 0:
        raise RuleError(t("card_no_extra", extra=card.extra, variant=v.name))
    if card.extra < 0 or card.extra % v.extra_points:
        raise RuleError(t("card_extra_steps", extra=card.extra, step=v.extra_points, bonus=bonus_name(v)))
    if card.filled.get(v.joker_index, 0) == 0:
        raise RuleError(t("card_extra_needs_box", extra=card.extra, box=box_name(v, v.joker_index)))
    jokers = card.extra // v.extra_points
    if jokers > len(card.filled) - 1 + PENDING_BONUSES:
        raise RuleError(
            t(
                "card_extra_count",
                extra=card.extra,
                jokers=jokers,
                bonus=bonus_name(v),
                each=v.extra_points,
                box=box_name(v, v.joker_index),
                example=_joker_example(v),
            )
        )


def check_bonus_roll(given: Card, counted: Card, dice) -> None:
    """A bonus written before its box (the card as given shows it, the card as counted, without_pending_bonus's,
    does not) was written for the roll asked about: those dice fit the joker box, or card and dice contradict
    each other (its points would vanish in silence)."""
    v = given.variant
    if given.extra == counted.extra or box_score(v.boxes[v.joker_index], dice, v.colours, v.wild) > 0:
        return
    raise RuleError(
        t(
            "pending_bonus_dice",
            bonus=bonus_name(v),
            points=given.extra - counted.extra,
            dice=" ".join(map(str, dice)),
            box=box_name(v, v.joker_index),
        )
    )


def _joker_example(v: Variant) -> str:
    """A card entry a further joker roll could have made: the sixes box at its joker points."""
    targets = _joker_entries(v)
    for b in reversed(range(len(v.boxes))):
        if v.boxes[b].is_upper and b != v.joker_index and max(targets[b], default=0) > 0:
            return f"{box_name(v, b).lower()}={max(targets[b])}"
    return "chance=30"
