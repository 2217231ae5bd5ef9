"""Playing to reach a target score: the probability of finishing with at least T, and every option
of a situation ranked by it (each also with its expected final score from the value table).

Plain functions over a TargetTable (the flat table of solver/dp/target.py, its layout and the
engine), for the CLI and for the Table API. The tables themselves: solver/dp/target.py (kernel),
solver/store/target_tables.py (disk).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..advice.advisor import Advisor, Option
from ..advice.cards import Card
from ..dp import Engine, make_engine
from ..dp.compile import require_jit
from ..dp.target import solve_target, target_keep_values
from ..dp.target_layout import TargetLayout, item_lengths, max_remaining, target_layout
from ..errors import KniffelError
from ..i18n.texts import t as text_of
from ..rules import checks
from ..rules.variant import Variant
from ..store.target_layers import next_tables
from ..store.target_layers import state_column as stored_column

# N, the largest need stored, per preset: the 99th percentile of the final score under max-expected
# play (1,000,000 simulated games each, `kniffel simulate VARIANT -n 1000000`), rounded up to a
# multiple of 50. An opponent beats it in fewer than one game in a hundred, and from a card with
# points p every target up to p + N is covered. Yatzy's N is its highest possible score, 374.
TARGET_N = {
    "kniffel": 400,  # 99th percentile 390
    "kniffel-keep-one": 400,
    "wuerfelpoker": 400,  # Kniffel's rules under other names
    "kniffel-meister": 400,  # 377
    "yahtzee": 500,  # 474
    "yahtzee-free-joker": 500,
    "yatzy": 374,  # 325; 374 is every score there is
    "yatzy6": 400,  # 359
    "kismet": 450,  # 445
    "yams": 350,  # 309
    "generala": 360,  # every score there is (a table of 476,160 values, 2.7 s)
}


class TargetError(KniffelError):
    """A target that the table cannot answer, or a variant without target tables."""


class TargetTable(NamedTuple):
    variant: Variant
    engine: Engine
    flat: np.ndarray
    layout: TargetLayout
    file: tuple[Path, list[int] | None] | None = None  # a loaded table: its path and identity when loaded

    @property
    def n_max(self) -> int:
        return self.layout.n_max

    def unchanged(self) -> bool:
        """Whether a loaded table's file is still the one memory-mapped: a holder that lives on (the server,
        an API Table) loads it again when not, rather than read bytes no checksum has seen."""
        from ..store.target_tables import file_identity

        return self.file is None or file_identity(self.file[0]) == self.file[1]


_ENGINES: dict[Variant, Engine] = {}  # target_engine's, per variant: a fresh `chances` asked for three


def target_engine(variant: Variant) -> Engine:
    """The engine of a variant that has target tables (identical dice); Kniffel 7 is refused. Built
    once per variant in a process (0.2-0.4 s for kniffel)."""
    _check_identical_dice(variant)
    engine = _ENGINES.get(variant)
    if engine is None:
        if len(_ENGINES) >= 8:
            _ENGINES.clear()
        engine = _ENGINES[variant] = make_engine(variant)
    return engine


def default_n(variant: Variant, engine: Engine | None = None) -> int:
    """N of a preset (TARGET_N); for other variants (reduced ones in tests) the highest score."""
    if variant.name in TARGET_N:
        return TARGET_N[variant.name]
    best = max_remaining(engine or target_engine(variant))
    return max(1, int(round(best[0, 0, 0])))


def planned_layout(variant: Variant, n_max: int | None = None, engine: Engine | None = None) -> TargetLayout:
    """Where each value of the variant's target table goes, up to need n_max (default: default_n)."""
    engine = engine or target_engine(variant)
    n = n_max or default_n(variant, engine)
    return target_layout(engine, n, item_lengths(engine, n))


def build_target_table(
    variant: Variant, n_max: int | None = None, progress=None, engine: Engine | None = None, min_filled: int = 0
) -> TargetTable:
    """Solve the target table up to need n_max (default: default_n), in float64 (`min_filled`:
    only the cards with at least that many boxes filled, see solve_target)."""
    require_jit("jit_target", variant=variant.name)  # KNIFFEL_JIT=0: before the layout's interpreted minutes
    engine = engine or target_engine(variant)
    layout = planned_layout(variant, n_max, engine)
    return TargetTable(variant, engine, solve_target(engine, layout, progress, min_filled), layout)


def build_and_save(
    variant: Variant, layout: TargetLayout, directory: Path, layer_done=None
) -> tuple[TargetTable, dict]:
    """Build the variant's target table of `layout` (planned_layout's), save it atomically in `directory`
    and return it as stored, with its sidecar; layer_done(values) is told of each layer built."""
    from ..store.target_tables import save_target, stored

    engine = target_engine(variant)
    t0 = time.perf_counter()
    flat = solve_target(engine, layout, layer_done)
    meta = save_target(variant, flat, layout, directory, seconds=time.perf_counter() - t0)
    return TargetTable(variant, engine, stored(flat), layout), meta


