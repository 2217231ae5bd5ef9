"""A pytest plugin that prints the CPU seconds (user + sys, of the test process and the processes it waited
for) spent in each test file, setup and teardown included, summed over the xdist workers: on a shared
machine the load swells wall times, not these.

    .venv/bin/python -m pytest -q -m "not slow" -n 2 --dist loadfile -p benchmarks.cpu_per_file

A session or module fixture counts toward the file whose test first needed it. The controller also prints
the CPU of the processes it ran before the tests (tests/warm_kernels.py, run from conftest's
pytest_configure on an empty Numba cache). Each worker writes its figures to a JSON file in a folder the
controller reads at the end (CPU_PER_FILE_DIR, else a new temporary folder).
"""

from __future__ import annotations

import json
import os
import resource
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest

_DIR_KEY = "CPU_PER_FILE_DIR"
_per_file: dict[str, float] = defaultdict(float)
_tests: dict[str, int] = defaultdict(int)


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput") and _DIR_KEY not in os.environ:
        os.environ[_DIR_KEY] = tempfile.mkdtemp(prefix="cpu-per-file-")  # inherited by the workers


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        session.config._cpu_before_tests = children.ru_utime + children.ru_stime  # type: ignore[attr-defined]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # noqa: ARG001
    before = _cpu()
    yield
    name = item.nodeid.split("::")[0]
    _per_file[name] += _cpu() - before
    _tests[name] += 1


def pytest_sessionfinish(session: pytest.Session) -> None:
    worker = getattr(session.config, "workerinput", {}).get("workerid", "main")
    folder = Path(os.environ[_DIR_KEY])
    (folder / f"{worker}.json").write_text(json.dumps({"files": _per_file, "tests": _tests}))


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    files: dict[str, float] = defaultdict(float)
    tests: dict[str, int] = defaultdict(int)
    for path in Path(os.environ[_DIR_KEY]).glob("*.json"):
        saved = json.loads(path.read_text())
        for name, seconds in saved["files"].items():
            files[name] += seconds
            tests[name] += saved["tests"][name]
    write = terminalreporter.write_line
    write(f"CPU s before the tests (warm-up processes): {getattr(config, '_cpu_before_tests', 0.0):.1f}")
    write(f"CPU s per test file (sum {sum(files.values()):.1f}):")
    for name, seconds in sorted(files.items(), key=lambda kv: -kv[1]):
        write(f"{seconds:8.1f}  {tests[name]:5d}  {name}")
