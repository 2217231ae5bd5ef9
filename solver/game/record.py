"""A game as a list of events, its JSON record, and replaying it decision by decision.

The record (written by `kniffel play`, read by `kniffel review`):

    {"format": "kniffel-game", "version": 1, "variant": "kniffel",
     "fingerprint": "<rules hash>", "seed": 7 or null, "roll_for_me": false,
     "lang": "de",                                  # the players' language (optional: older records lack it)
     "events": [{"roll": [3, 3, 5, 1, 6]},          # dice shown, in die order
                {"keep": [3, 3]},                   # faces kept after roll 1 or 2 (dice told
                                                    # apart also: "keep_dice": [0, 5], die indices)
                {"roll": [3, 3, 3, 2, 6]},
                {"box": "three_of_a_kind", "points": 17, "extra": 0},
                ...],
     "finished": false, "score": null}

Rolls alternate with decisions; a turn ends with a "box" event (after roll 3,
or earlier when the player stops rolling). Keeping every die means scoring now.

A record is untrusted: `Game.load` reads at most MAX_FILE_BYTES, checks every field's type and
replays every event through the rules (dice on the dice's faces, keeps inside the roll and followed by
a roll, a box entry exactly one the final roll allows under the scratching and joker rules, extra
points included) before anything uses it. Any problem is one GameFileError naming the event.
"""

from __future__ import annotations

import json
import random
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from ..advice.card_checks import entry_rules
from ..advice.cards import Card
from ..errors import KniffelError
from ..i18n.texts import LANGUAGES, box_name, die_name, t
from ..rules.checks import shown as _short
from ..rules.dice import MAX_SEED
from ..rules.presets import PRESETS
from ..rules.variant import RuleError, Variant
from ..store.files import atomic_write_bytes, parse_json, read_bounded

FORMAT = "kniffel-game"
VERSION = 1
MAX_FILE_BYTES = 1_000_000  # a finished game of the longest preset is about 10 KB


class GameFileError(KniffelError):
    """A game record that cannot be read."""


@dataclass
class Situation:
    """Where a game stands: the card, and within the turn the roll number and dice."""

    card: Card
    roll: int  # 0 = the turn has not been rolled yet; 1-3 = dice shown after that roll
    dice: tuple[int, ...] = ()
    kept: tuple[int, ...] = ()  # faces kept from the last roll (the next roll must contain them)
    kept_dice: tuple[int, ...] = ()  # dice told apart: which dice were kept (die indices)


