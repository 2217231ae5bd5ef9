"""Kniffel 7's kernels (dice told apart) interpreted, on a small Kniffel 7, against the references.

Not collected by the quick suite itself (the name does not start with test_): tests/test_kniffel7_interpreted.py
runs this file in a child pytest with KNIFFEL_JIT=0, where the kernels are plain Python and nothing compiles.
Compiling Kniffel 7's kernels takes about a minute of CPU, more than the whole quick suite can spend on them;
the compiled kernels are checked on the real kniffel7 in the slow tests, and both run the same source lines.
"""

import os
import random
import sys

import numpy as np
import pytest
from helpers import random_card, tie_rule_box, tie_rule_keep
from naive import NaiveSolver

from solver import dp
from solver.advice.cards import Card
from solver.advice.ordered import OrderedAdvisor
from solver.chances import distribution
from solver.chances.ordered_chances import targets_from
from solver.chances.simulation import summary, tally
from solver.dp.forward_ordered_layers import ordered_pmf
from solver.jobs import forward_job
from solver.jobs.executors import ThreadExecutor
from solver.rules.presets import PRESETS
from solver.store import tables

BOXES, N_DICE, BONUSES = ["sevens", "fours", "chance"], 3, [(8, 35)]
MINI = PRESETS["kniffel7"].reduced(boxes=BOXES, n_dice=N_DICE, bonuses=BONUSES, name="k7-interpreted")

# the interpreted kernels compute unreachable states' sums in float64 that overflow into NaN, as the compiled ones
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


@pytest.fixture(scope="module")
def mini():
    values, _ = dp.solve(MINI)
    return values, dp.make_engine(MINI, allow_slow=True)


@pytest.fixture(scope="module")
def naive():
    return NaiveSolver("kniffel7", boxes=BOXES, n_dice=N_DICE, bonuses=BONUSES)


def reachable_cards(values, n, seed):
    rng = random.Random(seed)
    cards = []
    while len(cards) < n:
        card = random_card(MINI, rng, rng.choice([0, 1, 2]))
        if np.isfinite(values[card.state]):
            cards.append(card)
    return cards


def as_dict(card):
    return {MINI.boxes[b].key: pts for b, pts in card.filled.items()}


def test_the_kernels_are_interpreted(mini):
    assert os.environ.get("KNIFFEL_JIT") == "0"
    assert "numba" not in sys.modules  # nothing compiled, nothing loaded: the kernels ran as Python


def test_values_equal_the_naive_solvers(mini, naive):
    values, _ = mini
    cards = [Card(MINI), *reachable_cards(values, 12, seed=1)]
    for card in cards:
        assert abs(float(values[card.state]) - naive.state_value(as_dict(card))) < 1e-9, card.format()


def test_turn_choices_are_the_advisors_best_options(mini):
    values, engine = mini
    advisor = OrderedAdvisor(MINI, values)
    rng = random.Random(7)
    for card in reachable_cards(values, 20, seed=2):
        dice = tuple(rng.choice(die) for die in MINI.dice)
        mask, upper, joker_scored = card.state
        for roll in (1, 2):
            choice, _ = dp.ordered_turn_choice(engine, values, mask, upper, joker_scored, dice, roll)
            keep = tie_rule_keep(advisor.keep_options(card, dice, roll))
            assert choice == sum(1 << d for d in keep), (card.format(), dice, roll)
        box, _ = dp.ordered_turn_choice(engine, values, mask, upper, joker_scored, dice, 3)
        assert box == tie_rule_box(advisor.box_options(card, dice)), (card.format(), dice)


def test_forward_pass_means_the_table(mini):
    values, engine = mini
    for card in [Card(MINI), *reachable_cards(values, 8, seed=3)]:
        pmf = ordered_pmf(engine, values, *card.state, 0, 1)
        assert abs(pmf.sum() - 1) < 1e-12
        mean = float(np.arange(pmf.size) @ pmf)
        assert abs(mean - float(values[card.state])) < 1e-9, card.format()


def test_distribution_from_the_empty_card_equals_the_naive_solvers(mini, naive):
    values, _ = mini
    pmf = distribution.final_pmf(MINI, values, Card(MINI))
    expected = naive.distribution({})
    assert set(np.flatnonzero(pmf > 1e-15)) == {s for s, p in expected.items() if p > 1e-15}
    for points, p in expected.items():
        assert abs(pmf[points] - p) < 1e-12, points


def test_target_probabilities_equal_the_naive_solvers(mini, naive):
    needs = [30, 60, 75]
    found = targets_from(MINI, Card(MINI), needs, limit=float("inf"))
    assert found is not None
    for need in needs:
        p = found.probability(Card(MINI).state, need)
        assert 0 < p < 1
        assert abs(p - naive.target_probability({}, need)) < 1e-12, need


def test_simulated_mean_agrees_with_the_table(mini):
    values, _ = mini
    s = summary(tally(MINI, values, 600, seed=2026))
    assert s["games"] == 600
    assert abs(s["mean"] - float(values[Card(MINI).state])) < 3 * s["stderr"], s


def test_a_seed_gives_the_same_games(mini):
    values, _ = mini
    assert summary(tally(MINI, values, 50, seed=5)) == summary(tally(MINI, values, 50, seed=5))
    assert summary(tally(MINI, values, 50, seed=5)) != summary(tally(MINI, values, 50, seed=6))


def test_forward_job_equals_the_forward_pass_bit_for_bit(mini, tmp_path):
    values, engine = mini
    tables.save(MINI, values, tmp_path / "tables", states=int(np.isfinite(values).sum()), seconds=1.0)
    state = Card(MINI).state
    job = forward_job.open_forward_job(MINI, tmp_path / "job", values, state, 1e-6)
    pmf = forward_job.run_forward_job(job, MINI, tmp_path / "tables", values, ThreadExecutor(1))
    expected = ordered_pmf(engine, values, *state, 0, 1)
    assert pmf.shape == expected.shape and (pmf.view(np.int64) == expected.view(np.int64)).all()


def test_the_apis_target_play_equals_the_naive_solvers(mini, naive, tmp_path):
    """Table.chances and Table.advise_target (solver/api/target_play.py) on dice told apart: exact from the card,
    every option's probability the naive solver's; beyond `limit` seconds one TargetError."""
    from solver.advice.choose import make_advisor
    from solver.api import Table
    from solver.chances.targets import TargetError

    values, _ = mini
    table = Table(MINI, values, {}, make_advisor(MINI, values), tmp_path)
    rng = random.Random(11)
    for card in [Card(MINI), *reachable_cards(values, 3, seed=4)]:
        filled = as_dict(card)
        target = card.points + 15
        chances = table.chances(card, target, progress=False)
        assert abs(chances.probability - naive.target_probability(filled, 15)) < 1e-12, card.format()
        dice = tuple(rng.choice(die) for die in MINI.dice)
        for roll in (1, 2, 3):
            advice = table.advise_target(card, dice, roll, target, progress=False)
            assert advice.probability == chances.probability and advice.target == target
            for o in advice.options:
                option = MINI.boxes[o.option.box].key if advice.action == "box" else o.option.keep_dice
                want = naive.target_option_probability(filled, dice, roll, option, 15)
                assert abs(o.probability - want) < 1e-12, (card.format(), dice, roll, option)
    with pytest.raises(TargetError, match="needs the target table"):
        table.advise_target("", dice, 1, 40, limit=0, progress=False)
