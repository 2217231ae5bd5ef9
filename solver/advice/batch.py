"""Advice in numpy batches (identical dice): the value of every option of many situations in one call,
and state values for arrays of states.

A situation is one row of the arrays mask (filled boxes, bit i = box i in the variant's box order), upper
(the upper total; totals at or above the highest bonus threshold are alike), joker (whether the joker box
holds points; 0 where the variant has no such flag), dice (N, n_dice) faces in any order, and roll (1, 2 or
3: the number of the roll just made).

Options and their codes (see dp/advice.py): after roll 1 or 2, every distinct keep of the dice (keeping
all dice = stop rolling; at roll 2 of a keep-a-die variant only keeps of at least that many dice); after
roll 3, every entry the rules allow. Code b < B is box b, code B + k keeps the dice of keep-lattice row k;
`decode_option` turns a code back into a keep or a box. Values are points still to come: the expected
final score minus the points already on the card.

The best option of a situation is the first of the highest value in option order (the advisor's rule:
a stable sort by value, descending). Pass the Engine (dp.make_engine; an Advisor holds one, `.engine`)
rather than the Variant where calls repeat: building it takes tens of ms.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np

from ..dp import AdviceTables, Engine, advice_tables, advise_batch, make_engine, max_options, pack_single, roll_entries
from ..dp.compile import require_jit
from ..dp.lanes import in_threads
from ..errors import KniffelError
from ..rules import checks
from ..rules.dice import KeepLattice
from ..rules.scoring import possible_points
from ..rules.variant import Variant

BLOCK = 16  # distinct states per parallel task: their turns are the columns of one array (vector loops)


class AdviceInputError(KniffelError):
    """Arrays of situations or states that the batch calls cannot take."""


class BatchAdvice(NamedTuple):
    """Every option of every situation; row i is situation i, columns are its options in option order."""

    codes: np.ndarray  # (N, M) int32 option codes, -1 past the situation's options
    values: np.ndarray  # (N, M) float64 points still to come of each option, NaN past the options
    n_options: np.ndarray  # (N,) int64 how many options each situation has
    best: np.ndarray  # (N,) int64 column of the best option (the first of the highest value)

    @property
    def best_code(self) -> np.ndarray:
        return self.codes[np.arange(len(self.best)), self.best]

    @property
    def best_value(self) -> np.ndarray:
        return self.values[np.arange(len(self.best)), self.best]


class Prepared(NamedTuple):
    """What the advice kernel needs besides the table, built once per engine."""

    engine: Engine
    lattice: KeepLattice
    tabs: AdviceTables
    packed: tuple[np.ndarray, np.ndarray]  # pack_single(...): for the single-situation kernel
    n_options: int  # M
    roll_of_code: np.ndarray  # (n_dice + 1)^F: base-(n_dice+1) code of the face counts -> roll row, -1 if none
    faces: np.ndarray  # (F,) the faces, ascending
    first_roll: int  # keep-lattice index of the first roll of all dice


_PREPARED: dict[int, Prepared] = {}
_NO_POINTS = np.empty((0, 0), dtype=np.int64)


def prepare(engine: Engine | Variant) -> Prepared:
    """The kernel's tables for an engine (cached per engine object); refuses dice told apart."""
    if not isinstance(engine, Engine):
        engine = _engine_for(_variant(engine))
    hit = _PREPARED.get(id(engine))
    if hit is not None and hit.engine is engine:
        return hit
    lat = engine.lattice
    if lat is None:
        raise AdviceInputError(
            f"{engine.variant.name}: batch advice covers identical dice only; the dice of this variant are told "
            f"apart (advise one situation at a time)"
        )
    v = engine.variant
    n, faces = v.n_dice, np.array(v.faces, dtype=np.int64)
    first = int(lat.size_start[n])
    weights = (n + 1) ** np.arange(len(faces), dtype=np.int64)
    roll_of_code = np.full((n + 1) ** len(faces), -1, dtype=np.int64)
    roll_of_code[lat.counts[first:].astype(np.int64) @ weights] = np.arange(lat.counts.shape[0] - first)
    tabs = advice_tables(lat)
    prepared = Prepared(
        engine,
        lat,
        tabs,
        pack_single(engine.rules, lat, tabs),
        max_options(lat, len(v.boxes)),
        roll_of_code,
        faces,
        first,
    )
    if len(_PREPARED) >= 16:  # engines made over and over (one per Advisor) must not pile up
        _PREPARED.pop(next(iter(_PREPARED)))
    _PREPARED[id(engine)] = prepared
    return prepared


