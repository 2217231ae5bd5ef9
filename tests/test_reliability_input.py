"""Issue 10: every parser fed anything (Hypothesis): a valid object or KniffelError, never another
exception and never a hang; game records replayed through the rules; the CLI's option checks."""

import gc
import json
import os
import pickle
import re
import subprocess
import sys
import weakref
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ERROR_PREFIX
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.advice.cards import Card, parse_card
from solver.errors import KniffelError
from solver.game.dice_input import parse_dice
from solver.game.play import PlayLoop
from solver.game.record import Game, GameFileError
from solver.rules.presets import KNIFFEL, KNIFFEL7, PRESETS, YAHTZEE
from solver.rules.variant import RuleError

REPO = Path(__file__).resolve().parent.parent
VARIANTS = [PRESETS[n] for n in ("kniffel", "kniffel-meister", "yahtzee", "yatzy", "yatzy6", "kniffel7")]
QUICK = settings(max_examples=150, deadline=timedelta(seconds=2), suppress_health_check=[HealthCheck.too_slow])
CLI_QUICK = settings(
    max_examples=25, deadline=timedelta(seconds=10), suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def kdir(tables_of):
    return tables_of("kniffel")


def cli_group():
    from solver.cli import cli

    return cli


def run(tdir, *args, input=None):
    return CliRunner().invoke(cli_group(), ["--tables", str(tdir), "--no-progress", "--lang", "en", *args], input=input)


def one_line_error(res, *fragments, lang="en"):
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX[lang]), res.stderr
    for fragment in fragments:
        assert fragment in lines[0], res.stderr


def warm_up():
    """Compile the rules kernels once, outside the timed examples."""
    for v in VARIANTS:
        parse_card(v, "")
        Game.from_json(Game(v).to_json())
    parse_card(KNIFFEL, "einser=0,chance=5,kniffel=50,extra=50,zweier=10")


warm_up()


# -- cards ----------------------------------------------------------------------------
def card_texts(variant):
    names = [b.key for b in variant.boxes] + [b.name_de for b in variant.boxes] + ["extra", "1", "99", "x"]
    entry = st.tuples(st.sampled_from(names) | st.text(max_size=8), st.integers(-10, 700) | st.text(max_size=4))
    return st.lists(entry, max_size=16).map(lambda es: ",".join(f"{k}={v}" for k, v in es)) | st.text(max_size=60)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_card_parser_gives_a_card_or_a_kniffel_error(variant):
    @QUICK
    @given(card_texts(variant))
    def check(text):
        try:
            card = parse_card(variant, text)
        except KniffelError:
            return
        assert isinstance(card, Card)
        assert parse_card(variant, card.format()).filled == card.filled  # what it accepts, it can write back

    check()


def test_whole_card_consistency():
    with pytest.raises(RuleError, match="Chance.*fits every roll"):
        parse_card(KNIFFEL, "einser=0")  # restricted scratching: a 0 needs Chance filled first
    parse_card(KNIFFEL, "einser=0,chance=22")
    parse_card(PRESETS["kniffel-meister"], "einser=0")  # free scratching: any 0 at any time
    with pytest.raises(RuleError, match="12 × Kniffel bonus .* add those boxes"):
        parse_card(KNIFFEL, "kniffel=50,extra=600")
    with pytest.raises(RuleError, match="only 0 box"):
        parse_card(KNIFFEL, "kniffel=50,einser=3,dreier=9,chance=22,extra=100")  # no box at its maximum
    # the latest bonus may still wait for its box (the pad marks it when the roll is made): one is allowed
    assert parse_card(KNIFFEL, "kniffel=50,einser=3,dreier=9,chance=22,extra=50").extra == 50
    full = "einser=0,zweier=2,dreier=3,vierer=4,fuenfer=5,sechser=6,dreierpasch=8,viererpasch=9,full house=0"
    with pytest.raises(RuleError, match="only 0 box"):  # a full card: no box is left to wait for
        parse_card(KNIFFEL, full + ",kleine strasse=0,grosse strasse=0,kniffel=50,chance=22,extra=50")
    card = parse_card(KNIFFEL, "kniffel=50,einser=3,dreier=9,chance=30,extra=50")  # Chance 30 can be the joker
    assert card.extra == 50
    full_jokers = "einser=5,zweier=10,dreier=15,vierer=20,fuenfer=25,sechser=30,dreierpasch=30,viererpasch=30"
    full_jokers += ",full house=25,kleine strasse=30,grosse strasse=40,kniffel=50,chance=30,extra=600"
    assert parse_card(KNIFFEL, full_jokers).extra == 600  # twelve jokers, each box at its maximum
    with pytest.raises(RuleError, match="hold points such a roll"):
        parse_card(YAHTZEE, "yahtzee=50,full house=0,extra=200")  # forced joker: Full House takes 25, never 0
    with pytest.raises(RuleError, match="twice"):  # each entry as format() writes it, one box twice
        parse_card(YAHTZEE, "ones=3,chance=22,ones=3")


