"""The installed `kniffel` program as a shell runs it: a reader that closes the pipe early."""

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

KNIFFEL = Path(sys.executable).with_name("kniffel")
PIPE_CLOSED_EXIT = 141  # 128 + SIGPIPE, what `yes | head -1` reports


@pytest.fixture(scope="module")
def tdir(tables_of):
    """A tables directory with kniffel solved."""
    return tables_of("kniffel")


def run_into_closed_pipe(tdir, *args):
    """The command with a stdout whose reader is gone before it writes a byte."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [str(KNIFFEL), "--tables", str(tdir), *args], stdout=write_end, stderr=subprocess.PIPE, timeout=300
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--version"],
        ["advise", "--help"],
        ["advise", "kniffel", "11234", "--roll", "2", "--all", "--json"],
        ["simulate", "kniffel", "-n", "200", "--seed", "1", "--json"],
        ["variants"],
    ],
)
def test_a_closed_stdout_ends_every_command_quietly(tdir, args):
    out = run_into_closed_pipe(tdir, *args)
    assert out.returncode == PIPE_CLOSED_EXIT and out.stderr == b"", out.stderr.decode()


@pytest.mark.skipif(not hasattr(fcntl, "F_SETPIPE_SZ"), reason="needs Linux pipe sizes")
def test_head_reads_one_line_and_closes(tdir):
    """`kniffel variants | head -1`, made certain: the pipe holds one page and the list is longer, written line
    by line, so the program is still writing when the reader reads its first line and goes. (Before the fix:
    exit code 1, from click.)"""
    assert KNIFFEL.exists(), "install the project (pip install -e .) to get the kniffel script"
    command = [str(KNIFFEL), "--tables", str(tdir), "--lang", "en", "variants"]
    whole = subprocess.run(command, capture_output=True, timeout=300)
    assert whole.returncode == 0 and len(whole.stdout) > 4096 + 400  # its last lines are written after the page
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    proc = subprocess.Popen(command, stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    first = b""
    while not first.endswith(b"\n"):  # byte by byte, as `head -1` leaves the rest unread
        first += os.read(read_end, 1)
    os.close(read_end)
    err = proc.stderr.read()
    assert proc.wait(timeout=300) == PIPE_CLOSED_EXIT and err == b"", err.decode()
    assert first == whole.stdout.splitlines(keepends=True)[0]


def test_a_shell_pipe_into_head(tdir):
    """The shell's own pipe: whether the program is still writing when head goes or not, no word and no
    failure other than the closed pipe's. (Exit code 0 too when it had written everything in time, or when
    the closing cut its last write short: Python reports a partly done write as done, not as EPIPE.)"""
    out = subprocess.run(
        ["sh", "-c", f'("{KNIFFEL}" --tables "{tdir}" advise kniffel 12345 --all; echo "exit $?" >&2) | head -1'],
        capture_output=True,
        timeout=300,
    )
    assert out.stdout.count(b"\n") == 1 and out.stderr in (b"exit 0\n", b"exit 141\n"), out.stderr.decode()


def test_an_error_quoting_a_line_break_stays_one_line():
    res = subprocess.run(
        [str(KNIFFEL), "--lang", "en", "--tables", "/proc/a\nb", "solve", "generala"],
        capture_output=True,
        timeout=300,
    )
    assert res.returncode == 2
    assert res.stderr.decode().count("\n") == 1 and "/proc/a\\nb" in res.stderr.decode(), res.stderr
