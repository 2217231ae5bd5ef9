"""The public calls of the dice-poker advisor (solver.api re-exports them): checked arguments in, small frozen
results out, with the `as_dict()` that `kniffel poker --json` and the web page print."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..i18n.texts import t
from ..rules.checks import flag, is_whole
from .duel import DuelRules, duel
from .hands import CATEGORIES, PokerError, category, read_dice


@dataclass(frozen=True)
class PokerOption:
    keep: tuple[int, ...]  # the dice kept; all of them: stop
    reroll: int  # how many dice are rolled again (0: stop)
    p_win: float  # ties count half


@dataclass(frozen=True)
class PokerAdvice:
    role: str  # "first": the second player answers at best; "second": beat `hand`
    hand: tuple[int, ...] | None  # the hand to beat (second player)
    dice: tuple[int, ...] | None  # my dice after `roll` (None: the chance from the start of the turn only)
    roll: int
    rolls: int  # rolls the turn may have
    rules: DuelRules
    start: float  # P(win) from the start of the turn, at best
    options: tuple[PokerOption, ...]

    @property
    def best(self) -> PokerOption | None:
        return self.options[0] if self.options else None

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["rules"] = {k: v for k, v in out["rules"].items() if k != "n_dice"}
        out["hand_name"] = CATEGORIES[category(self.hand)] if self.hand else None
        out["dice_name"] = CATEGORIES[category(self.dice)] if self.dice else None
        return out


def poker_advice(
    dice=None,
    hand=None,
    roll: int = 1,
    rolls: int = 3,
    max_reroll: int = 5,
    ties: str = "kickers",
    match_rolls: bool = False,
) -> PokerAdvice:
    """The exact best play of the dice-poker duel. With `hand` (the first player's final hand): the second
    player's every keep and its P(win). Without: the first player's stop and every reroll, against the second
    player's best answer. `dice`: my dice after roll `roll` of at most `rolls` (None: only the start chance)."""
    max_reroll = int(max_reroll) if is_whole(max_reroll) else max_reroll  # numpy's integers too (DuelRules checks)
    rules = DuelRules(max_reroll=max_reroll, ties=ties, match_rolls=flag("match_rolls", match_rolls))
    for name, value, low, high in (("rolls", rolls, 1, 3), ("roll", roll, 1, rolls)):
        if not is_whole(value) or not low <= value <= high:
            raise PokerError(t("poker_bad_roll", name=name, value=value, low=low, high=high))
    roll, rolls = int(roll), int(rolls)
    if hand is None and rolls != 3:
        raise PokerError(t("poker_rolls_first"))
    game = duel(rules)
    mine = None if dice is None else read_dice(dice, t("poker_your_dice"))
    if hand is not None:
        target = read_dice(hand, t("poker_the_hand"))
        start = float(game.reply[rolls][game.lat.roll_index[target]])
        found = game.beat_options(target, mine, rolls - roll) if mine else []
    else:
        target, start = None, game.first_player_start
        found = game.first_options(mine, roll) if mine else []
    options = tuple(PokerOption(keep, 5 - len(keep), p) for keep, p in found)
    role = "second" if target else "first"
    return PokerAdvice(role, target, mine, roll, rolls, rules, start, options)
