"""The target kernels compiled in a second process beside the value table (solver/cli/target_compile.py)."""

from __future__ import annotations

import sys

import pytest
from click.testing import CliRunner

from solver.cli import cli, target_compile, waits
from solver.rules.presets import PRESETS


def test_a_cold_cache_and_a_missing_table_start_the_child_and_wait_sees_it_end(tmp_path, monkeypatch):
    monkeypatch.setattr(waits, "cold", lambda kind: True)
    monkeypatch.setattr(target_compile, "_child", [])
    target_compile.start(PRESETS["generala"], tmp_path)
    target_compile.start(PRESETS["generala"], tmp_path)  # at most one a process
    assert len(target_compile._child) == 1
    child = target_compile._child[0]
    target_compile.wait()
    assert child.returncode == 0 and target_compile._child == []
    target_compile.wait()  # nothing left to wait for


def test_nothing_starts_when_warm_built_or_told_apart(tmp_path, monkeypatch):
    monkeypatch.setattr(target_compile, "_child", [])
    target_compile.start(PRESETS["generala"], tmp_path)  # the tests' kernels count as warm (conftest)
    monkeypatch.setattr(waits, "cold", lambda kind: True)
    target_compile.start(PRESETS["kniffel7"], tmp_path)  # no target table for dice told apart
    for name in ("generala.target.npy", "generala.target.json"):
        (tmp_path / name).write_bytes(b"")
    target_compile.start(PRESETS["generala"], tmp_path)  # the table is there: nothing to build
    assert target_compile._child == []


class _Stop(Exception):
    """Raised where the value table would load: the command has reached its first table."""


@pytest.mark.parametrize(
    "args",
    [
        ["chances", "kniffel", "--target", "200"],
        ["advise", "kniffel", "11223", "--target", "200"],
        ["advise", "kniffel", "11223", "--opponent", "einser=3"],
        ["simulate", "kniffel", "--target", "200"],
        ["simulate", "kniffel", "--versus"],
        ["solve", "kniffel", "--target"],
    ],
)
def test_every_command_that_builds_the_target_table_starts_the_compile_before_the_value_table(
    args, tmp_path, monkeypatch
):
    started: list[str] = []
    monkeypatch.setattr(target_compile, "start", lambda variant, folder: started.append(variant.name))

    def stop(*_args, **_kwargs):
        raise _Stop

    commands = [m for name, m in sys.modules.items() if name.startswith("solver.cli.")]  # wherever they moved
    for module in commands:
        for name in ("_advisor", "get_table", "solve_table"):
            monkeypatch.setattr(module, name, stop, raising=False)
    res = CliRunner().invoke(cli, ["--tables", str(tmp_path), "--no-progress", "--lang", "en", *args])
    assert isinstance(res.exception, _Stop), res.output
    assert started == ["kniffel"]