def test_parsing_with_many_copies_of_a_variant_keeps_none_of_them():
    """parse_card and parse_dice keep their lookups per Variant object: a program that parses with a fresh copy each
    time (unpickled from a worker, deep-copied) must not keep every copy and its lookups (tens of KB each)."""
    parse_card(YAHTZEE, "ones=3,chance=22")  # the lookups functools.cache shares between equal variants: made once
    blob = pickle.dumps(YAHTZEE)
    first = pickle.loads(blob)
    gone = weakref.ref(first)
    for copy in [first] + [pickle.loads(blob) for _ in range(200)]:
        assert parse_card(copy, "ones=3,chance=22").format() == "ones=3,chance=22"
        assert parse_dice(copy, "33516") == (3, 3, 5, 1, 6)
    del first, copy
    gc.collect()
    assert gone() is None


# -- dice -----------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.name)
def test_dice_parser_gives_dice_or_a_kniffel_error(variant):
    names = list(variant.die_names) or ["1", "2"]
    named = st.lists(st.tuples(st.sampled_from(names) | st.text(max_size=5), st.text("0123456789 ", max_size=3)))
    texts = (
        st.text(max_size=30)
        | st.text("0123456789 ,=", max_size=20)
        | named.map(lambda es: ",".join(f"{k}={v}" for k, v in es))
    )

    @QUICK
    @given(texts)
    def check(text):
        try:
            dice = parse_dice(variant, text)
        except KniffelError:
            return
        assert len(dice) == variant.n_dice and all(d in die for d, die in zip(dice, variant.dice))
        raw = text.strip()
        if len(raw) == variant.n_dice and raw.isascii() and raw.isdigit():  # one digit per die: those faces
            assert dice == tuple(map(int, raw))

    check()


@pytest.mark.parametrize(
    "variant,text,fragment",
    [
        (KNIFFEL7, "2,3,7,1,6,black=7,white=4", "'2' names no die"),
        (KNIFFEL7, "blue=2,green=3,purple=7,yellow=1,red=6,black=7,white=", "no face after white="),
        (KNIFFEL7, "1,2,3", "e.g. 2,3,4,5,6,7,1"),  # seven numbers in the example, each on its die
        (KNIFFEL7, "x", "such as 2,3,4,5,6,7,1"),
        (KNIFFEL, "1,2,x,4,5", "such as 1,2,3,4,5"),
        (KNIFFEL, "³³³³³", "expected 5 numbers"),
    ],
)
def test_dice_messages(variant, text, fragment):
    with pytest.raises(RuleError, match=fragment):
        parse_dice(variant, text)
    assert parse_dice(KNIFFEL7, "2,3,4,5,6,7,1") == (2, 3, 4, 5, 6, 7, 1)


# -- game records -------------------------------------------------------------------
def played_game(variant, seed=1, turns=3):
    """A real game: rolls from the seed, keeps and boxes as the rules allow (the first option)."""
    game = Game(variant, seed=seed, roll_for_me=True)
    while game.turn_number() <= turns and not game.finished:
        game.add_roll(game.next_random_roll())
        p = game.point()
        if p.roll < variant.rolls and p.roll % 2 == 1:
            if variant.identical_dice:
                game.add_keep(p.dice[:2])
            else:
                game.add_keep((), (0, 3))
            continue
        if p.roll == variant.rolls or p.roll == 2:
            box, points, extra = game.allowed_entries()[0]
            game.add_box(box, points, extra)
    return game


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20,
)


