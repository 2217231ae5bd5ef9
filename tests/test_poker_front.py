"""The dice-poker duel's front ends (issue 31): the CLI in both languages and its error style, the API's JSON,
the web tab (its page, /api/poker equal to the CLI's --json, refusals as HTTP 400)."""

import json
import warnings

import pytest
from click.testing import CliRunner

import solver
from solver.cli import cli


def run(*args):
    return CliRunner().invoke(cli, ["--no-progress", *args])


def test_cli_second_player_in_both_languages():
    en = run("--lang", "en", "poker", "12666", "--hand", "55666")
    de = run("--lang", "de", "poker", "12666", "--hand", "55666")
    assert en.exit_code == de.exit_code == 0, en.output + de.output
    assert "Best: keep 6 6 6, reroll 2 (53.24%)" in en.output and "a full house" in en.output
    assert "Am besten: 6 6 6 behalten, 2 neu würfeln (53,24\xa0%)" in de.output and "ein Full House" in de.output


def test_cli_json_is_the_api():
    res = run("poker", "12346", "--roll", "2", "--max-reroll", "3", "--match-rolls", "--json")
    assert res.exit_code == 0, res.output
    advice = solver.poker_advice("12346", roll=2, max_reroll=3, match_rolls=True)
    assert json.loads(res.stdout) == json.loads(json.dumps(advice.as_dict()))
    assert advice.best.p_win == max(o.p_win for o in advice.options)
    assert {o.reroll for o in advice.options} <= {0, 1, 2, 3}  # the house rule: at most three dice


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["poker", "1234"], "5 dice from 1 to 6"),
        (["poker", "12345", "--hand", "1237x"], "the hand to beat"),
        (["poker", "12345", "--rolls", "2"], "--rolls is for the second player"),
        (["poker", "12345", "--hand", "66666", "--roll", "3", "--rolls", "2"], "roll must be a whole number"),
        (["poker", "--ties", "suits"], "suits"),
    ],
)
def test_cli_errors_one_line(args, fragment):
    res = run("--lang", "en", *args)
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and fragment in lines[0] and "Traceback" not in res.output, res.stderr


def test_web_tab(tmp_path):
    pytest.importorskip("starlette", reason="the web extra is not installed")
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (test extra)")
    with warnings.catch_warnings():  # Starlette's note on httpx, as tests/test_web_api.py
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from solver.web.app import create_app

    with TestClient(create_app(tmp_path, solve_missing=False)) as client:
        assert "poker.js" in client.get("/poker").text and 'href="/poker"' in client.get("/").text
        listed = [v["variant"] for v in client.get("/api/variants").json()]  # the page's game list: the registry
        assert {"cheerio", "cheerio7", "cheerio7-plain", "yacht", "wuerfelpoker"} <= set(listed)
        got = client.get("/api/poker?dice=12666&hand=55666&roll=1&rolls=3&max_reroll=5&ties=kickers&match=0")
        assert got.status_code == 200
        assert got.json() == json.loads(json.dumps(solver.poker_advice("12666", "55666").as_dict()))
        assert client.get("/api/poker").json()["start"] == pytest.approx(solver.poker_advice().start)
        for bad in ("dice=1234", "roll=x", "ties=suits", "bogus=1", "match=2", "dice=12345&dice=12345"):
            refused = client.get("/api/poker?" + bad)
            assert refused.status_code == 400 and refused.json()["error"], bad


def test_a_usage_error_speaks_the_duels_language(monkeypatch):
    """click's own refusal of an option comes before the command runs: in Würfelpoker's German unless --lang says."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    res = CliRunner().invoke(cli, ["poker", "12666", "--roll", "4"], standalone_mode=True)
    assert res.exit_code == 2
    assert "ungültiger Wert für '--roll'" in res.output, res.output
    res = CliRunner().invoke(cli, ["--lang", "en", "poker", "12666", "--roll", "4"], standalone_mode=True)
    assert res.exit_code == 2 and "Invalid value for '--roll'" in res.output, res.output
