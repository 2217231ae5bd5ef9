"""Kniffel 7's target answers (dice told apart) from the built layers of a target-table job (solver/jobs):
`advise kniffel7 --target T --job-dir DIR` and `chances kniffel7 --target T --job-dir DIR`.

A job (`kniffel solve kniffel7 --target --job-dir DIR --from-filled K --n-max N`) stores, for every card with K
or more boxes filled, P(at least n more points) for the needs 1..min(N, the most the card can still score), in
the flat layout of dp/target_layout.py. A card's answers need two of its layers: the card's own (its chance)
and the next one (the turn's keeps and boxes, through the distinct-dice target kernel). Both are read, checked
against the checksums the job recorded, and handed to the kernel as TargetStates, as the job's chunks read
them: the figures are the on-demand computation's (target_ordered.py) bit for bit, at any card of those layers.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from ..advice.cards import Card
from ..dp import layer_items
from ..dp.engine import Engine
from ..dp.ordered_target import TargetStates
from ..dp.target_layout import target_layout
from ..i18n.texts import t
from ..jobs.folder import MANIFEST, JobError, JobFolder, identity
from ..jobs.ordered_task import _items_states, _lookup
from ..rules.variant import Variant
from .ordered_chances import _engine

State = tuple[int, int, int]  # (mask, capped upper total, joker_scored)


class JobTargets(NamedTuple):
    """The probabilities of a card's layer and the next one, as OrderedTargets offers them (ordered_chances.py's
    ordered_target_options and ordered_target_advice take either)."""

    engine: Engine
    states: TargetStates
    path: Path  # the job folder, for the line that says what these layers do not hold
    layers: tuple[int, ...]  # boxes filled of the layers read
    n_max: int  # the job's N: the needs stored, at most

    def probability(self, state: State, need: int) -> float:
        """P(scoring at least `need` more points) from `state` at the start of a turn, playing for it; JobError
        (one line) for a state not in the layers read or a need above N where the state can score more: never a
        silent figure."""
        if need <= 0:
            return 1.0
        mask, upper, flag = state
        if mask == (1 << self.engine.rules.score.shape[1]) - 1:
            return 0.0
        row = self.states.mask_row[mask]
        s = self.states.state_of[row, upper, flag] if row >= 0 and 0 <= upper < self.states.state_of.shape[1] else -1
        length = self.states.length[s] if s >= 0 else 0
        if s < 0 or (need > self.n_max and length == self.n_max):  # a length under N: all the state can score
            shown = "-".join(dict.fromkeys(str(n) for n in (min(self.layers), max(self.layers))))
            filled = bin(mask).count("1")
            raise JobError(
                t("job_answers_outside", path=self.path, layers=shown, n=self.n_max, filled=filled, need=need)
            )
        if need > length:
            return 0.0
        return float(self.states.prob[self.states.offset[s] + need - 1])


def open_target_job(variant: Variant, path: Path) -> JobFolder:
    """The target-table job of `variant` in `path` (the --job-dir of `kniffel solve`, or its target/ folder);
    JobError (one line) for no job folder, one of another variant, rules, solver version, kind or job format,
    or a damaged manifest."""
    inside = [path / kind for kind in ("target", "ev") if (path / kind / MANIFEST).exists()]  # solve's --job-dir
    folder = inside[0] if inside and not (path / MANIFEST).exists() else path  # an ev/ alone: said what it holds
    job = JobFolder.read(folder)
    m = job.manifest
    want = identity(variant, "target", m["n_max"], job.from_filled)
    got = {k: m.get(k) for k in want}
    if got != want:
        found = f"{got['variant']} {got['kind']} (version {got['solver_version']}, job format {got['format']})"
        raise JobError(t("job_answers_other", path=folder, found=found, variant=variant.name))
    job.lengths()  # read once: a missing or damaged lengths.npy is one line now, not later
    return job


def lacking(job: JobFolder, variant: Variant, card: Card, target: int) -> str | None:
    """Why the job cannot answer for this card and target (one line), None when it can: the card's layer (or the
    next one) is not built, or the need is above the job's N."""
    filled, n_boxes = len(card.filled), len(variant.boxes)
    if filled == n_boxes:
        return t("target_card_full")
    built = sorted(job.done())
    needed = [n for n in (filled, filled + 1) if n < n_boxes]
    if any(n not in built for n in needed):
        shown = "-" if not built else str(built[0]) if len(built) == 1 else f"{built[0]}-{built[-1]}"
        return t("job_answers_layer", path=job.path, filled=filled, built=shown)
    need = target - card.points
    if need > job.manifest["n_max"]:
        return t("job_answers_need", path=job.path, n=job.manifest["n_max"], need=need)
    return None


def job_targets(job: JobFolder, variant: Variant, card: Card, target: int | None = None) -> JobTargets:
    """The probabilities of the card's layer and the next one, each layer file checked against the checksum the
    job recorded (JobError, one line, when it does not match); JobError with lacking()'s line where the job does
    not hold them (or, given the target, where its need is above N)."""
    why = lacking(job, variant, card, card.points + 1 if target is None else target)
    if why is not None:
        raise JobError(why)
    engine = _engine(variant)
    filled = len(card.filled)
    layers = [n for n in (filled + 1, filled) if n < len(variant.boxes)]  # the flat layout's order: late first
    done = job.done()
    for n in layers:
        if not job.layer_ok(n, done[n]["sha256"]):
            raise JobError(t("job_damaged", path=job.path / f"layer-{n:02d}.npy"))
    layout = target_layout(engine, job.manifest["n_max"], job.lengths(), tuple(range(job.from_filled)))
    items_of = [layer_items(variant, n) for n in layers]
    base = int(layout.offset[items_of[0][0][0], items_of[0][1][0]])
    items, n_states = [], 0
    for masks, flags in items_of:
        more, n_states = _items_states(engine, layout, masks, flags, base, n_states)
        items += more
    size = sum(len(totals) * int(layout.length[mask, flag]) for mask, flag, totals, _, _ in items)
    states = _lookup(engine, layout, items, n_states, size)
    at = 0
    for n in layers:
        at += job.read_layer(n, states.prob[at:])
    if at != size:
        raise JobError(t("job_damaged", path=job.path))
    return JobTargets(engine, states, job.path, tuple(layers), int(job.manifest["n_max"]))


class ServedJob:
    """A server's job (`kniffel serve --job-dir`): found(card, target) gives the probabilities of the card's
    layers when the job holds them, else None (answered as without the job). The layers of the last card are
    kept, read and checked once: a game's next card is in the same layers or the next ones."""

    def __init__(self, variant: Variant, job: JobFolder):
        self.variant, self.job = variant, job
        self._last: tuple[int, JobTargets] | None = None

    def found(self, card: Card, target: int) -> JobTargets | None:
        if lacking(self.job, self.variant, card, target) is not None:
            return None
        filled = len(card.filled)
        if self._last is None or self._last[0] != filled:
            self._last = None  # the old layers freed before the new ones are read
            self._last = filled, job_targets(self.job, self.variant, card, target)
        return self._last[1]
