"""One line and exit code 2, in the player's language, for what a user can get wrong: damaged job folders,
empty option values, and the like."""

import json

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from solver.cli import cli

LAYER = {"filled": 13, "rows": 1, "chunks": [[0, 1, 1]], "cost": 1, "at": [0, 1]}
MANIFEST = {"variant": "kniffel", "kind": "ev", "n_max": 0, "plan": [LAYER]}


def run(*args, lang="en", **kwargs):
    return CliRunner().invoke(cli, ["--no-progress", "--lang", lang, *args], **kwargs)


@pytest.mark.parametrize(
    "manifest, layers",
    [
        ({**MANIFEST, "plan": [{"x": 1}]}, None),
        ({**MANIFEST, "plan": [{**LAYER, "chunks": [[0, 1]]}]}, None),  # a chunk without its cost
        ({**MANIFEST, "plan": [{**LAYER, "chunks": [[0, 1.5, 1]]}]}, None),  # a bound not a row
        ({**MANIFEST, "plan": [{**LAYER, "chunks": [[-3, 1, 1]]}]}, None),
        ({**MANIFEST, "plan": [{**LAYER, "chunks": [[0, 2, 1]]}]}, None),  # beyond the layer's rows
        ({**MANIFEST, "plan": [{**LAYER, "chunks": [[0, 1, float("inf")]]}]}, None),
        ({**MANIFEST, "plan": [{**LAYER, "at": [0]}]}, None),  # not one more than the chunks
        ({**MANIFEST, "plan": [{**LAYER, "at": [1, 0]}]}, None),
        ({**MANIFEST, "plan": [{**LAYER, "cost": float("nan")}]}, None),
        ({"plan": []}, None),
        ({**MANIFEST, "kind": 3}, None),
        (MANIFEST, [1]),
        (MANIFEST, {"13": {}}),
        (MANIFEST, {"x": {"sha256": "", "seconds": 1, "cost": 1}}),
        (MANIFEST, {"13": {"sha256": "", "seconds": "1", "cost": 1}}),
        (MANIFEST, {"13": {"sha256": "", "seconds": 1, "cost": 1, "cpu": float("nan"), "cpu_cost": 1}}),
        (MANIFEST, {"13": {"sha256": "", "seconds": 1, "cost": 1, "cpu": float("inf"), "cpu_cost": 1}}),
        (MANIFEST, {"13": {"sha256": "", "seconds": 1, "cost": 1, "cpu": -1e6, "cpu_cost": 1}}),
        (MANIFEST, {"13": {"sha256": "", "seconds": -1, "cost": 1}}),
    ],
)
def test_status_of_a_damaged_job_folder_is_one_line(tmp_path, manifest, layers):
    (tmp_path / "job.json").write_text(json.dumps(manifest))
    if layers is not None:
        (tmp_path / "layers.json").write_text(json.dumps(layers))
    damaged = "layers.json" if layers is not None else "job.json"
    res = run("--tables", str(tmp_path), "solve", "--status", str(tmp_path), lang="de")
    assert res.exit_code == 2, res.output
    assert res.stderr.count("\n") == 1 and res.stdout == ""
    assert damaged in res.stderr and "ist beschädigt" in res.stderr


def test_status_speaks_the_language(tmp_path):
    (tmp_path / "job.json").write_text(json.dumps(MANIFEST))
    for lang, words, kind in (
        ("de", "Schichten fertig", "Wertetabelle"),
        ("es", "capas", "tabla de valores"),
        ("fr", "couches faites", "table des valeurs"),
        ("en", "layers done", "value table"),
    ):
        res = run("--tables", str(tmp_path), "solve", "--status", str(tmp_path), lang=lang)
        assert res.exit_code == 0 and words in res.stdout and f"kniffel {kind}" in res.stdout, res.output


@pytest.mark.parametrize("option", ["--job-dir", "--status", "--scheduler"])
def test_empty_job_options_are_refused(tmp_path, monkeypatch, option):
    monkeypatch.chdir(tmp_path)  # without the refusal --job-dir '' would build in the current folder
    res = run("--tables", str(tmp_path), "solve", "kniffel", option, "", lang="es")
    assert res.exit_code == 2 and res.stderr.count("\n") == 1 and res.stdout == "", res.output
    assert f"{option} ''" in res.stderr and "indicá" in res.stderr


@pytest.mark.parametrize("lang, unit", [("de", "Spiel"), ("es", "partida"), ("fr", "partie"), ("en", "game")])
def test_progress_bar_units_speak_the_language(tmp_path, monkeypatch, lang, unit):
    from solver import progress
    from solver.cli.base import progress_bar
    from solver.cli.settings import Settings
    from solver.i18n.texts import set_language

    seen = {}
    monkeypatch.setattr(progress, "LiveBar", lambda **kw: seen.update(kw))  # a disabled bar keeps no unit
    set_language(lang)
    try:
        progress_bar(Settings(tmp_path), 10, "x", "game")
    finally:
        set_language("en")
    assert seen["unit"].strip() == unit


@pytest.mark.parametrize("host", ["", " ", "\t"])
def test_serve_shows_an_empty_or_blank_host_quoted(tmp_path, host):
    res = run("--tables", str(tmp_path), "serve", "--host", host, "--port", "1")
    assert res.exit_code == 2 and res.stderr.count("\n") == 1, res.output
    assert f"--host {host!r} is not an address" in res.stderr


