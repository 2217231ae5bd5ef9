"""The other kernels compiled in the background on a new install (issue 27: no wait a new user notices).

The first command that compiles kernels (waits.compiling) also starts one background process, niced, that
compiles the kernels of every other kind of work into the Numba cache (about a minute and a half of one
core, once after an install): the next command that solves, advises, plays, simulates or builds a target
table then loads them from the cache instead of compiling them first. Small variants keep the work short: a
kernel compiles for its arguments' types, the same for every preset with identical dice (Kniffel 7's
kernels are not here: its table ships, its first uses compile them).

One at a time: the process's id is kept in a lock file in the cache folder, taken with O_EXCL; a lock whose
process is gone is taken over. Killing the process at any moment is harmless (Numba writes each cache entry
under a temporary name, then renames it). KNIFFEL_PREWARM=0 turns it off (the tests do; their warm-up runs the
same groups itself, tests/conftest.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

LOCK = "kniffel-prewarm.pid"
BUSY: set[str] = set()  # kinds whose kernels another process of this command compiles (target_compile.py)
ENV = "KNIFFEL_PREWARM"
# the child's work (not `-m`: solver.cli imports this module, which Python warns of when it then runs as __main__)
_CHILD = "import sys; from solver.cli.prewarm import main; main(sys.argv[1:])"


def _identical(tables: str) -> None:
    """The solve with its moments, one turn's advice with the std column, a batch, the forward pass and the final
    roll's box options (called from Python: its own cache entry)."""
    import solver
    from solver import dp
    from solver.advice.cards import Card
    from solver.chances import distribution
    from solver.dp.entries import _box_options

    table = solver.load("generala", tables_dir=tables, progress=False)
    table.advise("", "1,1,2,3,5", 1, spread=True)
    zero = np.zeros(2, dtype=np.int64)
    table.option_values_batch(zero, zero, zero, np.ones((2, 5), dtype=np.int64), np.ones(2, dtype=np.int64))
    engine = dp.make_engine(table.variant)
    distribution.distribution(table.variant, table.values, Card(table.variant), (), engine)
    n_rolls, n_boxes = engine.rules.score.shape
    options = np.empty((n_rolls, n_boxes), dtype=np.int64), np.empty((n_rolls, n_boxes), dtype=np.int64)
    _box_options(0, 0, engine.rules, *options, np.empty(n_rolls, dtype=np.int64))


def _play(tables: str) -> None:
    """A target table and one recomputed column of it, the least points each state makes certain, a simulation
    with its one-situation choice and the best action alone (on a random value table: the kernels compile for its
    type, whatever its numbers). The two groups take about as long: 41-46 s CPU each on an empty cache, both at once
    (the best action here, not in the identical group: 50.9 and 54.0 s wall before, 47.5 and 43.3 after)."""
    from solver import dp
    from solver.advice.advisor import Advisor
    from solver.advice.cards import Card
    from solver.chances import simulation
    from solver.chances.targets import build_target_table
    from solver.dp.target import item_columns
    from solver.dp.target_layout import sure_minimum
    from solver.rules.presets import PRESETS

    generala = PRESETS["generala"]
    target = build_target_table(generala, 40)
    engine = target.engine
    upper = engine.upper  # the empty card's column, as a table without some layers recomputes one
    first = int(upper.totals_ptr[upper.row[0, 0]])
    column = np.empty(int(target.layout.length[0, 0]))
    item_columns(engine, target.layout, target.flat, 0, 0, upper.totals_list[first : first + 1].copy(), column)
    sure_minimum(engine)
    values = np.random.default_rng(0).uniform(0.0, 100.0, dp.table_shape(generala))
    simulation.tally(generala, values, 64, seed=0)
    assert engine.lattice is not None  # identical dice
    dp.simulated_choice(engine, values, 0, 0, 0, engine.lattice.size_start[-2], 3)  # simulate's callees
    Advisor(generala, values).best_action(Card(generala), (1, 1, 2, 3, 5), 2)


# each group and the kinds of waits.COMPILES whose kernels it compiles
GROUPS = {"identical": (_identical, ("solve", "advice", "forward")), "play": (_play, ("target", "simulate"))}


def run_groups(names: list[str]) -> None:
    """Compile the groups' kernels, in this order, with a throwaway tables folder."""
    with tempfile.TemporaryDirectory(prefix="kniffel-prewarm-") as tables:
        for name in names:
            GROUPS[name][0](tables)


def wanted() -> bool:
    """Whether a background compile may start: compiled kernels with a disk cache, and not turned off."""
    from .. import numba_setup

    off = os.environ.get(ENV, "1").strip() == "0"
    return not off and numba_setup.JIT and numba_setup.CACHE_ENABLED and bool(os.environ.get("NUMBA_CACHE_DIR"))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process holds the number: not ours, but alive
        return True
    return True


def _take_lock(lock: Path) -> bool:
    """The lock file made for this process, atomically; a lock of a process that is gone is removed first."""
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                pid = int(lock.read_text().strip() or "0")
            except (OSError, ValueError):
                pid = 0
            if pid > 0 and _alive(pid):
                return False
            lock.unlink(missing_ok=True)  # stale: its process died (killed, machine restarted)
            continue
        except OSError:
            return False
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        return True
    return False


def _apart() -> dict:
    """Popen's arguments for a child that Ctrl-C on this command does not stop (later commands need its work):
    a process group of its own, but in this session. A new session would be a new scheduling group under Linux's
    autogroup, which the scheduler shares the cores with equally, whatever the child's priority (measured: 25 s
    more for `chances kniffel --target 300` beside it, benchmarks/README.md)."""
    if sys.platform == "win32":
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.IDLE_PRIORITY_CLASS}
    if sys.version_info >= (3, 11):
        return {"process_group": 0}
    return {"preexec_fn": os.setpgrp}


def start(cold: list[str], compiling_now: tuple[str, ...] = ()) -> bool:
    """Start the background compile when some kind of work (waits.COMPILES) is in `cold`, not compiled by this
    command nor by another process (BUSY), and no background compile runs yet; the groups of the kinds compiled
    meanwhile come last. Returns whether one was started."""
    compiling_now = (*compiling_now, *BUSY)
    if not wanted() or not [kind for kind in cold if kind not in compiling_now]:
        return False
    lock = Path(os.environ["NUMBA_CACHE_DIR"]) / LOCK
    if not _take_lock(lock):
        return False
    order = sorted(GROUPS, key=lambda name: any(kind in compiling_now for kind in GROUPS[name][1]))
    try:
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, *order],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, ENV: "0"},  # its own commands start none
            **_apart(),
        )
    except OSError:  # no second process: each command compiles what it needs, as without this module
        lock.unlink(missing_ok=True)
        return False
    lock.write_text(str(child.pid))
    return True


def _yield_to_others() -> None:
    """Run only on cores nothing else wants (Linux's SCHED_IDLE, inherited by the threads started later; elsewhere
    the lowest priority): the command that started it, and the next ones, come first."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        try:
            os.nice(19)
        except OSError:
            pass


def main(names: list[str]) -> None:
    """The background process: niced, the groups in order, then the lock removed (if it is still ours)."""
    lock = Path(os.environ.get("NUMBA_CACHE_DIR", ".")) / LOCK
    try:
        _yield_to_others()
        run_groups(names)
    finally:
        try:
            if lock.read_text().strip() == str(os.getpid()):
                lock.unlink()
        except OSError:
            pass
