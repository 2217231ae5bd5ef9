"""The `kniffel` command line: solve tables, value cards, advise, play, simulate, review."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import click
import numpy as np

from . import tables
from .cards import parse_card
from .variants import PRESETS, RuleError, find_variant


@dataclass
class Settings:
    """Every command's shared flags, in one object."""

    tables_dir: Path
    threads: int | None = None
    progress: bool = True


def solve_table(variant, settings: Settings, engine=None):
    """Solve a variant with a progress bar, save the table atomically, return (values, meta).

    Long solves (dice told apart) write a checkpoint after every layer and resume from it.
    """
    from tqdm import tqdm

    from . import dp

    engine = engine or dp.make_engine(variant, allow_slow=True)  # refuses what it cannot solve, before the bar
    total = dp.count_states(variant)
    long_solve = engine.ordered is not None
    resume, before = None, 0.0
    if long_solve:
        found = tables.load_checkpoint(variant, settings.tables_dir)
        if found is not None:
            values, next_layer, solved, before = found
            resume = (values, next_layer, solved)
            click.echo(
                f"kniffel: resuming {variant.name} from its checkpoint ({solved:,} of {total:,} states)", err=True
            )
    bar = tqdm(
        total=total,
        desc=f"solve {variant.name}",
        unit="state",
        unit_scale=True,
        disable=None if settings.progress else True,
        file=sys.stderr,
        leave=False,
    )
    t0 = time.perf_counter()

    def checkpoint(values, next_layer, solved):
        tables.save_checkpoint(
            variant, settings.tables_dir, values, next_layer, solved, before + time.perf_counter() - t0
        )

    with bar:
        values, states = dp.solve(
            variant, progress=bar.update, engine=engine, resume=resume, after_layer=checkpoint if long_solve else None
        )
    seconds = before + time.perf_counter() - t0
    meta = tables.save(variant, values, settings.tables_dir, states=states, seconds=seconds)
    tables.remove_checkpoint(variant, settings.tables_dir)
    return values, meta


def get_table(variant, settings: Settings):
    """Load the variant's table; solve it first (with a notice) when it is missing."""
    try:
        return tables.load(variant, settings.tables_dir)
    except tables.TableMissing:
        from . import dp

        engine = dp.make_engine(variant)  # refuses what it cannot solve quickly, before the notice
        click.echo(
            f"kniffel: no table for {variant.name} yet, solving it once (saved to {settings.tables_dir})", err=True
        )
        return solve_table(variant, settings, engine)


def solve_target_table(variant, settings: Settings):
    """Build the target table (issue 13) with a progress bar, save it atomically, return it as stored."""
    from tqdm import tqdm

    from . import target_tables, targets

    engine = targets.target_engine(variant)  # refuses Kniffel 7 before any work
    n = targets.default_n(variant, engine)
    from .dp.target import item_lengths, solve_target, target_layout

    layout = target_layout(engine, n, item_lengths(engine, n))
    bar = tqdm(
        total=layout.size,
        desc=f"target table {variant.name} (N={n})",
        unit="value",
        unit_scale=True,
        disable=None if settings.progress else True,
        file=sys.stderr,
        leave=False,
    )
    t0 = time.perf_counter()
    with bar:
        flat = solve_target(engine, layout, bar.update)
    meta = target_tables.save_target(variant, flat, layout, settings.tables_dir, seconds=time.perf_counter() - t0)
    return targets.TargetTable(variant, engine, target_tables.stored(flat), layout), meta