_ENGINES: dict[Variant, Engine] = {}


def _variant(engine) -> Variant:
    if not isinstance(engine, Variant):
        raise AdviceInputError(f"expected an Engine (table.advisor.engine) or a Variant, not {checks.shown(engine)}")
    return engine


def _engine_for(variant: Variant) -> Engine:
    if not variant.identical_dice:
        raise AdviceInputError(
            f"{variant.name}: batch advice covers identical dice only; the dice of this variant are told apart "
            f"(advise one situation at a time)"
        )
    if variant not in _ENGINES:
        _ENGINES[variant] = make_engine(variant)
    return _ENGINES[variant]


INT64_MAX = np.iinfo(np.int64).max


def _integers(name: str, value, allowed: str, kinds: str = "iu") -> np.ndarray:
    """value as a numpy array of integers (of bools too where kinds has "b"), one dtype check for the whole
    array. Floats are refused even when whole: 1e20 has no int64, and 3.7 would become 3."""
    try:
        a = np.asarray(value)
    except (ValueError, TypeError, OverflowError):  # a ragged nested list
        got = checks.shown(value)
        raise AdviceInputError(f"{name}: expected an array of integers ({allowed}), got {got}") from None
    if a.size == 0 and a.dtype.kind == "f":  # [] is an empty batch
        a = a.astype(np.int64)
    if a.dtype.kind not in kinds or a.dtype == np.uint64 and a.size and a.max() > INT64_MAX:
        got = checks.shown(value) if a.ndim == 0 else f"an array of {a.dtype}"
        raise AdviceInputError(f"{name}: expected integers ({allowed}), got {got}")
    return a


def _int_array(name: str, value, n: int | None, allowed: str, kinds: str = "iu") -> np.ndarray:
    """value as an int64 array of shape (n,) (a scalar is repeated); refuses non-integers."""
    a = _integers(name, value, allowed, kinds)
    if a.ndim == 0 and n is not None:
        a = np.full(n, a, dtype=np.int64)
    if a.ndim != 1 or (n is not None and a.shape[0] != n):
        want = "one value per situation" if n is None else f"shape ({n},), one value per situation"
        raise AdviceInputError(f"{name}: expected {want}, got shape {a.shape}")
    return a.astype(np.int64, copy=False)


def _refuse(name: str, a: np.ndarray, bad: np.ndarray, allowed: str) -> None:
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise AdviceInputError(f"{name}[{i}] = {a[i]}: {allowed} ({int(bad.sum())} bad rows)")


