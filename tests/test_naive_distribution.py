"""Self-checks of the score distributions and target probabilities of tests/naive.py.

``NaiveSolver.distribution`` / ``option_distribution`` / ``choice`` follow the
max-expected policy with the fixed tie rule; ``target_probability`` /
``target_option_probability`` maximise P(points to come >= need).  The hand
examples below are worked out in exact fractions in the comments.
"""

from fractions import Fraction as F
from itertools import product

import pytest

from naive import NaiveSolver

TOL = 1e-9


def approx(x):
    return pytest.approx(float(x), abs=TOL, rel=TOL)


def mean(dist):
    return sum(k * p for k, p in dist.items())


def first_rolls(s):
    """dict roll -> probability of the first roll, in the option form of ``dice``."""
    if s.identical:
        faces = [range(1, 7)] * s.n
    else:  # kniffel7: die i (0-based) lacks face i + 1
        faces = [[f for f in range(1, 8) if f != i + 1] for i in range(s.n)]
    out = {}
    for r in product(*faces):
        key = tuple(sorted(r)) if s.identical else r
        out[key] = out.get(key, 0) + F(1, 6 ** s.n)
    return out


def keep_options(s, dice):
    """Every keep of ``dice`` in the option form (kept faces / kept die indices)."""
    opts = set()
    for mask in product((0, 1), repeat=s.n):
        idx = tuple(i for i in range(s.n) if mask[i])
        opts.add(tuple(sorted(dice[i] for i in idx)) if s.identical else idx)
    return sorted(opts)


def tie_pick(s, options, values):
    """The tie rule of the brief, re-implemented on the public option forms."""
    best = max(values)
    tied = [o for o, v in zip(options, values) if v >= best - 1e-9]
    if isinstance(tied[0], str):
        return min(tied, key=s.boxes.index)
    return min(tied, key=lambda k: (-len(k), k))


# ---------------------------------------------------------------------------
# One die, the Chance box alone, by hand
# ---------------------------------------------------------------------------
#
# Values with k rolls left (stop when the face beats the value of rolling on):
#   one roll:    e1 = 7/2
#   two rolls:   stop on 4, 5, 6:  e2 = (4+5+6)/6 + (3/6)(7/2) = 17/4
#   three rolls: stop on 5, 6:     e3 = (5+6)/6 + (4/6)(17/4)  = 14/3
# (no face equals 7/2 or 17/4, so there are no ties).
# Final score: 6 (or 5) on roll 1: 1/6; on roll 2 (roll 1 was 1..4): (4/6)(1/6);
# on roll 3 (roll 1 1..4, roll 2 1..3): (4/6)(3/6)(1/6):
#   P(6) = P(5) = 36/216 + 24/216 + 12/216 = 1/3
#   P(4) = 24/216 + 12/216 = 1/6           (4 is kept on roll 2, or taken on roll 3)
#   P(1) = P(2) = P(3) = 12/216 = 1/18     (only as the third roll)
# mean = 2 + 5/3 + 2/3 + 1/3 = 14/3.

CHANCE1 = {1: F(1, 18), 2: F(1, 18), 3: F(1, 18), 4: F(1, 6), 5: F(1, 3), 6: F(1, 3)}


def chance1():
    return NaiveSolver("kniffel", ["chance"], n_dice=1)


def test_one_die_chance_distribution_by_hand():
    s = chance1()
    d = s.distribution({})
    assert set(d) == set(CHANCE1)
    for k, p in CHANCE1.items():
        assert d[k] == approx(p)
    assert mean(d) == approx(F(14, 3))


