"""`kniffel distribution`, `kniffel odds` and advise's std through click's CliRunner."""

import json

import pytest
from click.testing import CliRunner

from solver.cli import cli

ENDGAME = "einser=3,zweier=6,dreier=9,vierer=12,fuenfer=15,sechser=18,dreierpasch=20,viererpasch=0,full house=25,kleine strasse=30,grosse strasse=40,chance=21"  # noqa: E501


@pytest.fixture(scope="module")
def tdir(tables_of):
    return tables_of("kniffel")


def run(tdir, *args):
    return CliRunner().invoke(cli, ["--tables", str(tdir), "--no-progress", "--lang", "en", *args])


def one_line_error(res, fragment):
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("kniffel: error:") and fragment in lines[0], res.stderr


def test_distribution_text_and_json(tdir):
    res = run(tdir, "distribution", "kniffel", "--card", ENDGAME, "--at-least", "250")
    assert res.exit_code == 0, res.output
    assert "percentiles: 1%:" in res.output and "250:" in res.output and "#" in res.output
    out = json.loads(run(tdir, "distribution", "kniffel", "--card", ENDGAME, "--json", "--at-least", "250").stdout)
    assert abs(sum(out["pmf"]) - 1) < 1e-12 and out["p_at_least"]["250"] >= 0
    assert out["card"].startswith("ones=3")


def test_odds_json(tdir):
    card2 = ENDGAME.replace("grosse strasse=40", "grosse strasse=0")  # Chance filled: scratching is allowed
    res = run(tdir, "odds", "kniffel", "--card", ENDGAME, "--card", card2, "--names", "Anna,Ben", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert [p["name"] for p in out["players"]] == ["Anna", "Ben"]
    assert set(out) == {"variant", "players", "tie"}
    assert set(out["players"][0]) == {"name", "card", "win", "expected_final_score", "std"}
    assert out["players"][0]["win"] > out["players"][1]["win"]
    assert abs(sum(p["win"] for p in out["players"]) + out["tie"] - 1) < 1e-12


def test_odds_names_unnamed_players_in_the_players_language_but_not_in_json(tdir):
    card2 = ENDGAME.replace("grosse strasse=40", "grosse strasse=0")
    german = CliRunner().invoke(
        cli, ["--tables", str(tdir), "--lang", "de", "odds", "kniffel", "--card", ENDGAME, "--card", card2]
    )
    assert german.exit_code == 0 and "  Spieler 1: " in german.output and "Player" not in german.output, german.output
    as_json = CliRunner().invoke(
        cli, ["--tables", str(tdir), "--lang", "de", "odds", "kniffel", "--card", ENDGAME, "--card", card2, "--json"]
    )
    assert [p["name"] for p in json.loads(as_json.stdout)["players"]] == ["Player 1", "Player 2"]  # a contract


def test_advise_shows_std(tdir):
    res = run(tdir, "advise", "kniffel", "--card", ENDGAME, "--dice", "33516", "--roll", "1", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert all(o["std"] >= 0 for o in out["options"])
    assert "std" in run(tdir, "advise", "kniffel", "--card", ENDGAME, "--dice", "33516", "--roll", "3").output


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["distribution", "nope"], "unknown variant"),
        (["distribution", "kniffel", "--card", "einser=7"], "Ones cannot hold 7"),
        (["distribution", "kniffel", "--at-least", "-1"], "between 0 and"),
        (["distribution", "kniffel", "--at-least", "5000"], "between 0 and"),
        (["distribution", "kniffel7", "--card", "ones=7"], "Ones cannot hold 7"),  # six dice have a one
        (["distribution", "kniffel7", "--card", "sevens=8"], "Sevens cannot hold 8"),
        (["distribution", "kniffel7", "--card", "ones=60"], "cannot occur"),  # Super-Points need Super-Kniffel
        (["odds", "kniffel7", "--card", "chance=20", "--card", "ones=60"], "cannot occur"),
        (["odds", "kniffel7", "--card", "chance=20", "--card", "straight_six=30"], "cannot hold 30"),
        (["distribution", "kniffel", "--plot", "/no/such/folder/x.png"], "does not exist"),
        (["odds", "kniffel", "--card", ""], "2 to 6 players"),
        (["odds", "kniffel", *["--card", ""] * 7], "2 to 6 players"),
        (["odds", "kniffel", "--card", "", "--card", "", "--names", "A"], "names"),
        (["odds", "kniffel", "--card", "", "--card", "chance=20"], "same round"),
    ],
)
def test_bad_input_is_one_line(tdir, args, fragment):
    one_line_error(run(tdir, *args), fragment)


def test_moments_on_disk_are_checked_and_a_fresh_advise_process_answers_alike(tdir):
    """The .m2 file is trusted only whole and made from the table on disk; a fresh `kniffel advise`
    (which then runs the kernels as plain Python) prints what the compiled kernels print."""
    import os
    import subprocess
    import sys

    from solver.rules.presets import KNIFFEL
    from solver.store import tables

    args = ["advise", "kniffel", "--card", "chance=22", "--dice", "33516", "--roll", "2", "--json"]
    compiled = json.loads(run(tdir, *args).stdout)  # `solve` saved the table with its moments
    assert tables.moments_ready(KNIFFEL, tdir)
    npy = tdir / "kniffel.m2.npy"
    data = bytearray(npy.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one moment damaged: the table solved again (saying so), not trusted
    npy.write_bytes(bytes(data))
    again = run(tdir, *args)
    assert json.loads(again.stdout) == compiled
    assert again.stderr.startswith("kniffel: the table of kniffel has no second moments")
    assert npy.read_bytes() != bytes(data)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    fresh = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from solver.cli import main; main(sys.argv[1:]); ",
            "--tables",
            str(tdir),
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert fresh.returncode == 0, fresh.stderr
    assert json.loads(fresh.stdout) == compiled


@pytest.mark.parametrize(
    "lang,x,shown",
    [
        ("en", 0.015505, "1.5505%"),
        ("en", 9.31e-11, "9.31e-09%"),  # below 0.0001 %: three digits, still in percent (it was 9.31e-11)
        ("de", 1.08e-14, "1,08e-12\u00a0%"),
        ("fr", 0.0, "0,0000\u00a0%"),
    ],
)
def test_every_chance_of_a_line_is_in_percent(lang, x, shown):
    from solver.cli.statistics_commands import _percent
    from solver.i18n import texts

    texts.set_language(lang)
    assert _percent(x) == shown
