"""A game as a list of events, its JSON record, and replaying it decision by decision.

The record (written by `kniffel play`, read by `kniffel review`):

    {"format": "kniffel-game", "version": 1, "variant": "kniffel",
     "fingerprint": "<rules hash>", "seed": 7 or null, "roll_for_me": false,
     "events": [{"roll": [3, 3, 5, 1, 6]},          # dice shown, in die order
                {"keep": [3, 3]},                   # faces kept after roll 1 or 2 (dice told
                                                    # apart also: "keep_dice": [0, 5], die indices)
                {"roll": [3, 3, 3, 2, 6]},
                {"box": "three_of_a_kind", "points": 17, "extra": 0},
                ...],
     "finished": false, "score": null}

Rolls alternate with decisions; a turn ends with a "box" event (after roll 3,
or earlier when the player stops rolling). Keeping every die means scoring now.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path

from .advisor import Advisor, Option
from .cards import Card
from .errors import KniffelError
from .rules import PRESETS, RuleError, Variant

FORMAT = "kniffel-game"
VERSION = 1


class GameFileError(KniffelError):
    """A game record that cannot be read."""


@dataclass
class Point:
    """Where a game stands: the card, and within the turn the roll number and dice."""

    card: Card
    roll: int  # 0 = the turn has not been rolled yet; 1-3 = dice shown after that roll
    dice: tuple[int, ...] = ()
    kept: tuple[int, ...] = ()  # faces kept from the last roll (the next roll must contain them)
    kept_dice: tuple[int, ...] = ()  # dice told apart: which dice were kept (die indices)


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


@dataclass
class Game:
    variant: Variant
    events: list[dict] = field(default_factory=list)
    seed: int | None = None
    roll_for_me: bool = False

    # -- replay ---------------------------------------------------------
    def point(self) -> Point:
        card, roll, dice, kept, kept_dice = Card(self.variant), 0, (), (), ()
        for ev in self.events:
            if "roll" in ev:
                roll, dice, kept, kept_dice = roll + 1, tuple(ev["roll"]), (), ()
            elif "keep" in ev:
                kept, kept_dice = tuple(ev["keep"]), tuple(ev.get("keep_dice", ()))
            elif "box" in ev:
                card = card.with_entry(self.variant.box_index(ev["box"]), ev["points"], ev.get("extra", 0))
                roll, dice, kept, kept_dice = 0, (), (), ()
        return Point(card, roll, dice, kept, kept_dice)

    @property
    def finished(self) -> bool:
        return self.point().card.full

    def turn_number(self) -> int:
        return sum(1 for ev in self.events if "box" in ev) + 1

    # -- moves ----------------------------------------------------------
    def add_roll(self, dice) -> None:
        p = self.point()
        if p.card.full:
            raise RuleError("the game is over")
        if p.roll >= self.variant.rolls:
            raise RuleError("no rolls left: choose a box")
        if p.roll > 0 and "keep" not in self.events[-1]:
            raise RuleError("choose which dice to keep first")
        if p.kept_dice:
            moved = [self.variant.die_names[d] for d in p.kept_dice if dice[d] != p.dice[d]]
            if moved:
                raise RuleError(f"the kept dice must show what they showed: {', '.join(moved)}")
        missing = list(p.kept)
        for d in dice:
            if d in missing:
                missing.remove(d)
        if missing:
            raise RuleError(f"the new roll must still show the kept dice {' '.join(map(str, p.kept))}")
        self.events.append({"roll": list(dice)})

    def next_random_roll(self) -> tuple[int, ...]:
        """Roll the dice not kept, each from its own faces, reproducibly from (seed, position in the game)."""
        p = self.point()
        rng = random.Random(f"{self.seed}:{len(self.events)}")
        if not self.variant.identical_dice:
            return tuple(p.dice[d] if d in p.kept_dice else rng.choice(die) for d, die in enumerate(self.variant.dice))
        fresh = [rng.choice(die) for die in self.variant.dice[len(p.kept) :]]
        return tuple(p.kept) + tuple(fresh)

    def add_keep(self, faces, dice=None) -> None:
        """Keep these faces (identical dice) or these dice by index (dice told apart)."""
        p = self.point()
        if p.roll not in (1, 2) or "roll" not in self.events[-1]:
            raise RuleError("keeping dice is decided after roll 1 or 2")
        if not self.variant.identical_dice:
            if dice is None or len(set(dice)) != len(dice) or not all(0 <= d < self.variant.n_dice for d in dice):
                raise RuleError(f"name the dice to keep among: {', '.join(self.variant.die_names)}")
            faces = tuple(p.dice[d] for d in dice)
        left = list(p.dice)
        for f in faces:
            if f not in left:
                raise RuleError(f"cannot keep {' '.join(map(str, faces))}: the dice are {' '.join(map(str, p.dice))}")
            left.remove(f)
        if len(faces) == self.variant.n_dice:
            raise RuleError("keeping every die ends the rolling: choose a box")
        if len(faces) < (self.variant.min_keep_last_reroll if p.roll == 2 else 0):
            raise RuleError("house rule: keep at least one die before the third roll")
        event = {"keep": sorted(faces)}
        if dice is not None:
            event["keep_dice"] = sorted(dice)
        self.events.append(event)

    def add_box(self, box: int, points: int, extra: int) -> None:
        if self.point().roll == 0:
            raise RuleError("roll the dice first")
        self.events.append({"box": self.variant.boxes[box].key, "points": points, "extra": extra})

    def undo(self) -> bool:
        """Step back one decision (and the roll that followed it). False when nothing is left."""
        for i in range(len(self.events) - 1, -1, -1):
            if "keep" in self.events[i] or "box" in self.events[i]:
                del self.events[i:]
                return True
        if self.events:
            self.events.clear()
            return True
        return False

    # -- record ---------------------------------------------------------
    def to_json(self) -> dict:
        p = self.point()
        return {
            "format": FORMAT,
            "version": VERSION,
            "variant": self.variant.name,
            "fingerprint": self.variant.fingerprint(),
            "seed": self.seed,
            "roll_for_me": self.roll_for_me,
            "events": self.events,
            "finished": p.card.full,
            "score": p.card.points if p.card.full else None,
        }

    def save(self, path: Path) -> None:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> Game:
        try:
            data = json.loads(Path(path).read_text())
        except OSError as exc:
            raise GameFileError(f"cannot read game file {path}: {exc.strerror}") from None
        except ValueError:
            raise GameFileError(f"game file {path} is not JSON") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise GameFileError(f'{path} is not a kniffel game record (no "format": "{FORMAT}")')
        if data.get("version") != VERSION:
            raise GameFileError(f"game file {path} has version {data.get('version')!r}; this program reads {VERSION}")
        name = data.get("variant")
        variant = PRESETS.get(name) if isinstance(name, str) else None
        if variant is None:
            raise GameFileError(f"game file {path} names an unknown variant {data.get('variant')!r}")
        if data.get("fingerprint") != variant.fingerprint():
            raise GameFileError(f"game file {path} was played under other rules of {variant.name}")
        game = cls(variant, seed=data.get("seed"), roll_for_me=bool(data.get("roll_for_me")))
        events = data.get("events")
        if not isinstance(events, list):
            raise GameFileError(f"game file {path} has no event list")
        try:
            for i, ev in enumerate(events):  # noqa: B007 (i names the event in the error)
                game._replay_event(ev)
        except (RuleError, KeyError, TypeError, ValueError) as exc:
            raise GameFileError(f"game file {path}, event {i + 1}: {exc}") from None
        return game

    def _replay_event(self, ev) -> None:
        """Append one recorded event, checking it against the rules."""
        if not isinstance(ev, dict):
            raise ValueError("an event must be an object")
        if "roll" in ev:
            dice = tuple(int(d) for d in ev["roll"])
            if len(dice) != self.variant.n_dice or any(d not in die for d, die in zip(dice, self.variant.dice)):
                raise ValueError(f"impossible dice {list(dice)}")
            self.add_roll(dice)
        elif "keep" in ev:
            kept_dice = tuple(int(d) for d in ev["keep_dice"]) if "keep_dice" in ev else None
            self.add_keep(tuple(int(f) for f in ev["keep"]), kept_dice)
        elif "box" in ev:
            p = self.point()
            box = self.variant.box_index(ev["box"])
            entry = (box, int(ev["points"]), int(ev.get("extra", 0)))
            if box in p.card.filled:
                raise ValueError(f"box {ev['box']} is already filled")
            self.events.append({"box": ev["box"], "points": entry[1], "extra": entry[2]})
        else:
            raise ValueError(f"unknown event {ev!r}")


def decisions(game: Game, advisor: Advisor) -> list[Decision]:
    """Every keep and box decision of the game, valued with the table."""
    out = []
    replay = Game(game.variant, seed=game.seed, roll_for_me=game.roll_for_me)
    turn = 1
    for ev in game.events:
        p = replay.point()
        if "keep" in ev:
            _, options = advisor.advise(p.card, p.dice, p.roll)
            if "keep_dice" in ev:
                chosen = next(o for o in options if list(o.keep_dice) == sorted(ev["keep_dice"]))
            else:
                chosen = next(o for o in options if sorted(o.keep) == sorted(ev["keep"]))
            out.append(Decision(turn, p.roll, p.dice, p.card, chosen, options[0]))
        elif "box" in ev:
            options = advisor.box_options(p.card, p.dice)
            box = game.variant.box_index(ev["box"])
            match = [o for o in options if o.box == box and o.points == ev["points"]]
            if not match:
                raise GameFileError(
                    f"turn {turn}: {ev['box']}={ev['points']} is not allowed for dice {' '.join(map(str, p.dice))}"
                )
            if p.roll < game.variant.rolls and "keep" not in replay.events[-1]:
                # scoring before the last roll = keeping all dice, then choosing the box
                _, keeps = advisor.advise(p.card, p.dice, p.roll)
                stop = next(o for o in keeps if len(o.keep) == game.variant.n_dice)
                out.append(Decision(turn, p.roll, p.dice, p.card, stop, keeps[0]))
            out.append(Decision(turn, p.roll, p.dice, p.card, match[0], options[0]))
            turn += 1
        replay.events.append(ev)
    return out
