"""The dice-poker duel (issue 31) against a brute force written plainly here: every ordered reroll of every set
of dice positions, recursion over the rolls, its own ranking of hands."""

import functools
from itertools import combinations, product

import pytest

from solver.poker.duel import DuelRules, duel
from solver.poker.hands import CATEGORIES, PokerError, hand_key, read_dice

ORDER = ["nothing", "pair", "two pairs", "three", "low straight", "high straight", "full house", "four", "five"]


def plain_rank(dice, kickers=True):
    """(category, then the numbers that decide, high first) written from the rules text."""
    n = {f: list(dice).count(f) for f in set(dice)}
    by_count = {c: sorted((f for f in n if n[f] == c), reverse=True) for c in range(1, 6)}
    singles = by_count[1] if kickers else []
    if by_count[5]:
        return (ORDER.index("five"), by_count[5][0])
    if by_count[4]:
        return (ORDER.index("four"), by_count[4][0], *singles)
    if by_count[3] and by_count[2]:
        return (ORDER.index("full house"), by_count[3][0], by_count[2][0])
    if sorted(dice) == [2, 3, 4, 5, 6]:
        return (ORDER.index("high straight"),)
    if sorted(dice) == [1, 2, 3, 4, 5]:
        return (ORDER.index("low straight"),)
    if by_count[3]:
        return (ORDER.index("three"), by_count[3][0], *singles)
    if len(by_count[2]) == 2:
        return (ORDER.index("two pairs"), by_count[2][0], by_count[2][1], *singles)
    if by_count[2]:
        return (ORDER.index("pair"), by_count[2][0], *singles)
    return (ORDER.index("nothing"), *singles)


def plain_result(mine, theirs, kickers=True):
    a, b = plain_rank(mine, kickers), plain_rank(theirs, kickers)
    return 1.0 if a > b else 0.5 if a == b else 0.0


@functools.cache
def rerolls(dice, limit):
    """Every choice of positions to reroll (none: stop), each with every ordered outcome."""
    return list(_rerolls(dice, limit))


def _rerolls(dice, limit):
    for size in range(0, min(limit, len(dice)) + 1):
        for where in combinations(range(len(dice)), size):
            outcomes = []
            for new in product(range(1, 7), repeat=size):
                d = list(dice)
                for i, f in zip(where, new):
                    d[i] = f
                outcomes.append(tuple(sorted(d)))
            yield size, outcomes


def brute_second(target, limit, kickers=True):
    @functools.cache
    def win(dice, left):
        if left == 0:
            return plain_result(dice, target, kickers)
        return max(sum(win(o, left - 1) for o in outs) / len(outs) for _, outs in rerolls(dice, limit))

    return win


def all_rolls(n):
    """Every ordered roll of n dice, sorted: each equally likely (a mean over them is a probability)."""
    return [tuple(sorted(d)) for d in product(range(1, 7), repeat=n)]


def test_ranking_order_and_ties():
    hands = ["11111", "66665", "66655", "23456", "12345", "66612", "66553", "55441", "66123", "12346"]
    keys = [hand_key(read_dice(h, "hand")) for h in hands]
    cats = [CATEGORIES[k[0]] for k in keys]
    assert cats == ["five", "four", "full_house", "high_straight", "low_straight", "three", "two_pairs", "two_pairs",
                    "pair", "nothing"]  # fmt: skip
    assert keys == sorted(keys, reverse=True)
    assert hand_key((2, 2, 2, 6, 6)) > hand_key((1, 1, 1, 6, 6))  # the three decides a full house
    assert hand_key((3, 3, 4, 4, 6)) > hand_key((3, 3, 4, 4, 5))  # kickers: the fifth die decides
    assert hand_key((3, 3, 4, 4, 6), "hand") == hand_key((3, 3, 4, 4, 5), "hand")  # ties rule "hand"
    distinct = sorted(set(all_rolls(5)))
    for roll in distinct:  # every hand against a seventh of the hands, both tie rules, as the plain reading says
        for other in distinct[::7]:
            for ties in ("kickers", "hand"):
                mine, theirs = hand_key(roll, ties), hand_key(other, ties)
                want = plain_result(roll, other, ties == "kickers")
                assert (1.0 if mine > theirs else 0.5 if mine == theirs else 0.0) == want, (roll, other, ties)


