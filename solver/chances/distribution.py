"""Exact final-score distributions of the advisor's play, and the odds between players.

Plain functions over (variant, value table, card); the results are small frozen objects whose
`as_dict()` is the CLI's --json. The work is the forward pass of solver/dp/forward.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..advice.cards import Card
from ..dp import make_engine
from ..dp.compile import require_jit, thread_count
from ..dp.forward import forward_pmf
from ..dp.forward_ordered_layers import SECONDS_PER_STATE, ordered_pmf, state_bound
from ..errors import KniffelError
from ..i18n.texts import t
from ..rules.checks import check_names
from ..rules.scoring import possible_points
from ..rules.variant import Variant
from ..store.expected_play_cache import cached_rest, store_rest, values_digest
from ..store.shipped_pmf import shipped_pmf

PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)
THRESHOLDS = (200, 250, 300, 350, 400)
MAX_PLAYERS = 6
CDF_TOL = 1e-12  # a cumulative probability this close to q/100 counts as reaching it (float sums)


class DistributionError(KniffelError):
    """A distribution or odds request that cannot be answered."""


@dataclass(frozen=True)
class Distribution:
    variant: str
    card: str
    mean: float
    std: float
    median: int
    percentiles: dict[str, int]
    p_at_least: dict[str, float]
    min: int
    max: int
    pmf: tuple[float, ...]  # P(final score = s), s = 0 ... max
    seconds: float

    def as_dict(self) -> dict:
        return {
            "variant": self.variant,
            "card": self.card,
            "mean": self.mean,
            "std": self.std,
            "median": self.median,
            "percentiles": dict(self.percentiles),
            "p_at_least": dict(self.p_at_least),
            "min": self.min,
            "max": self.max,
            "pmf": list(self.pmf),
            "seconds": self.seconds,
        }


@dataclass(frozen=True)
class Player:
    name: str
    card: str
    win: float  # P(finishing first alone)
    expected_final_score: float
    std: float

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "card": self.card,
            "win": self.win,
            "expected_final_score": self.expected_final_score,
            "std": self.std,
        }


@dataclass(frozen=True)
class Odds:
    variant: str
    players: tuple[Player, ...]
    tie: float  # P(two or more players share the highest score)

    def as_dict(self) -> dict:
        return {
            "variant": self.variant,
            "players": [p.as_dict() for p in self.players],
            "tie": self.tie,
        }


def max_score(variant: Variant) -> int:
    """An upper bound of every final score: each box at its maximum, every bonus, a further joker's
    extra points in every turn after the joker box."""
    boxes = sum(max(possible_points(variant, b)) for b in range(len(variant.boxes)))
    extras = variant.extra_points * (len(variant.boxes) - 1) if variant.joker_box else 0
    return boxes + sum(b.points for b in variant.bonuses) + extras


def final_pmf(
    variant: Variant, values: np.ndarray, card: Card, engine=None, progress=None, directory: Path | None = None
) -> np.ndarray:
    """P(final score = s) for s = 0 ... highest reached, from `card` at the start of a turn. progress(k): k more
    steps of the forward pass done (turns' layers for identical dice, states for dice told apart; it may raise
    to stop it). Dice told apart: the points still to come come from the shipped pmf (empty card), else the
    disk cache in `directory` (when given), else the forward pass (then cached there)."""
    state = card.state
    check_card(variant, values, card)
    if card.full:
        pmf = np.zeros(card.points + 1)
        pmf[card.points] = 1.0
        return pmf
    if not variant.identical_dice:
        rest = _ordered_rest(variant, values, card, engine, progress, directory)
        return np.concatenate([np.zeros(card.points), rest])
    engine = engine or make_engine(variant)
    return forward_pmf(engine, values, *state, card.points, progress)


def check_card(variant: Variant, values: np.ndarray, card: Card) -> None:
    """A card the rules allow entry by entry but no game reaches (the table has no value for it) is refused."""
    if not np.isfinite(values[card.state]):
        raise DistributionError(t("card_cannot_occur", card=card.format(), variant=variant.name))


def _ordered_rest(variant: Variant, values: np.ndarray, card: Card, engine, progress, directory) -> np.ndarray:
    digest = values_digest(values)
    rest = shipped_pmf(variant, digest) if not card.filled else None
    if rest is None and directory is not None:
        rest = cached_rest(variant, directory, digest, card.state)
    if rest is None:
        engine = engine or make_engine(variant, allow_slow=True)
        rest = ordered_pmf(engine, values, *card.state, 0, thread_count(), progress)
        if directory is not None:
            store_rest(variant, directory, digest, card.state, rest)
    return rest


def pmf_work(variant: Variant, values: np.ndarray, card: Card, directory: Path | None = None) -> tuple[int, float]:
    """(states, seconds): at most how many turn states the forward pass from `card` visits and about how
    long it takes, (0, 0.0) when the answer is at hand (identical dice: seconds at most; a shipped or
    cached pmf, a full card)."""
    check_card(variant, values, card)
    if variant.identical_dice or card.full:
        return 0, 0.0
    digest = values_digest(values)
    if not card.filled and shipped_pmf(variant, digest) is not None:
        return 0, 0.0
    if directory is not None and cached_rest(variant, directory, digest, card.state) is not None:
        return 0, 0.0
    states = state_bound(make_engine(variant, allow_slow=True), *card.state)
    return states, states * SECONDS_PER_STATE / thread_count()


def passes_work(variant: Variant, values: np.ndarray, cards, directory: Path | None = None) -> tuple[int, float]:
    """pmf_work summed over the cards' distinct states (odds: one pass a state)."""
    work = [pmf_work(variant, values, card, directory) for card in {c.state: c for c in cards}.values()]
    return sum(s for s, _ in work), sum(sec for _, sec in work)


