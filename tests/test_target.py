"""Target tables (issue 13) against the brute-force recursion of tests/naive.py."""

import itertools
import json
import random

import numpy as np
import pytest
from helpers import quick_only
from naive import NaiveSolver

from solver import dp
from solver.advice.cards import Card, box_values
from solver.chances.targets import build_target_table, target_probability
from solver.rules.presets import PRESETS

TOL = 1e-9

# Reduced variants: few boxes and dice, every special rule (restricted scratching and the box-maximum
# joker, forced and free jokers, extra points, Yatzy's boxes, six dice), bonuses within reach.
REDUCED = [
    ("kniffel", ["ones", "sixes", "kniffel", "chance"], 2, [(6, 10)]),
    ("kniffel", ["twos", "full_house", "kniffel"], 3, [(4, 7)]),
    ("kniffel", ["fives", "three_of_a_kind", "kniffel", "chance"], 3, [(10, 20)]),
    ("kniffel-meister", ["ones", "kniffel", "chance"], 3, [(2, 5)]),
    ("kniffel-keep-one", ["ones", "sixes", "kniffel", "chance"], 3, [(9, 10)]),
    ("yahtzee", ["ones", "twos", "yahtzee", "chance"], 2, [(3, 35)]),
    ("yahtzee", ["threes", "yahtzee", "full_house", "small_straight"], 3, [(6, 10)]),
    ("yahtzee-free-joker", ["sixes", "yahtzee", "full_house", "large_straight"], 3, [(12, 5)]),
    ("yatzy", ["ones", "one_pair", "two_pairs", "yatzy"], 3, [(2, 50)]),
    ("yatzy6", ["twos", "yatzy", "chance"], 4, [(4, 50)]),
]


def card_of(variant, filled: dict) -> Card:
    return Card(variant, {variant.box_index(k): p for k, p in filled.items()})


def naive_for(name, boxes=None, n_dice=None, bonuses=None):
    base = "kniffel" if name == "kniffel-keep-one" else name
    return NaiveSolver(base, boxes=boxes, n_dice=n_dice, bonuses=bonuses, keep_one=name == "kniffel-keep-one")


def check_card(variant, table, naive, filled, needs):
    card = card_of(variant, filled)
    for n in needs:
        got = target_probability(variant, table, card, card.points + n) if n >= 1 else 1.0
        want = naive.target_probability(filled, n)
        assert abs(got - want) < TOL, (filled, n, got, want)


@pytest.mark.parametrize("name,boxes,n_dice,bonuses", REDUCED)
def test_reduced_variants_every_need(name, boxes, n_dice, bonuses):
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    table = build_target_table(variant)  # N = the highest score: every need
    naive = naive_for(name, boxes, n_dice, bonuses)
    check_card(variant, table, naive, {}, range(1, table.n_max + 1))
    rng = random.Random(13)
    for k in (1, 2):
        for keys in itertools.combinations(boxes, k):
            for _ in range(3):
                filled = {key: rng.choice(box_values(variant, variant.box_index(key))) for key in keys}
                check_card(variant, table, naive, filled, range(1, table.n_max + 1, 3))


def test_cut_off_is_exact():
    """A table up to N agrees with the full table on every need up to N."""
    variant = PRESETS["kniffel"].reduced(boxes=["ones", "sixes", "kniffel", "chance"], n_dice=3, bonuses=[(6, 10)])
    full = build_target_table(variant)
    cut = build_target_table(variant, n_max=40)
    assert cut.layout.size < full.layout.size
    for n in range(1, 41):
        assert target_probability(variant, cut, Card(variant), n) == target_probability(variant, full, Card(variant), n)


