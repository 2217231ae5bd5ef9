"""The `kniffel` command line: solve tables, value cards, advise, play, simulate, review."""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import click
import numpy as np

from . import solving, tables
from .cards import parse_card
from .errors import KniffelError
from .files import check_writable_file
from .rules import PRESETS, RuleError, find_variant
from .simulation import MAX_SEED
from .texts import choose_language, set_language, t

VARIANT_NAMES = ", ".join(PRESETS)


def _lang_callback(ctx, param, value):
    if value:
        ctx.find_object(Settings).lang = value
        set_language(value)
    return value


def lang_option(f):
    """--lang de|en, on the group and on each command that talks to a player."""
    return click.option(
        "--lang",
        type=click.Choice(["de", "en"]),
        default=None,
        expose_value=False,
        callback=_lang_callback,
        help="Language: de or en (default: LC_ALL/LC_MESSAGES/LANG, else German for Kniffel, English for Yahtzee).",
    )(f)


def _speak(ctx, variant) -> None:
    """The language of this command's output, now that the variant is known."""
    set_language(choose_language(_settings(ctx).lang, variant.lang))


@dataclass
class Settings:
    """Every command's shared flags, in one object."""

    tables_dir: Path
    threads: int | None = None
    progress: bool = True
    lang: str | None = None  # --lang; None: the locale variables, else the variant's language


def solve_table(variant, settings: Settings, engine=None):
    """Solve a variant with a progress bar and save its table (solving.solve_table)."""
    return solving.solve_table(variant, settings.tables_dir, progress=settings.progress, engine=engine)


def get_table(variant, settings: Settings):
    """Load the variant's table; solve it first (with a notice) when it is missing."""
    return solving.load_or_solve(variant, settings.tables_dir, progress=settings.progress)


DEFAULT_GAME_FILE = "kniffel-game.json"


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

    try:
        return targets.load_target_table(variant, settings.tables_dir)
    except target_tables.TargetTableMissing:
        click.echo(
            f"kniffel: no target table for {variant.name} yet, building it once (saved to {settings.tables_dir})",
            err=True,
        )
        return solve_target_table(variant, settings)[0]


def _settings(ctx) -> Settings:
    return ctx.find_object(Settings)


class _Interrupted(Exception):
    """Ctrl-C, carried past click (which would turn it into Abort and print a blank line)."""


def _interrupted(exc: BaseException) -> bool:
    """Was this click Abort a Ctrl-C (rather than the end of input at a prompt)?"""
    cause = exc.__cause__ or exc.__context__
    return isinstance(cause, KeyboardInterrupt)


