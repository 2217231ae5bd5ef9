"""The line said before a long wait (issue 27): what is happening and about how long it takes, on stderr
before the work starts (its progress bar follows, on a terminal and unless --no-progress). Waits of under
about two seconds say nothing.

The figures are measured on two cores (benchmarks/README.md, "First use"); a wait that runs on threads is
scaled by the threads it gets.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
import time
from pathlib import Path

import click

from ..i18n.texts import t
from . import prewarm

SAY_FROM = 2.0  # seconds: a shorter wait passes without a word
TICK = 1.0  # seconds between two counts of the heartbeat after the line before a compile

# The kernels each kind of work compiles on its first use after an install, as (module of solver.dp, the
# kernel that calls the others): one core's seconds to compile them with an empty cache, on a quiet machine
# (benchmarks/README.md, "First use: compiling the kernels": the first uses' compile CPU at load 0.4-3,
# 2026-12-03; solve: `solve kniffel` 11.2 s, forward: `distribution` 4.9-5.3 s, simulate: 15.5 s, a third less since
# simulate_turn is a plain kernel on threads (2026-12-07), advice:
# `advise yahtzee` 4.9 s since _advise_one inlines its block (load 7-10); target: "First use: compiling and
# building", 10.3-11.7 s). A kernel's cache is warm
# once its index file (<module>.<kernel>-*.nbi) is there.
COMPILES = {
    "solve": ("moments", "_solve_lane", 11),
    "target": ("target", "_target_lane", 10),
    "forward": ("forward", "_layer_groups", 5),
    "simulate": ("simulation", "simulate_turn", 10),
    "advice": ("advice", "_advise_one", 5),
}
# seconds of one thread a unit of work takes (kniffel's target table: 99.1 million values in 35-38 s on two
# threads; Kniffel 7: 1,454,910 states in 1,634 s on two threads; kniffel 310,654 in 2.2 s of one thread)
TARGET_VALUE_SECONDS = 7.3e-7
STATE_SECONDS = {True: 7e-6, False: 2.25e-3}  # by identical dice (the solve with its second moments)


def say(msg_id: str, **fields) -> None:
    click.echo("kniffel: " + t(msg_id, **fields), err=True)


def about(seconds: float) -> str:
    """'40 s', '27 min', '14 h': a wait's length, rounded as an estimate is."""
    if seconds < 90:
        return t("wait_seconds", n=max(5, int(round(seconds / 5.0)) * 5))
    if seconds < 7200:
        return t("wait_minutes", n=int(round(seconds / 60.0)))
    return t("wait_hours", n=int(round(seconds / 3600.0)))


def _threads() -> int:
    from ..dp.compile import thread_count

    return thread_count()


def cold(kind: str) -> bool:
    """Whether the kernels of `kind` (COMPILES) compile before they run: neither this process nor the
    on-disk cache has them."""
    from .. import numba_setup

    if not numba_setup.JIT:
        return False
    module, kernel, _ = COMPILES[kind]
    import importlib

    dispatcher = getattr(importlib.import_module(f"solver.dp.{module}"), kernel)
    if dispatcher.overloads:
        return False
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if not numba_setup.CACHE_ENABLED or not folder:
        return True
    index = getattr(getattr(getattr(dispatcher, "_cache", None), "_cache_file", None), "_index_path", None)
    if index is not None:  # Numba keeps each checkout's kernels in a folder of its own (named by the source's path)
        return not Path(index).exists()
    return not any(Path(folder).rglob(f"{module}.{kernel}-*.nbi"))


def prewarm_others(kinds: tuple[str, ...]) -> bool:
    """Start the background compile of the kernels of the other kinds of work that are not in the cache yet (a new
    install: solver/cli/prewarm.py), while this command compiles those of `kinds`; whether it started."""
    return prewarm.wanted() and prewarm.start([kind for kind in COMPILES if cold(kind)], kinds)


def compiling(*kinds: str) -> None:
    """Say so when the work ahead compiles kernels first (once after an install); on a terminal, then count
    the seconds until the command writes anything (compiling has no progress bar of its own)."""
    seconds = sum(COMPILES[kind][2] for kind in kinds if cold(kind))
    if seconds >= SAY_FROM:
        say("wait_compiling", time=about(seconds))
        if prewarm_others(kinds):
            say("wait_prewarm")
        if _live():
            _Heartbeat().start()


def _live() -> bool:
    """Whether this command shows progress (a terminal on stderr, and not --no-progress)."""
    from .settings import Settings

    ctx = click.get_current_context(silent=True)
    settings = ctx.find_object(Settings) if ctx is not None else None
    try:
        return settings is not None and settings.progress and sys.stderr.isatty()
    except (AttributeError, ValueError):  # no stderr, or a closed one
        return False


class _Heartbeat:
    """A line of its own on the terminal, '  ... 7 s', rewritten every second until the command writes
    anything (stdout or stderr: a progress bar, its answer, an error) or ends; then erased. stdout and
    stderr are wrapped once (_Tripwire) so that a write stops it first; the wrappers stay (print() holds
    sys.stdout without a reference of its own: replacing it during a write would free it under print)."""

    def __init__(self) -> None:
        self.stream = sys.stderr
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.stopped = self.shown = False

    def start(self) -> None:
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if isinstance(stream, _Tripwire):
                if stream.heartbeat is not None:
                    return  # one counting already
            else:
                stream = _Tripwire(stream)
                setattr(sys, name, stream)
            stream.heartbeat = self
        self.stream = sys.stderr.stream  # type: ignore[union-attr]
        atexit.register(self.stop)
        threading.Thread(target=self._tick, daemon=True, name="kniffel-heartbeat").start()

    def _tick(self) -> None:
        while True:
            time.sleep(TICK)
            with self.lock:
                if self.stopped:
                    return
                seconds = int(time.monotonic() - self.started)
                self._write("\r  ... " + t("wait_seconds", n=seconds))
                self.shown = True

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: nothing to count for
            self.stopped = True

    def stop(self) -> None:
        with self.lock:
            if self.stopped:
                return
            self.stopped = True
            if self.shown:
                self._write("\r\033[K")  # erased: the next output starts on a clean line
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, _Tripwire) and stream.heartbeat is self:
                stream.heartbeat = None


class _Tripwire:
    """A stream that stops the heartbeat counting, if any, before each write; else the stream itself."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.heartbeat: _Heartbeat | None = None

    def write(self, text):
        if text and self.heartbeat is not None:  # a progress bar writes '' when it starts
            self.heartbeat.stop()
        return self.stream.write(text)

    def writelines(self, lines):
        if self.heartbeat is not None:
            self.heartbeat.stop()
        return self.stream.writelines(lines)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def solving(variant, n_states: int) -> None:
    """Before a solve: its compile, and the solve itself when it is long (Kniffel 7)."""
    if variant.identical_dice:
        compiling("solve")
    seconds = n_states * STATE_SECONDS[variant.identical_dice] / _threads()
    if seconds >= SAY_FROM:
        say("wait_solve", variant=variant.name, time=about(seconds), threads=_threads())


def building(variant, n_values: int) -> None:
    """Before a target table of n_values values is built (after compiling("target"))."""
    seconds = n_values * TARGET_VALUE_SECONDS / _threads()
    if seconds >= SAY_FROM:
        say("wait_target", variant=variant.name, time=about(seconds), threads=_threads())
