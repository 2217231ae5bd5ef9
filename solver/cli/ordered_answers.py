"""Kniffel 7's answers of `chances`, `advise --target` and `advise --opponent` where dice are told apart: from the
built layers of a target-table job given with `--job-dir DIR` (solver/chances/ordered_job.py), else exact from the
card when its work fits one machine, else the max-expected estimate and the line that says what the exact answer
needs."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..advice.cards import at_turn_start, parse_card
from ..i18n.texts import t
from .base import _settings, computing_notice, get_table

META = "kniffel.job_dir"  # ctx.meta: the --job-dir given to advise or chances


def _keep(ctx, _param, value):
    ctx.meta[META] = value
    return value


job_dir_option = click.option(
    "--job-dir", type=click.Path(file_okay=False), default=None, expose_value=False, callback=_keep
)


def check_job_dir(ctx, variant, target) -> None:
    """What --job-dir cannot answer, one line (exit 2) before any work: no --target, or identical dice (their
    target table is saved where the tables are: `kniffel solve VARIANT --target` finds it there)."""
    from ..errors import KniffelError

    job_dir = ctx.meta.get(META)
    if job_dir is None:
        return
    if job_dir == "":
        raise KniffelError(t("option_empty_job", option="--job-dir"))
    if target is None:
        raise click.UsageError(t("job_answers_target"))
    if variant.identical_dice:
        raise KniffelError(t("job_answers_identical", variant=variant.name))


def found_in_job(ctx, variant, card, target):
    """The probabilities from `card` in the --job-dir's layers (ordered_job.JobTargets); None without --job-dir,
    or where its layers do not answer this card and target (said in one line on stderr)."""
    job_dir = ctx.meta.get(META)
    if job_dir is None:
        return None
    from ..chances.ordered_chances import check_card
    from ..chances.ordered_job import job_targets, lacking, open_target_job

    job = open_target_job(variant, Path(job_dir))  # a wrong or damaged folder: one line, before the card
    check_card(variant, card, target)
    why = lacking(job, variant, card, target)
    if why is not None:
        click.echo("kniffel: " + t("job_answers_without", why=why), err=True)
        return None
    return job_targets(job, variant, card, target)


def chances_ordered(ctx, variant, card_text, target, as_json):
    """`chances` for Kniffel 7: from the --job-dir's layers, else exact from the card when it fits one machine,
    else the max-expected estimate."""
    from ..advice.explain import card_text as show_card
    from ..advice.explain import fit
    from ..chances.ordered_chances import PLAN_MOST_FREE, ordered_chances

    parsed = at_turn_start(parse_card(variant, card_text))
    settings = _settings(ctx)
    found = found_in_job(ctx, variant, parsed, target)
    values, _ = get_table(variant, settings)
    with computing_notice(settings) as notice:
        args = (notice, notice.games, settings.tables_dir)
        result = ordered_chances(variant, values, parsed, target, *args, found=found)
    if as_json:
        click.echo(json.dumps(result.as_dict()))
        return
    click.echo(t("chances_title", variant=variant.name, target=target))
    click.echo(fit(t("card_line", card=show_card(parsed), points=parsed.points, count=parsed.points)))
    if result.probability is not None:
        click.echo(t("chances_best", p=result.probability))
    echo_expected_play(result.probability_expected_play, result.expected_play_games, result.expected_play_stderr)
    if result.probability is None:
        click.echo(fit(t("k7_needs_table", variant=variant.name, most=PLAN_MOST_FREE)))


def echo_expected_play(p, games, stderr) -> None:
    """The chance under max-expected play: exact (games None), estimated from simulated games, or not known."""
    from ..advice.explain import fit

    simulated = t("chances_mean_simulated", p=p, games=games, stderr=stderr) if games is not None else None
    if p is not None:
        click.echo(fit(simulated or t("chances_mean", p=p)))


def beyond_reach(ctx, variant, card, target, as_json):
    """advise --target for Kniffel 7 beyond one machine's minutes: the advice for the mean, with the chance of
    the target when playing for it (simulated), and the line that says what the best for the target needs."""
    from ..advice.explain import fit
    from ..chances.ordered_chances import PLAN_MOST_FREE, expected_play
    from ..chances.targets import Chances

    settings = _settings(ctx)
    values, _ = get_table(variant, settings)
    with computing_notice(settings) as notice:
        p, games, stderr = expected_play(variant, values, card, target, notice.games, settings.tables_dir)
    if as_json:
        ctx.meta["target_beyond"] = Chances(variant.name, card.format(), target, None, p, games, stderr).as_dict()
        return False
    click.echo(t("chances_title", variant=variant.name, target=target))
    echo_expected_play(p, games, stderr)
    click.echo(fit(t("k7_needs_table", variant=variant.name, most=PLAN_MOST_FREE)))
    return False


def beyond_reach_opponent(ctx, variant, opponent, as_json):
    """advise --opponent for Kniffel 7 beyond one machine's minutes: the advice for the mean, with one line."""
    from ..advice.explain import fit
    from ..chances.ordered_chances import PLAN_MOST_FREE

    if as_json:
        ctx.meta["target_beyond"] = {"opponent": opponent.format(), "win": None}
    else:
        click.echo(fit(t("k7_needs_table", variant=variant.name, most=PLAN_MOST_FREE).strip()))
    return False
