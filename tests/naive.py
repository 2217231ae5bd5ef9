"""Slow, obvious reference solver for the solitaire Kniffel/Yahtzee/Yatzy variants.

Written only from /work/shared/RULES.md (plus the generalisations for reduced
scorecards and fewer dice given in the task brief).  It deliberately shares no
code with the fast solver under ``solver/``.

Reduced kniffel7 variants with n < 7 dice use dice 1..n; Super-Kniffel (and the
Super-Points rule) asks for all dice but one equal, i.e. n - 1 equal (six of
seven, exactly as in RULES.md).

Nothing here is clever:

* ``score(variant, box, dice)`` evaluates one box with plain ``Counter`` logic.
* ``NaiveSolver`` memoises ``V(state)`` in a dict, where a state at the start of
  a turn is (set of filled boxes, upper total capped at the highest threshold,
  whether the joker box holds its points).  One turn is evaluated backwards:
  value of every final roll (best allowed entry + V of the next state), then
  the best keep after the second roll, then the best keep after the first
  roll, then the expectation over the first roll.

Beside the values, for tests of score distributions and target play:

* ``distribution(filled)`` / ``option_distribution(filled, dice, roll, option)``
  / ``choice(filled, dice, roll)``: the exact distribution of the points still
  to come under the max-expected policy with a FIXED tie rule (see the comment
  block above ``TIE`` in ``NaiveSolver``), and the policy's choices;
* ``target_probability(filled, need)`` /
  ``target_option_probability(filled, dice, roll, option, need)``: the maximum
  over all strategies of P(points still to come >= need).

Rolls of ordinary (identical) dice are sorted tuples; their probabilities are
obtained by enumerating every ordered outcome (6**m of them) and counting.
For ``kniffel7`` the dice differ, so a roll is an ordered tuple (die -> face)
and a keep is a set of dice by identity.
"""

import math
from collections import Counter
from functools import cache
from itertools import combinations, combinations_with_replacement, product

import numpy as np

VARIANTS = (
    "kniffel",
    "kniffel-meister",
    "yahtzee",
    "yahtzee-free-joker",
    "yatzy",
    "yatzy6",
    "kniffel7",
    "kismet",
    "yams",
    "generala",
    "cheerio",
    "cheerio7",
    "cheerio7-plain",
    "yacht",
)

UPPER_FACE = {
    "ones": 1,
    "twos": 2,
    "threes": 3,
    "fours": 4,
    "fives": 5,
    "sixes": 6,
    "sevens": 7,
}
FACE_UPPER = {v: k for k, v in UPPER_FACE.items()}

_UPPER6 = ["ones", "twos", "threes", "fours", "fives", "sixes"]

BOXES = {
    "kniffel": _UPPER6
    + ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
       "large_straight", "kniffel", "chance"],
    "yahtzee": _UPPER6
    + ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
       "large_straight", "yahtzee", "chance"],
    "yatzy": _UPPER6
    + ["one_pair", "two_pairs", "three_of_a_kind", "four_of_a_kind",
       "small_straight", "large_straight", "full_house", "chance", "yatzy"],
    "yatzy6": _UPPER6
    + ["three_pairs", "two_triples", "full_house", "straight", "yatzy",
       "five_straight", "five_yatzy", "chance"],
    "kniffel7": _UPPER6
    + ["sevens", "four_of_a_kind", "five_of_a_kind", "double_triple",
       "straight_five", "straight_six", "super_kniffel", "chance"],
}
BOXES["kismet"] = _UPPER6 + [
    "two_pair_same_colour", "three_of_a_kind", "straight", "flush", "full_house",
    "full_house_same_colour", "four_of_a_kind", "yarborough", "kismet",
]
BOXES["yams"] = _UPPER6 + [
    "brelan", "carre", "full", "petite_suite", "grande_suite", "yams", "chance",
]
BOXES["generala"] = _UPPER6 + ["escalera", "full", "poker", "generala", "doble_generala"]
BOXES["cheerio"] = _UPPER6 + ["little_straight", "big_straight", "full_house", "big_hand", "cheerio"]
BOXES["cheerio7"] = _UPPER6 + ["cheerio"]
BOXES["cheerio7-plain"] = BOXES["cheerio7"]
BOXES["yacht"] = _UPPER6 + [
    "full_house", "four_of_a_kind", "little_straight", "big_straight", "choice", "yacht",
]
BOXES["kniffel-meister"] = BOXES["kniffel"]
BOXES["yahtzee-free-joker"] = BOXES["yahtzee"]

# The box whose content decides extra points / jokers.
JOKER_BOX = {
    "kniffel": "kniffel",
    "kniffel-meister": "kniffel",
    "yahtzee": "yahtzee",
    "yahtzee-free-joker": "yahtzee",
    "kniffel7": "super_kniffel",
    "kismet": "kismet",
    "generala": "generala",
}

N_DICE = {
    "kniffel": 5,
    "kniffel-meister": 5,
    "yahtzee": 5,
    "yahtzee-free-joker": 5,
    "yatzy": 5,
    "yatzy6": 6,
    "kniffel7": 7,
    "kismet": 5,
    "yams": 5,
    "generala": 5,
    "cheerio": 5,
    "cheerio7": 5,
    "cheerio7-plain": 5,
    "yacht": 5,
}

BONUSES = {
    "kniffel": [(63, 35)],
    "kniffel-meister": [(63, 35)],
    "yahtzee": [(63, 35)],
    "yahtzee-free-joker": [(63, 35)],
    "yatzy": [(63, 50)],
    "yatzy6": [(84, 50)],
    "kniffel7": [(63, 35), (84, 35)],
    # Kismet: 35 for 63-70, 55 for 71-77, 75 from 78 (each threshold adds to the one before)
    "kismet": [(63, 35), (71, 20), (78, 20)],
    "yams": [(63, 35)],
    "generala": [],
    "cheerio": [],
    "cheerio7": [],
    "cheerio7-plain": [],
    "yacht": [],
}

# Generala: points added to an entry in these boxes when the turn stops after its first roll (servida)
GENERALA_SERVIDA = {"escalera": 5, "full": 5, "poker": 5}

