"""Batch advice (solver/advice/batch.py, dp/advice.py) against the one-at-a-time advisor and against the turn's
keep values rebuilt from the public dp pieces (keep_values, roll_entries); bad arrays -> AdviceInputError."""

import random
from itertools import product

import numpy as np
import pytest
from helpers import quick_only

from solver import dp
from solver.advice.advisor import Advisor
from solver.advice.batch import AdviceInputError, decode_option, option_values_batch, state_values
from solver.advice.cards import Card, box_values
from solver.dp.best_one import TURN_SLOTS, new_turn_pool
from solver.rules.presets import PRESETS
from solver.rules.variant import RuleError

NAMES = ["kniffel", "kniffel-keep-one", "kniffel-meister", "yahtzee", "yahtzee-free-joker", "yatzy", "yatzy6"]
N_SITUATIONS = 2000
FAMILY = ["yams", "kismet", "generala"]  # the family presets (generala: a first-roll stop among the keeps)
# the quick suite: restricted scratching with the box-maximum joker, the forced joker with extra points, a
# first-roll stop (their tables: a few seconds); the other presets' whole tables in the slow tests
QUICK = {"kniffel", "yahtzee", "generala"}


@pytest.fixture(scope="module")
def solved(solved):
    """solved(name) -> (variant, table, advisor): the tables solved once a run (conftest.py), when first asked."""
    got = {}

    def get(name):
        if name not in got:
            got[name] = (PRESETS[name], solved(name), Advisor(PRESETS[name], solved(name)))
        return got[name]

    return get


def random_situations(v, values, n, seed):
    """Random reachable cards (joker boxes often holding points), dice (one in eight all equal, so that
    jokers and extra points occur) and rolls."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        card = Card(v)
        for b in rng.sample(range(len(v.boxes)), rng.randrange(0, len(v.boxes))):
            card.filled[b] = rng.choice(box_values(v, b))
        if v.joker_box and v.joker_index in card.filled and rng.random() < 0.6:
            card.filled[v.joker_index] = max(box_values(v, v.joker_index))
        if not np.isfinite(values[card.state]):
            continue
        if rng.random() < 0.125:
            dice = (rng.choice(v.faces),) * v.n_dice
        else:
            dice = tuple(rng.choice(v.faces) for _ in range(v.n_dice))
        out.append((card, dice, rng.randint(1, 3)))
    return out


def as_arrays(sits):
    mask = np.array([c.mask for c, _, _ in sits])
    upper = np.array([c.upper_total for c, _, _ in sits])  # uncapped: the batch call caps
    joker = np.array([c.joker_scored for c, _, _ in sits])
    dice = np.array([d for _, d, _ in sits])
    roll = np.array([r for _, _, r in sits])
    return mask, upper, joker, dice, roll


@pytest.mark.parametrize("name", quick_only(NAMES + FAMILY, QUICK))
def test_batch_equals_advisor(solved, name):
    v, values, adv = solved(name)
    sits = random_situations(v, values, N_SITUATIONS // 2, seed=7)  # every option decoded: 1,000 a preset
    res = option_values_batch(adv.engine, values, *as_arrays(sits))
    jokers = 0
    for i, (card, dice, roll) in enumerate(sits):
        _, options = adv.advise(card, dice, roll)
        want = {}
        for o in options:
            key = ("keep", o.keep) if o.kind == "keep" else ("box", o.box, o.points, o.extra)
            want[key] = o.expected_final_score - card.points
        n = res.n_options[i]
        assert n == len(options)
        assert (res.codes[i, n:] == -1).all() and np.isnan(res.values[i, n:]).all()
        got = {}
        for code, value in zip(res.codes[i, :n], res.values[i, :n]):
            key = decode_option(adv.engine, code, card.mask, card.joker_scored, dice)
            got[key] = value
            jokers += key[0] == "box" and key[3] > 0
        assert got.keys() == want.keys()
        assert max(abs(got[k] - want[k]) for k in got) < 1e-9
        best = decode_option(adv.engine, res.best_code[i], card.mask, card.joker_scored, dice)
        top = options[0]
        assert abs(got[best] - (top.expected_final_score - card.points)) < 1e-9
        assert best == (("keep", top.keep) if top.kind == "keep" else ("box", top.box, top.points, top.extra))
    if v.extra_points:
        assert jokers > 0  # extra points (further jokers) were among the options


@pytest.mark.parametrize("name", quick_only(NAMES, QUICK))
def test_batch_equals_dp_keep_values(solved, name):
    """The turn rebuilt from dp.keep_values (the lattice kernel, one state at a time) and dp.roll_entries."""
    v, values, adv = solved(name)
    sits = random_situations(v, values, 300, seed=11)
    res = option_values_batch(adv.engine, values, *as_arrays(sits))
    rules, bonus = adv.engine.rules, adv.engine.rules.bonus_cum
    nb = len(v.boxes)
    lat = adv.engine.lattice
    index = {tuple(int(c) for c in row): k for k, row in enumerate(lat.counts)}
    first = int(lat.size_start[v.n_dice])
    for i, (card, dice, roll) in enumerate(sits):
        mask, capped_upper, joker_scored = card.state
        counts = tuple(dice.count(f) for f in v.faces)
        if roll == 3:
            r = index[counts] - first
            extra = v.extra_points if joker_scored and rules.joker_roll[r] else 0
            want = {}
            for b, pts in dp.roll_entries(rules, mask, joker_scored, r):
                after = card.with_entry(b, pts, extra)
                _, nu, nf = after.state
                want[b] = pts + extra + bonus[nu] - bonus[capped_upper] + values[after.state]
        else:
            after_second, after_first = dp.keep_values(adv.engine, values, mask, capped_upper, joker_scored)
            table = after_first if roll == 1 else after_second
            least = v.min_keep_last_reroll if roll == 2 else 0
            kept = [k for k in product(*(range(c + 1) for c in counts)) if sum(k) >= least]
            want = {nb + index[k]: table[index[k]] for k in kept}
        n = res.n_options[i]
        got = dict(zip(res.codes[i, :n].tolist(), res.values[i, :n]))
        assert got.keys() == want.keys()
        assert max(abs(got[c] - want[c]) for c in got) < 1e-9


def option_fields(o):
    return (o.kind, o.keep, o.box, o.points, o.extra, o.text, o.expected_final_score, o.loss, o.std)


@pytest.mark.parametrize("name", quick_only(NAMES + FAMILY, QUICK))
def test_best_action_is_the_top_of_advise(solved, name):
    """best_action (one kernel call applying the tie rule) gives advise's first option exactly, on random
    situations of every identical-dice preset (jokers, extra points and ties included)."""
    v, values, adv = solved(name)
    for card, dice, roll in random_situations(v, values, N_SITUATIONS, seed=3):
        top = adv.advise(card, dice, roll)[1][0]
        assert option_fields(adv.best_action(card, dice, roll)) == option_fields(top)
        assert option_fields(adv.best_action(card, list(reversed(dice)), roll)) == option_fields(top)  # any order


@pytest.mark.parametrize("name", quick_only(["kniffel", "yahtzee", "yatzy", "generala"], QUICK))
@pytest.mark.parametrize("slots", [TURN_SLOTS, 1])
def test_best_action_from_remembered_turns(solved, name, slots):
    """best_action remembers turns: a card asked again with new dice, at roll 2 before roll 1 or after it,
    another card in the same state (other points), and two states taking turns at one slot (slots=1: every
    state evicts the other) all get advise's first option exactly."""
    v, values, _ = solved(name)
    adv = Advisor(v, values)  # its own, so that no turn is remembered yet
    adv._turn_pool = new_turn_pool(adv.engine.lattice, slots)
    rng = random.Random(11)
    sits = random_situations(v, values, 60, seed=5)
    for (card, _, _), (other, _, _) in zip(sits[::2], sits[1::2]):
        twin = Card(v)  # the same state, other points: another Option value on the same remembered turn
        twin.filled.update(card.filled)
        twin.extra = card.extra + 100 if v.extra_points else card.extra
        for roll in (2, 1, 3, 2, 1):
            for who in (card, twin, other, card):
                dice = tuple(rng.choice(v.faces) for _ in range(v.n_dice))
                top = adv.advise(who, dice, roll)[1][0]
                assert option_fields(adv.best_action(who, dice, roll)) == option_fields(top), (who.filled, dice, roll)


