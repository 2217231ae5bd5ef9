"""`kniffel play --players`: a table of 2-6 players (hot seat) driven through stdin; its record (saved
after every step, validated by replay, version 1 files still load), undo across players, a killed
process, bad --players."""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from solver.chances.distribution import odds
from solver.cli import cli
from solver.game.record import Game, GameFileError
from solver.game.table_game import TableGame, WinChances, load_game
from solver.rules.presets import KNIFFEL

KNIFFEL_BIN = str(Path(sys.executable).parent / "kniffel")


@pytest.fixture(scope="module")
def kdir(tables_of):
    return tables_of("kniffel")


def play(kdir, *args, input=""):
    return CliRunner().invoke(cli, ["--tables", str(kdir), "--no-progress", "--lang", "en", "play", *args], input=input)


def new_table(kdir, f, players, seed, input):
    """A new table rolling for itself (no odds: quick), answered by `input`."""
    args = ["kniffel", "--players", players, "--roll-for-me", "--seed", str(seed), "--no-odds", "--save", str(f)]
    return play(kdir, *args, input=input)


def test_two_players_play_a_whole_game_through_stdin(kdir, tmp_path):
    f = tmp_path / "g.json"
    res = new_table(kdir, f, "Anna,Ben", 5, "\n" * 300)
    assert res.exit_code == 0, res.output
    out = res.output
    assert out.count(">>> Anna's turn <<<") == 13 and out.count(">>> Ben's turn <<<") == 13
    assert out.index(">>> Anna's turn") < out.index(">>> Ben's turn")  # in the order given
    assert "Standings:" in out and "== Game over ==" in out
    game = load_game(f)
    assert isinstance(game, TableGame) and game.finished
    scores = [c.points for c in game.cards()]
    assert json.loads(f.read_text())["scores"] == scores
    assert f"{max(scores)}" in out.split("== Game over ==")[1]
    assert game.games[0].events[0] != game.games[1].events[0]  # every player rolls dice of their own
    # the same seed, the same game
    new_table(kdir, tmp_path / "h.json", "Anna,Ben", 5, "\n" * 300)
    assert load_game(tmp_path / "h.json").events == game.events


def test_quit_resume_and_undo_across_players(kdir, tmp_path):
    f = tmp_path / "g.json"
    # Anna: roll 1, keep, roll 2, keep, roll 3, box; Ben: roll 1 shown, then quit
    res = new_table(kdir, f, "Anna,Ben", 9, "\n\n\nq\n")
    assert res.exit_code == 0, res.output
    saved = load_game(f)
    assert isinstance(saved, TableGame) and saved.current() == 1 and saved.point().roll == 1
    assert "--resume" in res.output
    # undo at Ben's first roll takes back Anna's box: Anna chooses again
    res = play(kdir, "--resume", str(f), "--no-odds", input="undo\nq\n")
    assert res.exit_code == 0, res.output
    assert ">>> Anna's turn <<<" in res.output.split("undone")[-1]
    back = load_game(f)
    assert back.current() == 0 and not back.cards()[0].filled and back.point().roll == 3
    assert back.events == saved.events[: len(back.events)]
    # --players cannot change a saved table; the game then finishes from where it stood
    bad = play(kdir, "--resume", str(f), "--players", "Anna,Carla", input="q\n")
    assert bad.exit_code == 2 and "cannot change" in bad.output
    res = play(kdir, "--resume", str(f), "--no-odds", input="\n" * 300)
    assert res.exit_code == 0 and load_game(f).finished


