"""Self-checks of the naive reference solver (tests/naive.py).

Every expected number here is worked out by hand (derivation in the comments)
from /work/shared/RULES.md and the seed documents in /work/shared/seeds/.
"""

import os
import sys
from fractions import Fraction as F
from itertools import product

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from naive import NaiveSolver, score  # noqa: E402

TOL = 1e-9


def approx(x):
    return pytest.approx(float(x), abs=TOL, rel=TOL)


def stop3(payoff):
    """Optimal stopping of ONE ordinary die over three rolls, exact fractions.

    payoff: dict face -> value of stopping with that face.
    e1 = mean payoff of one roll; with k rolls left keep face f iff payoff[f] >= e_{k-1}.
    """
    faces = range(1, 7)
    e = sum(F(payoff[f]) for f in faces) / 6
    for _ in range(2):
        e = sum(max(F(payoff[f]), e) for f in faces) / 6
    return e


# ---------------------------------------------------------------------------
# Scoring examples from the seeds
# ---------------------------------------------------------------------------

# seed 001 ("Kniffel Spielanleitung"), each "Beispiel"
SEED001 = [
    ("ones", (2, 2, 2, 1, 6), 1),
    ("twos", (2, 2, 5, 1, 6), 4),
    ("threes", (3, 3, 3, 1, 6), 9),
    ("fours", (4, 4, 4, 4, 6), 16),
    ("fives", (5, 5, 5, 1, 6), 15),
    ("sixes", (6, 6, 6, 1, 6), 24),
    # seed 001 prints 11 for "2, 2, 2, 1, 6" and 20 for "4, 4, 4, 4, 6": arithmetic
    # slips of the seed.  RULES.md (binding, and seed 000: "Summe aller fuenf Wuerfel")
    # scores the sum of all dice: 2+2+2+1+6 = 13 and 4+4+4+4+6 = 22.
    ("three_of_a_kind", (2, 2, 2, 1, 6), 13),
    ("four_of_a_kind", (4, 4, 4, 4, 6), 22),
    ("full_house", (2, 2, 3, 3, 3), 25),
    ("small_straight", (1, 2, 3, 4, 6), 30),
    ("large_straight", (1, 2, 3, 4, 5), 40),
    ("kniffel", (4, 4, 4, 4, 4), 50),
    ("chance", (2, 3, 4, 5, 6), 20),
]


@pytest.mark.parametrize("box,dice,pts", SEED001)
def test_seed001_examples(box, dice, pts):
    for v in ("kniffel", "kniffel-meister"):
        assert score(v, box, dice) == pts
    ybox = "yahtzee" if box == "kniffel" else box
    for v in ("yahtzee", "yahtzee-free-joker"):
        assert score(v, ybox, dice) == pts


def test_seed000_kniffel_examples():
    # "Drei Vierer bringen im Viererfeld 12 Punkte"
    assert score("kniffel", "fours", (4, 4, 4, 1, 2)) == 12
    # "Full House zum Beispiel sind drei Vieren und zwei Einsen" -> 25
    assert score("kniffel", "full_house", (4, 4, 4, 1, 1)) == 25
    # Dreier-/Viererpasch: "alle Augen des Wurfes"
    assert score("kniffel", "three_of_a_kind", (4, 4, 4, 1, 1)) == 14
    # five equal dice are not a Full House (Schmidt-Anleitung)
    assert score("kniffel", "full_house", (3, 3, 3, 3, 3)) == 0
    assert score("yahtzee", "full_house", (3, 3, 3, 3, 3)) == 0
    # three straights of four: 1234, 2345, 3456; fifth die anything
    assert score("kniffel", "small_straight", (3, 4, 5, 6, 6)) == 30
    assert score("kniffel", "small_straight", (2, 3, 4, 5, 1)) == 30
    assert score("kniffel", "small_straight", (1, 2, 3, 5, 6)) == 0
    assert score("kniffel", "large_straight", (2, 3, 4, 5, 6)) == 40
    assert score("kniffel", "large_straight", (1, 2, 3, 4, 6)) == 0
    # 4+1 is not a full house, but is a three/four of a kind
    assert score("kniffel", "full_house", (4, 4, 4, 4, 1)) == 0
    assert score("kniffel", "four_of_a_kind", (4, 4, 4, 4, 1)) == 17


def test_seed000_yatzy_differences():
    # Yatzy: pasch counts only the equal dice, full house = sum, straights 15/20
    assert score("yatzy", "three_of_a_kind", (2, 2, 2, 1, 6)) == 6
    assert score("yatzy", "four_of_a_kind", (4, 4, 4, 4, 6)) == 16
    assert score("yatzy", "full_house", (2, 2, 3, 3, 3)) == 13
    assert score("yatzy", "full_house", (3, 3, 3, 3, 3)) == 0
    assert score("yatzy", "small_straight", (1, 2, 3, 4, 5)) == 15
    assert score("yatzy", "small_straight", (1, 2, 3, 4, 6)) == 0
    assert score("yatzy", "large_straight", (2, 3, 4, 5, 6)) == 20
    assert score("yatzy", "large_straight", (1, 2, 3, 4, 5)) == 0
    assert score("yatzy", "yatzy", (5, 5, 5, 5, 5)) == 50
    # one pair: highest pair; two pairs: different values, sum of those four dice
    assert score("yatzy", "one_pair", (3, 3, 5, 5, 6)) == 10
    assert score("yatzy", "two_pairs", (3, 3, 5, 5, 6)) == 16
    assert score("yatzy", "two_pairs", (3, 3, 3, 3, 6)) == 0
    assert score("yatzy", "two_pairs", (3, 3, 3, 5, 5)) == 16
    assert score("yatzy", "one_pair", (1, 2, 3, 4, 6)) == 0
    assert score("yatzy", "chance", (1, 2, 3, 4, 6)) == 16


