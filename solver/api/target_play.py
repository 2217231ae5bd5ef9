"""Playing for a target from the API: `Table.chances` (the highest probability of finishing with at least a
target) and `Table.advise_target` (every option ranked by it), answered as `kniffel chances` and `advise
--target` answer them, and with the same as_dict().

Identical dice answer from the variant's target table: loaded from the tables folder, or built and saved there
first (a minute or two on two cores for kniffel, with a progress bar on a terminal) unless build=False. Kniffel 7
(dice told apart) has no such table on one machine: it answers from the layers of a target-table job (job_dir,
`kniffel solve kniffel7 --target --job-dir DIR`) where they hold the card (else a warning says why), else
exactly from the card when that work is estimated at `limit` seconds at most (default three minutes); beyond
that `chances` gives the chance under max-expected play alone (probability None) and `advise_target` raises
TargetError naming what it needs.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..advice.cards import Card
from ..chances import targets
from ..chances.targets import Chances, TargetAdvice, TargetError, TargetTable
from ..i18n.texts import t
from ..rules import checks
from ..store.target_tables import TargetTableMissing
from .inputs import CardLike, DiceLike

Table = Any  # an api.table.Table, which calls these functions (imported here, it would be a circle)


def target_table(table: Table, build: bool = True, progress: bool = True) -> TargetTable:
    """The variant's target table (identical dice), loaded once per Table (again when its file has changed
    since); built and saved first when missing unless build=False (then TargetTableMissing)."""
    build, progress = checks.flag("build", build), checks.flag("progress", progress)
    if table._target_tables and table._target_tables[0].unchanged():
        return table._target_tables[0]
    table._target_tables.clear()
    variant, directory = table.variant, table.directory
    if directory is None:  # a Table made by hand: built and kept by this Table, not saved
        if not build:
            raise TargetTableMissing(t("api_target_nowhere", variant=variant.name))
        found = targets.build_target_table(variant)
    elif build:
        found = targets.load_or_build(variant, directory, lambda: _build_saved(variant, directory, progress))
    else:
        found = targets.load_target_table(variant, directory)
    table._target_tables.append(found)
    return found


def _build_saved(variant, directory: Path, progress: bool) -> TargetTable:
    from ..progress import LiveBar

    layout = targets.planned_layout(variant)
    desc = t("progress_target", variant=variant.name, n=layout.n_max)
    with LiveBar(total=layout.size, desc=desc, unit_scale=True, disable=None if progress else True, leave=False) as bar:
        return targets.build_and_save(variant, layout, directory, bar.update)[0]


def chances(
    table: Table,
    card: CardLike,
    target: int,
    *,
    build: bool = True,
    progress: bool = True,
    job_dir: str | os.PathLike | None = None,
    limit: float | None = None,
) -> Chances:
    """Table.chances: the highest probability of finishing with at least `target` points from this card at the
    start of a turn, beside the chance under max-expected play (as_dict() is `chances --json`). Identical dice:
    from the target table, built and saved first when missing unless build=False. Kniffel 7: from job_dir's
    layers, else exact when estimated at `limit` seconds at most (None: 180)."""
    parsed = table.card(card)
    variant, limit = table.variant, limit_seconds(limit)
    build, progress = checks.flag("build", build), checks.flag("progress", progress)
    target = checks.whole("target", target, 1)
    if variant.identical_dice:
        _no_job_dir(table, job_dir)
        targets.check_target(variant, parsed, target)  # before a table is built for nothing
        found = target_table(table, build, progress)
        from ..chances.win import probability_expected_play

        def expected_play(c: Card, goal: int) -> float:
            return probability_expected_play(variant, table.values, c, goal, table.directory)

        return targets.chances(variant, found, parsed, target, expected_play)
    from ..chances.ordered_chances import check_card, ordered_chances

    check_card(variant, parsed, target)
    with _bars(progress) as (on_plan, on_games):
        return ordered_chances(
            variant,
            table.values,
            parsed,
            target,
            on_plan,
            on_games,
            table.directory,
            limit,
            _from_job(table, job_dir, parsed, target),
        )


def advise_target(
    table: Table,
    card: CardLike,
    dice: DiceLike,
    roll: int,
    target: int,
    *,
    box_now: bool = False,
    build: bool = True,
    progress: bool = True,
    job_dir: str | os.PathLike | None = None,
    limit: float | None = None,
) -> TargetAdvice:
    """Table.advise_target: every option ranked by the probability of finishing with at least `target` (best,
    then, probability, options; as_dict() is `advise --target --json`); the rest as chances()."""
    parsed, rolled, roll = table._situation(card, dice, roll)
    variant, limit = table.variant, limit_seconds(limit)
    build, progress = checks.flag("build", build), checks.flag("progress", progress)
    target, box_now = checks.whole("target", target, 1), checks.flag("box_now", box_now)
    if variant.identical_dice:
        _no_job_dir(table, job_dir)
        targets.check_target(variant, parsed, target)
        found = target_table(table, build, progress)
        return targets.target_advice(variant, found, table.advisor, parsed, rolled, roll, target, box_now)
    from ..chances.ordered_chances import PLAN_MOST_FREE, check_card, ordered_target_advice

    check_card(variant, parsed, target)
    from_job = _from_job(table, job_dir, parsed, target)
    with _bars(progress) as (on_plan, _):
        advice = ordered_target_advice(table.advisor, parsed, rolled, roll, target, box_now, on_plan, limit, from_job)
    if advice is None:
        raise TargetError(t("api_target_beyond", variant=variant.name, target=target, most=PLAN_MOST_FREE))
    return advice


def limit_seconds(limit: float | None) -> float | None:
    """Seconds of on-demand work (None: ordered_chances.LIMIT_SECONDS); numpy numbers too, not bools."""
    if limit is None:
        return None
    if not isinstance(limit, bool | np.bool_) and isinstance(limit, int | float | np.integer | np.floating):
        try:
            seconds = float(limit)
        except OverflowError:  # 10**400
            seconds = float("nan")
        if seconds >= 0:
            return seconds
    raise TargetError(t("api_limit", value=checks.shown(limit)))


def _no_job_dir(table: Table, job_dir) -> None:
    if job_dir is not None:
        raise TargetError(t("api_job_identical", variant=table.variant.name))


def _from_job(table: Table, job_dir, card: Card, target: int):
    """The probabilities from `card` in the job's layers (ordered_job.JobTargets), None without job_dir or where
    its layers do not hold this card and target (a warning says why, as the CLI's line on stderr does). The job
    is opened (and checked) once per Table and folder."""
    if checks.folder("job_dir", job_dir) is None:
        return None
    from ..chances.ordered_job import ServedJob, lacking, open_target_job

    path = Path(job_dir).resolve()
    jobs = table._target_jobs
    if path not in jobs:
        jobs.clear()  # one job at a time: its layers may take gigabytes
        jobs[path] = ServedJob(table.variant, open_target_job(table.variant, path))
    why = lacking(jobs[path].job, table.variant, card, target)
    if why is not None:
        warnings.warn(t("job_answers_without", why=why), stacklevel=4)  # at the caller of Table.chances
        return None
    return jobs[path].found(card, target)


@contextmanager
def _bars(progress: bool) -> Iterator[tuple]:
    """(on_plan, on_games) for ordered_chances: progress bars on a terminal, closed at the end; (None, None)
    with progress=False."""
    if not checks.flag("progress", progress):
        yield None, None
        return
    from ..progress import LiveBar

    bars: list[LiveBar] = []

    def bar(total: int, desc: str):
        bars.append(LiveBar(total=total, desc=desc, leave=False))
        return bars[-1].update

    try:
        yield (lambda plan, _seconds: bar(plan.columns, t("k7_bar"))), (lambda games: bar(games, t("k7_games_bar")))
    finally:
        for b in bars:
            b.close()
