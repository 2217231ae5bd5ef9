"""Shared fixtures: tables solved once per test session."""

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from solver import dp
from solver.rules.presets import PRESETS
from solver.store import tables

# The tests choose their language by LANG, LC_ALL or --lang; a desktop's LANGUAGE list (en_US:en, de_DE:de) would
# come before LANG, as in gettext, and change what they read. A test that means LANGUAGE sets it itself.
os.environ.pop("LANGUAGE", None)
# No background compile from the commands the tests run (solver/cli/prewarm.py): the warm-up below compiles the same
# groups once for the workers; a test that means the background compile sets KNIFFEL_PREWARM itself.
os.environ["KNIFFEL_PREWARM"] = "0"


# With KNIFFEL_JIT=0 the tool refuses heavy work (dp.compile.require_jit: hours in plain Python). The interpreted
# Kniffel 7 cases (tests/test_kniffel7_interpreted.py) run it on small variants, where it takes seconds.
if os.environ.get("KNIFFEL_JIT") == "0" and os.environ.get("KNIFFEL_TESTS_INTERPRETED") == "1":
    from solver.dp import compile as dp_compile

    dp_compile.HEAVY_WORK_INTERPRETED = True


def pytest_configure(config):
    """With xdist workers and a cold Numba cache, compile the kernels once before the workers start
    (tests/warm_kernels.py: two processes, each a group), instead of on every worker."""
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 2:
        return
    from solver.cli import waits

    if not any(waits.cold(kind) for kind in waits.COMPILES):
        return
    script = Path(__file__).with_name("warm_kernels.py")
    print("compiling the kernels once for the test workers (empty Numba cache) ...", file=sys.stderr, flush=True)
    command = [sys.executable, str(script)]
    runs = {
        group: subprocess.Popen([*command, group], stderr=subprocess.PIPE, text=True) for group in ("identical", "play")
    }
    for group, run in runs.items():
        _, err = run.communicate()
        if run.returncode != 0:  # the workers compile what is missing themselves
            print(f"warm_kernels.py {group} failed (exit {run.returncode}): {err.strip()[-500:]}", file=sys.stderr)


@pytest.fixture(scope="session")
def solved_with_moments(tmp_path_factory, worker_id):
    """solved_with_moments(name) -> (values, second moments) of a preset with identical dice, solved once per
    run: the first worker that needs a preset solves it into a folder the xdist workers share (under a lock),
    the others load it (kismet, yatzy6: several seconds each, needed by test files on both workers)."""
    base = tmp_path_factory.getbasetemp()
    shared = (base if worker_id == "master" else base.parent) / "solved"  # this run's, never an older run's
    shared.mkdir(exist_ok=True)
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = _solved_once(shared, name)
        return cache[name]

    return get


def _solved_once(shared, name):
    path = shared / f"{name}.npz"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker solving it: wait for its file
        if not path.exists():
            values, m2, _ = dp.solve_with_moments(PRESETS[name])
            part = shared / f"{name}.part.npz"
            np.savez(part, values=values, m2=m2)
            os.replace(part, path)
    with np.load(path) as saved:
        return saved["values"], saved["m2"]


@pytest.fixture(scope="session")
def solved(solved_with_moments):
    """solved(name) -> the value table of a preset with identical dice, solved once per session."""
    return lambda name: solved_with_moments(name)[0]


@pytest.fixture(scope="session")
def tables_of(tmp_path_factory, solved_with_moments):
    """tables_of(*names) -> a new tables folder holding these presets' tables as `kniffel solve` saves them
    (with their second moments), from the tables solved once a run."""

    def make(*names):
        folder = tmp_path_factory.mktemp("tables")
        for name in names:
            values, m2 = solved_with_moments(name)
            tables.save(PRESETS[name], values, folder, states=dp.count_states(PRESETS[name]), seconds=1.0, m2=m2)
        return folder

    return make


@pytest.fixture(autouse=True)
def english_library():
    """The library speaks English unless a command chose a language; a CLI test must not leak its choice."""
    from solver.i18n import texts

    texts.set_language("en")
    yield
    texts.set_language("en")


@pytest.fixture(autouse=True)
def warm_kernels(monkeypatch):
    """The line before a compile (cli/waits.py) depends on the Numba cache, warm or cold, not on the test: every
    test sees the kernels as compiled, so that its stderr does not depend on which test ran first; test_waits.py
    tests the line itself."""
    from solver.cli import waits

    monkeypatch.setattr(waits, "cold", lambda kind: False)
