"""Issue 25, item 5: closed and failing streams, in real processes. Output that cannot be written is an error
(one line on stderr where stderr works, exit code 2), never a success and never a traceback."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ERROR_PREFIX, ctrl_c_as_at_a_terminal

KNIFFEL = Path(sys.executable).with_name("kniffel")


@pytest.fixture(scope="module")
def empty_tables(tmp_path_factory):
    """A tables folder with nothing in it: none of these commands gets as far as a table."""
    return tmp_path_factory.mktemp("streams_tables")


def shell(command: str, tables: Path, **kw) -> subprocess.CompletedProcess:
    """`kniffel --tables TABLES --lang en COMMAND` as sh runs it (redirections included)."""
    assert KNIFFEL.exists(), "install the project (pip install -e .) to get the kniffel script"
    line = command.replace("kniffel ", f'"{KNIFFEL}" --tables "{tables}" --lang en ', 1)
    return subprocess.run(["sh", "-c", line], capture_output=True, timeout=120, **kw)


def assert_one_line(res: subprocess.CompletedProcess, *fragments: str, lang: str = "en") -> None:
    err = res.stderr.decode()
    assert res.returncode == 2, (res.returncode, err)
    assert err.count("\n") == 1 and err.startswith(ERROR_PREFIX[lang]), err
    for fragment in fragments:
        assert fragment in err, err


def test_play_with_stdin_closed(empty_tables, tmp_path):
    """Was: AttributeError ('NoneType' object has no attribute 'isatty'), and a game file written."""
    res = shell("kniffel play kniffel --roll-for-me <&-", empty_tables, cwd=tmp_path)
    assert_one_line(res, "standard input is closed")
    assert list(tmp_path.iterdir()) == []


def test_play_with_stdout_closed(empty_tables, tmp_path):
    """Was: RuntimeError (input(): lost sys.stdout)."""
    res = shell("yes '' | kniffel play kniffel --roll-for-me >&-", empty_tables, cwd=tmp_path)
    assert_one_line(res, "standard output is closed")


@pytest.mark.parametrize("args", ["advise kniffel 33516", "variants", "--help"])
def test_a_closed_stdout_is_an_error(empty_tables, args):
    """Was: exit code 0 with the answer lost."""
    assert_one_line(shell(f"kniffel {args} >&-", empty_tables), "standard output is closed")


def test_the_closed_stdout_speaks_the_variants_language(empty_tables):
    res = subprocess.run(
        ["sh", "-c", f'"{KNIFFEL}" --tables "{empty_tables}" advise kniffel 33516 >&-'],
        capture_output=True,
        timeout=120,
        env={**os.environ, "LC_ALL": "", "LC_MESSAGES": "", "LANG": ""},
    )
    assert_one_line(res, "Standardausgabe ist geschlossen", lang="de")


@pytest.fixture
def full_device(tmp_path):
    """A device node like /dev/full (char 1, 7: every write fails with ENOSPC), made in a temp folder."""
    path = tmp_path / "full"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        with open(path, "wb") as f:
            f.write(b"x")
            f.flush()
    except PermissionError:
        pytest.skip("making a device node needs root")
    except OSError as exc:  # the node works: writes fail as they should
        if exc.errno != 28:
            pytest.skip(f"no working device node here: {exc}")
    return path


@pytest.mark.parametrize("args", ["variants", "--help", "advise kniffel 999"])
def test_stderr_on_a_full_device(empty_tables, full_device, args):
    """The error cannot be told: exit code 2 all the same (was 1, from the traceback of the failed message),
    and no `Exception ignored` at exit (stdout works: a successful command keeps exit code 0)."""
    res = shell(f'kniffel {args} 2>"{full_device}"', empty_tables)
    assert res.returncode == (2 if "advise" in args else 0), res.returncode


@pytest.mark.parametrize("args", ["variants", "--help", "variants --json"])
def test_stdout_on_a_full_device(empty_tables, full_device, args):
    res = shell(f'kniffel {args} >"{full_device}"', empty_tables)
    assert_one_line(res, "the output cannot be written: no space left on the device")


def test_both_streams_on_a_full_device(empty_tables, full_device):
    res = shell(f'kniffel variants >"{full_device}" 2>&1', empty_tables)
    assert res.returncode == 2


def test_stderr_into_a_closed_pipe(empty_tables):
    """An error for a reader of stderr that is gone (EPIPE on stderr): exit code 2, no traceback anywhere."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        res = subprocess.run(
            [str(KNIFFEL), "--tables", str(empty_tables), "advise", "kniffel", "999"],
            stdout=subprocess.PIPE,
            stderr=write_end,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert res.returncode == 2 and res.stdout == b""


