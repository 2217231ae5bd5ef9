"""`kniffel simulate --target` and `--versus`: games played to reach a score or to beat a player who plays for the
mean; the fraction reached or won, with its standard error."""

from __future__ import annotations

import json
import time

import click

from ..advice.cards import parse_card
from ..i18n.texts import count_text, t, variant_title
from ..rules.presets import find_variant
from . import target_compile
from .base import _advisor, _settings, get_table, get_target_table, progress_bar

VERSUS = ("wins", "ties", "losses")  # the outcomes of --versus pairs, each counted in its own words


def simulate_target(ctx, variant_name, games, seed, keep_one, as_json, target):
    """simulate --target: games played to reach the target; the fraction that did, with its error."""
    from ..chances import target_play, targets

    variant = find_variant(variant_name, keep_one)
    if not variant.identical_dice:
        return _simulate_target_ordered(ctx, variant, games, seed, as_json, target)
    targets.check_target(variant, parse_card(variant, ""), target)  # before any table is loaded or built
    settings = _settings(ctx)
    target_compile.start(variant, settings.tables_dir)  # the target kernels compile beside the value table
    advisor = _advisor(variant, settings)
    table = get_target_table(variant, settings)
    t0 = time.perf_counter()
    with progress_bar(
        settings, games, t("progress_simulate_target", variant=variant.name, target=target), "game"
    ) as bar:
        run = target_play.simulate_target(variant, table, advisor, games, target, seed=seed, progress=bar.update)
    seconds = time.perf_counter() - t0
    expected = targets.target_probability(variant, table, parse_card(variant, ""), target)
    out = {"variant": variant.name, **run.as_dict(), "probability": expected, "seconds": round(seconds, 3)}
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    from ..advice.explain import fit

    reached = dict(p=run.p_reached, stderr=run.stderr, expected=expected)
    title, shown = variant_title(variant), count_text(games)
    click.echo(fit(t("sim_target", title=title, games=shown, target=target, seed=seed, seconds=seconds, **reached)))


def _simulate_target_ordered(ctx, variant, games, seed, as_json, target):
    """simulate kniffel7 --target: max-expected play to the end game, then exact target play."""
    from ..chances import ordered_target_play as play
    from ..chances.ordered_chances import check_card

    check_card(variant, parse_card(variant, ""), target)
    settings = _settings(ctx)
    values, _ = get_table(variant, settings)
    advisor = _advisor(variant, settings)
    t0 = time.perf_counter()
    with progress_bar(
        settings, games, t("progress_simulate_target", variant=variant.name, target=target), "game"
    ) as bar:
        run = play.simulate_target(advisor, values, games, target, seed=seed, progress=bar.update)
    seconds = time.perf_counter() - t0
    out = {"variant": variant.name, **run.as_dict(), "endgame_free": play.ENDGAME_FREE, "seconds": round(seconds, 3)}
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    from ..advice.explain import fit

    reached = dict(p=run.p_reached, stderr=run.stderr, free=play.ENDGAME_FREE, variant=variant.name)
    title, shown = variant_title(variant), count_text(games)
    click.echo(
        fit(t("sim_target_endgame", title=title, games=shown, target=target, seed=seed, seconds=seconds, **reached))
    )


def simulate_versus(ctx, variant_name, pairs, seed, keep_one, as_json):
    """simulate --versus: the win strategy against a max-expected player; the win rate and its error."""
    from ..chances import win
    from ..store.solving import table_moments

    variant = find_variant(variant_name, keep_one)
    settings = _settings(ctx)
    target_compile.start(variant, settings.tables_dir)  # the target kernels compile beside the value table
    values, _ = get_table(variant, settings)
    advisor = _advisor(variant, settings)
    table = get_target_table(variant, settings) if variant.identical_dice else None
    t0 = time.perf_counter()
    m2 = table_moments(variant, values, settings.tables_dir, progress=settings.progress) if table else None
    with progress_bar(settings, pairs, t("progress_simulate_versus", variant=variant.name), "pair") as bar:
        if table is None:  # Kniffel 7: the exact win play of the last turn (ordered_target_play.py)
            from ..chances import ordered_target_play

            run = ordered_target_play.simulate_versus(advisor, values, pairs, seed=seed, progress=bar.update)
        else:
            run = win.simulate_versus(variant, values, table, advisor, pairs, seed=seed, progress=bar.update, m2=m2)
    seconds = time.perf_counter() - t0
    out = {"variant": variant.name, **run.as_dict(), "seconds": round(seconds, 3)}
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    from ..advice.explain import fit

    counts = {
        name: t(f"versus_{name}", n=count_text(k), count=k) for name, k in zip(VERSUS, (run.wins, run.ties, run.losses))
    }
    rates = dict(rate=run.win_rate, stderr=run.stderr, h2h=run.h2h, h2h_stderr=run.h2h_stderr)
    title, shown = variant_title(variant), count_text(pairs)
    click.echo(fit(t("sim_versus", title=title, pairs=shown, seed=seed, seconds=seconds, **counts, **rates)))
    if table is None:
        click.echo(fit(t("sim_versus_endgame", variant=variant.name)))
