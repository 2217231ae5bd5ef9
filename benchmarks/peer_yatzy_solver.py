"""Advice from the peer solver `yatzy-solver` 1.0.0 (PyPI, Rust): its values of every option and its speed.

Run this script with the peer's own interpreter, never ours (it imports only numpy and yatzy_solver):

    python3 -m venv benchmarks/.venv-yatzy-solver
    benchmarks/.venv-yatzy-solver/bin/pip install yatzy-solver==1.0.0 numpy
    PY=benchmarks/.venv-yatzy-solver/bin/python
    $PY benchmarks/peer_yatzy_solver.py random  --ruleset yahtzee --n 500 --out /tmp/sit.npz   # test input
    $PY benchmarks/peer_yatzy_solver.py advise  --ruleset yahtzee --input /tmp/sit.npz --output /tmp/peer.npz
    $PY benchmarks/peer_yatzy_solver.py selftest                                             # sanity checks

`advise` prints one JSON object (the timings) on stdout; progress goes to stderr.

Rulesets (ours, /work/shared/RULES.md -> the peer's `Variant` id; the start values agree to 1e-8):

    yahtzee             -> "american+forced-joker"   start 254.58772873449593
    yahtzee-free-joker  -> "american"                start 254.58960948196315
    yatzy               -> "yatzy-scandinavian"      start 248.4399893778553

Input .npz (one row per situation, N rows; the ruleset is --ruleset, or a scalar string array `ruleset`):

    mask   (N,) int   filled boxes, bit i = box i in RULES.md order
    upper  (N,) int   upper total, capped at 63 (any value >= 63 means the same to the peer)
    joker  (N,) bool  the Yahtzee box holds 50 (yahtzee rulesets; must be False for yatzy)
    dice   (N,5) int  faces 1..6, any order (sorted here)
    roll   (N,) int   1, 2 or 3 (the number of the roll just made)

Box order.  The peer's categories, in its score-card order, are exactly RULES.md's order, so box i is peer
category i and the peer's `filled` bitmask is our `mask` unchanged (checked at run time):

    yahtzee*: ones twos threes fours fives sixes three_of_a_kind four_of_a_kind full_house small_straight
              large_straight five_of_a_kind(=Yahtzee) chance                                      (13 boxes)
    yatzy:    ones twos threes fours fives sixes one_pair two_pairs three_of_a_kind four_of_a_kind
              small_straight large_straight full_house chance yatzy                                (15 boxes)

The peer's situation: filled (uint32, = mask), upper (uint16, = upper), armed (bool, = joker: "a filled
Yahtzee box holding 50"), dice (uint8, N x 5), rolls_left (uint8) = 3 - roll.  The dtypes are enforced by the
peer (an int64 array is refused).  Its text notation, e.g. for roll 2 with Ones and the Yahtzee box filled:

    "dice 1 3 3 5 6 | rolls 1 | upper 3 | filled ones,five_of_a_kind | five_of_a_kind 50"

(dice ascending; `filled -` when nothing is filled; the `five_of_a_kind 50|0` field is required exactly when
that box is filled, American rules only; `upper` must be 0 when no upper box is filled.)

Options (peer action codes, `Variant.action_notation(code)`): codes 0..B-1 are "score <box>" in box order;
codes B.. are "keep -", "keep 1", ..., "keep 6 6 6 6": every multiset of 0..4 kept dice, by size then
lexicographically (210 keeps).  There is no "keep all five": at rolls 1 and 2 the "score <box>" options are
legal too and mean "stop rolling and score now", which is what keeping all five dice amounts to.  So:

    roll 3:    the options are the legal boxes (under forced joker only the forced ones are legal).
    roll 1, 2: the options are the keeps of 0..4 dice that are sub-multisets of the dice, plus scoring now.

Values.  The peer returns, for every option, the EXPECTED SCORE STILL TO COME from this decision under
optimal play afterwards: it includes this turn's box score, the upper bonus if this entry reaches 63 and
the extra-Yahtzee bonus of this turn, and excludes everything scored before this turn.  Add the score so far
for the expected final score.  (Checked by `selftest`: the empty card's mean over first rolls of the best
option equals the start value; a roll-3 box value equals its points plus the next state's value; a keep's
value equals the mean over its outcomes of the best roll-after value.)

Output .npz:

    values        (N, A) float64  the peer's value of every action code, NaN where the option is illegal
    notation      (A,)   str      the action notation of each code
    box_values    (N, B) float64  values of "score <box>" in RULES.md box order (roll 1/2: score now), NaN if illegal
    keep_values   (N, 462) float64  value of each kept multiset of 0..5 dice (the KEEP table below); NaN when
                                  roll 3 or not a sub-multiset of the dice; the 5-dice keep (= the dice) is
                                  max(box_values), which is the same thing as stopping
    keep_counts   (462, 6) int8   KEEP table: kept count of each face 1..6; order: by number kept, then the
                                  sorted kept faces lexicographically (the peer's keep order, then the 252
                                  five-dice multisets)
    best_code     (N,) int16      the peer's best action code by its best_action() rule: the first option in
                                  legal order (boxes, then keeps) within solver.tie_epsilon = 1e-9 of the best
    best_value    (N,) float64    its value
    n_best        (N,) int16      how many options lie within 1e-9 of the best (ties: > 1; e.g. "score
                                  small_straight" vs "keep 1 2 3 4" on 1 2 3 3 4 differ by 1e-14)
    best_box      (N,) int16      box index of the best option if it is a box (score), else -1
    best_keep     (N,) int16      KEEP index of the best option if it is a keep, else -1
    text_best_code (M,) int16     best_action() of the text API for the first M situations it was timed on
    value_kind    str             "remaining"

Timings (JSON on stdout, seconds): the batch call option_values_batch on all N (median / min / max of
--batch-runs), the dense scatter, and the text API option_values(notation) and best_action(notation),
median per call over --text-calls calls (cycling through the situations; the notation strings are built
beforehand and not timed).  The peer solves its table on all cores (rayon; RAYON_NUM_THREADS=1 limits it);
--table-dir caches the f64 table file so that later runs load it in well under a second.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

RULESETS = {
    "yahtzee": "american+forced-joker",
    "yahtzee-free-joker": "american",
    "yatzy": "yatzy-scandinavian",
}
START_VALUES = {"yahtzee": 254.58772873, "yahtzee-free-joker": 254.58960948, "yatzy": 248.4399894}
BOXES = {
    "yahtzee": [
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "sixes",
        "three_of_a_kind",
        "four_of_a_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "five_of_a_kind",
        "chance",
    ],
    "yatzy": [
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "sixes",
        "one_pair",
        "two_pairs",
        "three_of_a_kind",
        "four_of_a_kind",
        "small_straight",
        "large_straight",
        "full_house",
        "chance",
        "yatzy",
    ],
}
BOXES["yahtzee-free-joker"] = BOXES["yahtzee"]
YAHTZEE_BOX = 11  # five_of_a_kind in the yahtzee rulesets
DEFAULT_TABLE_DIR = Path(__file__).resolve().parent / ".venv-yatzy-solver" / "tables"

# KEEP table: every multiset of 0..5 dice, by size, then lexicographic (the peer's keep order for 0..4).
KEEPS = [k for size in range(6) for k in itertools.combinations_with_replacement(range(1, 7), size)]
KEEP_INDEX = {k: i for i, k in enumerate(KEEPS)}
KEEP_COUNTS = np.array([[k.count(f) for f in range(1, 7)] for k in KEEPS], dtype=np.int8)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def load_solver(ys, ruleset, table_dir):
    """The peer's Solver for our ruleset name, f64, from a cached table file when table_dir is set."""
    variant = ys.Variant(RULESETS[ruleset])
    assert list(variant.categories) == BOXES[ruleset], variant.categories
    t = time.perf_counter()
    if table_dir is None:
        solver = ys.Solver.build(variant)
        how = "build"
    else:
        path = Path(table_dir) / f"{variant.id}.f64.tbl"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            ys.Solver.build_table(variant, str(path), "f64")
            how = "build_table"
        else:
            how = "load"
        solver = ys.Solver.load(str(path), variant)
    return variant, solver, {"how": how, "seconds": time.perf_counter() - t, "precision": solver.precision}


