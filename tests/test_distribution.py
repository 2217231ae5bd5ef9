"""The forward pass (exact final-score distributions) against the independent reference, the table,
simulation and published figures."""

import json
import random
from pathlib import Path

import numpy as np
import pytest
from helpers import quick_only
from naive import NaiveSolver
from test_dp_vs_naive import REDUCED, endgame_cards, legal_points

from solver import dp
from solver.advice.cards import Card, parse_card
from solver.chances.distribution import (
    describe,
    distribution,
    final_pmf,
    odds,
    p_at_least,
    tail_probabilities,
    win_alone,
)
from solver.chances.simulation import simulate
from solver.errors import KniffelError
from solver.rules.presets import PRESETS

IDENTICAL = ["kniffel", "kniffel-meister", "yahtzee", "yahtzee-free-joker", "yatzy", "yatzy6"]
TOL = 1e-9


def card_of(variant, filled: dict) -> Card:
    """A Card from box key -> points (the naive solver's convention)."""
    return Card(variant, {variant.box_index(k): p for k, p in filled.items()})


def to_come(variant, values, filled: dict) -> dict[int, float]:
    """P(points still to come = s) by the forward pass, in the naive solver's format."""
    card = card_of(variant, filled)
    pmf = final_pmf(variant, values, card)
    return {s - card.points: float(p) for s, p in enumerate(pmf) if p > 0}


def assert_same_dist(fast: dict, slow: dict, context) -> None:
    for s in set(fast) | set(slow):
        assert abs(fast.get(s, 0.0) - slow.get(s, 0.0)) < TOL, (context, s, fast.get(s), slow.get(s))


class StopSolve(Exception):
    pass


def table_down_to(variant, n_filled: int) -> np.ndarray:
    """The table solved only for cards with at least n_filled boxes (enough for end games)."""
    got = {}

    def after_layer(values, next_layer, solved):
        if next_layer < n_filled:
            got["values"] = values
            raise StopSolve

    try:
        return dp.solve(variant, after_layer=after_layer)[0]
    except StopSolve:
        return got["values"]


# -- against the naive reference ------------------------------------------------------------------


