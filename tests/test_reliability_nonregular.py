"""Issue 25: files that are not regular files. A save never puts a regular file where a device, FIFO,
socket or folder was (the atomic rename would); every file read from outside is a regular file of a
sane size, checked before reading: /dev/zero behind a symlink, a sparse 5 GB file or a FIFO is one
line naming the file, exit code 2, never an endless read, a MemoryError or a hang.

Real processes with a memory limit and a timeout (an endless read must not take the machine down), real
FIFOs and device nodes made in a temporary folder (never the machine's own /dev)."""

import json
import os
import resource
import socket
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from solver import dp
from solver.errors import KniffelError
from solver.rules.presets import KNIFFEL
from solver.store import files, tables

REPO = Path(__file__).resolve().parent.parent
MEMORY = 2 << 30  # address space of a child: ample for a command, far below what an endless read reaches
TIMEOUT = 60  # a hang is a failure, not a stuck test run


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def child(*args, stdin=subprocess.DEVNULL) -> subprocess.CompletedProcess:
    """A real process, memory-limited; a hang fails the test after TIMEOUT seconds."""
    env = {**os.environ, "KNIFFEL_JIT": "0"}  # these commands need no kernels: a quick start
    try:
        return subprocess.run(
            args,
            stdin=stdin,
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env,
            timeout=TIMEOUT,
            preexec_fn=_limit_memory,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args} hung for {TIMEOUT} s")


def kniffel(tdir: Path, *args, **kwargs) -> subprocess.CompletedProcess:
    return child(sys.executable, "-m", "solver.cli", "--tables", str(tdir), "--lang", "en", *args, **kwargs)


def one_line_error(res: subprocess.CompletedProcess, *fragments: str) -> str:
    assert res.returncode == 2, (res.returncode, res.stdout[-500:], res.stderr[-2000:])
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("kniffel: error:"), res.stderr[-2000:]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def fake_tables(d: Path) -> Path:
    """A kniffel table and sidecar that load (all zeros: no solve needed)."""
    tables.save(KNIFFEL, np.zeros(dp.table_shape(KNIFFEL)), d, states=0, seconds=0.0)
    return d


def device_node(path: Path) -> Path:
    """A character device like /dev/null (1, 3), made in a temporary folder."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("mknod is not permitted here (not root, or a container without CAP_MKNOD)")
    return path


def unix_socket(path: Path) -> Path:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()  # the socket file stays
    return path


def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def zero_link(path: Path) -> Path:
    path.symlink_to("/dev/zero")  # read only: nothing here writes to it
    return path


def sparse(path: Path) -> Path:
    with open(path, "wb") as fh:
        fh.truncate(5 << 30)  # 5 GB of holes: no disk used
    return path


NOT_REGULAR = {"fifo": (fifo, "FIFO"), "device": (device_node, "device"), "socket": (unix_socket, "socket")}


# -- reading ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, make, said",
    [
        ("kniffel.npy", zero_link, "device"),
        ("kniffel.npy", sparse, "larger than"),
        ("kniffel.npy", fifo, "FIFO"),
        ("kniffel.json", fifo, "FIFO"),
        ("kniffel.json", zero_link, "device"),
    ],
    ids=["npy-dev-zero", "npy-sparse-5GB", "npy-fifo", "sidecar-fifo", "sidecar-dev-zero"],
)
def test_a_table_file_that_is_not_a_regular_file_of_sane_size_is_one_line(tmp_path, name, make, said):
    """`value kniffel` used to grow until killed (/dev/zero: completing an interrupted save read it all),
    end in a MemoryError (sparse) or hang (FIFO)."""
    d = fake_tables(tmp_path)
    (d / name).unlink()
    make(d / name)
    line = one_line_error(kniffel(d, "value", "kniffel"), str(d / name), said)
    # the fix names what works: `kniffel solve` never writes over a FIFO or a device, so it comes after a move
    move = make is not sparse
    assert line.endswith(f"{'move it away, then ' if move else '; '}rebuild it with `kniffel solve kniffel`")


@pytest.mark.parametrize("make, said", [(fifo, "FIFO"), (zero_link, "device"), (sparse, "larger than")])
@pytest.mark.parametrize("command", ["review", "play"])
def test_a_game_file_that_is_not_a_regular_file_is_one_line(tmp_path, command, make, said):
    path = make(tmp_path / "game.json")
    args = ["review", str(path)] if command == "review" else ["play", "kniffel", "--resume", str(path)]
    one_line_error(kniffel(tmp_path, *args), str(path), said)


API = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    import numpy as np
    from solver.chances import target_quick, win
    from solver.store import expected_play_cache, tables
    from solver.errors import KniffelError
    from solver.rules.presets import KNIFFEL
    values = np.zeros((8192, 64, 2))
    for folder, call in zip(sys.argv[1::2], sys.argv[2::2]):  # each call on its own folder, one line each
        d = Path(folder)
        try:
            print(repr(eval(call)), flush=True)
        except KniffelError as exc:
            print("refused:", exc, flush=True)
    """
)
READERS = [  # best-effort caches: a FIFO or device is no cache (None, False or computed anew), never a hang
    ("kniffel.expected-play.json", "expected_play_cache.cached_rest(KNIFFEL, d, 'x', (0, 0, 0))", "None"),
    (
        "kniffel.expected-play.json",
        "expected_play_cache.has_state(d / 'kniffel.expected-play.json', 'x', (0, 0, 0))",
        "False",
    ),
    (
        "kniffel.target.json",
        "target_quick.answers_from_disk(KNIFFEL, d, (0,0,0), next_layer=False, expected_play=False)",
        "False",
    ),
    ("kniffel.npy", "win._table_file_sha256(KNIFFEL, d, 'x')", "None"),
    ("kniffel.m2.json", "tables.moments_ready(KNIFFEL, d)", "False"),
    ("kniffel.m2.json", "tables.load_moments(KNIFFEL, d, values)", "None"),
    (".kniffel.checkpoint.json", "tables.load_checkpoint(KNIFFEL, d)", "refused: checkpoint"),
]


