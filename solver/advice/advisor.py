"""One-turn decisions from a table: which dice to keep, which box to fill.

Every option is valued as the expected final score of the game (points on
the card + what the table expects to come), so options compare directly and
the loss of an option is its distance to the best.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np

from .. import numba_setup
from ..dp import ENTRY_AFTER_FIRST, advise_one, make_engine
from ..dp.best_one import best_one, new_turn_pool, pack_best
from ..dp.compile import entry_point
from ..i18n.texts import box_name, speaking_language, t
from ..rules.variant import RuleError, Variant
from .batch import prepare
from .cards import Card
from .explain import card_text, option_text

TIE = 1e-9


def _one_call_at_a_time(kernel):
    """An interpreted kernel (KNIFFEL_JIT=0) behind a lock: best_one claims a slot of the turn pool and fills it in
    one call, which holds the GIL when compiled, but interpreted another thread could claim the slot meanwhile."""
    lock = threading.Lock()

    def call(*args):
        with lock:
            return kernel(*args)

    return call


@dataclass
class Option:
    kind: str  # "keep" or "box"
    expected_final_score: float
    loss: float = 0.0
    keep: tuple[int, ...] = ()  # kind "keep": the faces kept (sorted); all dice = stop rolling
    keep_dice: tuple[int, ...] = ()  # kind "keep", dice told apart: which dice are kept (die indices)
    box: int = -1  # kind "box": box index
    points: int = 0  # kind "box": points entered
    extra: int = 0  # kind "box": extra points earned by a further joker
    text: str = ""
    std: float | None = None  # standard deviation of the final score it leads to (None: not computed)

    def as_dict(self, variant: Variant) -> dict:
        d = {
            "kind": self.kind,
            # the CLI's --json: as made with the option (the variant's box names); a web request: wholly in its language
            "text": option_text(variant, self) if speaking_language() else self.text,
            "expected_final_score": round(self.expected_final_score, 9),
            "loss": round(self.loss, 9),
            "std": None if self.std is None else round(self.std, 6),
        }
        if self.kind == "keep":
            d["keep"] = list(self.keep)
            d["reroll"] = variant.n_dice - len(self.keep)
            if variant.die_names:
                d["keep_dice"] = [variant.die_names[i] for i in self.keep_dice]
        else:
            d.update(
                box=variant.boxes[self.box].key,
                box_name=box_name(variant, self.box) if speaking_language() else variant.box_name(self.box),
                points=self.points,
                extra=self.extra,
            )
        return d


def _faces_text(faces) -> str:
    return " ".join(str(f) for f in faces)


class Advisor:
    """Advice for identical dice from a solved table.

    Every option's value comes from one call of the advice kernel (dp.advise_one, the single-situation
    form of the batch kernel in solver/advice/batch.py), so the one-at-a-time and the batch answers are the same
    numbers."""

    def __init__(self, variant: Variant, values: np.ndarray):
        self.variant = variant
        self.values = values
        self.engine = make_engine(variant)
        lat = self.engine.lattice
        assert lat is not None  # identical dice
        self.faces = variant.faces
        self.n_dice = variant.n_dice
        self.n_boxes = len(variant.boxes)
        self._box_names = [variant.box_name(i) for i in range(len(variant.boxes))]
        self.keep_index = {tuple(int(c) for c in row): k for k, row in enumerate(lat.counts)}
        self.first_roll = int(lat.size_start[variant.n_dice])
        self._prep = prepare(self.engine)
        self._packed = self._prep.packed
        self._width = self._prep.n_options
        # per keep-lattice row: the faces kept and the option's text (they depend on the keep alone)
        self._keep_faces: list[tuple[int, ...]] = []
        self._keep_text: list[str] = []
        n = self.n_dice
        for row in lat.counts:
            faces = tuple(f for f, c in zip(self.faces, row) for _ in range(int(c)))
            size = len(faces)
            if size == n:
                text = f"keep all: {_faces_text(faces)} (stop rolling)"
            elif size == 0:
                text = f"reroll all {n} dice"
            else:
                text = f"keep {_faces_text(faces)}, reroll {n - size} {'die' if n - size == 1 else 'dice'}"
            self._keep_faces.append(faces)
            self._keep_text.append(text)
        self._keep_proto = [
            vars(Option("keep", 0.0, keep=f, text=t)) for f, t in zip(self._keep_faces, self._keep_text)
        ]
        self._roll_of_dice = {faces: k - self.first_roll for k, faces in enumerate(self._keep_faces) if len(faces) == n}
        self._buffers = threading.local()
        # best_action's fast path: one kernel call with three arrays, the dice in die order looked up directly,
        # each card's state kept with its entries (Card.summary), options made from prototypes
        self._best_packed = pack_best(self.engine.rules, lat, self._prep.tabs)
        self._joker_roll = self.engine.rules.joker_roll.tolist()
        self._first_roll_points = variant.has_first_roll_points
        self._row_of_dice: dict = {}  # filled as dice in die order are asked (listing every order costs 0.1 s)
        self._box_protos: dict[tuple[int, int, int], dict] = {}
        # the turns best_one remembers (made at the first call): a state asked again (new dice, the next roll,
        # another card in that state) is a look-up while no other state has taken its slot
        self._lattice = lat
        self._turn_pool: np.ndarray | None = None
        self._best_one = best_one if numba_setup.JIT else _one_call_at_a_time(best_one)

    # -- values -----------------------------------------------------------
    def future(self, card: Card) -> float:
        value = self.values[card.state]
        if not np.isfinite(value):
            raise RuleError(t("card_cannot_occur", card=card_text(card), variant=self.variant.name))
        return float(value)

    def expected_final(self, card: Card) -> float:
        mask, capped_upper, joker_scored, points = card.summary()
        value = self.values[mask, capped_upper, joker_scored]
        if not math.isfinite(value):
            raise RuleError(f"the card {card.format()!r} cannot occur under the rules of {self.variant.name}")
        return points + float(value)

    def _counts(self, dice) -> tuple[int, ...]:
        return tuple(sum(1 for d in dice if d == f) for f in self.faces)

    def _roll_row(self, dice) -> int:
        """Row of the rules' roll tables for these dice."""
        r = self._roll_of_dice.get(tuple(sorted(dice)))
        if r is None:
            raise RuleError(
                t(
                    "dice_impossible",
                    dice=" ".join(map(str, dice)),
                    variant=self.variant.name,
                    count=self.n_dice,
                    low=self.faces[0],
                    high=self.faces[-1],
                )
            )
        return r

    def _options(self, card: Card, dice, roll: int):
        """The kernel's answer for one situation: (state, points on the card, roll row, n, best column,
        codes, values, box points)."""
        if len(card.filled) == self.n_boxes:
            raise RuleError(t("card_full"))
        mask, capped_upper, joker_scored, points = card.summary()
        if not math.isfinite(self.values[mask, capped_upper, joker_scored]):
            raise RuleError(t("card_cannot_occur", card=card_text(card), variant=self.variant.name))
        r = self._roll_row(dice)
        buffers = self._buffers.__dict__.get("out")
        if buffers is None:  # one set per thread: the kernel writes into them, the caller reads them after
            buffers = self._buffers.out = (
                np.empty((1, self._width), dtype=np.int64),
                np.empty((1, self._width)),
                np.empty((1, self._width), dtype=np.int64),
            )
        codes, vals, pts = buffers
        n, best = advise_one(
            self._packed, self.values, mask, capped_upper, joker_scored, r, roll, codes, vals, pts, points
        )
        return joker_scored, points, r, n, best, codes[0], vals[0], pts[0]

    def _keep_option(self, code: int, value: float) -> Option:
        k = code - self.n_boxes
        return Option("keep", value, keep=self._keep_faces[k], text=self._keep_text[k])

    def _box_option(self, b: int, pts: int, extra: int, value: float) -> Option:
        name = self._box_names[b]
        text = f"score {name} for {pts}" if pts > 0 else f"scratch {name} (0)"
        if extra:
            text += f", +{extra} extra"
        return Option("box", value, box=b, points=pts, extra=extra, text=text)

    def _extra(self, joker_scored: int, r: int) -> int:
        return self.variant.extra_points if joker_scored and self.engine.rules.joker_roll[r] else 0

    # -- options ----------------------------------------------------------
    def keep_options(self, card: Card, dice, roll: int) -> list[Option]:
        """Every distinct keep after roll 1 or 2, ranked; keeping all dice = stop rolling."""
        keeps, efs, order, best = self._ranked_keeps(card, dice, roll)
        # made without the dataclass __init__: this list is the hot path of `advise`; losses from the highest
        # value, as rank_options measures them (the tie rule's pick, order[0], may lie up to TIE below it)
        protos, new = self._keep_proto, Option.__new__
        options = []
        for j in order:
            o = new(Option)
            d = protos[keeps[j]].copy()
            d["expected_final_score"] = efs[j]
            loss = best - efs[j]
            d["loss"] = loss if loss >= TIE else 0.0
            o.__dict__ = d
            options.append(o)
        return options

    def ranked_keeps(self, card: Card, dice, roll: int) -> list[int]:
        """keep_options' ranking as keep-lattice indices (rows of engine.lattice.counts; keep_faces gives the
        faces), without making the Options: for callers that rank the keeps by another measure and need
        this ranking only to break its ties (simulate --versus)."""
        keeps, _, order, _ = self._ranked_keeps(card, dice, roll)
        return [keeps[j] for j in order]

    def keep_faces(self, keep: int) -> tuple[int, ...]:
        """The faces (sorted) that keep-lattice index `keep` keeps."""
        return self._keep_faces[keep]

    def _ranked_keeps(self, card: Card, dice, roll: int) -> tuple[list[int], list[float], list[int], float]:
        """(keep-lattice index, expected final score) of every keep, their ranking (the tie rule of
        rank_options) and the highest expected final score, from one kernel call."""
        if roll not in (1, 2):
            raise RuleError(t("keep_after_roll", roll=roll))
        _, points, _, n, _, codes, vals, _ = self._options(card, dice, roll)
        efs = [points + x for x in vals[:n].tolist()]
        keeps = [c - self.n_boxes for c in codes[:n].tolist()]
        order = sorted(range(n), key=efs.__getitem__, reverse=True)
        best = efs[order[0]]
        n_tied = next((i for i, j in enumerate(order) if efs[j] < best - TIE), n)
        if n_tied > 1:  # the tie rule of rank_options among the options tied for best (they come first)
            order[:n_tied] = sorted(order[:n_tied], key=self._tie_key(codes))
        return keeps, efs, order, best

    def box_options(self, card: Card, dice, roll: int = 3) -> list[Option]:
        """Every entry the roll allows when the turn ends after roll `roll`, ranked (after roll 1 with the
        first-roll points, Generala's servida)."""
        first = roll == 1 and self._first_roll_points
        joker_scored, points, r, n, _, codes, vals, pts = self._options(card, dice, ENTRY_AFTER_FIRST if first else 3)
        extra = self._extra(joker_scored, r)
        return rank_options(
            [
                self._box_option(c, p, extra, points + x)
                for c, x, p in zip(codes[:n].tolist(), vals[:n].tolist(), pts[:n].tolist())
            ]
        )

    def advise(self, card: Card, dice, roll: int, box_now: bool = False) -> tuple[str, list[Option]]:
        """('keep' or 'box', ranked options) for this point of the turn."""
        if roll not in (1, 2, 3):
            raise RuleError(t("roll_number", roll=roll))
        if roll == 3 or box_now:
            return "box", self.box_options(card, dice, roll)
        return "keep", self.keep_options(card, dice, roll)

    def decision(self, card: Card, dice, roll: int, kept=None, box: int = -1, points: int = 0):
        """(chosen, best) for a decision taken at this point, valued as advise values it (review): keeping the
        faces `kept` after roll 1 or 2 (all dice = stop rolling), or else entering `points` in `box` after roll
        `roll` (before the last roll: the entries of a turn stopped there). One kernel call gives every
        option's value as arrays; only these two Options are made, with advise's losses and tie rule. chosen
        is None when the decision is not among the options."""
        keep_step = kept is not None
        if keep_step and roll not in (1, 2):
            raise RuleError(t("keep_after_roll", roll=roll))
        first = not keep_step and roll == 1 and self._first_roll_points
        step = roll if keep_step else ENTRY_AFTER_FIRST if first else 3
        joker_scored, base, r, n, best_col, codes, vals, pts = self._options(card, dice, step)
        codes_l, vals_l, pts_l = codes[:n].tolist(), vals[:n].tolist(), pts[:n].tolist()
        top = base + vals_l[best_col]
        tied = [j for j in range(n) if base + vals_l[j] >= top - TIE]
        if keep_step:
            counts = self._counts(kept)
            keep = self.keep_index.get(counts) if sum(counts) == len(kept) else None  # faces of this die only
            matches = [j for j in range(n) if keep is not None and codes_l[j] == self.n_boxes + keep]
            first_tied = min(tied, key=self._tie_key(codes))
        else:
            matches = [j for j in range(n) if codes_l[j] == box and pts_l[j] == points]
            first_tied = min(tied, key=codes_l.__getitem__)  # the lowest box, the first listed
        extra = 0 if keep_step else self._extra(joker_scored, r)

        def option(j: int) -> Option:
            efs = base + vals_l[j]
            o = self._keep_option(codes_l[j], efs) if keep_step else self._box_option(codes_l[j], pts_l[j], extra, efs)
            loss = top - efs
            o.loss = loss if loss >= TIE else 0.0
            return o

        return (option(matches[0]) if matches else None), option(first_tied)

    def best_action(self, card: Card, dice, roll: int) -> Option:
        """The best option only (the first of advise's ranking), without building the others: one kernel call
        (dp.best_one.best_one) applies the tie rule and returns the option's code, value and points. The turn of
        each state asked at roll 1 or 2 is remembered (a pool of slots): the same state asked again, with new
        dice or at its next roll, is a look-up."""
        if roll not in (1, 2, 3):
            raise RuleError(t("roll_number", roll=roll))
        if roll == 1 and self._first_roll_points:  # best_one has no first-roll (servida) stop
            return self.advise(card, dice, roll)[1][0]
        if len(card.filled) == self.n_boxes:
            raise RuleError(t("card_full"))
        mask, capped_upper, joker_scored, points = card.summary()  # whether the state can occur, best_one says
        try:
            r = self._row_of_dice[dice]
        except KeyError:  # these dice in this order for the first time
            r = self._roll_row(dice)
            if len(self._row_of_dice) < 100_000:
                self._row_of_dice[dice] = r
        except TypeError:  # a list: not a key
            r = self._roll_row(dice)
        turns = self._turn_pool
        if turns is None:
            turns = self._turn_pool = new_turn_pool(self._lattice)
        args = (mask, capped_upper, joker_scored, r, roll, float(points), *self._best_packed, self.values, turns)
        code, value, pts = self._best_one(*args)
        if self._best_one is best_one:  # compiled now: from the next call on, its entry point (types fixed here)
            self._best_one = entry_point(best_one, args)
        if code < 0:
            raise RuleError(t("card_cannot_occur", card=card_text(card), variant=self.variant.name))
        o = Option.__new__(Option)  # from a prototype: the dataclass __init__ costs more than the kernel's answer
        if code >= self.n_boxes:
            d = self._keep_proto[code - self.n_boxes].copy()
        else:
            extra = self.variant.extra_points if joker_scored and self._joker_roll[r] else 0
            proto = self._box_protos.get((code, pts, extra))
            if proto is None:
                proto = self._box_protos[code, pts, extra] = vars(self._box_option(code, pts, extra, 0.0))
            d = proto.copy()
        d["expected_final_score"] = value
        o.__dict__ = d
        return o

    def _tie_key(self, codes):
        """Among keeps tied for best (rank_options's rule): the most dice, then the smallest sorted faces."""
        faces, n_boxes = self._keep_faces, self.n_boxes

        def key(j: int):
            kept = faces[int(codes[j]) - n_boxes]
            return (-len(kept), kept)

        return key

    def _check_card(self, card: Card) -> None:
        if card.full:
            raise RuleError(t("card_full"))
        self.future(card)


def rank_options(options: list[Option]) -> list[Option]:
    """Best first; among options within TIE of the best, the tie rule of dp/forward.py: the keep with
    the most dice (all = stop), then the smallest sorted faces (dice told apart: the smallest kept die
    indices); the lowest box index."""
    best = max(o.expected_final_score for o in options)
    options.sort(
        key=lambda o: (
            (0, -len(o.keep), o.keep_dice, o.keep, o.box)
            if o.expected_final_score >= best - TIE
            else (1, -o.expected_final_score)
        )
    )
    for o in options:
        o.loss = max(0.0, best - o.expected_final_score)
        if o.loss < TIE:
            o.loss = 0.0
    return options
