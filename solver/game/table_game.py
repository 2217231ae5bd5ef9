"""A game of 2-6 players at one table (hot seat): one Game per player, one event list, one record.

The record (version 2 of the game format; version 1 is the one-player game of solver/game/record.py):

    {"format": "kniffel-game", "version": 2, "variant": "kniffel", "fingerprint": "<rules hash>",
     "seed": 7 or null, "roll_for_me": false, "players": ["Anna", "Ben"],
     "events": [{"player": 0, "roll": [3, 3, 5, 1, 6]}, {"player": 0, "keep": [3, 3]}, ...,
                {"player": 0, "box": "chance", "points": 22, "extra": 0},
                {"player": 1, "roll": [...]}, ...],
     "finished": false, "scores": null}

The players take turns in the order listed; an event of any other player than the one whose turn it
is is refused. Each player's events are replayed through that player's Game, so a record is validated
exactly as a one-player record is (solver/game/record.py), plus the order of turns.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..advice.cards import Card
from ..chances.distribution import pmf_work, win_alone
from ..errors import KniffelError
from ..i18n.texts import t
from ..rules.checks import check_names
from ..rules.variant import Variant
from ..store.files import atomic_write_bytes
from .record import FORMAT, Game, GameFileError, Situation, _is_int, _short, read_record, record_header
from .record import VERSION as ONE_PLAYER_VERSION

VERSION = 2
MIN_PLAYERS, MAX_PLAYERS = 2, 6
SEED_STRIDE = 8  # player i rolls with seed * SEED_STRIDE + i: every player has dice of their own


class PlayersError(KniffelError):
    """A --players list that cannot seat a table."""


def parse_players(text: str) -> list[str]:
    """'Anna,Ben,Carla' -> the names, checked: 2-6 players, distinct, short, printable."""
    names = [n.strip() for n in text.split(",")]
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise PlayersError(t("players_count", text=text, count=len(names), least=MIN_PLAYERS, most=MAX_PLAYERS))
    check_names(names, f"--players {text!r}", PlayersError)
    return names


class TableGame:
    """The game of several players; its methods act for the player whose turn it is, so the one-player
    PlayLoop drives it unchanged (point, events, add_roll, add_keep, add_box, undo, next_random_roll)."""

    def __init__(
        self,
        variant: Variant,
        names: list[str],
        seed: int | None = None,
        roll_for_me: bool = False,
        lang: str | None = None,
    ):
        self.variant = variant
        self.lang = lang  # the table's language ("de"/"en"), as Game.lang
        self.names = list(names)
        self.seed = seed
        self.roll_for_me = roll_for_me
        self.events: list[dict] = []
        self.games = self._fresh_games()

    def _fresh_games(self) -> list[Game]:
        seeds = [None if self.seed is None else self.seed * SEED_STRIDE + i for i in range(len(self.names))]
        return [Game(self.variant, seed=s, roll_for_me=self.roll_for_me) for s in seeds]

    # -- whose turn ------------------------------------------------------
    def current(self) -> int:
        """The player to move: turns go round in order, so it is the number of boxes filled mod players."""
        return sum(1 for ev in self.events if "box" in ev) % len(self.names)

    def cards(self) -> list[Card]:
        return [g.point().card for g in self.games]

    def point(self) -> Situation:
        return self.games[self.current()].point()

    @property
    def finished(self) -> bool:
        return all(c.full for c in self.cards())

    def turn_number(self) -> int:
        """The round: the turn number of the player to move."""
        return self.games[self.current()].turn_number()

    def last_turn(self) -> bool:
        """The player to move plays the last turn of the game: everyone else is done."""
        cur = self.current()
        return all(c.full for i, c in enumerate(self.cards()) if i != cur)

    # -- moves (for the player to move) ----------------------------------
    def _record(self, player: int) -> None:
        self.events.append({"player": player, **self.games[player].events[-1]})

    def add_roll(self, dice) -> None:
        cur = self.current()
        self.games[cur].add_roll(dice)
        self._record(cur)

    def add_keep(self, faces, dice=None) -> None:
        cur = self.current()
        self.games[cur].add_keep(faces, dice)
        self._record(cur)

    def add_box(self, box: int, points: int, extra: int) -> None:
        cur = self.current()
        self.games[cur].add_box(box, points, extra)
        self._record(cur)

    def next_random_roll(self) -> tuple[int, ...]:
        return self.games[self.current()].next_random_roll()

    def undo(self) -> bool:
        """Step back one decision (a keep or a box, whoever made it) and the roll that followed it."""
        for i in range(len(self.events) - 1, -1, -1):
            if "keep" in self.events[i] or "box" in self.events[i]:
                del self.events[i:]
                break
        else:
            if not self.events:
                return False
            self.events.clear()
        events, self.events = self.events, []
        self.games = self._fresh_games()
        for ev in events:  # checked when they were made: replaying cannot fail
            self._replay_event(ev)
        return True

    # -- record ----------------------------------------------------------
    def to_json(self) -> dict:
        cards = self.cards()
        done = all(c.full for c in cards)
        return {
            "format": FORMAT,
            "version": VERSION,
            "variant": self.variant.name,
            "fingerprint": self.variant.fingerprint(),
            "seed": self.seed,
            "roll_for_me": self.roll_for_me,
            "players": self.names,
            **({"lang": self.lang} if self.lang else {}),
            "events": self.events,
            "finished": done,
            "scores": [c.points for c in cards] if done else None,
        }

    def save(self, path: Path) -> None:
        """Atomically: the file holds the previous record or this one, never a part."""
        atomic_write_bytes(Path(path), (json.dumps(self.to_json(), indent=1) + "\n").encode())

    @classmethod
    def from_json(cls, data, where: str = "game record") -> TableGame:
        """A table game from a parsed record, validated completely by replaying every event."""
        variant, seed, roll_for_me, lang = record_header(
            data, where, VERSION, ("players", "events", "finished", "scores")
        )
        names = data.get("players")
        if not isinstance(names, list) or not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            raise GameFileError(t("table_record_players", where=where, least=MIN_PLAYERS, most=MAX_PLAYERS))
        check_names(names, where, GameFileError)
        events = data.get("events")
        if not isinstance(events, list):
            raise GameFileError(t("table_record_no_events", where=where))
        most = len(names) * len(variant.boxes) * (2 * variant.rolls)
        if len(events) > most:
            raise GameFileError(t("table_record_events", where=where, count=len(events), players=len(names), most=most))
        game = cls(variant, names, seed=seed, roll_for_me=roll_for_me, lang=lang)
        for i, ev in enumerate(events):
            try:
                game._replay_event(ev)
            except KniffelError as exc:
                raise GameFileError(t("game_event", where=where, number=i + 1, error=exc)) from None
        cards = game.cards()
        done = all(c.full for c in cards)
        scores = [c.points for c in cards] if done else None
        if data.get("finished", done) is not done or data.get("scores", scores) != scores:
            fields = f"{_short(data.get('finished'))}, {_short(data.get('scores'))}"
            raise GameFileError(t("table_record_finished", where=where, fields=fields, events=f"{done}, {scores}"))
        return game

    def _replay_event(self, ev) -> None:
        if not isinstance(ev, dict) or not _is_int(ev.get("player")):
            raise GameFileError(t("table_event_player", event=_short(ev)))
        cur = self.current()
        if self.finished:
            raise GameFileError(t("table_event_over"))
        if ev["player"] != cur:
            raise GameFileError(t("table_event_turn", player=_short(ev["player"]), name=self.names[cur]))
        self.games[cur]._replay_event({k: v for k, v in ev.items() if k != "player"})
        self._record(cur)


def load_game(path: Path) -> Game | TableGame:
    """A saved game of one player (version 1) or of a table (version 2), validated completely."""
    return game_from_record(read_record(Path(path)), t("game_where_file", path=path))


def game_from_record(data, where: str) -> Game | TableGame:
    """A parsed game record of one player or of a table, validated completely."""
    if isinstance(data, dict) and data.get("format") == FORMAT and data.get("version") == VERSION:
        return TableGame.from_json(data, where)
    if isinstance(data, dict) and data.get("version") not in (ONE_PLAYER_VERSION, VERSION, None):
        version = _short(data.get("version"))
        raise GameFileError(
            t("table_game_version", where=where, version=version, one=ONE_PLAYER_VERSION, table=VERSION)
        )
    return Game.from_json(data, where)


def places(points: list[int]) -> list[int]:
    """Each player's place at the end: 1 + the number of players with more points (a tie shares a place and
    the next place is skipped: 1, 1, 3)."""
    return [1 + sum(q > p for q in points) for p in points]


# -- the standings -----------------------------------------------------------------------------------
TABLE_PASS_SECONDS = 30.0  # longer forward passes (Kniffel 7 early in a game) wait for fuller cards


class WinChances:
    """Every player's chance of finishing first alone (each playing for the maximum expected score from
    now on, independent dice): the exact final-score distributions of solver/chances/distribution.py, one
    forward pass per state seen (win.opponent_pmf's cache: a turn adds one)."""

    def __init__(self, variant: Variant, values: np.ndarray, engine=None):
        self.variant, self.values, self.engine = variant, values, engine

    def pmf(self, card: Card) -> np.ndarray:
        from ..chances.win import opponent_pmf  # cached per state: shifted by the card's points

        return opponent_pmf(self.variant, self.values, card, self.engine)

    def __call__(self, cards: list[Card]) -> tuple[list[float], float]:
        """(P(player i wins alone) for each, P(a tie for first)). Dice told apart early in a game (forward
        passes of more than TABLE_PASS_SECONDS in all): a KniffelError that says when they come."""
        if not self.variant.identical_dice:
            seconds = sum(pmf_work(self.variant, self.values, c)[1] for c in {c.state: c for c in cards}.values())
            if seconds > TABLE_PASS_SECONDS:
                raise KniffelError(t("table_odds_later", variant=self.variant.name, minutes=round(seconds / 60)))
        wins = win_alone([self.pmf(c) for c in cards])
        return wins, max(0.0, 1.0 - sum(wins))

    def expected(self, card: Card) -> float:
        pmf = self.pmf(card)
        return float(np.arange(pmf.shape[0]) @ pmf)
