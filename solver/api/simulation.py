"""`simulate`: games of optimal play, counted (`Simulation`)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..chances import simulation as _simulation
from ..i18n.texts import t
from ..rules import checks
from ..rules.dice import MAX_GAMES, MAX_SEED, MIN_GAMES
from ..rules.variant import RuleError, Variant
from .table import Table, load


@dataclass(frozen=True)
class Simulation:
    """Games of optimal play: the figures of `kniffel simulate` and every game's score."""

    variant: str
    games: int
    seed: int
    seconds: float
    mean: float
    stderr: float
    std: float
    median: float
    min: int
    max: int
    percentiles: dict[str, float]  # "1", "5", "25", "75", "95", "99"
    p_at_least: dict[str, float]  # "200", "250", "300", "400"
    upper_bonus_rate: dict[str, float]  # per bonus threshold
    boxes: dict[str, dict]  # per box key: name, mean, zero_rate
    extra_rate: float | None  # games with extra points (variants that pay them)
    extra_mean_count: float | None
    score_counts: np.ndarray = field(repr=False, compare=False)  # [s]: games that finished with s points
    scores: np.ndarray | None = field(repr=False, compare=False)  # every game's score, up to SCORES_KEPT games

    def as_dict(self) -> dict[str, Any]:
        """The object `kniffel simulate --json` prints (without the scores and their counts)."""
        out = {k: v for k, v in self.__dict__.items() if k not in ("scores", "score_counts")}
        out["seconds"] = round(self.seconds, 3)
        if self.extra_rate is None:
            del out["extra_rate"], out["extra_mean_count"]
        return out


def simulate(
    variant: str | Variant | Table,
    games: int = 100_000,
    seed: int = 0,
    *,
    tables_dir: str | os.PathLike | Path | None = None,
    progress=None,
) -> Simulation:
    """Play `games` games with the optimal strategy (reproducible for a seed, whatever the threads).
    `progress(k)`, if given, is told of k finished games."""
    games = checks.whole("games", games, MIN_GAMES, MAX_GAMES)
    seed = checks.whole("seed", seed, 0, MAX_SEED)
    if progress is not None and not callable(progress):
        raise RuleError(t("api_progress", value=checks.shown(progress)))
    table = variant if isinstance(variant, Table) else load(variant, tables_dir=tables_dir)
    t0 = time.perf_counter()
    counted = _simulation.tally(table.variant, table.values, games, seed=seed, progress=progress)
    seconds = time.perf_counter() - t0
    summary = _simulation.summary(counted)
    summary.setdefault("extra_rate", None)
    summary.setdefault("extra_mean_count", None)
    return Simulation(seed=seed, seconds=seconds, score_counts=counted.score_counts, scores=counted.scores, **summary)
