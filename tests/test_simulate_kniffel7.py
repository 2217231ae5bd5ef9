"""Simulating Kniffel 7 (dice told apart): the play kernels decide as the advisor does, the mean agrees
with the committed table, and a seed gives the same games whatever the threads."""

import random

import numba
import numpy as np
import pytest
from helpers import random_card, tie_rule_box, tie_rule_keep

from solver import dp
from solver.advice.ordered import OrderedAdvisor
from solver.chances.simulation import simulate, summary, tally
from solver.rules.presets import PRESETS
from solver.store import solving, tables

pytestmark = pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)

KNIFFEL7 = PRESETS["kniffel7"]


@pytest.fixture(scope="module")
def k7():
    values, meta = solving.load_table(KNIFFEL7, tables.tables_dir())  # the table shipped in solver/data
    return values, meta, dp.make_engine(KNIFFEL7, allow_slow=True), OrderedAdvisor(KNIFFEL7, values)


def _situations(values, n, seed):
    """Random cards that can occur (early, middle and late in a game) with random dice."""
    rng = random.Random(seed)
    found = 0
    while found < n:
        card = random_card(KNIFFEL7, rng, rng.choice([0, 1, 4, 7, 10, 12, 13]))
        if not np.isfinite(values[card.state]):
            continue
        dice = tuple(rng.choice(die) for die in KNIFFEL7.dice)
        found += 1
        yield card, dice


def _bits(dice):
    return sum(1 << d for d in dice)


def test_keep_values_are_the_advisors_bit_for_bit(k7):
    """Every keep value the play kernels compute equals the advisor's (ordered_keep_values) exactly, and
    the chosen keep is the advisor's best option under the tie rule."""
    values, _, engine, advisor = k7
    n = KNIFFEL7.n_dice
    for card, dice in _situations(values, 6, seed=3):
        mask, upper, joker_scored = card.state
        final, after_second, after_first = dp.ordered_keep_values(engine, values, mask, upper, joker_scored)
        codes = [KNIFFEL7.dice[d].index(f) for d, f in enumerate(dice)]
        for roll, table in ((1, after_first), (2, after_second)):
            choice, vals = dp.ordered_turn_choice(engine, values, mask, upper, joker_scored, dice, roll)
            expected = np.empty(1 << n)
            for bits in range(1 << n):
                pa = sum((codes[d] if bits >> d & 1 else 6) * 7**d for d in range(n))
                expected[bits] = table[pa]
            expected[-1] = final[advisor._roll_row(dice)]
            assert np.array_equal(vals, expected), (card.format(), dice, roll)
            assert choice == _bits(tie_rule_keep(advisor.keep_options(card, dice, roll)))


def test_decisions_equal_the_advisors_best_options(k7):
    """Keeps after roll 1 and 2 and the entry after roll 3 on random situations."""
    values, _, engine, advisor = k7
    for card, dice in _situations(values, 12, seed=11):
        mask, upper, joker_scored = card.state
        for roll in (1, 2):
            choice, _ = dp.ordered_turn_choice(engine, values, mask, upper, joker_scored, dice, roll)
            assert choice == _bits(tie_rule_keep(advisor.keep_options(card, dice, roll))), (card.format(), dice)
        box, _ = dp.ordered_turn_choice(engine, values, mask, upper, joker_scored, dice, 3)
        assert box == tie_rule_box(advisor.box_options(card, dice)), (card.format(), dice)


def test_mean_agrees_with_the_table(k7):
    values, meta, _, _ = k7
    s = summary(tally(KNIFFEL7, values, 400, seed=2026))
    assert abs(s["mean"] - meta["start_value"]) < 3 * s["stderr"], s
    assert s["games"] == 400 and 0 < s["std"] < 100


def test_same_seed_same_games_whatever_the_threads(k7):
    values, _, _, _ = k7
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = simulate(KNIFFEL7, values, 24, seed=5)
    finally:
        numba.set_num_threads(threads)
    two = simulate(KNIFFEL7, values, 24, seed=5)
    assert np.array_equal(one.boxes, two.boxes) and np.array_equal(one.scores, two.scores)
    assert not np.array_equal(one.scores, simulate(KNIFFEL7, values, 24, seed=6).scores)
    # a game depends on its number and the seed only, not on the games beside it
    assert np.array_equal(simulate(KNIFFEL7, values, 8, seed=5).boxes, one.boxes[:8])


def test_simulate_kniffel7_through_the_cli(tmp_path):
    """Text (with the histogram and the box table) and JSON, as for the other variants."""
    import json

    from click.testing import CliRunner

    from solver.cli import cli

    args = [
        "--tables",
        str(tmp_path),
        "--no-progress",
        "--lang",
        "de",
        "simulate",
        "kniffel7",
        "-n",
        "6",
        "--seed",
        "4",
    ]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    assert "6 Spiele bei bester Strategie" in res.stdout and "Super-Kniffel" in res.stdout and "#" in res.stdout
    res = CliRunner().invoke(cli, [*args, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["variant"] == "kniffel7" and out["games"] == 6 and len(out["boxes"]) == 14
    assert out["table_start_value"] == pytest.approx(365.2706974, abs=1e-6)