def test_one_die_chance_option_distributions_by_hand():
    s = chance1()
    # roll 1 shows 4, reroll: two rolls left, stop on 4, 5, 6:
    #   P(4) = P(5) = P(6) = 1/6 + (3/6)(1/6) = 1/4, P(1) = P(2) = P(3) = 1/12
    d = s.option_distribution({}, (4,), 1, ())
    for k in (1, 2, 3):
        assert d[k] == approx(F(1, 12))
    for k in (4, 5, 6):
        assert d[k] == approx(F(1, 4))
    assert mean(d) == approx(F(17, 4))
    # keeping the only die = stop: the 4 is final
    assert s.option_distribution({}, (4,), 1, (4,)) == {4: approx(1)}
    # roll 2 shows 2, reroll: one roll left, uniform
    d = s.option_distribution({}, (2,), 2, ())
    assert d == {k: approx(F(1, 6)) for k in range(1, 7)}
    assert s.option_distribution({}, (2,), 3, "chance") == {2: approx(1)}
    # the policy: stop on 5, 6 after roll 1; on 4, 5, 6 after roll 2
    assert [s.choice({}, (f,), 1) for f in range(1, 7)] == [(), (), (), (), (5,), (6,)]
    assert [s.choice({}, (f,), 2) for f in range(1, 7)] == [(), (), (), (4,), (5,), (6,)]
    assert s.choice({}, (1,), 3) == "chance"


def test_one_die_chance_targets_by_hand():
    s = chance1()
    # P(max over three rolls of a stopping rule reaches need): stop as soon as a
    # face >= need shows: 1 - ((need - 1)/6)^3
    for need in range(1, 7):
        assert s.target_probability({}, need) == approx(1 - F(need - 1, 6) ** 3)
    assert s.target_probability({}, 6) == approx(F(91, 216))
    assert s.target_probability({}, 5) == approx(F(152, 216))
    for need in (0, -3, -0.5):
        assert s.target_probability({}, need) == 1.0
    assert s.target_probability({}, 7) == 0.0
    assert s.target_probability({}, 100) == 0.0
    # target play beats max-expected play: P(>= 6) 91/216 > 72/216 = 1/3
    assert s.target_probability({}, 6) > sum(p for k, p in s.distribution({}).items() if k >= 6)
    # roll 1 shows 4, need 5: reroll gives 1 - (4/6)^2 = 20/36, stopping gives 0
    assert s.target_option_probability({}, (4,), 1, (), 5) == approx(F(20, 36))
    assert s.target_option_probability({}, (4,), 1, (4,), 5) == 0.0
    assert s.target_option_probability({}, (4,), 1, (4,), 4) == approx(1)
    assert s.target_option_probability({}, (4,), 3, "chance", 4) == approx(1)
    assert s.target_option_probability({}, (4,), 2, (), 6) == approx(F(1, 6))


def test_two_turn_target_by_hand():
    # Yatzy, one die, boxes Chance and Yatzy: the Yatzy box always scores 50 with
    # one die.  need 56 = 50 + a six in Chance.  Best: hunt a six with three
    # rolls; on success enter Chance, else enter the Yatzy box and hunt the six
    # again with three more rolls: 1 - (5/6)^6 = 31031/46656.
    # need 55: a 5 or 6 within six rolls: 1 - (4/6)^6 = 665/729.
    s = NaiveSolver("yatzy", ["chance", "yatzy"], n_dice=1, bonuses=[])
    assert s.target_probability({}, 56) == approx(F(31031, 46656))
    assert s.target_probability({}, 55) == approx(F(665, 729))
    assert s.target_probability({}, 51) == approx(1)
    assert s.target_probability({}, 57) == 0.0
    # one turn left (Yatzy filled): Chance alone, 1 - (5/6)^3 = 91/216 for a six
    assert s.target_probability({"yatzy": 50}, 6) == approx(F(91, 216))
    # after a final 3 in turn 1: enter Yatzy (then 1 - (5/6)^3 for the six)
    # or Chance (53 < 56 for sure)
    assert s.target_option_probability({}, (3,), 3, "yatzy", 56) == approx(F(91, 216))
    assert s.target_option_probability({}, (3,), 3, "chance", 56) == 0.0
    assert s.target_option_probability({}, (3,), 3, "chance", 53) == approx(1)
    # max-expected play is worse here
    d = s.distribution({})
    assert sum(p for k, p in d.items() if k >= 56) < F(31031, 46656) - F(1, 100)
    assert mean(d) == approx(s.start_value())


# ---------------------------------------------------------------------------
# The tie rule
# ---------------------------------------------------------------------------


