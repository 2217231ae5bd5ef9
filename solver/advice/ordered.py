"""Advice for Kniffel 7, whose dice are told apart: which dice, by identity, to keep.

The turn's values come from dp/ordered.py per partial assignment of faces to dice; options
are ranked by the same rule as for identical dice (advisor.rank_options).
"""

from __future__ import annotations

import numpy as np

from ..dp import make_engine, ordered_keep_values, roll_entries
from ..i18n.texts import t
from ..rules.dice import multisets
from ..rules.variant import RuleError, Variant
from .advisor import Advisor, Option, rank_options
from .cards import Card

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven")


class OrderedAdvisor(Advisor):
    """Advice for dice told apart (Kniffel 7): which dice, by identity, to keep."""

    def __init__(self, variant: Variant, values: np.ndarray):
        self.variant = variant
        self.values = values
        self.engine = make_engine(variant, allow_slow=True)
        self.faces = variant.faces
        self._box_names = [variant.box_name(i) for i in range(len(variant.boxes))]
        self.roll_row = {m: i for i, m in enumerate(multisets(variant.n_dice, len(self.faces)))}
        self._turn_cache: dict = {}

    def _roll_row(self, dice) -> int:
        return self.roll_row[self._counts(dice)]

    def expected_final(self, card: Card) -> float:
        return card.points + self.future(card)

    def _turn(self, card: Card):
        """(final-roll values, keep values after roll 2, after roll 1), per partial assignment."""
        key = card.state
        cache = self._turn_cache  # one read: another thread (web server) may replace it meanwhile
        if key not in cache:
            cache = {key: ordered_keep_values(self.engine, self.values, *key)}
            self._turn_cache = cache
        return cache[key]

    def box_options(self, card: Card, dice, roll: int = 3) -> list[Option]:
        """Every entry the final roll allows, ranked (dice told apart: no first-roll points, see make_engine)."""
        self._check_card(card)
        v = self.variant
        mask, _, joker_scored = card.state
        rules = self.engine.rules
        r = self._roll_row(dice)
        extra = v.extra_points if joker_scored and rules.joker_roll[r] else 0
        options = []
        for b, pts in roll_entries(rules, mask, joker_scored, r):
            after = card.with_entry(b, pts, extra)
            options.append(self._box_option(b, pts, extra, self.expected_final(after)))
        return rank_options(options)

    def decision(self, card: Card, dice, roll: int, kept=None, box: int = -1, points: int = 0):
        """Advisor.decision for dice told apart: `kept` names the dice kept (die indices)."""
        if kept is not None:
            options = self.keep_options(card, dice, roll)
            matches = [o for o in options if sorted(o.keep_dice) == sorted(kept)]
        else:
            options = self.box_options(card, dice, roll)
            matches = [o for o in options if o.box == box and o.points == points]
        return (matches[0] if matches else None), options[0]

    def best_action(self, card: Card, dice, roll: int) -> Option:
        return self.advise(card, dice, roll)[1][0]

    def keep_options(self, card: Card, dice, roll: int) -> list[Option]:
        """Every choice of dice to keep after roll 1 or 2, ranked; keeping all dice = stop rolling."""
        if roll not in (1, 2):
            raise RuleError(t("keep_after_roll", roll=roll))
        self._check_card(card)
        v = self.variant
        final, after_second, after_first = self._turn(card)
        table = after_first if roll == 1 else after_second
        min_keep = v.min_keep_last_reroll if roll == 2 else 0
        n = v.n_dice
        options = []
        for kept in range(1 << n):
            chosen = tuple(d for d in range(n) if kept >> d & 1)
            if len(chosen) < min_keep:
                continue
            if len(chosen) == n:
                value = float(final[self._roll_row(dice)])
                text = "keep all (stop rolling)"
            else:
                value = float(table[self.partial_assignment(dice, chosen)])
                named = ", ".join(f"{v.die_names[d]} {dice[d]}" for d in chosen)
                text = (
                    f"keep {named}; reroll the other {NUMBER_WORDS[n - len(chosen)]}"
                    if chosen
                    else f"reroll all {NUMBER_WORDS[n]} dice"
                )
            faces = tuple(sorted(dice[d] for d in chosen))
            options.append(Option("keep", card.points + value, keep=faces, keep_dice=chosen, text=text))
        return rank_options(options)

    def partial_assignment(self, dice, chosen) -> int:
        """The row of the turn's keep values that keeps the dice `chosen` (die indices) at their faces: die d's
        digit (base 7) is its face code, 6 where it is rerolled."""
        v = self.variant
        return sum((v.dice[d].index(dice[d]) if d in chosen else 6) * 7**d for d in range(v.n_dice))