def get_target_table(variant, settings: Settings):
    """Load the variant's target table; build it first (with a notice) when it is missing."""
    from . import target_tables, targets

    engine = targets.target_engine(variant)
    try:
        flat, layout, _ = target_tables.load_target(variant, engine, settings.tables_dir)
    except target_tables.TargetTableMissing:
        click.echo(
            f"kniffel: no target table for {variant.name} yet, building it once (saved to {settings.tables_dir})",
            err=True,
        )
        return solve_target_table(variant, settings)[0]
    if layout.n_max != targets.default_n(variant, engine):
        raise target_tables.TargetTableError(
            f"target table {target_tables.target_paths(variant, settings.tables_dir)[0]} was built up to "
            f"{layout.n_max} points, this version uses {targets.default_n(variant, engine)}; rebuild it with "
            f"`kniffel solve {variant.name} --target`"
        )
    return targets.TargetTable(variant, engine, flat, layout)


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
@click.option(
    "--tables",
    "tables_path",
    type=click.Path(file_okay=False),
    default=None,
    help="Directory of the tables (default: $KNIFFEL_TABLES or the repository's tables/).",
)
@click.option("--threads", type=click.IntRange(1, 256), default=None, help="Solver threads (default: all cores).")
@click.option("--no-progress", is_flag=True, help="No progress bars (they show only on a terminal anyway).")
@click.version_option(package_name="kniffel")
@click.pass_context
def cli(ctx, tables_path, threads, no_progress):
    """Exact optimal strategy for solitaire Kniffel, Yahtzee, Yatzy and variants."""
    ctx.obj = Settings(tables.tables_dir(tables_path), threads, not no_progress)
    if threads:
        from . import dp

        dp.set_threads(threads)


@cli.command()
@click.argument("variant_names", nargs=-1)
@click.option("--all", "all_variants", is_flag=True, help="Solve every preset.")
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per variant on stdout.")
@click.option("--target", "with_target", is_flag=True, help="Also build the target table (playing to reach a score).")
@click.pass_context
def solve(ctx, variant_names, all_variants, keep_one, as_json, with_target):
    """Solve VARIANT... and write tables/<variant>.npy (+ .json); --target: also <variant>.target.npy."""
    settings = _settings(ctx)
    if all_variants:
        variants = [v for v in PRESETS.values() if v.identical_dice]
        for v in PRESETS.values():
            if not v.identical_dice:
                click.echo(
                    f"kniffel: {v.name} skipped (it takes about half an hour): `kniffel solve {v.name}`", err=True
                )
    elif variant_names:
        variants = [find_variant(n, keep_one) for n in variant_names]
    else:
        raise click.UsageError("name at least one VARIANT, or --all")
    if with_target:
        from .targets import target_engine

        for variant in variants:
            target_engine(variant)  # Kniffel 7: refused before any work
    for variant in variants:
        _, meta = solve_table(variant, settings)
        if not as_json:
            click.echo(
                f"{variant.name}: start value {meta['start_value']:.7f}, {meta['states']:,} states "
                f"solved in {meta['seconds']:.2f} s -> {tables.paths(variant, settings.tables_dir)[0]}"
            )
        if with_target:
            from .target_tables import target_paths

            _, tmeta = solve_target_table(variant, settings)
            if not as_json:
                click.echo(
                    f"{variant.name}: target table up to {tmeta['n_max']} points, {tmeta['size']:,} values in "
                    f"{tmeta['seconds']:.2f} s -> {target_paths(variant, settings.tables_dir)[0]}"
                )
            meta = {**meta, "target_n_max": tmeta["n_max"], "target_seconds": tmeta["seconds"]}
        if as_json:
            keys = ("variant", "start_value", "seconds", "states", "fingerprint", "target_n_max", "target_seconds")
            click.echo(json.dumps({k: meta[k] for k in keys if k in meta}))


@cli.command()
@click.argument("variant_name", metavar="VARIANT")
@click.option("--card", default="", help="Card: 'box=points,...,extra=N' (default: empty card).")
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def value(ctx, variant_name, card, keep_one, as_json):
    """Expected final score of a card at the start of a turn, under optimal play."""
    variant = find_variant(variant_name, keep_one)
    parsed = parse_card(variant, card)
    values, _ = get_table(variant, _settings(ctx))
    future = float(values[parsed.state])
    if future != future:  # NaN: a state the rules never reach
        raise RuleError(f"card {card!r} cannot occur under the rules of {variant.name}")
    result = {
        "variant": variant.name,
        "card": parsed.format(),
        "points": parsed.points,
        "expected_future": future,
        "expected_final_score": parsed.points + future,
    }
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(
            f"{variant.name}: {parsed.points} points on the card + {future:.4f} expected to come "
            f"= {parsed.points + future:.4f} expected final score"
        )