def test_tie_rule_by_hand():
    # one die: the Yatzy box always scores 50, One Pair always 0; either order
    # of entries gives 50 in all, every keep is worth 50: stop at once, enter
    # the first box of the scorecard
    s = NaiveSolver("yatzy", ["yatzy", "one_pair"], n_dice=1, bonuses=[])
    assert s.choice({}, (3,), 1) == (3,)
    assert s.choice({}, (3,), 2) == (3,)
    assert s.choice({}, (3,), 3) == "yatzy"
    s = NaiveSolver("yatzy", ["one_pair", "yatzy"], n_dice=1, bonuses=[])
    assert s.choice({}, (3,), 3) == "one_pair"
    assert s.distribution({}) == {50: approx(1)}
    # two dice, box Yatzy alone, roll 2 shows (2, 5): keep 2, keep 5 and reroll
    # both all give 50/6; stopping gives 0 -> most dice kept (one), smallest face
    s = NaiveSolver("yatzy", ["yatzy"], n_dice=2, bonuses=[])
    assert s.choice({}, (5, 2), 2) == (2,)
    # after roll 1 the same: keep one die or none, 50 * 11/36 either way
    assert s.choice({}, (2, 5), 1) == (2,)
    for opt in [(2,), (5,), ()]:
        assert mean(s.option_distribution({}, (2, 5), 1, opt)) == approx(50 * F(11, 36))
    assert s.choice({}, (4, 4), 1) == (4, 4)
    # kniffel7, two dice: Super-Kniffel = all but one equal = any roll (60):
    # every keep ties, keep both dice (indices 0, 1)
    s = NaiveSolver("kniffel7", ["super_kniffel"], n_dice=2, bonuses=[])
    assert s.choice({}, (3, 4), 1) == (0, 1)
    assert s.distribution({}) == {60: approx(1)}
    # kniffel7, three dice, Super-Kniffel alone (a pair scores 60).  Roll 2
    # shows die 0 = 2, die 1 = 4, die 2 = 5 (die k lacks face k + 1).
    # Keep die 1 (the 4), reroll dice 0 (faces 2..7) and 2 (faces 1,2,4..7):
    #   P(die0 = 4 or die2 = 4 or die0 = die2)
    #   = 6/36 + 6/36 + 5/36 (common faces 2,4,5,6,7) - 3 * 1/36 + 1/36 = 15/36
    # Keep die 2 (the 5), reroll dice 0 and 1 (faces 1,3..7): by the same count
    #   6/36 + 6/36 + 5/36 (common 3,4,5,6,7) - 3/36 + 1/36 = 15/36
    # Keep die 0 (the 2): die 1 cannot show 2: 6/36 + 5/36 (common 1,4,5,6,7) = 11/36
    # Keep dice 1 and 2: die 0 shows 4 or 5: 12/36; keep all: no pair, 0.
    # -> keeps of dice 1 and of die 2 tie at 60 * 15/36 = 25: smallest index, (1,)
    s = NaiveSolver("kniffel7", ["super_kniffel"], n_dice=3, bonuses=[])
    for opt, p in [((1,), F(15, 36)), ((2,), F(15, 36)), ((0,), F(11, 36)),
                   ((1, 2), F(12, 36)), ((0, 1, 2), 0)]:
        assert mean(s.option_distribution({}, (2, 4, 5), 2, opt)) == approx(60 * p)
    assert s.choice({}, (2, 4, 5), 2) == (1,)
    assert s.option_distribution({}, (2, 4, 5), 2, (1,)) == {0: approx(F(21, 36)),
                                                             60: approx(F(15, 36))}


def test_keep_one_rejects_empty_keep_after_roll_2():
    s = NaiveSolver("kniffel", ["chance"], n_dice=1, keep_one=True)
    with pytest.raises(ValueError):
        s.option_distribution({}, (1,), 2, ())
    with pytest.raises(ValueError):
        s.target_option_probability({}, (1,), 2, (), 3)
    # after roll 2 the die must be kept: the roll after roll 2 is final
    assert s.choice({}, (1,), 2) == (1,)
    # two rolls that count: stop on 4, 5, 6 after roll 1 (e = 7/2 for one roll)
    # P(6) = 1/6 + (3/6)(1/6) = 1/4
    d = s.distribution({})
    assert d[6] == approx(F(1, 4)) and d[1] == approx(F(1, 12))
    assert mean(d) == approx(F(17, 4)) and mean(d) == approx(s.start_value())