def pass_duration(seconds: float) -> str:
    """A forward pass's estimated time as a message shows it: whole minutes, hours from two hours on."""
    minutes = max(1, round(seconds / 60))
    return f"{minutes} min" if minutes < 120 else f"{round(minutes / 60)} h"


def expected_play_at_least(
    variant: Variant, values: np.ndarray, card: Card, targets, directory: Path | None = None, progress=None
) -> list[float]:
    """P(final score >= T) for each T of `targets` when the rest of the game is played for the maximum
    expected score (the advisor's play, its tie rule): exact, from the forward pass (final_pmf)."""
    tail = tail_probabilities(final_pmf(variant, values, card, progress=progress, directory=directory))
    return [float(tail[max(int(x), 0)]) if x < tail.shape[0] else 0.0 for x in targets]


def tail_probabilities(pmf: np.ndarray) -> np.ndarray:
    """P(final score >= s) for every s. Capped at 1: a pmf that sums to 1 within rounding can add up to
    1 + 2e-14, and a probability above 1 is not one to show; and exactly 1 up to the lowest score it
    reaches (a game always ends: the sum was 1 - 3e-15 there)."""
    tail = np.minimum(np.cumsum(pmf[::-1])[::-1], 1.0)
    reached = np.flatnonzero(pmf > 0)
    tail[: reached[0] + 1 if reached.size else 0] = 1.0
    return tail


def p_at_least(pmf: np.ndarray, target: int) -> float:
    """P(final score >= target) from a pmf of final scores."""
    return float(tail_probabilities(pmf)[max(target, 0)]) if target < pmf.shape[0] else 0.0


def percentile(cdf: np.ndarray, q: float) -> int:
    """Smallest score s with P(final <= s) >= q / 100."""
    return int(np.searchsorted(cdf, q / 100 - CDF_TOL, side="left"))


def _summary(pmf: np.ndarray) -> tuple[float, float]:
    s = np.arange(pmf.shape[0])
    mean = float(s @ pmf)
    return mean, float(np.sqrt(((s - mean) ** 2) @ pmf))


def check_thresholds(variant: Variant, thresholds) -> tuple[int, ...]:
    top = max_score(variant)
    for value in thresholds:
        if not 0 <= value <= top:
            raise DistributionError(t("dist_at_least_range", value=value, top=top, variant=variant.name))
    return tuple(thresholds)


