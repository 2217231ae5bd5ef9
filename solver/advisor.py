"""One-turn decisions from a table: which dice to keep, which box to fill.

Every option is valued as the expected final score of the game (points on
the card + what the table expects to come), so options compare directly and
the loss of an option is its distance to the best.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from .cards import Card
from .dice import multisets
from .dp import keep_values, make_engine, ordered_keep_values, roll_entries
from .rules import RuleError, Variant

TIE = 1e-9


@dataclass
class Option:
    kind: str  # "keep" or "box"
    expected_final_score: float
    loss: float = 0.0
    keep: tuple[int, ...] = ()  # kind "keep": the faces kept (sorted); all dice = stop rolling
    keep_dice: tuple[int, ...] = ()  # kind "keep", dice told apart: which dice are kept (die indices)
    box: int = -1  # kind "box": box index
    points: int = 0  # kind "box": points entered
    extra: int = 0  # kind "box": extra points earned by a further joker
    text: str = ""
    std: float | None = None  # standard deviation of the final score it leads to (None: not computed)

    def as_dict(self, variant: Variant) -> dict:
        d = {
            "kind": self.kind,
            "text": self.text,
            "expected_final_score": round(self.expected_final_score, 9),
            "loss": round(self.loss, 9),
            "std": None if self.std is None else round(self.std, 6),
        }
        if self.kind == "keep":
            d["keep"] = list(self.keep)
            d["reroll"] = variant.n_dice - len(self.keep)
            if variant.die_names:
                d["keep_dice"] = [variant.die_names[i] for i in self.keep_dice]
        else:
            d.update(
                box=variant.boxes[self.box].key,
                box_name=variant.box_name(self.box),
                points=self.points,
                extra=self.extra,
            )
        return d


def dice_example(variant: Variant) -> str:
    """A valid roll to show in messages: one face of every die (die i shows its face number i + 1)."""
    return ",".join(str(die[i % len(die)]) for i, die in enumerate(variant.dice))


def parse_dice(variant: Variant, text: str) -> tuple[int, ...]:
    """'3,3,5,1,6', '3 3 5 1 6' or '33516' (one digit per die, in die order), or for named dice
    'blue=2,green=3,...'; checked against each die's faces."""
    raw = text.strip()
    if not raw:
        raise RuleError(f"no dice given; {variant.name} needs {variant.n_dice} dice, e.g. {dice_example(variant)}")
    if "=" in raw:
        raw = _named_dice(variant, raw)
    parts = [p for p in raw.replace(",", " ").split() if p]
    if len(parts) == 1 and _digits(parts[0]) and len(parts[0]) > 1:
        parts = list(parts[0])
    if not all(_digits(p) for p in parts):
        raise RuleError(f"dice {text!r}: expected {variant.n_dice} numbers such as {dice_example(variant)}")
    dice = tuple(int(p) for p in parts)
    if len(dice) != variant.n_dice:
        raise RuleError(
            f"dice {text!r}: {len(dice)} dice given, {variant.name} rolls {variant.n_dice} "
            f"(e.g. {dice_example(variant)})"
        )
    for i, (face, die) in enumerate(zip(dice, variant.dice)):
        if face not in die:
            if variant.die_names:
                raise RuleError(f"dice {text!r}: die {i + 1} ({variant.die_names[i]}) has no face {face}")
            raise RuleError(f"dice {text!r}: face {face} is not on a die (faces {die[0]}-{die[-1]})")
    return dice


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _named_dice(variant: Variant, text: str) -> str:
    """'blue=2,green=3,...' -> '2 3 ...' in die order. Every entry must name its die."""
    faces: list[str | None] = [None] * variant.n_dice
    entries = [e.strip() for e in text.replace(";", ",").split(",") if e.strip()]
    for entry in entries:
        name, sep, face = (part.strip() for part in entry.partition("="))
        if not sep:
            names = ",".join(f"{n}={f}" for n, f in zip(variant.die_names, dice_example(variant).split(",")))
            raise RuleError(
                f"dice {text!r}: {entry!r} names no die; give every die by name ({names}) "
                f"or every face in die order ({dice_example(variant)}), not a mix"
            )
        try:
            die = variant.find_die(name)
        except RuleError as exc:
            raise RuleError(f"dice {text!r}: {exc}") from None
        if not face:
            raise RuleError(f"dice {text!r}: no face after {name}=")
        if not _digits(face):
            raise RuleError(f"dice {text!r}: {name}={face}: a face is a number")
        if faces[die] is not None:
            raise RuleError(f"dice {text!r}: die {name} given twice")
        faces[die] = face
    missing = [variant.die_names[i] if variant.die_names else str(i + 1) for i, f in enumerate(faces) if f is None]
    if missing:
        raise RuleError(f"dice {text!r}: no face for {', '.join(missing)}")
    return " ".join(f for f in faces if f is not None)


