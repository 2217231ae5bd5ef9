"""The line said before a long wait (solver/cli/waits.py): on stderr, in the player's language, only when the
wait is long; progress bars only on a terminal and unless --no-progress."""

from __future__ import annotations

import importlib
import io

import click
import pytest
from click.testing import CliRunner

from solver.cli import cli, waits
from solver.cli.base import progress_bar
from solver.cli.settings import Settings
from solver.i18n.texts import CATALOGUES
from solver.rules.presets import PRESETS


def run(tables, lang, *args):
    return CliRunner().invoke(cli, ["--tables", str(tables), "--no-progress", "--lang", lang, *args])


def said(lang: str, msg_id: str) -> str:
    """The catalogue text of msg_id up to its first field: what every such line starts with."""
    return CATALOGUES[lang][msg_id].split("{")[0]


@pytest.mark.parametrize("lang", ["de", "en"])
def test_a_cold_compile_is_said_on_stderr_before_the_work(tmp_path, monkeypatch, lang):
    monkeypatch.setattr(waits, "cold", lambda kind: True)
    res = run(tmp_path, lang, "distribution", "generala")
    assert res.exit_code == 0, res.output
    line = "kniffel: " + said(lang, "wait_compiling")
    assert line in res.stderr and line not in res.stdout
    assert res.stderr.count(line) == 2  # the solve's kernels, then the forward pass's


def test_warm_kernels_and_short_work_say_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(waits, "cold", lambda kind: False)
    res = run(tmp_path, "en", "chances", "generala", "--target", "100")
    assert res.exit_code == 0, res.output
    assert "wait" not in res.stderr and said("en", "wait_target") not in res.stderr
    assert [line.split(" yet")[0] for line in res.stderr.splitlines()] == [
        "kniffel: no table for generala",
        "kniffel: no target table for generala",
    ]
    assert (tmp_path / "generala.expected-play.json").exists()  # the opening's pmf, computed beside the build


@pytest.mark.parametrize("lang", ["de", "en"])
def test_a_long_target_build_says_how_long_first(tmp_path, monkeypatch, lang):
    monkeypatch.setattr(waits, "cold", lambda kind: False)
    monkeypatch.setattr(waits, "TARGET_VALUE_SECONDS", 1e-3)  # as slow as kniffel's table on a slow machine
    res = run(tmp_path, lang, "chances", "generala", "--target", "100")
    assert res.exit_code == 0, res.output
    line = "kniffel: " + said(lang, "wait_target")
    assert line in res.stderr and line not in res.stdout


@pytest.mark.parametrize("lang", ["de", "en"])
def test_kniffel7s_solve_says_its_minutes(capsys, lang):
    from solver import dp
    from solver.i18n.texts import set_language

    set_language(lang)
    waits.solving(PRESETS["kniffel7"], dp.count_states(PRESETS["kniffel7"]))
    err = capsys.readouterr().err
    assert err.startswith("kniffel: " + said(lang, "wait_solve")) and " min " in err


def test_about_rounds_as_an_estimate():
    seconds = (3, 38, 89, 1634, 7199, 7200, 49_000)
    assert [waits.about(s) for s in seconds] == ["5 s", "40 s", "90 s", "27 min", "120 min", "2 h", "14 h"]


@pytest.mark.parametrize("kind", sorted(waits.COMPILES))
def test_every_kernel_named_for_a_compile_exists(kind):
    """A renamed kernel would leave its kind cold for ever (a line on every start): caught here."""
    module, kernel, _ = waits.COMPILES[kind]
    assert hasattr(importlib.import_module(f"solver.dp.{module}"), kernel)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bars_show_on_a_terminal_unless_no_progress(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.stderr", _Terminal())
    with progress_bar(Settings(tmp_path, progress=True), 10, "x", "value") as bar:
        assert not bar.disable
    with progress_bar(Settings(tmp_path, progress=False), 10, "x", "value") as bar:
        assert bar.disable


def test_a_bar_nothing_counts_yet_keeps_its_clock_moving(tmp_path, monkeypatch):
    """Kernels compile before the first step (10-40 s on a first use): the bar is redrawn every REDRAW
    seconds meanwhile (its elapsed time moves), not frozen at 0 %; its thread stops with it."""
    import time

    from solver import progress

    monkeypatch.setattr(progress, "REDRAW", 0.05)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    with progress_bar(Settings(tmp_path, progress=True), 10, "x", "value"):
        time.sleep(0.6)
    assert terminal.getvalue().count("\r") >= 5  # drawn when made, then redrawn on its own
    after = terminal.getvalue()
    time.sleep(0.3)
    assert terminal.getvalue() == after


def test_a_compile_before_any_output_counts_its_seconds_then_clears_the_line(tmp_path, monkeypatch):
    """On a terminal, the line before a compile is followed by '  ... N s' every second until the command
    writes anything; that line is then erased, and the streams keep writing where they did."""
    import sys
    import time

    terminal, out = _Terminal(), io.StringIO()
    monkeypatch.setattr("sys.stderr", terminal)
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr(waits, "cold", lambda kind: True)
    monkeypatch.setattr(waits, "TICK", 0.05)
    with click.Context(cli, obj=Settings(tmp_path, progress=True)):
        waits.compiling("solve")
        time.sleep(0.4)
    print("the answer")
    seen = terminal.getvalue()
    assert seen.startswith("kniffel: " + said("en", "wait_compiling")) and seen.count("\r  ... ") >= 3
    assert seen.endswith("\r\033[K") and out.getvalue() == "the answer\n"
    time.sleep(0.2)
    assert terminal.getvalue() == seen  # stopped
    sys.stderr.write("more")  # the wrapper left in place just passes writes on
    assert terminal.getvalue() == seen + "more"
    with click.Context(cli, obj=Settings(tmp_path, progress=False)):
        waits.compiling("solve")  # --no-progress: the line alone
        time.sleep(0.2)
    assert terminal.getvalue().endswith("...\n")
