"""Brute-force reference for Kniffel 7 end games (a few free boxes), for tests.

Written from /work/shared/RULES.md (``kniffel7`` and "Common to every variant")
and the rulebook in /work/shared/seeds/ alone; it shares no code and no reading
with the fast solver under ``solver/``.

The seven dice differ: die k (k = 1..7) shows 1..7 except k, each face 1/6, so
die 7 is an ordinary 1-6 die.  A roll is ordered (die -> face).  All 6**7 rolls
live in one array of shape (6,)*7: axis d is die d+1, the index which of its six
faces it shows.  A keep is a partial assignment (per die: its face, or
"reroll"); its value is the mean over the rerolled dice's faces.  Appending that
mean as index 6 on each axis gives the (7,)*7 table of every partial assignment.

A state at the start of a turn is (free boxes, upper total, whether
Super-Kniffel holds 60); an upper total with no bonus threshold left within reach
of the free upper boxes counts as the last threshold it passed (or 0).  Values are the points still to come (boxes +
upper bonuses newly reached), memoised per state:

* ``expected_final``: the max expectation, by recursion over turns;
* ``max_prob_final_at_least``: the max P(points to come >= need), memoised per
  (state, need), the needs of one state solved together;
* ``final_pmf_max_ev``: the policy of the max expectation (tie rule in its
  docstring) followed forward: probability mass over the rolls of a turn, then
  the distributions of the next states, shifted by the points gained.

Scratching is allowed in any free box at any time, but entering 0 in a box
where the roll scores more is never better (more points and a higher upper
total only help, for the expectation and for P(final >= T) alike), so a box's
option is its score for the roll; a roll that fits nowhere scores 0 = a scratch.
"""

from functools import cache
from itertools import combinations, product

import numpy as np

BOXES = (
    "ones", "twos", "threes", "fours", "fives", "sixes", "sevens",
    "four_of_a_kind", "five_of_a_kind", "double_triple",
    "straight_five", "straight_six", "super_kniffel", "chance",
)  # fmt: skip
UPPER = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6, "sevens": 7}
BONUSES = ((63, 35), (84, 35))
SUPER_POINTS = 60
TIE = 1e-9  # options within TIE of the best count as tied (pmf tie rule)

DIE_FACES = [[f for f in range(1, 8) if f != k] for k in range(1, 8)]
SHAPE = (6,) * 7
ROLLS = np.array(list(product(*DIE_FACES)))  # (6**7, 7), C order of SHAPE
COUNTS = np.stack([(ROLLS == v).sum(axis=1) for v in range(1, 8)], axis=1)  # [roll, v-1]
SIX_EQUAL = COUNTS.max(axis=1) >= 6

# keeps as the set of dice rerolled, in the tie-rule order: keep all (= stop) first,
# then fewer dice rerolled before more, lexicographic within one size
REROLLS = [s for size in range(8) for s in combinations(range(7), size)]
REROLL_MASK = np.array([[d in rerolled for d in range(7)] for rerolled in REROLLS])
FACE_INDEX = np.indices(SHAPE).reshape(7, -1).T  # [roll, die]: which of its faces the die shows


def _box_scores():
    """box -> score of every ordered roll (flat, 6**7), straight from the RULES.md table."""
    total = ROLLS.sum(axis=1)
    most = COUNTS.max(axis=1)
    shows = COUNTS > 0

    def run(start, length):  # the faces start .. start+length-1 all shown
        return shows[:, start - 1 : start - 1 + length].all(axis=1)

    scores = {box: v * COUNTS[:, v - 1] for box, v in UPPER.items()}
    scores["four_of_a_kind"] = np.where(most >= 4, total, 0)
    scores["five_of_a_kind"] = np.where(most >= 5, total, 0)
    scores["double_triple"] = np.where((COUNTS >= 3).sum(axis=1) >= 2, 25, 0)
    scores["straight_five"] = np.where(run(1, 5) | run(2, 5) | run(3, 5), 30, 0)
    scores["straight_six"] = np.where(run(1, 6) | run(2, 6), 40, 0)
    scores["super_kniffel"] = np.where(most >= 6, 60, 0)
    scores["chance"] = total
    return scores


SCORES = _box_scores()
# points a box can hold: a score of some roll, a scratch, or Super-Points
POSSIBLE = {b: set(int(p) for p in np.unique(SCORES[b])) | {0, SUPER_POINTS} for b in BOXES}


# ----------------------------------------------------------------- states


def _bonus(upper, pts):
    """Upper bonuses newly reached when the upper total goes from `upper` to `upper + pts`."""
    return sum(amount for threshold, amount in BONUSES if upper < threshold <= upper + pts)


def _state(free, upper, sk60):
    free = tuple(b for b in BOXES if b in free)
    # the most the free upper boxes can still add: six dice of their face, or Super-Points each
    super_points = sk60 or "super_kniffel" in free
    reach = sum(SUPER_POINTS if super_points else 6 * v for b, v in UPPER.items() if b in free)
    if _bonus(upper, reach) == 0:  # no threshold left within reach: only the thresholds passed matter
        upper = max([t for t, _ in BONUSES if t <= upper], default=0)
    return free, upper, sk60


