"""`kniffel simulate`, `distribution` and `odds`: the scores optimal play reaches."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click
import numpy as np

from ..advice.cards import at_turn_start, parse_card
from ..errors import KniffelError
from ..i18n.numbers import symbols
from ..i18n.texts import bonus_name, box_name, count_text, language, number, t, variant_title
from ..rules.dice import MAX_GAMES, MAX_SEED, MIN_GAMES
from ..rules.presets import find_variant
from ..rules.variant import RuleError
from ..store.files import check_writable_file
from . import simulate_play, waits
from .base import (
    _settings,
    _speak,
    cli,
    get_table,
    lang_option,
    progress_bar,
)
from .job_commands import check_forward_job, distribution_by_job, forward_job_options
from .settings import _variant_or_default

LONG_PASS_SECONDS = 2.0  # a forward pass estimated to take longer is announced, with a progress bar


@cli.command()
@click.argument("variant_name", metavar="[VARIANT]", required=False)
@click.option("-n", "--games", type=click.IntRange(MIN_GAMES, MAX_GAMES), default=100_000, show_default=True)
@click.option(
    "--seed",
    type=click.IntRange(0, MAX_SEED),
    default=0,
    show_default=True,
)
@click.option("--keep-one", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
@click.option("--plot", type=click.Path(dir_okay=False), default=None)
@click.option("--target", type=int, default=None)
@click.option("--versus", is_flag=True)
@lang_option
@click.pass_context
def simulate(ctx, variant_name, games, seed, keep_one, as_json, plot, target, versus):
    """Play many games with the optimal strategy and report the score distribution."""
    from ..chances import simulation as sim

    _speak(ctx, find_variant(_variant_or_default(variant_name), keep_one))
    refuse_empty_plot(plot)
    if versus:
        from ..chances.win import VERSUS_DEFAULT_PAIRS, OpponentError

        if target is not None or plot:
            raise OpponentError(t("sim_versus_alone"))
        if ctx.get_parameter_source("games") is click.core.ParameterSource.DEFAULT:
            games = VERSUS_DEFAULT_PAIRS  # each pair costs exact opponent distributions: far slower than a game
        return simulate_play.simulate_versus(ctx, _variant_or_default(variant_name), games, seed, keep_one, as_json)
    if target is not None:
        return simulate_play.simulate_target(
            ctx, _variant_or_default(variant_name), games, seed, keep_one, as_json, target
        )

    if plot:
        plt = _plot_backend(Path(plot))  # checked before the simulation, not after it
    settings = _settings(ctx)
    variant = find_variant(_variant_or_default(variant_name), keep_one)
    values, meta = get_table(variant, settings)
    waits.compiling("simulate")
    t0 = time.perf_counter()
    with progress_bar(settings, games, t("progress_simulate", variant=variant.name), "game", unit_scale=True) as bar:
        counted = sim.tally(variant, values, games, seed=seed, progress=bar.update)
    seconds = time.perf_counter() - t0
    out = sim.summary(counted)
    out.update(seed=seed, seconds=round(seconds, 3), table_start_value=meta["start_value"])
    _print_simulation(variant, games, seed, seconds, meta, out, counted.score_counts, as_json)
    if plot:
        fig, ax = plt.subplots(figsize=(8, 4.5))
        seen = slice(out["min"], out["max"] + 1)
        ax.bar(np.arange(len(counted.score_counts))[seen], counted.score_counts[seen], width=1.0, color="#3465a4")
        ax.axvline(out["mean"], color="#cc0000", label=t("plot_mean", mean=out["mean"]))
        title = t("plot_sim_title", title=variant_title(variant), games=count_text(games))
        ax.set(xlabel=t("plot_score_axis"), ylabel=t("plot_games_axis"), title=title)
        ax.legend()
        fig.tight_layout()
        fig.savefig(plot, dpi=120)
        click.echo(t("histogram_written", path=plot), err=as_json)


def refuse_empty_plot(plot: str | None) -> None:
    if plot == "":  # not "no option": that would quietly draw nothing
        raise KniffelError(t("option_empty_path", option="--plot"))


def _plot_backend(path: Path):
    """matplotlib's pyplot, once the plot's path and format are known to work."""
    check_writable_file(path, "--plot")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise click.UsageError(t("plot_needs_matplotlib")) from None
    formats = plt.figure().canvas.get_supported_filetypes()
    plt.close("all")
    suffix = path.suffix.lstrip(".").lower()
    if suffix not in formats:
        raise KniffelError(t("plot_suffix", path=path, suffixes=", .".join(sorted(formats))))
    return plt


def _print_simulation(variant, games, seed, seconds, meta, out, score_counts, as_json) -> None:
    from ..chances import simulation as sim

    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    from ..advice.explain import fit

    per_second = games / seconds if seconds > 0 else 0.0
    if per_second >= 10:
        rate = count_text(round(per_second))
    else:  # two digits: 3 games of Kniffel 7 in 20 s read 0.15, not 0
        rate = number(per_second, ".2g") if seconds > 0 else "-"
    title = variant_title(variant)
    click.echo(fit(t("sim_title", title=title, games=count_text(games), seed=seed, seconds=seconds, rate=rate)))
    summary = dict(mean=out["mean"], stderr=out["stderr"], table=meta["start_value"], std=out["std"])
    click.echo(fit(t("sim_summary", **summary, median=out["median"], min=out["min"], max=out["max"])))
    click.echo(
        fit(t("dist_percentiles", values=", ".join(f"{p}%: {number(x, 'g')}" for p, x in out["percentiles"].items())))
    )
    click.echo(
        fit(t("dist_at_least", values=", ".join(f"{s}: {number(x, '.2%')}" for s, x in out["p_at_least"].items())))
    )
    if out["upper_bonus_rate"]:  # Generala has no upper bonus
        bonus_rates = ", ".join(f"{s}+: {number(x, '.2%')}" for s, x in out["upper_bonus_rate"].items())
        click.echo(fit(t("sim_upper_bonus", values=bonus_rates)))
    if "extra_rate" in out:
        click.echo(
            fit(t("sim_extra", bonus=bonus_name(variant), rate=out["extra_rate"], count=out["extra_mean_count"]))
        )
    names = [box_name(variant, i) for i in range(len(variant.boxes))]
    width = max([16, *map(len, names)])
    box, mean, zero = t("sim_columns").split(",")
    click.echo(f"{box:<{width}} {mean:>7} {zero:>7}")
    for name, b in zip(names, out["boxes"].values()):
        click.echo(f"{name:<{width}} {number(b['mean'], '>7.2f')} {number(b['zero_rate'], '>7.1%')}")
    click.echo(sim.text_histogram(score_counts))


@cli.command()
@click.argument("variant_name", metavar="VARIANT")
@click.option("--card", default="")
@click.option("--at-least", "at_least", type=int, multiple=True)
@click.option("--keep-one", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
@click.option("--plot", type=click.Path(dir_okay=False), default=None)
@forward_job_options
@lang_option
@click.pass_context
def distribution(ctx, variant_name, card, at_least, keep_one, as_json, plot, job_dir, workers, scheduler):
    """Exact final-score distribution of optimal play from a card (forward pass, not simulation)."""
    from ..chances import distribution as dist

    variant = find_variant(variant_name, keep_one)
    _speak(ctx, variant)
    refuse_empty_plot(plot)
    parsed = at_turn_start(parse_card(variant, card))
    dist.check_thresholds(variant, at_least)
    plt = _plot_backend(Path(plot)) if plot else None  # checked before computing
    as_job = check_forward_job(variant, job_dir, workers, scheduler)
    settings = _settings(ctx)
    values, _ = get_table(variant, settings)
    if as_job:  # the pass as a resumable job: its pmf lands in the cache read below
        distribution_by_job(variant, settings, values, parsed, job_dir, workers, scheduler)
    with _forward_progress(settings, variant, values, [parsed], "progress_distribution") as progress:
        result = dist.distribution(variant, values, parsed, at_least, progress=progress, directory=settings.tables_dir)
    if plt is not None:
        _plot_pmf(plt, variant, result, plot)
    if as_json:
        click.echo(json.dumps(result.as_dict()))
        return
    from ..advice.explain import card_text, fit

    click.echo(fit(t("dist_title", title=variant_title(variant), seconds=result.seconds)))
    click.echo(fit(t("card_line", card=card_text(parsed), points=parsed.points, count=parsed.points)))
    click.echo(
        t("dist_summary", mean=result.mean, std=result.std, median=result.median, min=result.min, max=result.max)
    )
    percentiles = ", ".join(f"{q}%: {x}" for q, x in result.percentiles.items())
    click.echo(fit(t("dist_percentiles", values=percentiles)))
    at_least = ", ".join(f"{t_}: {_percent(x)}" for t_, x in result.p_at_least.items())
    click.echo(fit(t("dist_at_least", values=at_least)))
    click.echo(dist_histogram(np.array(result.pmf)))
    if plot:
        click.echo(t("plot_written", path=plot))


@contextmanager
def _forward_progress(settings, variant, values, cards, label: str) -> Iterator[Callable[[int], object] | None]:
    """A progress bar of the forward passes from these cards: identical dice, by turn (after a line when the
    kernels compile first); dice told apart, from a card whose pmf is neither shipped nor cached, by turn state,
    after one line saying how long it takes."""
    from ..chances import distribution as dist

    if variant.identical_dice:
        waits.compiling("forward")
        turns = sum(
            len(variant.boxes) - bin(c.state[0]).count("1") for c in {(c.state, c.points): c for c in cards}.values()
        )
        with progress_bar(settings, turns, t(label, variant=variant.name), "turn") as bar:
            yield bar.update
        return

    states, seconds = dist.passes_work(variant, values, cards, settings.tables_dir)
    if states == 0 or seconds < LONG_PASS_SECONDS:
        yield None
        return
    import numba

    took = waits.about(seconds)
    threads = numba.get_num_threads()
    waits.say("dist_estimate", variant=variant.name, states=count_text(states), time=took, threads=threads)
    with progress_bar(settings, states, t(label, variant=variant.name), "state") as bar:
        yield bar.update


def _player_card(variant, text: str, n: int, players: int):
    """One player's --card, a refusal naming the player where there are several."""
    try:
        return at_turn_start(parse_card(variant, text))
    except RuleError as exc:
        if players == 1:
            raise
        raise RuleError(t("player_card_error", n=n, error=exc)) from None