def peer_arrays(ruleset, mask, upper, joker, dice, roll):
    nb = len(BOXES[ruleset])
    mask = np.asarray(mask, dtype=np.int64)
    if (mask < 0).any() or (mask >= (1 << nb) - 1).any():
        raise ValueError(f"mask must be in [0, 2^{nb} - 1): at least one box free")
    joker = np.asarray(joker, dtype=bool)
    if ruleset == "yatzy" and joker.any():
        raise ValueError("yatzy has no joker")
    if ruleset != "yatzy" and (joker & ((mask >> YAHTZEE_BOX) & 1 == 0)).any():
        raise ValueError("joker set while the Yahtzee box is free")
    roll = np.asarray(roll, dtype=np.int64)
    if ((roll < 1) | (roll > 3)).any():
        raise ValueError("roll must be 1, 2 or 3")
    dice = np.sort(np.asarray(dice, dtype=np.int64), axis=1)
    if dice.shape[1] != 5 or ((dice < 1) | (dice > 6)).any():
        raise ValueError("dice must be N x 5 faces 1..6")
    return {
        "filled": mask.astype(np.uint32),
        "upper": np.minimum(np.asarray(upper, dtype=np.int64), 63).astype(np.uint16),
        "armed": joker,
        "dice": dice.astype(np.uint8),
        "rolls_left": (3 - roll).astype(np.uint8),
    }