def test_best_action_sees_a_changed_card(solved):
    """best_action remembers a Card object's state; a card changed in place is read again."""
    v, values, adv = solved("yahtzee")
    card, dice = Card(v), (1, 1, 1, 1, 1)
    assert adv.best_action(card, dice, 3).box == v.box_index("yahtzee")
    card.filled[v.box_index("yahtzee")] = 50
    card.filled[v.box_index("ones")] = 3
    top = adv.advise(card, dice, 3)[1][0]
    assert option_fields(adv.best_action(card, dice, 3)) == option_fields(top)
    assert top.extra == 100
    card.extra = 100
    assert adv.best_action(card, dice, 1).expected_final_score == adv.advise(card, dice, 1)[1][0].expected_final_score
    for box in range(len(v.boxes)):
        card.filled[box] = 0
    with pytest.raises(RuleError):
        adv.best_action(card, dice, 1)


def test_states_shared_and_repeated(solved):
    """Situations that share a state (grouped into one turn) get the same answers as alone."""
    v, values, adv = solved("yahtzee")
    sits = random_situations(v, values, 50, seed=5)
    sits = [
        (c, d, r) for c, _, _ in sits for d, r in [((1, 1, 2, 5, 6), 1), ((6, 6, 6, 6, 6), 2), ((2, 3, 4, 5, 5), 3)]
    ]
    together = option_values_batch(adv.engine, values, *as_arrays(sits))
    for i in range(0, len(sits), 17):
        alone = option_values_batch(adv.engine, values, *as_arrays(sits[i : i + 1]))
        np.testing.assert_array_equal(alone.codes[0], together.codes[i])
        np.testing.assert_allclose(alone.values[0], together.values[i], rtol=0, atol=1e-12)