def test_standings_show_the_exact_chances_of_winning(kdir, tmp_path, solved):
    """Near the end (two boxes left each) the standings carry every player's chance; they equal the
    odds of solver/chances/distribution.py for cards at the start of the same round."""
    f = tmp_path / "g.json"
    res = new_table(kdir, f, "A,B,C", 2, "\n" * 400)
    assert res.exit_code == 0, res.output
    full = load_game(f)
    boxes = 0
    for i, ev in enumerate(full.events):  # cut before the box events of round 12
        boxes += "box" in ev
        if boxes == 3 * 11:
            cut = i + 1
            break
    data = json.loads(f.read_text())
    data.update(events=data["events"][:cut], finished=False, scores=None)
    f.write_text(json.dumps(data))
    res = play(kdir, "--resume", str(f), input="\n" * 40)
    assert res.exit_code == 0, res.output
    rows = [line for line in res.output.splitlines() if " wins " in line]
    assert len(rows) >= 3 * 5
    game = load_game(f)
    values = solved("kniffel")
    start = TableGame(KNIFFEL, ["A", "B", "C"])
    for ev in data["events"]:
        start._replay_event(ev)
    cards = start.cards()
    wins, tie = WinChances(KNIFFEL, values)(cards)
    expected = odds(KNIFFEL, values, cards)
    assert np.allclose(wins, [p.win for p in expected.players], atol=1e-12)
    assert tie == pytest.approx(expected.tie, abs=1e-12)
    assert game.finished


def test_the_record_is_checked_by_replay_and_one_player_files_still_load(kdir, tmp_path):
    f = tmp_path / "g.json"
    new_table(kdir, f, "Anna,Ben", 4, "\n" * 12 + "q\n")
    data = json.loads(f.read_text())
    box_at = next(i for i, ev in enumerate(data["events"]) if "box" in ev)
    tampered = json.loads(json.dumps(data))
    tampered["events"][box_at + 1]["player"] = 0  # Anna again: out of turn
    with pytest.raises(GameFileError, match="out of turn"):
        TableGame.from_json(tampered)
    tampered = json.loads(json.dumps(data))
    tampered["players"] = ["Anna", "anna"]
    with pytest.raises(GameFileError, match="twice"):
        TableGame.from_json(tampered)
    tampered = json.loads(json.dumps(data))
    tampered["events"][box_at]["points"] += 1
    with pytest.raises(GameFileError, match=f"event {box_at + 1}"):
        TableGame.from_json(tampered)
    one = tmp_path / "one.json"
    res = play(kdir, "kniffel", "--roll-for-me", "--seed", "4", "--save", str(one), input="\n\nq\n")
    assert res.exit_code == 0, res.output
    assert type(load_game(one)) is Game
    res = play(kdir, "--resume", str(one), input="q\n")
    assert res.exit_code == 0 and "Players" not in res.output


@pytest.mark.parametrize(
    "players, says",
    [
        ("Anna", "2 to 6 players"),
        ("A,B,C,D,E,F,G", "2 to 6 players"),
        ("Anna,anna", "twice"),
        ("Anna,", "1 to 20 printable"),
        ("Anna," + "x" * 21, "1 to 20 printable"),
    ],
)
def test_bad_players_are_one_line_exit_2(kdir, players, says):
    res = play(kdir, "kniffel", "--players", players, "--roll-for-me")
    assert res.exit_code == 2
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kniffel: error:") and says in lines[0]


def test_win_advice_needs_a_table_of_players(kdir):
    res = play(kdir, "kniffel", "--advice", "win")
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1