def load_or_build(variant: Variant, directory: Path, build: Callable[[], TargetTable]) -> TargetTable:
    """The saved target table, else build()'s, after what must hold before minutes of work: compiled kernels
    (KNIFFEL_JIT=0 refused) and a tables folder that takes its files. The CLI's and the API's way in."""
    from ..store.tables import check_writable_folder
    from ..store.target_tables import TargetTableMissing, target_paths

    try:
        return load_target_table(variant, directory)
    except TargetTableMissing:
        require_jit("jit_target", variant=variant.name)  # refused, not announced
        check_writable_folder(directory, target_paths(variant, directory))
        return build()


def check_target(variant: Variant, card: Card, target: int) -> None:
    """Refuse, before any table is loaded or built, what no target table answers: dice told apart,
    a full card, a target below 1 or more than N above the card's points (N of default_n)."""
    _check_identical_dice(variant)
    _check_card(variant, card)
    _check_need(variant, card, target, default_n(variant))


def _check_identical_dice(variant: Variant) -> None:
    """Dice told apart (Kniffel 7): no target table in the tables folder; it is a job (solve --job-dir), and
    chances/advise --target answer from the card (ordered_chances.py)."""
    if not variant.identical_dice:
        raise TargetError(text_of("target_told_apart", variant=variant.name))


def _check_card(variant: Variant, card: Card) -> None:
    if card.full:
        raise TargetError(text_of("target_card_full"))


def _check_need(variant: Variant, card: Card, target: int, n_max: int) -> None:
    if target < 1:
        raise TargetError(text_of("target_at_least_one", target=target))
    if target - card.points > n_max:
        most = card.points + n_max
        raise TargetError(
            text_of(
                "target_beyond_table", target=target, variant=variant.name, n_max=n_max, points=card.points, most=most
            )
        )


def need(table: TargetTable, card: Card, target: int) -> int:
    """Points still needed to finish with at least `target`; checked against the table's N."""
    _check_need(table.variant, card, target, table.n_max)
    return target - card.points


def state_column(table: TargetTable, card: Card) -> np.ndarray:
    """P(at least n more points) from `card` at the start of a turn, n = 1..L (0 beyond L)."""
    mask, upper, joker_scored = card.state
    if table.layout.col[table.layout.row[mask, joker_scored], upper] < 0:
        raise TargetError(text_of("target_card_impossible", card=card.format(), variant=table.variant.name))
    return stored_column(table.engine, table.layout, table.flat, mask, upper, joker_scored)


def _lookup(table: TargetTable, card: Card, n: int) -> float:
    column = state_column(table, card)
    if n <= 0:
        return 1.0
    return float(column[n - 1]) if n <= column.shape[0] else 0.0


def target_probability(variant: Variant, table: TargetTable, card: Card, target: int) -> float:
    """The highest probability of finishing the game with at least `target` points from `card` at the
    start of a turn."""
    _check_card(variant, card)
    return _lookup(table, card, need(table, card, target))


@dataclass(frozen=True)
class Chances:
    """`kniffel chances`: the result object (as_dict is the --json schema)."""

    variant: str
    card: str
    target: int
    probability: float | None  # None: beyond what one machine computes (Kniffel 7 early in a game)
    # P(at least target) under max-expected play, from the exact distribution (another module):
    # filled in by the caller when available, omitted from as_dict until then
    probability_expected_play: float | None = None
    expected_play_games: int | None = None  # that probability estimated by simulating this many games
    expected_play_stderr: float | None = None  # and its standard error

    def as_dict(self) -> dict:
        d = {"variant": self.variant, "card": self.card, "target": self.target, "probability": self.probability}
        if self.probability_expected_play is not None:
            d["probability_expected_play"] = self.probability_expected_play
        if self.expected_play_games is not None:
            d["expected_play_games"] = self.expected_play_games
            d["expected_play_stderr"] = self.expected_play_stderr
        return d


def chances(variant: Variant, table: TargetTable, card: Card, target: int, expected_play_probability=None) -> Chances:
    """The target probability of a card; `expected_play_probability(card, target)`, when given, adds
    the probability under max-expected play for comparison."""
    p = target_probability(variant, table, card, target)
    other = None if expected_play_probability is None else float(expected_play_probability(card, target))
    return Chances(variant.name, card.format(), target, p, other)


@dataclass(frozen=True)
class TargetOption:
    """An option of the advisor (keep or box) with its probability of reaching the target."""

    option: Option
    probability: float

    def as_dict(self, variant: Variant) -> dict:
        return {**self.option.as_dict(variant), "probability": self.probability}


PROBABILITY_TIE = 1e-6  # probabilities closer than this count as equal: the expected score decides


