"""Simulation against the tables, and reviews of recorded games."""

import json
import math
import random

import pytest
from click.testing import CliRunner
from helpers import BruteForce, quick_only, sub_multisets

from solver import dp
from solver.advice.advisor import Advisor
from solver.chances.simulation import simulate, summary, tally
from solver.cli import cli
from solver.game.record import Game
from solver.game.review import decisions
from solver.rules.presets import PRESETS

NAMES = ["kniffel", "kniffel-meister", "yahtzee", "yahtzee-free-joker", "yatzy", "yatzy6", "kniffel-keep-one"]
QUICK = {"kniffel", "yahtzee", "generala"}  # the others' whole tables (solved for these tests alone): slow tests
REDUCED = {  # their rules, quick: a few boxes on all their dice (solved in a moment)
    "kniffel-meister": (["sixes", "four_of_a_kind", "kniffel", "full_house", "chance"], [(12, 9)]),
    "yahtzee-free-joker": (["sixes", "yahtzee", "full_house", "large_straight", "chance"], [(12, 5)]),
    "yatzy": (["sixes", "two_pairs", "four_of_a_kind", "small_straight", "chance"], [(12, 50)]),
    "yatzy6": (["fives", "three_pairs", "two_triples", "chance"], [(15, 50)]),
    "kniffel-keep-one": (["ones", "full_house", "small_straight", "kniffel", "chance"], [(2, 35)]),
}


@pytest.fixture(scope="module")
def tables(solved):
    """tables[name]: the table solved once a run (conftest.py), taken when first asked."""

    class Tables(dict):
        def __missing__(self, name):
            self[name] = solved(name)
            return self[name]

    return Tables()


@pytest.fixture(scope="module")
def reduced():
    """reduced(name) -> (variant, its table): the preset's rules on REDUCED's boxes, solved once a module."""
    made = {}

    def get(name):
        if name not in made:
            boxes, bonuses = REDUCED[name]
            v = PRESETS[name].reduced(boxes=boxes, bonuses=bonuses)
            made[name] = v, dp.solve(v)[0]
        return made[name]

    return get


@pytest.fixture(scope="module")
def kniffel_dir(tables_of):
    """A tables folder with kniffel, for the review command (an empty folder would make it solve kniffel)."""
    return tables_of("kniffel")


@pytest.mark.parametrize("name", quick_only(NAMES, QUICK))
def test_simulated_mean_matches_table(name, tables):
    """5,000 games: the mean's standard error is 0.6-0.8 points, so a policy 3 points off the table fails."""
    v = PRESETS[name]
    s = summary(tally(v, tables[name], 5_000, seed=11))
    assert abs(s["mean"] - tables[name][0, 0, 0]) < 3 * s["stderr"], s["mean"]
    assert s["games"] == 5_000 and 30 < s["std"] < 70
    assert sum(b["mean"] for b in s["boxes"].values()) <= s["mean"]


@pytest.mark.parametrize("name", sorted(REDUCED))
def test_simulated_mean_matches_table_on_the_rules_of_each_preset(name, reduced):
    """The presets whose whole tables are slow tests: their rules (Meisterschaftsregel, free joker, Yatzy's
    boxes, six dice, keep one) on a few boxes, 5,000 games against the table, as above."""
    v, values = reduced(name)
    s = summary(tally(v, values, 5_000, seed=11))
    assert abs(s["mean"] - values[0, 0, 0]) < 3 * s["stderr"], (s["mean"], values[0, 0, 0])
    assert s["games"] == 5_000 and 0 < s["std"] < 70
    assert sum(b["mean"] for b in s["boxes"].values()) <= s["mean"]


def test_simulation_is_reproducible_and_batch_independent(tables, monkeypatch):
    v = PRESETS["kniffel"]
    a = simulate(v, tables["kniffel"], 3000, seed=5)
    import solver.chances.simulation as sim

    monkeypatch.setattr(sim, "BATCH", 700)
    monkeypatch.setattr(sim, "CHUNK", 64)
    b = simulate(v, tables["kniffel"], 3000, seed=5)
    assert (a.scores == b.scores).all() and (a.boxes == b.boxes).all()
    c = simulate(v, tables["kniffel"], 3000, seed=6)
    assert (a.scores != c.scores).any()


