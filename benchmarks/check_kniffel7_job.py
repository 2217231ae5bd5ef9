"""Kniffel 7's target-table job against the exact on-demand computation (issue 28, item 6): random cards of the
built layers, each card's whole column (P(at least n more points), every need the job stores) from the job's
layer files against chances/target_ordered.py computed from the card, bit for bit, and the target advice for one
random roll (every keep or box, rolls 1-3) from the job's next layer against the on-demand advice. A layer still
under way (its .part file and the marks of the chunks done) is checked the same way on cards of its finished
chunks, their columns only (the advice needs the layer whole).

    .venv/bin/python benchmarks/check_kniffel7_job.py .jobs/k7-target --cards 20 --seed 1

Prints per layer: cards checked, columns compared, the largest difference (0 when bit-identical), and the seconds
of the on-demand computation against the answer from the job. Exit code 1 when any figure differs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np


def random_card(variant, filled: int, rng, values):
    """A card with `filled` random boxes, each holding a score some roll gives that box, drawn again until it
    is a card that can occur (a finite value in the EV table `values`: some such cards cannot, as the
    advisor says, e.g. an upper total no set of rolls gives)."""
    from solver.advice.cards import box_values, parse_card

    while True:
        boxes = rng.choice(len(variant.boxes), size=filled, replace=False)
        entries = []
        for b in sorted(boxes):
            entries.append(f"{variant.boxes[b].key}={int(rng.choice(sorted(box_values(variant, b))))}")
        card = parse_card(variant, ",".join(entries))
        if np.isfinite(values[card.state]):
            return card


_LAYOUTS: dict = {}  # the job's flat layout, built once


def layer_position(job, variant, filled: int, state) -> tuple[int, int]:
    """(where the state's column starts in its layer's values, its length): the flat layout of
    dp/target_layout.py, a layer's file starting at its first item."""
    from solver import dp
    from solver.dp.target_layout import target_layout
    from solver.jobs.task import job_engine

    if job.path not in _LAYOUTS:
        dropped = tuple(range(job.from_filled))
        _LAYOUTS[job.path] = target_layout(job_engine(variant), job.manifest["n_max"], job.lengths(), dropped)
    layout = _LAYOUTS[job.path]
    masks, flags = dp.layer_items(variant, filled)
    mask, upper, flag = (int(x) for x in state)
    start = int(layout.offset[mask, flag]) - int(layout.offset[masks[0], flags[0]])
    n = int(layout.length[mask, flag])
    return start + int(layout.col[layout.row[mask, flag], upper]) * n, n


