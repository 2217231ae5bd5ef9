"""The `kniffel` command group and what every command shares: settings, tables, one-line errors.

The commands live beside this file (tables, advise, game, statistics, serve); nothing here imports Numba, so
`kniffel --help` and usage errors answer at once.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager

import click

from ..errors import KniffelError
from ..i18n.texts import LANGUAGES, choose_language, click_message, language, os_error_text, set_language, t
from ..store import files, tables
from . import target_compile, waits
from .help import CatalogueGroup, CatalogueHelp, show_version
from .settings import Settings, _usage_language
from .streams import error_line, silence, tolerant_streams


def _lang_callback(ctx, param, value):
    if value:
        ctx.find_object(Settings).lang = value
        set_language(value)
    return value


def lang_option(f):
    """--lang de|en|es|fr, on the group and on each command that talks to a player."""
    return click.option(
        "--lang",
        type=click.Choice(list(LANGUAGES)),
        default=None,
        expose_value=False,
        callback=_lang_callback,
    )(f)


def _speak(ctx, variant, stored: str | None = None) -> None:
    """The language of this command's output, now that the variant is known: --lang, else the language a
    saved game was played in (`stored`), else the locale, else the variant's."""
    set_language(_settings(ctx).lang or stored or choose_language(None, variant.lang))


def _speak_guess(ctx, lang: str | None) -> None:
    """Before a game file is validated: its language, if it names one (so that its refusal speaks it too), else
    the one the command speaks already."""
    set_language(_settings(ctx).lang or lang or language())


ONE_SHOT = False  # set by main(): this process answers one command and ends (not a test runner or a server)


def quick_answer_from_disk(variant, settings: Settings) -> None:
    """One advice from a solved table needs microseconds of kernel work but over a second of loading compiled
    kernels: with the table and its moments on disk, run the kernels as plain Python instead (same code, same
    answer; numba_setup.interpret). Anything that would solve stays compiled."""
    if not ONE_SHOT or not variant.identical_dice:
        return
    if tables.moments_ready(variant, settings.tables_dir):
        from .. import numba_setup

        numba_setup.interpret()


def progress_bar(settings: Settings, total: int, desc: str, unit: str, unit_scale: bool = False):
    """A progress bar on stderr, shown only on a terminal and unless --no-progress; gone when done. `unit`:
    the catalogue's `unit_<unit>` (state, value, game, turn, pair, col, cost) names what it counts."""
    from ..progress import LiveBar

    disable = None if settings.progress else True
    unit = " " + t(f"unit_{unit}")  # "12.3k Spiel/s"
    return LiveBar(
        total=total, desc=desc, unit=unit, unit_scale=unit_scale, disable=disable, file=sys.stderr, leave=False
    )


class _Notice:
    """What a Kniffel 7 target answer computed on demand shows (chances/ordered_chances.py): called as on_plan,
    one line on stderr with the estimate when it is 5 s or more, then a progress bar over the columns;
    games(count): a progress bar over the games simulated instead."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.bars: list = []

    def __call__(self, plan, seconds):
        if seconds >= 5:
            click.echo("kniffel: " + t("k7_computing", columns=plan.columns, seconds=seconds), err=True)
        self.bars.append(progress_bar(self.settings, plan.columns, t("k7_bar"), "col"))
        return self.bars[-1].update

    def games(self, count: int):
        self.bars.append(progress_bar(self.settings, count, t("k7_games_bar"), "game"))
        return self.bars[-1].update


@contextmanager
def computing_notice(settings: Settings):
    """A _Notice, its progress bars gone when done."""
    notice = _Notice(settings)
    try:
        yield notice
    finally:
        for bar in notice.bars:
            bar.close()


def solve_table(variant, settings: Settings, engine=None):
    """Solve a variant with a progress bar and save its table (solving.solve_table)."""
    from ..store import solving

    def before_work(states: int) -> None:
        waits.solving(variant, states)

    return solving.solve_table(
        variant, settings.tables_dir, progress=settings.progress, engine=engine, before_work=before_work
    )


def get_table(variant, settings: Settings):
    """Load the variant's table; solve it first (with a notice, and how long it takes) when it is missing."""
    from .. import dp
    from ..store import solving

    def notice(text: str) -> None:
        click.echo("kniffel: " + text, err=True)
        waits.solving(variant, dp.count_states(variant))

    return solving.load_or_solve(variant, settings.tables_dir, progress=settings.progress, notice=notice)


DEFAULT_GAME_FILE = "kniffel-game.json"


