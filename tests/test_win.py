"""Playing to win (issue 13): chances under max-expected play, the opponent valuation, simulate --versus,
checked black-box against tests/naive.py (distribution, target_option_probability)."""

import numpy as np
import pytest
from click.testing import CliRunner
from naive import NaiveSolver

from solver import dp
from solver.advice.advisor import Advisor
from solver.advice.cards import Card, box_values
from solver.chances import win
from solver.chances.targets import build_target_table
from solver.cli import cli
from solver.rules.presets import PRESETS

TOL = 1e-9

CASES = [  # reduced variants: (preset, boxes, dice, bonuses)
    ("kniffel", ["ones", "sixes", "kniffel", "chance"], 2, [(6, 10)]),
    ("yatzy", ["ones", "one_pair", "two_pairs", "yatzy"], 3, [(2, 50)]),
]


def card_of(variant, filled: dict) -> Card:
    return Card(variant, {variant.box_index(k): p for k, p in filled.items()})


def setup(name, boxes, n_dice, bonuses):
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    values = dp.solve(variant)[0]
    naive = NaiveSolver(name, boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    return variant, values, naive


def naive_final_pmf(naive, card, filled) -> np.ndarray:
    rest = naive.distribution(filled)
    pmf = np.zeros(card.points + max(rest) + 1)
    for pts, p in rest.items():
        pmf[card.points + pts] += p
    return pmf


@pytest.mark.parametrize("name,boxes,n_dice,bonuses", CASES)
@pytest.mark.parametrize("step", [7, pytest.param(1, marks=pytest.mark.slow)])  # a forward pass a target
def test_probability_expected_play_is_the_distributions_tail(name, boxes, n_dice, bonuses, step):
    """Every step-th target, and the last two (the highest score and one above it)."""
    variant, values, naive = setup(name, boxes, n_dice, bonuses)
    top = box_values(variant, len(boxes) - 1)[-1]
    for filled in ({}, {boxes[0]: 0}, {boxes[-1]: top}, {boxes[0]: 0, boxes[-1]: top}):
        card = card_of(variant, filled)
        pmf = naive_final_pmf(naive, card, filled)
        for target in sorted({*range(1, pmf.shape[0] + 2, step), pmf.shape[0], pmf.shape[0] + 1}):
            got = win.probability_expected_play(variant, values, card, target)
            assert abs(got - pmf[target:].sum()) < TOL, (filled, target)


@pytest.mark.parametrize("name,boxes,n_dice,bonuses", CASES)
def test_opponent_valuation_is_the_brute_force_sum(name, boxes, n_dice, bonuses):
    variant, values, naive = setup(name, boxes, n_dice, bonuses)
    table = build_target_table(variant)  # N = the highest score: every need
    advisor = Advisor(variant, values)
    mine = {boxes[0]: 0}
    theirs_cases = [{boxes[0]: 0, boxes[-1]: 5}, {b: 0 for b in boxes}]  # mid-game, and a full card
    rng = np.random.default_rng(1)
    card = card_of(variant, mine)
    for theirs in theirs_cases:
        opp = card_of(variant, theirs)
        opp_pmf = naive_final_pmf(naive, opp, theirs) if not opp.full else np.eye(opp.points + 1)[opp.points]
        assert np.allclose(win.opponent_pmf(variant, values, opp)[: opp_pmf.shape[0]], opp_pmf, atol=TOL)
        for roll in (1, 2, 3):
            dice = tuple(sorted(int(x) for x in rng.choice(variant.faces, variant.n_dice)))
            _, options = win.opponent_options(variant, table, advisor, card, dice, roll, opp_pmf)
            for o in options:
                option = variant.boxes[o.option.box].key if o.option.kind == "box" else o.option.keep
                want = sum(
                    p * naive.target_option_probability(mine, dice, roll, option, i + 1 - card.points)
                    for i, p in enumerate(opp_pmf)
                    if p > 0
                )
                assert abs(o.win - want) < 1e-6, (theirs, dice, roll, option, o.win, want)  # float32 table
            wins = [o.win for o in options]
            assert wins == sorted(wins, reverse=True) or max(wins) - min(wins) < 1e-6


def test_versus_reports_a_rate_with_its_error():
    name, boxes, n_dice, bonuses = CASES[0]
    variant, values, _ = setup(name, boxes, n_dice, bonuses)
    table = build_target_table(variant)
    run = win.simulate_versus(variant, values, table, Advisor(variant, values), 40, seed=3)
    d = run.as_dict()
    assert d["wins"] + d["ties"] + d["losses"] == 40
    assert 0.0 <= d["win_rate"] <= 1.0 and 0.0 < d["stderr"] < 0.5
    assert win.simulate_versus(variant, values, table, Advisor(variant, values), 40, seed=3) == run  # seeded


def test_normal_stand_in_has_the_moments():
    pmf = win.normal_pmf(100.0, 100.0**2 + 15.0**2)
    s = np.arange(pmf.shape[0])
    assert abs(s @ pmf - 100.0) < 0.05 and abs(np.sqrt(((s - 100.0) ** 2) @ pmf) - 15.0) < 0.05


def run_cli(tmp_path, *args):
    return CliRunner().invoke(cli, ["--tables", str(tmp_path), "--no-progress", "--lang", "en", *args])


@pytest.mark.parametrize(
    "args,words",
    [
        (["advise", "kniffel", "33516", "--target", "200", "--opponent", "chance=20"], "--opponent"),
        (["advise", "kniffel", "33516", "--opponent", "nonsense=3"], "nonsense"),
        (["advise", "yatzy", "33516", "--opponent", "sixes=7"], "sixes"),
        (["simulate", "kniffel", "--versus", "--target", "200"], "--versus"),
    ],
)
def test_bad_input_is_one_line(tmp_path, args, words):
    res = run_cli(tmp_path, *args)
    assert res.exit_code == 2, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0], res.output


