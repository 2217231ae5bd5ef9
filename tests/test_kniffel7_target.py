"""Kniffel 7's target play from a card, on demand (issue 30, item 2), against the brute-force reference
tests/naive_kniffel7.py, which shares no code with the solver."""

import json

import naive_kniffel7 as naive
import numpy as np
import pytest
from click.testing import CliRunner

from solver.advice.cards import parse_card
from solver.advice.ordered import OrderedAdvisor
from solver.chances import ordered_chances, target_ordered
from solver.cli import cli
from solver.rules.presets import KNIFFEL7

FULL = dict(
    ones=3,
    twos=6,
    threes=9,
    fours=12,
    fives=15,
    sixes=18,
    sevens=28,
    four_of_a_kind=30,
    five_of_a_kind=0,
    double_triple=25,
    straight_five=30,
    straight_six=40,
    super_kniffel=0,
    chance=30,
)  # fmt: skip  (upper total 91: not at a threshold, where naive_kniffel7._start misses a bonus)


def card_without(free, **changed):
    filled = {k: v for k, v in {**FULL, **changed}.items() if k not in free}
    return filled, parse_card(KNIFFEL7, ",".join(f"{k}={v}" for k, v in filled.items()))


def computed(card, needs=None):
    """The probabilities from `card` for `needs` (default: every need it can reach), and its most."""
    engine = ordered_chances._engine(KNIFFEL7)
    most = target_ordered.plan(engine, card.state, np.arange(1, 2)).most[card.state]
    needs = np.arange(1, most + 1) if needs is None else np.asarray(needs)
    return target_ordered.compute(engine, target_ordered.plan(engine, card.state, needs)), most


def check_against_naive(free, needs, every=True, **changed):
    """The exact probability for each need; with `every`, all needs at once, none growing with the need."""
    filled, card = card_without(free, **changed)
    found, most = computed(card, None if every else needs)
    if every:
        column = [found.probability(card.state, n) for n in range(0, most + 2)]
        assert all(a >= b for a, b in zip(column, column[1:])), "P(>= T) must not grow with T"
    pmf = naive.final_pmf_max_ev(filled)
    for target in [card.points + n for n in needs]:
        want = naive.max_prob_final_at_least(filled, target)
        got = found.probability(card.state, target - card.points)
        assert got == pytest.approx(want, abs=1e-9), (free, target)
        by_mean = sum(p for score, p in pmf.items() if score >= target)
        assert got >= by_mean - 1e-12, (free, target)


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_one_box_chance_matches_naive():
    check_against_naive(["chance"], [5, 15, 25, 35, 45])


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_two_boxes_with_a_bonus_to_reach_match_naive():  # quick: two needs
    check_against_naive(["sevens", "super_kniffel"], [40, 100], every=False, sixes=12)


@pytest.mark.slow
def test_two_boxes_every_need_matches_naive():
    check_against_naive(["sevens", "super_kniffel"], [10, 40, 70, 100, 130], sixes=12)


@pytest.mark.slow
def test_three_boxes_match_naive():
    check_against_naive(["chance", "super_kniffel", "sevens"], [20, 60, 100, 140], sixes=12)