def test_seed002_yatzy6():
    # "1, 1, 1, 2, 2, 5" may go to Einser, Zweier, Fuenfer
    d = (1, 1, 1, 2, 2, 5)
    assert score("yatzy6", "ones", d) == 3
    assert score("yatzy6", "twos", d) == 4
    assert score("yatzy6", "fives", d) == 5
    assert score("yatzy6", "threes", d) == 0
    # Full House (4+2) also counts as Drei Paare
    fh = (4, 4, 4, 4, 2, 2)
    assert score("yatzy6", "full_house", fh) == 40
    assert score("yatzy6", "three_pairs", fh) == 20
    assert score("yatzy6", "two_triples", fh) == 0
    # Strasse also as 5er-Strasse (sum of all six dice = 21)
    st = (1, 2, 3, 4, 5, 6)
    assert score("yatzy6", "straight", st) == 50
    assert score("yatzy6", "five_straight", st) == 21
    # Yatzy also as 5er-Yatzy, Full House, Zwei Drillinge, Drei Paare
    y = (5, 5, 5, 5, 5, 5)
    assert score("yatzy6", "yatzy", y) == 60
    assert score("yatzy6", "five_yatzy", y) == 30
    assert score("yatzy6", "full_house", y) == 40
    assert score("yatzy6", "two_triples", y) == 30
    assert score("yatzy6", "three_pairs", y) == 20
    # RULES.md: 2+2+2 pairs, 3+3 triples
    assert score("yatzy6", "three_pairs", (1, 1, 3, 3, 6, 6)) == 20
    assert score("yatzy6", "three_pairs", (1, 1, 3, 3, 6, 5)) == 0
    assert score("yatzy6", "two_triples", (2, 2, 2, 6, 6, 6)) == 30
    assert score("yatzy6", "five_straight", (2, 3, 4, 5, 6, 6)) == 26
    assert score("yatzy6", "five_yatzy", (3, 3, 3, 3, 3, 1)) == 16
    assert score("yatzy6", "five_yatzy", (3, 3, 3, 3, 1, 1)) == 0
    assert score("yatzy6", "chance", (3, 3, 3, 3, 1, 1)) == 14


def test_seed004_kniffel7():
    # Four/Five of a Kind: all seven dice added
    assert score("kniffel7", "four_of_a_kind", (7, 7, 7, 7, 1, 2, 3)) == 34
    assert score("kniffel7", "five_of_a_kind", (2, 2, 2, 2, 2, 7, 6)) == 23
    assert score("kniffel7", "five_of_a_kind", (2, 2, 2, 2, 1, 7, 6)) == 0
    # Double-Triple: two different numbers; six of the same does not count
    assert score("kniffel7", "double_triple", (3, 3, 3, 5, 5, 5, 1)) == 25
    assert score("kniffel7", "double_triple", (3, 3, 3, 3, 5, 5, 5)) == 25
    assert score("kniffel7", "double_triple", (4, 4, 4, 4, 4, 4, 1)) == 0
    # straights within 1..7, "the 7 follows the 6"
    assert score("kniffel7", "straight_five", (3, 4, 5, 6, 7, 1, 1)) == 30
    assert score("kniffel7", "straight_six", (2, 3, 4, 5, 6, 7, 7)) == 40
    assert score("kniffel7", "straight_six", (1, 2, 3, 4, 5, 7, 7)) == 0
    assert score("kniffel7", "super_kniffel", (6, 6, 6, 6, 6, 6, 1)) == 60
    assert score("kniffel7", "super_kniffel", (6, 6, 6, 6, 6, 1, 1)) == 0
    assert score("kniffel7", "sevens", (7, 7, 1, 2, 3, 4, 5)) == 14
    assert score("kniffel7", "chance", (7, 7, 1, 2, 3, 4, 5)) == 29


# ---------------------------------------------------------------------------
# Values of tiny games, worked by hand
# ---------------------------------------------------------------------------


def test_chance_one_die():
    # 1 roll: 3.5.  2 rolls: keep 4,5,6 -> 15/6 + 3/6*3.5 = 4.25.
    # 3 rolls: keep 5,6 -> 11/6 + 4/6*4.25 = 28/6 = 14/3.
    for v in ("kniffel", "kniffel-meister", "yahtzee", "yatzy", "yatzy6"):
        assert NaiveSolver(v, ["chance"], n_dice=1).start_value() == approx(F(14, 3))


def test_chance_n_dice_is_additive():
    # the sum is additive and each die can be handled alone: n * 14/3
    for n in (2, 3, 5):
        assert NaiveSolver("kniffel", ["chance"], n_dice=n).start_value() == approx(F(14, 3) * n)
    assert NaiveSolver("yatzy6", ["chance"]).start_value() == approx(F(14, 3) * 6)


