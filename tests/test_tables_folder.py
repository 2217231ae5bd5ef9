"""A tables folder that cannot take a file is refused before a solve starts, not after it (when the result
could not be saved): one line naming the folder and the way out (--tables DIR or $KNIFFEL_TABLES)."""

import os
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ERROR_PREFIX

from solver import dp
from solver.cli import cli
from solver.rules.presets import KNIFFEL
from solver.store import tables

NO_LOCALE = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}


def takes_a_file(folder: Path) -> bool:
    """A real write: root passes every permission check, so os.access says nothing about it."""
    try:
        with tempfile.NamedTemporaryFile(dir=folder):
            return True
    except OSError:
        return False


@pytest.fixture
def locked(tmp_path):
    """locked(folder): makes the folder refuse new files (chmod 0o555; as root, whom modes do not stop,
    `chattr +i`), or skips when neither works here; undone at the end so that pytest can clean up."""
    done = []

    def lock(folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        folder.chmod(0o555)
        done.append(lambda: folder.chmod(0o755))
        if takes_a_file(folder):
            immutable = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, check=False)
            if immutable.returncode == 0:
                done.append(lambda: subprocess.run(["chattr", "-i", str(folder)], check=False))
            if takes_a_file(folder):
                pytest.skip("running as root, and chattr +i is not allowed here: no folder refuses a write")
        return folder

    yield lock
    for undo in reversed(done):
        undo()


def invoke(folder, *args, lang="en"):
    runner = CliRunner(env=NO_LOCALE)
    return runner.invoke(cli, ["--tables", str(folder), "--no-progress", "--lang", lang, *args], prog_name="kniffel")


def one_line(res, lang="en") -> str:
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX[lang]), res.stderr  # no "solving it once" notice
    return lines[0]


def no_solving(monkeypatch):
    def solve(*args, **kwargs):
        raise AssertionError("a solve started although its table could not be saved")

    monkeypatch.setattr(dp, "solve", solve)
    monkeypatch.setattr("solver.dp.target.solve_target", solve)


@pytest.mark.parametrize("command", [["solve", "yatzy"], ["value", "yatzy"], ["advise", "yatzy", "12345"]])
def test_a_read_only_tables_folder_is_refused_before_the_solve(tmp_path, locked, monkeypatch, command):
    folder = locked(tmp_path / "ro")
    no_solving(monkeypatch)
    line = one_line(invoke(folder, *command))
    assert f"cannot write to the tables folder {folder} (" in line, line
    assert "--tables DIR or $KNIFFEL_TABLES" in line, line
    assert not (folder / "yatzy.npy").exists() and os.listdir(folder) == []


def test_a_missing_target_table_in_a_read_only_folder_is_refused_before_it_is_built(
    tmp_path, locked, monkeypatch, solved
):
    folder = tmp_path / "ro"
    tables.save(KNIFFEL, solved("kniffel"), folder, states=0, seconds=0.0)
    locked(folder)
    no_solving(monkeypatch)
    line = one_line(invoke(folder, "chances", "kniffel", "--target", "200", lang="de"), "de")
    assert f"in den Tabellenordner {folder} kann nicht geschrieben werden (" in line, line
    assert "--tables ORDNER oder $KNIFFEL_TABLES" in line, line


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc, a folder no one writes in")
def test_proc_as_tables_folder_is_refused_before_the_solve(monkeypatch):
    no_solving(monkeypatch)
    line = one_line(invoke("/proc", "solve", "yatzy"))
    assert "cannot write to the tables folder /proc (" in line, line


def test_bad_dice_are_refused_before_a_table_is_solved(tmp_path, monkeypatch):
    """`advise yams 1234` (four dice for a five-dice game) with no yams table: refused at once, nothing solved."""

    def no_solve(*args, **kwargs):
        raise AssertionError("a solve started before the dice were checked")

    monkeypatch.setattr(dp, "solve", no_solve)
    folder = tmp_path / "new"
    res = CliRunner().invoke(cli, ["--lang", "en", "--tables", str(folder), "advise", "yams", "1234"])
    assert res.exit_code == 2 and "4 dice given" in res.output, res.output
    assert not folder.exists()


def test_a_folder_in_the_way_of_the_target_table_is_refused_before_the_build(tmp_path, monkeypatch):
    folder = tmp_path / "tables"
    assert invoke(folder, "solve", "generala").exit_code == 0
    (folder / "generala.target.npy").mkdir()
    no_solving(monkeypatch)
    for command in (["chances", "generala", "--target", "100"], ["solve", "generala", "--target"]):
        line = one_line(invoke(folder, *command))
        assert str(folder / "generala.target.npy") in line and "is a folder" in line, line


def test_a_folder_in_the_way_of_the_value_table_is_refused_before_the_solve(tmp_path, monkeypatch):
    folder = tmp_path / "tables"
    folder.mkdir()
    (folder / "generala.json").mkdir()
    no_solving(monkeypatch)
    line = one_line(invoke(folder, "solve", "generala"))
    assert str(folder / "generala.json") in line and "is a folder" in line, line