def test_never_increases_with_need():
    variant = PRESETS["yahtzee"].reduced(boxes=["ones", "twos", "yahtzee", "chance"], n_dice=3, bonuses=[(3, 35)])
    table = build_target_table(variant)
    lay = table.layout
    for mask in range(1 << len(variant.boxes)):
        for joker_scored in range(lay.length.shape[1]):
            ln = int(lay.length[mask, joker_scored])
            if ln == 0:
                continue
            n_totals = len(table.engine.upper.totals(mask, joker_scored))
            start = lay.offset[mask, joker_scored]
            p = np.asarray(table.flat[start : start + n_totals * ln]).reshape(n_totals, ln)
            assert (np.diff(p, axis=1) <= 1e-15).all() and (p <= 1 + 1e-12).all() and (p >= 0).all()
            assert p[:, -1].max() > 0  # L is the most the item can still score: reachable


@pytest.mark.parametrize("name,boxes,n_dice,bonuses", REDUCED[:3] + REDUCED[5:6])
def test_sure_minimum_is_where_the_probability_leaves_one(name, boxes, n_dice, bonuses):
    """sure_minimum (the points a state can make certain) against the target table: P = 1 up to it,
    below 1 just above it."""
    from solver.dp.target_layout import sure_minimum

    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    table = build_target_table(variant)
    sure = sure_minimum(table.engine)
    rng = random.Random(5)
    cards = [{}] + [
        {key: rng.choice(box_values(variant, variant.box_index(key))) for key in keys}
        for k in (1, 2)
        for keys in itertools.combinations(boxes, k)
    ]
    for filled in cards:
        card = card_of(variant, filled)
        s = int(sure[card.state])
        assert s == sure[card.state] and s >= 0
        if s > 0:
            assert target_probability(variant, table, card, card.points + s) > 1 - 1e-12
        # just above it some dice sequence fails: sometimes only one in 10^12 (two dice, many rolls)
        assert target_probability(variant, table, card, card.points + s + 1) < 1 - 1e-15


PRESET_NAMES = ["kniffel", "kniffel-keep-one", "kniffel-meister", "yahtzee", "yahtzee-free-joker", "yatzy", "yatzy6"]