@dataclass
class Game:
    variant: Variant
    events: list[dict] = field(default_factory=list)
    seed: int | None = None
    roll_for_me: bool = False
    lang: str | None = None  # the language it is played in ("de"/"en"); None in records from before it was kept

    # -- replay ---------------------------------------------------------
    def point(self) -> Situation:
        card, roll, dice, kept, kept_dice = Card(self.variant), 0, (), (), ()
        for ev in self.events:
            if "roll" in ev:
                roll, dice, kept, kept_dice = roll + 1, tuple(ev["roll"]), (), ()
            elif "keep" in ev:
                kept, kept_dice = tuple(ev["keep"]), tuple(ev.get("keep_dice", ()))
            elif "box" in ev:
                card = card.with_entry(self.variant.box_index(ev["box"]), ev["points"], ev.get("extra", 0))
                roll, dice, kept, kept_dice = 0, (), (), ()
        return Situation(card, roll, dice, kept, kept_dice)

    @property
    def finished(self) -> bool:
        return self.point().card.full

    def turn_number(self) -> int:
        return sum(1 for ev in self.events if "box" in ev) + 1

    # -- moves ----------------------------------------------------------
    def add_roll(self, dice) -> None:
        p = self.point()
        dice = tuple(dice)
        v = self.variant
        if len(dice) != v.n_dice or any(d not in die for d, die in zip(dice, v.dice)):
            raise RuleError(t("game_impossible_dice", dice=list(dice), variant=v.name, count=v.n_dice))
        if p.card.full:
            raise RuleError(t("game_over_error"))
        if p.roll >= self.variant.rolls:
            raise RuleError(t("game_no_rolls_left"))
        if p.roll > 0 and "keep" not in self.events[-1]:
            raise RuleError(t("game_keep_first"))
        if p.kept_dice:
            moved = [die_name(self.variant, d) for d in p.kept_dice if dice[d] != p.dice[d]]
            if moved:
                raise RuleError(t("game_kept_moved", names=", ".join(moved)))
        missing = list(p.kept)
        for d in dice:
            if d in missing:
                missing.remove(d)
        if missing:
            raise RuleError(t("game_kept_missing", faces=" ".join(map(str, p.kept))))
        self.events.append({"roll": list(dice)})

    def next_random_roll(self) -> tuple[int, ...]:
        """Roll the dice not kept, each from its own faces, reproducibly from (seed, position in the game)."""
        p = self.point()
        if self.seed is None:  # no --seed: a fresh one, saved with the game so that a resumed game rolls on alike
            self.seed = secrets.randbelow(MAX_SEED + 1)
        rng = random.Random(f"{self.seed}:{len(self.events)}")
        if not self.variant.identical_dice:
            return tuple(p.dice[d] if d in p.kept_dice else rng.choice(die) for d, die in enumerate(self.variant.dice))
        fresh = [rng.choice(die) for die in self.variant.dice[len(p.kept) :]]
        return tuple(p.kept) + tuple(fresh)

    def add_keep(self, faces, dice=None) -> None:
        """Keep these faces (identical dice) or these dice by index (dice told apart)."""
        p = self.point()
        if p.roll not in (1, 2) or "roll" not in self.events[-1]:
            raise RuleError(t("game_keep_when"))
        if not self.variant.identical_dice:
            if dice is None or len(set(dice)) != len(dice) or not all(0 <= d < self.variant.n_dice for d in dice):
                names = ", ".join(die_name(self.variant, d) for d in range(self.variant.n_dice))
                raise RuleError(t("game_keep_which", names=names))
            faces = tuple(p.dice[d] for d in dice)
        self.check_kept(faces)
        if len(faces) == self.variant.n_dice:
            raise RuleError(t("game_keep_all"))
        if len(faces) < (self.variant.min_keep_last_reroll if p.roll == 2 else 0):
            raise RuleError(t("game_keep_one"))
        event = {"keep": sorted(faces)}
        if dice is not None:
            event["keep_dice"] = sorted(dice)
        self.events.append(event)

    def allowed_entries(self) -> list[tuple[int, int, int]]:
        """(box, points, extra) of every entry the rules allow for the dice shown now."""
        p = self.point()
        if p.roll == 0 or "keep" in self.events[-1]:  # kept dice are rolled again before any entry
            raise RuleError(t("game_roll_first"))
        rules, row_of = entry_rules(self.variant)
        if p.roll == 1:  # a turn stopped after roll 1 enters the first-roll scores (Generala's servida)
            rules = rules._replace(score=rules.first_score, joker_score=rules.first_joker_score)
        mask, _, joker_scored = p.card.state
        r = row_of[tuple(sorted(p.dice))]
        extra = self.variant.extra_points if joker_scored and rules.joker_roll[r] else 0
        return [(b, pts, extra) for b, pts in _roll_entries(rules, mask, joker_scored, r)]

    def add_box(self, box: int, points: int, extra: int) -> None:
        allowed = self.allowed_entries()
        if (box, points, extra) not in allowed:
            name = box_name(self.variant, box)
            if box in self.point().card.filled:
                raise RuleError(t("game_box_filled", box=name))
            bonus = t("extra")  # the record's field
            could = [f"{pts}" + (f" +{e} {bonus}" if e else "") for b, pts, e in allowed if b == box]
            got = f"{points}" + (f" +{extra} {bonus}" if extra else "")
            dice = " ".join(map(str, self.point().dice))
            rules = t("game_box_gives", points=", ".join(could)) if could else t("game_box_not_now")
            raise RuleError(t("game_box_refused", box=name, got=got, dice=dice, rules=rules))
        self.events.append({"box": self.variant.boxes[box].key, "points": points, "extra": extra})

    def check_kept(self, faces) -> None:
        """Refuse faces that the dice shown do not hold (so '11111' is no 'keep all' without 1s)."""
        left = list(self.point().dice)
        for f in faces:
            if f not in left:
                shown = " ".join(map(str, self.point().dice))
                raise RuleError(t("err_keep_faces", faces=" ".join(map(str, faces)), dice=shown))
            left.remove(f)

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
            **({"lang": self.lang} if self.lang else {}),
            "events": self.events,
            "finished": p.card.full,
            "score": p.card.points if p.card.full else None,
        }

    def save(self, path: Path) -> None:
        """Atomically: the file holds the previous record or this one, never a part."""
        atomic_write_bytes(Path(path), (json.dumps(self.to_json(), indent=1) + "\n").encode())

    @classmethod
    def load(cls, path: Path) -> Game:
        return cls.from_json(read_record(path), t("game_where_file", path=path))

    @classmethod
    def from_json(cls, data, where: str | None = None) -> Game:
        """A game from a parsed record, validated completely (see the module's docstring)."""
        where = where or t("game_where_record")
        variant, seed, roll_for_me, lang = record_header(data, where, VERSION, ("events", "finished", "score"))
        events = data.get("events")
        if not isinstance(events, list):
            raise GameFileError(t("game_no_events", where=where))
        most = len(variant.boxes) * (2 * variant.rolls)  # rolls, keeps and a box per turn
        if len(events) > most:
            raise GameFileError(t("game_events", where=where, count=len(events), variant=variant.name, most=most))
        game = cls(variant, seed=seed, roll_for_me=roll_for_me, lang=lang)
        for i, ev in enumerate(events):
            try:
                game._replay_event(ev)
            except KniffelError as exc:
                raise GameFileError(t("game_event", where=where, number=i + 1, error=exc)) from None
        card = game.point().card
        finished, score = data.get("finished", card.full), data.get("score", card.points if card.full else None)
        if finished is not card.full or score != (card.points if card.full else None) or isinstance(score, bool):
            raise GameFileError(
                t(
                    "game_finished",
                    where=where,
                    finished=_short(finished),
                    score=_short(score),
                    full=card.full,
                    points=card.points if card.full else None,
                )
            )
        return game

    def _replay_event(self, ev) -> None:
        """Append one recorded event, checking its form and then the rules."""
        v = self.variant
        if not isinstance(ev, dict):
            raise GameFileError(t("game_event_object", event=_short(ev)))
        kinds = [k for k in ("roll", "keep", "box") if k in ev]
        if len(kinds) != 1:
            raise GameFileError(t("game_event_kind", event=_short(ev)))
        allowed_keys = {"roll": {"roll"}, "keep": {"keep", "keep_dice"}, "box": {"box", "points", "extra"}}[kinds[0]]
        if set(ev) - allowed_keys:
            raise GameFileError(t("game_event_field", field=repr(sorted(set(ev) - allowed_keys)[0]), event=_short(ev)))
        if "roll" in ev:
            self.add_roll(_int_list(ev["roll"], "roll"))
        elif "keep" in ev:
            faces = _int_list(ev["keep"], "keep")
            if v.identical_dice:
                if "keep_dice" in ev:
                    raise GameFileError(t("game_keep_dice_identical", variant=v.name))
                self.add_keep(faces)
                return
            if "keep_dice" not in ev:
                raise GameFileError(t("game_keep_dice_missing", variant=v.name))
            dice = _int_list(ev["keep_dice"], "keep_dice")
            self.add_keep((), dice)
            if sorted(faces) != self.events[-1]["keep"]:
                raise GameFileError(t("game_keep_mismatch", faces=list(faces), dice=list(dice)))
        else:
            box, points, extra = ev["box"], ev.get("points"), ev.get("extra", 0)
            if not isinstance(box, str):
                raise GameFileError(t("game_box_name", box=_short(box)))
            if not isinstance(points, int) or isinstance(points, bool) or not _is_int(extra):
                raise GameFileError(t("game_box_points", points=_short(points), extra=_short(extra)))
            self.add_box(v.box_index(box), points, extra)


