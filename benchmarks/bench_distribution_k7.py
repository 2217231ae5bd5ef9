"""Speed of the exact Kniffel 7 distribution (forward pass for dice told apart) from cards with 4, 6, 8 and 10
boxes filled.

python benchmarks/bench_distribution_k7.py [--runs 3] [--most-states 5000] [--threads N] [--profile]

Per card: the bound on turn states the CLI's estimate uses, the states the pass visited, wall seconds
(median, min, max of --runs, JIT warm), wall seconds per state and thread, and CPU seconds per state (the
figure a loaded machine changes least). A card whose bound exceeds
--most-states is not run: its line gives the CLI's estimate instead.

--profile: instead, the CPU milliseconds of each phase of one state's pass (8 filled, one thread, median of 10).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np

from solver import dp
from solver.advice.cards import parse_card
from solver.dp import forward_ordered as fo
from solver.dp.forward import next_keys
from solver.dp.forward_ordered_layers import SECONDS_PER_STATE, ordered_pmf, state_bound
from solver.rules.presets import KNIFFEL7
from solver.store import solving, tables

CARDS = {
    4: "ones=3,fives=15,straight_six=40,chance=27",
    6: "ones=3,threes=9,fives=15,four_of_a_kind=24,straight_six=40,chance=27",
    8: "ones=3,twos=6,threes=9,fives=15,sevens=21,four_of_a_kind=24,straight_six=40,chance=27",
    10: "ones=3,twos=6,threes=9,fours=12,fives=15,sevens=21,four_of_a_kind=24,double_triple=25,straight_six=40,"
    "chance=27",
}


def profile(engine, values, text: str, runs: int = 10) -> None:
    """CPU ms of each kernel of _state_groups for the state of card `text`, in its order, on this thread."""
    tab = fo.forward_tables(engine)
    mask, upper, flag = parse_card(KNIFFEL7, text).state
    rules, ordered = engine.rules, engine.ordered
    work = fo._work(engine, tab)
    after_first, best, pick_r, mass, stops, chosen1, chosen2, p_roll = work
    n_ms = rules.score.shape[0]
    out = (np.empty(n_ms, dtype=np.int64), np.empty(n_ms, dtype=np.int64), np.empty(n_ms))
    keys = next_keys(engine, values)

    def cpu(name, kernel, *args, before=lambda: None):
        times = []
        for _ in range(runs + 1):  # the first: JIT warm
            before()
            c = time.process_time()
            result = kernel(*args)
            times.append(time.process_time() - c)
        print(f"{name:28} {statistics.median(times[1:]) * 1e3:6.2f} ms CPU")
        return result

    cpu("whole state", fo._state_groups, mask, flag, upper, rules, ordered, values, tab, keys, work, out)
    final, kept = cpu("keeps after roll 2", fo._second_values, mask, flag, upper, rules, ordered, values)
    scans2 = cpu("choices after roll 2", fo._second_choices, kept, tab, ordered, best, pick_r, after_first, chosen2)
    roll_values = after_first.copy()  # _first_keeps works in place: each run from the values of the rolls

    def restore():
        after_first[:] = roll_values

    cpu("keeps after roll 1", fo._first_keeps, after_first, tab, before=restore)
    after_first[tab.rolls] = final[tab.roll_ms]
    scans1 = cpu("choices after roll 1", fo._choices, after_first, tab, best, pick_r, chosen1)
    print(f"rolls whose keeps were scanned (near ties): {scans2} after roll 2, {scans1} after roll 1")
    cpu("push roll 1", fo._push_first, chosen1, tab, stops, mass, p_roll, before=lambda: stops.fill(0.0))
    cpu("push roll 2", fo._push_last, p_roll, chosen2, tab, ordered, stops)
    cpu("entries", fo._entry_groups, mask, flag, upper, rules, values, final, stops, keys, out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--most-states", type=int, default=5000)
    ap.add_argument("--threads", type=int, default=numba.get_num_threads())
    ap.add_argument("--profile", action="store_true", help="CPU of each phase of one state's pass, and stop")
    args = ap.parse_args()
    values, _ = solving.load_table(KNIFFEL7, tables.tables_dir())
    engine = dp.make_engine(KNIFFEL7, allow_slow=True)
    if args.profile:
        profile(engine, values, CARDS[8])
        return
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
