"""Many games of optimal play: score distribution, bonus and joker rates, each box's mean.

The games run turn by turn in lockstep (one driver, simulate(), for both kinds of dice):
every turn, the games that share a scorecard pattern (mask, joker_scored) are solved
together, one column per distinct upper total (dp.simulate_turn; dice told apart:
dp.play_ordered_turn, by state), so the per-turn work is that of the distinct
states, not of the games. Each game draws from its own random
stream (seeded from the seed and the game's number), so a result depends on
the seed alone, not on threads or batches.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..dp import make_engine, ordered_play_work, play_ordered_turn, ranked_sub_keeps, simulate_turn
from ..dp.compile import require_jit, thread_count
from ..dp.lanes import in_threads
from ..rules.variant import Variant

CHUNK = 4096  # games per parallel task; larger groups are split (their turn is solved once per task)
BATCH = 250_000  # games in memory at once
SCORES_KEPT = 1_000_000  # a tally keeps every game's score up to this many games (8 MB); beyond, only counts


def _seed_streams(seed: int, start: int, count: int) -> np.ndarray:
    """Independent starting states: the splitmix64 finaliser of (seed, game number)."""
    with np.errstate(over="ignore"):
        z = (np.uint64(seed & 0xFFFFFFFF) << np.uint64(32)) ^ np.arange(start, start + count, dtype=np.uint64)
        z = z * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


@dataclass
class Games:
    variant: Variant
    boxes: np.ndarray  # (N, B) points in each box
    extra: np.ndarray  # (N,) number of further jokers that paid extra points
    filled: np.ndarray | None = None  # (N, B) bool: the boxes filled (batches() with turns: a game not yet over)

    @property
    def upper(self) -> np.ndarray:
        cols = [i for i, b in enumerate(self.variant.boxes) if b.is_upper]
        return self.boxes[:, cols].sum(axis=1)

    @property
    def bonus(self):
        upper = self.upper
        return np.sum(
            [np.where(upper >= b.threshold, b.points, 0) for b in self.variant.bonuses], axis=0, dtype=np.int64
        )

    @property
    def scores(self) -> np.ndarray:
        return self.boxes.sum(axis=1) + self.bonus + self.extra * self.variant.extra_points


def simulate(variant: Variant, values: np.ndarray, n_games: int, seed: int = 0, progress=None) -> Games:
    """Play n_games with the optimal policy of `values`, every game's boxes kept (memory: 60 bytes a game;
    tally() counts instead)."""
    parts = list(batches(variant, values, n_games, seed, progress))
    boxes = np.concatenate([g.boxes for g in parts]) if parts else np.zeros((0, len(variant.boxes)), np.int32)
    return Games(variant, boxes, np.concatenate([g.extra for g in parts]) if parts else np.zeros(0, np.int64))


def batches(
    variant: Variant, values: np.ndarray, n_games: int, seed: int = 0, progress=None, card=None, turns=None
) -> Iterator[Games]:
    """The games in batches of BATCH, turn by turn in lockstep; `progress(k)` is told of k finished games
    (in parts: after every turn of a batch, the games' share of it). With `card` (a Card), every game
    starts from it: its boxes are in every game's boxes, and only its free boxes are played. With `turns`,
    only that many turns are played (Games.filled says which boxes are filled)."""
    require_jit("jit_simulate")
    play_turn = _ordered_turns(variant, values) if not variant.identical_dice else _identical_turns(variant, values)
    n_boxes = len(variant.boxes)
    filled = {} if card is None else card.filled
    n_turns = n_boxes - len(filled) if turns is None else turns
    for start in range(0, n_games, BATCH):
        m = min(BATCH, n_games - start)
        g_mask, g_upper, g_joker_scored, g_extra = (np.zeros(m, dtype=np.int64) for _ in range(4))
        g_boxes = np.zeros((m, n_boxes), dtype=np.int32)
        if card is not None:
            g_mask[:], g_upper[:], g_joker_scored[:] = card.mask, card.upper_total, card.joker_scored
            g_extra[:] = card.extra // variant.extra_points if variant.extra_points else 0
            g_boxes[:, list(filled)] = list(filled.values())
        rng = _seed_streams(seed, start, m)
        told = 0
        for turn in range(n_turns):
            play_turn(g_mask, g_upper, g_joker_scored, g_boxes, g_extra, rng)
            if progress is not None:
                now = m * (turn + 1) // n_turns
                progress(now - told)
                told = now
        yield Games(variant, g_boxes, g_extra, (g_mask[:, None] >> np.arange(n_boxes)) & 1 == 1)


@dataclass
class Tally:
    """What the figures of many games need, counted batch by batch: memory bounded whatever the number of
    games. Final scores are whole numbers, so their counts give the mean, std, median and percentiles exactly."""

    variant: Variant
    games: int = 0
    score_counts: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # [s]: games scoring s
    box_sums: np.ndarray = field(init=False)  # (B,) points in each box, all games together
    box_zeros: np.ndarray = field(init=False)  # (B,) games with 0 in the box
    bonus_reached: np.ndarray = field(init=False)  # per upper bonus: games whose upper total reached it
    extra_games: int = 0  # games with extra points
    extra_jokers: int = 0  # further jokers that paid extra points, all games together
    scores: np.ndarray | None = field(default_factory=lambda: np.zeros(0, np.int64))  # None past SCORES_KEPT

    def __post_init__(self):
        n_boxes = len(self.variant.boxes)
        self.box_sums = np.zeros(n_boxes, np.int64)
        self.box_zeros = np.zeros(n_boxes, np.int64)
        self.bonus_reached = np.zeros(len(self.variant.bonuses), np.int64)

    def add(self, games: Games) -> None:
        scores = games.scores.astype(np.int64)
        counts = np.bincount(scores)
        if len(counts) > len(self.score_counts):
            self.score_counts = np.pad(self.score_counts, (0, len(counts) - len(self.score_counts)))
        self.score_counts[: len(counts)] += counts
        self.games += len(scores)
        self.box_sums += games.boxes.sum(axis=0, dtype=np.int64)
        self.box_zeros += (games.boxes == 0).sum(axis=0)
        upper = games.upper
        # an int64 array, not a list: numpy would read an empty list (no bonus: Generala, Yacht) as float64
        self.bonus_reached += np.array([(upper >= b.threshold).sum() for b in self.variant.bonuses], np.int64)
        self.extra_games += int((games.extra > 0).sum())
        self.extra_jokers += int(games.extra.sum())
        keep = self.scores is not None and self.games <= SCORES_KEPT
        self.scores = np.concatenate([self.scores, scores]) if keep and self.scores is not None else None

    def score_at(self, k: int) -> int:
        """The k-th smallest final score (0-based)."""
        return int(np.searchsorted(np.cumsum(self.score_counts), k, side="right"))


def tally(variant: Variant, values: np.ndarray, n_games: int, seed: int = 0, progress=None) -> Tally:
    """Play n_games (the same games as simulate()) and count what summary() reports."""
    counted = Tally(variant)
    for games in batches(variant, values, n_games, seed, progress):
        counted.add(games)
    return counted


def _identical_turns(variant: Variant, values: np.ndarray):
    """One turn of every game of a batch, identical dice: the games that share a scorecard pattern
    (mask, joker_scored) are solved together, one column per distinct upper total (dp.simulate_turn)."""
    engine = make_engine(variant)
    ranked_subs = ranked_sub_keeps(engine.lattice)
    cap = variant.upper_cap

    def play_turn(g_mask, g_upper, g_joker_scored, g_boxes, g_extra, rng):
        group_key = g_mask * 2 + g_joker_scored
        groups, group_of = np.unique(group_key, return_inverse=True)
        state_key = group_of * (cap + 1) + np.minimum(g_upper, cap)
        cols, col_of = np.unique(state_key, return_inverse=True)
        col_group = cols // (cap + 1)
        group_col = np.searchsorted(col_group, np.arange(len(groups) + 1))
        game_col = col_of - group_col[group_of]
        games = np.argsort(group_of, kind="stable")
        game_ptr = np.searchsorted(group_of[games], np.arange(len(groups) + 1))
        task_group, task_lo, task_hi = [], [], []
        for grp in range(len(groups)):
            for lo in range(game_ptr[grp], game_ptr[grp + 1], CHUNK):
                task_group.append(grp)
                task_lo.append(lo)
                task_hi.append(min(lo + CHUNK, game_ptr[grp + 1]))
        order = np.argsort(-(np.array(task_hi) - np.array(task_lo)), kind="stable")  # big tasks first
        tasks = [np.array(x, dtype=np.int64)[order] for x in (task_group, task_lo, task_hi)]
        group_cols = [groups // 2, groups % 2, group_col.astype(np.int64), cols % (cap + 1)]
        players = [games.astype(np.int64), game_col.astype(np.int64)]
        in_play = [g_mask, g_upper, g_joker_scored, g_boxes, g_extra, rng]
        args = (*tasks, *group_cols, *players, *in_play, ranked_subs, engine.rules, engine.lattice, values)
        # each thread takes the next few tasks (big ones first): a balanced split, a dispatch per few tasks
        in_threads(simulate_turn, len(order), *args, chunk=max(1, len(order) // (16 * thread_count())))

    return play_turn


def _ordered_turns(variant: Variant, values: np.ndarray):
    """One turn of every game of a batch, dice told apart (Kniffel 7): the games are grouped by state,
    and each state's turn tables (dp/ordered_play.py) are built once per turn for all its games, 8
    states per kernel call."""
    engine = make_engine(variant, allow_slow=True)
    assert engine.ordered is not None
    works = [ordered_play_work(engine) for _ in range(thread_count())]
    cap = variant.upper_cap

    def play_turn(g_mask, g_upper, g_joker_scored, g_boxes, g_extra, rng):
        capped_upper = np.minimum(g_upper, cap)
        states, state_of = np.unique((g_mask * 2 + g_joker_scored) * (cap + 1) + capped_upper, return_inverse=True)
        order = np.argsort(state_of, kind="stable").astype(np.int64)
        ptr = np.searchsorted(state_of[order], np.arange(len(states) + 1)).astype(np.int64)
        n_states = len(states)
        n_calls = -(-n_states // 8)
        padded = np.concatenate([states, np.repeat(states[-1:], n_calls * 8 - n_states)]).reshape(n_calls, 8)
        real = np.arange(n_calls * 8).reshape(n_calls, 8) < n_states
        starts = np.where(
            real, np.concatenate([ptr[:-1], np.zeros(n_calls * 8 - n_states, np.int64)]).reshape(n_calls, 8), 0
        )
        stops = np.where(
            real, np.concatenate([ptr[1:], np.zeros(n_calls * 8 - n_states, np.int64)]).reshape(n_calls, 8), 0
        )
        calls = (padded // (cap + 1) // 2, padded // (cap + 1) % 2, padded % (cap + 1), real.sum(axis=1))
        games = (g_mask, g_upper, g_joker_scored, g_boxes, g_extra, rng)
        play_ordered_turn(engine, values, calls, (starts, stops, order), games, works)

    return play_turn


def summary(counted: Tally) -> dict:
    """The figures `kniffel simulate` reports, from the counts: mean, median and percentiles as numpy gives
    them for the list of scores, std with the variance worked out exactly (numpy's sum of squares may differ
    in the last bit)."""
    v = counted.variant
    n = counted.games
    faces = np.arange(len(counted.score_counts))
    total = int(faces @ counted.score_counts)
    squares = int((faces * faces) @ counted.score_counts)
    variance = Fraction(n * squares - total * total, n * (n - 1)) if n > 1 else Fraction(0)
    std = math.sqrt(variance)
    pct = (1, 5, 25, 75, 95, 99)
    low, high = counted.score_at(0), counted.score_at(n - 1)
    out = {
        "variant": v.name,
        "games": n,
        "mean": total / n,
        "stderr": std / math.sqrt(n) if n > 1 else 0.0,
        "std": std,
        "median": (counted.score_at((n - 1) // 2) + counted.score_at(n // 2)) / 2,
        "min": low,
        "max": high,
        "percentiles": {str(p): _percentile(counted, p) for p in pct},
        "p_at_least": {str(t): int(counted.score_counts[t:].sum()) / n for t in (200, 250, 300, 400)},
        "upper_bonus_rate": {str(b.threshold): int(k) / n for b, k in zip(v.bonuses, counted.bonus_reached)},
        "boxes": {
            b.key: {
                "name": v.box_name(i),
                "mean": int(counted.box_sums[i]) / n,
                "zero_rate": int(counted.box_zeros[i]) / n,
            }
            for i, b in enumerate(v.boxes)
        },
    }
    if v.extra_points:
        out["extra_rate"] = counted.extra_games / n
        out["extra_mean_count"] = counted.extra_jokers / n
    return out


def _percentile(counted: Tally, p: int) -> float:
    """np.percentile(scores, p) from the counts, with numpy's arithmetic ('linear': (n - 1) * q, then the
    lerp of the two neighbours that numpy's _lerp does), so that the figures stay those of the list."""
    n = counted.games
    virtual = (n - 1) * (p / 100)
    if virtual >= n - 1:
        return float(counted.score_at(n - 1))
    below = math.floor(virtual)
    a, b = float(counted.score_at(below)), float(counted.score_at(below + 1))
    gamma = virtual - below
    return b - (b - a) * (1 - gamma) if gamma >= 0.5 else a + (b - a) * gamma


def text_histogram(score_counts: np.ndarray, bins: int = 20, width: int = 50) -> str:
    """The scores' histogram as text, from their counts ([s]: games that scored s)."""
    seen = np.flatnonzero(score_counts)
    lo, hi = int(seen[0]), int(seen[-1])
    step = max(1, -(-(hi - lo + 1) // bins))
    edges = np.arange(lo - lo % step, hi + step + 1, step)
    counts = np.array([score_counts[a:b].sum() for a, b in zip(edges[:-1], edges[1:])])
    top = counts.max()
    rows = []
    for left, c in zip(edges[:-1], counts):
        bar = "#" * int(round(width * c / top)) if top else ""
        rows.append(f"  {left:>4}-{left + step - 1:<4} {c:>9,} {bar}")
    return "\n".join(rows)
