"""`kniffel solve`, `value` and `variants`: the tables and what they say of a card."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..i18n.texts import choose_language, count_text, set_language, t
from ..rules.presets import PRESETS, find_variant
from ..store import tables
from . import target_compile
from .base import _settings, _speak, _table, cli, lang_option, solve_table, solve_target_table


@cli.command()
@click.argument("variant_names", nargs=-1)
@click.option("--all", "all_variants", is_flag=True)
@click.option("--keep-one", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
@click.option("--target", "with_target", is_flag=True)
@click.option("--workers", type=click.IntRange(1))
@click.option("--scheduler", metavar="ADDRESS")
@click.option("--job-dir", type=click.Path(file_okay=False))  # a str: '' is refused (a Path would be '.')
@click.option("--status", "status_dir", metavar="DIR", type=click.Path())
@click.option("--from-filled", type=click.IntRange(0), metavar="K")
@click.option("--n-max", type=click.IntRange(1), metavar="N")
@lang_option
@click.pass_context
def solve(
    ctx,
    variant_names,
    all_variants,
    keep_one,
    as_json,
    with_target,
    workers,
    scheduler,
    job_dir,
    status_dir,
    from_filled,
    n_max,
):
    """Solve VARIANT... and write tables/<variant>.npy (+ .json); --target: also <variant>.target.npy."""
    from ..advice.explain import fit

    settings = _settings(ctx)
    _refuse_empty(**{"--job-dir": job_dir, "--status": status_dir, "--scheduler": scheduler})
    job_dir, status_dir = (None if p is None else Path(p) for p in (job_dir, status_dir))
    if status_dir is not None:
        from .job_commands import job_status

        job_status(status_dir)
        return
    as_job = bool(workers or scheduler or job_dir)
    if all_variants:
        variants = [v for v in PRESETS.values() if v.identical_dice]
        for v in PRESETS.values():
            if not v.identical_dice:
                click.echo("kniffel: " + t("solve_skipped", variant=v.name), err=True)
    elif variant_names:
        variants = list(dict.fromkeys(find_variant(n, keep_one) for n in variant_names))  # each once
    else:
        raise click.UsageError(t("solve_nothing"))
    if as_job and len(variants) != 1:
        raise click.UsageError(t("job_one_variant"))
    ordered_job = as_job and with_target and not variants[0].identical_dice
    if (from_filled is not None or n_max is not None) and not ordered_job:
        raise click.UsageError(t("job_ordered_only"))
    if ordered_job:
        from .job_commands import solve_ordered_target_job

        solve_ordered_target_job(variants[0], settings, workers, scheduler, job_dir, from_filled, n_max, as_json)
        return
    from ..store.target_tables import target_paths

    if with_target:
        from ..chances.targets import target_engine

        for variant in variants:
            target_engine(variant)  # Kniffel 7: refused before any work
            tables.check_writable_folder(settings.tables_dir, target_paths(variant, settings.tables_dir))
    for variant in variants:
        if as_job:
            from .job_commands import solve_by_job

            meta, tmeta = solve_by_job(
                variant, settings, with_target=with_target, workers=workers, scheduler=scheduler, job_dir=job_dir
            )
        else:
            if with_target:
                target_compile.start(variant, settings.tables_dir)  # the target kernels compile beside the value table
            _, meta = solve_table(variant, settings)
        if not as_json:
            path, states = tables.paths(variant, settings.tables_dir)[0], count_text(meta["states"])
            found = dict(value=meta["start_value"], states=states, seconds=meta["seconds"], path=path)
            click.echo(fit(t("solve_done", variant=variant.name, **found)))
        if with_target:
            if not as_job:
                _, tmeta = solve_target_table(variant, settings)
            if not as_json:
                path, size = target_paths(variant, settings.tables_dir)[0], count_text(tmeta["size"])
                built = dict(n=tmeta["n_max"], size=size, seconds=tmeta["seconds"], path=path)
                click.echo(fit(t("solve_target_done", variant=variant.name, **built)))
            meta = {**meta, "target_n_max": tmeta["n_max"], "target_seconds": tmeta["seconds"]}
        if as_json:
            keys = ("variant", "start_value", "seconds", "states", "fingerprint", "target_n_max", "target_seconds")
            click.echo(json.dumps({k: meta[k] for k in keys if k in meta}))


def _refuse_empty(**options) -> None:
    """'' is no folder and no address (and not "no option": that would quietly take the default)."""
    from ..errors import KniffelError

    for option, key in (
        ("--job-dir", "option_empty_folder"),
        ("--status", "option_empty_job"),
        ("--scheduler", "option_empty_address"),
    ):
        if options[option] == "":
            raise KniffelError(t(key, option=option))


@cli.command()
@click.argument("variant_name", metavar="VARIANT")
@click.option("--card", default="")
@click.option("--keep-one", is_flag=True)
@click.option("--json", "as_json", is_flag=True)
@lang_option
@click.pass_context
def value(ctx, variant_name, card, keep_one, as_json):
    """Expected final score of a card at the start of a turn, under optimal play."""
    from ..advice.cards import at_turn_start, parse_card
    from ..reports import value_report

    variant = find_variant(variant_name, keep_one)
    _speak(ctx, variant)
    at_turn_start(parse_card(variant, card))  # a bad card is refused before a missing table is solved
    table = _table(variant, _settings(ctx))
    result = value_report(table, card)
    if as_json:
        click.echo(json.dumps(result))
    else:
        future, expected = result["expected_future"], result["expected_final_score"]
        click.echo(
            t(
                "value_line",
                variant=variant.name,
                points=result["points"],
                count=result["points"],
                future=future,
                expected=expected,
            )
        )


@cli.command()
@click.option("--json", "as_json", is_flag=True)
@lang_option
@click.pass_context
def variants(ctx, as_json):
    """The presets, their boxes and, where a table exists, the start value."""
    from ..advice.explain import fit, fit_list
    from ..i18n.texts import option_name, variant_title
    from ..reports import variants_report

    settings = _settings(ctx)
    out = variants_report(settings.tables_dir)
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    for v, variant in zip(out, PRESETS.values()):
        set_language(choose_language(settings.lang, variant.lang))
        start = t("variants_start", value=v["start_value"]) if v["start_value"] is not None else t("variants_no_table")
        options = t("variants_options", options=", ".join(option_name(o) for o in v["options"])) if v["options"] else ""
        title = variant_title(variant)
        click.echo(fit(t("variants_row", name=v["variant"], title=title, dice=v["dice"], start=start, options=options)))
        first = choose_language(settings.lang, variant.lang)
        # beside it the names the game's own players write (German for the Kniffel games), else English/German
        second = variant.lang if variant.lang != first else ("de" if first == "en" else "en")
        boxes = [
            f"{b['position']}. {b[first]}" + (f" ({b[second]})" if b[second] != b[first] else "") for b in v["boxes"]
        ]
        click.echo(fit_list(boxes))