def notation(ruleset, filled, upper, armed, dice, rolls_left):
    """The peer's text notation of one situation (peer arrays' row)."""
    names = BOXES[ruleset]
    f = int(filled)
    listed = ",".join(n for i, n in enumerate(names) if f >> i & 1) or "-"
    s = f"dice {' '.join(str(int(d)) for d in dice)} | rolls {int(rolls_left)} | upper {int(upper)} | filled {listed}"
    if ruleset != "yatzy" and f >> YAHTZEE_BOX & 1:
        s += f" | five_of_a_kind {50 if armed else 0}"
    return s


def to_our_layout(variant, ruleset, dense, arrays):
    """box_values (N, B) and keep_values (N, 462) from the peer's dense values."""
    nb = len(BOXES[ruleset])
    n = dense.shape[0]
    box_values = dense[:, :nb].copy()
    keep_values = np.full((n, len(KEEPS)), np.nan)
    keep_codes = np.array([variant.action_code("keep " + (" ".join(map(str, k)) or "-")) for k in KEEPS if len(k) < 5])
    n_small = len(keep_codes)  # 210 keeps of 0..4 dice, same order as KEEPS[:210]
    rolling = arrays["rolls_left"] > 0
    keep_values[rolling, :n_small] = dense[rolling][:, keep_codes]
    with np.errstate(all="ignore"):
        stop = np.nanmax(np.where(np.isnan(box_values), -np.inf, box_values), axis=1)
    for i in np.flatnonzero(rolling):
        keep_values[i, KEEP_INDEX[tuple(int(d) for d in arrays["dice"][i])]] = stop[i]
    return box_values, keep_values


