"""A pytest plugin that lists the kernels each test process compiled (Numba's compile events), to check that
the warm-up (tests/warm_kernels.py) left the workers nothing to compile:

    .venv/bin/python -m pytest -q -m "not slow" -n 2 --dist loadfile -p benchmarks.compile_events

At the end each process prints its compiles (the outermost, CPU s with their callees, and the arguments'
types) to stderr, which xdist shows for the workers only when they fail, so each also writes them into
COMPILE_EVENTS_DIR (default: a new temporary folder, printed) as PID.json, and the controller prints them all.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

_DIR_KEY = "COMPILE_EVENTS_DIR"
_compiles: list[tuple[str, float, str]] = []


def pytest_configure(config):
    if not hasattr(config, "workerinput"):
        os.environ.setdefault(_DIR_KEY, tempfile.mkdtemp(prefix="compile-events-"))
    import solver  # noqa: F401  (sets Numba's environment first)

    # isort: split
    from numba.core import event

    stack: list[float] = []

    class Listener(event.Listener):
        def on_start(self, ev):
            stack.append(time.thread_time())

        def on_end(self, ev):
            spent = time.thread_time() - stack.pop()
            if not stack:
                fn = ev.data["dispatcher"].py_func
                _compiles.append((f"{fn.__module__}.{fn.__qualname__}", spent, str(ev.data["args"])))

    event.register("numba:compile", Listener())


def pytest_sessionfinish(session):
    folder = Path(os.environ[_DIR_KEY])
    (folder / f"{os.getpid()}.json").write_text(json.dumps(_compiles))
    if hasattr(session.config, "workerinput"):
        return
    total = 0.0
    for path in sorted(folder.glob("*.json")):
        for name, spent, args in json.loads(path.read_text()):
            total += spent
            print(f"compiled in {path.stem}: {spent:6.2f} s {name} {args[:300]}", file=sys.stderr)
    print(f"compiles in the test processes: {total:.1f} s CPU ({folder})", file=sys.stderr)
