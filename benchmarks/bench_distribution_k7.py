"""Speed of the exact Kniffel 7 distribution (forward pass for dice told apart) from cards with 4, 6, 8 and 10
boxes filled.

python benchmarks/bench_distribution_k7.py [--runs 3] [--most-states 5000] [--threads N]

Per card: the bound on turn states the CLI's estimate uses, the states the pass visited, wall seconds
(median, min, max of --runs, JIT warm), wall seconds per state and thread, and CPU seconds per state (the
figure a loaded machine changes least). A card whose bound exceeds
--most-states is not run: its line gives the CLI's estimate instead.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba

from solver import dp
from solver.advice.cards import parse_card
from solver.dp.forward_ordered import SECONDS_PER_STATE, ordered_pmf, state_bound
from solver.rules.presets import KNIFFEL7
from solver.store import solving, tables

CARDS = {
    4: "ones=3,fives=15,straight_six=40,chance=27",
    6: "ones=3,threes=9,fives=15,four_of_a_kind=24,straight_six=40,chance=27",
    8: "ones=3,twos=6,threes=9,fives=15,sevens=21,four_of_a_kind=24,straight_six=40,chance=27",
    10: "ones=3,twos=6,threes=9,fours=12,fives=15,sevens=21,four_of_a_kind=24,double_triple=25,straight_six=40,"
    "chance=27",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--most-states", type=int, default=5000)
    ap.add_argument("--threads", type=int, default=numba.get_num_threads())
    args = ap.parse_args()
    values, _ = solving.load_table(KNIFFEL7, tables.tables_dir())
    engine = dp.make_engine(KNIFFEL7, allow_slow=True)
    warm = parse_card(KNIFFEL7, CARDS[10] + ",straight_five=30,super_kniffel=0,five_of_a_kind=0")
    ordered_pmf(engine, values, *warm.state, 0, args.threads)  # the JIT warm
    visited = [0]

    def count(k: int) -> None:
        visited[0] += k

    for filled, text in CARDS.items():
        card = parse_card(KNIFFEL7, text)
        mask, upper, joker_scored = card.state
        bound = state_bound(engine, mask, upper, joker_scored)
        if bound > args.most_states:
            guess = bound * SECONDS_PER_STATE / args.threads
            print(
                f"{filled:2} filled: bound {bound} states, not run (estimate {guess:.0f} s on {args.threads} threads)"
            )
            continue
        times, cpu = [], []
        for _ in range(args.runs):
            visited[0] = 0
            t, c = time.perf_counter(), time.process_time()
            ordered_pmf(
                engine,
                values,
                mask,
                upper,
                joker_scored,
                0,
                args.threads,
                count,
            )
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
        med = statistics.median(times)
        per = med * args.threads / visited[0]
        per_cpu = statistics.median(cpu) / visited[0]
        print(
            f"{filled:2} filled: bound {bound}, visited {visited[0]} states, median {med:.1f} s (min {min(times):.1f}, "
            f"max {max(times):.1f}, {args.runs} runs, {args.threads} threads), {per:.3f} s a state and thread, "
            f"{per_cpu:.3f} s CPU a state"
        )


if __name__ == "__main__":
    main()