def _start(filled):
    """filled dict -> (state, points already earned: boxes + bonuses reached)."""
    for box, pts in filled.items():
        if box not in BOXES:
            raise ValueError("unknown box %r" % (box,))
        super_points = box != "super_kniffel" and pts == SUPER_POINTS  # no box scores 60 but Super-Kniffel
        if pts not in POSSIBLE[box] or (super_points and filled.get("super_kniffel") != 60):
            raise ValueError("%r cannot hold %r points" % (box, pts))
    free = [b for b in BOXES if b not in filled]
    if not free:
        raise ValueError("no free box")
    upper = sum(pts for box, pts in filled.items() if box in UPPER)
    earned = sum(filled.values()) + _bonus(0, upper)
    return _state(free, upper, filled.get("super_kniffel") == 60), earned


def _move(state, box, pts):
    """(points gained, next state) when `pts` is entered in the free box `box`."""
    free, upper, sk60 = state
    rest = [b for b in free if b != box]
    if box in UPPER:
        return pts + _bonus(upper, pts), _state(rest, upper + pts, sk60)
    return pts, _state(rest, upper, sk60 or (box == "super_kniffel" and pts == 60))


@cache
def _box_points(box, sk60):
    """(points array over rolls, the distinct points in it) of a box, with or without More Super-Kniffel:
    the same in every state, so computed once (callers only read the array)."""
    pts = SCORES[box]
    if sk60:  # More Super-Kniffel: six equal dice enter 60 in the chosen box
        pts = np.where(SIX_EQUAL, SUPER_POINTS, pts)
    return pts, np.unique(pts).tolist()


def _entries(state):
    """Every entry of a final roll: (box, points array over rolls, {points: (gain, next state)})."""
    out = []
    for box in state[0]:
        pts, distinct = _box_points(box, state[2])
        out.append((box, pts, {p: _move(state, box, p) for p in distinct}))
    return out


def _lookup(pts, table):
    """Array over rolls: table[p] at each roll's points p (table: dict points -> value)."""
    keys = np.array(sorted(table))
    values = np.array([table[k] for k in keys.tolist()])
    return values[np.searchsorted(keys, pts)]


# ------------------------------------------------------------------ keeps


def _keep_table(after, stop):
    """The (7,)*7 table of every keep, a partial assignment (index 6 on an axis = that die rerolled).

    Keeping all dice stops: worth `stop`.  Another keep is worth the mean of `after` over its
    rerolled dice.
    """
    table = np.empty((7,) * 7 + after.shape[7:])
    table[(slice(0, 6),) * 7] = after
    for d in range(7):  # axes before d already hold their index 6
        head = (slice(None),) * d
        tail = (slice(0, 6),) * (6 - d)
        table[head + (6,) + tail] = table[head + (slice(0, 6),) + tail].mean(axis=d)
    table[(slice(0, 6),) * 7] = stop
    return table


def _keep_value(table, rerolled):
    """Value of rerolling the dice `rerolled` at every roll (broadcastable to SHAPE)."""
    return table[tuple(slice(6, 7) if d in rerolled else slice(0, 6) for d in range(7))]


def _best_keep(table):
    """Value of the best keep at every roll.

    The max over all 128 keeps, die by die: for each die the better of keeping its face or
    rerolling it, given every choice for the dice not handled yet.
    """
    best = table
    for d in range(7):
        head = (slice(None),) * d
        best = np.maximum(best[head + (slice(0, 6),)], best[head + (slice(6, 7),)])
    return best


def _turn(final):
    """Expectation of a turn whose final roll is worth `final` (shape SHAPE + extra)."""
    second = _best_keep(_keep_table(final, final))  # after the second roll
    first = _best_keep(_keep_table(second, final))  # after the first roll
    return first.reshape((6**7,) + final.shape[7:]).mean(axis=0)


# --------------------------------------------------------- expected value

_VALUE: dict = {}


def _value(state):
    """Expected points still to come from `state` under optimal play."""
    if not state[0]:
        return 0.0
    if state not in _VALUE:
        _VALUE[state] = float(_turn(_final_values(state).max(axis=0)))
    return _VALUE[state]


def _final_values(state):
    """Array (free box, SHAPE): value of entering the final roll in that box (points + future)."""
    rows = []
    for _, pts, moves in _entries(state):
        worth = {p: gain + _value(nxt) for p, (gain, nxt) in moves.items()}
        rows.append(_lookup(pts, worth).reshape(SHAPE))
    return np.stack(rows)


def expected_final(filled: dict[str, int]) -> float:
    """Max expected final score (boxes + upper bonuses + Super-Points) from the start of a turn."""
    state, earned = _start(filled)
    return earned + _value(state)


# ------------------------------------------------------- target probability

CHUNK = 8  # needs solved together (arrays of SHAPE x CHUNK)
_REACH: dict = {}
_PROB: dict = {}


