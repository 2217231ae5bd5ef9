"""Issue 10: tables, checkpoints and game files attacked on disk. Damaged files are refused with one
line naming the file and the fix; writes killed (SIGKILL) or interrupted (SIGINT) at any moment leave
the old file or the new one, never a part, and the next run works."""

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import ERROR_PREFIX, ctrl_c_as_at_a_terminal

from solver import dp
from solver.cli import cli
from solver.game.record import Game
from solver.rules.presets import GENERALA, KNIFFEL, KNIFFEL7
from solver.store import files, tables

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def kdir(tables_of):
    """A tables folder with kniffel solved."""
    return tables_of("kniffel")


def run(tdir, *args, input=None):
    return CliRunner().invoke(cli, ["--tables", str(tdir), "--no-progress", "--lang", "en", *args], input=input)


def one_line_error(res, *fragments, lang="en"):
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX[lang]), res.stderr
    for fragment in fragments:
        assert fragment in lines[0], res.stderr
    assert "Traceback" not in res.output


def copy_tables(src: Path, dst: Path) -> Path:
    dst.mkdir(exist_ok=True)
    for name in ("kniffel.npy", "kniffel.json"):
        (dst / name).write_bytes((src / name).read_bytes())
    return dst


def edit_sidecar(path: Path, change) -> None:
    meta = json.loads(path.read_text())
    path.write_text(json.dumps(change(meta)))


def _npz(path):
    np.savez(path.with_suffix(".tmp.npz"), a=np.zeros(3))
    path.with_suffix(".tmp.npz").replace(path)


def _one_value_changed(path):
    a = np.load(path)
    a[1 << 12, 0, 0] += 10_000  # the case: a value inside changed, header and start value intact
    np.save(path, a)