def test_sixes_five_dice():
    # keep the sixes: each die ends a six w.p. 1-(5/6)^3 = 91/216 -> 6*5*91/216
    p = F(91, 216)
    s = NaiveSolver("kniffel", ["sixes"])
    assert s.start_value() == approx(30 * p)
    # a bonus of 100 at threshold 18 (three sixes): + 100 * P(Bin(5,p) >= 3)
    tail = sum(F(c) * p**k * (1 - p) ** (5 - k) for k, c in ((3, 10), (4, 5), (5, 1)))
    s = NaiveSolver("kniffel", ["sixes"], bonuses=[(18, 100)])
    assert s.start_value() == approx(30 * p + 100 * tail)
    # a bonus already reached is not counted again (future points only)
    s = NaiveSolver("kniffel", ["ones", "sixes"], bonuses=[(3, 100)])
    assert s.state_value({"ones": 3}) == approx(30 * p)
    # bonus crossed by the last entry: ones=2, need 1 more -> any six crosses
    assert s.state_value({"ones": 2}) == approx(30 * p + 100 * (1 - (1 - p) ** 5))


def test_kniffel_two_dice():
    # P(both equal) with 2 dice: first roll 1/6; else keep one, 2 chances of 1/6
    # = 1/6 + 5/6*(1/6 + 5/6*1/6) = 91/216
    for v, b in (("kniffel", "kniffel"), ("yahtzee", "yahtzee"), ("yatzy", "yatzy")):
        assert NaiveSolver(v, [b], n_dice=2).start_value() == approx(50 * F(91, 216))


def test_yahtzee_single_box_five_dice():
    # classic P(Yahtzee within three rolls) = 2783176/6**10 = 0.04602864...
    # Re-derived here by the greedy chain "keep the largest group": from a kept
    # group of size k (of value 1, by symmetry) reroll 5-k dice; the new largest
    # group is max(k + #ones rerolled, largest group among the other rerolled faces).
    from itertools import product

    def step(k):
        m = 5 - k
        out = {}
        for r in product(range(1, 7), repeat=m):
            new = max([k + r.count(1)] + [r.count(x) for x in range(2, 7)])
            out[new] = out.get(new, 0) + F(1, 6**m)
        return out

    dist = step(0)  # first roll
    for _ in range(2):
        nd = {}
        for k, p in dist.items():
            for k2, q in step(k).items():
                nd[k2] = nd.get(k2, 0) + p * q
        dist = nd
    p5 = dist[5]
    assert p5 == F(2783176, 6**10)
    assert NaiveSolver("yahtzee", ["yahtzee"]).start_value() == approx(50 * p5)
    assert NaiveSolver("kniffel", ["kniffel"]).start_value() == approx(50 * p5)


def test_keep_one_house_rule_one_die():
    # with one die the third roll may reroll at most 0 dice: two rolls only -> 4.25
    s = NaiveSolver("kniffel", ["chance"], n_dice=1, keep_one=True)
    assert s.start_value() == approx(F(17, 4))


def test_keep_one_house_rule_two_dice():
    # third roll rerolls at most one die: after roll 2 with (a,b)
    #   W1(a,b) = max(a+b, max(a,b) + 7/2)
    # after roll 1: keep both -> W1(a,b); keep x -> mean_y W1(x,y); keep none -> mean W1
    faces = range(1, 7)

    def W1(a, b):
        return max(F(a + b), max(a, b) + F(7, 2))

    keep_none = sum(W1(a, b) for a in faces for b in faces) / 36
    keep_x = {x: sum(W1(x, y) for y in faces) / 6 for x in faces}

    def W2(a, b):
        return max(W1(a, b), keep_x[a], keep_x[b], keep_none)

    value = sum(W2(a, b) for a in faces for b in faces) / 36
    s = NaiveSolver("kniffel", ["chance"], n_dice=2, keep_one=True)
    assert s.start_value() == approx(value)
    assert value < F(28, 3)  # strictly worse than the free game 2 * 14/3


def test_restricted_scratching_one_die():
    # kniffel, 1 die, boxes ones & sixes, no bonus.
    # Last turn: sixes alone 6*91/216 = 91/36, ones alone 91/216.
    # First turn, final face f: 6 must go to sixes (it fits, ones does not) -> 6 + 91/216;
    # 1 must go to ones -> 1 + 91/36; 2..5 fit nothing -> scratch ones -> 91/36.
    v1, v6 = F(91, 216), F(91, 36)
    pay = {f: v6 for f in range(1, 7)}
    pay[6] = 6 + v1
    pay[1] = 1 + v6
    s = NaiveSolver("kniffel", ["ones", "sixes"], n_dice=1, bonuses=[])
    assert s.state_value({"ones": 0}) == approx(v6)
    assert s.state_value({"sixes": 0}) == approx(v1)
    assert s.start_value() == approx(stop3(pay))
    # with free scratching (meister) a 6 could also scratch ones: 6 could go
    # (0 in ones) + 91/36 < 6 + 91/216, so the same value.
    s = NaiveSolver("kniffel-meister", ["ones", "sixes"], n_dice=1, bonuses=[])
    assert s.start_value() == approx(stop3(pay))


def test_restricted_scratching_forces_a_bad_entry():
    # kniffel, 1 die, boxes chance & kniffel: kniffel (all dice equal) always fits, so
    # does chance.  The restriction never bites; value = 50 + (joker or not).
    # Kniffel first (50), then joker: +50 and chance gets its maximum 6 -> 106.
    # Chance first (f <= 6) then 50 -> at most 56.
    s = NaiveSolver("kniffel", ["kniffel", "chance"], n_dice=1, bonuses=[])
    assert s.start_value() == approx(106)
    assert s.state_value({"kniffel": 50}) == approx(56)
    # kniffel box scratched: no joker, chance scored normally
    assert s.state_value({"kniffel": 0}) == approx(F(14, 3))
    # restricted: a roll fitting chance cannot be put as 0 into the kniffel box
    opts = s.final_options({}, [3])
    assert {(b, p) for b, p, _ in opts} == {("kniffel", 50), ("chance", 3)}


