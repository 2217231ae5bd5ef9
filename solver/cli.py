"""The `kniffel` command line: solve tables, value cards, advise, play, simulate, review."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import click

from . import tables
from .cards import parse_card
from .variants import PRESETS, RuleError, find_variant


@dataclass
class Settings:
    """Every command's shared flags, in one object."""
    tables_dir: Path
    threads: int | None = None
    progress: bool = True


def _variant_arg(name: str, keep_one: bool = False):
    return find_variant(name, keep_one=keep_one)


def solve_table(variant, settings: Settings, quiet: bool = False):
    """Solve a variant with a progress bar, save the table atomically, return (values, meta)."""
    from tqdm import tqdm

    from . import dp
    dp.set_threads(settings.threads)
    total = dp.count_states(variant)
    bar = tqdm(total=total, desc=f"solve {variant.name}", unit="state", unit_scale=True,
               disable=not settings.progress or quiet, file=sys.stderr, leave=False)
    t0 = time.perf_counter()
    with bar:
        values, states = dp.solve(variant, progress=bar.update)
    seconds = time.perf_counter() - t0
    meta = tables.save(variant, values, settings.tables_dir, states=states, seconds=seconds)
    return values, meta


def get_table(variant, settings: Settings):
    """Load the variant's table; solve it first (with a notice) when it is missing."""
    try:
        return tables.load(variant, settings.tables_dir)
    except tables.TableMissing:
        click.echo(f"kniffel: no table for {variant.name} yet, solving it once "
                   f"(saved to {settings.tables_dir})", err=True)
        return solve_table(variant, settings)


def _settings(ctx) -> Settings:
    return ctx.find_object(Settings)


class OneLineErrors(click.Group):
    """Every error is one line on stderr and exit code 2 (130 when interrupted), never a traceback."""

    def main(self, args=None, prog_name=None, **extra):
        extra.pop("standalone_mode", None)
        try:
            code = super().main(args=args, prog_name=prog_name, standalone_mode=False, **extra)
        except click.exceptions.Abort:
            click.echo("kniffel: aborted", err=True)
            sys.exit(130)
        except click.ClickException as exc:
            click.echo(f"kniffel: error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code or 2)
        except (RuleError, tables.TableError, ValueError, OSError) as exc:
            click.echo(f"kniffel: error: {exc}", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("kniffel: interrupted", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--tables", "tables_path", type=click.Path(file_okay=False), default=None,
              help="Directory of the tables (default: $KNIFFEL_TABLES or the repository's tables/).")
@click.option("--threads", type=click.IntRange(1, 256), default=None, help="Solver threads (default: all cores).")
@click.option("--no-progress", is_flag=True, help="No progress bars.")
@click.version_option(package_name="kniffel")
@click.pass_context
def cli(ctx, tables_path, threads, no_progress):
    """Exact optimal strategy for solitaire Kniffel, Yahtzee, Yatzy and variants."""
    ctx.obj = Settings(tables.tables_dir(tables_path), threads, not no_progress)


@cli.command()
@click.argument("variant_names", nargs=-1)
@click.option("--all", "all_variants", is_flag=True, help="Solve every preset.")
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per variant on stdout.")
@click.pass_context
def solve(ctx, variant_names, all_variants, keep_one, as_json):
    """Solve VARIANT... and write tables/<variant>.npy (+ .json)."""
    settings = _settings(ctx)
    if all_variants:
        variants = list(PRESETS.values())
    elif variant_names:
        variants = [_variant_arg(n, keep_one) for n in variant_names]
    else:
        raise click.UsageError("name at least one VARIANT, or --all")
    for variant in variants:
        _, meta = solve_table(variant, settings)
        if as_json:
            click.echo(json.dumps({k: meta[k] for k in ("variant", "start_value", "seconds", "states", "fingerprint")}))
        else:
            click.echo(f"{variant.name}: start value {meta['start_value']:.7f}, {meta['states']:,} states "
                       f"solved in {meta['seconds']:.2f} s -> {tables.paths(variant, settings.tables_dir)[0]}")


@cli.command()
@click.argument("variant_name", metavar="VARIANT")
@click.option("--card", default="", help="Card: 'box=points,...,extra=N' (default: empty card).")
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def value(ctx, variant_name, card, keep_one, as_json):
    """Expected final score of a card at the start of a turn, under optimal play."""
    variant = _variant_arg(variant_name, keep_one)
    parsed = parse_card(variant, card)
    values, _ = get_table(variant, _settings(ctx))
    future = float(values[parsed.state])
    if future != future:  # NaN: a state the rules never reach
        raise RuleError(f"card {card!r} cannot occur under the rules of {variant.name}")
    result = {"variant": variant.name, "card": parsed.format(), "points": parsed.points,
              "expected_future": future, "expected_final_score": parsed.points + future}
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(f"{variant.name}: {parsed.points} points on the card + {future:.4f} expected to come "
                   f"= {parsed.points + future:.4f} expected final score")


@cli.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def variants(ctx, as_json):
    """The presets, their boxes and, where a table exists, the start value."""
    settings = _settings(ctx)
    out = []
    for v in PRESETS.values():
        meta = tables.read_meta(v, settings.tables_dir)
        start = meta["start_value"] if meta and meta.get("fingerprint") == v.fingerprint() else None
        out.append({"variant": v.name, "title": v.title, "aliases": list(v.aliases), "dice": v.n_dice,
                    "boxes": [{"position": i + 1, "key": b.key, "de": b.name_de, "en": b.name_en}
                              for i, b in enumerate(v.boxes)],
                    "bonuses": [[b.threshold, b.points] for b in v.bonuses], "start_value": start})
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    for v in out:
        start = f"start value {v['start_value']:.4f}" if v["start_value"] is not None else "no table yet"
        click.echo(f"{v['variant']:<20} {v['title']} — {v['dice']} dice, {start}")
        click.echo("    " + ", ".join(f"{b['position']}. {b['de']}" + (f" ({b['en']})" if b['en'] != b['de'] else "")
                                      for b in v["boxes"]))


def main(argv=None) -> None:
    cli.main(args=argv, prog_name="kniffel")


if __name__ == "__main__":
    main()