def _reachable(state):
    """Sorted array of every total the points still to come could take (a superset)."""
    if state not in _REACH:
        totals = {0}
        for box in state[0]:
            for p in POSSIBLE[box]:
                gain, nxt = _move(state, box, p)
                totals |= {gain + x for x in _reachable(nxt).tolist()}
        _REACH[state] = np.array(sorted(totals))
    return _REACH[state]


def _prob(state, needs):
    """Array over `needs`: max over strategies of P(points still to come >= need)."""
    needs = np.asarray(needs)
    reach = _reachable(state)
    # the probability only changes at a reachable total: solve each need as the next reachable total
    pos = np.searchsorted(reach, needs)
    canon = reach[np.minimum(pos, len(reach) - 1)]
    todo = (needs > 0) & (pos < len(reach))
    memo = _PROB.setdefault(state, {})
    missing = sorted(set(canon[todo].tolist()) - memo.keys())
    for i in range(0, len(missing), CHUNK):
        chunk = np.array(missing[i : i + CHUNK])
        memo.update(zip(chunk.tolist(), _turn(_final_probs(state, chunk)).tolist()))
    solved = np.array([memo[c] if t else 0.0 for c, t in zip(canon.tolist(), todo)])
    return np.where(needs <= 0, 1.0, solved)


def _final_probs(state, needs):
    """Array SHAPE + (len(needs),): best P(reaching each need) after the final roll."""
    best = None
    for _, pts, moves in _entries(state):
        reach = {p: _prob(nxt, needs - gain) for p, (gain, nxt) in moves.items()}
        value = _lookup(pts, reach).reshape(SHAPE + needs.shape)
        best = value if best is None else np.maximum(best, value)
    return best


def max_prob_final_at_least(filled: dict[str, int], target: int) -> float:
    """Max over all strategies of P(final score >= target) from the start of a turn."""
    state, earned = _start(filled)
    return float(_prob(state, np.array([target - earned]))[0])


# ------------------------------------------------ distribution under max EV

_DIST: dict = {}


def _keep_choice(table):
    """Index into REROLLS of the keep taken at every roll: the first in REROLLS order within TIE of the best."""
    low = _best_keep(table) - TIE
    choice = np.zeros(SHAPE, dtype=np.int8)
    for i in reversed(range(len(REROLLS))):  # an earlier keep overwrites a later one
        np.copyto(choice, i, where=_keep_value(table, REROLLS[i]) >= low)
    return choice


def _follow(mass, choice):
    """Probability mass over rolls -> (mass that stops here, mass over the next roll)."""
    stopped = np.where(choice == 0, mass, 0.0)
    # each roll's mass goes to its keep (partial assignment: index 6 = rerolled) ...
    kept = np.where(REROLL_MASK[choice.ravel()], 6, FACE_INDEX)
    table = np.bincount(kept @ 7 ** np.arange(6, -1, -1), weights=(mass - stopped).ravel(), minlength=7**7)
    table = table.reshape((7,) * 7)
    for d in range(7):  # ... and spreads evenly over the six faces of each rerolled die
        head = (slice(None),) * d
        table = table[head + (slice(0, 6),)] + table[head + (slice(6, 7),)] / 6
    return stopped, table


def _dist(state):
    """dict points still to come -> probability under the max-EV policy with the tie rule."""
    if not state[0]:
        return {0: 1.0}
    if state not in _DIST:
        entries = _entries(state)
        options = _final_values(state)
        final = options.max(axis=0)
        entry = np.argmax(options >= final - TIE, axis=0)  # first box (BOXES order) within TIE
        second = _keep_table(final, final)  # keeps after the second roll
        first = _keep_table(_best_keep(second), final)
        stopped1, mass2 = _follow(np.full(SHAPE, 1 / 6**7), _keep_choice(first))
        stopped2, mass3 = _follow(mass2, _keep_choice(second))
        final_mass = stopped1 + stopped2 + mass3
        dist: dict = {}
        for i, (_, pts, moves) in enumerate(entries):
            for p, (gain, nxt) in moves.items():
                m = float(final_mass[(entry == i) & (pts.reshape(SHAPE) == p)].sum())
                if m > 0:
                    for x, q in _dist(nxt).items():
                        dist[gain + x] = dist.get(gain + x, 0.0) + m * q
        _DIST[state] = dist
    return _DIST[state]


def clear_caches():
    """Forget every memoised state (for timings from scratch)."""
    for memo in (_VALUE, _REACH, _PROB, _DIST):
        memo.clear()


def final_pmf_max_ev(filled: dict[str, int]) -> dict[int, float]:
    """Final-score distribution {score: probability} under one max-expected-value policy.

    Tie rule (options within TIE = 1e-9 of the best value count as tied): the final roll
    goes into the first tied box in BOXES order; a keep decision takes the first tied keep
    when keeps are ordered stop (keep all dice) first, then by the number of dice rerolled,
    then by the rerolled die numbers, lexicographically.
    """
    state, earned = _start(filled)
    return {earned + x: q for x, q in sorted(_dist(state).items())}