def test_full_card_is_refused(tmp_path):
    full = ",".join(f"{b.key}=0" for b in PRESETS["kniffel"].boxes)
    res = run_cli(tmp_path, "advise", "kniffel", "33516", "--roll", "3", "--card", full, "--opponent", "chance=20")
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1, res.output


def _reference_players(monkeypatch):
    """The players as advise ranks every option (Options made for each): what the fast paths must equal."""

    def expected_turn(variant, advisor, card, rng):
        def keep(dice, roll):
            return advisor.keep_options(card, dice, roll)[0].keep

        def box(dice, roll):
            o = advisor.box_options(card, dice, roll)[0]
            return card.with_entry(o.box, o.points, o.extra)

        return win._play_turn(variant, advisor, card, rng, keep, box)

    def win_turn(variant, table, advisor, card, opp_pmf, rng, vector_cache):
        after_second, after_first = win.turn_vectors(table, card)
        by_roll = {
            1: win.win_values(opp_pmf, card.points, after_first),
            2: win.win_values(opp_pmf, card.points, after_second),
        }

        def keep(dice, roll):
            best, best_p_win = (), -1.0
            for o in advisor.keep_options(card, dice, roll):
                p_win = float(by_roll[roll][advisor.keep_index[win._counts(variant, o.keep)]])
                if p_win > best_p_win + win.WIN_TIE:
                    best, best_p_win = o.keep, p_win
            return best

        def box(dice, roll):
            best_card, best_p_win = None, -1.0
            for o in advisor.box_options(card, dice, roll):
                after = card.with_entry(o.box, o.points, o.extra)
                p_win = win.win_probability(opp_pmf, after, table)
                if p_win > best_p_win + win.WIN_TIE:
                    best_card, best_p_win = after, p_win
            return best_card

        return win._play_turn(variant, advisor, card, rng, keep, box)

    monkeypatch.setattr(win, "_expected_turn", expected_turn)
    monkeypatch.setattr(win, "_win_turn", win_turn)


@pytest.mark.parametrize("name,boxes,n_dice,bonuses", CASES)
def test_versus_players_are_advises_rankings(name, boxes, n_dice, bonuses, monkeypatch):
    """simulate --versus's players (best_action for the max-expected one, keep-lattice indices in advise's
    order for the one playing to win) make every decision that the players ranking every Option make."""
    variant, values, _ = setup(name, boxes, n_dice, bonuses)
    table = build_target_table(variant)
    games = {}
    for way in ("fast", "reference"):
        cards = games[way] = []
        play_turn = win._play_turn

        def recorded(*args, play_turn=play_turn, cards=cards):
            card = play_turn(*args)
            cards.append((card.format(), card.points))
            return card

        with monkeypatch.context() as m:
            m.setattr(win, "_play_turn", recorded)
            if way == "reference":
                _reference_players(m)
            run = win.simulate_versus(variant, values, table, Advisor(variant, values), 60, seed=5)
        games[way].append(run)
    assert len(games["fast"]) > 60 * 2 * len(boxes)
    assert games["fast"] == games["reference"]