def _percent(x: float) -> str:
    """A probability in percent: four decimals, or three digits where they would show 0.0000% (9.31e-09%)."""
    if x >= 1e-4 or x == 0:
        return number(x, ".4%")
    return number(x * 100, ".3g") + symbols(language())[2]


def dist_histogram(pmf: np.ndarray, width: int = 50, bin_size: int = 10) -> str:
    """Text histogram of a pmf in bins of bin_size points (bins holding < 1e-4 at the tails left out)."""
    n_bins = (pmf.shape[0] + bin_size - 1) // bin_size
    mass = np.add.reduceat(pmf, np.arange(0, n_bins * bin_size, bin_size)[:n_bins])
    shown = np.flatnonzero(mass >= 1e-4)
    lines = []
    for b in range(shown[0], shown[-1] + 1):
        bar = "#" * int(round(width * mass[b] / mass.max()))
        lines.append(f"{b * bin_size:>5}-{b * bin_size + bin_size - 1:<5} {number(mass[b], '>10.4%')} {bar}")
    return "\n".join(lines)


def _plot_pmf(plt, variant, result, path) -> None:
    pmf = np.array(result.pmf)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.bar(np.arange(pmf.shape[0]), pmf, width=1.0, color="#3465a4")
    ax.axvline(result.mean, color="#cc0000", label=t("plot_mean", mean=result.mean))
    ax.axvline(result.median, color="#4e9a06", linestyle="--", label=t("plot_median", median=result.median))
    ax.set_xlim(result.percentiles["1"] - 20, result.percentiles["99"] + 40)
    from ..advice.explain import card_text

    card = card_text(parse_card(variant, result.card)) if result.card else t("empty")
    title = t("plot_dist_title", title=variant_title(variant), card=card)
    ax.set(xlabel=t("plot_score_axis"), ylabel=t("plot_probability_axis"), title=title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


@cli.command()
@click.argument("variant_name", metavar="VARIANT")
@click.option("--card", "cards", multiple=True, required=True)
@click.option("--names", default=None)
@click.option("--keep-one", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
@lang_option
@click.pass_context
def odds(ctx, variant_name, cards, names, keep_one, as_json):
    """Who wins: each player's chance to finish first (all at the start of the same round)."""
    from ..chances import distribution as dist

    variant = find_variant(variant_name, keep_one)
    _speak(ctx, variant)
    parsed = [_player_card(variant, c, n, len(cards)) for n, c in enumerate(cards, 1)]
    name_list = [n.strip() for n in names.split(",")] if names is not None else None
    dist.check_players(parsed, name_list)  # before loading or solving a table
    settings = _settings(ctx)
    values, _ = get_table(variant, settings)
    with _forward_progress(settings, variant, values, parsed, "progress_odds") as progress:
        result = dist.odds(variant, values, parsed, name_list, progress, settings.tables_dir)
    if as_json:
        click.echo(json.dumps(result.as_dict()))
        return
    from ..advice.explain import card_text, fit

    shown = name_list or [t("odds_player", number=i + 1) for i in range(len(parsed))]  # "Spieler 1" in German
    player, win, expected, std = t("odds_columns").split(",")
    width = max([len(player)] + [len(name) for name in shown])
    click.echo(fit(t("odds_title", title=variant_title(variant), count=len(result.players))))
    click.echo(f"  {player:<{width}}  {win:>9}  {expected:>9}  {std:>9}")  # 9: '100,000 %'
    for name, p in zip(shown, result.players):
        expected, std = number(p.expected_final_score, ">9.2f"), number(p.std, ">9.2f")
        click.echo(f"  {name:<{width}}  {number(p.win, '>9.3%')}  {expected}  {std}")
    click.echo(t("odds_tie", tie=number(result.tie, ".3%")))
    click.echo(t("odds_cards"))
    for name, card in zip(shown, parsed):
        click.echo(fit(t("odds_card", name=name, card=card_text(card)), "      "))