ONE_REROLL = [
    ((5, 5, 6, 6, 6), (1, 2, 6, 6, 6), 5),
    ((2, 3, 4, 5, 6), (1, 2, 3, 4, 6), 3),
    ((1, 1, 3, 3, 4), (1, 1, 2, 5, 6), 5),
    ((1, 4, 4, 4, 4), (2, 4, 4, 5, 6), 3),
]


@pytest.mark.parametrize("target,dice,limit", ONE_REROLL)
def test_second_player_one_reroll_every_option(target, dice, limit):
    d = duel(DuelRules(max_reroll=limit))
    win = brute_second(target, limit)
    options = dict(d.beat_options(target, dice, 1))
    for size, outs in rerolls(dice, limit):
        best_here = sum(win(o, 0) for o in outs) / len(outs)
        kept = [tuple(sorted(dice[i] for i in range(5) if i not in w)) for w in combinations(range(5), size)]
        assert any(abs(options[k] - best_here) < 1e-12 for k in kept if k in options), kept
    assert abs(d.beat_options(target, dice, 1)[0][1] - win(dice, 1)) < 1e-12


def test_second_player_two_rerolls_brute_force():
    target = (3, 3, 3, 5, 5)
    win = brute_second(target, 3)
    d = duel(DuelRules(max_reroll=3))
    for dice in [(1, 2, 3, 4, 6), (6, 6, 6, 6, 1)]:
        assert abs(d.beat_options(target, dice, 2)[0][1] - win(dice, 2)) < 1e-12


@pytest.mark.parametrize(
    "n,rolls,limit,match,ties",
    [(3, 3, 3, True, "kickers"), (3, 2, 2, True, "hand"), (2, 3, 2, True, "kickers"), (2, 3, 1, False, "kickers")],
)
def test_whole_game_small(n, rolls, limit, match, ties):
    """With fewer dice or rolls the whole duel is small enough for the brute force: the second player's best answer
    to every first hand, and the first player's best play against it (ties count half)."""
    d = duel(DuelRules(n_dice=n, rolls=rolls, max_reroll=limit, ties=ties, match_rolls=match))
    kickers = ties == "kickers"
    hands = all_rolls(n)

    @functools.cache
    def reply(hand, k):  # the second player's P(win) from the start of a turn of k rolls
        win = brute_second(hand, limit, kickers)
        return sum(win(r, k - 1) for r in hands) / len(hands)

    @functools.cache
    def first(dice, used):  # the first player's P(win) holding `dice` after `used` rolls
        stop = 1 - reply(dice, used if match else rolls)
        if used == rolls:
            return stop
        goes = [sum(first(o, used + 1) for o in outs) / len(outs) for size, outs in rerolls(dice, limit) if size]
        return max([stop, *goes])

    start = sum(first(r, 1) for r in hands) / len(hands)
    assert abs(d.first_player_start - start) < 1e-12
    for dice in sorted(set(hands))[::3]:
        for used in range(1, rolls + 1):
            assert abs(d.first_options(dice, used)[0][1] - first(dice, used)) < 1e-12


def test_bad_input():
    for bad in ("1234", "123456", "12347", "abcde", 12345):
        with pytest.raises(PokerError):
            read_dice(bad, "dice")
    with pytest.raises(PokerError):
        DuelRules(ties="suits")
    with pytest.raises(PokerError):
        DuelRules(max_reroll=0)


def test_the_api_reads_flags_and_numbers_as_the_rest_of_the_api():
    """match_rolls went through bool() ('no' and None were rules); numpy's integers were refused as roll,
    max_reroll and dice, which the rest of the API takes (README: numpy integers)."""
    import numpy as np

    from solver import KniffelError, poker_advice

    for bad in ("no", None, 2, 0.0):
        with pytest.raises(KniffelError, match="match_rolls must be True or False"):
            poker_advice("12666", hand="55666", match_rolls=bad)
    assert poker_advice("12666", hand="55666", match_rolls=1).rules.match_rolls is True
    plain = poker_advice("12666", roll=2, max_reroll=3)
    for dice in (np.array([1, 2, 6, 6, 6]), [1, 2, 6, 6, np.int64(6)]):
        assert poker_advice(dice, roll=np.int64(2), max_reroll=np.int64(3)) == plain
    for dice in ((1.0, 2, 6, 6, 6), [True, 2, 6, 6, 6], np.array([[1, 2, 6, 6, 6]])):
        with pytest.raises(PokerError):
            poker_advice(dice)