# ---------------------------------------------------------------------------
# Properties on reduced variants (bonuses and jokers in reach)
# ---------------------------------------------------------------------------

# (variant, boxes, n_dice, bonuses, keep_one, cards, maximum points from {})
CASES = [
    # ones 3 + bonus 35 + Kniffel 50 + chance 18 = 106 without joker; with the
    # Kniffel box filled first, two jokers: ones (box max 3, +50, bonus 35) and
    # chance (18, +50): 50 + 88 + 68 = 206
    ("kniffel", ["ones", "kniffel", "chance"], 3, [(3, 35)], False,
     [{}, {"kniffel": 50}, {"kniffel": 0, "ones": 2}, {"ones": 3}], 206),
    # twos 8 + bonus 50 + Three Pairs 0 (impossible with 4 dice) + chance 24 = 82
    ("yatzy6", ["twos", "three_pairs", "chance"], 4, [(4, 50)], False,
     [{}, {"twos": 4}, {"chance": 10}], 82),
    # the same with 3 dice: 6 + 50 + 0 + 18 = 74
    ("yatzy6", ["twos", "three_pairs", "chance"], 3, [(4, 50)], False,
     [{}, {"twos": 4}], 74),
    # Super-Kniffel 60, then Super-Points 60 in Ones (60 toward the upper total:
    # bonuses 10 + 5) and 60 in Chance: 60 + 75 + 60 = 195
    ("kniffel7", ["ones", "super_kniffel", "chance"], 3, [(2, 10), (3, 5)], False,
     [{}, {"super_kniffel": 60}, {"super_kniffel": 0, "ones": 1}], 195),
    # two dice: Super-Kniffel (one die "equal") and Super-Points on every roll:
    # again 60 + 75 + 60 = 195
    ("kniffel7", ["ones", "super_kniffel", "chance"], 2, [(2, 10), (3, 5)], False,
     [{}, {"super_kniffel": 60}, {"super_kniffel": 0}], 195),
    # sevens 14 (both dice can show 7) + bonus 10, straight of five impossible
    # with 2 dice, chance 14; no Super-Kniffel box, no Super-Points: 38
    ("kniffel7", ["sevens", "straight_five", "chance"], 2, [(7, 10)], False,
     [{}, {"sevens": 7}], 38),
    # Yahtzee 50, then two further Yahtzees (+100 each) forced/joker: fives 15 +
    # bonus 35, full house 25 (joker): 50 + 150 + 125 = 325
    ("yahtzee", ["fives", "yahtzee", "full_house"], 3, [(10, 35)], False,
     [{}, {"yahtzee": 50}, {"yahtzee": 0, "fives": 10}], 325),
    ("yahtzee-free-joker", ["fives", "yahtzee", "full_house"], 3, [(10, 35)], False,
     [{}, {"yahtzee": 50}, {"fives": 5}], 325),
    # Kniffel 50, then three further Kniffels (+50 each, scored normally, no
    # joker): sixes 18 + bonus 35; four of a kind and small straight are
    # impossible with 3 dice (0): 50 + 150 + 53 = 253
    ("kniffel-meister", ["sixes", "kniffel", "four_of_a_kind", "small_straight"], 3,
     [(12, 35)], True, [{}, {"kniffel": 50, "sixes": 6}], 253),
    # yatzy 2 dice: ones 2, two pairs impossible, yatzy 50, chance 12 + bonus 5
    ("yatzy", ["ones", "two_pairs", "yatzy", "chance"], 2, [(2, 5)], False,
     [{}, {"yatzy": 0}], 69),
]


_SOLVERS = {}