@pytest.mark.slow
def test_three_boxes_with_super_points_match_naive():
    check_against_naive(["fives", "four_of_a_kind", "chance"], [30, 60, 90, 120], super_kniffel=60)


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_a_straight_alone_agrees_with_max_expected_play():
    """One free box with one possible score: playing for the target is playing for the mean."""
    filled, card = card_without(["straight_six"])
    found, _ = computed(card)
    p = found.probability(card.state, 40)
    assert p == pytest.approx((naive.expected_final(filled) - card.points) / 40, abs=1e-9)
    pmf = naive.final_pmf_max_ev(filled)
    assert p == pytest.approx(pmf.get(card.points + 40, 0.0), abs=1e-9)
    assert found.probability(card.state, 41) == 0.0


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_chances_from_the_cli(tmp_path):
    _, card = card_without(["chance", "super_kniffel"])
    res = run(tmp_path, "chances", "kniffel7", "--card", card.format(), "--target", "300", "--json")
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    filled, _ = card_without(["chance", "super_kniffel"])
    assert got["probability"] == pytest.approx(naive.max_prob_final_at_least(filled, 300), abs=1e-9)
    by_mean = sum(p for score, p in naive.final_pmf_max_ev(filled).items() if score >= 300)
    assert got["probability_expected_play"] == pytest.approx(by_mean, abs=1e-9)


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_advise_target_ranks_by_the_exact_keep_probabilities(tmp_path):
    """The best keep's probability is at most the turn's, and the box options after roll 3 are the exact
    probabilities of the cards they lead to."""
    filled, card = card_without(["chance", "super_kniffel"])
    args = ["advise", "kniffel7", "--card", card.format(), "--target", "300", "--json", "--all"]
    res = run(tmp_path, *args, "--dice", "2,3,4,5,6,7,6")
    assert res.exit_code == 0, res.output
    advice = json.loads(res.output)
    assert advice["best"]["probability"] <= advice["probability"] + 1e-12
    assert advice["probability"] == pytest.approx(naive.max_prob_final_at_least(filled, 300), abs=1e-9)
    res = run(tmp_path, *args, "--dice", "2,3,4,5,6,7,6", "--roll", "3")
    boxes = json.loads(res.output)["options"]
    for o in boxes:
        after = {**filled, o["box"]: o["points"]}
        rest = [k for k in ("chance", "super_kniffel") if k not in after]
        want = naive.max_prob_final_at_least(after, 300) if rest else float(sum(after.values()) + 70 >= 300)
        assert o["probability"] == pytest.approx(want, abs=1e-9), o


@pytest.mark.parametrize(
    "args",
    [
        ["chances", "kniffel7", "--card", "ones=7", "--target", "200"],
        ["chances", "kniffel7", "--card", "chance=3", "--target", "200"],
        ["advise", "kniffel7", "--card", "ones=7", "--target", "200", "--dice", "2,3,4,5,6,7,6"],
        ["advise", "kniffel7", "--target", "200", "--dice", "1,3,4,5,6,7,6"],  # the first die has no 1
        ["chances", "kniffel7", "--card", ",".join(f"{k}={v}" for k, v in FULL.items()), "--target", "200"],
        ["chances", "kniffel7", "--target", "0"],
        ["chances", "kniffel7", "--target", "99999"],  # above every final score: was a simulated 0 %
        ["simulate", "kniffel7", "--target", "911", "-n", "5"],
        ["advise", "kniffel7", "--target", "5000", "--dice", "2,3,4,5,6,7,6"],
    ],
)
def test_impossible_requests_get_one_line_and_exit_2(tmp_path, args):
    res = run(tmp_path, *args)
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) == 1, res.output
    assert "Traceback" not in res.output


def run(tdir, *args):
    return CliRunner().invoke(cli, ["--tables", str(tdir), "--no-progress", "--lang", "en", *args])


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_web_chances_and_advise_target_equal_the_cli(tmp_path):
    pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (test extra)")
    from starlette.testclient import TestClient

    from solver.web.app import create_app

    _, card = card_without(["chance", "super_kniffel"])
    with TestClient(create_app(tmp_path, solve_missing=False)) as client:
        web = client.get("/api/chances", params={"variant": "kniffel7", "card": card.format(), "target": 300}).json()
        cli_answer = run(tmp_path, "chances", "kniffel7", "--card", card.format(), "--target", "300", "--json")
        assert web == json.loads(cli_answer.output)
        params = {"variant": "kniffel7", "card": card.format(), "target": 300, "dice": "2345676"}
        web = client.get("/api/advise", params=params).json()
        cli_answer = run(
            tmp_path, "advise", "kniffel7", "--card", card.format(), "--target", "300", "--dice", "2345676", "--json"
        )
        assert web == json.loads(cli_answer.output)


@pytest.mark.slow
def test_target_turns_reach_the_target_as_often_as_computed():
    """Games from a two-box card played by target_turn reach the target as often as the exact probability
    says (within four standard errors)."""
    from solver.chances import ordered_target_play as play
    from solver.chances.ordered_chances import targets_from

    _, card = card_without(["chance", "super_kniffel"])
    target = card.points + 40
    found = targets_from(KNIFFEL7, card, [40])
    advisor = OrderedAdvisor(KNIFFEL7, np.zeros((1, 1, 1)))  # target play reads no values
    rng = np.random.default_rng(5)
    games, reached = 400, 0
    for _ in range(games):
        c = card
        while not c.full:
            c = play.target_turn(advisor, found, c, target, rng)
        reached += c.points >= target
    p = found.probability(card.state, 40)
    assert abs(reached / games - p) < 4 * np.sqrt(p * (1 - p) / games)


