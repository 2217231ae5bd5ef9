"""The background compile of a new install (solver/cli/prewarm.py): started once, by the first command that
compiles, never twice at a time, a dead one's lock taken over, off with KNIFFEL_PREWARM=0; and for real (slow):
after it, no kind of work compiles anything."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from solver.cli import cli, prewarm, waits
from solver.i18n.texts import CATALOGUES

ALL = list(waits.COMPILES)  # every kind cold


class FakeChild:
    """What subprocess.Popen returns, without a process; it holds the lock's descriptor as the child would."""

    def __init__(self, fd: int):
        self.fd = os.dup(fd)

    def end(self) -> None:
        os.close(self.fd)


@pytest.fixture
def started(tmp_path, monkeypatch):
    """Every kind cold (for the CLI), prewarm on, the cache folder tmp_path; the children Popen made."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv(prewarm.ENV, "1")
    monkeypatch.setattr(waits, "cold", lambda kind: True)
    monkeypatch.setattr(prewarm, "BUSY", set())
    monkeypatch.setattr(prewarm, "_started", [])
    children: list[FakeChild] = []

    def popen(command, **kwargs):
        assert kwargs["env"][prewarm.ENV] == "0" and "start_new_session" not in kwargs  # same session, own group
        assert kwargs["process_group"] == 0 and command[1] == "-P"  # not the current folder's modules
        (fd,) = kwargs["pass_fds"]
        assert command[4] == str(fd)
        child = FakeChild(fd)
        child.args = command
        children.append(child)
        return child

    monkeypatch.setattr(prewarm, "subprocess", SimpleNamespace(Popen=popen, DEVNULL=subprocess.DEVNULL))
    yield children
    for child in children:
        try:
            child.end()
        except OSError:
            pass


def test_the_first_start_holds_the_lock_until_its_child_ends(started, tmp_path):
    assert prewarm.start(ALL, ("solve",))
    assert prewarm.running(tmp_path)
    assert not prewarm.start(ALL, ("forward",))  # the first still runs
    assert len(started) == 1
    started[0].end()  # however it ends (done, killed): the lock ends with it
    assert not prewarm.running(tmp_path)
    assert prewarm.start(ALL, ("forward",)) and len(started) == 2


def test_the_groups_this_command_compiles_come_last(started):
    prewarm.start(ALL, ("solve",))
    assert started[0].args[-2:] == ["play", "identical"]
    started[0].end()
    prewarm.start(ALL, ("simulate",))
    assert started[1].args[-2:] == ["identical", "play"]


@pytest.mark.parametrize("text", ["", "garbage", "-5", "99999999999999999999", "4000000"])
def test_what_a_lock_file_says_does_not_matter(started, tmp_path, text):
    """Only the flock counts: a lock file left by a killed child, or garbage in it, is no lock."""
    (tmp_path / prewarm.LOCK).write_text(text)
    assert prewarm.start(ALL, ("solve",)) and len(started) == 1


def test_a_lock_that_cannot_be_opened_starts_nothing_and_the_command_goes_on(started, tmp_path):
    (tmp_path / prewarm.LOCK).mkdir()
    assert not prewarm.start(ALL, ("solve",))
    res = CliRunner().invoke(cli, ["--tables", str(tmp_path), "--no-progress", "--lang", "en", "solve", "generala"])
    assert res.exit_code == 0 and "background" not in res.stderr, res.output
    assert started == []


def test_other_processes_find_the_lock_taken(tmp_path):
    """One process holds the lock; three others, started together while it does, all fail to take it (flock is
    atomic: no window between a check and a take, which the first version's pid file had)."""
    script = (
        "import sys; from pathlib import Path; from solver.cli import prewarm;"
        "fd = prewarm._take_lock(Path(sys.argv[1])); print('took' if fd is not None else 'no', flush=True);"
        "sys.stdin.read()"
    )
    command = [sys.executable, "-c", script, str(tmp_path / prewarm.LOCK)]
    holder = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "took"
    racers = [subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [racer.communicate(timeout=60)[0].strip() for racer in racers]
    holder.communicate("", timeout=60)
    assert outs == ["no"] * 3
    assert not prewarm.running(tmp_path)  # released with its holder


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
    assert prewarm.start(ALL, ("simulate",)) and started[0].args[-2:] == ["identical", "play"]


def test_no_second_process_leaves_no_lock(started, monkeypatch, tmp_path):
    def fail(command, **kwargs):
        raise OSError("no more processes")

    monkeypatch.setattr(prewarm, "subprocess", SimpleNamespace(Popen=fail, DEVNULL=subprocess.DEVNULL))
    assert not prewarm.start(ALL, ("solve",))
    assert not prewarm.running(tmp_path)


def test_the_child_writes_its_pid_into_the_lock_it_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(prewarm, "_yield_to_others", lambda: None)
    monkeypatch.setattr(prewarm, "run_groups", lambda names, folder: None)
    fd = os.open(tmp_path / prewarm.LOCK, os.O_CREAT | os.O_RDWR)
    os.write(fd, b"a longer text than any pid")
    prewarm.main(fd, [])
    os.close(fd)
    assert (tmp_path / prewarm.LOCK).read_text() == str(os.getpid())


@pytest.mark.parametrize("lang", ["de", "en"])
def test_the_cli_says_so_once_started(tmp_path, monkeypatch, started, lang):
    res = CliRunner().invoke(cli, ["--tables", str(tmp_path), "--no-progress", "--lang", lang, "solve", "generala"])
    assert res.exit_code == 0, res.output
    line = "kniffel: " + CATALOGUES[lang]["wait_prewarm"].split("(")[0]
    assert res.stderr.count(line) == 1 and line not in res.stdout
    assert len(started) == 1


@pytest.mark.slow
def test_a_real_background_compile_and_its_groups(tmp_path):
    """A fresh cache: `solve generala` starts the child, at idle priority, holding the lock; killed, it leaves no
    lock. Then its groups, run at normal priority (the child's own pace depends on how busy the machine is): every
    kind of work is warm after them."""
    cache, tables = tmp_path / "cache", tmp_path / "tables"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "KNIFFEL_TABLES": str(tables), prewarm.ENV: "1"}
    kniffel = [sys.executable, "-m", "solver.cli", "--no-progress", "--lang", "en"]
    done = subprocess.run([*kniffel, "solve", "generala"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "compile in the background" in done.stderr
    (lock,) = cache.glob(f"*/{prewarm.LOCK}")
    deadline = time.monotonic() + 60
    while not lock.read_text().isdigit() and time.monotonic() < deadline:
        time.sleep(0.2)
    pid = int(lock.read_text())
    assert prewarm.running(lock.parent)
    assert os.sched_getscheduler(pid) == os.SCHED_IDLE
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while prewarm.running(lock.parent) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not prewarm.running(lock.parent)  # the lock ended with it
    groups = "import sys; from solver.cli.prewarm import run_groups; run_groups(sys.argv[1:])"
    warm = subprocess.run([sys.executable, "-P", "-c", groups, "identical", "play"], env=env, timeout=900)
    assert warm.returncode == 0
    probe = "import json; from solver.cli import waits; print(json.dumps({k: waits.cold(k) for k in waits.COMPILES}))"
    cold = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert json.loads(cold.stdout) == {kind: False for kind in waits.COMPILES}, cold.stderr