@pytest.mark.parametrize("name,boxes,n_dice,bonuses", REDUCED)
def test_reduced_variants_match_naive(name, boxes, n_dice, bonuses):
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    values, _ = dp.solve(variant)
    naive = NaiveSolver(name, boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    assert_same_dist(to_come(variant, values, {}), naive.distribution({}), "empty card")
    rng = random.Random(5)
    for key in boxes[:2]:
        card = {key: rng.choice(legal_points(variant, key))}
        if np.isfinite(values[card_of(variant, card).state]):
            assert_same_dist(to_come(variant, values, card), naive.distribution(card), card)


def test_keep_one_house_rule_matches_naive():
    boxes = ["ones", "sixes", "kniffel", "chance"]
    variant = PRESETS["kniffel-keep-one"].reduced(boxes=boxes, n_dice=3, bonuses=[(9, 10)])
    values, _ = dp.solve(variant)
    naive = NaiveSolver("kniffel", boxes=boxes, n_dice=3, bonuses=[(9, 10)], keep_one=True)
    assert_same_dist(to_come(variant, values, {}), naive.distribution({}), "keep one")


@pytest.mark.parametrize("name", quick_only(IDENTICAL, {"kniffel", "yahtzee"}))  # the other rules: REDUCED
def test_endgame_cards_match_naive(name):
    """Cards with one to three free boxes of the real variants, jokers and bonuses in play."""
    variant = PRESETS[name]
    values = table_down_to(variant, len(variant.boxes) - 3)
    naive = NaiveSolver(name)
    cards = [card for _, card in endgame_cards(variant, 2, 3, seed=11)]
    keys = [b.key for b in variant.boxes]
    if variant.joker_box is not None:  # joker box holding points, the joker's target boxes free
        for free in (["full_house", "threes"], ["large_straight", "sixes", "chance"]):
            card = {k: 0 for k in keys if k not in free}
            card[variant.joker_box] = max(legal_points(variant, variant.joker_box))
            cards.append(card)
    upper = [b.key for b in variant.boxes if b.is_upper]
    near_bonus = {k: 3 * (i + 1) for i, k in enumerate(upper[:-1])}  # bonus hangs on the last upper box
    near_bonus.update({k: 0 for k in keys if k not in upper and k not in ("chance", variant.joker_box)})
    cards.append(near_bonus)
    checked = 0
    for card in cards:
        if not np.isfinite(values[card_of(variant, card).state]):
            continue
        assert_same_dist(to_come(variant, values, card), naive.distribution(card), card)
        checked += 1
    assert checked >= 3


# -- consistency ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kniffel_table(solved):
    return solved("kniffel")


@pytest.fixture(scope="module")
def empty_pmf(kniffel_table):
    """final_pmf of kniffel's empty card (the whole forward pass, seconds), once for the tests that compare it."""
    return final_pmf(PRESETS["kniffel"], kniffel_table, Card(PRESETS["kniffel"]))


def kniffel_distribution(values, card, empty_pmf):
    """distribution(kniffel, card); the empty card's from the module's pmf (`distribution` is final_pmf, then
    describe), not from a forward pass again."""
    variant = PRESETS["kniffel"]
    return describe(variant, card, empty_pmf) if not card.filled else distribution(variant, values, card)


def test_mean_is_table_value_and_pmf_sums_to_one(kniffel_table, empty_pmf):
    variant = PRESETS["kniffel"]
    empty = describe(variant, Card(variant), empty_pmf)  # the empty card's pass once a module (the fixture)
    assert abs(sum(empty_pmf) - 1) < 1e-12 and abs(empty.mean - kniffel_table[0, 0, 0]) < TOL
    rng = random.Random(3)
    cards = []
    for _ in range(3):
        keys = rng.sample([b.key for b in variant.boxes], 7)
        filled = {k: rng.choice(legal_points(variant, k)) for k in keys}
        if filled.get("kniffel") == 50 and rng.random() < 0.5:
            cards.append(parse_card(variant, ",".join(f"{k}={p}" for k, p in filled.items()) + ",extra=50"))
        cards.append(card_of(variant, filled))
    for card in cards:
        if not np.isfinite(kniffel_table[card.state]):
            continue
        d = kniffel_distribution(kniffel_table, card, empty_pmf)
        assert abs(sum(d.pmf) - 1) < 1e-12
        assert abs(d.mean - (card.points + kniffel_table[card.state])) < TOL, card.format()


@pytest.mark.slow
@pytest.mark.parametrize("name", IDENTICAL + ["kniffel-keep-one"])
def test_mean_is_table_value_every_preset(name):
    variant = PRESETS[name]
    values, _ = dp.solve(variant)
    d = distribution(variant, values, Card(variant))
    assert abs(sum(d.pmf) - 1) < 1e-12
    assert abs(d.mean - values[0, 0, 0]) < TOL


def test_agrees_with_simulation(kniffel_table, empty_pmf):
    """Chi-square goodness of fit of 20,000 simulated games (fixed seed) against the exact pmf, in
    bins of at least 5 % mass; the critical value is the chi-square 99.9 % quantile."""
    variant = PRESETS["kniffel"]
    pmf = empty_pmf
    scores = simulate(variant, kniffel_table, 20_000, seed=12).scores
    edges, acc = [0], 0.0
    for s, p in enumerate(pmf):
        acc += p
        if acc >= 0.05:
            edges.append(s + 1)
            acc = 0.0
    edges[-1] = len(pmf)
    expected = np.array([pmf[a:b].sum() for a, b in zip(edges, edges[1:])]) * len(scores)
    observed = np.histogram(scores, bins=edges)[0]
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    # 99.9 % quantiles of chi-square with k - 1 degrees of freedom (k bins: 16 to 20)
    critical = {15: 37.70, 16: 39.25, 17: 40.79, 18: 42.31, 19: 43.82}[len(expected) - 1]
    assert chi2 < critical, (chi2, len(expected))


def test_odds_of_two_equal_players_and_a_leader(kniffel_table, empty_pmf):
    variant = PRESETS["kniffel"]
    empty = Card(variant)
    result = odds(variant, kniffel_table, [empty, empty], ["A", "B"])
    a, b = result.players
    assert abs(a.win - b.win) < 1e-12
    assert abs(a.win + b.win + result.tie - 1) < 1e-12
    pmf = np.array(empty_pmf)
    assert abs(result.tie - float(pmf @ pmf)) < 1e-12  # two equal players tie with P(X = Y)
    ahead = parse_card(variant, "kniffel=50,chance=30")
    behind = parse_card(variant, "kniffel=0,chance=5")  # a 0 needs Chance filled (restricted scratching)
    result = odds(variant, kniffel_table, [ahead, behind])
    assert result.players[0].win > 0.5 > result.players[1].win


def test_win_alone_by_hand():
    # X in {0, 1} with 1/2 each, Y = 1: X wins never, Y wins alone when X = 0, tie when X = 1
    assert win_alone([np.array([0.5, 0.5]), np.array([0.0, 1.0])]) == [0.0, 0.5]


def test_percentiles_by_hand():
    variant = PRESETS["kniffel"]
    pmf = np.zeros(11)
    pmf[[2, 5, 10]] = [0.25, 0.25, 0.5]
    d = describe(variant, Card(variant), pmf)
    assert d.percentiles["25"] == 2 and d.percentiles["50"] == 5 and d.percentiles["75"] == 10
    assert d.min == 2 and d.max == 10 and abs(d.mean - 6.75) < 1e-12
    assert d.p_at_least["200"] == 0.0


def test_bad_requests():
    variant = PRESETS["kniffel"]
    empty = Card(variant)
    with pytest.raises(KniffelError, match="2 to 6 players"):
        odds(variant, np.zeros((1, 1, 1)), [empty])
    with pytest.raises(KniffelError, match="names"):
        odds(variant, np.zeros((1, 1, 1)), [empty, empty], ["A"])
    with pytest.raises(KniffelError, match="between 0 and"):
        distribution(variant, np.zeros((1, 1, 1)), empty, at_least=[-5])


# -- published figures ----------------------------------------------------------------------------


@pytest.mark.slow
def test_verhoeff_free_joker_yahtzee():
    """T. Verhoeff, optimal solitaire Yahtzee (free-choice joker): SD 59.6117 and median 248, as quoted
    in the CaseyTewey/ysolver README (benchmarks/published_figures.md, section 1). The SD depends on the
    tie rule in its fourth decimal (59.6114 to 59.6117 there), so it is compared to 1e-3."""
    variant = PRESETS["yahtzee-free-joker"]
    values, _ = dp.solve(variant)
    d = distribution(variant, values, Card(variant))
    assert abs(d.std - 59.6117) < 1e-3
    assert d.median == 248


@pytest.mark.slow
def test_langkilde_exact_yatzy_density():
    """dlangk/yatzy (D. Langkilde, 2025) treatise/data/density_exact.json @ 35290bfb0eb2: the exact
    density of max-expected Scandinavian Yatzy (benchmarks/published_figures.md, section 2). It was
    computed in float32, so probabilities agree to about 1e-5."""
    variant = PRESETS["yatzy"]
    values, _ = dp.solve(variant)
    d = distribution(variant, values, Card(variant))
    assert abs(d.std - 38.4963826) < 1e-4
    published = {"1": 145, "5": 179, "10": 203, "25": 225, "50": 249, "75": 276, "90": 299, "95": 309, "99": 325}
    assert d.percentiles == published
    for t, p in (("200", 0.912093), ("250", 0.491309), ("300", 0.099460)):
        assert abs(d.p_at_least[t] - p) < 1e-5, t


def test_distribution_json_schema(kniffel_table, tmp_path):
    variant = PRESETS["kniffel"]
    d = distribution(variant, kniffel_table, parse_card(variant, "chance=22"), at_least=[333])
    out = json.loads(json.dumps(d.as_dict()))
    assert set(out) == {
        "variant",
        "card",
        "mean",
        "std",
        "median",
        "percentiles",
        "p_at_least",
        "min",
        "max",
        "pmf",
        "seconds",
    }
    assert set(out["percentiles"]) == {"1", "5", "10", "25", "50", "75", "90", "95", "99"}
    assert set(out["p_at_least"]) == {"200", "250", "300", "333", "350", "400"}
    assert len(out["pmf"]) == out["max"] + 1
    assert Path(tmp_path).is_dir()


# -- the spread of each option (second moments beside the values) ----------------------------------


def naive_std(dist: dict) -> float:
    mean = sum(s * p for s, p in dist.items())
    return sum((s - mean) ** 2 * p for s, p in dist.items()) ** 0.5


@pytest.mark.parametrize("index", [0, 6, 11])
def test_option_std_matches_naive(index):
    from solver.advice.choose import make_advisor
    from solver.chances.spread import option_stds

    name, boxes, n_dice, bonuses = REDUCED[index]
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    values, m2, _ = dp.solve_with_moments(variant)  # the solve's second moments against the naive solver's
    advisor = make_advisor(variant, values)
    naive = NaiveSolver(name, boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    rng = random.Random(index)
    card = Card(variant)
    for roll in (1, 2, 3):
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(n_dice)))
        action, options = advisor.advise(card, dice, roll)
        stds = option_stds(variant, values, m2, card, dice, roll, options, advisor)
        for o, std in zip(options, stds):
            option = o.keep if action == "keep" else variant.boxes[o.box].key
            assert abs(std - naive_std(naive.option_distribution({}, dice, roll, option))) < 1e-7, (roll, dice, o.text)