def test_extras_one_die_all_variants():
    # one die: every roll is "all dice equal".
    # meister: kniffel 50 first, then +50 and chance scored normally: 100 + 14/3
    s = NaiveSolver("kniffel-meister", ["kniffel", "chance"], n_dice=1, bonuses=[])
    assert s.start_value() == approx(100 + F(14, 3))
    # yahtzee (forced joker, face's upper box not on the card -> lower box chance):
    # 50 + 100 + 14/3;  chance first would give <= 6 + 50
    for v in ("yahtzee", "yahtzee-free-joker"):
        s = NaiveSolver(v, ["yahtzee", "chance"], n_dice=1, bonuses=[])
        assert s.start_value() == approx(150 + F(14, 3))
        assert s.state_value({"yahtzee": 0}) == approx(F(14, 3))
    # yatzy: no extras. Turn 1 face f: yatzy now (50 + 14/3 later) or chance f then 50:
    # payoff 50 + max(14/3, f).  max(14/3,f): 1 roll 89/18, 2 rolls 277/54, 3 rolls 1709/324
    s = NaiveSolver("yatzy", ["yatzy", "chance"], n_dice=1, bonuses=[])
    pay = {f: 50 + max(F(14, 3), f) for f in range(1, 7)}
    assert stop3(pay) == 50 + F(1709, 324)
    assert s.start_value() == approx(50 + F(1709, 324))


def test_yahtzee_joker_full_house_one_die():
    # 1 die, yahtzee + full_house: yahtzee 50 first; then +100 and forced joker:
    # the face's upper box is not on the card (not free) -> lower box full_house = 25.
    s = NaiveSolver("yahtzee", ["yahtzee", "full_house"], n_dice=1, bonuses=[])
    assert s.start_value() == approx(175)
    # free joker: the upper box of the face is not on the card -> counts as filled -> 25
    s = NaiveSolver("yahtzee-free-joker", ["yahtzee", "full_house"], n_dice=1, bonuses=[])
    assert s.start_value() == approx(175)
    # kniffel: the joker enters the box's maximum over all rolls of the dice in play;
    # one die is never a full house, so that maximum is 0 -> 50 + (50 + 0) = 100.
    s = NaiveSolver("kniffel", ["kniffel", "full_house"], n_dice=1, bonuses=[])
    assert s.box_max["full_house"] == 0
    assert s.start_value() == approx(100)
    # with two dice the box maxima are e.g. chance 12, sixes 12, small straight 0
    s2 = NaiveSolver("kniffel", ["kniffel", "chance", "sixes", "small_straight"], n_dice=2)
    assert s2.box_max == {"kniffel": 50, "chance": 12, "sixes": 12, "small_straight": 0}
    # meister: scored normally (1 die is never a full house) -> 50 + 50 + 0
    s = NaiveSolver("kniffel-meister", ["kniffel", "full_house"], n_dice=1, bonuses=[])
    assert s.start_value() == approx(100)


def test_yahtzee_forced_upper_zero_one_die():
    # 1 die, yahtzee + ones.  After yahtzee=50: every roll +100; a 1 must go to ones (1),
    # other faces: their upper box is not on the card, no lower box free -> ones gets 0.
    # So 100 + P(a one within 3 rolls) = 100 + 91/216; yahtzee first: 150 + 91/216.
    s = NaiveSolver("yahtzee", ["yahtzee", "ones"], n_dice=1, bonuses=[])
    assert s.state_value({"yahtzee": 50}) == approx(100 + F(91, 216))
    assert s.start_value() == approx(150 + F(91, 216))


def test_kniffel7_chance():
    # die 1 (no 1): faces 2..7, mean 9/2; 2 rolls keep 5,6,7: 3 + 9/4 = 21/4;
    # 3 rolls keep 6,7: 13/6 + 4/6*21/4 = 17/3.
    assert NaiveSolver("kniffel7", ["chance"], n_dice=1).start_value() == approx(F(17, 3))
    # die 2 (no 2): faces 1,3..7, mean 13/3; 2 rolls keep 5,6,7: 3 + 13/6 = 31/6;
    # 3 rolls keep 6,7: 13/6 + 4/6*31/6 = 101/18.  Two dice: 17/3 + 101/18 = 203/18.
    assert NaiveSolver("kniffel7", ["chance"], n_dice=2).start_value() == approx(F(203, 18))


def test_kniffel7_upper_depends_on_die():
    # sevens with 1 die: die 1 shows 7 w.p. 1/6 -> 7*91/216.  ones with 1 die: die 1 has no 1 -> 0
    assert NaiveSolver("kniffel7", ["sevens"], n_dice=1).start_value() == approx(7 * F(91, 216))
    assert NaiveSolver("kniffel7", ["ones"], n_dice=1).start_value() == approx(0)
    # ones with 2 dice: only die 2 can show a 1 -> 91/216
    assert NaiveSolver("kniffel7", ["ones"], n_dice=2).start_value() == approx(F(91, 216))


def test_kniffel7_two_bonuses():
    # sevens only, 1 die, bonuses (7, 10) and (7, 5): both crossed by a 7 -> (7+15)*91/216
    s = NaiveSolver("kniffel7", ["sevens"], n_dice=1, bonuses=[(7, 10), (7, 5)])
    assert s.start_value() == approx(22 * F(91, 216))


