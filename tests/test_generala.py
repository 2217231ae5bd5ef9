"""Generala (issue 17): the servida (first-roll) points, the wrap-around straight and the Doble Generala.

Scores are checked against the examples of the rules sources (docs/RULES.md); values against the naive
solver (tests/naive.py, which adds the servida from the rules text) on reduced cards and end-game cards."""

import numpy as np
import pytest
from naive import NaiveSolver
from test_dp_vs_naive import fast_value

from solver import dp
from solver.rules.presets import GENERALA
from solver.rules.scoring import box_score, first_roll_score

TOL = 1e-9


def generala(box, dice, first_roll=False):
    b = GENERALA.boxes[GENERALA.box_index(box)]
    points = box_score(b, dice)
    return first_roll_score(b, points) if first_roll else points


def test_source_examples():
    # upper boxes: "tres 6 valen 18 puntos para el seis; dos 4 valen 8 puntos para el cuatro"
    assert generala("sixes", (6, 6, 6, 1, 2)) == 18 and generala("fours", (4, 4, 1, 2, 3)) == 8
    # Póker 40, servido 45; Full 30, servido 35 (the Reglamento de Generala); Escalera 20, servida 25
    assert generala("poker", (3, 3, 3, 3, 6)) == 40 and generala("poker", (3, 3, 3, 3, 6), True) == 45
    assert generala("full", (2, 2, 5, 5, 5)) == 30 and generala("full", (2, 2, 5, 5, 5), True) == 35
    assert generala("escalera", (2, 3, 4, 5, 6)) == 20 and generala("escalera", (6, 5, 4, 3, 2), True) == 25
    # the ace continues the six ("se lo puede usar como 2 o como 6"): 3-4-5-6-1; no other wrap
    assert generala("escalera", (1, 2, 3, 4, 5)) == generala("escalera", (3, 4, 5, 6, 1)) == 20
    assert generala("escalera", (4, 5, 6, 1, 2)) == 0 and generala("escalera", (1, 2, 3, 4, 6)) == 0
    # five equal dice: a Póker and a Generala (50, also on the first roll), no Full; Doble Generala
    # only as a second Generala (see the joker test)
    assert generala("poker", (4, 4, 4, 4, 4)) == 40 and generala("full", (4, 4, 4, 4, 4)) == 0
    assert generala("generala", (4, 4, 4, 4, 4)) == generala("generala", (4, 4, 4, 4, 4), True) == 50
    assert generala("doble_generala", (4, 4, 4, 4, 4)) == 0
    # a scratch stays 0 after the first roll too
    assert generala("full", (1, 2, 3, 4, 6), True) == 0


def test_doble_generala_needs_a_generala():
    """Five equal dice score 100 in Doble Generala only while the Generala box holds 50."""
    engine = dp.make_engine(GENERALA)
    rolls = [tuple(sorted(r)) for r in __import__("itertools").combinations_with_replacement(GENERALA.faces, 5)]
    r = rolls.index((2, 2, 2, 2, 2))
    doble, gen = GENERALA.box_index("doble_generala"), GENERALA.box_index("generala")
    assert dict(dp.roll_entries(engine.rules, 1 << gen, 1, r))[doble] == 100
    assert dict(dp.roll_entries(engine.rules, 1 << gen, 0, r))[doble] == 0
    assert dict(dp.roll_entries(engine.rules, 0, 0, r))[doble] == 0


@pytest.mark.parametrize(
    "text,ok",
    [
        ("DG=100", False),  # the Generala box free: the table would count 100 points no game can have
        ("G=0,DG=100", False),
        ("1=5,2=10,3=15,4=20,5=25,6=30,E=20,F=30,P=45,DG=100", False),
        ("G=50,DG=100", True),
        ("DG=0", True),  # scratched: any time
        ("G=0,DG=0", True),
    ],
)
def test_a_card_with_a_doble_generala_needs_the_generala(text, ok):
    """A card is refused in one line naming both boxes, by the card syntax and by the API's Card alike."""
    from solver.advice.cards import Card, check_entries, parse_card
    from solver.rules.variant import RuleError

    if ok:
        assert parse_card(GENERALA, text).format()
        return
    with pytest.raises(RuleError, match="Doble Generala holds 100.*Generala box holds points") as err:
        parse_card(GENERALA, text)
    assert "\n" not in str(err.value)
    card = Card(GENERALA, {GENERALA.box_index("doble_generala"): 100})
    with pytest.raises(RuleError, match="Doble Generala holds 100"):
        check_entries(card)


REDUCED = [
    (["ones", "escalera", "full", "poker"], 5),
    (["sixes", "generala", "doble_generala", "poker"], 4),
    (["twos", "full", "generala", "doble_generala"], 5),
    (["escalera", "poker", "generala"], 5),
]