def test_moments_std_is_forward_std(solved_with_moments, empty_pmf):
    """The solve's second moments against the forward pass (the exact distribution of final scores)."""
    variant = PRESETS["kniffel"]
    values, m2 = solved_with_moments("kniffel")
    for text in ("", "chance=22,kniffel=50,einser=3", "full_house=25,kniffel=0,chance=17,sechser=24,grosse strasse=40"):
        card = parse_card(variant, text)
        d = kniffel_distribution(values, card, empty_pmf)
        std = (m2[card.state] - values[card.state] ** 2) ** 0.5
        assert abs(std - d.std) < 1e-7, text


@pytest.mark.parametrize("index", [1, 7, 12, 14])
def test_advisor_puts_the_tie_rule_choice_first(index):
    """The advisor's first option is the naive policy's choice (same tie rule), rolls 1, 2 and 3."""
    from solver.advice.choose import make_advisor

    name, boxes, n_dice, bonuses = REDUCED[index]
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    values, _ = dp.solve(variant)
    advisor = make_advisor(variant, values)
    naive = NaiveSolver(name, boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    rng = random.Random(index)
    for filled in ({}, {boxes[0]: rng.choice(legal_points(variant, boxes[0]))}):
        card = card_of(variant, filled)
        if not np.isfinite(values[card.state]):
            continue
        for _ in range(12):
            dice = tuple(sorted(rng.randint(1, 6) for _ in range(n_dice)))
            for roll in (1, 2, 3):
                best = advisor.advise(card, dice, roll)[1][0]
                chosen = best.keep if roll < 3 else variant.boxes[best.box].key
                expected = naive.choice(filled, dice, roll)
                assert chosen == (tuple(expected) if roll < 3 else expected), (filled, dice, roll)


def test_probabilities_at_least_never_above_one():
    """A pmf that sums to 1 within rounding can add up past 1 from the top (`chances --json` showed a
    probability of 1.000000000000021): P(final >= s) is capped at 1, in the one place every answer takes it."""
    pmf = np.array(
        [0.05383017413698619, 0.3395062870351673, 0.30599004231012344, 0.10218797540377206, 0.19848552111395115]
    )
    assert np.cumsum(pmf[::-1])[::-1][0] > 1  # the rounding this guards against
    assert tail_probabilities(pmf).max() == 1.0 and p_at_least(pmf, 0) == 1.0 and p_at_least(pmf, -3) == 1.0
    assert p_at_least(pmf, 4) == pmf[4] and p_at_least(pmf, 5) == 0.0
    assert list(tail_probabilities(pmf)[1:]) == list(np.cumsum(pmf[::-1])[::-1][1:])


def test_probabilities_at_least_the_lowest_score_are_one():
    """At or below the lowest score a pmf reaches, P(final >= s) is 1 exactly (a game always ends), though
    the pmf sums to 1 - 3e-15 there (`distribution(card, [0])` gave 0.999999999999997)."""
    pmf = np.array([0.0, 0.0, 0.1, 0.2, 0.7 - 3e-15])
    assert np.cumsum(pmf[::-1])[::-1][0] < 1  # the rounding this guards against
    assert list(tail_probabilities(pmf)[:3]) == [1.0, 1.0, 1.0] and p_at_least(pmf, 2) == 1.0
    assert tail_probabilities(pmf)[3] == pytest.approx(0.9) and p_at_least(pmf, 4) == pmf[4]