def test_simulate_cli_json(kniffel_dir):
    res = CliRunner().invoke(
        cli, ["--tables", str(kniffel_dir), "--no-progress", "simulate", "kniffel", "-n", "500", "--json"]
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    for key in ("games", "mean", "std", "median", "percentiles", "boxes", "p_at_least", "upper_bonus_rate"):
        assert key in out
    assert out["games"] == 500 and set(out["percentiles"]) == {"1", "5", "25", "75", "95", "99"}


def play(variant, advisor, seed, mistakes):
    """A game rolled from `seed`, following the advice except at the decisions listed in `mistakes`
    (decision number -> option rank to take instead). Returns the game and the expected losses."""
    game = Game(variant, seed=seed, roll_for_me=True)
    expected = {}
    n = 0
    while not game.finished:
        p = game.point()
        if p.roll == 0 or "keep" in game.events[-1]:
            game.add_roll(game.next_random_roll())
            continue
        action, options = advisor.advise(p.card, p.dice, p.roll)
        choice = options[min(mistakes.get(n, 0), len(options) - 1)]
        if n in mistakes:
            expected[n] = (p, choice)
        if choice.kind == "keep" and len(choice.keep) == variant.n_dice:  # stop rolling: the box comes next
            n += 1
            choice = advisor.box_options(p.card, p.dice, p.roll)[0]  # after roll 1: servida entries
        if choice.kind == "keep":
            game.add_keep(choice.keep, choice.keep_dice if variant.die_names else None)
        else:
            game.add_box(choice.box, choice.points, choice.extra)
        n += 1
    return game, expected


def test_review_of_a_game_played_by_the_advice_is_lossless(tables, kniffel_dir, tmp_path):
    v = PRESETS["kniffel"]
    adv = Advisor(v, tables["kniffel"])
    game, _ = play(v, adv, seed=3, mistakes={})
    steps = decisions(game, adv)
    assert len(steps) >= 13 and sum(d.loss for d in steps) == 0
    game.save(tmp_path / "game.json")  # each move the advice's own: 'best', not 'tie' (no other move was as good)
    args = ["--tables", str(kniffel_dir), "--lang", "en", "review", str(tmp_path / "game.json")]
    rows = CliRunner().invoke(cli, args).stdout.splitlines()[2 : 2 + len(steps)]
    assert [row.split()[-1] for row in rows] == ["best"] * len(steps)


def test_review_reports_exactly_the_losses_of_mistakes(tables, kniffel_dir, tmp_path):
    v = PRESETS["kniffel"]
    values = tables["kniffel"]
    adv = Advisor(v, values)
    game, made = play(v, adv, seed=8, mistakes={33: 1, 34: 2, 35: 3, 36: 2})
    # recompute each mistake's loss from the table, independently of the advisor
    losses = {}
    for n, (p, choice) in made.items():
        brute = BruteForce("kniffel", values, p.card)
        if choice.kind == "box":
            entries = brute.entries(p.dice)
            chosen = entries[(v.boxes[choice.box].key, choice.points)]
            losses[n] = max(entries.values()) - chosen
        else:
            keep_value = brute.keep_value_after_second if p.roll == 2 else brute.keep_value_after_first
            options = {k: keep_value(k) for k in _sub_keeps(p.dice) if len(k) < v.n_dice}
            options[tuple(sorted(p.dice))] = brute.final_value(tuple(sorted(p.dice)))
            losses[n] = max(options.values()) - options[tuple(sorted(choice.keep))]
    costly = sorted(x for x in losses.values() if x > 1e-9)  # a "mistake" may tie with the best
    assert len(costly) >= 2
    steps = decisions(game, adv)
    reviewed = sorted(d.loss for d in steps if d.loss > 0)
    assert reviewed == pytest.approx(costly, abs=1e-9)
    path = tmp_path / "game.json"
    game.save(path)
    res = CliRunner().invoke(cli, ["--tables", str(kniffel_dir), "--no-progress", "review", str(path), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert math.isclose(out["total_loss"], sum(losses.values()), abs_tol=1e-6)
    assert out["finished"] and out["score"] == game.point().card.points
    assert len(out["costliest"]) == min(3, len(costly))


def _sub_keeps(dice):
    return list(sub_multisets(dice))


@pytest.mark.parametrize(
    "content,fragment",
    [
        ("not json", "not JSON"),
        ('{"format": "other"}', "not a kniffel game record"),
        ('{"format": "kniffel-game", "version": 1, "variant": "poker"}', "unknown variant"),
        (
            '{"format": "kniffel-game", "version": 1, "variant": "kniffel", "fingerprint": "5005ebcd5eff9519", '
            '"events": [{"roll": [1, 2, 3, 4, 9]}]}',
            "impossible dice",
        ),
        (  # a box entered after a keep, the kept dice not rolled: the review valued a keep never rolled
            '{"format": "kniffel-game", "version": 1, "variant": "kniffel", "fingerprint": "5005ebcd5eff9519", '
            '"events": [{"roll": [5, 5, 6, 1, 3]}, {"keep": [3, 5, 5]}, {"box": "ones", "points": 1}]}',
            "event 3: roll the dice first",
        ),
    ],
)
def test_damaged_or_foreign_game_files(tmp_path, content, fragment):
    path = tmp_path / "g.json"
    path.write_text(content)
    res = CliRunner().invoke(cli, ["--tables", str(tmp_path), "--lang", "en", "review", str(path)])
    assert res.exit_code == 2 and fragment in res.stderr and res.stderr.count("\n") == 1


def test_games_rolled_for_me_without_a_seed_get_their_own_dice_and_keep_them_on_resume(tmp_path):
    """Without --seed every game used to roll from the text "None": the same dice in every game."""
    games = [Game(PRESETS["kniffel"], roll_for_me=True) for _ in range(4)]
    first_rolls = set()
    for game in games:
        rolls = []
        for roll in range(3):
            dice = game.next_random_roll()
            game.add_roll(dice)
            rolls.append(dice)
            if roll < 2:
                game.add_keep(())
        first_rolls.add(tuple(rolls))
        assert game.seed is not None
    assert len(first_rolls) == 4  # four games alike by chance: about 1 in 10^30
    path = tmp_path / "g.json"
    games[0].save(path)
    resumed = Game.load(path)
    assert resumed.seed == games[0].seed
    assert resumed.next_random_roll() == games[0].next_random_roll()


def _decisions_from_every_option(game, advisor):
    """The review as it was made before Advisor.decision: every option of each point built and ranked, the
    decision taken found among them (the slow, obvious reference)."""
    out = []
    replay = Game(game.variant, seed=game.seed, roll_for_me=game.roll_for_me)
    turn = 1
    for ev in game.events:
        p = replay.point()
        if "keep" in ev:
            _, options = advisor.advise(p.card, p.dice, p.roll)
            chosen = [o for o in options if sorted(o.keep) == sorted(ev["keep"])]
            out.append((turn, p.roll, chosen[0], options[0]))
        elif "box" in ev:
            options = advisor.box_options(p.card, p.dice, p.roll)
            box = game.variant.box_index(ev["box"])
            chosen = [o for o in options if o.box == box and o.points == ev["points"]]
            if p.roll < game.variant.rolls:  # a box before the last roll: the stop comes first
                _, keeps = advisor.advise(p.card, p.dice, p.roll)
                stop = [o for o in keeps if len(o.keep) == game.variant.n_dice]
                out.append((turn, p.roll, stop[0], keeps[0]))
            out.append((turn, p.roll, chosen[0], options[0]))
            turn += 1
        replay.events.append(ev)
    return out


@pytest.mark.parametrize(
    "name, small",
    [
        *quick_only([(name, False) for name in ("kniffel", "yahtzee", "yatzy", "generala", "kniffel-keep-one")], QUICK),
        *((name, True) for name in ("yatzy", "kniffel-keep-one")),
    ],
)
def test_review_values_each_decision_as_every_option_does(name, small, solved, reduced):
    """decisions (Advisor.decision: one kernel call, two Options made) gives the Options, losses and tie-rule
    bests that ranking every option gives, on games full of mistakes (stops before the last roll included;
    Generala's servida after roll 1; a joker in yahtzee). small: the preset's rules on REDUCED's boxes."""
    v, values = reduced(name) if small else (PRESETS[name], solved(name))
    adv = Advisor(v, values)
    for seed in range(3):
        rng = random.Random(seed)
        game, _ = play(v, adv, seed=seed, mistakes={n: rng.choice([0, 1, 2, 5]) for n in range(80)})
        got = [(d.turn, d.roll, d.chosen, d.best) for d in decisions(game, adv)]
        assert got == _decisions_from_every_option(game, adv)
        assert sum(chosen.loss > 0 for _, _, chosen, _ in got) >= 5


@pytest.mark.parametrize("lang", ["de", "en", "es", "fr"])
def test_review_speaks_each_language_with_its_numbers(tables, kniffel_dir, tmp_path, lang):
    """The review of a game with mistakes in each language: its title, columns and total from that language's
    catalogue, every loss written with the language's decimal mark (245,11 in de/es/fr, 245.11 in en)."""
    from solver.i18n.texts import number, speaking, t, variant_title

    v = PRESETS["kniffel"]
    adv = Advisor(v, tables["kniffel"])
    game, _ = play(v, adv, seed=8, mistakes={33: 1, 34: 2})
    steps = decisions(game, adv)
    path = tmp_path / "game.json"
    game.save(path)
    res = CliRunner().invoke(cli, ["--tables", str(kniffel_dir), "--no-progress", "--lang", lang, "review", str(path)])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    total = sum(d.loss for d in steps)
    with speaking(lang):
        assert lines[0] == t("review_title", path=path, title=variant_title(v))
        assert lines[1].split() == t("review_columns").split(",")
        loss = number(-total, ".2f")
        assert loss == f"{-total:.2f}".replace(".", "," if lang != "en" else ".")
        assert any(
            line.startswith(t("review_total", loss=loss, count=len(steps), mean="").split(loss)[0] + loss)
            for line in lines
        ), res.stdout