@pytest.mark.slow
def test_simulate_target_from_the_cli(tmp_path):
    res = run(tmp_path, "simulate", "kniffel7", "--target", "330", "-n", "3", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["games"] == 3 and out["endgame_free"] == 3 and 0 <= out["p_reached"] <= 1


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_advise_opponent_with_a_full_card_is_the_chance_of_beating_its_points(tmp_path):
    filled, card = card_without(["chance", "super_kniffel"])
    opponent = ",".join(f"{k}={v}" for k, v in {**FULL, "chance": 33}.items())
    args = ["advise", "kniffel7", "--card", card.format(), "--opponent", opponent, "--dice", "2345676", "--json"]
    res = run(tmp_path, *args)
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    beat = parse_card(KNIFFEL7, opponent).points + 1
    assert out["win"] == pytest.approx(naive.max_prob_final_at_least(filled, beat), abs=1e-9)
    assert "opponent_simulated_games" not in out
    assert out["best"]["win"] >= max(o["win"] for o in out["options"]) - 1e-12


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_win_advice_at_a_table_of_kniffel7_players(tmp_path):
    """A reduced Kniffel 7 (3 boxes, 4 dice told apart), two players, every advice taken: the win advice
    against the leader, then for the target in the last turn, computed from each card."""
    from solver import dp
    from solver.advice.choose import make_advisor
    from solver.game.table_game import TableGame
    from solver.game.table_play import TablePlayLoop

    variant = KNIFFEL7.reduced(boxes=["sevens", "fours", "chance"], n_dice=4, bonuses=[(8, 35)], name="k7-mini")
    values, _ = dp.solve(variant)
    game = TableGame(variant, ["A", "B"], seed=3, roll_for_me=True)
    loop = TablePlayLoop(game, make_advisor(variant, values), tmp_path / "g.json", odds=False, target_table="on demand")
    said: list[str] = []
    loop.say = said.append  # type: ignore[method-assign]
    loop.ask = lambda prompt: ""  # type: ignore[method-assign]
    loop.run()
    assert game.finished
    assert any("To win against the leader" in line for line in said), said
    last = [line for line in said if line.startswith("  To win: ")][-1]
    scores = [c.points for c in game.cards()]
    assert last.endswith("100.00%") == (scores[1] > scores[0])


@pytest.mark.slow
def test_simulate_versus_from_the_cli(tmp_path):
    res = run(tmp_path, "simulate", "kniffel7", "--versus", "-n", "5", "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["pairs"] == 5 and out["wins"] + out["ties"] + out["losses"] == 5


@pytest.mark.slow  # the forward pass from the card, three times
def test_beyond_one_machine_the_answer_is_the_max_expected_chance_and_one_line(tmp_path, monkeypatch):
    """Out of reach (here: every estimate too long), chances gives P(>= T) under max-expected play (exact: the
    forward pass from this card is quick), and one line says what the best play for the target needs; advise
    gives the advice for the mean with that figure."""
    monkeypatch.setattr(ordered_chances, "LIMIT_SECONDS", -1.0)
    filled, card = card_without(["chance", "super_kniffel"])
    target = card.points + 40
    res = run(tmp_path, "chances", "kniffel7", "--card", card.format(), "--target", str(target), "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["probability"] is None and "expected_play_games" not in out
    exact = sum(p for score, p in naive.final_pmf_max_ev(filled).items() if score >= target)
    assert out["probability_expected_play"] == pytest.approx(exact, abs=1e-9)
    res = run(tmp_path, "chances", "kniffel7", "--card", card.format(), "--target", str(target))
    assert res.exit_code == 0 and res.output.count("needs the kniffel7 target table") == 1, res.output
    res = run(tmp_path, "advise", "kniffel7", "--card", card.format(), "--target", str(target), "--dice", "2345676")
    assert res.exit_code == 0 and "needs the kniffel7 target table" in res.output, res.output
    assert "expected" in res.output