def solve_target_table(variant, settings: Settings):
    """Build the target table (issue 13) with a progress bar, save it atomically, return it as stored. The
    opening's pmf (_cache_opening_pmf) is computed beside the build, from its second layer on: the build's
    kernels are compiled by then (Numba compiles one kernel at a time) and run without the GIL, so the
    forward pass's compile (about 25 s of one core on a fresh install) overlaps the build."""
    from ..chances import targets
    from ..store import target_tables

    targets.target_engine(variant)  # refuses Kniffel 7 before any work
    tables.check_writable_folder(settings.tables_dir, target_tables.target_paths(variant, settings.tables_dir))
    from .. import dp

    values, _ = get_table(variant, settings)
    target_compile.wait()  # its kernels, when a second process compiled them meanwhile
    waits.compiling("target")
    layout = targets.planned_layout(variant)
    waits.building(variant, layout.size)
    desc = t("progress_target", variant=variant.name, n=layout.n_max)
    bar = progress_bar(settings, layout.size, desc, "value", unit_scale=True)
    opening: list = []  # the wait() of the opening pmf, once started

    def opening_pmf() -> None:
        dp.set_threads(settings.threads)  # Numba's thread count is per thread: --threads holds here too
        _cache_opening_pmf(variant, values, settings)

    def layer_done(n_values: int) -> None:
        bar.update(n_values)
        if not opening:
            opening.append(_beside(opening_pmf))

    with bar:
        built = targets.build_and_save(variant, layout, settings.tables_dir, layer_done)
    opening[0]()
    return built