class OneLineErrors(click.Group):
    """Every user error (KniffelError, click's usage errors, OSError) is one line on stderr and exit
    code 2; Ctrl-C is `kniffel: interrupted` and exit code 130. Anything else is a bug and keeps its
    traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted from None
        except EOFError as exc:  # prompts turn the end of input into Abort themselves: this one is a bug
            raise RuntimeError(f"unexpected end of file: {exc}") from exc

    def main(self, args=None, prog_name=None, **extra):
        extra.pop("standalone_mode", None)
        args = list(sys.argv[1:] if args is None else args)
        if not args:
            args = ["--help"]  # `kniffel` alone: the help, exit code 0
        try:
            code = super().main(args=args, prog_name=prog_name, standalone_mode=False, **extra)
        except (_Interrupted, KeyboardInterrupt):
            click.echo("kniffel: interrupted", err=True)
            sys.exit(130)
        except click.exceptions.Abort as exc:
            click.echo("kniffel: interrupted" if _interrupted(exc) else "kniffel: aborted (end of input)", err=True)
            sys.exit(130)
        except click.ClickException as exc:
            click.echo(f"kniffel: error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code or 2)
        except (KniffelError, OSError) as exc:
            click.echo(f"kniffel: error: {exc}", err=True)
            sys.exit(2)
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
@click.option(
    "--lang",
    type=click.Choice(["de", "en"]),
    default=None,
    help="Language: de or en (default: LC_ALL/LC_MESSAGES/LANG, else German for Kniffel, English for Yahtzee).",
)
@click.version_option(package_name="kniffel")
@click.pass_context
def cli(ctx, tables_path, threads, no_progress, lang):
    """Exact optimal strategy for solitaire Kniffel, Yahtzee, Yatzy and variants.

    \b
    Variants: kniffel, kniffel-meister, kniffel-keep-one, yahtzee, yahtzee-free-joker, yatzy, yatzy6, kniffel7
    Example:  kniffel play kniffel          kniffel advise yahtzee 33516
    """
    ctx.obj = Settings(tables.tables_dir(tables_path), threads, not no_progress, lang)
    set_language(choose_language(lang, "en"))
    source = "--tables" if tables_path else f"${tables.ENV_DIR}" if os.environ.get(tables.ENV_DIR) else "tables folder"
    tables.check_tables_dir(ctx.obj.tables_dir, source)
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
    """Solve VARIANT... and write tables/<variant>.npy (+ .json); --target: also <variant>.target.npy.

    \b
    Example:  kniffel solve kniffel yahtzee yatzy
    Variants: kniffel, kniffel-meister, kniffel-keep-one, yahtzee, yahtzee-free-joker, yatzy, yatzy6, kniffel7
    """
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
    """Expected final score of a card at the start of a turn, under optimal play.

    \b
    Example:  kniffel value kniffel --card "einser=3,dreier=9,chance=22"
    Variants: kniffel, kniffel-meister, kniffel-keep-one, yahtzee, yahtzee-free-joker, yatzy, yatzy6, kniffel7
    """
    from .reports import value_report

    table = _table(find_variant(variant_name, keep_one), _settings(ctx))
    result = value_report(table, card)
    if as_json:
        click.echo(json.dumps(result))
    else:
        click.echo(
            f"{table.variant.name}: {result['points']} points on the card + {result['expected_future']:.4f} "
            f"expected to come = {result['expected_final_score']:.4f} expected final score"
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
    from .win import probability_expected_play

    settings = _settings(ctx)
    values, _ = get_table(variant, settings)
    table = get_target_table(variant, settings)
    result = targets.chances(
        variant, table, parsed, target, lambda c, t: probability_expected_play(variant, values, c, t)
    )
    if as_json:
        click.echo(json.dumps(result.as_dict()))
        return
    click.echo(
        f"{variant.name}: from card {parsed.format() or '(empty)'} ({parsed.points} points), the best play "
        f"reaches {target} or more with probability {result.probability:.6f} ({result.probability:.2%}); "
        f"playing for the maximum expected score: {result.probability_expected_play:.6f} "
        f"({result.probability_expected_play:.2%})"
    )


@cli.command()
@click.option("--json", "as_json", is_flag=True)
@lang_option
@click.pass_context
def variants(ctx, as_json):
    """The presets, their boxes and, where a table exists, the start value.

    \b
    Example:  kniffel variants --lang en
    Variants: kniffel, kniffel-meister, kniffel-keep-one, yahtzee, yahtzee-free-joker, yatzy, yatzy6, kniffel7
    Box names come in each variant's own language first (German for the Kniffel games).
    """
    from .reports import variants_report

    settings = _settings(ctx)
    out = variants_report(settings.tables_dir)
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    for v, variant in zip(out, PRESETS.values()):
        set_language(choose_language(settings.lang, variant.lang))
        start = t("variants_start", value=v["start_value"]) if v["start_value"] is not None else t("variants_no_table")
        options = t("variants_options", options=", ".join(v["options"])) if v["options"] else ""
        click.echo(t("variants_row", name=v["variant"], title=v["title"], dice=v["dice"], start=start, options=options))
        first, second = ("de", "en") if choose_language(settings.lang, variant.lang) == "de" else ("en", "de")
        click.echo(
            "    "
            + ", ".join(
                f"{b['position']}. {b[first]}" + (f" ({b[second]})" if b[second] != b[first] else "")
                for b in v["boxes"]
            )
        )


def _table(variant, settings: Settings):
    from .advisor import make_advisor
    from .api import Table

    values, meta = get_table(variant, settings)
    return Table(variant, values, meta, make_advisor(variant, values), settings.tables_dir)


def _advisor(variant, settings: Settings):
    from .advisor import make_advisor

    values, _ = get_table(variant, settings)
    return make_advisor(variant, values)


def _option_rows(variant, options, top: int | None, dice=None) -> list[str]:
    from .explain import loss_text, option_text

    shown = options if top is None else options[:top]
    texts = [option_text(variant, o, dice) for o in shown]
    width = max(len(x) for x in texts)
    with_std = any(o.std is not None for o in shown)
    option, expected, loss = t("advise_columns").split(",")
    spread = f"  {'std':>6}" if with_std else ""
    rows = [f"  {'#':>3}  {option:<{width}}  {expected:>9}  {loss:>10}{spread}"]
    for i, (o, text) in enumerate(zip(shown, texts), 1):
        mark = t("best") if i == 1 else loss_text(o.loss)
        std = f"  {o.std:>6.2f}" if with_std and o.std is not None else ""
        rows.append(f"  {i:>3}  {text:<{width}}  {o.expected_final_score:>9.2f}  {mark:>10}{std}")
    if len(shown) < len(options):
        rows.append(t("advise_more", count=len(options) - len(shown)))
    return rows


def _echo_chance_rows(options, show_all: bool, label: str, chance) -> None:
    """The ranked options of `advise --target` / `--opponent`: a chance column, then the expected score."""
    shown = options if show_all else options[:10]
    width = max(len(o.option.text) for o in shown)
    col = max(len(label), 9)
    click.echo(f"  {'#':>3}  {'option':<{width}}  {label:>{col}}  {'expected':>9}")
    for i, o in enumerate(shown, 1):
        click.echo(f"  {i:>3}  {o.option.text:<{width}}  {chance(o):>{col}.4%}  {o.option.expected_final_score:>9.2f}")
    if len(shown) < len(options):
        click.echo(f"  ... {len(options) - len(shown)} more (--all shows every option)")


def _variant_or_default(variant_name):
    return variant_name or "kniffel"


def _looks_like_dice(text: str) -> bool:
    """'33516', '3,3,5,1,6', 'blue=2,...': dice, not a variant name."""
    return text not in PRESETS and (text.replace(",", "").replace(" ", "").isdigit() or "=" in text)


@cli.command()
@click.argument("variant_name", metavar="[VARIANT]", required=False)
@click.argument("dice_arg", metavar="[DICE]", required=False)
@click.option("--card", default="", help="Card: 'box=points,...,extra=N' (default: empty card).")
@click.option("--dice", default=None, help="The dice shown: '3,3,5,1,6' or '33516' (or give them after VARIANT).")
@click.option(
    "--roll", type=click.IntRange(1, 3), default=1, show_default=True, help="Which roll of the turn the dice come from."
)
@click.option("--box", "box_now", is_flag=True, help="Stop rolling now and ask which box to fill.")
@click.option("--all", "show_all", is_flag=True, help="Show every option, not just the top 10.")
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (schema in README).")
@click.option("--target", type=int, default=None, help="Play to finish with at least this score (not for the mean).")
@click.option("--opponent", default=None, help="Play to beat this card's player (who plays for the mean).")
@lang_option
@click.pass_context
def advise(ctx, variant_name, dice_arg, card, dice, roll, box_now, show_all, keep_one, as_json, target, opponent):
    """What to keep after this roll, or which box to fill (default variant: kniffel).

    \b
    Example:  kniffel advise kniffel 33516 --roll 1
              kniffel advise yahtzee --card "chance=22" --dice 3,3,5,1,6 --roll 3
              kniffel advise kniffel7 --dice blue=2,green=3,purple=7,yellow=1,red=6,black=7,white=4
    Variants: kniffel, kniffel-meister, kniffel-keep-one, yahtzee, yahtzee-free-joker, yatzy, yatzy6, kniffel7
    """
    from .explain import card_text, dice_text, joker_rule, option_text, tie_order

    if variant_name and dice_arg is None and _looks_like_dice(variant_name):
        variant_name, dice_arg = None, variant_name  # `advise 33516`: the default variant's dice
    variant = find_variant(_variant_or_default(variant_name), keep_one)
    _speak(ctx, variant)
    if dice_arg is not None and dice is not None:
        raise click.UsageError(t("err_advise_dice_twice", a=dice_arg, b=dice))
    dice = dice if dice is not None else dice_arg
    if dice is None:
        raise click.UsageError(t("err_advise_dice", variant=variant.name))
    if target is not None and opponent is not None:
        from .win import OpponentError

        raise OpponentError("--target and --opponent do not go together: play to reach a score or to beat a card")
    if target is not None or opponent is not None:
        from .advisor import parse_dice

        parsed, rolled = parse_card(variant, card), parse_dice(variant, dice)
        if opponent is not None:
            return _advise_opponent(ctx, variant, parsed, rolled, roll, box_now, show_all, as_json, opponent)
        return _advise_target(ctx, variant, parsed, rolled, roll, box_now, show_all, as_json, target)
    table = _table(variant, _settings(ctx))
    advice = table.advise(card, dice, roll, box_now=box_now, spread=True)
    if as_json:
        click.echo(json.dumps(advice.as_dict(all_options=show_all), indent=2))
        return
    parsed, rolled, best, then, options = advice.card, advice.dice, advice.best, advice.then, advice.options
    options = tie_order(list(options))
    click.echo(
        t(
            "advise_header",
            variant=variant.name,
            roll=roll,
            dice=dice_text(variant, rolled),
            card=card_text(parsed),
            points=parsed.points,
        )
    )
    if options[0] is not best:  # a tie with "keep all": stopping is shown first, and its box
        best, then = options[0], tie_order(table.advisor.box_options(parsed, rolled))[0]
    text, expected = option_text(variant, best, rolled), best.expected_final_score
    if then:
        click.echo(t("advise_best_then", text=text, then=option_text(variant, then, rolled), expected=expected))
    else:
        click.echo(t("advise_best", text=text, expected=expected))
    if best.kind == "box" or then:
        rule = joker_rule(variant, parsed, rolled)
        if rule:
            click.echo(rule)
    for row in _option_rows(variant, options, None if show_all else 10, rolled):
        click.echo(row)


def _advise_target(ctx, variant, card, rolled, roll, box_now, show_all, as_json, target):
    """advise --target: every option ranked by the probability of finishing with at least target."""
    from . import targets
    from .advisor import format_dice

    targets.check_target(variant, card, target)  # before any table is loaded or built
    settings = _settings(ctx)
    advisor = _advisor(variant, settings)
    table = get_target_table(variant, settings)
    advice = targets.target_advice(variant, table, advisor, card, rolled, roll, target, box_now)
    if as_json:
        click.echo(json.dumps(advice.as_dict(all_options=show_all), indent=2))
        return
    best, then, probability, options = advice.best, advice.then, advice.probability, advice.options
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
    _echo_chance_rows(options, show_all, "P(>= target)", lambda o: o.probability)


def _advise_opponent(ctx, variant, card, rolled, roll, box_now, show_all, as_json, opponent_text):
    """advise --opponent: every option ranked by the probability of beating the opponent's final score."""
    from . import targets, win
    from .advisor import format_dice

    opponent = parse_card(variant, opponent_text)  # bad cards: one line, before any engine is built
    win.check_opponent(card, opponent)
    targets.target_engine(variant)  # Kniffel 7: one line, before any work
    settings = _settings(ctx)
    values, _ = get_table(variant, settings)
    advisor = _advisor(variant, settings)
    table = get_target_table(variant, settings)
    opp_pmf = win.opponent_pmf(variant, values, opponent)
    action, options = win.opponent_options(variant, table, advisor, card, rolled, roll, opp_pmf, box_now)
    best = options[0]
    then = None
    if action == "keep" and len(best.option.keep) == variant.n_dice:  # stopping: the box comes next
        then = win.opponent_options(variant, table, advisor, card, rolled, 3, opp_pmf)[1][0]
    p_win = win.win_probability(opp_pmf, card, table)
    opp_mean = float(np.arange(opp_pmf.shape[0]) @ opp_pmf)
    if as_json:
        out = {
            "variant": variant.name,
            "card": card.format(),
            "opponent": opponent.format(),
            "dice": list(rolled),
            "roll": roll,
            "action": action,
            "win": p_win,
            "opponent_expected_final_score": opp_mean,
            "expected_final_score": advisor.expected_final(card),
            "best": best.as_dict(variant),
            "then": then.as_dict(variant) if then else None,
            "options": [o.as_dict(variant) for o in (options if show_all else options[:10])],
            "options_total": len(options),
        }
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(
        f"{variant.name}, roll {roll}: {format_dice(variant, rolled)}   (card {card.format() or 'empty'}: "
        f"{card.points} points; opponent {opponent.points} points, expects {opp_mean:.1f}; "
        f"P(win) {p_win:.2%} at the start of this turn, a tie is not a win)"
    )
    click.echo(
        f"Best to win: {best.option.text}"
        + (f", then {then.option.text}" if then else "")
        + f"  -> beats the opponent with probability {best.win:.4%}"
    )
    _echo_chance_rows(options, show_all, "P(win)", lambda o: o.win)


