"""Batch advice beside the peer `yatzy-solver` 1.0.0 on the same random situations, and single-call latency.

    python benchmarks/bench_advice_batch.py [--n 100000] [--runs 5] [--rulesets yahtzee yatzy]

Needs the peer's interpreter, benchmarks/.venv-yatzy-solver (see benchmarks/peer_yatzy_solver.py). For each
ruleset: the peer script draws N random valid situations (mask, upper, joker, dice, roll) and times its
option_values_batch on them (all cores); our solver.advice.batch.option_values_batch runs on the same arrays
(Numba threads: all cores), --runs times, each run followed by one more run of the peer's (a fresh peer
process, its table cached): each side's median is over runs interleaved in time, since the load of a shared
machine drifts. Every value of every option is compared with the peer's
(max abs difference; the best options must agree wherever the peer's best is not tied within 1e-9). Last,
Advisor.best_action and a full Advisor.advise (every option, ranked) per call on random cards: the median
per call, of several runs, and the same through Table with the card and the dice as strings (parsing and
checking included). The same situations are asked in every run, so from the second run on best_action finds
each Card object's state and each text's parse remembered; best_action is also timed on situations drawn
anew for each run (what a stream of new cards costs), through Table too, as texts and as new Card objects
with dice tuples. Last, per roll (1, 2, 3): best_action on the same card
asked with new dice (its turn remembered after the first call), on a new card each call (nothing remembered),
and the peer's text best_action on situations at that roll, their runs interleaved; the load average is
printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import product
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PEER_PY = HERE / ".venv-yatzy-solver" / "bin" / "python"
PEER_SCRIPT = HERE / "peer_yatzy_solver.py"
RULESETS = ("yahtzee", "yahtzee-free-joker", "yatzy")


def run_peer(args: list[str]) -> str:
    out = subprocess.run([str(PEER_PY), str(PEER_SCRIPT), *args], check=True, capture_output=True, text=True)
    return out.stdout


def compare(variant, lattice, res, peer, roll) -> dict:
    """Max abs difference over every option, option counts, and agreement of the best options."""
    nb = len(variant.boxes)
    counts = [tuple(int(c) for c in row) for row in peer["keep_counts"]]
    peer_index = {c: i for i, c in enumerate(counts)}
    keep_map = np.array([peer_index[tuple(int(c) for c in row)] for row in lattice.counts])
    full = np.concatenate([peer["box_values"], peer["keep_values"][:, keep_map]], axis=1)  # by our option code
    valid = res.codes >= 0
    rows = np.nonzero(valid)[0]
    peer_vals = full[rows, res.codes[valid]]
    diff = np.abs(res.values[valid] - peer_vals)
    rolling = roll < 3
    peer_n = np.where(
        rolling, (~np.isnan(peer["keep_values"])).sum(axis=1), (~np.isnan(peer["box_values"])).sum(axis=1)
    )
    # the peer's best: a box at roll 3, or at roll 1/2 a box (= stop rolling = our keep of all dice) or a keep
    first_roll = int(lattice.size_start[variant.n_dice])
    best_code = res.best_code.astype(np.int64)
    ours_k = best_code - nb
    peer_box, peer_keep = peer["best_box"].astype(np.int64), peer["best_keep"].astype(np.int64)
    ours_stop = rolling & (ours_k >= first_roll)
    agree = np.where(
        rolling,
        np.where(peer_box >= 0, ours_stop, (ours_k >= 0) & (keep_map[np.maximum(ours_k, 0)] == peer_keep)),
        best_code == peer_box,
    )
    untied = peer["n_best"] == 1
    return {
        "max_abs_diff": float(diff.max()) if diff.size else 0.0,
        "nan_or_missing": int(np.isnan(peer_vals).sum()),
        "option_count_mismatches": int((peer_n != res.n_options).sum()),
        "best_value_max_diff": float(np.abs(res.best_value - peer["best_value"]).max()),
        "best_disagree_untied": int((~agree & untied).sum()),
        "peer_ties": int((~untied).sum()),
    }


def random_cards(variant, values, n, seed):
    from solver.advice.cards import Card, box_values

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        card = Card(variant)
        for b in rng.sample(range(len(variant.boxes)), rng.randrange(0, len(variant.boxes) - 1)):
            card.filled[b] = rng.choice(box_values(variant, b))
        if not np.isfinite(values[card.state]):
            continue
        dice = tuple(rng.choice(variant.faces) for _ in range(variant.n_dice))
        out.append((card, dice, rng.randint(1, 3)))
    return out


def per_call(fn, sits, runs):
    """Median µs per call of each run (every situation once per run)."""
    return per_call_runs(fn, sits[:100], [sits] * runs)


def per_call_runs(fn, warm, runs_of_sits):
    """Median µs per call of each run: run i calls every situation of runs_of_sits[i] once."""
    for s in warm:
        fn(*s)
    meds = []
    pc = time.perf_counter
    for sits in runs_of_sits:
        ts = []
        for s in sits:
            t = pc()
            fn(*s)
            ts.append(pc() - t)
        meds.append(statistics.median(ts) * 1e6)
    return meds


def peer_text_best_action(ruleset, roll, seed, args, tmp: Path) -> float:
    """The peer's text-API best_action, median µs per call, on --calls random situations all at roll `roll`."""
    path, fixed = tmp / f"{ruleset}-roll-sit.npz", tmp / f"{ruleset}-roll{roll}-sit.npz"
    run_peer(["random", "--ruleset", ruleset, "--n", str(args.calls), "--seed", str(seed), "--out", str(path)])
    sits = dict(np.load(path))
    sits["roll"] = np.full_like(sits["roll"], roll)
    np.savez(fixed, **sits)
    out = ["--output", str(tmp / "roll-peer.npz"), "--batch-runs", "1", "--text-calls", str(args.calls)]
    return json.loads(run_peer(["advise", "--ruleset", ruleset, "--input", str(fixed), *out]))["text"][
        "best_action_median_us"
    ]