def _beside(work):
    """Run work() on a thread of its own (a daemon: Ctrl-C need not wait for it); the function returned
    waits for it and raises what it raised."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # handed to the caller by wait()
            failed.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    def wait() -> None:
        thread.join()
        if failed:
            raise failed[0]

    return wait


def _cache_opening_pmf(variant, values, settings: Settings) -> None:
    """`advise --opponent ""` at a game's start needs the opponent's pmf from the empty card: a forward pass
    of seconds (kniffel about 2.7 s of CPU, yatzy about 8), nothing beside the target table's minutes, so
    it is computed here and kept in the expected-play cache (keyed by the value table's SHA-256)."""
    from ..advice.cards import Card
    from ..chances.win import rest_pmf

    rest_pmf(variant, values, Card(variant), settings.tables_dir)


def get_target_table(variant, settings: Settings):
    """Load the variant's target table; build it first (with a notice) when it is missing."""
    from ..chances import targets

    def build():
        click.echo("kniffel: " + t("notice_target", variant=variant.name, path=settings.tables_dir), err=True)
        return solve_target_table(variant, settings)[0]

    return targets.load_or_build(variant, settings.tables_dir, build)


def _settings(ctx) -> Settings:
    return ctx.find_object(Settings)


class _Interrupted(Exception):
    """Ctrl-C, carried past click (which would turn it into Abort and print a blank line)."""


class _PipeClosed(Exception):
    """The reader of stdout went away (`kniffel ... | head -1`), carried past click (which would exit 1)."""


PIPE_CLOSED_EXIT = 128 + 13  # what a shell reports for a program ended by SIGPIPE, as `yes | head -1` does


class InputClosed(KniffelError):
    """Started with stdin closed (`<&-`) by a command that reads the player's moves."""


def require_input() -> None:
    """A command that reads stdin refuses a closed one at once (Python's sys.stdin is then None)."""
    if sys.stdin is None:
        raise InputClosed(t("stdin_closed"))


def _finish(code: int, line: str | None) -> int:
    """Write what stdout still holds and the line for stderr; the exit code. Output that cannot be written is
    an error (exit code 2), never a success; a reader that went away (EPIPE) ends quietly, as SIGPIPE would."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()  # here, not at exit, so that a failed write is told
    except OSError as exc:
        silence(sys.stdout)
        if code == 0:
            closed = isinstance(exc, BrokenPipeError)
            code, line = (PIPE_CLOSED_EXIT, None) if closed else (2, error_line(os_error_text(exc)))
    if line:
        try:
            click.echo(line, err=True)
        except OSError:  # stderr refuses too (a full device, a closed pipe): the exit code alone tells
            silence(sys.stderr)
    return code


def _leaving() -> None:
    """Stopped: a further Ctrl-C or kill is ignored to the end (the line, Dask's exit handlers): a Python handler,
    which shutdown resets, or a KeyboardInterrupt there ended Python by SIGINT (exit -2). Only where the process
    ends with this command (ONE_SHOT: not a test runner's cli.main), from the main thread (which sets handlers)."""
    if ONE_SHOT and threading.current_thread() is threading.main_thread():
        for stop in files.STOPS:
            signal.signal(stop, signal.SIG_IGN)


def _interrupted(exc: BaseException) -> bool:
    """Was this click Abort a Ctrl-C (rather than the end of input at a prompt)?"""
    cause = exc.__cause__ or exc.__context__
    return isinstance(cause, KeyboardInterrupt)


class OneLineErrors(CatalogueGroup):
    """Every user error (KniffelError, click's usage errors, OSError, output that cannot be written, memory
    running out) is one line on stderr and exit code 2; Ctrl-C is `kniffel: interrupted` and exit code 130;
    a closed pipe on stdout (`| head -1`) ends quietly with exit code 141, as SIGPIPE would. Anything else is
    a bug and keeps its traceback. Every --help, the group's and its commands', comes from the catalogue (help.py)."""

    command_class = CatalogueHelp
    command_line: list[str] = []  # this run's arguments, set by main

    def make_context(self, info_name, args, parent=None, **extra):
        try:  # the group's own --help and --version print here
            return super().make_context(info_name, args, parent=parent, **extra)
        except BrokenPipeError:
            raise _PipeClosed from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted from None
        except BrokenPipeError:
            raise _PipeClosed from None
        except EOFError as exc:  # prompts turn the end of input into Abort themselves: this one is a bug
            raise RuntimeError(f"unexpected end of file: {exc}") from exc

    def main(self, args=None, prog_name=None, **extra):
        extra.pop("standalone_mode", None)
        args = list(sys.argv[1:] if args is None else args)
        sys.exit(_finish(*self._outcome(args or ["--help"], prog_name, extra)))  # `kniffel` alone: the help

    def _outcome(self, args: list[str], prog_name, extra) -> tuple[int, str | None]:
        """The command's exit code and the line it leaves for stderr (None: nothing to say)."""
        if sys.stdout is None:  # started with stdout closed (`>&-`): every answer would be lost unseen
            set_language(_usage_language(args))
            return 2, error_line(t("stdout_closed"))
        tolerant_streams()
        self.command_line = args  # the group's own checks speak as a usage error would (cli below)
        try:
            code = super().main(args=args, prog_name=prog_name, standalone_mode=False, **extra)
        except (_PipeClosed, BrokenPipeError):
            silence(sys.stdout)
            return PIPE_CLOSED_EXIT, None
        except (_Interrupted, KeyboardInterrupt):  # in the language the command spoke (or was to speak)
            _leaving()
            return 130, "kniffel: " + t("interrupted")
        except click.exceptions.Abort as exc:
            _leaving()
            return 130, "kniffel: " + t("interrupted" if _interrupted(exc) else "aborted_eof")
        except click.ClickException as exc:
            message = exc.format_message()
            if isinstance(exc, click.UsageError):  # click's own English: in the player's language
                lang = _usage_language(args)
                return exc.exit_code or 2, error_line(click_message(message, lang), lang)
            return exc.exit_code or 2, error_line(message)
        except KniffelError as exc:
            return 2, error_line(str(exc))
        except OSError as exc:  # the operating system's own English, in the player's language
            return 2, error_line(os_error_text(exc))
        except MemoryError:  # simulate counts in batches: only a machine short of memory gets here
            return 2, error_line(t("out_of_memory"))
        return (code if isinstance(code, int) else 0), None


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--tables", "tables_path", type=click.Path(file_okay=False), default=None)
@click.option("--threads", type=click.IntRange(1, 256), default=None)
@click.option("--no-progress", is_flag=True)
@click.option("--lang", type=click.Choice(list(LANGUAGES)), default=None)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=show_version)
@click.pass_context
def cli(ctx, tables_path, threads, no_progress, lang):
    """The `kniffel` group: its options hold for every command (help texts: solver/i18n/help.py)."""
    # before a command knows its variant, as a usage error speaks: --lang, the locale, a variant named, English
    set_language(lang or _usage_language(ctx.command.command_line))
    if tables_path == "":  # not "no option": that would quietly take the default folder
        raise KniffelError(t("option_empty_folder", option="--tables"))
    ctx.obj = Settings(tables.tables_dir(tables_path), threads, not no_progress, lang)
    source = (
        "--tables"
        if tables_path
        else f"${tables.ENV_DIR}"
        if os.environ.get(tables.ENV_DIR)
        else t("word_tables_folder")
    )
    tables.check_tables_dir(ctx.obj.tables_dir, source)
    if threads:
        from .. import dp

        dp.set_threads(threads)


def _table(variant, settings: Settings):
    from ..advice.choose import make_advisor
    from ..api import Table

    values, meta = get_table(variant, settings)
    return Table(variant, values, meta, make_advisor(variant, values), settings.tables_dir)


def _advisor(variant, settings: Settings):
    from ..advice.choose import make_advisor

    values, _ = get_table(variant, settings)
    if variant.identical_dice:
        waits.compiling("advice")
    return make_advisor(variant, values)