@cli.command()
@click.argument("variant_name", metavar="[VARIANT]", required=False)
@click.option("--roll-for-me", is_flag=True, help="Roll the dice instead of asking for them.")
@click.option("--seed", type=int, default=None, help="Seed for --roll-for-me (reproducible games; all of it is used).")
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False),
    default=None,
    help=f"Game record, written after every step [default: {DEFAULT_GAME_FILE}; with --resume: that file].",
)
@click.option(
    "--resume",
    "resume_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Continue the game saved in this file.",
)
@click.option("--force", is_flag=True, help="Let --save replace an existing file.")
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@lang_option
@click.pass_context
def play(ctx, variant_name, roll_for_me, seed, save_path, resume_path, force, keep_one):
    """Play a whole game with advice after every roll (type 'help' at any prompt).

    \b
    Example:  kniffel play kniffel                 (you roll real dice and type them: 33516)
              kniffel play yahtzee --roll-for-me --seed 7 --save game.json
              kniffel play --resume game.json
    Variants: kniffel, kniffel-meister, kniffel-keep-one, yahtzee, yahtzee-free-joker, yatzy, yatzy6, kniffel7
    """
    from .game import Game
    from .play import PlayLoop

    if resume_path:
        game = Game.load(Path(resume_path))  # validated completely, by replaying every event
        if variant_name and find_variant(variant_name, keep_one) != game.variant:
            raise RuleError(f"{resume_path} is a game of {game.variant.name}, not {variant_name}")
        if seed is not None and seed != game.seed:
            raise RuleError(f"{resume_path} was played with seed {game.seed}; --seed cannot change it")
        if roll_for_me:
            game.roll_for_me = True
    else:
        variant = find_variant(_variant_or_default(variant_name), keep_one)
        game = Game(variant, seed=seed, roll_for_me=roll_for_me)
    _speak(ctx, game.variant)
    target = Path(save_path or resume_path or DEFAULT_GAME_FILE)
    _check_game_target(target, resume_path, force)
    advisor = _advisor(game.variant, _settings(ctx))
    PlayLoop(game, advisor, target).run()