def by_roll(ruleset, v, values, args, tmp: Path) -> dict:
    """Advisor.best_action per roll, runs interleaved with the peer's: the same card asked with new dice (20 cards,
    --calls // 20 dice each: after a card's first call its turn is remembered) and a new card each call (a new
    Advisor each run, so no turn is remembered, that has seen every order of the dice); medians per call of each
    run."""
    from solver.advice.advisor import Advisor

    out = {}
    for roll in (1, 2, 3):
        same, new, peer = [], [], []
        for run in range(args.call_runs):
            seed = args.seed + 100 * roll + run
            rng = random.Random(seed)
            cards = [c for c, _, _ in random_cards(v, values, 20, seed)]
            dice = [tuple(rng.choice(v.faces) for _ in range(v.n_dice)) for _ in range(args.calls // 20)]
            adv = Advisor(v, values)
            same += per_call_runs(adv.best_action, [], [[(c, d, roll) for c in cards for d in dice]])
            adv = Advisor(v, values)
            for d in product(*v.dice):  # every order of the dice seen at roll 3 (no turn remembered): only the
                adv.best_action(cards[0], d, 3)  # states are new below, as for a long-running advisor
            fresh = [(c, d, roll) for c, d, _ in random_cards(v, values, args.calls, seed + 50)]
            new += per_call_runs(adv.best_action, [], [fresh])
            peer.append(peer_text_best_action(ruleset, roll, seed, args, tmp))
        out[roll] = {"same_card_us": same, "new_card_us": new, "peer_us": peer}
    return out


def bench(ruleset, args, tmp: Path) -> dict:
    from solver import dp
    from solver.advice.advisor import Advisor
    from solver.advice.batch import option_values_batch
    from solver.api import Table
    from solver.rules.presets import PRESETS

    sit_path, peer_path = tmp / f"{ruleset}-sit.npz", tmp / f"{ruleset}-peer.npz"
    run_peer(["random", "--ruleset", ruleset, "--n", str(args.n), "--seed", str(args.seed), "--out", str(sit_path)])
    peer_json = json.loads(
        run_peer(
            ["advise", "--ruleset", ruleset, "--input", str(sit_path), "--output", str(peer_path)]
            + ["--batch-runs", str(args.runs), "--text-calls", str(args.text_calls)]
        )
    )
    v = PRESETS[ruleset]
    values, _ = dp.solve(v)
    engine = dp.make_engine(v)
    s = np.load(sit_path)
    call = (engine, values, s["mask"], s["upper"], s["joker"], s["dice"], s["roll"])
    option_values_batch(*call)  # warm (JIT, first touch)
    ts = []
    peer_ts = [peer_json["batch"]["median_s"]]
    for run in range(args.runs):
        t = time.perf_counter()
        res = option_values_batch(*call)
        ts.append(time.perf_counter() - t)
        if run < args.runs - 1:  # the peer's runs interleaved with ours: a shared machine's load changes
            again = ["advise", "--ruleset", ruleset, "--input", str(sit_path), "--output", str(tmp / "again.npz")]
            again_json = json.loads(run_peer(again + ["--batch-runs", "1", "--text-calls", "10"]))
            peer_ts.append(again_json["batch"]["median_s"])
    check = compare(v, engine.lattice, res, np.load(peer_path), s["roll"])
    adv = Advisor(v, values)
    sits = random_cards(v, values, args.calls, args.seed)
    table = Table(v, values, {}, adv)
    texts = [(card.format(), "".join(map(str, dice)), roll) for card, dice, roll in sits]  # as a caller writes them
    # situations never asked before in each run (best_action remembers Card objects and texts it has seen)
    fresh = [random_cards(v, values, args.calls, args.seed + 1 + run) for run in range(args.call_runs)]
    fresh_texts = [[(c.format(), "".join(map(str, d)), r) for c, d, r in run] for run in fresh]
    fresh_again = [random_cards(v, values, args.calls, args.seed + 101 + run) for run in range(args.call_runs)]
    n = args.n
    peer_med = statistics.median(peer_ts)
    return {
        "ruleset": ruleset,
        "n": n,
        "ours_batch_s": {"median": statistics.median(ts), "min": min(ts), "max": max(ts)},
        "ours_per_s": n / statistics.median(ts),
        "peer_batch_s": {"median_s": peer_med, "min_s": min(peer_ts), "max_s": max(peer_ts)},
        "peer_per_s": n / peer_med,
        "speedup": peer_med / statistics.median(ts),
        "check": check,
        "best_action_us": per_call(adv.best_action, sits, args.call_runs),
        "advise_us": per_call(adv.advise, sits, args.call_runs),
        "table_best_action_us": per_call(table.best_action, texts, args.call_runs),
        "table_advise_us": per_call(table.advise, texts, args.call_runs),
        "best_action_fresh_us": per_call_runs(adv.best_action, sits[:100], fresh),
        "table_best_action_fresh_us": per_call_runs(table.best_action, texts[:100], fresh_texts),
        "table_objects_fresh_us": per_call_runs(table.best_action, [], fresh_again),
        "peer_text_best_action_us": peer_json["text"]["best_action_median_us"],
        "peer_text_option_values_us": peer_json["text"]["option_values_median_us"],
        "by_roll": by_roll(ruleset, v, values, args, tmp),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5, help="batch runs (ours and the peer's)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rulesets", nargs="+", choices=RULESETS, default=list(RULESETS))
    ap.add_argument("--calls", type=int, default=2000, help="random situations for the single-call timings")
    ap.add_argument("--call-runs", type=int, default=5)
    ap.add_argument("--text-calls", type=int, default=5000, help="the peer's text-API calls")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not PEER_PY.exists():
        sys.exit(f"the peer's interpreter is missing: create it as benchmarks/peer_yatzy_solver.py says ({PEER_PY})")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        results = [bench(r, args, Path(tmp)) for r in args.rulesets]
    load = {"before": load_before, "after": os.getloadavg()}
    if args.json:
        print(json.dumps({"load_average": load, "results": results}, indent=2))
        return
    print(f"load average (1, 5, 15 min) before {load['before']}, after {load['after']}")
    for r in results:
        c = r["check"]
        print(
            f"{r['ruleset']:19s} N={r['n']:,}: ours {r['ours_per_s']:,.0f}/s "
            f"(median {r['ours_batch_s']['median']:.3f} s), "
            f"peer {r['peer_per_s']:,.0f}/s (median {r['peer_batch_s']['median_s']:.3f} s): {r['speedup']:.2f}x\n"
            f"  values: max abs diff {c['max_abs_diff']:.2e} (NaN/missing {c['nan_or_missing']}, option-count "
            f"mismatches {c['option_count_mismatches']}); best value max diff {c['best_value_max_diff']:.2e}; "
            f"best disagrees (untied) {c['best_disagree_untied']}, peer ties {c['peer_ties']}\n"
            f"  best_action µs/call, medians of runs: {' '.join(f'{x:.1f}' for x in r['best_action_us'])}; "
            f"advise (all options): {' '.join(f'{x:.1f}' for x in r['advise_us'])}; "
            f"Table (card and dice as strings): best_action {' '.join(f'{x:.1f}' for x in r['table_best_action_us'])}, "
            f"advise {' '.join(f'{x:.1f}' for x in r['table_advise_us'])}; "
            f"best_action on situations new in each run: {' '.join(f'{x:.1f}' for x in r['best_action_fresh_us'])}, "
            f"through Table {' '.join(f'{x:.1f}' for x in r['table_best_action_fresh_us'])}, "
            f"as Card objects and dice tuples {' '.join(f'{x:.1f}' for x in r['table_objects_fresh_us'])}; "
            f"peer text best_action {r['peer_text_best_action_us']:.1f}, option_values "
            f"{r['peer_text_option_values_us']:.1f}"
        )
        for roll, row in r["by_roll"].items():
            print(
                f"  roll {roll}: Advisor.best_action µs/call, medians of runs: same card new dice "
                f"{' '.join(f'{x:.1f}' for x in row['same_card_us'])}; new card each call "
                f"{' '.join(f'{x:.1f}' for x in row['new_card_us'])}; peer text best_action, runs between ours "
                f"{' '.join(f'{x:.1f}' for x in row['peer_us'])}"
            )


if __name__ == "__main__":
    main()