def _rank(options: list[TargetOption]) -> list[TargetOption]:
    """By probability; options within PROBABILITY_TIE of a better one are ranked among themselves by
    expected final score (a difference of a millionth in probability is no reason to lose points)."""
    by_p = sorted(options, key=lambda o: (-o.probability, -o.option.expected_final_score))
    ranked: list[TargetOption] = []
    i = 0
    while i < len(by_p):  # groups of options whose probabilities chain within the tie distance
        j = i + 1
        while j < len(by_p) and by_p[j - 1].probability - by_p[j].probability < PROBABILITY_TIE:
            j += 1
        ranked.extend(sorted(by_p[i:j], key=lambda o: -o.option.expected_final_score))
        i = j
    return ranked


def target_keep_probabilities(table: TargetTable, card: Card, n: int) -> tuple[np.ndarray, np.ndarray]:
    """P(reaching need n) of every keep (keep-lattice rows): (after roll 2, after roll 1)."""
    mask, upper, joker_scored = card.state
    flat, layout = next_tables(table.engine, table.layout, table.flat, mask, upper, joker_scored, needs=n)
    return target_keep_values(table.engine, layout, flat, mask, upper, joker_scored, n)


def target_options(
    variant: Variant,
    table: TargetTable,
    advisor: Advisor,
    card: Card,
    dice,
    roll: int,
    target: int,
    box_now: bool = False,
) -> tuple[str, list[TargetOption]]:
    """('keep' or 'box', every option ranked by the probability of finishing with at least
    `target`); each option also carries its expected final score (advisor, value table)."""
    _check_card(variant, card)
    n = need(table, card, target)
    action, options = advisor.advise(card, dice, roll, box_now)
    if action == "box":
        ranked = []
        for o in options:
            after = card.with_entry(o.box, o.points, o.extra)
            ranked.append(
                TargetOption(o, 1.0 if after.points >= target else _lookup(table, after, target - after.points))
            )
        return action, _rank(ranked)
    if n <= 0:
        return action, _rank([TargetOption(o, 1.0) for o in options])
    after_second, after_first = target_keep_probabilities(table, card, n)
    probs = after_first if roll == 1 else after_second
    counts_of = {o.keep: tuple(sum(1 for d in o.keep if d == f) for f in variant.faces) for o in options}
    ranked = [TargetOption(o, float(probs[advisor.keep_index[counts_of[o.keep]]])) for o in options]
    return action, _rank(ranked)


@dataclass(frozen=True)
class TargetAdvice:
    """`advise --target`: the options of a situation ranked by the probability of reaching the target
    (as_dict is the --json schema, served as is by the web API)."""

    variant: Variant
    card: Card
    dice: tuple[int, ...]
    roll: int
    target: int
    action: str
    probability: float  # at the start of this turn, from the card alone
    expected_final_score: float  # of the card under max-expected play (value table)
    options: list[TargetOption]
    then: TargetOption | None  # after "keep all": the box to fill

    @property
    def best(self) -> TargetOption:
        return self.options[0]

    def as_dict(self, all_options: bool = False) -> dict:
        all_options = checks.flag("all_options", all_options)
        return {
            "variant": self.variant.name,
            "card": self.card.format(),
            "dice": list(self.dice),
            "roll": self.roll,
            "target": self.target,
            "action": self.action,
            "probability": self.probability,
            "expected_final_score": self.expected_final_score,
            "best": self.best.as_dict(self.variant),
            "then": self.then.as_dict(self.variant) if self.then else None,
            "options": [o.as_dict(self.variant) for o in (self.options if all_options else self.options[:10])],
            "options_total": len(self.options),
        }


def target_advice(
    variant: Variant,
    table: TargetTable,
    advisor: Advisor,
    card: Card,
    dice,
    roll: int,
    target: int,
    box_now: bool = False,
) -> TargetAdvice:
    """Every option ranked for the target; when the best is to keep all dice, also the box it leads to."""
    action, options = target_options(variant, table, advisor, card, dice, roll, target, box_now)
    then = None
    if action == "keep" and len(options[0].option.keep) == variant.n_dice:  # stopping: the box comes next
        # entered after this roll (after roll 1 with first-roll points, Generala's servida)
        then = target_options(variant, table, advisor, card, dice, roll, target, box_now=True)[1][0]
    probability = target_probability(variant, table, card, target)
    rolled = tuple(int(d) for d in dice)
    return TargetAdvice(
        variant, card, rolled, roll, target, action, probability, advisor.expected_final(card), options, then
    )


def load_target_table(variant: Variant, directory: Path) -> TargetTable:
    """The variant's saved target table, verified; never built here (TargetTableMissing when absent)."""
    from ..store.target_tables import TargetTableError, load_target, target_paths

    engine = target_engine(variant)
    flat, layout, _, identity = load_target(variant, engine, directory)
    path = target_paths(variant, directory)[0]
    n = default_n(variant, engine)
    if layout.n_max != n:
        fix = text_of("target_fix", variant=variant.name)
        raise TargetTableError(text_of("target_n", path=path, n_max=layout.n_max, n=n, fix=fix))
    return TargetTable(variant, engine, flat, layout, (path, identity))
