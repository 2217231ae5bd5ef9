"""The `kniffel` command line, driven through click's CliRunner and once as the installed script."""

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ERROR_PREFIX

from solver.cli import cli
from solver.game.record import Game


@pytest.fixture(scope="module")
def tdir(tables_of):
    """A tables directory with kniffel and yahtzee (the solve command itself: test_solve_json_and_sidecar)."""
    return tables_of("kniffel", "yahtzee")


FULL_CARD = ",".join(f"{i}=0" for i in range(1, 13)) + ",chance=17"  # Chance cannot be scratched in kniffel


def run(tdir, *args, input=None):
    return CliRunner().invoke(cli, ["--tables", str(tdir), "--no-progress", "--lang", "en", *args], input=input)


def one_line_error(res, fragment, lang="en"):
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX[lang]) and fragment in lines[0], res.stderr
    assert "Traceback" not in res.output


def test_solve_json_and_sidecar(tmp_path):
    """Generala: the smallest identical-dice preset (a tenth of a yatzy solve), the same solve command."""
    res = run(tmp_path, "solve", "generala", "--json")
    assert res.exit_code == 0
    obj = json.loads(res.stdout.strip().splitlines()[-1])
    assert obj["variant"] == "generala" and abs(obj["start_value"] - 162.4694684) < 1e-6
    assert obj["states"] == 3070 and obj["seconds"] > 0
    assert (tmp_path / "generala.npy").exists() and (tmp_path / "generala.json").exists()


def test_value_of_cards(tdir):
    res = run(tdir, "value", "kniffel", "--json")
    obj = json.loads(res.stdout)
    assert abs(obj["expected_final_score"] - 248.0761494649) < 1e-8
    res = run(tdir, "value", "kniffel", "--card", "einser=3,dreier=9,kniffel=50,chance=30,extra=50", "--json")
    obj = json.loads(res.stdout)
    assert obj["points"] == 142 and obj["expected_final_score"] > 134
    obj = json.loads(run(tdir, "value", "kniffel", "--card", FULL_CARD, "--json").stdout)
    assert obj["expected_final_score"] == obj["points"] == 17


def test_value_solves_a_missing_table(tmp_path):
    res = run(tmp_path, "value", "generala")  # the smallest identical-dice preset: the same path, a fast solve
    assert res.exit_code == 0
    assert "solving it once" in res.stderr
    assert "162.4695" in res.stdout


def test_variants_lists_boxes_and_start_values(tdir):
    res = run(tdir, "variants")
    assert "Large Straight (Große Straße)" in res.stdout and "start value 248.0761" in res.stdout
    res = CliRunner().invoke(
        cli, ["--tables", str(tdir), "variants"], env={"LANG": "C", "LC_ALL": "", "LC_MESSAGES": ""}
    )
    lines = res.stdout.split("\n")

    def boxes(name):  # the indented lines after the variant's row (the row itself may wrap)
        start = next(i for i, line in enumerate(lines) if line.startswith(name + " "))
        return " ".join(itertools.takewhile(lambda line: line.startswith("    "), lines[start + 1 :]))

    kniffel, yahtzee = boxes("kniffel-meister"), boxes("yahtzee")
    assert "Große Straße (Large Straight)" in kniffel and "Large Straight (Große Straße)" in yahtzee  # each its own
    data = json.loads(run(tdir, "variants", "--json").stdout)
    assert {v["variant"] for v in data} >= {"kniffel", "yatzy6", "kniffel7"}


def test_advise_worked_situation(tdir):
    res = run(tdir, "advise", "--dice", "66666", "--roll", "1")
    assert "Best: keep all: 6 6 6 6 6 (stop rolling), then score Kniffel for 50" in res.stdout
    obj = json.loads(run(tdir, "advise", "kniffel", "--dice", "6,6,6,6,6", "--json").stdout)
    assert obj["action"] == "keep" and obj["best"]["keep"] == [6] * 5 and obj["then"]["box"] == "kniffel"
    obj = json.loads(run(tdir, "advise", "yahtzee", "--dice", "3,3,5,1,6", "--roll", "3", "--json", "--all").stdout)
    assert obj["action"] == "box" and len(obj["options"]) == obj["options_total"] == 13
    assert obj["options"][0]["loss"] == 0 and all(o["loss"] >= 0 for o in obj["options"])