@pytest.mark.parametrize("variant", [KNIFFEL, YAHTZEE, KNIFFEL7], ids=lambda v: v.name)
def test_game_records_any_change_gives_a_game_or_a_game_file_error(variant):
    record = played_game(variant).to_json()
    keys = ["format", "version", "variant", "fingerprint", "seed", "roll_for_me", "lang", "events", "finished", "score"]
    event_keys = ["roll", "keep", "keep_dice", "box", "points", "extra", "other"]

    @QUICK
    @given(
        st.sampled_from(keys),
        json_values,
        st.integers(0, len(record["events"]) - 1),
        st.sampled_from(event_keys),
        json_values,
        st.booleans(),
    )
    def check(key, value, i, event_key, event_value, top):
        data = json.loads(json.dumps(record))
        if top:
            data[key] = value
        else:
            data["events"][i][event_key] = event_value
        try:
            game = Game.from_json(data)
        except GameFileError:
            return
        again = Game.from_json(game.to_json())  # a valid game round-trips
        assert again.events == game.events and again.lang == game.lang

    check()


@QUICK
@given(json_values)
def test_any_json_is_a_game_or_a_game_file_error(value):
    try:
        Game.from_json(value)
    except GameFileError:
        pass


@QUICK
@given(st.binary(max_size=200))
def test_any_bytes_in_a_game_file(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("bytes") / "g.json"
    path.write_bytes(data)
    with pytest.raises(GameFileError):
        Game.load(path)


def edited(record, change):
    data = json.loads(json.dumps(record))
    change(data)
    return data


GAME = played_game(KNIFFEL, turns=2).to_json()
BAD_GAMES = {
    "points -7": (lambda d: d["events"][-1].update(points=-7), "cannot take -7"),
    "chance 99": (lambda d: d["events"][-1].update(box="chance", points=99), "cannot take 99"),
    "extra 500": (lambda d: d["events"][-1].update(extra=500), "+500 extra"),
    "a box before any roll": (lambda d: d.update(events=[{"box": "chance", "points": 20}]), "event 1: roll the dice"),
    "keep_dice for identical dice": (lambda d: d["events"][1].update(keep_dice=[0, 1]), "keep_dice"),
    "variant a list": (lambda d: d.update(variant=["kniffel"]), "unknown variant"),
    "points a string": (lambda d: d["events"][-1].update(points="4"), "whole numbers"),
    "points true": (lambda d: d["events"][-1].update(points=True), "whole numbers"),
    "a roll of floats": (lambda d: d["events"][0].update(roll=[1.0, 2, 3, 4, 5]), "whole numbers"),
    "six dice": (lambda d: d["events"][0].update(roll=[1, 2, 3, 4, 5, 6]), "impossible dice"),
    "kept die changed": (lambda d: d["events"][2].update(roll=[6, 6, 6, 6, 6]), "kept dice"),
    "keep not in roll": (lambda d: d["events"][1].update(keep=[9]), "cannot keep 9"),
    "unknown event": (lambda d: d["events"].append({"pass": 1}), "roll, keep or box"),
    "two kinds": (lambda d: d["events"].append({"roll": [1, 1, 1, 1, 1], "box": "ones"}), "roll, keep or box"),
    "score faked": (lambda d: d.update(finished=True, score=300), "do not match"),
    "seed a string": (lambda d: d.update(seed="7"), "seed"),
    "version true": (lambda d: d.update(version=True), "version"),
    "too many events": (lambda d: d.update(events=[{"roll": [1, 2, 3, 4, 5]}] * 500), "at most"),
    "lang it": (lambda d: d.update(lang="it"), "lang 'it' is not a language"),
    "lang null": (lambda d: d.update(lang=None), "lang None is not a language"),
    "lang a list": (lambda d: d.update(lang=["de"]), "lang ['de'] is not a language"),
}


@pytest.mark.parametrize("case", list(BAD_GAMES))
def test_bad_game_records_name_the_event(kdir, tmp_path, case):
    change, fragment = BAD_GAMES[case]
    path = tmp_path / "g.json"
    path.write_text(json.dumps(edited(GAME, change)))
    with pytest.raises(GameFileError, match=re.escape(fragment)):
        Game.load(path)
    one_line_error(run(kdir, "review", str(path)), str(path), fragment)
    one_line_error(run(kdir, "play", "--resume", str(path), input="q\n"), str(path), fragment)


def test_huge_and_deep_game_files(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(GameFileError, match="nested too deeply"):
        Game.load(deep)
    big = tmp_path / "big.json"
    big.write_text(" " * 2_000_000)
    with pytest.raises(GameFileError, match="larger than"):
        Game.load(big)
    with pytest.raises(GameFileError, match="folder"):
        Game.load(tmp_path)


@CLI_QUICK
@given(json_values, st.booleans())
def test_review_and_resume_of_any_json(kdir, tmp_path_factory, value, resume):
    path = tmp_path_factory.mktemp("any") / "g.json"
    path.write_text(json.dumps(value))
    res = run(kdir, "play", "--resume", str(path), input="q\n") if resume else run(kdir, "review", str(path))
    one_line_error(res)


# -- play: saving, resuming, the keep prompt -----------------------------------------
def test_play_never_overwrites_an_existing_file(kdir, tmp_path, monkeypatch):
    notes = tmp_path / "notes.md"
    notes.write_text("my notes")
    one_line_error(run(kdir, "play", "--save", str(notes), input="q\n"), "exists already", "--force")
    assert notes.read_text() == "my notes"
    monkeypatch.chdir(tmp_path)
    Path("kniffel-game.json").write_text("an older game")  # the default --save
    res = CliRunner().invoke(cli_group(), ["--tables", str(kdir), "--no-progress", "--lang", "en", "play"], input="q\n")
    one_line_error(res, "kniffel-game.json exists already")
    assert Path("kniffel-game.json").read_text() == "an older game"
    res = run(kdir, "play", "--roll-for-me", "--seed", "3", "--save", str(notes), "--force", input="q\n")
    assert res.exit_code == 0 and Game.load(notes).events  # --force: replaced by the game
    one_line_error(run(kdir, "play", "--save", str(tmp_path / "no" / "g.json"), input="q\n"), "does not exist")
    one_line_error(run(kdir, "play", "--save", str(tmp_path)), "")  # a folder


def test_resumed_game_finishes_with_the_same_score_as_one_played_through(kdir, tmp_path):
    straight = tmp_path / "straight.json"
    res = run(kdir, "play", "--roll-for-me", "--seed", "11", "--save", str(straight), input="\n" * 200)
    assert res.exit_code == 0 and "Game over" in res.stdout
    resumed = tmp_path / "resumed.json"
    res = run(kdir, "play", "--roll-for-me", "--seed", "11", "--save", str(resumed), input="\n" * 20 + "q\n")
    assert res.exit_code == 0 and "Stopped" in res.stdout
    assert not Game.load(resumed).finished
    one_line_error(
        run(kdir, "play", "--roll-for-me", "--save", str(resumed), input="q\n"), "holds a saved game", "--resume"
    )
    res = run(kdir, "play", "--resume", str(resumed), input="\n" * 200)  # saves to the same file: allowed
    assert res.exit_code == 0 and "Game over" in res.stdout
    a, b = json.loads(straight.read_text()), json.loads(resumed.read_text())
    assert b["finished"] and b["events"] == a["events"] and b["score"] == a["score"]
    assert b["score"] == Game.load(resumed).point().card.points and f"Final score: {b['score']}" in res.stdout


def test_keep_prompt_refuses_dice_the_roll_does_not_show(kdir, tmp_path):
    save = tmp_path / "g.json"
    res = run(kdir, "play", "--save", str(save), input="2 3 4 5 6\n11111\nkeep 9\nq\n")
    assert "cannot keep 1 1 1 1 1: the dice are 2 3 4 5 6" in res.stdout
    assert "cannot keep 9" in res.stdout
    assert Game.load(save).events == [{"roll": [2, 3, 4, 5, 6]}]  # nothing was scored


def test_a_step_that_fails_without_input_is_raised_not_repeated(kdir):
    """The class of 'loops forever printing an error': a failing step that read no input stops the loop."""

    class Broken(Game):
        def add_roll(self, dice):
            raise RuleError("broken")

    from solver.advice.choose import make_advisor
    from solver.store.tables import load

    game = Broken(KNIFFEL, seed=1, roll_for_me=True)
    loop = PlayLoop(game, make_advisor(KNIFFEL, load(KNIFFEL, kdir)[0]), Path(os.devnull))
    with pytest.raises(RuleError, match="broken"):
        loop.run()


# -- options and environment ----------------------------------------------------------
def test_seeds_are_used_whole_or_refused(kdir):
    one_line_error(run(kdir, "simulate", "-n", "10", "--seed", "-1"), "--seed")
    one_line_error(run(kdir, "simulate", "-n", "1"), "1 is not in the range 2<=x")  # one game: no spread to show
    one_line_error(run(kdir, "simulate", "-n", "10", "--seed", str(2**32)), "--seed")
    a = json.loads(run(kdir, "simulate", "-n", "50", "--seed", "4294967295", "--json").stdout)
    b = json.loads(run(kdir, "simulate", "-n", "50", "--seed", "0", "--json").stdout)
    assert a["mean"] != b["mean"]
    assert played_game(KNIFFEL, seed=-1).events != played_game(KNIFFEL, seed=2**32 - 1).events  # play: whole seed


def test_plot_path_is_checked_before_simulating(kdir):
    res = run(kdir, "simulate", "-n", "100000000", "--plot", "/proc/nope/x.png")
    one_line_error(res, "/proc/nope")


def test_kniffel_alone_prints_help():
    res = CliRunner().invoke(cli_group(), [])
    assert res.exit_code == 0 and "Usage:" in res.stdout and not res.stderr


@pytest.mark.parametrize("bad", ["/dev/null", "file", "file/below"])
def test_tables_folder_checked_up_front(tmp_path, bad):
    (tmp_path / "file").write_text("x")
    path = bad if bad.startswith("/") else str(tmp_path / bad)
    # checked before the command knows its variant: as click's refusals, in the language of the variant named
    no_locale = {"LC_ALL": "", "LC_MESSAGES": "", "LANG": "C"}
    res = CliRunner().invoke(cli_group(), ["value", "kniffel"], env={**no_locale, "KNIFFEL_TABLES": path})
    one_line_error(res, "KNIFFEL_TABLES", "Ordner", lang="de")
    res = CliRunner().invoke(cli_group(), ["--tables", path, "value", "kniffel"], env=no_locale)
    one_line_error(res, "--tables", lang="de")
    res = CliRunner().invoke(cli_group(), ["--tables", path, "value", "yatzy"], env=no_locale)
    one_line_error(res, "--tables", "folder", lang="en")


def kniffel(*args, env):
    exe = Path(sys.executable).with_name("kniffel")
    return subprocess.run([str(exe), *args], env={**os.environ, **env}, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    "env,args",
    [
        ({"NUMBA_CACHE_DIR": "/proc/nope"}, ["--help"]),
        ({"HOME": ""}, ["--help"]),
        ({"NUMBA_NUM_THREADS": "0"}, ["variants"]),
        ({"NUMBA_NUM_THREADS": "abc"}, ["--help"]),
    ],
)
def test_hostile_environment(env, args):
    res = kniffel(*args, env=env)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.splitlines()) <= 1


def test_the_game_file_keeps_its_language(kdir, tmp_path):
    """A game resumed later speaks the language it was played in, unless --lang says otherwise; records
    from before the language was kept (no "lang") still load."""
    assert "lang" not in GAME and Game.from_json(GAME).lang is None  # an older record
    path = tmp_path / "g.json"
    group = ["--tables", str(kdir), "--no-progress"]
    res = run(kdir, "play", "kniffel", "--save", str(path), input="33516\nq\n")  # English (run's --lang en)
    assert res.exit_code == 0 and "Turn 1 of 13" in res.output, res.output
    assert json.loads(path.read_text())["lang"] == "en" and Game.load(path).lang == "en"
    resumed = CliRunner().invoke(cli_group(), [*group, "play", "--resume", str(path)], input="q\n")
    assert "Turn 1 of 13, roll 1: 3 3 5 1 6" in resumed.output, resumed.output  # not kniffel's German
    german = CliRunner().invoke(
        cli_group(), [*group, "play", "--resume", str(path), "--lang", "de"], input="\n3 2 6\nq\n"
    )
    assert "Runde 1 von 13, Wurf 1: 3 3 5 1 6" in german.output, german.output
    assert json.loads(path.read_text())["lang"] == "de"  # saved with the next step
    path.write_text(json.dumps(edited(json.loads(path.read_text()), lambda d: d.update(variant="nope"))))
    refused = CliRunner().invoke(cli_group(), [*group, "review", str(path)])
    assert "unbekannte Variante 'nope'" in refused.stderr, refused.stderr  # even a refusal speaks it