def distribution(
    variant: Variant,
    values: np.ndarray,
    card: Card,
    at_least=(),
    engine=None,
    progress=None,
    directory: Path | None = None,
) -> Distribution:
    """The exact final-score distribution from `card` (start of a turn) under the advisor's play
    (progress, directory: as final_pmf's)."""
    require_jit("jit_distribution")
    extra = check_thresholds(variant, at_least)
    t0 = time.perf_counter()
    pmf = final_pmf(variant, values, card, engine, progress, directory)
    seconds = time.perf_counter() - t0
    return describe(variant, card, pmf, extra, seconds)


def describe(variant: Variant, card: Card, pmf: np.ndarray, at_least=(), seconds: float = 0.0) -> Distribution:
    """The Distribution object of a pmf."""
    mean, std = _summary(pmf)
    cdf = np.cumsum(pmf)
    tail = tail_probabilities(pmf)
    support = np.flatnonzero(pmf > 0)
    thresholds = sorted(set(THRESHOLDS) | set(at_least))
    return Distribution(
        variant=variant.name,
        card=card.format(),
        mean=mean,
        std=std,
        median=percentile(cdf, 50),
        percentiles={str(q): percentile(cdf, q) for q in PERCENTILES},
        p_at_least={str(t): float(tail[t]) if t < tail.shape[0] else 0.0 for t in thresholds},
        min=int(support[0]),
        max=int(support[-1]),
        pmf=tuple(float(p) for p in pmf),
        seconds=round(seconds, 3),
    )


def check_players(cards: list[Card], names: list[str] | None) -> list[str]:
    """The players' names (default 'Player 1', ...), after checking the number of players and names."""
    if not 2 <= len(cards) <= MAX_PLAYERS:
        raise DistributionError(t("odds_players_count", most=MAX_PLAYERS, count=len(cards)))
    if names is None:
        names = [f"Player {i + 1}" for i in range(len(cards))]  # data, as --json keeps it in every language
    if len(names) != len(cards):
        raise DistributionError(t("odds_names_count", names=len(names), cards=len(cards)))
    check_names(names, "--names", DistributionError)
    turns = {len(c.filled) for c in cards}
    if len(turns) > 1:
        raise DistributionError(t("odds_same_round", counts=", ".join(str(len(c.filled)) for c in cards)))
    return names


def odds(
    variant: Variant,
    values: np.ndarray,
    cards: list[Card],
    names: list[str] | None = None,
    progress=None,
    directory: Path | None = None,
) -> Odds:
    """Each player's chance of finishing first alone, and of a tie for first: 2-6 players, all at the
    start of the same round, independent dice, each playing for the maximum expected score (progress,
    directory: as final_pmf's)."""
    names = check_players(cards, names)
    engine = make_engine(variant) if variant.identical_dice else None  # dice told apart: made when needed
    pmfs: dict[tuple, np.ndarray] = {}
    dists = []
    for card in cards:
        key = (card.state, card.points)
        if key not in pmfs:
            pmfs[key] = final_pmf(variant, values, card, engine, progress, directory)
        dists.append(pmfs[key])
    wins = win_alone(dists)
    players = []
    for name, card, pmf, win in zip(names, cards, dists, wins):
        mean, std = _summary(pmf)
        players.append(Player(name, card.format(), float(win), mean, std))
    tie = max(0.0, 1.0 - float(sum(wins)))
    return Odds(variant.name, tuple(players), tie)


def win_alone(pmfs: list[np.ndarray]) -> list[float]:
    """P(player i's score is higher than every other's), independent scores."""
    top = max(p.shape[0] for p in pmfs)
    padded = [np.pad(p, (0, top - p.shape[0])) for p in pmfs]
    below = [np.concatenate([[0.0], np.cumsum(p)[:-1]]) for p in padded]  # P(X < s)
    out = []
    for i, p in enumerate(padded):
        others = np.ones(top)
        for k, b in enumerate(below):
            if k != i:
                others *= b
        out.append(float(p @ others))
    return out