def solver_of(i):
    """The solver of CASES[i], built once per test session (its memos are shared)."""
    if i not in _SOLVERS:
        variant, boxes, n, bonuses, keep_one, _, _ = CASES[i]
        _SOLVERS[i] = NaiveSolver(variant, boxes, n_dice=n, bonuses=bonuses,
                                  keep_one=keep_one)
    return _SOLVERS[i]


@pytest.fixture(params=range(len(CASES)))
def case(request):
    return solver_of(request.param), CASES[request.param][5], CASES[request.param][6]


# every option of every first roll is examined: only the cases with few rolls
SMALL = [i for i, c in enumerate(CASES)
         if len(first_rolls(NaiveSolver(c[0], c[1], n_dice=c[2]))) <= 60]


@pytest.fixture(params=SMALL)
def small_case(request):
    return solver_of(request.param), CASES[request.param][5], CASES[request.param][6]


def test_distribution_sums_to_one_and_mean_is_value(case):
    s, cards, _ = case
    for card in cards:
        d = s.distribution(card)
        assert sum(d.values()) == approx(1)
        assert all(p > 0 for p in d.values())
        assert all(isinstance(k, int) and k >= 0 for k in d)
        assert mean(d) == approx(s.state_value(card))


def test_target_properties(case):
    s, cards, top = case
    for card in cards:
        d = s.distribution(card)
        hi = max(d) + 3
        probs = [s.target_probability(card, need) for need in range(-2, hi + 1)]
        assert probs[:3] == [1.0, 1.0, 1.0]  # need -2, -1, 0
        for a, b in zip(probs, probs[1:]):
            assert b <= a + 1e-12
        for need in range(1, hi + 1):
            p_exp = sum(p for k, p in d.items() if k >= need)
            assert s.target_probability(card, need) >= p_exp - 1e-9
            assert s.target_probability(card, need) <= 1 + 1e-12
    # the maximum possible from the empty card (worked out in CASES)
    assert s.target_probability({}, top) > 0
    assert s.target_probability({}, top + 1) == 0.0
    assert s.target_probability({}, top + 50) == 0.0


def test_policy_consistent_with_options(small_case):
    """distribution = sum over the first roll of the chosen option's distribution;
    the chosen option is the tie-rule pick among the options' means;
    target = sum over the first roll of the best option's target probability."""
    s, cards, _ = small_case
    card = cards[0]
    rolls = first_rolls(s)
    total = {}
    needs = sorted(set(max(s.distribution(card)) // k for k in (1, 2, 3, 5)))
    target = {need: 0.0 for need in needs}
    for r, p in rolls.items():
        opts = keep_options(s, r)
        dists = [s.option_distribution(card, r, 1, o) for o in opts]
        pick = tie_pick(s, opts, [mean(d) for d in dists])
        assert s.choice(card, r, 1) == pick
        for k, q in dists[opts.index(pick)].items():
            total[k] = total.get(k, 0.0) + float(p) * q
        for need in needs:
            target[need] += float(p) * max(
                s.target_option_probability(card, r, 1, o, need) for o in opts)
        # after roll 2 (keep_one: not the empty keep) and the entry after the final roll
        opts2 = [o for o in opts if not (s.keep_one and len(o) == 0)]
        means2 = [mean(s.option_distribution(card, r, 2, o)) for o in opts2]
        assert s.choice(card, r, 2) == tie_pick(s, opts2, means2)
        fs, _, j = s._state_parts(card)
        boxes = sorted({b for b, _, _ in s.options(fs, j, r)}, key=s.boxes.index)
        means3 = [mean(s.option_distribution(card, r, 3, b)) for b in boxes]
        assert s.choice(card, r, 3) == tie_pick(s, boxes, means3)
        # stopping after roll 1 = entering by the policy's box
        all_dice = tuple(sorted(r)) if s.identical else tuple(range(s.n))
        assert s.option_distribution(card, r, 1, all_dice) == s.option_distribution(
            card, r, 3, s.choice(card, r, 3))
    d = s.distribution(card)
    assert set(k for k, q in total.items() if q > 1e-15) == set(d)
    for k in d:
        assert total[k] == approx(d[k])
    for need in needs:
        assert target[need] == approx(s.target_probability(card, need))