def part_column(job, variant, filled: int, state) -> np.ndarray | None:
    """The state's column from the .part file of a layer under way, when the chunk that holds it is done and
    still matches its mark (JobFolder.chunk_ok); None otherwise."""
    from solver.jobs.folder import DTYPE

    at, n = layer_position(job, variant, filled, state)
    layer, header = job._layer(filled)
    index = int(np.searchsorted(layer["at"], at, side="right")) - 1
    if not job.chunk_ok(filled, index):
        return None
    assert at + n <= layer["at"][index + 1]  # a state's needs are never cut between chunks
    with open(job.part_path(filled), "rb") as fh:
        fh.seek(len(header) + at * DTYPE.itemsize)
        return np.frombuffer(fh.read(n * DTYPE.itemsize), dtype=DTYPE).copy()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("job_dir", type=Path)
    parser.add_argument("--cards", type=int, default=20, help="cards a layer")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--layers", type=int, nargs="*", help="boxes filled (default: every layer that can answer)")
    args = parser.parse_args()

    from solver import api
    from solver.chances.ordered_chances import ordered_target_advice, targets_from
    from solver.chances.ordered_job import job_targets, lacking, open_target_job
    from solver.rules.presets import KNIFFEL7

    variant = KNIFFEL7
    advisor = api.load("kniffel7").advisor
    job = open_target_job(variant, args.job_dir)
    n_boxes, n_max = len(variant.boxes), int(job.manifest["n_max"])
    built = sorted(job.done())
    layers = args.layers or [n for n in built if n + 1 in built or n == n_boxes - 1]
    under_way = [n for n in layers if n not in built and job.part_path(n).exists()]
    rng = np.random.default_rng(args.seed)
    bad = 0
    print(f"job {job.path}: N {n_max}, layers built {built}, checking {layers}, {args.cards} cards each")
    for filled in under_way:
        bad += check_under_way(job, variant, filled, args.cards, rng, advisor.values)
    layers = [n for n in layers if n not in under_way]
    for filled in layers:
        columns, worst, t_job, t_demand = 0, 0.0, 0.0, 0.0
        for _ in range(args.cards):
            card = random_card(variant, filled, rng, advisor.values)
            if lacking(job, variant, card, card.points + 1) is not None:
                print(f"  {card.format()}: the job cannot answer ({lacking(job, variant, card, card.points + 1)})")
                bad += 1
                continue
            start = time.perf_counter()
            from_job = job_targets(job, variant, card)
            s = from_job.states.state_of[from_job.states.mask_row[card.state[0]], card.state[1], card.state[2]]
            o, n = int(from_job.states.offset[s]), int(from_job.states.length[s])
            got = from_job.states.prob[o : o + n].copy()
            t_job += time.perf_counter() - start
            start = time.perf_counter()
            exact = targets_from(variant, card, np.arange(1, n + 1), limit=float("inf"))
            most = exact.column(card.state)
            want = np.zeros(n)  # the job's lengths are a bound a (mask, flag): beyond the card's most, 0
            want[: min(n, len(most))] = most[:n]
            t_demand += time.perf_counter() - start
            columns += n
            differ = np.flatnonzero(got.view(np.int64) != want.view(np.int64))
            if differ.size:
                bad += 1
                worst = max(worst, float(np.abs(got - want).max()))
                print(f"  {card.format()}: {differ.size} of {n} needs differ (first need {differ[0] + 1})")
            target = card.points + int(rng.integers(1, n + 1))
            dice = tuple(int(rng.choice(faces)) for faces in variant.dice)  # seven different dice
            roll = int(rng.integers(1, 4))
            a = ordered_target_advice(advisor, card, dice, roll, target, found=from_job)
            b = ordered_target_advice(advisor, card, dice, roll, target)
            if a is None or b is None or a.as_dict(all_options=True) != b.as_dict(all_options=True):
                bad += 1
                print(f"  {card.format()}: advice for {dice} roll {roll} target {target} differs")
        print(
            f"layer {filled}: {args.cards} cards, {columns} columns, largest difference {worst:g}; "
            f"from the job {t_job:.1f} s, on demand {t_demand:.1f} s"
        )
    print("all equal, bit for bit" if not bad else f"{bad} differences")
    return 1 if bad else 0


def check_under_way(job, variant, filled: int, cards: int, rng, values) -> int:
    """Cards of a layer under way whose chunks are done (drawn until `cards` of them, at most 200 tries a card):
    their columns against the on-demand computation, bit for bit; the number that differ."""
    from solver.chances.ordered_chances import targets_from

    checked, columns, bad, tries, t_demand = 0, 0, 0, 0, 0.0
    while checked < cards and tries < 200 * cards:
        tries += 1
        card = random_card(variant, filled, rng, values)
        got = part_column(job, variant, filled, card.state)
        if got is None:
            continue
        n = len(got)
        start = time.perf_counter()
        most = targets_from(variant, card, np.arange(1, n + 1), limit=float("inf")).column(card.state)
        t_demand += time.perf_counter() - start
        want = np.zeros(n)
        want[: min(n, len(most))] = most[:n]
        checked, columns = checked + 1, columns + n
        differ = np.flatnonzero(got.view(np.int64) != want.view(np.int64))
        if differ.size:
            bad += 1
            print(f"  {card.format()}: {differ.size} of {n} needs differ (first need {differ[0] + 1})")
    done = sum(job.chunk_written(filled, i) for i in range(len(job._layer(filled)[0]["chunks"])))
    print(
        f"layer {filled} (under way, {done} chunks done): {checked} cards of its done chunks ({tries} drawn), "
        f"{columns} columns, {'all equal' if not bad else f'{bad} differ'}; on demand {t_demand:.1f} s"
    )
    return bad + (checked < cards)


if __name__ == "__main__":
    sys.exit(main())