@pytest.mark.parametrize("boxes,n_dice", REDUCED)
def test_reduced_generala_against_naive(boxes, n_dice):
    variant = GENERALA.reduced(boxes=boxes, n_dice=n_dice)
    values, _ = dp.solve(variant)
    naive = NaiveSolver("generala", boxes=boxes, n_dice=n_dice)
    assert abs(fast_value(variant, values, {}) - naive.start_value()) < TOL
    if "generala" in boxes:
        held = {"generala": 50}
        assert abs(fast_value(variant, values, held) - naive.state_value(held)) < TOL


def test_servida_is_worth_something():
    """Without the first-roll points the same boxes are worth less (the kernel term acts)."""
    import dataclasses

    boxes = ["escalera", "full", "poker"]
    variant = GENERALA.reduced(boxes=boxes)
    plain = dataclasses.replace(
        variant, boxes=tuple(dataclasses.replace(b, first_roll_points=0) for b in variant.boxes), name="plain"
    )
    assert dp.solve(variant)[0][0, 0, 0] > dp.solve(plain)[0][0, 0, 0] + 0.1


ENDGAME = [
    {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "escalera": 25, "full": 30,
     "generala": 50},
    {"ones": 2, "twos": 4, "threes": 0, "fours": 12, "fives": 20, "sixes": 24, "poker": 45,
     "generala": 0, "doble_generala": 0},
    {"ones": 3, "twos": 6, "threes": 9, "fours": 16, "fives": 20, "full": 35, "poker": 0,
     "generala": 50},
]  # fmt: skip


@pytest.mark.parametrize("card", ENDGAME)
def test_endgame_cards_against_naive(card, solved):
    values = solved("generala")
    naive = NaiveSolver("generala")
    assert abs(fast_value(GENERALA, values, card) - naive.state_value(card)) < TOL


def test_start_value(solved):
    """No published optimum was found (docs/RULES.md); this solver's figure, pinned."""
    assert abs(solved("generala")[0, 0, 0] - 162.4694684) < 1e-6


def test_advice_stops_with_the_servida(solved):
    """An Escalera on the first roll with three boxes left: stop and score 25 (20 + 5 servida); the
    stop's value is the best entry with the servida points, and a game record takes that entry."""
    from solver.advice.advisor import Advisor
    from solver.advice.cards import parse_card
    from solver.game.record import Game

    values = solved("generala")
    advisor = Advisor(GENERALA, values)
    card = parse_card(GENERALA, "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,full=30,generala=50")
    action, options = advisor.advise(card, (2, 3, 4, 5, 6), 1)
    assert action == "keep" and options[0].keep == (2, 3, 4, 5, 6)
    boxes = advisor.box_options(card, (2, 3, 4, 5, 6), 1)
    assert (GENERALA.boxes[boxes[0].box].key, boxes[0].points) == ("escalera", 25)
    assert abs(boxes[0].expected_final_score - options[0].expected_final_score) < TOL
    assert advisor.box_options(card, (2, 3, 4, 5, 6), 3)[0].points == 20  # after roll 3: no servida
    game = Game(GENERALA)
    game.add_roll((1, 3, 4, 5, 6))
    game.add_box(GENERALA.box_index("escalera"), 25, 0)
    game.add_roll((3, 3, 3, 2, 2))
    game.add_keep((3, 3, 3))
    game.add_roll((3, 3, 3, 2, 2))
    with pytest.raises(Exception, match="30"):  # after roll 2 the Full is 30, not 35
        game.add_box(GENERALA.box_index("full"), 35, 0)
    game.add_box(GENERALA.box_index("full"), 30, 0)
    again = Game.from_json(game.to_json())
    assert again.point().card.points == 55


def test_simulated_games_score_like_the_table(solved):
    """Simulation plays the table's policy, servida stops included: its mean lies within 4 standard
    errors of the start value, and every box holds points the rules allow."""
    from solver.chances.simulation import simulate, summary, tally
    from solver.rules.scoring import possible_points

    values = solved("generala")
    games = simulate(GENERALA, values, 2000, seed=7)
    counted = tally(GENERALA, values, 2000, seed=7)  # `kniffel simulate`'s figures: no upper bonus to count
    figures = summary(counted)
    assert counted.bonus_reached.shape == (0,) and counted.games == 2000
    assert abs(figures["mean"] - values[0, 0, 0]) < 4 * figures["std"] / 2000**0.5
    scores = games.scores
    assert abs(scores.mean() - values[0, 0, 0]) < 4 * scores.std() / len(scores) ** 0.5
    for b in range(len(GENERALA.boxes)):
        assert set(games.boxes[:, b].tolist()) <= set(possible_points(GENERALA, b))
    assert 25 in games.boxes[:, GENERALA.box_index("escalera")]  # servida stops happen