@cli.command()
@click.argument("variant_name", metavar="VARIANT")
@click.option("--card", default="", help="Card: 'box=points,...,extra=N' (default: empty card).")
@click.option("--target", type=int, required=True, help="The final score to reach (at least).")
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def chances(ctx, variant_name, card, target, keep_one, as_json):
    """The highest probability of finishing with at least TARGET points, from a card at the start of a turn."""
    from . import targets

    variant = find_variant(variant_name, keep_one)
    targets.target_engine(variant)  # Kniffel 7: one line, before any work
    parsed = parse_card(variant, card)
    targets.check_target(variant, parsed, target)
    table = get_target_table(variant, _settings(ctx))
    result = targets.chances(variant, table, parsed, target)
    if as_json:
        click.echo(json.dumps(result.as_dict()))
        return
    click.echo(
        f"{variant.name}: from card {parsed.format() or '(empty)'} ({parsed.points} points), the best play "
        f"reaches {target} or more with probability {result.probability:.6f} ({result.probability:.2%})"
    )


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
        out.append(
            {
                "variant": v.name,
                "title": v.title,
                "aliases": list(v.aliases),
                "dice": v.n_dice,
                "boxes": [
                    {"position": i + 1, "key": b.key, "de": b.name_de, "en": b.name_en} for i, b in enumerate(v.boxes)
                ],
                "bonuses": [[b.threshold, b.points] for b in v.bonuses],
                "options": list(v.options),
                "start_value": start,
            }
        )
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    for v in out:
        start = f"start value {v['start_value']:.4f}" if v["start_value"] is not None else "no table yet"
        options = f" (options: {', '.join(v['options'])})" if v["options"] else ""
        click.echo(f"{v['variant']:<20} {v['title']} — {v['dice']} dice, {start}{options}")
        click.echo(
            "    "
            + ", ".join(
                f"{b['position']}. {b['de']}" + (f" ({b['en']})" if b["en"] != b["de"] else "") for b in v["boxes"]
            )
        )


def _advisor(variant, settings: Settings):
    from .advisor import make_advisor

    values, _ = get_table(variant, settings)
    return make_advisor(variant, values)


def _option_rows(options, top: int | None) -> list[str]:
    shown = options if top is None else options[:top]
    width = max(len(o.text) for o in shown)
    rows = [f"  {'#':>3}  {'option':<{width}}  {'expected':>9}  {'loss':>6}"]
    for i, o in enumerate(shown, 1):
        loss = "best" if i == 1 else ("tie" if o.loss == 0 else f"-{o.loss:.2f}")
        rows.append(f"  {i:>3}  {o.text:<{width}}  {o.expected_final_score:>9.2f}  {loss:>6}")
    if len(shown) < len(options):
        rows.append(f"  ... {len(options) - len(shown)} more (--all shows every option)")
    return rows


def _variant_or_default(variant_name):
    return variant_name or "kniffel"