def endgame_cards(variant, rng, count):
    """Cards with one or two boxes free; the joker box often holds points (jokers, extra points) and
    the upper boxes often sit just below the bonus threshold."""
    keys = [b.key for b in variant.boxes]
    for i in range(count):
        free = rng.sample(keys, 1 + i % 2)
        card = {}
        for k in keys:
            if k in free:
                continue
            values = box_values(variant, variant.box_index(k))
            card[k] = rng.choice(values) if rng.random() < 0.5 else values[len(values) * 2 // 3]
        if variant.joker_box in card and rng.random() < 0.7:
            card[variant.joker_box] = max(box_values(variant, variant.joker_index))
        yield card


@pytest.mark.parametrize("name", quick_only(PRESET_NAMES, {"kniffel", "yahtzee"}))  # the other rules: REDUCED
def test_endgame_cards_of_every_preset(name):
    variant = PRESETS[name]
    n_boxes = len(variant.boxes)
    table = build_target_table(variant, n_max=300, min_filled=n_boxes - 2)
    naive = naive_for(name)
    rng = random.Random(PRESET_NAMES.index(name))
    for filled in endgame_cards(variant, rng, 4):
        card = card_of(variant, filled)
        most = int(table.layout.length[card.mask, card.joker_scored])
        check_card(variant, table, naive, filled, range(1, min(most + 3, table.n_max + 1), max(1, most // 25)))


@pytest.mark.parametrize("name,boxes,n_dice,bonuses", REDUCED[:6])
def test_target_play_never_worse_than_max_expected_play(name, boxes, n_dice, bonuses):
    """For every target T, the target strategy reaches T at least as often as max-expected play
    (the exact distribution of the naive reference)."""
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    table = build_target_table(variant)
    dist = naive_for(name, boxes, n_dice, bonuses).distribution({})
    gained = 0
    for t in range(1, table.n_max + 1):
        expected_play = sum(p for points, p in dist.items() if points >= t)
        target_play = target_probability(variant, table, Card(variant), t)
        assert target_play >= expected_play - 1e-12, t
        gained += target_play > expected_play + 1e-9
    assert gained > 0  # and it does better somewhere


# generala: the stops after roll 1 enter the servida (first-roll points) as the table counts them
@pytest.mark.parametrize(
    "name,boxes,n_dice,bonuses,targets",
    [(*REDUCED[2], (40, 60)), ("generala", ["ones", "escalera", "full"], 5, None, (35, 55))],
)
@pytest.mark.parametrize("games", [1000, pytest.param(4000, marks=pytest.mark.slow)])
def test_simulated_target_play_agrees_with_the_table(name, boxes, n_dice, bonuses, targets, games):
    from solver.advice.advisor import Advisor
    from solver.chances.target_play import simulate_target

    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    table = build_target_table(variant)
    advisor = Advisor(variant, dp.solve(variant)[0])
    for target in targets:
        run = simulate_target(variant, table, advisor, games, target, seed=target)
        p = target_probability(variant, table, Card(variant), target)
        assert 0.05 < p < 0.95
        assert abs(run.p_reached - p) < 3 * np.sqrt(p * (1 - p) / run.games), (target, run.p_reached, p)


# -- the command line ------------------------------------------------------------------------------
def cli_run(tdir, *args):
    from click.testing import CliRunner

    from solver.cli import cli

    return CliRunner().invoke(cli, ["--tables", str(tdir), "--no-progress", "--lang", "en", *args])


def one_line_error(res, fragment):
    assert res.exit_code == 2, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("kniffel: error:") and fragment in lines[0], res.stderr
    assert "Traceback" not in res.output


FULL_CARD = ",".join(f"{i}=0" for i in range(1, 13)) + ",chance=17"


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["chances", "kniffel", "--target", "0"], "at least 1"),
        (["chances", "kniffel", "--target", "401"], "targets up to 400"),
        (["chances", "kniffel", "--card", "chance=30", "--target", "431"], "targets up to 430"),
        (["chances", "kniffel", "--card", FULL_CARD, "--target", "100"], "card is full"),
        (["chances", "kniffel7", "--target", "0"], "at least 1"),
        (["advise", "kniffel", "--dice", "33516", "--target", "-5"], "at least 1"),
        (["advise", "kniffel", "--dice", "33516", "--target", "999"], "targets up to 400"),
        (["advise", "kniffel7", "--dice", "2,3,7,1,6,7,4", "--target", "-1"], "at least 1"),
        (["simulate", "kniffel", "--target", "0"], "at least 1"),
        (["simulate", "kniffel7", "--target", "0"], "at least 1"),
        (["solve", "kniffel7", "--target"], "--target --job-dir DIR"),
    ],
)
def test_bad_input_is_one_line_before_any_work(tmp_path, args, fragment):
    one_line_error(cli_run(tmp_path, *args), fragment)
    assert not list(tmp_path.iterdir())  # refused before any table was built


@pytest.fixture(scope="module")
def kniffel_tables(tmp_path_factory):
    """Value and target tables of kniffel, built once through the CLI (about two minutes)."""
    d = tmp_path_factory.mktemp("tables")
    res = cli_run(d, "solve", "kniffel", "--target", "--json")
    assert res.exit_code == 0, res.output
    return d


@pytest.mark.slow
def test_chances_and_advise_target_on_kniffel(kniffel_tables):
    res = cli_run(kniffel_tables, "chances", "kniffel", "--card", "chance=22", "--target", "300", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert (
        set(out) == {"variant", "card", "target", "probability", "probability_expected_play"}
        and 0.1 < out["probability"] < 0.5
    )
    res = cli_run(kniffel_tables, "advise", "kniffel", "--dice", "33516", "--target", "300", "--json", "--all")
    assert res.exit_code == 0, res.output
    adv = json.loads(res.stdout)
    probs = [o["probability"] for o in adv["options"]]
    assert all(a >= b - 1e-6 for a, b in zip(probs, probs[1:]))  # ranked (ties within 1e-6 by expected score)
    assert all("expected_final_score" in o for o in adv["options"])
    start = cli_run(kniffel_tables, "chances", "kniffel", "--target", "300", "--json")
    assert abs(max(probs) - json.loads(start.stdout)["probability"]) < 0.3  # a first roll moves it, not wildly
    readme_target_example_prints_the_clis_figures(kniffel_tables, out["probability"])
    # the target table is checksummed: one flipped byte is refused with the fix
    npy = kniffel_tables / "kniffel.target.npy"
    data = bytearray(npy.read_bytes())
    data[-3] ^= 0xFF
    npy.write_bytes(bytes(data))
    one_line_error(cli_run(kniffel_tables, "chances", "kniffel", "--target", "300"), "kniffel solve kniffel --target")


def readme_target_example_prints_the_clis_figures(tables, probability):
    """The README's target example (the Python API: solver/api/target_play.py) prints what the CLI says."""
    import os
    import re
    import subprocess
    import sys
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    example = re.search(r"Playing for a target.*?```python\n(.*?)```", readme, re.S).group(1)
    code = "import solver\ntable = solver.load('kniffel')\n" + example
    env = {**os.environ, "KNIFFEL_TABLES": str(tables)}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    res = cli_run(tables, "advise", "kniffel", "--card", "chance=22", "--dice", "33516", "--target", "300", "--json")
    best = json.loads(res.stdout)["best"]
    assert run.stdout.splitlines() == [repr(probability), f"{best['text']} {best['probability']!r} None"], run.stdout


# -- the table on disk ---------------------------------------------------------------------------
def test_near_ties_go_to_the_higher_expected_score():
    from solver.advice.advisor import Option
    from solver.chances.targets import TargetOption, _rank

    a = TargetOption(Option("box", 250.0, text="a"), 0.3000004)
    b = TargetOption(Option("box", 260.0, text="b"), 0.3)
    c = TargetOption(Option("box", 270.0, text="c"), 0.29)
    assert [o.option.text for o in _rank([a, c, b])] == ["b", "a", "c"]


def test_save_load_round_trip_and_damage(tmp_path):
    from solver.store.target_tables import (
        TargetTableError,
        TargetTableMissing,
        load_target,
        save_target,
        stored,
        target_paths,
    )

    variant = PRESETS["kniffel"].reduced(boxes=["ones", "sixes", "kniffel", "chance"], n_dice=3, bonuses=[(6, 10)])
    table = build_target_table(variant)
    with pytest.raises(TargetTableMissing):
        load_target(variant, table.engine, tmp_path)
    meta = save_target(variant, table.flat, table.layout, tmp_path, seconds=1.0)
    assert meta["n_max"] == table.n_max and meta["dtype"] == "float64"
    flat, layout, *_ = load_target(variant, table.engine, tmp_path)
    assert flat.shape == (meta["size"],) and np.array_equal(layout.length, table.layout.length)
    assert np.isin(flat, stored(table.flat)).all()  # layers left out: tests/test_target_layers.py
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    npy, side = target_paths(variant, tmp_path)
    assert (tmp_path / f".{variant.name}.target.verified").exists()  # loads skip the hash until the file changes
    good = npy.read_bytes()
    npy.write_bytes(good[:-4] + bytes(b ^ 0x55 for b in good[-4:]))
    with pytest.raises(TargetTableError, match=r"damaged.*kniffel solve .* --target"):
        load_target(variant, table.engine, tmp_path)
    npy.write_bytes(good)
    sidecar = json.loads(side.read_text())
    side.write_text(json.dumps({**sidecar, "fingerprint": "0" * 16}))
    with pytest.raises(TargetTableError, match="other rules"):
        load_target(variant, table.engine, tmp_path)
    side.write_text(json.dumps({**sidecar, "format": sidecar["format"] - 1}))
    with pytest.raises(TargetTableError, match=r"older format; rebuild it with `kniffel solve \S+ --target`"):
        load_target(variant, table.engine, tmp_path)
    side.write_text(json.dumps({**sidecar, "lengths": sidecar["lengths"][:-1]}))
    with pytest.raises(TargetTableError, match="damaged"):
        load_target(variant, table.engine, tmp_path)
    side.write_text("{not json")
    with pytest.raises(TargetTableError, match=r"sidecar .* is not JSON .*; rebuild it with `kniffel solve"):
        load_target(variant, table.engine, tmp_path)