def _check_game_target(target: Path, resume_path: str | None, force: bool) -> None:
    """A game is saved only where nothing would be lost: a new file, the game being resumed, or --force."""
    check_writable_file(target, "game file")
    if not target.exists() or force:
        return
    if resume_path and os.path.samefile(target, resume_path):
        return
    raise KniffelError(f"{target} exists already; choose another --save FILE, or add --force to replace it")


@cli.command()
@click.argument("variant_name", metavar="[VARIANT]", required=False)
@click.option("-n", "--games", type=click.IntRange(1, 100_000_000), default=100_000, show_default=True)
@click.option(
    "--seed",
    type=click.IntRange(0, MAX_SEED),
    default=0,
    show_default=True,
    help="Same seed, same games (0 to 4294967295: every bit of it is used).",
)
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.option("--json", "as_json", is_flag=True)
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="Write a PNG histogram (needs matplotlib).")
@click.option("--target", type=int, default=None, help="Play to reach this score instead; report how often it is.")
@click.option("--versus", is_flag=True, help="Pairs of games: the win strategy against a max-expected player.")
@click.pass_context
def simulate(ctx, variant_name, games, seed, keep_one, as_json, plot, target, versus):
    """Play many games with the optimal strategy and report the score distribution.

    \b
    Example:  kniffel simulate yahtzee -n 100000 --seed 1 --plot scores.png   (--plot: pip install 'kniffel[plot]')
    Variants: kniffel, kniffel-meister, kniffel-keep-one, yahtzee, yahtzee-free-joker, yatzy, yatzy6, kniffel7
    """
    from tqdm import tqdm

    from . import simulation as sim

    if versus:
        from .win import VERSUS_DEFAULT_PAIRS, OpponentError

        if target is not None or plot:
            raise OpponentError("--versus goes without --target and --plot")
        if ctx.get_parameter_source("games") is click.core.ParameterSource.DEFAULT:
            games = VERSUS_DEFAULT_PAIRS  # each pair costs exact opponent distributions: far slower than a game
        return _simulate_versus(ctx, _variant_or_default(variant_name), games, seed, keep_one, as_json)
    if target is not None:
        return _simulate_target(ctx, _variant_or_default(variant_name), games, seed, keep_one, as_json, target)

    if plot:
        plt = _plot_backend(Path(plot))  # checked before the simulation, not after it
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
    _print_simulation(variant, games, seed, seconds, meta, out, played, as_json)
    if plot:
        fig, ax = plt.subplots(figsize=(8, 4.5))
        scores = played.scores
        ax.hist(scores, bins=np.arange(scores.min(), scores.max() + 2) - 0.5, color="#3465a4")
        ax.axvline(out["mean"], color="#cc0000", label=f"mean {out['mean']:.2f}")
        ax.set(xlabel="final score", ylabel="games", title=f"{variant.title}: {games:,} games of optimal play")
        ax.legend()
        fig.tight_layout()
        fig.savefig(plot, dpi=120)
        click.echo(f"histogram written to {plot}", err=as_json)


