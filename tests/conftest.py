"""Shared fixtures: tables solved once per test session."""

import pytest

from solver import dp
from solver.rules.presets import PRESETS


@pytest.fixture(scope="session")
def tmp_tables(tmp_path_factory):
    return tmp_path_factory.mktemp("tables")


@pytest.fixture(scope="session")
def solved_with_moments():
    """solved_with_moments(name) -> (values, second moments) of a preset with identical dice, solved once per
    session."""
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = dp.solve_with_moments(PRESETS[name])[:2]
        return cache[name]

    return get


@pytest.fixture(scope="session")
def solved(solved_with_moments):
    """solved(name) -> the value table of a preset with identical dice, solved once per session."""
    return lambda name: solved_with_moments(name)[0]


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