# -- item 8: nothing a user typed reaches the terminal as control bytes ----------------------------
def invoke(*args: str):
    """The CLI in-process with colour kept (click strips escape sequences off a stream that is no terminal:
    on a terminal they would be sent as they are)."""
    from click.testing import CliRunner

    from solver.cli import cli

    return CliRunner().invoke(cli, ["--lang", "en", *args], color=True)


@pytest.mark.parametrize(
    "names, fragment",
    [
        ("A\x1b[2J,B\x1b]0;x\x07", "player name 'A\\x1b[2J' must be 1 to 20 printable characters"),
        ("A" * 3000 + ",B", "must be 1 to 20 printable characters"),
        ("Anna,anna", "the name 'Anna' is there twice"),
        ("Anna,", "player name '' must be 1 to 20"),
    ],
)
def test_odds_names_follow_the_players_rule(names, fragment):
    """Was: escape and bell bytes written raw, 3,000-character and duplicate names accepted."""
    res = invoke("odds", "kniffel", "--card", "", "--card", "", "--names", names)
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and fragment in res.stderr, res.stderr
    assert "\x1b" not in res.output + res.stderr and "\x07" not in res.output + res.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["play", "kniffel", "--save", "/nonexistent/\x1b[2J\x07/game.json"],
        ["review", "/nonexistent/\x1b]0;x\x07.json"],
        ["--tables", "/proc/\x1b[31m", "solve", "generala"],
    ],
)
def test_an_error_shows_control_characters_escaped(args):
    """A file name is echoed in errors: its escape sequences and bells are shown (\\x1b), not sent."""
    res = invoke(*args)
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and "\\x1b" in res.stderr, res.stderr
    assert "\x1b" not in res.stderr and "\x07" not in res.stderr


# -- item 6: a huge simulation runs in bounded memory, and Ctrl-C stops it --------------------------
@pytest.mark.slow  # solves kniffel's table first (about 20 s)
def test_a_huge_simulation_runs_in_bounded_memory_and_stops_at_ctrl_c(tmp_path):
    """`(ulimit -v 4000000; kniffel simulate kniffel -n 100000000)` was a numpy traceback at once (4.8 GiB
    allocated up front); now it runs, in batches, until interrupted."""
    import resource
    import signal
    import time

    solved = subprocess.run([str(KNIFFEL), "--tables", str(tmp_path), "--no-progress", "solve", "kniffel"], timeout=300)
    assert solved.returncode == 0

    def four_gb():
        resource.setrlimit(resource.RLIMIT_AS, (4_000_000 * 1024, 4_000_000 * 1024))
        ctrl_c_as_at_a_terminal()

    command = [str(KNIFFEL), "--tables", str(tmp_path), "--lang", "en", "simulate", "kniffel", "-n", "100000000"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=four_gb)
    time.sleep(15)  # loading, the first batches
    assert proc.poll() is None, proc.stderr.read().decode()
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()  # a child that outlives the test would play its 10^8 games on
    assert proc.returncode == 130 and err.decode().splitlines()[-1] == "kniffel: interrupted", err.decode()