@pytest.mark.parametrize("make", [fifo, zero_link], ids=["fifo", "dev-zero"])
def test_every_reader_of_outside_files_refuses_what_is_not_a_regular_file(tmp_path, make):
    """Each reader in READERS on a folder of its own where its file is not a regular file; one child process
    runs them all in turn (a hang is the child's timeout)."""
    args = []
    for i, (name, call, _) in enumerate(READERS):
        (tmp_path / f"reader-{i}").mkdir()
        d = fake_tables(tmp_path / f"reader-{i}")
        (d / "kniffel.target.npy").touch()  # so that target_quick reads the target sidecar
        (d / name).unlink(missing_ok=True)
        make(d / name)
        args += [str(d), call]
    res = child(sys.executable, "-c", API, *args)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = res.stdout.splitlines()
    assert len(lines) == len(READERS), res.stdout
    for line, (name, call, answer) in zip(lines, READERS):
        assert line.startswith(answer), (name, call, line)


def test_second_moments_that_are_a_fifo_are_computed_again_not_waited_on(tmp_path):
    """Second moments were read from <variant>.m2.npy with np.load: a FIFO there hung `advise` for ever."""
    code = textwrap.dedent(
        """
        import os, sys
        from pathlib import Path
        import numpy as np
        from solver.rules.presets import PRESETS
        from solver.store import solving
        v = PRESETS["kniffel"].reduced(boxes=["ones", "sixes", "kniffel", "chance"], n_dice=3, name="tiny")
        from solver import dp
        d = Path(sys.argv[1])
        values = solving.solve_table(v, d, progress=False)[0]
        m2 = solving.table_moments(v, values, d, progress=False)
        npy = d / "tiny.m2.npy"
        npy.unlink()
        os.mkfifo(npy)
        again = solving.table_moments(v, values, d, progress=False)
        print(np.array_equal(m2, again, equal_nan=True), npy.is_fifo())
        """
    )
    res = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, cwd=REPO, timeout=300
    )
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.split() == ["True", "True"], res.stdout  # solved again; the FIFO left as it was


# -- writing ---------------------------------------------------------------------------------------------
def play_saving_to(d: Path, target: Path) -> subprocess.CompletedProcess:
    """The issue's command: `play kniffel --roll-for-me --seed 1 --save TARGET --force` (stdin at its end)."""
    return kniffel(d, "play", "kniffel", "--roll-for-me", "--seed", "1", "--save", str(target), "--force")


@pytest.mark.parametrize("kind", NOT_REGULAR)
def test_a_game_is_never_saved_over_a_device_fifo_or_socket(tmp_path, kind):
    make, said = NOT_REGULAR[kind]
    d = fake_tables(tmp_path / "tables")
    target = make(tmp_path / "target")
    mode = os.lstat(target).st_mode
    line = one_line_error(play_saving_to(d, target), str(target), said)
    assert "regular file" in line
    assert os.lstat(target).st_mode == mode, "the special file was replaced"


@pytest.mark.parametrize("kind", NOT_REGULAR)
def test_a_symlink_to_a_special_file_is_refused_and_stays(tmp_path, kind):
    make, said = NOT_REGULAR[kind]
    d = fake_tables(tmp_path / "tables")
    special = make(tmp_path / "special")
    link = tmp_path / "link.json"
    link.symlink_to(special)
    one_line_error(play_saving_to(d, link), str(link), said)
    assert link.is_symlink() and os.readlink(link) == str(special)


def test_a_symlink_to_a_regular_file_is_written_through(tmp_path):
    """The file the link points to gets the game; the link stays a link."""
    d = fake_tables(tmp_path / "tables")
    real = tmp_path / "elsewhere" / "real.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    res = play_saving_to(d, link)
    assert res.returncode == 130, res.stderr  # the end of stdin at the first prompt: saved, then aborted
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert json.loads(real.read_text())["format"] == "kniffel-game"
    assert not list(tmp_path.glob(".*.tmp")) and not list(real.parent.glob(".*.tmp"))


@pytest.mark.parametrize("kind", NOT_REGULAR)
def test_the_api_writes_no_file_over_a_special_file(tmp_path, kind):
    """Every atomic write (game records, tables, sidecars, checkpoints, target tables, moments, caches)."""
    make, said = NOT_REGULAR[kind]
    target = make(tmp_path / "kniffel.json")
    mode = os.lstat(target).st_mode
    with pytest.raises(KniffelError, match=said):
        files.atomic_write_bytes(target, b"{}")
    with pytest.raises(KniffelError, match=said):
        tables.save(KNIFFEL, np.zeros(dp.table_shape(KNIFFEL)), tmp_path, states=0, seconds=0.0)
    assert os.lstat(target).st_mode == mode
    assert not (tmp_path / "kniffel.npy").exists(), "the table was written without its sidecar"
    assert not list(tmp_path.glob(".*.tmp"))