@cli.command()
@click.argument("variant_name", metavar="[VARIANT]", required=False)
@click.option("--card", default="", help="Card: 'box=points,...,extra=N' (default: empty card).")
@click.option("--dice", required=True, help="The dice shown: '3,3,5,1,6' or '33516'.")
@click.option(
    "--roll", type=click.IntRange(1, 3), default=1, show_default=True, help="Which roll of the turn the dice come from."
)
@click.option("--box", "box_now", is_flag=True, help="Stop rolling now and ask which box to fill.")
@click.option("--all", "show_all", is_flag=True, help="Show every option, not just the top 10.")
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (schema in README).")
@click.option("--target", type=int, default=None, help="Play to finish with at least this score (not for the mean).")
@click.pass_context
def advise(ctx, variant_name, card, dice, roll, box_now, show_all, keep_one, as_json, target):
    """What to keep after this roll, or which box to fill (default variant: kniffel)."""
    from .advisor import format_dice, parse_dice

    variant = find_variant(_variant_or_default(variant_name), keep_one)
    parsed = parse_card(variant, card)
    rolled = parse_dice(variant, dice)
    if target is not None:
        return _advise_target(ctx, variant, parsed, rolled, roll, box_now, show_all, as_json, target)
    advisor = _advisor(variant, _settings(ctx))
    action, options = advisor.advise(parsed, rolled, roll, box_now)
    best = options[0]
    then = None
    if action == "keep" and len(best.keep) == variant.n_dice:
        then = advisor.box_options(parsed, rolled)[0]  # stopping: the box comes next
    if as_json:
        out = {
            "variant": variant.name,
            "card": parsed.format(),
            "dice": list(rolled),
            "roll": roll,
            "action": action,
            "expected_final_score": advisor.expected_final(parsed),
            "best": best.as_dict(variant),
            "then": then.as_dict(variant) if then else None,
            "options": [o.as_dict(variant) for o in (options if show_all else options[:10])],
            "options_total": len(options),
        }
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(
        f"{variant.name}, roll {roll}: {format_dice(variant, rolled)}   "
        f"(card {parsed.format() or 'empty'}: {parsed.points} points)"
    )
    click.echo(
        f"Best: {best.text}"
        + (f", then {then.text}" if then else "")
        + f"  -> expected final score {best.expected_final_score:.2f}"
    )
    for row in _option_rows(options, None if show_all else 10):
        click.echo(row)


def _advise_target(ctx, variant, card, rolled, roll, box_now, show_all, as_json, target):
    """advise --target: every option ranked by the probability of finishing with at least target."""
    from . import targets
    from .advisor import format_dice

    targets.check_target(variant, card, target)  # before any table is loaded or built
    settings = _settings(ctx)
    advisor = _advisor(variant, settings)
    table = get_target_table(variant, settings)
    action, options = targets.target_options(variant, table, advisor, card, rolled, roll, target, box_now)
    best = options[0]
    then = None
    if action == "keep" and len(best.option.keep) == variant.n_dice:  # stopping: the box comes next
        then = targets.target_options(variant, table, advisor, card, rolled, 3, target)[1][0]
    probability = targets.target_probability(variant, table, card, target)
    if as_json:
        out = {
            "variant": variant.name,
            "card": card.format(),
            "dice": list(rolled),
            "roll": roll,
            "target": target,
            "action": action,
            "probability": probability,
            "expected_final_score": advisor.expected_final(card),
            "best": best.as_dict(variant),
            "then": then.as_dict(variant) if then else None,
            "options": [o.as_dict(variant) for o in (options if show_all else options[:10])],
            "options_total": len(options),
        }
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(
        f"{variant.name}, roll {roll}: {format_dice(variant, rolled)}   "
        f"(card {card.format() or 'empty'}: {card.points} points; target {target}: "
        f"{probability:.2%} at the start of this turn)"
    )
    click.echo(
        f"Best for the target: {best.option.text}"
        + (f", then {then.option.text}" if then else "")
        + f"  -> reaches {target} with probability {best.probability:.4%}"
    )
    shown = options if show_all else options[:10]
    width = max(len(o.option.text) for o in shown)
    click.echo(f"  {'#':>3}  {'option':<{width}}  {'P(>= target)':>12}  {'expected':>9}")
    for i, o in enumerate(shown, 1):
        click.echo(f"  {i:>3}  {o.option.text:<{width}}  {o.probability:>12.4%}  {o.option.expected_final_score:>9.2f}")
    if len(shown) < len(options):
        click.echo(f"  ... {len(options) - len(shown)} more (--all shows every option)")