def best_of(variant, ruleset, codes, values, counts, eps):
    """The peer's best_action rule on the batch: the first option in legal order within eps of the best."""
    nb = len(BOXES[ruleset])
    v = np.where(np.isnan(values), -np.inf, values)
    near = v >= v.max(axis=1, keepdims=True) - eps
    n_best = near.sum(axis=1).astype(np.int16)
    j = np.argmax(near, axis=1)
    rows = np.arange(len(j))
    best_code = codes[rows, j].astype(np.int16)
    best_value = values[rows, j]
    best_box = np.where(best_code < nb, best_code, -1).astype(np.int16)
    best_keep = np.full(len(j), -1, dtype=np.int16)
    for i, c in enumerate(best_code):
        if c >= nb:
            kept = variant.action_notation(int(c)).split()[1:]
            best_keep[i] = KEEP_INDEX[tuple(int(x) for x in kept if x != "-")]
    return best_code, best_value, best_box, best_keep, n_best


def advise(args):
    import yatzy_solver as ys

    data = np.load(args.input, allow_pickle=False)
    ruleset = args.ruleset or str(data["ruleset"])
    arrays = peer_arrays(ruleset, data["mask"], data["upper"], data["joker"], data["dice"], data["roll"])
    n = len(arrays["filled"])
    variant, solver, load = load_solver(ys, ruleset, None if args.no_table else args.table_dir)
    log(f"{ruleset} -> {variant.id}: solver {load['how']} {load['seconds']:.2f} s, {n} situations")
    call = (arrays["filled"], arrays["upper"], arrays["armed"], arrays["dice"], arrays["rolls_left"])

    solver.option_values_batch(*call)  # warm
    ts = []
    for _ in range(args.batch_runs):
        t = time.perf_counter()
        codes, values, counts = solver.option_values_batch(*call)
        ts.append(time.perf_counter() - t)
    t = time.perf_counter()
    dense = variant.dense(codes, values, counts)
    t_dense = time.perf_counter() - t
    t = time.perf_counter()
    box_values, keep_values = to_our_layout(variant, ruleset, dense, arrays)
    t_layout = time.perf_counter() - t
    best_code, best_value, best_box, best_keep, n_best = best_of(
        variant, ruleset, codes, values, counts, solver.tie_epsilon
    )

    texts = [
        notation(ruleset, *(arrays[k][i] for k in ("filled", "upper", "armed", "dice", "rolls_left")))
        for i in range(min(n, args.text_calls))
    ]
    m = len(texts)
    for s in texts[:100]:
        solver.option_values(s)  # warm
    t_opt, t_best, text_best = [], [], np.full(m, -1, dtype=np.int16)
    pc = time.perf_counter
    for c in range(args.text_calls):
        s = texts[c % m]
        t = pc()
        solver.option_values(s)
        t_opt.append(pc() - t)
    for c in range(args.text_calls):
        s = texts[c % m]
        t = pc()
        a = solver.best_action(s)
        t_best.append(pc() - t)
        if c < m:
            text_best[c] = variant.action_code(a)
    # the text API's values must be the batch's
    worst = 0.0
    for i in range(min(m, 200)):
        for a, val in solver.option_values(texts[i]):
            worst = max(worst, abs(val - dense[i, variant.action_code(a)]))
    agree = int(np.sum(text_best == best_code[:m]))

    np.savez_compressed(
        args.output,
        values=dense,
        notation=np.array([variant.action_notation(c) for c in range(dense.shape[1])]),
        box_values=box_values,
        keep_values=keep_values,
        keep_counts=KEEP_COUNTS,
        best_code=best_code,
        best_value=best_value,
        best_box=best_box,
        best_keep=best_keep,
        n_best=n_best,
        text_best_code=text_best,
        value_kind=np.array("remaining"),
        ruleset=np.array(ruleset),
        peer_variant=np.array(variant.id),
    )

    med = statistics.median(ts)
    out = {
        "ruleset": ruleset,
        "peer_variant": variant.id,
        "peer_version": ys.__version__,
        "n": n,
        "cpus": os.cpu_count(),
        "rayon_threads": os.environ.get("RAYON_NUM_THREADS", "all"),
        "solver": load,
        "batch": {
            "runs": args.batch_runs,
            "median_s": med,
            "min_s": min(ts),
            "max_s": max(ts),
            "per_situation_us": med / n * 1e6,
        },
        "dense_s": t_dense,
        "our_layout_s": t_layout,
        "text": {
            "calls": args.text_calls,
            "distinct_situations": m,
            "option_values_median_us": statistics.median(t_opt) * 1e6,
            "option_values_mean_us": statistics.fmean(t_opt) * 1e6,
            "best_action_median_us": statistics.median(t_best) * 1e6,
            "best_action_mean_us": statistics.fmean(t_best) * 1e6,
        },
        "check": {"text_vs_batch_max_abs_diff": worst, "text_best_agrees_with_batch": f"{agree}/{m}"},
        "value_kind": "expected score still to come (this turn's points included)",
    }
    print(json.dumps(out, indent=2))