def test_best_box_equals_value_of_resulting_card(tdir):
    card = "einser=2,zweier=6,chance=21"
    obj = json.loads(run(tdir, "advise", "--card", card, "--dice", "44456", "--roll", "3", "--json").stdout)
    best = obj["best"]
    after = f"{card},{best['box']}={best['points']}"
    value = json.loads(run(tdir, "value", "kniffel", "--card", after, "--json").stdout)
    assert abs(value["expected_final_score"] - best["expected_final_score"]) < 1e-6


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["advise", "poker", "--dice", "12345"], "unknown variant"),
        (["value", "knifel"], "Did you mean kniffel, kniffel7 or kniffel-keep-one? The known"),  # not an alias
        (["advise", "", "33516"], "unknown variant ''"),  # '' is no variant, not the default kniffel
        (["simulate", "", "-n", "10"], "unknown variant ''"),
        (["play", "", "--roll-for-me"], "unknown variant ''"),
        (["advise", "--card", "kniffel=50,extra=50", "--dice", "33516", "--roll", "3"], "3 3 5 1 6 is no Kniffel"),
        (["play", "--seed", "5"], "give it with --roll-for-me"),  # the player types the dice: it chose nothing
        (["play", "--seed", "5", "--players", "A,B"], "give it with --roll-for-me"),
        (["advise", "--card", "einser=9", "--dice", "12345"], "einser=9"),
        (["advise", "--dice", "1234"], "4 dice given"),
        (["advise", "--dice", "12347"], "face 7"),
        (["advise", "--dice", "3,3,5,1,-1"], "face -1 is not on a die"),  # was 'expected 5 numbers'
        (["advise", "--dice", "1,2,x,4,5"], "expected 5 numbers"),
        (["advise", "--dice", "12345", "--roll", "4"], "--roll"),
        (["advise", "--card", FULL_CARD, "--dice", "12345"], "card is full"),
        (["value", "kniffel", "--card", "full house=20"], "Full House cannot hold 20"),
        (["value", "kniffel", "--card", "chance=2_2"], "points must be a whole number"),  # int() reads 22
        (["value", "kniffel", "--card", "chance=\u0662\u0662"], "points must be a whole number"),  # Arabic-Indic 22
        (["solve"], "VARIANT"),
        (["review", "/nonexistent/game.json"], "game"),
        (["review", ""], "GAME.json '': give a file name"),
        (["advise", "--dice", "12345", "--opponent", "einser=9"], "the opponent's card (--opponent): card entry"),
        (["odds", "kniffel", "--card", "", "--card", "einser=9"], "player 2's card (--card number 2): card entry"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tdir, args, fragment):
    one_line_error(run(tdir, *args), fragment)


def test_damaged_table_is_refused(tmp_path, tdir):
    shutil.copy(tdir / "kniffel.json", tmp_path / "kniffel.json")
    (tmp_path / "kniffel.npy").write_bytes(b"\x93NUMPY garbage")
    one_line_error(run(tmp_path, "advise", "--dice", "12345"), "kniffel solve kniffel")


SCRIPTED_GAME = ["", ""] * 13  # Enter = follow the advice, for every prompt


def test_play_scripted_game_on_stdin(tdir, tmp_path):
    save = tmp_path / "game.json"
    # the first turn typed in full: dice, a keep, dice, stop early, a box by name; then undo and redo
    lines = ["3 3 5 1 6", "keep 3 3", "33333", "card", "undo", "33", "3 3 3 3 3", "", "help"]
    res = run(tdir, "play", "kniffel", "--save", str(save), input="\n".join(lines) + "\n")
    assert res.exit_code == 130  # input ended mid-game: aborted, the game stays saved
    game = Game.load(save)
    assert game.events[-1] == {"box": "kniffel", "points": 50, "extra": 0}
    assert "Sixes" in res.stdout and "expected final score" in res.stdout
    # resume: the game goes on at turn 2; input ending there leaves the saved game as it was
    # (tests/test_reliability_input.py finishes a resumed game and checks its score)
    res = run(tdir, "play", "--resume", str(save), input="help\n")
    assert res.exit_code == 130 and "Turn 2 of 13" in res.stdout
    assert Game.load(save).events == game.events