def _plot_backend(path: Path):
    """matplotlib's pyplot, once the plot's path and format are known to work."""
    check_writable_file(path, "--plot")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise click.UsageError("--plot needs matplotlib: pip install 'kniffel[plot]'") from None
    formats = plt.figure().canvas.get_supported_filetypes()
    plt.close("all")
    suffix = path.suffix.lstrip(".").lower()
    if suffix not in formats:
        raise KniffelError(f"--plot {path}: name a file ending in one of .{', .'.join(sorted(formats))}")
    return plt


def _print_simulation(variant, games, seed, seconds, meta, out, played, as_json) -> None:
    from . import simulation as sim

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


@cli.command()
@click.argument("variant_name", metavar="VARIANT")
@click.option("--card", default="", help="Card at the start of a turn: 'box=points,...' (default: empty card).")
@click.option("--at-least", "at_least", type=int, multiple=True, help="Also show P(final score >= T) (repeatable).")
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (schema in README).")
@click.option(
    "--plot", type=click.Path(dir_okay=False), default=None, help="Write a PNG of the pmf (needs matplotlib)."
)
@click.pass_context
def distribution(ctx, variant_name, card, at_least, keep_one, as_json, plot):
    """Exact final-score distribution of optimal play from a card (forward pass, not simulation)."""
    from . import distribution as dist

    variant = find_variant(variant_name, keep_one)
    parsed = parse_card(variant, card)
    dist.check_thresholds(variant, at_least)
    if not variant.identical_dice:
        raise dist.DistributionError(dist.KNIFFEL7_REFUSAL.format(name=variant.name))
    plt = _plot_backend(Path(plot)) if plot else None  # checked before computing
    values, _ = get_table(variant, _settings(ctx))
    result = dist.distribution(variant, values, parsed, at_least)
    if plt is not None:
        _plot_pmf(plt, variant, result, plot)
    if as_json:
        click.echo(json.dumps(result.as_dict()))
        return
    click.echo(
        f"{variant.title}, card {result.card or 'empty'}: exact final-score distribution of optimal play "
        f"({result.seconds:.2f} s)"
    )
    click.echo(
        f"mean {result.mean:.4f}, std {result.std:.4f}, median {result.median}, min {result.min}, max {result.max}"
    )
    click.echo("percentiles: " + ", ".join(f"{q}%: {x}" for q, x in result.percentiles.items()))
    click.echo("P(score >= t): " + ", ".join(f"{t}: {_percent(x)}" for t, x in result.p_at_least.items()))
    click.echo(dist_histogram(np.array(result.pmf)))
    if plot:
        click.echo(f"plot written to {plot}")