# ---------------------------------------------------------------------------
# Final-entry options: joker rules of RULES.md
# ---------------------------------------------------------------------------


def _opts(solver, filled, dice):
    """{box: best points} and the set of extras over the allowed entries."""
    best = {}
    extras = set()
    for b, p, e in solver.final_options(filled, dice):
        best[b] = max(best.get(b, -1), p)
        extras.add(e)
    return best, extras


def test_kniffel_box_maximum_joker():
    s = NaiveSolver("kniffel")
    rest = {b: 0 for b in s.boxes if b not in ("large_straight", "full_house", "ones", "sixes", "chance")}
    rest["kniffel"] = 50
    best, extras = _opts(s, rest, (3, 3, 3, 3, 3))
    # seed 000: a second Kniffel of threes may fill the Grosse Strasse with 40
    assert best == {"large_straight": 40, "full_house": 25, "ones": 5, "sixes": 30, "chance": 30}
    assert extras == {50}
    assert s.box_max == {
        "ones": 5, "twos": 10, "threes": 15, "fours": 20, "fives": 25, "sixes": 30,
        "three_of_a_kind": 30, "four_of_a_kind": 30, "full_house": 25,
        "small_straight": 30, "large_straight": 40, "kniffel": 50, "chance": 30,
    }
    # Kniffel box scratched: no extra, normal scoring, restricted scratching:
    rest["kniffel"] = 0
    best, extras = _opts(s, rest, (3, 3, 3, 3, 3))
    assert best == {"chance": 15}
    assert extras == {0}


def test_kniffel_restricted_scratch_options():
    s = NaiveSolver("kniffel")
    filled = {b: 0 for b in s.boxes if b not in ("ones", "full_house", "large_straight")}
    # 2,3,4,5,6 fits large_straight only -> must take it
    best, _ = _opts(s, filled, (2, 3, 4, 5, 6))
    assert best == {"large_straight": 40}
    # 2,2,3,4,6 fits nothing -> any free box may be scratched
    best, _ = _opts(s, filled, (2, 2, 3, 4, 6))
    assert best == {"ones": 0, "full_house": 0, "large_straight": 0}


def test_meister_further_kniffel():
    # seed 000: a Kniffel of fours counts 20 in fours, 3-/4-of-a-kind, chance; FH/straights 0
    s = NaiveSolver("kniffel-meister")
    best, extras = _opts(s, {"kniffel": 50}, (4, 4, 4, 4, 4))
    assert extras == {50}
    assert best["fours"] == 20 and best["three_of_a_kind"] == 20
    assert best["four_of_a_kind"] == 20 and best["chance"] == 20
    assert best["full_house"] == 0 and best["small_straight"] == 0 and best["large_straight"] == 0
    assert best["ones"] == 0
    # free scratching: 0 allowed anywhere
    assert ("chance", 0, 50) in s.final_options({"kniffel": 50}, (4, 4, 4, 4, 4))
    _, extras = _opts(s, {"kniffel": 0}, (4, 4, 4, 4, 4))
    assert extras == {0}


def test_yahtzee_forced_joker():
    s = NaiveSolver("yahtzee")
    y5 = (5, 5, 5, 5, 5)
    # fives free: must use fives
    best, extras = _opts(s, {"yahtzee": 50}, y5)
    assert best == {"fives": 25} and extras == {100}
    # fives filled: any free lower box, FH 25, SS 30, LS 40, others normal
    best, extras = _opts(s, {"yahtzee": 0, "fives": 10}, y5)
    assert extras == {0}
    assert best == {"three_of_a_kind": 25, "four_of_a_kind": 25, "full_house": 25,
                    "small_straight": 30, "large_straight": 40, "chance": 25}
    # no lower box free: a free upper box gets 0
    lower = ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight",
             "large_straight", "chance"]
    filled = {b: 0 for b in lower}
    filled.update({"yahtzee": 50, "fives": 20})
    best, extras = _opts(s, filled, y5)
    assert best == {"ones": 0, "twos": 0, "threes": 0, "fours": 0, "sixes": 0}
    assert extras == {100}
    # yahtzee box free: no joker, normal free choice
    best, extras = _opts(s, {}, y5)
    assert best["yahtzee"] == 50 and best["full_house"] == 0 and best["ones"] == 0
    assert extras == {0}
    # reduced card: fives not on the card counts as not free -> lower box
    r = NaiveSolver("yahtzee", ["yahtzee", "ones", "full_house"])
    best, _ = _opts(r, {"yahtzee": 50}, y5)
    assert best == {"full_house": 25}


def test_yahtzee_free_joker():
    s = NaiveSolver("yahtzee-free-joker")
    y5 = (5, 5, 5, 5, 5)
    # fives free: any box, FH/straights scored normally (0)
    best, extras = _opts(s, {"yahtzee": 50}, y5)
    assert extras == {100}
    assert best["fives"] == 25 and best["full_house"] == 0 and best["large_straight"] == 0
    assert best["ones"] == 0 and best["chance"] == 25
    # fives filled: FH 25, SS 30, LS 40
    best, extras = _opts(s, {"yahtzee": 0, "fives": 15}, y5)
    assert extras == {0}
    assert best["full_house"] == 25 and best["small_straight"] == 30 and best["large_straight"] == 40
    assert best["ones"] == 0 and best["chance"] == 25
    # reduced card without fives: counts as filled
    r = NaiveSolver("yahtzee-free-joker", ["yahtzee", "ones", "large_straight"])
    best, _ = _opts(r, {"yahtzee": 50}, y5)
    assert best == {"ones": 0, "large_straight": 40}