@pytest.mark.parametrize("boxes,n_dice", REDUCED[::3])
def test_reduced_distribution_against_naive(boxes, n_dice):
    """The forward pass stops after roll 1 with the servida like the naive policy (tests/naive.py)."""
    from test_distribution import assert_same_dist, to_come

    variant = GENERALA.reduced(boxes=boxes, n_dice=n_dice)
    values, _ = dp.solve(variant)
    naive = NaiveSolver("generala", boxes=boxes, n_dice=n_dice)
    assert_same_dist(to_come(variant, values, {}), naive.distribution({}), boxes)


def test_distribution_mean_and_spread(solved):
    """The full game: the distribution's mean is the table's value, its std the spread's (second moments)."""
    from solver.advice.advisor import Advisor
    from solver.api import Table

    table = Table(GENERALA, solved("generala"), {}, Advisor(GENERALA, solved("generala")))
    dist = table.distribution()
    assert abs(dist.mean - solved("generala")[0, 0, 0]) < 1e-7
    card = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,full=30"
    advice = table.advise(card, "23456", 1, spread=True)
    stop = advice.options[0]
    assert stop.keep == (2, 3, 4, 5, 6) and advice.then.points == 25
    # the spread of stopping = the std of the final score from the card after the servida entry
    after = table.distribution(card + ",escalera=25")
    assert abs(stop.std - after.std) < 1e-6


TARGET_REDUCED = [(["ones", "escalera", "full"], 5), (["twos", "poker", "generala", "doble_generala"], 4)]


@pytest.mark.parametrize("boxes,n_dice", TARGET_REDUCED)
def test_reduced_targets_against_naive(boxes, n_dice):
    """Target tables with the servida stop after roll 1 against the naive recursion (servida from the rules
    text): every need from the empty card and from cards with one box filled; P never increases with the
    need; the points made certain are where P leaves 1; target play never worse than max-expected play."""
    import itertools
    import random

    from test_target import card_of, check_card

    from solver.advice.cards import Card, box_values
    from solver.chances.targets import build_target_table, target_probability
    from solver.dp.target_layout import sure_minimum

    variant = GENERALA.reduced(boxes=boxes, n_dice=n_dice)
    table = build_target_table(variant)  # N = the highest score: every need
    naive = NaiveSolver("generala", boxes=boxes, n_dice=n_dice)
    check_card(variant, table, naive, {}, range(1, table.n_max + 1))
    rng = random.Random(17)
    cards = [{}] + [
        {key: rng.choice(box_values(variant, variant.box_index(key))) for key in keys}
        for k in (1, 2)
        for keys in itertools.combinations(boxes, k)
    ]
    sure = sure_minimum(table.engine)
    for filled in cards:
        check_card(variant, table, naive, filled, range(1, table.n_max + 1, 2))
        card = card_of(variant, filled)
        p = [1.0] + [target_probability(variant, table, card, card.points + n) for n in range(1, table.n_max + 1)]
        assert all(b <= a + 1e-15 for a, b in zip(p, p[1:]))  # p[n]: P(at least n more points)
        s = int(sure[card.state])
        assert s == sure[card.state] and p[s] > 1 - 1e-12 and (s + 1 >= len(p) or p[s + 1] < 1 - 1e-15)
    dist = naive.distribution({})
    for t in range(1, table.n_max + 1):
        assert target_probability(variant, table, Card(variant), t) >= sum(q for x, q in dist.items() if x >= t) - 1e-12


def test_target_options_stop_with_the_servida():
    """advise --target after roll 1: the stop (keep all dice) and the box options count the servida, as
    the naive reference's option probabilities do; target_keep_vectors (win.py) agrees with them."""
    from test_target import card_of

    from solver.advice.advisor import Advisor
    from solver.chances.targets import build_target_table, target_options
    from solver.dp.target_vectors import target_keep_vectors

    boxes, n_dice = TARGET_REDUCED[0]
    variant = GENERALA.reduced(boxes=boxes, n_dice=n_dice)
    table = build_target_table(variant)
    naive = NaiveSolver("generala", boxes=boxes, n_dice=n_dice)
    advisor = Advisor(variant, dp.solve(variant)[0])
    filled = {"ones": 2}
    card = card_of(variant, filled)
    for dice in [(2, 2, 3, 3, 3), (2, 3, 4, 5, 6), (1, 1, 1, 5, 5), (1, 1, 2, 4, 6)]:
        for need in (3, 20, 25, 30, 35, 50, 55, 60):
            target = card.points + need
            for box_now in (False, True):
                action, options = target_options(variant, table, advisor, card, dice, 1, target, box_now)
                for o in options:
                    option = variant.boxes[o.option.box].key if action == "box" else tuple(o.option.keep)
                    want = naive.target_option_probability(filled, dice, 1, option, need)
                    assert abs(o.probability - want) < TOL, (dice, need, option, o.probability, want)
    # hand-worked: a straight on roll 1 with 25 more points needed: stopping scores the Escalera servida, 25
    action, options = target_options(variant, table, advisor, card, (2, 3, 4, 5, 6), 1, card.points + 25)
    assert options[0].option.keep == (2, 3, 4, 5, 6) and options[0].probability == 1.0
    mask, upper, joker_scored = card.state
    after_second, after_first = target_keep_vectors(table.engine, table.layout, table.flat, mask, upper, joker_scored)
    from solver.chances.targets import target_keep_probabilities

    for n in (1, 20, 30, 50, 55):
        two, one = target_keep_probabilities(table, card, n)
        assert np.allclose(after_first[:, n - 1], one, atol=1e-15) and np.allclose(
            after_second[:, n - 1], two, atol=1e-15
        )