def _percent(x: float) -> str:
    return f"{x:.4%}" if x >= 1e-4 or x == 0 else f"{x:.3g}"


def dist_histogram(pmf: np.ndarray, width: int = 50, bin_size: int = 10) -> str:
    """Text histogram of a pmf in bins of bin_size points (bins holding < 1e-4 at the tails left out)."""
    n_bins = (pmf.shape[0] + bin_size - 1) // bin_size
    mass = np.add.reduceat(pmf, np.arange(0, n_bins * bin_size, bin_size)[:n_bins])
    shown = np.flatnonzero(mass >= 1e-4)
    lines = []
    for b in range(shown[0], shown[-1] + 1):
        bar = "#" * int(round(width * mass[b] / mass.max()))
        lines.append(f"{b * bin_size:>5}-{b * bin_size + bin_size - 1:<5} {mass[b]:>8.4%} {bar}")
    return "\n".join(lines)


def _plot_pmf(plt, variant, result, path) -> None:
    pmf = np.array(result.pmf)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.bar(np.arange(pmf.shape[0]), pmf, width=1.0, color="#3465a4")
    ax.axvline(result.mean, color="#cc0000", label=f"mean {result.mean:.2f}")
    ax.axvline(result.median, color="#4e9a06", linestyle="--", label=f"median {result.median}")
    ax.set_xlim(result.percentiles["1"] - 20, result.percentiles["99"] + 40)
    ax.set(
        xlabel="final score",
        ylabel="probability",
        title=f"{variant.title}, card {result.card or 'empty'}: exact distribution of optimal play",
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


@cli.command()
@click.argument("variant_name", metavar="VARIANT")
@click.option("--card", "cards", multiple=True, required=True, help="One player's card (repeat: 2 to 6 players).")
@click.option("--names", default=None, help="Player names, comma-separated, one per --card.")
@click.option("--keep-one", is_flag=True, help="Kniffel house rule: keep a die before the third roll.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (schema in README).")
@click.pass_context
def odds(ctx, variant_name, cards, names, keep_one, as_json):
    """Who wins: each player's chance to finish first (all at the start of the same round)."""
    from . import distribution as dist

    variant = find_variant(variant_name, keep_one)
    parsed = [parse_card(variant, c) for c in cards]
    name_list = [n.strip() for n in names.split(",")] if names is not None else None
    if not variant.identical_dice:
        raise dist.DistributionError(dist.KNIFFEL7_REFUSAL.format(name=variant.name))
    dist.check_players(parsed, name_list)  # before loading or solving a table
    values, _ = get_table(variant, _settings(ctx))
    result = dist.odds(variant, values, parsed, name_list)
    if as_json:
        click.echo(json.dumps(result.as_dict()))
        return
    width = max(len(p.name) for p in result.players)
    click.echo(f"{variant.title}: odds of {len(result.players)} players playing for the maximum expected score")
    click.echo(f"  {'player':<{width}}  {'win':>8}  {'expected':>9}  {'std':>6}  card")
    for p in result.players:
        click.echo(
            f"  {p.name:<{width}}  {p.win:>8.3%}  {p.expected_final_score:>9.2f}  {p.std:>6.2f}  {p.card or 'empty'}"
        )
    click.echo(f"  tie for first: {result.tie:.3%}")


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


def _simulate_versus(ctx, variant_name, pairs, seed, keep_one, as_json):
    """simulate --versus: the win strategy against a max-expected player; the win rate and its error."""
    from tqdm import tqdm

    from . import targets, win
    from .spread import moments

    variant = find_variant(variant_name, keep_one)
    targets.target_engine(variant)  # Kniffel 7: one line, before any work
    settings = _settings(ctx)
    values, _ = get_table(variant, settings)
    advisor = _advisor(variant, settings)
    table = get_target_table(variant, settings)
    t0 = time.perf_counter()
    with tqdm(
        total=pairs,
        desc=f"simulate {variant.name} versus",
        unit="pair",
        file=sys.stderr,
        disable=None if settings.progress else True,
        leave=False,
    ) as bar:
        m2 = moments(variant, values, settings.tables_dir)
        run = win.simulate_versus(variant, values, table, advisor, pairs, seed=seed, progress=bar.update, m2=m2)
    seconds = time.perf_counter() - t0
    out = {"variant": variant.name, **run.as_dict(), "seconds": round(seconds, 3)}
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(
        f"{variant.title}: {pairs:,} pairs, win strategy against a max-expected player (seed {seed}, "
        f"{seconds:.1f} s): {run.wins} wins, {run.ties} ties, {run.losses} losses; win rate (ties half) "
        f"{run.win_rate:.2%} ± {run.stderr:.2%}; wins / (wins + losses) {run.h2h:.2%} ± {run.h2h_stderr:.2%}"
    )


@cli.command()
@click.argument("game_file", metavar="GAME.json", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True)
@lang_option
@click.pass_context
def review(ctx, game_file, as_json):
    """Every decision of a saved game against the optimal one, and what it cost.

    \b
    Example:  kniffel review kniffel-game.json
    Variants: kniffel, kniffel-meister, kniffel-keep-one, yahtzee, yahtzee-free-joker, yatzy, yatzy6, kniffel7
    """
    from .explain import dice_text, faces_text, loss_text, option_text, signed
    from .game import Game, decisions
    from .texts import die_name

    game = Game.load(Path(game_file))
    _speak(ctx, game.variant)
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
    v = game.variant
    click.echo(t("review_title", path=game_file, title=v.title))
    if v.die_names:  # faces in die order keep each line within 100 columns; the order is said once
        click.echo(t("review_dice_order", names=" ".join(die_name(v, i) for i in range(v.n_dice))))
    rows = [(d, faces_text(d.dice), option_text(v, d.chosen, d.dice)) for d in steps]
    dice_w = max([len(r[1]) for r in rows] + [6])
    text_w = max([len(r[2]) for r in rows] + [8])
    turn, roll, dice, chosen, loss = t("review_columns").split(",")
    click.echo(f"{turn:>5} {roll:>4}  {dice:<{dice_w}}  {chosen:<{text_w}}  {loss:>7}")
    pad = " " * (5 + 1 + 4 + 2 + dice_w + 2)
    for d, dice_shown, text in rows:
        click.echo(f"{d.turn:>5} {d.roll:>4}  {dice_shown:<{dice_w}}  {text:<{text_w}}  {loss_text(d.loss):>7}")
        if d.loss > 0:
            best = option_text(v, d.best, d.dice)
            click.echo(t("review_best", pad=pad, text=best, expected=d.best.expected_final_score))
    mean = signed(total / len(steps)) if steps else "0.00"
    click.echo(t("review_total", loss=signed(total), count=len(steps), mean=mean))
    costly = [d for d in worst if d.loss > 0]
    if costly:
        click.echo(t("review_costliest"))
        for d in costly:
            click.echo(
                t(
                    "review_costly_row",
                    turn=d.turn,
                    roll=d.roll,
                    dice=dice_text(v, d.dice),
                    chosen=option_text(v, d.chosen, d.dice),
                    best=option_text(v, d.best, d.dice),
                    loss=loss_text(d.loss),
                )
            )
    click.echo(t("review_score", points=card.points) + ("" if card.full else t("review_unfinished")))


LOOPBACK = ("127.0.0.1", "localhost", "::1")


@cli.command()
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback: this machine only)."
)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.pass_context
def serve(ctx, host, port):
    """The advice page and its JSON API in the browser: http://HOST:PORT/ (needs the web extra)."""
    try:
        import uvicorn

        from .web.app import LOOPBACK_HOSTS, create_app
    except ImportError as exc:
        raise KniffelError(
            f"kniffel serve needs the web extra ({exc.name} is missing): pip install -e '.[web]'"
        ) from None
    loopback = host in LOOPBACK or host.startswith("127.")
    if not loopback:
        click.echo(
            f"kniffel: warning: --host {host} lets every machine that reaches this one use the page (no login)",
            err=True,
        )
    app = create_app(_settings(ctx).tables_dir, allowed_hosts=[*LOOPBACK_HOSTS, host] if loopback else None)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"kniffel: serving http://{shown}:{port}/ (Ctrl-C stops)", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def main(argv=None) -> None:
    cli.main(args=argv, prog_name="kniffel")


if __name__ == "__main__":
    main()