def test_play_whole_game_with_roll_for_me(tdir, tmp_path):
    save = tmp_path / "auto.json"
    res = run(tdir, "play", "--roll-for-me", "--seed", "5", "--save", str(save), input="\n" * 200)
    assert res.exit_code == 0, res.output
    assert "Game over" in res.stdout and "Against optimal play: 0.00 expected points" in res.stdout
    data = json.loads(save.read_text())
    assert data["finished"] and data["score"] == Game.load(save).point().card.points
    again = tmp_path / "again.json"
    run(tdir, "play", "--roll-for-me", "--seed", "5", "--save", str(again), input="\n" * 200)
    assert json.loads(again.read_text())["events"] == data["events"]  # seeded: reproducible


def test_installed_console_script(tdir):
    exe = Path(sys.executable).with_name("kniffel")
    assert exe.exists(), "install the project (pip install -e .) to get the kniffel script"
    out = subprocess.run(
        [str(exe), "--tables", str(tdir), "advise", "--dice", "33516", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ},
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["best"]["keep"] == [3, 3]
    bad = subprocess.run(
        [str(exe), "--tables", str(tdir), "advise", "--dice", "3351"], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_yatzy6_through_the_cli(tmp_path):
    """Issue 4: the six-dice preset with the seed's German box names. The table is not the point here (its values
    are the slow tests'): a made-up one, every state worth 100 points to come, so the best box is the most points
    now (Drei Paare's 20 for 112233) and a card's value its points plus 100."""
    import numpy as np

    from solver import dp
    from solver.rules.presets import PRESETS
    from solver.store import tables

    d, v = tmp_path, PRESETS["yatzy6"]
    shape = dp.table_shape(v)  # the second moments of a sure 100 points, for value's std column
    tables.save(v, np.full(shape, 100.0), d, states=dp.count_states(v), seconds=1.0, m2=np.full(shape, 100.0**2))
    obj = json.loads(run(d, "advise", "yatzy6", "--dice", "112233", "--roll", "3", "--json").stdout)
    assert (
        obj["best"]["box"] == "three_pairs" and obj["best"]["box_name"] == "Drei Paare" and obj["best"]["points"] == 20
    )
    obj = json.loads(run(d, "value", "yatzy6", "--card", "zwei drillinge=30,5er-straße=20", "--json").stdout)
    assert obj["points"] == 50 and obj["expected_final_score"] == 150
    one_line_error(run(d, "value", "yatzy6", "--card", "drei paare=25"), "Three Pairs cannot hold 25")
    one_line_error(run(d, "advise", "yatzy6", "--dice", "11223"), "5 dice given")


def test_plot_without_matplotlib_is_one_clear_line(tdir, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    res = run(tdir, "simulate", "-n", "10", "--plot", "x.png")
    one_line_error(res, "pip install 'kniffel[plot]'")


# -- the player's language: errors and the statistics commands (issue 16) -----------------------------------
def speak(tdir, *args, input=None):
    """The CLI without run's --lang en: the language comes from the variant (or --lang after the command)."""
    return CliRunner(env={"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}).invoke(
        cli, ["--tables", str(tdir), "--no-progress", *args], input=input
    )


@pytest.mark.parametrize(
    "args, german, english",
    [
        (
            ["advise", "kniffel", "--card", "einser=7", "33516"],
            "Einser kann in kniffel nicht 7 haben",
            "Ones cannot hold 7",
        ),
        (["advise", "kniffel", "3351"], "4 Würfel angegeben, kniffel würfelt mit 5", "4 dice given, kniffel rolls 5"),
        (["advise", "kniffel", "--bogus", "33516"], "unbekannte Option '--bogus'", "No such option '--bogus'"),
        (["advise", "kniffel", "--roll", "x", "33516"], "'x' ist keine ganze Zahl", "'x' is not a valid integer"),
        (["advise", "kniffel", "--roll", "5", "33516"], "5 liegt nicht im Bereich 1<=x<=3", "not in the range"),
        (["advise", "kniffel", "--card"], "Option '--card' braucht einen Wert", "Option '--card' requires an argument"),
        (["chances", "kniffel"], "Option '--target' fehlt", "Missing option '--target'"),
        (["play", "kniffel", "--save", "/"], "Datei '/' ist ein Ordner", "File '/' is a directory"),
        (["review", "/no/such/game.json"], "Spieldatei /no/such/game.json ist nicht lesbar", "cannot read game file"),
    ],
)
def test_errors_speak_the_players_language(tdir, args, german, english):
    """Card, dice and game-file errors and click's own usage errors: German for Kniffel, --lang en for English;
    still one line and exit code 2."""
    if args[0] == "review":
        args = ["--lang", "de", *args]
    one_line_error(speak(tdir, *args), german, "de")
    one_line_error(speak(tdir, "--lang", "en", *[a for a in args if a not in ("--lang", "de")]), english)


def test_statistics_outputs_in_both_languages(tdir):
    """distribution and odds: the catalogue's words, box names as players read them (not keys), 100 columns."""
    card = "einser=3,zweier=6,dreier=9,vierer=12,fuenfer=15,sechser=18,dreierpasch=20,full house=25,chance=22"
    de = speak(tdir, "distribution", "kniffel", "--card", card, "--at-least", "250")
    en = speak(tdir, "distribution", "kniffel", "--card", card, "--at-least", "250", "--lang", "en")
    assert de.exit_code == 0 and en.exit_code == 0, de.output + en.output
    assert "Zettel: Einser 3, Zweier 6" in de.output and "Perzentile: 1%:" in de.output and "fuenfer" not in de.output
    assert "Card: Ones 3, Twos 6" in en.output and "percentiles: 1%:" in en.output and "full_house" not in en.output
    odds = speak(tdir, "odds", "kniffel", "--card", card, "--card", card.replace("chance=22", "chance=30"))
    assert "Spieler" in odds.output and "gleichauf vorn" in odds.output and "Chance 30" in odds.output, odds.output
    for res in (de, en, odds):
        assert max(len(line) for line in res.output.splitlines()) <= 100, res.output


def test_target_and_opponent_rows_name_options_as_players_read_them(tdir, capsys):
    """advise --target/--opponent print their ranked options with explain.option_text, in the language
    chosen, within 100 columns (the rows' printer, fed real options: the target table takes minutes)."""
    from solver.advice.cards import parse_card
    from solver.advice.choose import make_advisor
    from solver.chances.targets import TargetOption
    from solver.cli.advise_commands import _echo_chance_rows
    from solver.i18n.texts import set_language
    from solver.rules.presets import KNIFFEL
    from solver.store.tables import load

    values, _ = load(KNIFFEL, tdir)
    _, options = make_advisor(KNIFFEL, values).advise(parse_card(KNIFFEL, ""), (3, 3, 5, 1, 6), 1)
    ranked = [TargetOption(o, 0.5 - i / 100) for i, o in enumerate(options)]
    set_language("de")
    _echo_chance_rows(KNIFFEL, (3, 3, 5, 1, 6), ranked, False, "P(Sieg)", lambda o: o.probability)
    german = capsys.readouterr().out
    assert "Möglichkeit" in german and "behalte 3 3, 3 Würfel neu würfeln" in german and "weitere" in german
    set_language("en")
    _echo_chance_rows(KNIFFEL, (3, 3, 5, 1, 6), ranked, True, "P(win)", lambda o: o.probability)
    english = capsys.readouterr().out
    assert "keep 3 3, reroll 3 dice" in english and "50.0000%" in english and "reroll all 5 dice" in english
    assert max(len(line) for line in (german + english).splitlines()) <= 100


def test_advise_says_a_bonus_written_before_its_box_is_counted_once(tdir):
    res = run(tdir, "advise", "yahtzee", "--card", "yahtzee=50,extra=100", "--dice", "66666", "--roll", "3")
    assert res.exit_code == 0, res.output
    first, header = res.stdout.splitlines()[:2]
    assert "Yahtzee bonus (100) still waits for its box" in first
    assert "(card Yahtzee 50: 50 points)" in header
    plain = run(tdir, "advise", "yahtzee", "--card", "yahtzee=50", "--dice", "66666", "--roll", "3")
    assert res.stdout.splitlines()[2] == plain.stdout.splitlines()[1]  # the same best line and total


def test_a_bad_card_is_refused_before_a_missing_table_is_solved(tmp_path):
    res = CliRunner().invoke(cli, ["--tables", str(tmp_path), "--lang", "en", "value", "yams", "--card", "as=6"])
    assert res.exit_code == 2 and "Ones cannot hold 6 in yams" in res.stderr
    assert not list(tmp_path.iterdir())  # no table solved first (yams: seconds of work, then the refusal)


def test_a_variant_named_twice_is_solved_once(tmp_path):
    res = run(tmp_path, "solve", "generala", "Generala", "--json")
    assert res.exit_code == 0, res.output
    assert res.stdout.count('"variant": "generala"') == 1
