"""CPU time of Advisor.best_action per roll: the same card asked with new dice, and a new card each call.

    NUMBA_NUM_THREADS=1 python benchmarks/bench_best_action.py [--variant yahtzee] [--calls 2000]

Per roll (1, 2, 3): 20 random cards asked with --calls // 20 dice each (a card's first call computes its turn,
the rest may read it back), and --calls random cards each asked once with a new Advisor (no turn remembered).
Prints the mean CPU µs per call (time.process_time over all calls of the run: a shared machine's wall time
swings more). Runs on any checkout: PYTHONPATH=<checkout> compares two versions of the code.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_advice_batch import random_cards  # noqa: E402


def cpu_per_call(fn, sits) -> float:
    t = time.process_time()
    for s in sits:
        fn(*s)
    return (time.process_time() - t) / len(sits) * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", default="yahtzee")
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    import solver
    from solver import dp
    from solver.advice.advisor import Advisor
    from solver.rules.presets import PRESETS

    v = PRESETS[args.variant]
    values, _ = dp.solve(v)
    Advisor(v, values).best_action(*random_cards(v, values, 1, 0)[0])  # the kernel loaded
    out = []
    for roll in (1, 2, 3):
        rng = random.Random(roll)
        cards = [c for c, _, _ in random_cards(v, values, 20, roll)]
        dice = [tuple(rng.choice(v.faces) for _ in range(v.n_dice)) for _ in range(args.calls // 20)]
        same = [(c, d, roll) for c in cards for d in dice]
        fresh = [(c, d, roll) for c, d, _ in random_cards(v, values, args.calls, roll + 50)]
        adv = Advisor(v, values)
        adv.best_action(*same[0])
        a = cpu_per_call(adv.best_action, same)
        adv = Advisor(v, values)
        adv.best_action(*fresh[0])
        b = cpu_per_call(adv.best_action, fresh[1:])
        out.append(f"roll {roll}: same card {a:.1f}, new card {b:.1f}")
    where = Path(solver.__file__).parent.parent
    print(f"{where} {args.variant} CPU µs per best_action call: " + "; ".join(out))


if __name__ == "__main__":
    main()