def test_state_values(solved):
    v, values, _ = solved("yahtzee")
    full = (1 << len(v.boxes)) - 1
    got = state_values(v, values, [0, 1 << 11, 63, full], [0, 0, 70, 0], [0, 1, 0, 0])  # 70: capped at 63
    np.testing.assert_array_equal(got, [values[0, 0, 0], values[1 << 11, 0, 1], values[63, 63, 0], 0.0])
    with pytest.raises(AdviceInputError, match="cannot occur"):
        state_values(v, values, [1 << 5], [1], [0])  # Sixes alone cannot make an upper total of 1
    for mask, upper in ((31, 100), (63, 106), (63, 10**6)):  # above the cap, beyond what the boxes hold
        with pytest.raises(AdviceInputError, match="cannot occur"):
            state_values(v, values, [mask], [upper], [0])
    assert state_values(v, values, [63], [105], [0])[0] == values[63, 63, 0]


def test_decode_option(solved):
    v, values, adv = solved("kniffel")
    nb = len(v.boxes)
    lat = adv.engine.lattice
    k = next(k for k, row in enumerate(lat.counts) if tuple(row) == (0, 0, 2, 0, 0, 0))
    assert decode_option(adv.engine, nb + k) == ("keep", (3, 3))
    assert decode_option(v, 12) == ("box", 12, None, None)
    assert decode_option(adv.engine, 12, 0, 0, (3, 3, 5, 1, 6)) == ("box", 12, 18, 0)
    with pytest.raises(AdviceInputError):
        decode_option(adv.engine, -1)
    assert decode_option(adv.engine, 5, 1 << 11, 1, (6, 6, 6, 6, 6)) == ("box", 5, 30, 50)  # a joker
    with pytest.raises(AdviceInputError, match="needs the Kniffel box filled"):  # it answered ('box', 0, 5, 50)
        decode_option(adv.engine, 0, 0, 1, (6, 6, 6, 6, 6))
    with pytest.raises(AdviceInputError, match="no joker flag"):
        decode_option(PRESETS["yatzy"].reduced(boxes=["ones", "yatzy", "chance"]), 0, 0, 1, (6, 6, 6, 6, 6))


BAD = [
    ({"mask": np.zeros((3, 1), int)}, "mask"),
    ({"dice": np.ones((3, 4), int)}, "dice"),
    ({"dice": np.ones(3, int)}, "dice"),
    ({"dice": np.array([[1, 2, 3, 4, 7]] * 3)}, r"dice\[0, 4\] = 7"),
    ({"dice": np.array([[0, 2, 3, 4, 5]] * 3)}, r"dice\[0, 0\] = 0"),
    ({"dice": np.full((3, 5), 2.5)}, "dice"),
    ({"mask": np.full(3, (1 << 13) - 1)}, "mask"),  # a full card: nothing to advise
    ({"mask": np.full(3, -1)}, "mask"),
    ({"mask": np.full(3, 1 << 5), "upper": np.ones(3, int)}, "cannot occur"),
    ({"joker": np.ones(3, int)}, "cannot occur"),  # joker flag without the Kniffel box filled
    ({"joker": np.full(3, 2)}, "joker"),
    ({"roll": np.zeros(3, int)}, "roll"),
    ({"roll": np.full(3, 4)}, "roll"),
    ({"roll": np.ones(4, int)}, "roll"),
    ({"upper": np.array(["a", "b", "c"])}, "upper"),
    ({"upper": np.full(3, -5)}, "upper"),
]


@pytest.mark.parametrize("change,message", BAD)
def test_bad_arrays(solved, change, message):
    v, values, adv = solved("kniffel")
    args = {"mask": np.zeros(3, int), "upper": np.zeros(3, int), "joker": np.zeros(3, int)}
    args.update(dice=np.array([[1, 2, 3, 4, 5]] * 3), roll=np.ones(3, int))
    args.update(change)
    with pytest.raises(AdviceInputError, match=message):
        option_values_batch(adv.engine, values, **args)


def test_yatzy_has_no_joker_flag():
    v = PRESETS["yatzy"].reduced(boxes=["ones", "one_pair", "yatzy"])  # Yatzy's rules, solved in a moment
    values = dp.solve(v)[0]
    adv = Advisor(v, values)
    with pytest.raises(AdviceInputError, match="no joker flag"):
        option_values_batch(adv.engine, values, [0], [0], [1], [[1, 2, 3, 4, 5]], [1])


def test_empty_batch(solved):
    v, values, adv = solved("kniffel")
    res = option_values_batch(adv.engine, values, [], [], [], np.zeros((0, 5), int), [])
    assert res.codes.shape[0] == 0 and res.best.shape == (0,)


def test_dice_told_apart_refused():
    with pytest.raises(AdviceInputError, match="identical dice only"):
        option_values_batch(PRESETS["kniffel7"], np.zeros((1, 1, 1)), [0], [0], [0], [[1] * 7], [1])