@cache
def _upper_sums(variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """(subset, sums): subset[mask] the mask's filled upper boxes as a subset s (bit i: upper box i); sums[s, u]
    whether those boxes can hold u points together. The table tells totals below the cap apart only (those
    above are alike), so that a total its filled boxes can never make (Ones to Fives: at most 75) is found here."""
    uppers = [b for b, box in enumerate(variant.boxes) if box.is_upper]
    points = [possible_points(variant, b) for b in uppers]
    sums = np.zeros((1 << len(uppers), sum(map(max, points), 1)), dtype=bool)
    sums[0, 0] = True
    for s in range(1, len(sums)):
        i = (s & -s).bit_length() - 1  # its lowest box, added to the subset without it
        for p in points[i]:
            sums[s, p:] |= sums[s & (s - 1), : sums.shape[1] - p]
    masks = np.arange(1 << len(variant.boxes))
    subset = sum(((masks >> b) & 1) << i for i, b in enumerate(uppers))
    return np.asarray(subset, dtype=np.int64), sums


def upper_reachable(variant: Variant, mask, upper):
    """Whether the filled upper boxes of mask can hold `upper` points together (arrays, or one state: a bool)."""
    subset, sums = _upper_sums(variant)
    if np.ndim(upper) == 0:
        return upper < sums.shape[1] and bool(sums[subset[mask], upper])
    inside = upper < sums.shape[1]
    return inside & sums[subset[mask], np.where(inside, upper, 0)]


def _states(engine: Engine, values: np.ndarray, mask, upper, joker, n: int | None, full_ok: bool):
    """Validated (mask, capped upper, flag) arrays of a reachable state each."""
    v = engine.variant
    n_boxes = len(v.boxes)
    mask = _int_array("mask", mask, n, f"bit masks of the {n_boxes} boxes")
    n = mask.shape[0]
    upper = _int_array("upper", upper, n, "upper totals >= 0")
    joker_scored = _int_array("joker", joker, n, "0 or 1", kinds="iub")
    top = 1 << n_boxes if full_ok else (1 << n_boxes) - 1
    free = "" if full_ok else " (at least one box free)"
    _refuse("mask", mask, (mask < 0) | (mask >= top), f"a mask is 0 .. {top - 1}{free}")
    _refuse("upper", upper, upper < 0, "an upper total is at least 0")
    n_flags = values.shape[2]
    allowed = "0 or 1 (does the joker box hold points?)" if n_flags == 2 else f"0 ({v.name} has no joker flag)"
    _refuse("joker", joker_scored, (joker_scored < 0) | (joker_scored >= n_flags), allowed)
    capped_upper = np.minimum(upper, v.upper_cap)
    bad = ~np.isfinite(values[mask, capped_upper, joker_scored])
    high = upper >= v.upper_cap  # below the cap the table's own NaN tells an unreachable total
    if high.any():
        bad[high] |= ~upper_reachable(v, mask[high], upper[high])
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise AdviceInputError(
            f"situation {i}: the state mask={mask[i]}, upper={upper[i]}, joker={joker_scored[i]} cannot occur "
            f"under the rules of {v.name} (the filled upper boxes cannot make that total, or the joker flag needs "
            f"its box filled) ({int(bad.sum())} such rows)"
        )
    return mask, capped_upper, joker_scored


def state_values(engine: Engine | Variant, values: np.ndarray, mask, upper, joker) -> np.ndarray:
    """Points still to come at the start of a turn, for arrays of states (a full card: 0)."""
    engine = engine if isinstance(engine, Engine) else make_engine(_variant(engine))
    mask, capped_upper, joker_scored = _states(engine, values, mask, upper, joker, None, full_ok=True)
    return values[mask, capped_upper, joker_scored]


def roll_rows(prep: Prepared, dice) -> np.ndarray:
    """The roll row of every row of dice (N, n_dice), faces checked."""
    d = _integers("dice", dice, "faces")
    n = len(prep.engine.variant.dice)
    if d.ndim != 2 or d.shape[1] != n:
        raise AdviceInputError(f"dice: expected shape (N, {n}), one row of {n} faces per situation, got {d.shape}")
    faces = prep.faces
    idx = np.searchsorted(faces, d)
    bad = (idx >= len(faces)) | (faces[np.minimum(idx, len(faces) - 1)] != d)
    if bad.any():
        i, j = (int(x) for x in np.argwhere(bad)[0])
        raise AdviceInputError(
            f"dice[{i}, {j}] = {d[i, j]}: faces are {faces[0]}-{faces[-1]} ({int(bad.any(axis=1).sum())} bad rows)"
        )
    code = ((n + 1) ** idx).sum(axis=1)
    return prep.roll_of_code[code]


def option_values_batch(engine: Engine | Variant, values: np.ndarray, mask, upper, joker, dice, roll) -> BatchAdvice:
    """The value of every option of every situation, and the best one (see the module docstring)."""
    require_jit("jit_batch")
    prep = prepare(engine)
    engine = prep.engine
    d = _integers("dice", dice, "faces")
    if d.ndim != 2:
        raise AdviceInputError(f"dice: expected shape (N, {engine.variant.n_dice}), got {d.shape}")
    n = d.shape[0]
    mask, capped_upper, joker_scored = _states(engine, values, mask, upper, joker, n, full_ok=False)
    rows = roll_rows(prep, d)
    roll = _int_array("roll", roll, n, "1, 2 or 3")
    _refuse("roll", roll, (roll < 1) | (roll > 3), "the roll just made is 1, 2 or 3")
    key = (mask * (engine.variant.upper_cap + 1) + capped_upper) * 2 + joker_scored
    order = np.argsort(key, kind="stable")
    sk = key[order]
    state_ptr = np.concatenate(([0], np.flatnonzero(sk[1:] != sk[:-1]) + 1, [n])).astype(np.int64)
    block_ptr = np.append(np.arange(0, len(state_ptr) - 1, BLOCK), len(state_ptr) - 1).astype(np.int64)
    m = prep.n_options
    codes = np.empty((n, m), dtype=np.int32)
    vals = np.empty((n, m))
    n_options = np.empty(n, dtype=np.int64)
    best = np.empty(n, dtype=np.int64)
    if n:
        in_threads(
            advise_batch,
            len(block_ptr) - 1,
            block_ptr,
            state_ptr,
            order,
            mask,
            capped_upper,
            joker_scored,
            rows,
            roll,
            engine.rules,
            prep.lattice,
            prep.tabs,
            values,
            (codes, vals, n_options, best, _NO_POINTS),
            chunk=4,  # blocks a thread takes at a time: a balanced split at a dispatch per 64 states
        )
    return BatchAdvice(codes, vals, n_options, _tie_rule(prep, codes, vals, n_options, best))


TIE = 1e-9  # as advisor.TIE
_TIE_RANKS: dict[int, np.ndarray] = {}


def _tie_rule(prep: Prepared, codes, vals, n_options, best) -> np.ndarray:
    """The kernel's best (the first highest value) moved to the advisor's choice among the options within
    TIE of it: the lowest box; the keep with the most dice, then the smallest sorted faces."""
    if not len(best):
        return best
    n_boxes = len(prep.engine.variant.boxes)
    ranks = _TIE_RANKS.get(id(prep))
    if ranks is None:
        counts = prep.lattice.counts
        keeps = [tuple(f for f, c in zip(prep.faces.tolist(), row) for _ in range(c)) for row in counts.tolist()]
        order = sorted(range(len(keeps)), key=lambda k: (-len(keeps[k]), keeps[k]))
        ranks = np.empty(n_boxes + len(keeps), dtype=np.int64)
        ranks[:n_boxes] = np.arange(n_boxes)
        ranks[n_boxes + np.array(order)] = np.arange(len(keeps))
        _TIE_RANKS[id(prep)] = ranks
    rows = np.arange(len(best))
    top = vals[rows, best]
    valid = np.arange(vals.shape[1])[None, :] < n_options[:, None]
    tied = valid & (vals >= (top - TIE)[:, None])
    rank = np.where(tied, ranks[np.where(valid, codes, 0)], np.iinfo(np.int64).max)
    return rank.argmin(axis=1)


def decode_option(engine: Engine | Variant, code: int, mask: int | None = None, joker: int = 0, dice=None):
    """An option code as ("keep", faces kept) or ("box", box index, points, extra points).

    Box points depend on the roll (and on the state for jokers): give mask, joker and dice to get them;
    without them a box decodes as ("box", box index, None, None)."""
    prep = prepare(engine)
    v = prep.engine.variant
    n_boxes = len(v.boxes)
    if not checks.is_whole(code):
        raise AdviceInputError(f"option code {checks.shown(code)}: a whole number (BatchAdvice.codes)")
    code = int(code)
    if 0 <= code < n_boxes:
        if dice is None or mask is None:
            return ("box", code, None, None)
        mask = checks.whole("mask", mask, 0, (1 << n_boxes) - 1)
        joker = checks.flag("joker", joker)
        if joker and not v.has_flag:
            raise AdviceInputError(f"joker = 1: 0 ({v.name} has no joker flag)")
        if joker and not mask >> v.joker_index & 1:  # points in a box that is empty
            raise AdviceInputError(f"joker = 1 needs the {v.box_name(v.joker_index)} box filled (bit {v.joker_index})")
        r = int(roll_rows(prep, _integers("dice", dice, "faces").reshape(1, -1))[0])
        rules = prep.engine.rules
        for b, pts in roll_entries(rules, mask, joker, r):
            if b == code:
                extra = v.extra_points if joker and rules.joker_roll[r] else 0
                return ("box", b, pts, extra)
        raise AdviceInputError(f"option code {code}: box {v.box_name(code)} is not an entry these dice allow")
    k = code - n_boxes
    if not 0 <= k < prep.lattice.counts.shape[0]:
        raise AdviceInputError(f"option code {code}: codes are 0 .. {n_boxes + prep.lattice.counts.shape[0] - 1}")
    faces = tuple(int(f) for f, c in zip(prep.faces, prep.lattice.counts[k]) for _ in range(int(c)))
    return ("keep", faces)