def reachable_upper(filled_faces):
    """Every upper total (uncapped) reachable with these faces filled: face x count, count 0..5."""
    totals = {0}
    for f in filled_faces:
        totals = {t + f * c for t in totals for c in range(6)}
    return sorted(totals)


def random_situations(ruleset, n, seed):
    """Random valid situations: random filled set (at least one box free), an upper total reachable with the
    filled upper boxes (capped at 63), joker only with a filled Yahtzee box, random dice and roll."""
    rng = np.random.default_rng(seed)
    nb = len(BOXES[ruleset])
    mask = np.zeros(n, dtype=np.int64)
    upper = np.zeros(n, dtype=np.int64)
    joker = np.zeros(n, dtype=bool)
    for i in range(n):
        k = rng.integers(0, nb)
        boxes = rng.choice(nb, size=k, replace=False)
        mask[i] = sum(1 << int(b) for b in boxes)
        faces = [b + 1 for b in range(6) if mask[i] >> b & 1]
        upper[i] = min(63, int(rng.choice(reachable_upper(faces))))
        if ruleset != "yatzy" and mask[i] >> YAHTZEE_BOX & 1:
            joker[i] = bool(rng.integers(0, 2))
    dice = rng.integers(1, 7, size=(n, 5))
    roll = rng.integers(1, 4, size=n)
    return {"mask": mask, "upper": upper, "joker": joker, "dice": dice, "roll": roll}


def make_random(args):
    sits = random_situations(args.ruleset, args.n, args.seed)
    np.savez(args.out, ruleset=np.array(args.ruleset), **sits)
    log(f"wrote {args.n} {args.ruleset} situations to {args.out}")