HEADER_FIELDS = ("format", "version", "variant", "fingerprint", "seed", "roll_for_me", "lang")


def record_header(
    data, where: str, expected: int, fields: tuple[str, ...]
) -> tuple[Variant, int | None, bool, str | None]:
    """(variant, seed, roll_for_me, lang) of a game record of version `expected`, every field checked
    (one player's record and a table's share this part); `fields`: the version's others. A field
    of no version is refused (a misspelt "seed" would otherwise be a game without its seed)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise GameFileError(t("game_not_record", where=where, format=FORMAT))
    version = data.get("version")
    if not _is_int(version) or version != expected:
        raise GameFileError(t("game_version", where=where, version=repr(version), reads=expected))
    allowed = HEADER_FIELDS + fields
    unknown = [key for key in data if key not in allowed]
    if unknown:
        raise GameFileError(
            t("game_field", where=where, field=_short(unknown[0]), version=expected, allowed=", ".join(allowed))
        )
    name = data.get("variant")
    variant = PRESETS.get(name) if isinstance(name, str) else None
    if variant is None:
        raise GameFileError(t("game_variant", where=where, name=_short(name), known=", ".join(PRESETS)))
    if data.get("fingerprint") != variant.fingerprint():
        raise GameFileError(t("game_fingerprint", where=where, variant=variant.name))
    seed, roll_for_me = data.get("seed"), data.get("roll_for_me", False)
    if seed is not None and not _is_int(seed):
        raise GameFileError(t("game_seed", where=where, seed=_short(seed)))
    if not isinstance(roll_for_me, bool):
        raise GameFileError(t("game_roll_for_me", where=where, value=_short(roll_for_me)))
    lang = data.get("lang")  # absent in records written before the language was stored
    if "lang" in data and lang not in LANGUAGES:
        raise GameFileError(t("game_lang", where=where, lang=_short(lang), languages=", ".join(LANGUAGES)))
    return variant, seed, roll_for_me, lang


def read_record(path: Path):
    """The parsed JSON of a game file, not yet validated (Game.from_json does that)."""
    return parse_json(
        read_bounded(Path(path), MAX_FILE_BYTES, t("game_file_word"), GameFileError),
        t("game_where_file", path=path),
        GameFileError,
    )


def record_language(data) -> str | None:
    """The language a record was played in, else its variant's, else None: so that even a refusal of the
    record speaks the players' language. Only a guess before validation; from_json checks the field."""
    if not isinstance(data, dict):
        return None
    lang = data.get("lang")
    if isinstance(lang, str) and lang in LANGUAGES:
        return lang
    name = data.get("variant")
    variant = PRESETS.get(name) if isinstance(name, str) else None
    return variant.lang if variant else None


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_list(value, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) > 16 or not all(_is_int(d) for d in value):
        raise GameFileError(t("game_int_list", what=what, value=_short(value)))
    return tuple(value)


def _roll_entries(rules, mask, joker_scored, r):
    from ..dp import roll_entries

    return roll_entries(rules, mask, joker_scored, r)