def format_dice(variant: Variant, dice) -> str:
    """'3 3 5 1 6', or for named dice 'blue 2, green 3, ...'."""
    if variant.die_names:
        return ", ".join(f"{name} {face}" for name, face in zip(variant.die_names, dice))
    return " ".join(map(str, dice))


def _faces_text(faces) -> str:
    return " ".join(str(f) for f in faces)


class Advisor:
    """Advice for identical dice from a solved table."""

    def __init__(self, variant: Variant, values: np.ndarray):
        self.variant = variant
        self.values = values
        self.engine = make_engine(variant)
        lat = self.engine.lattice
        assert lat is not None  # identical dice
        self.faces = variant.faces
        self.keep_index = {tuple(int(c) for c in row): k for k, row in enumerate(lat.counts)}
        self.first_roll = int(lat.size_start[variant.n_dice])
        self._turn_cache: dict = {}

    # -- values -----------------------------------------------------------
    def future(self, card: Card) -> float:
        value = self.values[card.state]
        if not np.isfinite(value):
            raise RuleError(f"the card {card.format()!r} cannot occur under the rules of {self.variant.name}")
        return float(value)

    def expected_final(self, card: Card) -> float:
        return card.points + self.future(card)

    def _counts(self, dice) -> tuple[int, ...]:
        return tuple(sum(1 for d in dice if d == f) for f in self.faces)

    def _roll_row(self, dice) -> int:
        """Row of the rules' roll tables for these dice."""
        return self.keep_index[self._counts(dice)] - self.first_roll

    def _turn(self, card: Card):
        """Keep values of this turn: (after roll 2, after roll 1), each (K,) future points.

        A keep of every die means stopping: its row holds the final-roll value in both arrays.
        """
        key = card.state
        cache = self._turn_cache  # one read: another thread (web server) may replace it meanwhile
        if key not in cache:
            cache = {key: keep_values(self.engine, self.values, *key)}
            self._turn_cache = cache
        return cache[key]

    # -- options ----------------------------------------------------------
    def keep_options(self, card: Card, dice, roll: int) -> list[Option]:
        """Every distinct keep after roll 1 or 2, ranked; keeping all dice = stop rolling."""
        if roll not in (1, 2):
            raise RuleError(f"keeping dice is decided after roll 1 or 2, not roll {roll}")
        self._check_card(card)
        after_second, after_first = self._turn(card)
        table = after_first if roll == 1 else after_second
        min_keep = self.variant.min_keep_last_reroll if roll == 2 else 0
        counts = self._counts(dice)
        n = self.variant.n_dice
        options = []
        for kept in product(*(range(c + 1) for c in counts)):
            size = sum(kept)
            if size < min_keep:
                continue
            faces = tuple(f for f, c in zip(self.faces, kept) for _ in range(c))
            if size == n:
                text = f"keep all: {_faces_text(faces)} (stop rolling)"
            elif size == 0:
                text = f"reroll all {n} dice"
            else:
                text = f"keep {_faces_text(faces)}, reroll {n - size} {'die' if n - size == 1 else 'dice'}"
            value = card.points + float(table[self.keep_index[kept]])
            options.append(Option("keep", value, keep=faces, text=text))
        return _rank(options)

    def box_options(self, card: Card, dice) -> list[Option]:
        """Every entry the final roll allows, ranked."""
        self._check_card(card)
        v = self.variant
        mask, _, flag = card.state
        rules = self.engine.rules
        r = self._roll_row(dice)
        extra = v.extra_points if flag and rules.joker_roll[r] else 0
        options = []
        for b, pts in roll_entries(rules, mask, flag, r):
            after = card.with_entry(b, pts, extra)
            name = v.box_name(b)
            text = f"score {name} for {pts}" if pts > 0 else f"scratch {name} (0)"
            if extra:
                text += f", +{extra} extra"
            options.append(Option("box", self.expected_final(after), box=b, points=pts, extra=extra, text=text))
        return _rank(options)

    def advise(self, card: Card, dice, roll: int, box_now: bool = False) -> tuple[str, list[Option]]:
        """('keep' or 'box', ranked options) for this point of the turn."""
        if roll not in (1, 2, 3):
            raise RuleError(f"roll must be 1, 2 or 3, not {roll}")
        if roll == 3 or box_now:
            return "box", self.box_options(card, dice)
        return "keep", self.keep_options(card, dice, roll)

    def _check_card(self, card: Card) -> None:
        if card.full:
            raise RuleError("the card is full: the game is over, there is nothing to advise")
        self.future(card)