def selftest(args):
    """Start values, the meaning of the values (remaining score, this turn included), keeps = expectation."""
    from math import factorial

    import yatzy_solver as ys

    rolls5 = list(itertools.combinations_with_replacement(range(1, 7), 5))

    def prob(kept_rest):  # probability of the multiset of rerolled dice
        c = [kept_rest.count(f) for f in range(1, 7)]
        p = factorial(len(kept_rest))
        for x in c:
            p //= factorial(x)
        return p / 6 ** len(kept_rest)

    ok = True
    for ruleset in RULESETS:
        variant, solver, load = load_solver(ys, ruleset, None if args.no_table else args.table_dir)
        start = solver.state_value("upper 0 | filled -")
        good = abs(start - START_VALUES[ruleset]) < 5e-7
        ok &= good
        log(
            f"{ruleset:20s} -> {variant.id:24s} start {start:.8f} (published {START_VALUES[ruleset]}) "
            f"{'ok' if good else 'MISMATCH'}  [{load['how']} {load['seconds']:.1f} s]"
        )
        # mean over first rolls of the best option = start value
        n = len(rolls5)
        a = peer_arrays(ruleset, np.zeros(n), np.zeros(n), np.zeros(n, bool), np.array(rolls5), np.ones(n))
        codes, values, counts = solver.option_values_batch(
            a["filled"], a["upper"], a["armed"], a["dice"], a["rolls_left"]
        )
        best = np.nanmax(values, axis=1)
        mean = sum(prob(r) * b for r, b in zip(rolls5, best))
        good = abs(mean - start) < 1e-9
        ok &= good
        log(f"  mean of best first-roll option {mean:.10f}: {'ok' if good else 'MISMATCH'}")
        # random situations: roll-3 box value = points + next state's value; keep = mean of best afterwards
        sits = random_situations(ruleset, 300, args.seed)
        a = peer_arrays(ruleset, **sits)
        codes, values, counts = solver.option_values_batch(
            a["filled"], a["upper"], a["armed"], a["dice"], a["rolls_left"]
        )
        dense = variant.dense(codes, values, counts)
        box_values, keep_values = to_our_layout(variant, ruleset, dense, a)
        worst_box = worst_keep = 0.0
        checked_keeps = 0
        for i in range(len(a["filled"])):
            sit = notation(ruleset, a["filled"][i], a["upper"][i], a["armed"][i], a["dice"][i], a["rolls_left"][i])
            state = sit.split(" | ", 2)[2]
            if a["rolls_left"][i] == 0:
                for b, name in enumerate(BOXES[ruleset]):
                    if not np.isnan(box_values[i, b]):
                        nxt, pts = variant.apply_score(state, [int(d) for d in a["dice"][i]], name)
                        fut = 0.0 if variant.is_over(nxt) else solver.state_value(nxt)
                        worst_box = max(worst_box, abs(pts + fut - box_values[i, b]))
            elif checked_keeps < 40:
                checked_keeps += 1
                k = np.flatnonzero(~np.isnan(keep_values[i, :210]))  # keeps of 0..4 dice
                kk = KEEPS[int(k[(i * 7919) % len(k)])]
                rest = 5 - len(kk)
                outs = list(itertools.combinations_with_replacement(range(1, 7), rest))
                m = len(outs)
                dice = np.array([sorted(kk + o) for o in outs])
                b = peer_arrays(
                    ruleset,
                    np.full(m, a["filled"][i]),
                    np.full(m, a["upper"][i]),
                    np.full(m, a["armed"][i]),
                    dice,
                    np.full(m, 4 - int(a["rolls_left"][i])),
                )
                _, v2, _ = solver.option_values_batch(b["filled"], b["upper"], b["armed"], b["dice"], b["rolls_left"])
                exp = sum(prob(o) * x for o, x in zip(outs, np.nanmax(v2, axis=1)))
                worst_keep = max(worst_keep, abs(exp - keep_values[i, KEEP_INDEX[kk]]))
        good = worst_box < 1e-9 and worst_keep < 1e-9
        ok &= good
        log(
            f"  box value = points + next state value: max diff {worst_box:.2e}; keep value = mean of best "
            f"next option ({checked_keeps} keeps): max diff {worst_keep:.2e}  {'ok' if good else 'MISMATCH'}"
        )
    log("selftest " + ("passed" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("advise", "selftest"):
        p = sub.add_parser(name)
        p.add_argument(
            "--table-dir",
            type=Path,
            default=DEFAULT_TABLE_DIR,
            help="cache the peer's f64 table files here (default: inside the peer venv)",
        )
        p.add_argument("--no-table", action="store_true", help="solve in memory every run instead")
        p.add_argument("--seed", type=int, default=1)
    p = sub.choices["advise"]
    p.add_argument("--ruleset", choices=sorted(RULESETS), help="default: the input's `ruleset` array")
    p.add_argument("--input", type=Path, required=True)
    p.add_argument("--output", type=Path, required=True)
    p.add_argument("--batch-runs", type=int, default=7)
    p.add_argument("--text-calls", type=int, default=10_000)
    p = sub.add_parser("random")
    p.add_argument("--ruleset", choices=sorted(RULESETS), required=True)
    p.add_argument("--n", type=int, default=500)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if args.cmd == "advise":
        advise(args)
    elif args.cmd == "random":
        make_random(args)
    else:
        sys.exit(selftest(args))


if __name__ == "__main__":
    main()
