"""The review of a saved game: every keep and box decision replayed and valued against the best option at that
point (`kniffel review`, and the hints of play)."""

from __future__ import annotations

from dataclasses import dataclass

from ..advice.advisor import Advisor, Option
from ..advice.cards import Card
from ..i18n.texts import t
from ..rules.checks import shown as _short
from .record import Game, GameFileError


@dataclass
class Decision:
    """One decision of a replayed game, valued against the best option at that point."""

    turn: int
    roll: int
    dice: tuple[int, ...]
    card: Card
    chosen: Option
    best: Option

    @property
    def loss(self) -> float:
        return self.chosen.loss


def decisions(game: Game, advisor: Advisor) -> list[Decision]:
    """Every keep and box decision of the game, valued with the table (Advisor.decision: one kernel call each,
    two Options made)."""
    out = []
    replay = Game(game.variant, seed=game.seed, roll_for_me=game.roll_for_me)
    n_dice = game.variant.n_dice
    turn = 1
    for ev in game.events:
        p = replay.point()
        if "keep" in ev:
            kept = ev["keep_dice"] if "keep_dice" in ev else ev["keep"]
            chosen, best = advisor.decision(p.card, p.dice, p.roll, kept=kept)
            out.append(Decision(turn, p.roll, p.dice, p.card, _found(chosen, ev), best))
        elif "box" in ev:
            box = game.variant.box_index(ev["box"])
            chosen, best = advisor.decision(p.card, p.dice, p.roll, box=box, points=ev["points"])
            if chosen is None:
                raise GameFileError(
                    t("game_turn_box", turn=turn, box=ev["box"], points=ev["points"], dice=" ".join(map(str, p.dice)))
                )
            if p.roll < game.variant.rolls:  # scoring before the last roll = keeping all dice, then the box
                every_die = p.dice if game.variant.identical_dice else tuple(range(n_dice))
                stop, best_keep = advisor.decision(p.card, p.dice, p.roll, kept=every_die)
                out.append(Decision(turn, p.roll, p.dice, p.card, _found(stop, ev), best_keep))
            out.append(Decision(turn, p.roll, p.dice, p.card, chosen, best))
            turn += 1
        replay.events.append(ev)
    return out


def _found(chosen: Option | None, ev) -> Option:
    if chosen is not None:
        return chosen
    raise GameFileError(t("game_no_option", event=_short(ev)))  # Game.load's replay makes this unreachable