def _rank(options: list[Option]) -> list[Option]:
    """Best first; among options within TIE of the best, the tie rule of dp/forward.py: the keep with
    the most dice (all = stop), then the smallest sorted faces (dice told apart: the smallest kept die
    indices); the lowest box index."""
    best = max(o.expected_final_score for o in options)
    options.sort(
        key=lambda o: (
            (0, -len(o.keep), o.keep_dice, o.keep, o.box)
            if o.expected_final_score >= best - TIE
            else (1, -o.expected_final_score)
        )
    )
    for o in options:
        o.loss = max(0.0, best - o.expected_final_score)
        if o.loss < TIE:
            o.loss = 0.0
    return options


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven")


class OrderedAdvisor(Advisor):
    """Advice for dice told apart (Kniffel 7): which dice, by identity, to keep."""

    def __init__(self, variant: Variant, values: np.ndarray):
        self.variant = variant
        self.values = values
        self.engine = make_engine(variant, allow_slow=True)
        self.faces = variant.faces
        self.roll_row = {m: i for i, m in enumerate(multisets(variant.n_dice, len(self.faces)))}
        self._turn_cache: dict = {}

    def _roll_row(self, dice) -> int:
        return self.roll_row[self._counts(dice)]

    def _turn(self, card: Card):
        """(final-roll values, keep values after roll 2, after roll 1), per partial assignment."""
        key = card.state
        cache = self._turn_cache  # one read: another thread (web server) may replace it meanwhile
        if key not in cache:
            cache = {key: ordered_keep_values(self.engine, self.values, *key)}
            self._turn_cache = cache
        return cache[key]

    def keep_options(self, card: Card, dice, roll: int) -> list[Option]:
        """Every choice of dice to keep after roll 1 or 2, ranked; keeping all dice = stop rolling."""
        if roll not in (1, 2):
            raise RuleError(f"keeping dice is decided after roll 1 or 2, not roll {roll}")
        self._check_card(card)
        v = self.variant
        final, after_second, after_first = self._turn(card)
        table = after_first if roll == 1 else after_second
        min_keep = v.min_keep_last_reroll if roll == 2 else 0
        n = v.n_dice
        codes = [v.dice[d].index(face) for d, face in enumerate(dice)]
        options = []
        for kept in range(1 << n):
            chosen = tuple(d for d in range(n) if kept >> d & 1)
            if len(chosen) < min_keep:
                continue
            if len(chosen) == n:
                value = float(final[self._roll_row(dice)])
                text = "keep all (stop rolling)"
            else:
                pa = sum((codes[d] if kept >> d & 1 else 6) * 7**d for d in range(n))
                value = float(table[pa])
                named = ", ".join(f"{v.die_names[d]} {dice[d]}" for d in chosen)
                text = (
                    f"keep {named}; reroll the other {NUMBER_WORDS[n - len(chosen)]}"
                    if chosen
                    else f"reroll all {NUMBER_WORDS[n]} dice"
                )
            faces = tuple(sorted(dice[d] for d in chosen))
            options.append(Option("keep", card.points + value, keep=faces, keep_dice=chosen, text=text))
        return _rank(options)


def make_advisor(variant: Variant, values: np.ndarray) -> Advisor:
    return Advisor(variant, values) if variant.identical_dice else OrderedAdvisor(variant, values)