def test_kniffel7_super_points():
    s = NaiveSolver("kniffel7")
    d = (3, 3, 3, 3, 3, 3, 1)  # die 3 cannot show 3, but options do not care
    best, _ = _opts(s, {"super_kniffel": 60}, d)
    assert all(p == 60 for p in best.values())
    # scoring normally stays allowed
    assert ("threes", 18, 0) in s.final_options({"super_kniffel": 60}, d)
    # scratched Super-Kniffel: no Super-Points
    best, _ = _opts(s, {"super_kniffel": 0}, d)
    assert best["chance"] == 19 and best["ones"] == 1 and best["sevens"] == 0
    # an upper box filled with Super-Points counts 60 toward the upper total: bonus 35 + 35
    small = NaiveSolver("kniffel7", ["super_kniffel", "ones"], n_dice=1)
    bonus, nxt = small._after_entry(frozenset({"super_kniffel"}), 0, True, "ones", 60)
    assert bonus == 0  # 60 < 63
    bonus, nxt = small._after_entry(frozenset({"super_kniffel"}), 30, True, "ones", 60)
    assert bonus == 70 and nxt[1] == 84


def test_state_value_zero_when_full():
    s = NaiveSolver("yatzy", ["chance", "ones"], n_dice=2)
    assert s.state_value({"chance": 7, "ones": 2}) == 0


def test_end_game_real_variants_fast():
    # smoke: real 5- and 6-dice scorecards with two free boxes evaluate quickly
    for v in ("kniffel", "yahtzee-free-joker", "yatzy6"):
        s = NaiveSolver(v)
        filled = {b: 0 for b in s.boxes[2:]}
        val = s.state_value(filled)
        assert val > 0


@pytest.mark.parametrize(
    "variant,boxes,n",
    [
        ("kniffel", ["kniffel", "twos", "fives"], 2),
        ("kniffel", ["ones", "three_of_a_kind", "kniffel"], 3),
        ("kniffel-meister", ["kniffel", "large_straight", "fours"], 2),
        ("yahtzee", ["yahtzee", "ones", "full_house"], 3),
        ("yahtzee-free-joker", ["yahtzee", "sixes", "full_house"], 2),
        ("yatzy", ["fives", "four_of_a_kind", "two_pairs"], 3),
        ("yatzy6", ["sixes", "two_triples", "five_straight"], 3),
    ],
)
def test_ordered_dice_enumeration_agrees(variant, boxes, n):
    # the same game solved with ordered rolls (each die by identity, as for kniffel7)
    # instead of sorted multisets must give the same value
    a = NaiveSolver(variant, boxes, n_dice=n, bonuses=[(5, 17)], keep_one=(variant == "kniffel"))
    b = NaiveSolver(variant, boxes, n_dice=n, bonuses=[(5, 17)], keep_one=(variant == "kniffel"))
    b.identical = False
    b.die_faces = [tuple(range(1, 7))] * n
    assert a.start_value() == pytest.approx(b.start_value(), abs=1e-9)


# ---------------------------------------------------------------------------
# kniffel7_endgame_value: full-size Kniffel 7 card, one free box, last turn
# ---------------------------------------------------------------------------

from naive import BOXES, _kniffel7_last_turn, kniffel7_endgame_value  # noqa: E402

K7 = BOXES["kniffel7"]
# die k (k = 1..7) lacks face k; P(a die that can show v shows v within three rolls
# when it is rerolled until it does) = 1 - (5/6)**3 = 91/216
Q = F(91, 216)


def _card(free, **pts):
    """13 filled boxes: everything but ``free`` is 0 unless given in ``pts``."""
    return {b: pts.get(b, 0) for b in K7 if b != free}


def stop3_faces(faces):
    """stop3 for one die with the given six faces (payoff = face), exact."""
    e = F(sum(faces), 6)
    for _ in range(2):
        e = sum(max(F(x), e) for x in faces) / 6
    return e


def test_k7_endgame_chance_exact():
    # Chance is a sum of independent dice, so the optimal play is each die's own
    # three-roll optimal stopping; no Super-Points (super_kniffel 0), no bonus (lower box).
    exact = sum(stop3_faces([f for f in range(1, 8) if f != k]) for k in range(1, 8))
    v = kniffel7_endgame_value(_card("chance"))
    assert v == approx(exact)  # 112/3
    # above one roll's mean, sum (28 - k)/6 = 28; below the largest sum 6*7 + 6 = 48
    assert 28 < v < 48


def test_k7_endgame_sevens_bonus_paid_or_out_of_reach():
    # Sevens: 7 x (number of 7s); dice 1..6 can show 7, die 7 cannot.  Keeping the 7s
    # and rerolling the rest gives each die 1..6 a 7 with probability Q: value 6*7*Q.
    # Upper total 84 (both bonuses paid) and upper total 0 (0 + 42 < 63) agree.
    paid = kniffel7_endgame_value(_card("sevens", fours=24, fives=30, sixes=30))
    none = kniffel7_endgame_value(_card("sevens"))
    assert paid == approx(42 * Q)
    assert none == approx(42 * Q)


