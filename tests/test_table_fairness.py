"""The table game is fair (the suspected bias of benchmarks/README.md, "Win chances at a table"): on a reduced
Yatzy both players play for the mean with dice of their own, so P(A wins) = P(B wins) exactly. The standings'
odds against an independent convolution of the naive solver's final-score distribution, and seeded table
games (TablePlayLoop, as `play --players A,B --roll-for-me`) against those exact odds: win rates, each
player's mean and each player's whole score distribution."""

from itertools import product
from pathlib import Path

import numpy as np
import pytest
from naive import NaiveSolver

from solver import dp
from solver.advice.advisor import Advisor
from solver.advice.cards import Card
from solver.game.table_game import TableGame, WinChances
from solver.game.table_play import TablePlayLoop
from solver.rules.presets import PRESETS

BOXES, N_DICE, BONUSES = ["ones", "one_pair", "two_pairs", "chance"], 2, [(2, 50)]
VARIANT = PRESETS["yatzy"].reduced(boxes=BOXES, n_dice=N_DICE, bonuses=BONUSES)
GAMES = 12_000  # 1 SE of A's lead in wins 0.9 points: the 5-point gap once seen would be 5.5 SE
BOUND = 4.0  # standard errors allowed (a fixed seed range: the test is deterministic)


@pytest.fixture(scope="module")
def exact():
    """(P(A wins), P(B wins), P(tie), final-score pmf) by convolving the naive solver's distribution with itself."""
    dist = NaiveSolver("yatzy", boxes=BOXES, n_dice=N_DICE, bonuses=BONUSES).distribution({})
    pmf = np.zeros(max(dist) + 1)
    for score, p in dist.items():
        pmf[score] = p
    pairs = [(a, b, p * q) for (a, p), (b, q) in product(dist.items(), repeat=2)]
    win_a = sum(w for a, b, w in pairs if a > b)
    win_b = sum(w for a, b, w in pairs if b > a)
    return win_a, win_b, sum(w for a, b, w in pairs if a == b), pmf


def test_standings_are_the_convolution_of_the_naive_distributions(exact):
    win_a, win_b, tie, pmf = exact
    values = dp.solve(VARIANT)[0]
    empty = Card(VARIANT)
    wins, table_tie = WinChances(VARIANT, values)([empty, empty])
    assert wins == pytest.approx([win_a, win_b], abs=1e-12) and table_tie == pytest.approx(tie, abs=1e-12)
    assert win_a == pytest.approx(win_b, abs=1e-12)  # one policy, independent dice: a fair game


def table_scores(games: int, first_seed: int = 0) -> np.ndarray:
    """Final points of A (moves first) and B in seeded table games, every step the loop's advice."""
    advisor = Advisor(VARIANT, dp.solve(VARIANT)[0])
    scores = np.zeros((games, 2), dtype=np.int64)
    for k in range(games):
        game = TableGame(VARIANT, ["A", "B"], seed=first_seed + k, roll_for_me=True)
        loop = TablePlayLoop(game, advisor, Path("unused.json"), odds=False)
        loop.say = loop.save = lambda *a: None  # type: ignore[method-assign]
        loop.ask = lambda prompt: ""  # type: ignore[method-assign]
        loop.run()
        scores[k] = [c.points for c in game.cards()]
    return scores


@pytest.mark.slow
def test_seeded_table_games_match_the_exact_odds(exact):
    win_a, win_b, tie, pmf = exact
    scores = table_scores(GAMES)
    a, b = scores[:, 0], scores[:, 1]
    for seen, p in (((a > b).mean(), win_a), ((b > a).mean(), win_b), ((a == b).mean(), tie)):
        assert abs(seen - p) < BOUND * (p * (1 - p) / GAMES) ** 0.5, (seen, p)
    gap = (a > b).astype(int) - (b > a)  # A's lead in wins: mean 0, variance P(A wins) + P(B wins)
    assert abs(gap.mean()) < BOUND * ((win_a + win_b) / GAMES) ** 0.5, gap.mean()
    points = np.arange(pmf.shape[0])
    mean, sd = points @ pmf, ((points - points @ pmf) ** 2 @ pmf) ** 0.5
    expected = pmf * GAMES
    cells = expected >= 5  # the chi-square's cells; the rare scores pooled into one
    for player in (a, b):
        assert abs(player.mean() - mean) < BOUND * sd / GAMES**0.5, (player.mean(), mean)
        seen = np.bincount(player, minlength=pmf.shape[0])
        observed = np.append(seen[cells], seen[~cells].sum())
        wanted = np.append(expected[cells], expected[~cells].sum())
        chi2 = float(((observed - wanted) ** 2 / wanted).sum())
        df = observed.shape[0] - 1
        assert chi2 < df + BOUND * (2 * df) ** 0.5, (chi2, df)  # mean df, variance 2 df