def test_a_killed_game_leaves_a_loadable_record(kdir, tmp_path):
    """SIGKILL while the table plays on: the file holds the record of some step, whole."""
    f = tmp_path / "g.json"
    cmd = [KNIFFEL_BIN, "--tables", str(kdir), "--no-progress", "play", "kniffel", "--players", "Anna,Ben"]
    cmd += ["--roll-for-me", "--seed", "1", "--no-odds", "--save", str(f)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None
    proc.stdin.write(b"\n" * 300)
    proc.stdin.flush()
    deadline = time.monotonic() + 300  # a loaded CI machine starts slowly
    while time.monotonic() < deadline and (not f.exists() or len(json.loads(f.read_text())["events"]) < 8):
        time.sleep(0.05)  # every read is whole: the saves replace the file atomically
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    game = load_game(f)
    assert isinstance(game, TableGame) and len(game.events) > 5


@pytest.mark.parametrize("seed", [1, 2])
def test_win_advice_plays_for_the_leader_then_for_the_target(tmp_path, seed):
    """A reduced variant (4 boxes, 2 dice), three players, every advice taken: before the last turn the
    advice beats the leader's distribution (advise --opponent), in the last turn the best other score
    (the target); the chance shown for the last box is 1 exactly when that box wins."""
    from solver import dp
    from solver.advice.advisor import Advisor
    from solver.chances.targets import build_target_table
    from solver.game.table_play import TablePlayLoop
    from solver.rules.presets import PRESETS

    variant = PRESETS["yatzy"].reduced(boxes=["ones", "one_pair", "two_pairs", "chance"], n_dice=2, bonuses=[(2, 50)])
    values = dp.solve(variant)[0]
    game = TableGame(variant, ["A", "B", "C"], seed=seed, roll_for_me=True)
    loop = TablePlayLoop(game, Advisor(variant, values), tmp_path / "g.json", target_table=build_target_table(variant))
    said: list[str] = []
    loop.say = said.append  # type: ignore[method-assign]
    loop.ask = lambda prompt: ""  # type: ignore[method-assign]
    loop.run()
    text = "\n".join(said)
    assert game.finished and "== Game over ==" in text
    assert "To win against the leader" in text
    last = [line for line in said if line.startswith("  To win: ")][-1]
    scores = [c.points for c in game.cards()]
    assert last.endswith("100.00%") == (scores[2] > max(scores[:2]))
    assert f"{max(scores[:2]) + 1} points beat" in last


def test_opponent_pmf_is_computed_once_per_state_and_shifted_by_the_points(monkeypatch):
    """advise --opponent and the win advice: one forward pass per opponent state (cached), the same pmf
    as the distribution's for any points on the card."""
    from solver import dp
    from solver.advice.cards import Card
    from solver.chances import win
    from solver.chances.distribution import final_pmf
    from solver.rules.presets import PRESETS

    variant = PRESETS["kniffel"].reduced(boxes=["ones", "sixes", "kniffel", "chance"], n_dice=2, bonuses=[(6, 10)])
    values = dp.solve(variant)[0]
    chance = variant.box_index("chance")
    cards = [Card(variant, {chance: p}) for p in (7, 12, 2)]
    assert len({c.state for c in cards}) == 1
    expected = [final_pmf(variant, values, c) for c in cards]
    calls = []
    real = win.final_pmf
    monkeypatch.setattr(win, "final_pmf", lambda *a: calls.append(a) or real(*a))
    for card, pmf in zip(cards, expected):
        got = win.opponent_pmf(variant, values, card)
        assert got.shape == pmf.shape and np.allclose(got, pmf, atol=1e-15)
    assert len(calls) == 1


def test_any_change_to_a_table_record_is_a_game_or_a_game_file_error(kdir, tmp_path):
    f = tmp_path / "g.json"
    new_table(kdir, f, "Anna,Ben", 6, "\n" * 12 + "q\n")
    data = json.loads(f.read_text())
    changes = [
        lambda e: e.pop("player"),
        lambda e: e.update(player=5),
        lambda e: e.update(player=-1),
        lambda e: e.update(player="0"),
        lambda e: e.update(player=True),
        lambda e: e.update(player=1 - e["player"]),
        lambda e: e.update(roll=[9, 9]) if "roll" in e else e.update(extra=-1),
    ]
    tops = [("players", "Anna,Ben"), ("players", ["Anna", 2]), ("players", ["A"] * 7), ("scores", [1, 2])]
    tops += [("version", 3), ("events", {}), ("finished", True), ("seed", "7")]
    for i in range(len(data["events"])):
        for change in changes:
            bad = json.loads(json.dumps(data))
            change(bad["events"][i])
            with pytest.raises(GameFileError):
                TableGame.from_json(bad)
    for key, value in tops:
        bad = {**data, key: value}
        with pytest.raises(GameFileError):
            f.write_text(json.dumps(bad))
            load_game(f)