def test_k7_endgame_ones_with_bonuses():
    # Ones: c = number of 1s (dice 2..7 can show a 1, each independently with
    # probability Q when the 1s are kept and the rest rerolled).  The payoff is
    # non-decreasing in c, and that keep maximises c stochastically, so it is optimal.
    p_any = 1 - (1 - Q) ** 6
    # upper 84: no bonus left
    assert kniffel7_endgame_value(_card("ones", fours=24, fives=30, sixes=30)) == approx(6 * Q)
    # upper 62: any 1 reaches 63 -> +35
    assert kniffel7_endgame_value(_card("ones", fours=12, fives=20, sixes=30)) == approx(
        6 * Q + 35 * p_any
    )
    # upper 83 (first bonus already paid): any 1 reaches 84 -> +35
    assert kniffel7_endgame_value(_card("ones", fours=24, fives=25, sixes=30, threes=4)) == approx(
        6 * Q + 35 * p_any
    )
    # upper 57: only six 1s reach 63
    assert kniffel7_endgame_value(_card("ones", fours=12, fives=15, sixes=30)) == approx(
        6 * Q + 35 * Q**6
    )


def test_k7_endgame_super_points():
    # Super-Kniffel holding 60: six equal dice may put 60 into the free box -> strictly more
    for free in ("ones", "sevens", "chance"):
        with_sp = kniffel7_endgame_value(_card(free, super_kniffel=60))
        without = kniffel7_endgame_value(_card(free, super_kniffel=0))
        assert with_sp > without + 1e-6
    # Super-Points in an upper box count 60 toward the upper total: from upper 24
    # a Super-Points entry in Ones reaches 84 (+70).  It is worth more than at upper 84.
    low = kniffel7_endgame_value(_card("ones", super_kniffel=60, fours=24))
    high = kniffel7_endgame_value(_card("ones", super_kniffel=60, fours=24, fives=30, sixes=30))
    assert low > high + 1e-6


def test_k7_endgame_free_super_kniffel_scores_normally():
    # the free box is super_kniffel itself: only 60 for six equal, same with any card
    a = kniffel7_endgame_value(_card("super_kniffel"))
    b = kniffel7_endgame_value(_card("super_kniffel", sixes=36, fives=30, fours=24))
    assert a == approx(b)
    assert 0 < a < 60


def test_k7_endgame_input_checks():
    with pytest.raises(ValueError):
        kniffel7_endgame_value({b: 0 for b in K7})  # no free box
    with pytest.raises(ValueError):
        kniffel7_endgame_value({b: 0 for b in K7[2:]})  # two free boxes


@pytest.mark.parametrize(
    "boxes,filled,n",
    [
        (["twos", "sevens", "chance"], {"sevens": 14, "chance": 10}, 3),
        (["ones", "sevens", "chance"], {"ones": 1, "chance": 10}, 3),
        (["ones", "sevens", "chance"], {"ones": 2, "sevens": 7}, 3),
        (["threes", "fives", "chance"], {"fives": 10, "chance": 9}, 4),
        # reduced Super-Kniffel (n - 1 equal) and Super-Points
        (["super_kniffel", "ones", "chance"], {"super_kniffel": 60, "ones": 1}, 3),
        (["super_kniffel", "sevens", "chance"], {"super_kniffel": 60, "chance": 10}, 4),
        (["super_kniffel", "chance"], {"super_kniffel": 0}, 3),
        (["super_kniffel", "chance"], {"chance": 12}, 4),
    ],
)
def test_k7_last_turn_agrees_with_naive_solver(boxes, filled, n):
    # the vectorised last turn with fewer dice agrees with the dict-based NaiveSolver
    bonuses = [(15, 7), (18, 5)]
    s = NaiveSolver("kniffel7", boxes, n_dice=n, bonuses=bonuses)
    assert _kniffel7_last_turn(filled, boxes, n, bonuses) == pytest.approx(
        s.state_value(filled), abs=1e-9
    )


# ---------------------------------------------------------------------------
# kniffel7 with fewer dice: Super-Kniffel = all dice but one equal (n - 1 of n;
# six of seven as in RULES.md), and Super-Points follow the same condition
# ---------------------------------------------------------------------------


def test_k7_reduced_super_kniffel_scoring():
    # 3 dice: a pair (all dice but one) is Super-Kniffel
    assert score("kniffel7", "super_kniffel", (5, 5, 2)) == 60
    assert score("kniffel7", "super_kniffel", (2, 7, 7)) == 60
    assert score("kniffel7", "super_kniffel", (1, 2, 3)) == 0
    # 4 dice: three equal needed
    assert score("kniffel7", "super_kniffel", (7, 1, 7, 7)) == 60
    assert score("kniffel7", "super_kniffel", (7, 1, 7, 1)) == 0
    # 7 dice: still six equal
    assert score("kniffel7", "super_kniffel", (4, 4, 4, 4, 4, 4, 1)) == 60
    assert score("kniffel7", "super_kniffel", (4, 4, 4, 4, 4, 1, 1)) == 0
    assert score("kniffel7", "super_kniffel", (4, 4, 4, 4, 1, 2, 3)) == 0


