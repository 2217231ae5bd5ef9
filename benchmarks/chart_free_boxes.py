"""The web chart's hint (solver/web/app.py, CHART_FREE_BOXES): the worst forward-pass estimate over every
Kniffel 7 card with K free boxes (state_bound at SECONDS_PER_STATE; every mask and joker flag, the upper
totals given by --uppers: the smallest, or the smallest, middle and largest), on one thread and on two.

    .venv/bin/python benchmarks/chart_free_boxes.py 4 5 6 --uppers 3
"""

import argparse
import itertools
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("free", type=int, nargs="+")
    parser.add_argument("--uppers", type=int, choices=(1, 3), default=1)
    args = parser.parse_args()

    from solver import dp
    from solver.dp.forward_ordered_layers import SECONDS_PER_STATE, state_bound
    from solver.rules.presets import PRESETS

    variant = PRESETS["kniffel7"]
    engine = dp.make_engine(variant, allow_slow=True)
    n_boxes = len(variant.boxes)
    for free in args.free:
        t0 = time.process_time()
        worst, card = 0, None
        for chosen in itertools.combinations(range(n_boxes), n_boxes - free):
            mask = sum(1 << b for b in chosen)
            for flag in (0, 1) if variant.has_flag and mask >> variant.joker_index & 1 else (0,):
                totals = [int(x) for x in engine.upper.totals(mask, flag)]
                picked = {totals[0], totals[len(totals) // 2], totals[-1]} if args.uppers == 3 else {totals[0]}
                for upper in picked if totals else ():
                    states = state_bound(engine, mask, upper, flag)
                    if states > worst:
                        worst, card = states, (mask, upper, flag)
        seconds = worst * SECONDS_PER_STATE
        print(
            f"{free} free: worst {worst:,} states (mask, upper, flag {card}): {seconds:.0f} s of one thread, "
            f"{seconds / 2:.0f} s on two; scanned in {time.process_time() - t0:.0f} s CPU"
        )


if __name__ == "__main__":
    main()