def test_full_target_table_on_endgame_cards():
    """The real Generala target table (every need up to 360, about 3 s) against the naive recursion on
    end-game cards, every need the card can still reach."""
    from test_target import card_of, check_card

    from solver.chances.targets import build_target_table

    table = build_target_table(GENERALA)
    assert table.n_max == 360
    naive = NaiveSolver("generala")
    last_two = {k: v for k, v in ENDGAME[0].items() if k not in ("escalera", "sixes")}
    for filled in ENDGAME + [last_two | {"escalera": 0}, last_two | {"sixes": 24}]:
        card = card_of(GENERALA, filled)
        most = int(table.layout.length[card.mask, card.joker_scored])
        check_card(GENERALA, table, naive, filled, range(1, most + 3))


def test_chances_and_advise_target_cli(tmp_path):
    """`kniffel chances generala --target T` and `advise generala ... --target T` (roll 1: the stop counts
    the servida) through the CLI, the target table built on the way."""
    import json

    from test_target import cli_run

    res = cli_run(tmp_path, "solve", "generala", "--target", "--json")
    assert res.exit_code == 0, res.output
    from solver.advice.cards import Card
    from solver.chances.distribution import final_pmf
    from solver.store.expected_play_cache import cached_rest, values_digest

    values = np.load(tmp_path / "generala.npy")  # the build cached the opponent's pmf from the empty card
    rest = cached_rest(GENERALA, tmp_path, values_digest(values), Card(GENERALA).state)
    assert rest is not None and np.array_equal(rest, final_pmf(GENERALA, values, Card(GENERALA)))
    res = cli_run(tmp_path, "chances", "generala", "--target", "200", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert 0.1 < out["probability"] < 0.3 and out["probability"] >= out["probability_expected_play"] - 1e-12
    card = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,full=30,poker=40,generala=50"
    res = cli_run(tmp_path, "advise", "generala", "--card", card, "--dice", "23456", "--target", "208", "--json")
    assert res.exit_code == 0, res.output
    adv = json.loads(res.stdout)  # 183 points: 25 more only by the Escalera servida now
    assert adv["best"]["keep"] == [2, 3, 4, 5, 6] and adv["best"]["probability"] == 1.0
    assert adv["then"]["points"] == 25
    res = cli_run(tmp_path, "advise", "generala", "--card", card, "--dice", "23456", "--opponent", "", "--json")
    assert res.exit_code == 0, res.output
    adv = json.loads(res.stdout)
    assert adv["best"]["keep"] == [2, 3, 4, 5, 6] and adv["then"]["points"] == 25


def test_play_stops_after_roll_1_with_the_servida(tmp_path):
    """`kniffel play generala` as a player types it: stop after roll 1 with a straight, score 25."""
    import json

    from click.testing import CliRunner
    from helpers import spawn

    from solver.cli import cli

    pexpect = pytest.importorskip("pexpect")
    res = CliRunner().invoke(cli, ["--tables", str(tmp_path), "--no-progress", "solve", "generala"])
    assert res.exit_code == 0, res.output
    child = spawn(tmp_path, tmp_path, "generala", "--lang", "en")
    child.expect("Roll 1, all 5 dice:")
    child.sendline("3 4 5 6 1")
    child.expect("Keep which dice")
    child.sendline("stop")
    child.expect(r"Advice: score Escalera for 25")
    child.expect("Which box")
    child.sendline("escalera")
    child.expect(r"-> score Escalera for 25")
    child.sendline("q")
    child.expect(pexpect.EOF)
    events = json.loads((tmp_path / "g.json").read_text())["events"]
    assert events[-1] == {"box": "escalera", "points": 25, "extra": 0}
