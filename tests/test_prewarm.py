"""The background compile of a new install (solver/cli/prewarm.py): started once, by the first command that
compiles, never twice at a time, a dead one's lock taken over, off with KNIFFEL_PREWARM=0; and for real (slow):
after it, no kind of work compiles anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from solver.cli import cli, prewarm, waits
from solver.i18n.texts import CATALOGUES

ALL = list(waits.COMPILES)  # every kind cold


class FakeChild:
    """What subprocess.Popen returns, without a process: its pid is a live one (this test's) unless told."""

    def __init__(self, pid: int):
        self.pid = pid


@pytest.fixture
def started(tmp_path, monkeypatch):
    """Every kind cold (for the CLI), prewarm on, the cache folder tmp_path; the list of commands Popen was given."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(prewarm.ENV, "1")
    monkeypatch.setattr(waits, "cold", lambda kind: True)
    monkeypatch.setattr(prewarm, "BUSY", set())
    calls: list[list[str]] = []

    def popen(command, **kwargs):
        calls.append(command)
        assert kwargs["env"][prewarm.ENV] == "0" and "start_new_session" not in kwargs  # same session, own group
        assert kwargs.get("process_group") == 0 or kwargs.get("preexec_fn") is os.setpgrp
        return FakeChild(os.getpid())

    monkeypatch.setattr(prewarm, "subprocess", SimpleNamespace(Popen=popen, DEVNULL=subprocess.DEVNULL))
    return calls


def dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_the_first_start_takes_the_lock_and_a_second_waits_for_it(started, tmp_path):
    assert prewarm.start(ALL, ("solve",))
    assert (tmp_path / prewarm.LOCK).read_text() == str(os.getpid())  # the child's pid
    assert not prewarm.start(ALL, ("forward",))  # the first still runs
    assert len(started) == 1


def test_the_groups_this_command_compiles_come_last(started):
    prewarm.start(ALL, ("solve",))
    assert started[0][-2:] == ["play", "identical"]
    (Path(os.environ["NUMBA_CACHE_DIR"]) / prewarm.LOCK).unlink()
    prewarm.start(ALL, ("simulate",))
    assert started[1][-2:] == ["identical", "play"]


def test_a_lock_whose_process_is_gone_is_taken_over(started, tmp_path):
    (tmp_path / prewarm.LOCK).write_text(str(dead_pid()))
    assert prewarm.start(ALL, ("solve",)) and len(started) == 1


@pytest.mark.parametrize("text", ["", "garbage", "-5"])
def test_a_damaged_lock_is_taken_over(started, tmp_path, text):
    (tmp_path / prewarm.LOCK).write_text(text)
    assert prewarm.start(ALL, ("solve",)) and len(started) == 1


def test_nothing_starts_when_off_or_warm(started, monkeypatch):
    monkeypatch.setenv(prewarm.ENV, "0")
    assert not prewarm.start(ALL, ("solve",))
    monkeypatch.setenv(prewarm.ENV, "1")
    assert not prewarm.start(["solve"], ("solve",))  # only what this command compiles itself
    assert not prewarm.start([], ())
    assert started == []


def test_a_kind_another_process_compiles_comes_last(started, monkeypatch):
    monkeypatch.setattr(prewarm, "BUSY", {"target"})  # target_compile's child
    assert not prewarm.start(["target"], ())
    assert prewarm.start(ALL, ("simulate",)) and started[0][-2:] == ["identical", "play"]


def test_no_second_process_leaves_no_lock(started, monkeypatch, tmp_path):
    def fail(command, **kwargs):
        raise OSError("no more processes")

    monkeypatch.setattr(prewarm, "subprocess", SimpleNamespace(Popen=fail, DEVNULL=subprocess.DEVNULL))
    assert not prewarm.start(ALL, ("solve",))
    assert not (tmp_path / prewarm.LOCK).exists()


def test_the_child_removes_its_own_lock_only(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(prewarm, "_yield_to_others", lambda: None)
    lock = tmp_path / prewarm.LOCK
    lock.write_text(str(os.getpid()))
    prewarm.main([])
    assert not lock.exists()
    lock.write_text("1")  # another process's
    prewarm.main([])
    assert lock.read_text() == "1"


@pytest.mark.parametrize("lang", ["de", "en"])
def test_the_cli_says_so_once_started(tmp_path, monkeypatch, started, lang):
    res = CliRunner().invoke(cli, ["--tables", str(tmp_path), "--no-progress", "--lang", lang, "solve", "generala"])
    assert res.exit_code == 0, res.output
    line = "kniffel: " + CATALOGUES[lang]["wait_prewarm"].split("(")[0]
    assert res.stderr.count(line) == 1 and line not in res.stdout
    assert len(started) == 1


@pytest.mark.slow
def test_after_the_background_compile_nothing_compiles(tmp_path):
    """A fresh cache: `solve generala` starts it, and when it is done every kind of work is warm."""
    cache, tables = tmp_path / "cache", tmp_path / "tables"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "KNIFFEL_TABLES": str(tables), prewarm.ENV: "1"}
    kniffel = [sys.executable, "-m", "solver.cli", "--no-progress", "--lang", "en"]
    done = subprocess.run([*kniffel, "solve", "generala"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "compile in the background" in done.stderr
    (lock,) = cache.glob(f"*/{prewarm.LOCK}")
    deadline = time.monotonic() + 600
    while lock.exists() and time.monotonic() < deadline:
        time.sleep(1)
    assert not lock.exists()
    probe = "import json; from solver.cli import waits; print(json.dumps({k: waits.cold(k) for k in waits.COMPILES}))"
    cold = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert json.loads(cold.stdout) == {kind: False for kind in waits.COMPILES}, cold.stderr