def test_k7_reduced_super_points_options():
    s = NaiveSolver("kniffel7", ["super_kniffel", "ones", "chance"], n_dice=3, bonuses=[])
    # pair + Super-Kniffel holding 60: 60 in any free box, normal scoring still allowed
    best, _ = _opts(s, {"super_kniffel": 60}, (5, 5, 2))
    assert best == {"ones": 60, "chance": 60}
    assert ("chance", 12, 0) in s.final_options({"super_kniffel": 60}, (5, 5, 2))
    # three different faces: no Super-Points
    best, _ = _opts(s, {"super_kniffel": 60}, (1, 2, 3))
    assert best == {"ones": 1, "chance": 6}
    # Super-Kniffel scratched: no Super-Points
    best, _ = _opts(s, {"super_kniffel": 0}, (5, 5, 2))
    assert best == {"ones": 0, "chance": 12}
    # 4 dice: three equal give Super-Points, two pairs do not
    s4 = NaiveSolver("kniffel7", ["super_kniffel", "chance"], n_dice=4, bonuses=[])
    best, _ = _opts(s4, {"super_kniffel": 60}, (7, 7, 1, 7))
    assert best == {"chance": 60}
    best, _ = _opts(s4, {"super_kniffel": 60}, (7, 7, 1, 1))
    assert best == {"chance": 16}
    # 7 dice: five equal are not enough, six are
    s7 = NaiveSolver("kniffel7")
    best, _ = _opts(s7, {"super_kniffel": 60}, (2, 2, 2, 2, 2, 1, 3))
    assert best["chance"] == 14 and best["ones"] == 1
    best, _ = _opts(s7, {"super_kniffel": 60}, (2, 2, 2, 2, 2, 2, 3))
    assert best["chance"] == 60 and best["ones"] == 60


def _k7_turn_exact(n, payoff):
    """Optimal expectation of one turn (three rolls) of kniffel7 dice 1..n, exact.

    Separate brute force: a roll is an ordered tuple (die i shows roll[i]);
    before each of the two rerolls every subset of dice may be rerolled;
    ``payoff(roll)`` is the value of the final roll.  Fractions throughout.
    """
    faces = [tuple(f for f in range(1, 8) if f != k) for k in range(1, n + 1)]
    memo = {}

    def best(roll, rerolls_left):
        if rerolls_left == 0:
            return F(payoff(roll))
        key = (roll, rerolls_left)
        if key not in memo:
            cands = []
            for mask in range(2**n):
                idx = [i for i in range(n) if mask >> i & 1]
                tot = F(0)
                for new in product(*(faces[i] for i in idx)):
                    r = list(roll)
                    for i, f in zip(idx, new):
                        r[i] = f
                    tot += best(tuple(r), rerolls_left - 1)
                cands.append(tot / 6 ** len(idx))
            memo[key] = max(cands)
        return memo[key]

    return sum(best(r, 2) for r in product(*faces)) / F(6**n)


def test_k7_three_dice_last_turn_exact():
    # 3 dice (blue no 1, green no 2, purple no 3), boxes super_kniffel + chance, no bonus.
    s = NaiveSolver("kniffel7", ["super_kniffel", "chance"], n_dice=3, bonuses=[])

    def has_pair(r):
        return len(set(r)) < 3

    # Super-Kniffel holds 60, chance free: a final pair may put 60 into chance
    # (sums are at most 21 < 60), otherwise chance scores the sum
    sp = _k7_turn_exact(3, lambda r: 60 if has_pair(r) else sum(r))
    assert s.state_value({"super_kniffel": 60}) == approx(sp)
    # Super-Kniffel scratched: no Super-Points, chance scores the sum; the dice are
    # then independent, so also the sum of each die's own optimal stopping
    plain = _k7_turn_exact(3, sum)
    assert plain == sum(stop3_faces([f for f in range(1, 8) if f != k]) for k in (1, 2, 3))
    assert s.state_value({"super_kniffel": 0}) == approx(plain)
    assert sp > plain
    # Super-Kniffel box itself free: 60 for a pair
    sk = _k7_turn_exact(3, lambda r: 60 if has_pair(r) else 0)
    assert s.state_value({"chance": 9}) == approx(sk)
    assert 0 < sk < 60


def test_k7_four_dice_super_points_raise_values():
    class NoSuperPoints(NaiveSolver):
        # the same game with the Super-Points rule made impossible
        def options(self, filled_set, jflag, dice):
            return super().options(filled_set, False, dice)

    for boxes in (["super_kniffel", "chance"], ["super_kniffel", "chance", "sevens"]):
        s = NaiveSolver("kniffel7", boxes, n_dice=4, bonuses=[])
        ns = NoSuperPoints("kniffel7", boxes, n_dice=4, bonuses=[])
        # Holding 60 vs scratched: Super-Points are the only difference; scratched
        # equals the rule-less game.  Holding 60 is strictly better: play the rule-less
        # optimal keeps and entries unchanged, except that a final roll with three
        # equal dice enters 60 into the same box instead of its normal score (at most
        # 4*7 = 28; no bonuses, so the next state is the same).  That policy ends on
        # (7,7,7,7) with positive probability: the first roll is (7,7,7,7) w.p. 6**-4,
        # and dice 1..4 all carry a 7, so any reroll may show 7s again.
        held, scratched = s.state_value({"super_kniffel": 60}), s.state_value({"super_kniffel": 0})
        assert scratched == approx(ns.state_value({"super_kniffel": 60}))
        assert held > scratched + 1e-6
        # start value: the options with the rule are a superset of those without, so
        # >=; the gap is several points (about 5.5 and 17), so strictly larger
        with_sp, without = s.start_value(), ns.start_value()
        assert 0 < without < with_sp - 1
    # chance alone after a scratched Super-Kniffel: dice independent, exact
    s = NaiveSolver("kniffel7", ["super_kniffel", "chance"], n_dice=4, bonuses=[])
    exact = sum(stop3_faces([f for f in range(1, 8) if f != k]) for k in (1, 2, 3, 4))
    assert s.state_value({"super_kniffel": 0}) == approx(exact)