DAMAGE = {
    "npz under the npy name": ("kniffel.npy", _npz, "zip archive"),
    "empty npy": ("kniffel.npy", lambda p: p.write_bytes(b""), "is empty"),
    "truncated npy": ("kniffel.npy", lambda p: p.write_bytes(p.read_bytes()[:100_000]), "checksum"),
    "a value changed": ("kniffel.npy", _one_value_changed, "checksum"),
    "garbage npy": ("kniffel.npy", lambda p: p.write_bytes(b"\x93NUMPY garbage"), "checksum"),
    "folder as npy": ("kniffel.npy", lambda p: (p.unlink(), p.mkdir()), "folder"),
    "start_value abc": (
        "kniffel.json",
        lambda p: edit_sidecar(p, lambda m: {**m, "start_value": "abc"}),
        "start_value",
    ),
    "start_value null": (
        "kniffel.json",
        lambda p: edit_sidecar(p, lambda m: {**m, "start_value": None}),
        "start_value",
    ),
    "start_value NaN": (
        "kniffel.json",
        lambda p: edit_sidecar(p, lambda m: {**m, "start_value": float("nan")}),
        "start",
    ),
    "start_value changed": ("kniffel.json", lambda p: edit_sidecar(p, lambda m: {**m, "start_value": 1.0}), "start"),
    "states a string": ("kniffel.json", lambda p: edit_sidecar(p, lambda m: {**m, "states": "many"}), "states"),
    "no checksum": (
        "kniffel.json",
        lambda p: edit_sidecar(p, lambda m: {k: v for k, v in m.items() if k != "sha256"}),
        "sha256",
    ),
    "list top level": ("kniffel.json", lambda p: p.write_text("[1, 2]"), "top level is list"),
    "not json": ("kniffel.json", lambda p: p.write_text("{oops"), "not JSON"),
    "deep json": ("kniffel.json", lambda p: p.write_text("[" * 60_000 + "]" * 60_000), "larger than"),
    "deep small json": ("kniffel.json", lambda p: p.write_text("[" * 30_000 + "]" * 30_000), "nested too deeply"),
    "binary sidecar": ("kniffel.json", lambda p: p.write_bytes(b"\xff\xfe\x00"), "not text"),
    "other rules": ("kniffel.json", lambda p: edit_sidecar(p, lambda m: {**m, "fingerprint": "x"}), "other rules"),
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_damaged_table_is_one_line_naming_file_and_fix(kdir, tmp_path, case):
    name, damage, fragment = DAMAGE[case]
    d = copy_tables(kdir, tmp_path / "t")
    damage(d / name)
    with pytest.raises(tables.TableDamaged, match=fragment):
        tables.load(KNIFFEL, d)
    res = run(d, "value", "kniffel", "--card", "chance=20")
    one_line_error(res, str(d / "kniffel."), "kniffel solve kniffel", fragment)


def test_variants_lists_a_damaged_sidecar_as_no_table(kdir, tmp_path):
    d = copy_tables(kdir, tmp_path / "t")
    (d / "kniffel.json").write_text('{"format": 1, "start_value": "abc"}')
    res = run(d, "variants")
    assert res.exit_code == 0 and "Traceback" not in res.output


def test_committed_kniffel7_table_verifies():
    shipped = REPO / "solver" / "data"
    values, meta = tables.load(KNIFFEL7, shipped)
    assert meta["sha256"] == tables.checksum((shipped / "kniffel7.npy").read_bytes())
    assert abs(values[0, 0, 0] - 365.2706974) < 1e-7


# -- checkpoints -------------------------------------------------------------------
SMALL7 = KNIFFEL7.reduced(boxes=["sevens", "super_kniffel", "chance"], n_dice=3, bonuses=[(14, 35)])


def small_checkpoint(d: Path):
    values = np.zeros(dp.table_shape(SMALL7))
    tables.save_checkpoint(SMALL7, d, values, 1, 10, 1.5)
    return tables.checkpoint_paths(SMALL7, d)[1]


CHECKPOINT_DAMAGE = {
    "next_layer x": (lambda m: {**m, "next_layer": "x"}, "next_layer"),
    "next_layer out of range": (lambda m: {**m, "next_layer": 99}, "next_layer"),
    "next_layer float": (lambda m: {**m, "next_layer": 1.5}, "next_layer"),
    "solved negative": (lambda m: {**m, "solved": -1}, "solved"),
    "seconds null": (lambda m: {**m, "seconds": None}, "seconds"),
    "file elsewhere": (lambda m: {**m, "file": "../kniffel.npy"}, "names no checkpoint file"),
    "file missing": (lambda m: {**m, "file": ".kniffel7-reduced.checkpoint.9.npy"}, "cannot read"),
    "checksum wrong": (lambda m: {**m, "sha256": "0" * 64}, "checksum"),
    "list": (lambda m: [m], "top level is list"),
}


@pytest.mark.parametrize("case", list(CHECKPOINT_DAMAGE))
def test_damaged_checkpoint_names_file_and_fix(tmp_path, case):
    change, fragment = CHECKPOINT_DAMAGE[case]
    meta_path = small_checkpoint(tmp_path)
    assert tables.load_checkpoint(SMALL7, tmp_path)[1:] == (1, 10, 1.5)
    edit_sidecar(meta_path, change)
    with pytest.raises(tables.TableDamaged, match=fragment) as err:
        tables.load_checkpoint(SMALL7, tmp_path)
    assert str(meta_path) in str(err.value) or ".checkpoint" in str(err.value)
    assert "start the solve over" in str(err.value)


def test_damaged_checkpoint_array_is_refused(tmp_path):
    small_checkpoint(tmp_path)
    array = next(tmp_path.glob(".*checkpoint.*.npy"))
    array.write_bytes(array.read_bytes()[:-8])
    with pytest.raises(tables.TableDamaged, match="checksum"):
        tables.load_checkpoint(SMALL7, tmp_path)


def test_damaged_checkpoint_stops_the_cli_before_solving(tmp_path):
    tables.save_checkpoint(KNIFFEL7, tmp_path, np.zeros(dp.table_shape(KNIFFEL7)), 5, 10, 1.0)
    edit_sidecar(tables.checkpoint_paths(KNIFFEL7, tmp_path)[1], lambda m: {**m, "next_layer": "x"})
    res = run(tmp_path, "solve", "kniffel7")
    one_line_error(res, ".kniffel7.checkpoint.json", "next_layer", "start the solve over")


# -- atomic writes, stale temp files, interrupted saves ----------------------------
def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_temp_files_of_dead_processes_are_removed_on_the_next_write(tmp_path):
    target = tmp_path / "kniffel.npy"
    stale = tmp_path / f".kniffel.npy.{dead_pid()}.tmp"
    stale.write_bytes(b"half a table")
    alive = tmp_path / f".kniffel.npy.{os.getppid()}.tmp"  # a running process: not ours to remove
    alive.write_bytes(b"in progress")
    other = tmp_path / f".yatzy.npy.{dead_pid()}.tmp"  # another file's temp: left for its own next write
    other.write_bytes(b"x")
    files.atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"new"
    assert not stale.exists() and alive.exists() and other.exists()
    assert not list(tmp_path.glob(f".kniffel.npy.{os.getpid()}.tmp"))


def test_a_save_killed_between_its_renames_is_completed_on_load(kdir, tmp_path):
    """The table was renamed into place, the new sidecar was still a temp file when the process died."""
    d = copy_tables(kdir, tmp_path / "t")
    values, meta = tables.load(KNIFFEL, d)
    changed = values.copy()
    changed[1 << 12, 0, 0] += 1.0
    other = tmp_path / "other"
    new_meta = tables.save(KNIFFEL, changed, other, states=meta["states"], seconds=1.0)
    (d / "kniffel.npy").write_bytes((other / "kniffel.npy").read_bytes())
    (d / f".kniffel.json.{dead_pid()}.tmp").write_text(json.dumps(new_meta))
    loaded, meta2 = tables.load(KNIFFEL, d)
    assert meta2["sha256"] == new_meta["sha256"] and loaded[1 << 12, 0, 0] == changed[1 << 12, 0, 0]
    assert not list(d.glob(".*.tmp"))


SAVER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import numpy as np
    from solver import dp
    from solver.store import tables
    from solver.game.record import Game
    from solver.rules.presets import KNIFFEL
    d = Path(sys.argv[1])
    arrays = [np.full(dp.table_shape(KNIFFEL), float(i)) for i in (1, 2)]
    games = [Game(KNIFFEL), Game(KNIFFEL)]
    games[1].add_roll((1, 2, 3, 4, 5))
    i = 0
    while True:
        tables.save(KNIFFEL, arrays[i % 2], d, states=i, seconds=0.0)
        games[i % 2].save(d / "game.json")
        if i == 0:
            print("ready", flush=True)
        i += 1
    """
)


@pytest.mark.parametrize("attempt", range(6))
def test_sigkill_during_saves_leaves_a_whole_file_and_the_next_write_cleans_up(tmp_path, attempt):
    """A real process writing a table (8 MB) and a game record over and over, killed at a random moment."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SAVER, str(tmp_path)], stdout=subprocess.PIPE, cwd=REPO, env=os.environ.copy()
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"ready"
    time.sleep(random.Random(attempt).uniform(0.05, 0.6))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    values, meta = tables.load(KNIFFEL, tmp_path)  # whole: the old table or the new one
    assert values[0, 0, 0] in (1.0, 2.0) and np.all(values == values[0, 0, 0])
    Game.load(tmp_path / "game.json")  # whole and valid
    tables.save(KNIFFEL, values, tmp_path, states=0, seconds=0.0)
    Game.load(tmp_path / "game.json").save(tmp_path / "game.json")
    assert not list(tmp_path.glob(".*.tmp")), "stale temp files of the killed process remain"


SLOW_SAVE = textwrap.dedent(
    """
    import sys, time
    from solver import cli
    import solver.store.tables
    real_many = solver.store.tables.atomic_write_files
    def slow_many(items):
        print("saving", flush=True)
        time.sleep(1.5)  # Ctrl-C arrives here, in the middle of the table's save
        real_many(items)
    solver.store.tables.atomic_write_files = slow_many
    cli.main(["--tables", sys.argv[1], "--no-progress", "--lang", "en", "solve", "generala"])  # small: under a second
    """
)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_between_the_renames_of_files_saved_together_waits_for_the_last(tmp_path, monkeypatch, sig):
    """A table and its sidecar (the target tables' too: no caller needs its own guard) are renamed as one step:
    a Ctrl-C or kill arriving after the first rename is delivered after the last, never between them."""
    first, second = tmp_path / "table.npy", tmp_path / "table.json"
    first.write_bytes(b"old table")
    second.write_bytes(b"old sidecar")
    real_replace, renames = os.replace, []

    def replace_then_stop(src, dst):
        real_replace(src, dst)
        renames.append(Path(dst).name)
        if len(renames) == 1:
            signal.raise_signal(sig)  # SIGTERM too: through a handler that raises, as a job's does

    monkeypatch.setattr(files.os, "replace", replace_then_stop)
    # Ctrl-C's own handler, whatever the runner inherited (started in the background, SIGINT is ignored)
    previous = signal.signal(sig, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            files.atomic_write_files([(first, b"new table"), (second, b"new sidecar")])
    finally:
        signal.signal(sig, previous)
    assert renames == ["table.npy", "table.json"]
    assert (first.read_bytes(), second.read_bytes()) == (b"new table", b"new sidecar")
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_during_a_table_save_waits_for_it(tmp_path, sig):
    """Ctrl-C: one line, exit 130; `kill`: SIGTERM's own end (-15), after the save, as Ctrl-C: a whole table."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW_SAVE, str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        preexec_fn=ctrl_c_as_at_a_terminal,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == b"saving"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    if sig == signal.SIGINT:
        assert proc.returncode == 130, err
        assert err.decode().strip().splitlines()[-1] == "kniffel: interrupted"
    else:
        assert proc.returncode == -signal.SIGTERM and err == b"", err
    assert b"Traceback" not in err
    values, meta = tables.load(GENERALA, tmp_path)  # the save finished: Ctrl-C waited for it
    assert abs(meta["start_value"] - 162.4694684) < 1e-6
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize("lang, said", [("de", "kniffel: abgebrochen"), ("en", "kniffel: interrupted")])
def test_ctrl_c_at_a_play_prompt_is_interrupted_not_aborted(kdir, tmp_path, lang, said):
    """In the language the game speaks."""
    args = ["--tables", str(kdir), "play", "--lang", lang, "--save", str(tmp_path / "g.json")]
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        preexec_fn=ctrl_c_as_at_a_terminal,
    )
    assert proc.stdout is not None
    shown = b""
    while not shown.rstrip().endswith(b":"):  # the first prompt ("Roll 1, all 5 dice:"): input() waits now
        chunk = proc.stdout.read1(1024)
        assert chunk, (shown, proc.wait(timeout=60), proc.stderr.read())
        shown += chunk
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)  # stdin stays open until the child has ended: closing it first would race the signal
    err = proc.stderr.read()
    proc.stdin.close()
    # a fresh Numba cache adds the line before a compile (cli/waits.py): it ends with "..."
    lines = [line for line in err.decode().splitlines() if line.strip() and not line.endswith("...")]
    assert proc.returncode == 130 and lines == [said], err


# -- issue 25: every writer of big files cleans up after killed processes; modes; game records ------
TINY = KNIFFEL.reduced(boxes=["ones", "sixes", "kniffel", "chance"], n_dice=3, name="tiny")


def build_tiny_target(d: Path) -> None:
    """The tiny variant's target table (a fraction of a second), saved as `solve --target` saves it."""
    from solver.chances import targets
    from solver.dp.target import solve_target
    from solver.dp.target_layout import item_lengths, target_layout
    from solver.store import target_tables

    engine = targets.target_engine(TINY)
    n = targets.default_n(TINY, engine)
    layout = target_layout(engine, n, item_lengths(engine, n))
    target_tables.save_target(TINY, solve_target(engine, layout, lambda k: None), layout, d, seconds=0.0)


def every_writer(d: Path) -> None:
    """Every file the program writes beside the game records: the table and its sidecar, the second
    moments, the expected-play cache, the target table, its sidecar and its verified stamp."""
    from solver.advice.cards import Card
    from solver.chances import win

    values, m2, _ = dp.solve_with_moments(TINY)
    tables.save(TINY, values, d, states=0, seconds=0.0, m2=m2)
    win.rest_pmf(TINY, values, Card(TINY), d)
    build_tiny_target(d)


WRITTEN = [
    "tiny.npy",
    "tiny.json",
    "tiny.m2.npy",
    "tiny.m2.json",
    "tiny.expected-play.json",
    "tiny.target.npy",
    "tiny.target.json",
    ".tiny.target.verified",
]


def test_every_writer_removes_the_temp_files_of_dead_processes(tmp_path):
    """Item 9: a target-table build killed mid-write left its temp file (107-397 MB for the presets) for
    ever; every big file is now written as the table saves are (files.atomic_write_files)."""
    stale = [tmp_path / f".{name}.{dead_pid()}.tmp" for name in WRITTEN]
    for path in stale:
        path.write_bytes(b"half a file")
    every_writer(tmp_path)
    assert [p.name for p in stale if p.exists()] == []
    assert not list(tmp_path.glob(".*.tmp"))


KILLED_TARGET_BUILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    import numpy as np
    sys.path.insert(0, "tests")
    from test_reliability_files import build_tiny_target
    real_save = np.save
    def save_then_die(fh, values, **kw):
        if not hasattr(fh, "fileno"):  # the checksum's pass, not the file
            return real_save(fh, values, **kw)
        fh.write(b"\\x93NUMPY half a table")
        fh.flush()
        os.kill(os.getpid(), signal.SIGKILL)  # mid-write, as a power cut or the OOM killer would
    np.save = save_then_die
    build_tiny_target(Path(sys.argv[1]))
    """
)


def test_a_target_build_killed_mid_write_leaves_nothing_after_the_next_build(tmp_path):
    proc = subprocess.run([sys.executable, "-c", KILLED_TARGET_BUILD, str(tmp_path)], cwd=REPO, timeout=300)
    assert proc.returncode == -signal.SIGKILL
    left = list(tmp_path.glob(".tiny.target.npy.*.tmp"))
    assert left, "the killed build left no temp file: the test did not kill it mid-write"
    build_tiny_target(tmp_path)
    assert not list(tmp_path.glob(".*.tmp")), "the next build left the killed build's temp file"


def test_a_table_saved_without_second_moments_is_solved_once_more_then_read(tmp_path, capsys):
    """Tables saved before the solve made the second moments: the first std solves the table again (saying so),
    the same values and moments as a solve, and saves them with it; the next reads them."""
    from solver.store import solving

    values, m2, _ = dp.solve_with_moments(TINY)
    tables.save(TINY, values, tmp_path, states=0, seconds=0.0)  # as an older version saved it
    assert not tables.moments_ready(TINY, tmp_path)
    assert np.array_equal(solving.table_moments(TINY, values, tmp_path, progress=False), m2, equal_nan=True)
    assert "solving it once more" in capsys.readouterr().err
    assert tables.moments_ready(TINY, tmp_path) and np.array_equal(
        tables.load(TINY, tmp_path)[0], values, equal_nan=True
    )
    assert np.array_equal(solving.table_moments(TINY, values, tmp_path), m2, equal_nan=True)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600)])
def test_every_written_file_has_the_mode_of_a_new_file(tmp_path, umask, mode):
    """Item 11: the second moments were written 0600 (mkstemp) while tables are 0644."""
    old = os.umask(umask)
    try:
        every_writer(tmp_path)
        Game(KNIFFEL).save(tmp_path / "game.json")
    finally:
        os.umask(old)
    modes = {name: oct(os.stat(tmp_path / name).st_mode & 0o777) for name in [*WRITTEN, "game.json"]}
    assert modes == dict.fromkeys(modes, oct(mode))


def game_record(version: int, **extra) -> dict:
    if version == 1:
        return {**Game(KNIFFEL).to_json(), **extra}
    from solver.game.table_game import TableGame

    return {**TableGame(KNIFFEL, ["Anna", "Ben"]).to_json(), **extra}


@pytest.mark.parametrize("version", [1, 2])
def test_a_game_record_with_an_unknown_key_is_refused_naming_it(kdir, tmp_path, version):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game_record(version, colour="blue")))
    res = run(kdir, "play", "--resume", str(path))
    line = [ln for ln in res.stderr.splitlines() if ln.strip()]
    one_line_error(res, str(path), "'colour'", "events")
    assert "players" in line[0] if version == 2 else "players" not in line[0]


@pytest.mark.parametrize("option", ["--save", "--resume"])
def test_an_empty_game_file_name_is_refused(kdir, tmp_path, option, monkeypatch):
    """`--save ''` used to save to kniffel-game.json (and `--resume ''` to start a new game)."""
    monkeypatch.chdir(tmp_path)
    res = run(kdir, "play", "kniffel", "--roll-for-me", option, "")
    one_line_error(res, option)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "args, option",
    [
        (["--tables", "", "value", "kniffel"], "--tables"),
        (["simulate", "kniffel", "-n", "10", "--plot", ""], "--plot"),
        (["distribution", "kniffel", "--plot", ""], "--plot"),
    ],
    ids=["tables", "simulate-plot", "distribution-plot"],
)
def test_an_empty_path_option_is_refused(kdir, tmp_path, args, option, monkeypatch):
    """`--tables ''` used to take the default folder, and `--plot ''` to draw nothing, both without a word."""
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(
        cli,
        ["--no-progress", "--lang", "en", *args]
        if args[0] == "--tables"
        else ["--tables", str(kdir), "--no-progress", "--lang", "en", *args],
    )
    one_line_error(res, f"{option} ''")
    assert not list(tmp_path.iterdir())


def bad_box_record() -> str:
    game = Game(KNIFFEL)
    game.add_roll((1, 2, 3, 4, 5))
    return json.dumps({**game.to_json(), "events": [*game.events, {"box": "nix", "points": 0}]})


@pytest.mark.parametrize(
    "content, said",
    [
        ("not json", "ist kein JSON (Zeile 1, Spalte 1)"),  # not the parser's English "Expecting value"
        ('{"seed": ' + "7" * 5000 + "}", "enthält eine Zahl mit mehr als 4.300 Ziffern"),  # nor Python's words
        ("x" * 2_000_000, "ist größer als"),
        (bad_box_record(), "hat kein Feld 'nix'"),
    ],
    ids=["not-json", "huge-number", "too-large", "unknown-box"],
)
def test_a_bad_game_file_of_a_german_game_is_refused_in_german(kdir, tmp_path, content, said):
    """`play kniffel --resume FILE` speaks German; a file it could not parse was refused in English."""
    path = tmp_path / "game.json"
    path.write_text(content)
    no_locale = {"LC_ALL": None, "LC_MESSAGES": None, "LANG": None}
    res = CliRunner(env=no_locale).invoke(cli, ["--tables", str(kdir), "play", "kniffel", "--resume", str(path)])
    one_line_error(res, "Spieldatei", said, lang="de")