def test_moments_ready_wants_the_files_whole(tmp_path):
    """The quick answer's check (moments_ready) reads sidecars only, but a moments file cut short, replaced by a
    folder or gone is not ready (its kernels would otherwise be run as plain Python, then solve)."""
    import numpy as np

    from solver import dp
    from solver.rules.presets import KNIFFEL
    from solver.store import tables

    tiny = KNIFFEL.reduced(boxes=["ones", "sixes", "kniffel", "chance"], n_dice=3, name="tiny")
    values = np.random.default_rng(1).random(dp.table_shape(tiny))
    tables.save(tiny, values, tmp_path, states=0, seconds=0.0, m2=values * values)
    assert tables.moments_ready(tiny, tmp_path)
    m2 = tables.moment_paths(tiny, tmp_path)[0]
    whole = m2.read_bytes()
    m2.write_bytes(whole[:-8])
    assert not tables.moments_ready(tiny, tmp_path)
    m2.unlink()
    assert not tables.moments_ready(tiny, tmp_path)
    m2.mkdir()
    assert not tables.moments_ready(tiny, tmp_path)
    m2.rmdir()
    m2.write_bytes(whole)
    assert tables.moments_ready(tiny, tmp_path)
    tables.paths(tiny, tmp_path)[0].write_bytes(b"")
    assert not tables.moments_ready(tiny, tmp_path)


def test_quit_before_the_first_step_says_nothing_was_saved(tables_of, tmp_path):
    kdir, game = tables_of("kniffel"), tmp_path / "g.json"
    res = run("--tables", str(kdir), "play", "--save", str(game), input="q\n")
    assert res.exit_code == 0, res.output
    assert "Nothing saved yet" in res.stdout and "--resume" not in res.stdout and not game.exists()
    res = run("--tables", str(kdir), "play", "--save", str(game), input="33516\nq\n")
    assert res.exit_code == 0 and "Stopped" in res.stdout and "Nothing saved" not in res.stdout and game.exists()


@pytest.mark.parametrize("io_encoding", ["utf-8:strict", ""])
def test_bytes_that_are_not_utf8_are_shown_as_replacement_characters(tables_of, tmp_path, io_encoding):
    """Typed at a prompt or given as an argument, in a strict UTF-8 locale too: each shown as �, no traceback."""
    from helpers import kniffel_process

    kdir, env = tables_of("kniffel"), {"PYTHONIOENCODING": io_encoding, "LANG": "C.UTF-8", "LC_ALL": ""}
    res = kniffel_process("--tables", kdir, "--lang", "en", "value", b"k\xffx", env=env)
    assert res.returncode == 2 and res.stderr.decode().count("\n") == 1
    assert "unknown variant 'k\ufffdx'" in res.stderr.decode()
    play = ("--tables", kdir, "--lang", "en", "play", "--save", tmp_path / "g.json")
    res = kniffel_process(*play, env=env, input=b"\xff\nq\n")
    assert res.returncode == 0 and res.stderr == b"", res.stderr.decode()
    assert "'\ufffd' is not a die face" in res.stdout.decode()


def test_interpreted_kernels_refuse_heavy_work_in_the_players_language(tmp_path):
    from helpers import kniffel_process

    res = kniffel_process("--tables", tmp_path, "--lang", "de", "solve", "kniffel", env={"KNIFFEL_JIT": "0"})
    err = res.stderr.decode().splitlines()[-1]  # after the line that says how long the solve would take
    assert res.returncode == 2 and err.startswith("kniffel: Fehler: "), err
    assert "Das Lösen von kniffel braucht die kompilierten Kernel" in err and "KNIFFEL_JIT=0" in err


@given(st.lists(st.integers(0, 9), min_size=1, max_size=7).filter(lambda faces: any(f in (0, 7, 8, 9) for f in faces)))
def test_a_digit_that_is_no_face_is_named_before_the_count(faces):
    """'7' at a dice prompt: 7 is no face of the dice (1 to 6), not "1 dice given"."""
    from solver.game.entry import parse_roll
    from solver.rules.presets import KNIFFEL
    from solver.rules.variant import RuleError

    wrong = next(f for f in faces if f in (0, 7, 8, 9))
    with pytest.raises(RuleError, match=rf"^{wrong} is not a face of the dice \(they show 1 to 6\)"):
        parse_roll(KNIFFEL, "".join(map(str, faces)))


@pytest.mark.parametrize("word", ["all", "stop", "none", "keep 3"])
def test_a_roll_command_at_the_box_prompt_is_not_a_box(tables_of, tmp_path, word):
    """'all' after the last roll: not a box (no "did you mean Kleine Straße"), and the boxes allowed listed."""
    kdir = tables_of("kniffel")
    res = run("--tables", str(kdir), "play", "--save", str(tmp_path / "g.json"), input=f"33516\nall\n{word}\nq\n")
    assert res.exit_code == 0, res.output
    said = " ".join(res.stdout.split())  # the lines as fitted to the terminal, joined again
    assert f"{word!r} is not a box: the rolls are over" in said and "Did you mean" not in said
    assert "by name or number: Ones (1), Threes (3), Fives (5), Sixes (6), Chance (13)" in said


def test_every_command_takes_lang_after_its_name(tmp_path):
    """`kniffel solve ... --lang fr` as `kniffel advise ... --lang en`: --lang on the group and on every command."""
    from solver.cli import cli as group

    for name, command in group.commands.items():
        assert "--lang" in [o for p in command.params for o in p.opts], name
    (tmp_path / "job.json").write_text(json.dumps(MANIFEST))
    res = CliRunner().invoke(group, ["--tables", str(tmp_path), "solve", "--status", str(tmp_path), "--lang", "fr"])
    assert res.exit_code == 0 and "couches faites" in res.stdout, res.output
    res = CliRunner().invoke(group, ["--tables", str(tmp_path), "serve", "--host", "", "--lang", "de"])
    assert res.exit_code == 2 and "--host '' ist keine Adresse" in res.stderr, res.output