# Kismet's pip colours: 1 and 6 black, 2 and 5 red, 3 and 4 green
KISMET_COLOUR = {1: "black", 6: "black", 2: "red", 5: "red", 3: "green", 4: "green"}


def _family(variant):
    if variant in ("kniffel", "kniffel-meister", "yahtzee", "yahtzee-free-joker"):
        return "kniffel"
    if variant in ("yatzy", "yatzy6", "kniffel7", "kismet", "yams", "generala", "cheerio", "yacht"):
        return variant
    if variant in ("cheerio7", "cheerio7-plain"):
        return "cheerio7"
    raise ValueError("unknown variant %r" % (variant,))


def _has_run(faces, start, length):
    return all(v in faces for v in range(start, start + length))


def score(variant, box, dice):
    """Normal score (no joker) of box ``box`` of ``variant`` for the faces ``dice``."""
    return _score(variant, box, tuple(sorted(int(d) for d in dice)))


@cache
def _score(variant, box, dice):
    """``score`` of the sorted faces ``dice``, remembered: the solvers below ask for the same rolls in every
    state (no box's score depends on the order of the dice)."""
    dice = list(dice)
    fam = _family(variant)
    if box not in BOXES[variant]:
        raise ValueError("box %r is not a box of %r" % (box, variant))
    counts = Counter(dice)
    faces = set(dice)
    total = sum(dice)
    n = len(dice)
    most = max(counts.values()) if counts else 0
    all_equal = n >= 1 and len(faces) == 1

    if variant == "cheerio7":
        # ones wild: every one joins the face of an upper box that another die shows; Cheerio when the dice
        # other than ones show at most one value
        others = set(dice) - {1}
        if box in UPPER_FACE:
            v = UPPER_FACE[box]
            return v * (counts[v] + counts[1]) if v in others else counts[1] if v == 1 else 0
        return 50 if len(others) <= 1 else 0

    if box in UPPER_FACE:
        v = UPPER_FACE[box]
        return v * counts[v]

    if box == "chance":
        return total

    if fam == "kniffel":
        if box == "three_of_a_kind":
            return total if most >= 3 else 0
        if box == "four_of_a_kind":
            return total if most >= 4 else 0
        if box == "full_house":
            # exactly 3 of one value and exactly 2 of another value
            three = [v for v, c in counts.items() if c == 3]
            two = [v for v, c in counts.items() if c == 2]
            return 25 if three and two else 0
        if box == "small_straight":
            return 30 if any(_has_run(faces, s, 4) for s in (1, 2, 3)) else 0
        if box == "large_straight":
            return 40 if any(_has_run(faces, s, 5) for s in (1, 2)) else 0
        if box in ("kniffel", "yahtzee"):
            return 50 if all_equal else 0

    if fam == "yatzy":
        if box == "one_pair":
            pairs = [v for v, c in counts.items() if c >= 2]
            return 2 * max(pairs) if pairs else 0
        if box == "two_pairs":
            pairs = sorted((v for v, c in counts.items() if c >= 2), reverse=True)
            return 2 * (pairs[0] + pairs[1]) if len(pairs) >= 2 else 0
        if box == "three_of_a_kind":
            t = [v for v, c in counts.items() if c >= 3]
            return 3 * max(t) if t else 0
        if box == "four_of_a_kind":
            t = [v for v, c in counts.items() if c >= 4]
            return 4 * max(t) if t else 0
        if box == "small_straight":
            return 15 if _has_run(faces, 1, 5) else 0
        if box == "large_straight":
            return 20 if _has_run(faces, 2, 5) else 0
        if box == "full_house":
            best = 0
            for a, ca in counts.items():
                for b, cb in counts.items():
                    if a != b and ca >= 3 and cb >= 2:
                        best = max(best, 3 * a + 2 * b)
            return best
        if box == "yatzy":
            return 50 if all_equal else 0

    if fam == "yatzy6":
        if box == "three_pairs":
            return 20 if sum(c // 2 for c in counts.values()) >= 3 else 0
        if box == "two_triples":
            return 30 if sum(c // 3 for c in counts.values()) >= 2 else 0
        if box == "full_house":
            ok = False
            for a, ca in counts.items():
                if ca >= 6:
                    ok = True
                for b, cb in counts.items():
                    if a != b and ca >= 4 and cb >= 2:
                        ok = True
            return 40 if ok else 0
        if box == "straight":
            return 50 if _has_run(faces, 1, 6) else 0
        if box == "yatzy":
            return 60 if all_equal else 0
        if box == "five_straight":
            return total if (_has_run(faces, 1, 5) or _has_run(faces, 2, 5)) else 0
        if box == "five_yatzy":
            return total if most >= 5 else 0

    if fam == "kniffel7":
        if box == "four_of_a_kind":
            return total if most >= 4 else 0
        if box == "five_of_a_kind":
            return total if most >= 5 else 0
        if box == "double_triple":
            return 25 if len([v for v, c in counts.items() if c >= 3]) >= 2 else 0
        if box == "straight_five":
            return 30 if any(_has_run(faces, s, 5) for s in (1, 2, 3)) else 0
        if box == "straight_six":
            return 40 if any(_has_run(faces, s, 6) for s in (1, 2)) else 0
        if box == "super_kniffel":
            # all dice but one equal: six with seven dice (RULES.md); the same
            # condition (n - 1 equal) for reduced variants with n < 7 dice
            return 60 if most >= n - 1 else 0

    if fam == "kismet":
        colour = KISMET_COLOUR
        if box == "two_pair_same_colour":
            # two pairs (a pair may repeat a value: four equal dice are two pairs) whose dice share a colour
            for c in set(colour.values()):
                if sum(k // 2 for v, k in counts.items() if colour[v] == c) >= 2:
                    return total
            return 0
        if box == "three_of_a_kind":
            return total if most >= 3 else 0
        if box == "straight":
            return 30 if (_has_run(faces, 1, 5) or _has_run(faces, 2, 5)) else 0
        if box == "flush":
            return 35 if len({colour[v] for v in dice}) == 1 else 0
        if box in ("full_house", "full_house_same_colour"):
            for a, ca in counts.items():
                for b, cb in counts.items():
                    if a != b and ca >= 3 and cb >= 2:
                        if box == "full_house":
                            return total + 15
                        if colour[a] == colour[b]:
                            return total + 20
            return 0
        if box == "four_of_a_kind":
            return total + 25 if most >= 4 else 0
        if box == "yarborough":
            return total
        if box == "kismet":
            return total + 50 if all_equal else 0

    if fam == "yams":
        if box in ("brelan", "carre"):
            # the sum of the three (four) equal dice only
            size = 3 if box == "brelan" else 4
            same = [v for v, c in counts.items() if c >= size]
            return size * max(same) if same else 0
        if box == "full":
            # three equal dice and two equal dice of another value (five equal are not a full)
            return 25 if sorted(counts.values()) == [2, 3] else 0
        if box == "petite_suite":
            return 30 if sorted(dice) == [1, 2, 3, 4, 5] else 0
        if box == "grande_suite":
            return 40 if sorted(dice) == [2, 3, 4, 5, 6] else 0
        if box == "yams":
            return 50 if all_equal else 0

    if fam == "generala":
        if box == "escalera":
            # five in a row, the ace also after the six: 1-2-3-4-5, 2-3-4-5-6, 3-4-5-6-1
            return 20 if sorted(dice) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6], [1, 3, 4, 5, 6]) else 0
        if box == "full":
            return 30 if sorted(counts.values()) == [2, 3] else 0  # five equal dice are no full
        if box == "poker":
            return 40 if most >= 4 else 0
        if box == "generala":
            return 50 if all_equal else 0
        if box == "doble_generala":
            return 0  # only a second Generala scores here (see options)

    if fam in ("cheerio", "yacht", "cheerio7"):
        if box == "little_straight":
            return (20 if fam == "cheerio" else 30) if sorted(dice) == [1, 2, 3, 4, 5] else 0
        if box == "big_straight":
            return (25 if fam == "cheerio" else 30) if sorted(dice) == [2, 3, 4, 5, 6] else 0
        if box == "full_house":
            return total if sorted(counts.values()) == [2, 3] else 0  # the dice's sum; five equal are none
        if box == "four_of_a_kind":
            return 4 * max(counts, key=counts.get) if most >= 4 else 0
        if box in ("big_hand", "choice"):
            return total
        if box in ("cheerio", "yacht"):
            return 50 if all_equal else 0

    raise ValueError("box %r not handled for %r" % (box, variant))


@cache
def _multiset_distribution(m, faces=(1, 2, 3, 4, 5, 6)):
    """dict sorted-tuple -> probability for m ordinary dice, by full enumeration (remembered: read only)."""
    dist = Counter()
    for outcome in product(faces, repeat=m):
        dist[tuple(sorted(outcome))] += 1
    total = len(faces) ** m
    return {k: c / total for k, c in dist.items()}


@cache
def _roll_tables(n, die_faces, identical):
    """Rolls, first-roll probabilities, keeps of each roll and keep outcomes of n dice with these faces: the
    same for every solver of these dice, so built once (callers only read them)."""
    if identical:
        rolls = list(combinations_with_replacement(range(1, 7), n))
        first = _multiset_distribution(n)
        dists = {m: _multiset_distribution(m) for m in range(n + 1)}
        keeps_of = {}
        outcomes = {}
        for r in rolls:
            ks = set()
            for size in range(n + 1):
                for idx in combinations(range(n), size):
                    ks.add(tuple(r[i] for i in idx))  # r sorted -> kept sorted
            keeps_of[r] = sorted(ks)
            for k in ks:
                if k not in outcomes:
                    m = n - len(k)
                    outcomes[k] = [
                        (tuple(sorted(k + out)), p) for out, p in dists[m].items()
                    ]
    else:
        rolls = list(product(*die_faces))
        p_all = 1.0 / 6 ** n
        first = {r: p_all for r in rolls}
        keeps_of = {}
        outcomes = {}
        for r in rolls:
            ks = []
            for size in range(n + 1):
                for idx in combinations(range(n), size):
                    ks.append(tuple(r[i] if i in idx else None for i in range(n)))
            keeps_of[r] = ks
            for k in ks:
                if k not in outcomes:
                    free = [i for i in range(n) if k[i] is None]
                    p = 1.0 / 6 ** len(free)
                    lst = []
                    for out in product(*(die_faces[i] for i in free)):
                        full = list(k)
                        for i, f in zip(free, out):
                            full[i] = f
                        lst.append((tuple(full), p))
                    outcomes[k] = lst
    return rolls, first, keeps_of, outcomes


class NaiveSolver:
    def __init__(self, variant, boxes=None, n_dice=None, bonuses=None, keep_one=False):
        if variant not in VARIANTS:
            raise ValueError("unknown variant %r" % (variant,))
        self.variant = variant
        all_boxes = BOXES[variant]
        if boxes is None:
            boxes = list(all_boxes)
        boxes = list(boxes)
        for b in boxes:
            if b not in all_boxes:
                raise ValueError("box %r is not a box of %r" % (b, variant))
        if len(set(boxes)) != len(boxes):
            raise ValueError("duplicate boxes")
        self.boxes = boxes
        self.n = N_DICE[variant] if n_dice is None else int(n_dice)
        if self.n < 1:
            raise ValueError("need at least one die")
        if variant == "kniffel7" and self.n > 7:
            raise ValueError("kniffel7 has only 7 dice")
        self.bonuses = [tuple(b) for b in (BONUSES[variant] if bonuses is None else bonuses)]
        self.cap = max([t for t, _ in self.bonuses], default=0)
        # keep_one is seed 001's house rule for kniffel; the mechanics do not depend on
        # the variant, so it is accepted for every variant.
        self.keep_one = bool(keep_one)
        self.jbox = JOKER_BOX.get(variant)
        if self.jbox is not None and self.jbox not in self.boxes:
            self.jbox = None  # joker box not on the scorecard: never filled
        self.upper_boxes = [b for b in self.boxes if b in UPPER_FACE]
        self.identical = variant != "kniffel7"
        if self.identical:
            self.die_faces = [tuple(range(1, 7))] * self.n
        else:
            # die k (1-based) lacks face k
            self.die_faces = [tuple(f for f in range(1, 8) if f != k) for k in range(1, self.n + 1)]
        # kniffel box maxima for the box-maximum joker (max normal score over all rolls)
        self.box_max = {}
        if variant == "kniffel":
            for b in self.boxes:
                self.box_max[b] = max(
                    score(variant, b, r)
                    for r in combinations_with_replacement(range(1, 7), self.n)
                )
        self.memo = {}
        self._tables = None  # lazily built roll/keep tables
        self.dist_memo = {}  # state -> distribution of points to come
        self.target_memo = {}  # state -> array over need of target probabilities
        self._last_policy = None
        self._last_target_turn = None
        self._tlen = None

    # ------------------------------------------------------------------ tables
    def _build_tables(self):
        """Rolls, first-roll probabilities, keeps of each roll and keep outcomes (shared, read only)."""
        self._tables = _roll_tables(self.n, tuple(self.die_faces), self.identical)

    @staticmethod
    def _kept_count(keep):
        return sum(1 for f in keep if f is not None)

    # ------------------------------------------------------------ final entry
    def _state_parts(self, filled):
        """filled dict -> (frozenset of filled boxes, capped upper total, joker flag)."""
        for b in filled:
            if b not in self.boxes:
                raise ValueError("box %r is not on this scorecard" % (b,))
        upper = sum(int(filled[b]) for b in self.upper_boxes if b in filled)
        upper = min(upper, self.cap)
        jflag = bool(self.jbox is not None and self.jbox in filled and filled[self.jbox] > 0)
        return frozenset(filled), upper, jflag

    def options(self, filled_set, jflag, dice):
        """All allowed entries (box, points, extra points) for the final roll ``dice``.

        ``filled_set``: boxes already filled; ``jflag``: the joker box holds its points.
        """
        v = self.variant
        free = [b for b in self.boxes if b not in filled_set]
        dice = [f for f in dice if f is not None]
        n = len(dice)
        all_equal = n >= 1 and len(set(dice)) == 1
        jfilled = self.jbox is not None and self.jbox in filled_set
        opts = []

        if v == "kniffel":
            if jfilled and jflag and all_equal:
                # box-maximum joker: +50 and any free box gets its maximum
                for b in free:
                    opts.append((b, self.box_max[b], 50))
            else:
                fits = [(b, score(v, b, dice)) for b in free]
                fits = [(b, s) for b, s in fits if s > 0]
                if fits:
                    for b, s in fits:
                        opts.append((b, s, 0))
                else:
                    for b in free:
                        opts.append((b, 0, 0))
            return opts

        if v == "kniffel-meister":
            extra = 50 if (jfilled and jflag and all_equal) else 0
            for b in free:
                opts.append((b, score(v, b, dice), extra))
                opts.append((b, 0, extra))
            return opts

        if v in ("yahtzee", "yahtzee-free-joker"):
            extra = 100 if (jfilled and jflag and all_equal) else 0
            joker_pts = {"full_house": 25, "small_straight": 30, "large_straight": 40}
            cands = []
            if v == "yahtzee":
                if jfilled and all_equal:
                    ub = FACE_UPPER[dice[0]]
                    free_lower = [b for b in free if b not in UPPER_FACE]
                    if ub in free:
                        cands = [(ub, score(v, ub, dice))]
                    elif free_lower:
                        cands = [(b, joker_pts.get(b, score(v, b, dice))) for b in free_lower]
                    else:
                        cands = [(b, 0) for b in free if b in UPPER_FACE]
                else:
                    cands = [(b, score(v, b, dice)) for b in free]
            else:
                ub = FACE_UPPER[dice[0]] if all_equal else None
                ub_filled = ub is not None and (ub not in self.boxes or ub in filled_set)
                joker = jfilled and all_equal and ub_filled
                for b in free:
                    if joker and b in joker_pts:
                        cands.append((b, joker_pts[b]))
                    else:
                        cands.append((b, score(v, b, dice)))
            for b, s in cands:
                opts.append((b, s, extra))
                opts.append((b, 0, extra))  # free scratching
            return opts

        if v in ("yatzy", "yatzy6", "yams", "cheerio", "cheerio7", "cheerio7-plain", "yacht"):
            for b in free:
                opts.append((b, score(v, b, dice), 0))
                opts.append((b, 0, 0))
            return opts

        if v == "kismet":
            # a further Kismet while the Kismet box holds points may go into any lower box but the
            # Straight: the two full houses then take it, scoring as a full house would
            second = jfilled and jflag and all_equal
            for b in free:
                pts = score(v, b, dice)
                if second and b in ("full_house", "full_house_same_colour"):
                    pts = sum(dice) + (15 if b == "full_house" else 20)
                opts.append((b, pts, 0))
                opts.append((b, 0, 0))
            return opts

        if v == "generala":
            # a second Generala (five equal dice while the Generala box holds 50) may go into Doble Generala
            for b in free:
                pts = score(v, b, dice)
                if b == "doble_generala" and jflag and all_equal:
                    pts = 100
                opts.append((b, pts, 0))
                opts.append((b, 0, 0))
            return opts

        if v == "kniffel7":
            for b in free:
                opts.append((b, score(v, b, dice), 0))
                opts.append((b, 0, 0))
            most = max(Counter(dice).values()) if dice else 0
            # Super-Points for a roll that would score Super-Kniffel: all dice but
            # one equal (six of seven; n - 1 of n in a reduced variant)
            if jfilled and jflag and most >= n - 1:
                for b in free:
                    opts.append((b, 60, 0))  # Super-Points
            return opts

        raise ValueError(v)

    def _after_entry(self, filled_set, upper, jflag, box, pts):
        """(immediate bonus, next state) after entering pts in box."""
        bonus = 0
        new_upper = upper
        if box in UPPER_FACE:
            raw = upper + pts
            for t, p in self.bonuses:
                if upper < t <= raw:
                    bonus += p
            new_upper = min(raw, self.cap)
        new_j = jflag
        if box == self.jbox:
            new_j = pts > 0
        return bonus, (filled_set | {box}, new_upper, new_j)

    def _final_value(self, state, roll, servida=False):
        """Best entry of a roll that ends the turn; servida: the turn stopped after its first roll."""
        filled_set, upper, jflag = state
        best = None
        for box, pts, extra in self.options(filled_set, jflag, roll):
            if servida and pts > 0:
                pts += GENERALA_SERVIDA.get(box, 0)
            bonus, nxt = self._after_entry(filled_set, upper, jflag, box, pts)
            val = pts + extra + bonus + self._V(nxt)
            if best is None or val > best:
                best = val
        return best

    # ------------------------------------------------------------------ turns
    def _V(self, state):
        if state in self.memo:
            return self.memo[state]
        filled_set = state[0]
        if all(b in filled_set for b in self.boxes):
            self.memo[state] = 0.0
            return 0.0
        if self._tables is None:
            self._build_tables()
        rolls, first, keeps_of, outcomes = self._tables

        # after the third roll: enter the roll
        final = {r: self._final_value(state, r) for r in rolls}

        def one_level(table, need_keep):
            exp = {}
            res = {}
            for r in rolls:
                best = None
                for k in keeps_of[r]:
                    if need_keep and self._kept_count(k) == 0:
                        continue  # keep_one house rule: at least one die kept
                    if k not in exp:
                        exp[k] = sum(p * table[o] for o, p in outcomes[k])
                    if best is None or exp[k] > best:
                        best = exp[k]
                res[r] = best
            return res

        # after the second roll (one reroll left), then after the first roll
        second = one_level(final, self.keep_one and self.n > 0)
        first_level = one_level(second, False)
        if self.variant == "generala":  # after roll 1 the player may also stop with the servida points
            for r in rolls:
                first_level[r] = max(first_level[r], self._final_value(state, r, servida=True))
        value = sum(p * first_level[r] for r, p in first.items())
        self.memo[state] = value
        return value

    # -------------------------------------------------------------------- API
    def state_value(self, filled):
        """Expected future points from the start of a turn with ``filled`` (box -> points)."""
        return self._V(self._state_parts(dict(filled)))

    def start_value(self):
        return self.state_value({})

    def final_options(self, filled, dice):
        """Allowed (box, points, extra) entries for final roll ``dice`` given ``filled``."""
        fs, _, jflag = self._state_parts(dict(filled))
        return self.options(fs, jflag, list(dice))

    # ====================================================================
    # Distributions of the points to come, and target probabilities
    # ====================================================================
    #
    # Conventions shared by every method below:
    #
    # * ``filled``: the card as everywhere in this class, a dict box -> points
    #   entered.  Nothing else is needed: upper bonuses already paid follow from
    #   the upper boxes, extra points earned earlier do not count (only points
    #   STILL TO COME are counted) and the joker / Super-Points flag is "the
    #   joker box (kniffel, yahtzee, super_kniffel) is in ``filled`` with points
    #   > 0".
    # * ``dice``: ordinary dice: the faces in any order (sorted here);
    #   kniffel7: the ordered tuple die 0..n-1 -> face.
    # * ``roll``: 1 or 2 = a keep decision after that roll (rerolls left),
    #   3 = the final roll (only a box entry is possible).
    # * ``option``:
    #     - a str: enter the roll ``dice`` in that box now (after roll 3, or
    #       after roll 1 or 2, i.e. stop rolling and enter).  Where a box allows
    #       several entries (score or scratch 0, Super-Points 60 or the normal
    #       score), the distribution uses the entry with the highest value
    #       (ties: most points, then most extra points); the target probability
    #       uses the best of them for the given need.
    #     - otherwise a keep after roll 1 or 2: ordinary dice: the kept faces
    #       (any order, sorted here; a sub-multiset of ``dice``); kniffel7: the
    #       kept die indices (0-based, any order).  Keeping all dice = stop: the
    #       roll is final and is entered by the policy's entry rule.
    #
    # The max-expected POLICY with its fixed TIE RULE (options whose value is
    # >= best - TIE count as tied):
    #
    # * keeps after roll 1 or 2: most dice kept first (keeping all = stop:
    #   after roll 1 its value is the final-roll value of the roll, it is not
    #   rerolled); among equal counts the smallest sorted tuple of kept faces
    #   (ordinary dice) or the smallest ascending tuple of kept die indices
    #   (kniffel7).  With keep_one the empty keep after roll 2 is not allowed.
    # * entries after the final roll: the lowest box index in ``self.boxes``;
    #   within one box (score vs. scratch, Super-Points vs. normal score) the
    #   most points, then the most extra points.
    #
    # Values of options: an entry is gain + V(next state) (gain = points +
    # extra + upper bonuses crossed); a keep after roll 2 is the expectation of
    # the final-roll values over the rerolled dice; a keep after roll 1 is the
    # expectation of the after-roll-2 values (best allowed keep there).

    TIE = 1e-9

    def _keep_key(self, keep):
        """Sort key of the tie rule for keeps (smaller = preferred)."""
        if self.identical:
            return (-len(keep), keep)
        idx = tuple(i for i, f in enumerate(keep) if f is not None)
        return (-len(idx), idx)

    def _is_stop(self, keep):
        return self._kept_count(keep) == self.n

    def _entries(self, state, roll, servida=False):
        """Allowed entries of the final roll ``roll``: (box, pts, extra, gain, next_state); servida: the
        turn stopped after its first roll (Generala)."""
        filled_set, upper, jflag = state
        out = []
        for box, pts, extra in self.options(filled_set, jflag, roll):
            if servida and pts > 0:
                pts += GENERALA_SERVIDA.get(box, 0)
            bonus, nxt = self._after_entry(filled_set, upper, jflag, box, pts)
            out.append((box, pts, extra, pts + extra + bonus, nxt))
        return out

    def _pick_entry(self, entries):
        """(best value, chosen entry) among ``entries`` by the tie rule."""
        vals = [gain + self._V(nxt) for _, _, _, gain, nxt in entries]
        best = max(vals)
        pos = {b: i for i, b in enumerate(self.boxes)}
        tied = [e for e, v in zip(entries, vals) if v >= best - self.TIE]
        chosen = min(tied, key=lambda e: (pos[e[0]], -e[1], -e[2]))
        return best, chosen

    def _pick_keeps(self, after_table, final, roll):
        """Best value and chosen keep (tie rule) for every roll at a keep decision.

        ``after_table``: value of each roll at the next decision (final values
        for roll 2, after-roll-2 values for roll 1); ``final``: final-roll
        values (what stopping is worth).  Returns (value dict, keep dict).
        """
        rolls, _, keeps_of, outcomes = self._tables
        exp = {}
        value, choice = {}, {}
        for r in rolls:
            cands = []
            for k in keeps_of[r]:
                if roll == 2 and self.keep_one and self._kept_count(k) == 0:
                    continue  # house rule: at least one die kept after roll 2
                if self._is_stop(k):
                    v = final[r]
                else:
                    if k not in exp:
                        exp[k] = sum(p * after_table[o] for o, p in outcomes[k])
                    v = exp[k]
                cands.append((k, v))
            best = max(v for _, v in cands)
            tied = [k for k, v in cands if v >= best - self.TIE]
            value[r] = best
            choice[r] = min(tied, key=self._keep_key)
        return value, choice

    def _policy(self, state):
        """The whole policy of one turn from ``state`` (start of turn, not full).

        Returns dict with 'entry' (roll -> chosen entry tuple), 'final'
        (roll -> value), 'second' (roll -> value after roll 2), 'keep2' and
        'keep1' (roll -> chosen keep after roll 2 / roll 1).
        """
        if self._tables is None:
            self._build_tables()
        rolls = self._tables[0]
        entry, final = {}, {}
        for r in rolls:
            final[r], entry[r] = self._pick_entry(self._entries(state, r))
        first_final, first_entry = final, entry  # stopping after roll 1
        if self.variant == "generala":  # ... scores the servida points
            first_final, first_entry = {}, {}
            for r in rolls:
                first_final[r], first_entry[r] = self._pick_entry(self._entries(state, r, servida=True))
        second, keep2 = self._pick_keeps(final, final, 2)
        _, keep1 = self._pick_keeps(second, first_final, 1)
        return {"entry": entry, "final": final, "second": second,
                "keep2": keep2, "keep1": keep1, "first_entry": first_entry}

    def _policy_cached(self, state):
        # one-entry cache: enough for repeated option_* calls on one state
        if self._last_policy is None or self._last_policy[0] != state:
            self._last_policy = (state, self._policy(state))
        return self._last_policy[1]

    def _advance(self, mass, keeps):
        """Apply the chosen keeps to a probability mass over rolls.

        Returns (stopped, rolled): mass that stops here (roll is final) and the
        mass over the rolls shown after the reroll.
        """
        outcomes = self._tables[3]
        stopped, rolled = Counter(), Counter()
        for r, m in mass.items():
            k = keeps[r]
            if self._is_stop(k):
                stopped[r] += m
            else:
                for o, p in outcomes[k]:
                    rolled[o] += m * p
        return stopped, rolled

    @staticmethod
    def _mix_into(acc, weight, dist, shift):
        for pts, p in dist.items():
            acc[pts + shift] = acc.get(pts + shift, 0.0) + weight * p

    def _dist_of_final_mass(self, final_mass, entry):
        """Distribution of points to come given a mass over final rolls and their entries."""
        groups = Counter()  # (gain, next state) -> probability
        for r, m in final_mass.items():
            _, _, _, gain, nxt = entry[r]
            groups[(gain, nxt)] += m
        out = {}
        for (gain, nxt), m in groups.items():
            self._mix_into(out, m, self._dist(nxt), gain)
        return out

    def _dist(self, state):
        if state in self.dist_memo:
            return self.dist_memo[state]
        if all(b in state[0] for b in self.boxes):
            res = {0: 1.0}
        else:
            pol = self._policy(state)
            first = self._tables[1]
            stopped1, mass2 = self._advance(first, pol["keep1"])
            stopped2, mass3 = self._advance(mass2, pol["keep2"])
            servida = pol["first_entry"] is not pol["entry"]
            final_mass = Counter() if servida else Counter(stopped1)
            final_mass.update(stopped2)
            final_mass.update(mass3)
            res = self._dist_of_final_mass(final_mass, pol["entry"])
            if servida:  # the stops after roll 1 enter the servida points
                for pts, p in self._dist_of_final_mass(stopped1, pol["first_entry"]).items():
                    res[pts] = res.get(pts, 0.0) + p
        self.dist_memo[state] = res
        return res

    def distribution(self, filled):
        """Distribution of the points still to come from the start of a turn.

        ``filled``: dict box -> points (see the conventions above).  Returns a
        dict {points to come: probability} (floats, summing to 1) under the
        max-expected policy with the fixed tie rule.  Its mean is
        ``state_value(filled)``.
        """
        return dict(sorted(self._dist(self._state_parts(dict(filled))).items()))

    # ---------------------------------------------------------- option helpers
    def _norm_dice(self, dice):
        if self._tables is None:
            self._build_tables()
        dice = tuple(int(f) for f in dice)
        if len(dice) != self.n:
            raise ValueError("need %d dice, got %r" % (self.n, dice))
        if self.identical:
            dice = tuple(sorted(dice))
        if dice not in self._tables[2]:
            raise ValueError("impossible roll %r" % (dice,))
        return dice

    def _norm_keep(self, dice, option):
        """The option (kept faces / kept die indices) as an internal keep of ``dice``."""
        if self.identical:
            keep = tuple(sorted(int(f) for f in option))
            if keep not in self._tables[2][dice]:
                raise ValueError("%r is not a sub-multiset of %r" % (option, dice))
            return keep
        idx = set(int(i) for i in option)
        if len(idx) != len(tuple(option)) or not idx <= set(range(self.n)):
            raise ValueError("bad die indices %r" % (option,))
        return tuple(dice[i] if i in idx else None for i in range(self.n))

    def _option_setup(self, filled, dice, roll, option):
        state = self._state_parts(dict(filled))
        if all(b in state[0] for b in self.boxes):
            raise ValueError("the card is full")
        dice = self._norm_dice(dice)
        if roll not in (1, 2, 3):
            raise ValueError("roll must be 1, 2 or 3")
        if isinstance(option, str):
            entries = [e for e in self._entries(state, dice) if e[0] == option]
            if not entries:
                raise ValueError("box %r is not an allowed entry for %r" % (option, dice))
            return state, dice, ("entry", entries)
        if roll == 3:
            raise ValueError("after the final roll the option must be a box")
        keep = self._norm_keep(dice, option)
        if roll == 2 and self.keep_one and self._kept_count(keep) == 0:
            raise ValueError("keep_one: at least one die must be kept after roll 2")
        return state, dice, ("keep", keep)

    def option_distribution(self, filled, dice, roll, option):
        """Distribution of the points to come (this turn's entry included) after an option.

        At roll ``roll`` (1, 2: a keep decision; 3: final roll) with ``dice``
        showing on card ``filled`` the player takes ``option`` (a box name:
        enter now; else a keep: kept faces, or kept die indices for kniffel7;
        keeping all dice = stop and enter by the policy) and then follows the
        max-expected policy with the tie rule.  Returns {points: probability}.
        """
        state, dice, (kind, what) = self._option_setup(filled, dice, roll, option)
        if kind == "entry":
            _, (_, _, _, gain, nxt) = self._pick_entry_in_box(what)
            out = {}
            self._mix_into(out, 1.0, self._dist(nxt), gain)
            return dict(sorted(out.items()))
        pol = self._policy_cached(state)
        keep = what
        if self._is_stop(keep):
            entries = pol["first_entry"] if roll == 1 else pol["entry"]  # Generala: a stop after roll 1, servida
            return dict(sorted(self._dist_of_final_mass({dice: 1.0}, entries).items()))
        else:
            _, mass = self._advance({dice: 1.0}, {dice: keep})
            if roll == 1:
                stopped2, mass3 = self._advance(mass, pol["keep2"])
                final_mass = Counter(stopped2)
                final_mass.update(mass3)
            else:
                final_mass = mass
        return dict(sorted(self._dist_of_final_mass(final_mass, pol["entry"]).items()))

    def _pick_entry_in_box(self, entries):
        """Entry within ONE box: highest value, ties: most points, most extra."""
        vals = [gain + self._V(nxt) for _, _, _, gain, nxt in entries]
        best = max(vals)
        tied = [e for e, v in zip(entries, vals) if v >= best - self.TIE]
        return best, min(tied, key=lambda e: (-e[1], -e[2]))

    def choice(self, filled, dice, roll):
        """The option the max-expected policy (with the tie rule) takes at a decision.

        Same argument conventions as ``option_distribution``.  Returns, for roll
        1 or 2, the keep in the option form (sorted kept faces; kniffel7: kept
        die indices) where keeping all dice means stop; for roll 3 the box the
        roll is entered in (also the box used after a stop).
        """
        state = self._state_parts(dict(filled))
        if all(b in state[0] for b in self.boxes):
            raise ValueError("the card is full")
        dice = self._norm_dice(dice)
        pol = self._policy_cached(state)
        if roll == 3:
            return pol["entry"][dice][0]
        if roll not in (1, 2):
            raise ValueError("roll must be 1, 2 or 3")
        keep = pol["keep1" if roll == 1 else "keep2"][dice]
        if self.identical:
            return keep
        return tuple(i for i, f in enumerate(keep) if f is not None)

    # ------------------------------------------------------ target probability
    def _target_len(self):
        """Length L of the need arrays: every points-to-come value is <= L - 2."""
        if self._tlen is None:
            faces = sorted(set(f for fs in self.die_faces for f in fs))
            per_turn = 0
            for b in self.boxes:
                for r in combinations_with_replacement(faces, self.n):
                    servida = GENERALA_SERVIDA.get(b, 0) if self.variant == "generala" else 0
                    per_turn = max(per_turn, score(self.variant, b, r) + servida)
            if self.variant == "kniffel7":
                per_turn = max(per_turn, 60)  # Super-Points
            if self.variant == "generala" and "doble_generala" in self.boxes:
                per_turn = max(per_turn, 100)  # scores only as a second Generala: not in score() above
            extra = {"kniffel": 50, "kniffel-meister": 50,
                     "yahtzee": 100, "yahtzee-free-joker": 100}.get(self.variant, 0)
            bound = len(self.boxes) * (per_turn + extra) + sum(p for _, p in self.bonuses)
            self._tlen = bound + 2
        return self._tlen

    def _shifted(self, state, gain):
        """Array over need: P_next(need - gain), 1 where need - gain <= 0."""
        nxt = self._target(state)
        L = len(nxt)
        out = np.ones(L)
        if gain < L:
            out[gain:] = nxt[: L - gain]
        return out

    def _target_final(self, state, servida=False):
        """Roll -> array over need of the best final-roll entry (servida: the turn stopped after roll 1)."""
        rolls = self._tables[0]
        cache = {}
        res = {}
        for r in rolls:
            best = None
            for _, _, _, gain, nxt in self._entries(state, r, servida):
                if (gain, nxt) not in cache:
                    cache[(gain, nxt)] = self._shifted(nxt, gain)
                a = cache[(gain, nxt)]
                best = a.copy() if best is None else np.maximum(best, a)
            res[r] = best
        return res

    def _target_keeps(self, after_table, final, roll):
        """Roll -> array over need: best keep (per need) at a keep decision."""
        rolls, _, keeps_of, outcomes = self._tables
        exp = {}
        res = {}
        for r in rolls:
            best = None
            for k in keeps_of[r]:
                if roll == 2 and self.keep_one and self._kept_count(k) == 0:
                    continue
                if self._is_stop(k):
                    a = final[r]
                else:
                    if k not in exp:
                        exp[k] = sum(p * after_table[o] for o, p in outcomes[k])
                    a = exp[k]
                best = a.copy() if best is None else np.maximum(best, a)
            res[r] = best
        return res

    def _target_turn(self, state):
        final = self._target_final(state)
        second = self._target_keeps(final, final, 2)
        return final, second

    def _target(self, state):
        """Array P[need], need = 0 .. L-1: max over strategies of P(points to come >= need)."""
        if state in self.target_memo:
            return self.target_memo[state]
        L = self._target_len()
        if all(b in state[0] for b in self.boxes):
            arr = np.zeros(L)
            arr[0] = 1.0
        else:
            if self._tables is None:
                self._build_tables()
            final, second = self._target_turn(state)
            # Generala: a stop after roll 1 enters the roll with the servida points
            stop1 = self._target_final(state, servida=True) if self.variant == "generala" else final
            first_level = self._target_keeps(second, stop1, 1)
            arr = np.zeros(L)
            for r, p in self._tables[1].items():
                arr += p * first_level[r]
            arr[0] = 1.0
        self.target_memo[state] = arr
        return arr

    def _need_index(self, arr, need):
        """P(points to come >= need) read from an array over need."""
        if need <= 0:
            return 1.0
        need = math.ceil(need)
        if need >= len(arr):
            return 0.0
        return float(arr[need])

    def target_probability(self, filled, need):
        """max over all strategies of P(points still to come >= need) from the start of a turn.

        ``filled``: dict box -> points as for ``distribution``.  need <= 0 -> 1.0.
        """
        if need <= 0:
            return 1.0
        return self._need_index(self._target(self._state_parts(dict(filled))), need)

    def target_option_probability(self, filled, dice, roll, option, need):
        """Like ``option_distribution`` but the maximal P(points to come >= need).

        After ``option`` the player plays on to maximise the probability of
        reaching ``need`` (this turn's entry included); for a box option the
        best entry of that box for this need is used.
        """
        if need <= 0:
            return 1.0
        state, dice, (kind, what) = self._option_setup(filled, dice, roll, option)
        servida = roll == 1 and self.variant == "generala"  # a stop after roll 1 scores the servida
        if kind == "entry" and servida:
            what = [e for e in self._entries(state, dice, servida=True) if e[0] == option]
        if kind == "entry":
            best = None
            for _, _, _, gain, nxt in what:
                a = self._shifted(nxt, gain)
                best = a if best is None else np.maximum(best, a)
            return self._need_index(best, need)
        keep = what
        # one-entry cache: enough for repeated calls on one state
        if self._last_target_turn is None or self._last_target_turn[0] != state:
            self._last_target_turn = (state, self._target_turn(state))
        final, second = self._last_target_turn[1]
        if self._is_stop(keep):
            arr = self._target_final(state, servida=True)[dice] if servida else final[dice]
        else:
            table = second if roll == 1 else final
            arr = sum(p * table[o] for o, p in self._tables[3][keep])
        return self._need_index(arr, need)


# ---------------------------------------------------------------------------
# kniffel7: the last turn of a full-size card, vectorised over ordered rolls
# ---------------------------------------------------------------------------


@cache
def _kniffel7_rolls(n):
    """(the distinct sorted rolls of kniffel7's dice 1..n, each ordered roll's row in them), built once:
    np.unique over the 6**n ordered rolls is slow (callers only read the arrays)."""
    die_faces = [np.array([f for f in range(1, 8) if f != k]) for k in range(1, n + 1)]
    grids = np.meshgrid(*die_faces, indexing="ij")
    rolls = np.stack([g.ravel() for g in grids], axis=1)  # (6**n, n), C order
    sorted_rolls, inverse = np.unique(np.sort(rolls, axis=1), axis=0, return_inverse=True)
    return sorted_rolls, np.asarray(inverse).ravel()


def _kniffel7_last_turn(filled, boxes, n_dice, bonuses):
    """Expected future points of the last turn of a kniffel7 card.

    ``boxes``: the scorecard; ``filled`` (box -> points) fills all but one of them.
    Dice are dice 1..n_dice (die k lacks face k).  Values live in an array of shape
    (6,) * n_dice: axis d is die d, the index which of its six faces it shows.
    """
    filled = dict(filled)
    for b in filled:
        if b not in boxes:
            raise ValueError("box %r is not on this scorecard" % (b,))
    free = [b for b in boxes if b not in filled]
    if len(free) != 1:
        raise ValueError("exactly one box must be free, got %r" % (free,))
    free_box = free[0]
    n = int(n_dice)
    if not 1 <= n <= 7:
        raise ValueError("kniffel7 has 1..7 dice")

    upper = sum(int(filled[b]) for b in filled if b in UPPER_FACE)  # uncapped
    # Super-Points: the Super-Kniffel box holds its 60 (0 = scratched, no Super-Points)
    super_pts = (
        free_box != "super_kniffel"
        and "super_kniffel" in filled
        and filled["super_kniffel"] > 0
    )

    def bonus(pts):
        # bonuses newly reached when the free (upper) box gets pts
        if free_box not in UPPER_FACE:
            return 0
        return sum(p for t, p in bonuses if upper < t <= upper + pts)

    sorted_rolls, inverse = _kniffel7_rolls(n)

    vals = np.empty(len(sorted_rolls))
    for i, r in enumerate(sorted_rolls):
        dice = [int(x) for x in r]
        pts = max(score("kniffel7", free_box, dice), 0)  # free scratching: 0 always allowed
        # Super-Points: all dice but one equal (six of seven; n - 1 of n dice)
        if super_pts and max(Counter(dice).values()) >= n - 1:
            pts = max(pts, 60)
        # bonus is non-decreasing in pts, so the largest entry is best
        vals[i] = pts + bonus(pts)

    v = vals[inverse].reshape((6,) * n)

    def reroll_level(table):
        best = table.copy()  # keep all dice
        for size in range(1, n + 1):
            for rerolled in combinations(range(n), size):
                np.maximum(best, table.mean(axis=rerolled, keepdims=True), out=best)
        return best

    v2 = reroll_level(v)   # after the second roll
    v1 = reroll_level(v2)  # after the first roll
    return float(v1.mean())


def kniffel7_endgame_value(filled: dict) -> float:
    """Expected points still to come for a full-size Kniffel 7 card with exactly ONE free box.

    ``filled``: box -> points for 13 of the 14 kniffel7 boxes.  The value is the
    optimal expectation of (points entered in the free box + upper bonuses newly
    reached) over one turn of three rolls of the seven different dice.
    """
    boxes = BOXES["kniffel7"]
    if len(filled) != len(boxes) - 1:
        raise ValueError("need exactly 13 filled boxes, got %d" % len(filled))
    return _kniffel7_last_turn(filled, boxes, 7, BONUSES["kniffel7"])