@cli.command()
@click.argument("variant_name", metavar="[VARIANT]", required=False)
@click.option("--roll-for-me", is_flag=True, help="Roll the dice instead of asking for them.")
@click.option("--seed", type=int, default=None, help="Seed for --roll-for-me (reproducible games).")
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False),
    default="kniffel-game.json",
    show_default=True,
    help="Game record, written after every step.",
)
@click.option(
    "--resume",
    "resume_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Continue the game saved in this file.",
)
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.pass_context
def play(ctx, variant_name, roll_for_me, seed, save_path, resume_path, keep_one):
    """Play a whole game with advice after every roll (type 'help' at any prompt)."""
    from .game import Game
    from .play import PlayLoop

    if resume_path:
        game = Game.load(Path(resume_path))
        save_path = resume_path
        if variant_name and find_variant(variant_name, keep_one) != game.variant:
            raise RuleError(f"{resume_path} is a game of {game.variant.name}, not {variant_name}")
    else:
        variant = find_variant(_variant_or_default(variant_name), keep_one)
        game = Game(variant, seed=seed, roll_for_me=roll_for_me)
    advisor = _advisor(game.variant, _settings(ctx))
    PlayLoop(game, advisor, Path(save_path)).run()


@cli.command()
@click.argument("variant_name", metavar="[VARIANT]", required=False)
@click.option("-n", "--games", type=click.IntRange(1, 100_000_000), default=100_000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Same seed, same games.")
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.option("--json", "as_json", is_flag=True)
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Write a PNG histogram (needs matplotlib).")
@click.option("--target", type=int, default=None, help="Play to reach this score instead; report how often it is.")
@click.pass_context
def simulate(ctx, variant_name, games, seed, keep_one, as_json, plot, target):
    """Play many games with the optimal strategy and report the score distribution."""
    from tqdm import tqdm

    from . import simulate as sim

    if target is not None:
        return _simulate_target(ctx, _variant_or_default(variant_name), games, seed, keep_one, as_json, target)

    if plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise click.UsageError("--plot needs matplotlib: pip install 'kniffel[plot]'") from None
    settings = _settings(ctx)
    variant = find_variant(_variant_or_default(variant_name), keep_one)
    values, meta = get_table(variant, settings)
    t0 = time.perf_counter()
    with tqdm(
        total=games,
        desc=f"simulate {variant.name}",
        unit="game",
        unit_scale=True,
        file=sys.stderr,
        disable=None if settings.progress else True,
        leave=False,
    ) as bar:
        played = sim.simulate(variant, values, games, seed=seed, progress=bar.update)
    seconds = time.perf_counter() - t0
    out = sim.summary(played)
    out.update(seed=seed, seconds=round(seconds, 3), table_start_value=meta["start_value"])
    if plot:
        fig, ax = plt.subplots(figsize=(8, 4.5))
        scores = played.scores
        ax.hist(scores, bins=np.arange(scores.min(), scores.max() + 2) - 0.5, color="#3465a4")
        ax.axvline(out["mean"], color="#cc0000", label=f"mean {out['mean']:.2f}")
        ax.set(xlabel="final score", ylabel="games", title=f"{variant.title}: {games:,} games of optimal play")
        ax.legend()
        fig.tight_layout()
        fig.savefig(plot, dpi=120)
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(
        f"{variant.title}: {games:,} games of optimal play (seed {seed}, {seconds:.2f} s, "
        f"{games / seconds:,.0f} games/s)"
    )
    click.echo(
        f"mean {out['mean']:.3f} ± {out['stderr']:.3f} (table: {meta['start_value']:.3f}), "
        f"std {out['std']:.2f}, median {out['median']:g}, min {out['min']}, max {out['max']}"
    )
    click.echo("percentiles: " + ", ".join(f"{p}%: {x:g}" for p, x in out["percentiles"].items()))
    click.echo("P(score >= t): " + ", ".join(f"{t}: {x:.2%}" for t, x in out["p_at_least"].items()))
    click.echo("upper bonus: " + ", ".join(f"{t}+: {x:.2%}" for t, x in out["upper_bonus_rate"].items()))
    if "extra_rate" in out:
        click.echo(
            f"games with extra points: {out['extra_rate']:.2%}, mean further jokers per game "
            f"{out['extra_mean_count']:.4f}"
        )
    click.echo(f"{'box':<16} {'mean':>7} {'zero':>7}")
    for b in out["boxes"].values():
        click.echo(f"{b['name']:<16} {b['mean']:>7.2f} {b['zero_rate']:>7.1%}")
    click.echo(sim.text_histogram(played.scores))
    if plot:
        click.echo(f"histogram written to {plot}")


def _simulate_target(ctx, variant_name, games, seed, keep_one, as_json, target):
    """simulate --target: games played to reach the target; the fraction that did, with its error."""
    from tqdm import tqdm

    from . import targets

    variant = find_variant(variant_name, keep_one)
    targets.check_target(variant, parse_card(variant, ""), target)  # before any table is loaded or built
    settings = _settings(ctx)
    advisor = _advisor(variant, settings)
    table = get_target_table(variant, settings)
    t0 = time.perf_counter()
    with tqdm(
        total=games,
        desc=f"simulate {variant.name} to {target}",
        unit="game",
        file=sys.stderr,
        disable=None if settings.progress else True,
        leave=False,
    ) as bar:
        run = targets.simulate_target(variant, table, advisor, games, target, seed=seed, progress=bar.update)
    seconds = time.perf_counter() - t0
    expected = targets.target_probability(variant, table, parse_card(variant, ""), target)
    out = {"variant": variant.name, **run.as_dict(), "probability": expected, "seconds": round(seconds, 3)}
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(
        f"{variant.title}: {games:,} games played to reach {target} (seed {seed}, {seconds:.2f} s): "
        f"reached in {run.p_reached:.4%} ± {run.stderr:.4%} (table: {expected:.4%})"
    )


@cli.command()
@click.argument("game_file", metavar="GAME.json", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def review(ctx, game_file, as_json):
    """Every decision of a saved game against the optimal one, and what it cost."""
    from .game import Game, decisions

    game = Game.load(Path(game_file))
    advisor = _advisor(game.variant, _settings(ctx))
    steps = decisions(game, advisor)
    card = game.point().card
    total = sum(d.loss for d in steps)
    worst = sorted(steps, key=lambda d: -d.loss)[:3]
    if as_json:
        click.echo(
            json.dumps(
                {
                    "variant": game.variant.name,
                    "finished": card.full,
                    "score": card.points,
                    "decisions": [
                        {
                            "turn": d.turn,
                            "roll": d.roll,
                            "dice": list(d.dice),
                            "chosen": d.chosen.text,
                            "chosen_expected": d.chosen.expected_final_score,
                            "best": d.best.text,
                            "best_expected": d.best.expected_final_score,
                            "loss": d.loss,
                        }
                        for d in steps
                    ],
                    "total_loss": total,
                    "mean_loss": total / len(steps) if steps else 0.0,
                    "costliest": [steps.index(d) for d in worst if d.loss > 0],
                },
                indent=2,
            )
        )
        return
    click.echo(f"Review of {game_file}: {game.variant.title}")
    click.echo(
        f"{'turn':>4} {'roll':>4}  {'dice':<13} {'chosen':<40} {'best':<40} {'chosen':>8} {'best':>8} {'loss':>6}"
    )
    for d in steps:
        best = "=" if d.loss == 0 else d.best.text
        click.echo(
            f"{d.turn:>4} {d.roll:>4}  {' '.join(map(str, d.dice)):<13} {d.chosen.text:<40} {best:<40} "
            f"{d.chosen.expected_final_score:>8.2f} {d.best.expected_final_score:>8.2f} {d.loss:>6.2f}"
        )
    click.echo(
        f"Total loss: {total:.2f} points over {len(steps)} decisions "
        f"(mean {total / len(steps) if steps else 0:.3f} per decision)"
    )
    costly = [d for d in worst if d.loss > 0]
    if costly:
        click.echo("Costliest decisions:")
        for d in costly:
            click.echo(
                f"  turn {d.turn}, roll {d.roll} ({' '.join(map(str, d.dice))}): {d.chosen.text} "
                f"instead of {d.best.text}: -{d.loss:.2f}"
            )
    click.echo(f"Score: {card.points}" + ("" if card.full else " (game not finished)"))


def main(argv=None) -> None:
    cli.main(args=argv, prog_name="kniffel")


if __name__ == "__main__":
    main()
