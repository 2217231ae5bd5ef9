"""Kniffel 7's answers of `chances`, `advise --target` and `advise --opponent` where dice are told apart: exact
from the card when its work fits one machine, else the max-expected estimate and the line that says what
the exact answer needs (moved out of advise_commands.py, which calls them)."""

from __future__ import annotations

import json

import click

from ..advice.cards import parse_card
from ..i18n.texts import t
from .base import _settings, computing_notice, get_table


def chances_ordered(ctx, variant, card_text, target, as_json):
    """`chances` for Kniffel 7: exact from the card when it fits one machine, else the max-expected estimate."""
    from ..advice.explain import card_text as show_card
    from ..advice.explain import fit
    from ..chances.ordered_chances import PLAN_MOST_FREE, ordered_chances

    parsed = parse_card(variant, card_text)
    settings = _settings(ctx)
    values, _ = get_table(variant, settings)
    with computing_notice(settings) as notice:
        result = ordered_chances(variant, values, parsed, target, notice, notice.games, settings.tables_dir)
    if as_json:
        click.echo(json.dumps(result.as_dict()))
        return
    click.echo(t("chances_title", variant=variant.name, target=target))
    click.echo(fit(t("card_line", card=show_card(parsed), points=parsed.points)))
    if result.probability is not None:
        click.echo(t("chances_best", p=result.probability))
    _echo_expected_play(result.probability_expected_play, result.expected_play_games, result.expected_play_stderr)
    if result.probability is None:
        click.echo(fit(t("k7_needs_table", variant=variant.name, most=PLAN_MOST_FREE)))


def _echo_expected_play(p, games, stderr) -> None:
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
    _echo_expected_play(p, games, stderr)
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
