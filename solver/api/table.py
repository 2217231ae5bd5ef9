"""A variant's solved table (`load`, `Table`) and the advice it gives (`Advice`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..advice.advisor import Advisor, Option
from ..advice.card_checks import check_bonus_roll
from ..advice.cards import Card, at_turn_start, without_pending_bonus
from ..advice.choose import make_advisor
from ..i18n.texts import t
from ..rules import checks
from ..rules.variant import RuleError, Variant
from ..store import solving, tables
from ..store.bounded_cache import BoundedCache
from . import target_play
from .inputs import CardLike, DiceLike, _variant, as_card, as_dice

TOP_OPTIONS = 10  # options an as_dict() lists unless asked for all


@dataclass(frozen=True)
class Advice:
    """Advice for one point of a turn: ranked options, the best first.

    `action` is "keep" after roll 1 or 2 and "box" after roll 3 (or when stopping now was asked);
    `then` is the box to fill when the best keep is "keep all" (stop rolling)."""

    variant: Variant
    card: Card
    dice: tuple[int, ...]
    roll: int
    action: str
    expected_final_score: float  # of the card at the start of this turn
    options: tuple[Option, ...]
    then: Option | None = None

    @property
    def best(self) -> Option:
        return self.options[0]

    def as_dict(self, all_options: bool = False) -> dict[str, Any]:
        """The object `kniffel advise --json` prints (top 10 options unless all_options)."""
        shown = self.options if checks.flag("all_options", all_options) else self.options[:TOP_OPTIONS]
        v = self.variant
        return {
            "variant": v.name,
            "card": self.card.format(),
            "dice": list(self.dice),
            "roll": self.roll,
            "action": self.action,
            "expected_final_score": self.expected_final_score,
            "best": self.best.as_dict(v),
            "then": self.then.as_dict(v) if self.then else None,
            "options": [o.as_dict(v) for o in shown],
            "options_total": len(self.options),
        }


def _remember(parsed: dict, text: str, value) -> None:
    if len(parsed) >= 8192:  # a bound for a long-running server
        parsed.clear()
    parsed[text] = value


KEEP_STDS_BYTES = 16 * 2**20  # Table's memo of each card state's keep stds: 7 KB a state for Kniffel, ~2,000 states


@dataclass(frozen=True, eq=False)  # compared by identity: the values arrays have no truth value
class Table:
    """A variant's solved table: the expected points still to come from every state."""

    variant: Variant
    values: np.ndarray = field(repr=False)
    meta: dict = field(repr=False)
    advisor: Advisor = field(repr=False, compare=False)
    directory: Path | None = field(default=None, repr=False, compare=False)  # caches beside the table
    _second_moments: list = field(default_factory=list, init=False, repr=False, compare=False)  # loaded once
    _keep_stds: BoundedCache = field(  # spread.option_stds' memo of spread.keep_stds by card state
        default_factory=lambda: BoundedCache(KEEP_STDS_BYTES), init=False, repr=False, compare=False
    )
    # best_action's parsed cards and rolls by their texts (never handed out: Advice has its own Card)
    _parsed: tuple[dict, dict] = field(default_factory=lambda: ({}, {}), init=False, repr=False, compare=False)
    # target_play's: the target table once loaded or built, Kniffel 7's job folder once opened
    _target_tables: list = field(default_factory=list, init=False, repr=False, compare=False)
    _target_jobs: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __repr__(self) -> str:
        return f"Table({self.variant.name!r}, start_value={self.start_value:.7f})"

    @property
    def start_value(self) -> float:
        """The optimal expected final score of a whole game."""
        return float(self.values[0, 0, 0])

    def card(self, card: CardLike = None) -> Card:
        """The card checked, at the start of a turn (value, distribution, chances, ...)."""
        return at_turn_start(as_card(self.variant, card))

    def future(self, card: CardLike = None) -> float:
        """Expected points still to come from this card at the start of a turn."""
        return self.advisor.future(self.card(card))

    def value(self, card: CardLike = None) -> float:
        """Expected final score of this card at the start of a turn, under optimal play."""
        parsed = self.card(card)
        return parsed.points + self.advisor.future(parsed)

    def state_value(self, mask: int, upper: int, joker: bool | int = False) -> float:
        """Expected points still to come from state (filled-box bitmask in RULES.md box order, upper
        total, whether the joker box holds points); KniffelError for a state the rules never reach."""
        from ..advice.batch import upper_reachable

        v = self.variant
        n_masks, n_upper, n_joker = self.values.shape
        mask = checks.whole("mask", mask, 0, n_masks - 1)
        upper, joker = checks.whole("upper", upper, 0), checks.flag("joker", joker)
        if joker and n_joker == 1:
            raise RuleError(f"joker = 1: 0 ({v.name} has no joker flag)")
        value = self.values[mask, min(upper, n_upper - 1), int(joker)]
        # as state_values: above the cap, where the table merges totals, the boxes' possible sums decide
        if not np.isfinite(value) or upper >= n_upper - 1 and not upper_reachable(v, mask, upper):
            raise RuleError(f"state (mask {mask}, upper {upper}, joker {joker}) cannot occur in {v.name}")
        return float(value)

    def best_action(self, card: CardLike = None, dice: DiceLike = "", roll: int = 1) -> Option:
        """The best option only (what advise(...).best is), without building the others."""
        return self.advisor.best_action(*self._situation(card, dice, roll))

    def _situation(self, card: CardLike, dice: DiceLike, roll: int) -> tuple[Card, tuple[int, ...], int]:
        """The card as advice counts it (a bonus written before its box is paid once, with the box), the dice
        and the roll, checked. Cards and dice given as strings are parsed once per Table (a bot or a server asks
        the same ones again)."""
        cards, rolls = self._parsed
        remembered = cards.get(card) if type(card) is str else None
        if remembered is None:
            given = as_card(self.variant, card)
            remembered = (given, without_pending_bonus(given))
            if type(card) is str:
                _remember(cards, card, remembered)
        given, parsed = remembered
        rolled = rolls.get(dice) if type(dice) is str else None
        if rolled is None:
            rolled = as_dice(self.variant, dice)
            if type(dice) is str:
                _remember(rolls, dice, rolled)
        if (
            type(roll) is not int
            and (isinstance(roll, bool) or not isinstance(roll, np.integer))
            or roll not in (1, 2, 3)
        ):
            raise RuleError(f"roll must be 1, 2 or 3, not {roll!r}")
        check_bonus_roll(given, parsed, rolled)
        return parsed, rolled, int(roll)

    def state_values(self, mask, upper, joker) -> np.ndarray:
        """Points still to come at the start of a turn for arrays of states (a checked lookup)."""
        from ..advice import batch

        return batch.state_values(self.advisor.engine, self.values, mask, upper, joker)

    def option_values_batch(self, mask, upper, joker, dice, roll):
        """Every option's value (points still to come) for N situations at once: numpy arrays in (filled-box
        bitmask in RULES.md box order, upper total, joker box holds points, dice as (N, n_dice), roll 1-3),
        a batch.BatchAdvice out (codes, values, n_options, best; batch.decode_option turns a code into a
        keep or a box). One parallel Numba kernel; identical dice only."""
        from ..advice import batch

        return batch.option_values_batch(self.advisor.engine, self.values, mask, upper, joker, dice, roll)

    def advise(
        self, card: CardLike = None, dice: DiceLike = "", roll: int = 1, *, box_now: bool = False, spread: bool = False
    ) -> Advice:
        """Ranked options for these dice after roll `roll` (1-3); box_now asks which box to fill now.
        spread=True also gives each option's `std`, the standard deviation of the final score it leads to
        (identical dice; from the second moments the solve saves beside the table, see spread.py).
        A card whose latest bonus waits for its box (`yahtzee=50,extra=100`) is advised as the rules count
        it: that bonus is paid with the box (Advice.card shows the card without it)."""
        parsed, rolled, roll = self._situation(card, dice, roll)
        box_now, spread = checks.flag("box_now", box_now), checks.flag("spread", spread)
        action, options = self.advisor.advise(parsed, rolled, roll, box_now)
        then = None
        if action == "keep" and len(options[0].keep) == self.variant.n_dice:
            then = self.advisor.box_options(parsed, rolled, roll)[0]  # stopping: the box comes next
        if spread and self.variant.identical_dice:
            self._add_stds(parsed, rolled, roll if action == "keep" else 3, options)
            if then is not None:
                self._add_stds(parsed, rolled, 3, [then])
        own = Card(parsed.variant, dict(parsed.filled), parsed.extra)  # the advice's own: parsed is kept for reuse
        return Advice(
            self.variant, own, rolled, roll, action, self.advisor.expected_final(parsed), tuple(options), then
        )

    # playing for a target (target_play.py): chances(card, target, ...), advise_target(card, dice, roll, target, ...)
    chances = target_play.chances
    advise_target = target_play.advise_target

    def distribution(self, card: CardLike = None, at_least: Sequence[int] = (), *, limit: float | None = None):
        """The exact final-score distribution of the advisor's play from this card (a
        distribution.Distribution: pmf, mean, std, median, percentiles, p_at_least, as_dict()). Kniffel 7: from
        the shipped or cached pmf, else a forward pass estimated at `limit` seconds at most (None: 180)."""
        from ..chances import distribution

        parsed = self.card(card)
        at_least = [checks.whole("at_least", a, 0) for a in checks.sequence("at_least", at_least, "[250, 300]")]
        self._forward_within([parsed], limit)
        engine = self.advisor.engine if self.variant.identical_dice else None
        return distribution.distribution(self.variant, self.values, parsed, at_least, engine, directory=self.directory)

    def odds(self, cards: Sequence[CardLike], names: Sequence[str] | None = None, *, limit: float | None = None):
        """Each player's chance to win from these cards (same round, independent dice, max-expected play);
        `limit` as distribution's."""
        from ..chances import distribution

        parsed = [self.card(c) for c in checks.sequence("cards", cards, "['chance=22', '']")]
        names = None if names is None else checks.sequence("names", names, "['Anna', 'Ben']")
        self._forward_within(parsed, limit)
        return distribution.odds(self.variant, self.values, parsed, names, directory=self.directory)

    def _forward_within(self, cards: list[Card], limit: float | None) -> None:
        """Refuse forward passes (dice told apart, a card early in the game) estimated above `limit` seconds."""
        from ..chances import distribution
        from ..chances.ordered_chances import LIMIT_SECONDS

        most = target_play.limit_seconds(limit)
        most = LIMIT_SECONDS if most is None else most
        states, seconds = distribution.passes_work(self.variant, self.values, cards, self.directory)
        if seconds > most:
            duration = distribution.pass_duration(seconds)
            raise RuleError(t("api_pass_too_long", variant=self.variant.name, states=states, duration=duration))

    def _add_stds(self, card: Card, dice: tuple[int, ...], roll: int, options: list[Option]) -> None:
        from ..chances.spread import option_stds
        from ..store.solving import table_moments

        if not self._second_moments:  # once per Table: a server answers many requests from it
            self._second_moments.append(
                table_moments(self.variant, self.values, self.directory, engine=self.advisor.engine)
            )
        m2 = self._second_moments[0]
        for option, std in zip(
            options,
            option_stds(self.variant, self.values, m2, card, dice, roll, options, self.advisor, self._keep_stds),
        ):
            option.std = float(std)


def load(
    variant: str | Variant,
    *,
    tables_dir: str | os.PathLike | None = None,
    solve: bool = True,
    progress: bool = True,
    keep_one: bool = False,
) -> Table:
    """The variant's Table from `tables_dir` (default: $KNIFFEL_TABLES, the repository's tables/ or the
    user's data folder). A missing table is solved first (progress bar on a terminal) unless
    solve=False, which raises TableMissing instead."""
    v = _variant(variant, checks.flag("keep_one", keep_one))
    solve, progress = checks.flag("solve", solve), checks.flag("progress", progress)
    directory = tables.tables_dir(checks.folder("tables_dir", tables_dir))
    tables.check_tables_dir(directory, "tables_dir" if tables_dir else "tables folder")
    if solve:
        values, meta = solving.load_or_solve(v, directory, progress=progress)
    else:
        values, meta = solving.load_table(v, directory)
    return Table(v, values, meta, make_advisor(v, values), directory)
