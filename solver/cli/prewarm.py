"""The other kernels compiled in the background on a new install (issue 27: no wait a new user notices).

The first command that compiles kernels (waits.compiling) also starts one background process, at idle priority, that
compiles the kernels of every other kind of work into the Numba cache (about a minute and a half of one
core, once after an install): the next command that solves, advises, plays, simulates or builds a target
table then loads them from the cache instead of compiling them first. Small variants keep the work short: a
kernel compiles for its arguments' types, the same for every preset with identical dice (Kniffel 7's
kernels are not here: its table ships, its first uses compile them).

One at a time: the child holds an flock on a lock file in the cache folder (taken by the command before it
starts the child, which inherits the locked descriptor), so the lock ends with the child however it ends, and
a second command finds it taken. Killing the child at any moment is harmless (Numba writes each cache entry
under a temporary name, then renames it). POSIX and Python 3.11 or later (flock; a child in a process group of
its own without preexec_fn); elsewhere each command compiles its own kernels, as before. KNIFFEL_PREWARM=0 turns
it off (the tests do; their warm-up runs the same groups itself, tests/conftest.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

LOCK = "kniffel-prewarm.lock"  # holds the child's pid, for information only
BUSY: set[str] = set()  # kinds whose kernels another process of this command compiles (target_compile.py)
ENV = "KNIFFEL_PREWARM"
# the child's work (not `-m`: solver.cli imports this module, which Python warns of when it then runs as __main__;
# -P: not the current folder on sys.path, where a folder named solver or numpy would be imported instead)
_CHILD = "import sys; from solver.cli.prewarm import main; main(int(sys.argv[1]), sys.argv[2:])"
_started: list[subprocess.Popen] = []  # kept: a dropped Popen of a running child warns (ResourceWarning)


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


def run_groups(names: list[str], folder: str | None = None) -> None:
    """Compile the groups' kernels, in this order, with a throwaway tables folder (in `folder`)."""
    with tempfile.TemporaryDirectory(prefix="kniffel-prewarm-", dir=folder) as tables:
        for name in names:
            GROUPS[name][0](tables)


def wanted() -> bool:
    """Whether a background compile may start: compiled kernels with a disk cache, flock and process groups
    (POSIX, Python 3.11 or later), and not turned off."""
    from .. import numba_setup

    if sys.platform == "win32" or sys.version_info < (3, 11):
        return False
    off = os.environ.get(ENV, "1").strip() == "0"
    return not off and numba_setup.JIT and numba_setup.CACHE_ENABLED and bool(os.environ.get("NUMBA_CACHE_DIR"))


def _take_lock(lock: Path) -> int | None:
    """An open descriptor of the lock file holding its flock, or None when another process holds it (or the
    file cannot be opened: a folder, another user's)."""
    import fcntl

    try:
        fd = os.open(lock, os.O_CREAT | os.O_RDWR, 0o644)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def running(folder: Path) -> bool:
    """Whether a background compile holds the lock of the cache folder `folder` (benchmarks, tests)."""
    fd = _take_lock(folder / LOCK)
    if fd is None:
        return (folder / LOCK).exists()
    os.close(fd)
    return False


def start(cold: list[str], compiling_now: tuple[str, ...] = ()) -> bool:
    """Start the background compile when some kind of work (waits.COMPILES) is in `cold`, not compiled by this
    command nor by another process (BUSY), and no background compile runs yet; the groups of the kinds compiled
    meanwhile come last. Returns whether one was started."""
    compiling_now = (*compiling_now, *BUSY)
    if not wanted() or not [kind for kind in cold if kind not in compiling_now]:
        return False
    fd = _take_lock(Path(os.environ["NUMBA_CACHE_DIR"]) / LOCK)
    if fd is None:
        return False
    order = sorted(GROUPS, key=lambda name: any(kind in compiling_now for kind in GROUPS[name][1]))
    try:
        child = subprocess.Popen(
            [sys.executable, "-P", "-c", _CHILD, str(fd), *order],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, ENV: "0"},  # its own commands start none
            pass_fds=(fd,),  # the child holds the lock from here on, until it ends
            # its own process group, so that Ctrl-C on this command does not stop it (later commands need its work),
            # but this session: a new one would be its own scheduling group under Linux's autogroup, which gets an
            # equal share of the cores whatever its priority (25 s more for `chances kniffel --target 300` beside it)
            process_group=0,
        )
    except OSError:  # no second process: each command compiles what it needs, as without this module
        return False
    finally:
        os.close(fd)
    _started.append(child)
    return True


def _yield_to_others() -> None:
    """Run only on cores nothing else wants (Linux's SCHED_IDLE, inherited by the threads started later; elsewhere
    the lowest priority): the command that started it, and the next ones, come first."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        try:
            os.nice(19)
        except (AttributeError, OSError):
            pass


def main(lock_fd: int, names: list[str]) -> None:
    """The background process: its pid into the lock it holds (for whoever looks), then the groups in order at idle
    priority; the lock ends with the process."""
    try:
        os.ftruncate(lock_fd, 0)
        os.pwrite(lock_fd, str(os.getpid()).encode(), 0)
    except OSError:
        pass
    _yield_to_others()
    run_groups(names, os.environ.get("NUMBA_CACHE_DIR"))
