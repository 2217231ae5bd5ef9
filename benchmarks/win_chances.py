"""Which win chance is right at a table playing `--advice win` (issue 29)? Games of a reduced Yatzy (4 boxes,
2 dice) between A (moves first) and B, simulated with the table's own advice (TablePlayLoop), against the two
chances the screen used to show at the start of the game:

* the standings: P(A wins alone) when both play for the maximum expected score (exact, WinChances);
* the line under the win advice: P(A beats B) when A plays to win against B's final-score distribution with
  B playing for the mean (exact for that assumption, chances/win.py).

Modes: who plays to win (the others play for the mean): both (what --advice win does), A, none.

    .venv/bin/python benchmarks/win_chances.py --games 3000 --mode both [--first-seed 0]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from solver import dp
from solver.advice.advisor import Advisor
from solver.advice.cards import Card
from solver.chances import win
from solver.chances.targets import build_target_table
from solver.game.table_game import TableGame, WinChances
from solver.game.table_play import TablePlayLoop
from solver.rules.presets import PRESETS

VARIANT = PRESETS["yatzy"].reduced(boxes=["ones", "one_pair", "two_pairs", "chance"], n_dice=2, bonuses=[(2, 50)])
PLAYS_TO_WIN = {"both": {0, 1}, "A": {0}, "none": set()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--mode", choices=sorted(PLAYS_TO_WIN), default="both")
    ap.add_argument("--first-seed", type=int, default=0)
    args = ap.parse_args()
    values = dp.solve(VARIANT)[0]
    advisor, table = Advisor(VARIANT, values), build_target_table(VARIANT)
    chances, empty = WinChances(VARIANT, values), Card(VARIANT)
    standings, tie = chances([empty, empty])
    print(f"standings (both play for the mean): A {standings[0]:.4f}, B {standings[1]:.4f}, tie {tie:.4f}")
    advice = win.win_probability(chances.pmf(empty), empty, table)
    print(f"win advice's line (A to win, B for the mean): A {advice:.4f}")
    winners = PLAYS_TO_WIN[args.mode]

    class Loop(TablePlayLoop):
        def win_ranked(self, p, box):
            return super().win_ranked(p, box) if self.table.current() in winners else None

    counts, points, start = [0, 0, 0], [0, 0], time.perf_counter()
    for seed in range(args.first_seed, args.first_seed + args.games):
        game = TableGame(VARIANT, ["A", "B"], seed=seed, roll_for_me=True)
        loop = Loop(game, advisor, Path("unused.json"), odds=False, target_table=table)
        loop.say = loop.save = lambda *a: None  # type: ignore[method-assign]
        loop.ask = lambda prompt: ""  # type: ignore[method-assign]
        loop.run()
        a, b = (c.points for c in game.cards())
        counts[0 if a > b else 1 if b > a else 2] += 1
        points = [points[0] + a, points[1] + b]
    n = args.games
    p, q = counts[0] / n, counts[1] / n
    lead_se = ((p + q - (p - q) ** 2) / n) ** 0.5  # A's lead in wins, a +1/-1/0 per game
    print(
        f"simulated, {args.mode} playing to win, {n} games (seeds {args.first_seed}...): A {p:.4f} "
        f"± {(p * (1 - p) / n) ** 0.5:.4f} (1 SE), B {q:.4f}, tie {counts[2] / n:.4f}; "
        f"A - B {p - q:+.4f} ± {lead_se:.4f} (1 SE); mean points A {points[0] / n:.2f}, B {points[1] / n:.2f} "
        f"(exact {chances.expected(empty):.2f} for the mean); {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
