"""The identical-dice simulation decides as the advisor does, its tie rule included: on situations
where keeps tie exactly, and on random situations, the simulated keep and box are the advisor's first
option."""

import random

import numpy as np
from helpers import random_card

from solver import dp
from solver.advice.advisor import Advisor
from solver.advice.cards import Card
from solver.rules.presets import PRESETS

KNIFFEL = PRESETS["kniffel"]


def _row_of(engine, faces) -> int:
    """The keep-lattice row of a multiset of faces."""
    counts = tuple(sum(1 for f in faces if f == face) for face in KNIFFEL.faces)
    rows = {tuple(int(c) for c in row): k for k, row in enumerate(engine.lattice.counts)}
    return rows[counts]


def _check(advisor, engine, values, card, dice, roll):
    mask, upper, joker_scored = card.state
    choice = dp.simulated_choice(engine, values, mask, upper, joker_scored, _row_of(engine, dice), roll)
    first = advisor.advise(card, dice, roll)[1][0]
    if roll == 3:
        assert choice == first.box, (card.format(), dice, roll)
    else:
        assert choice == _row_of(engine, first.keep), (card.format(), dice, roll)


def test_tied_keeps_follow_the_tie_rule(solved):
    """Only the Große Straße left: from 1-2-3-4-6, keeping 1-2-3-4 and keeping 2-3-4-6 both need one 5
    (the same value); the tie rule keeps the smallest faces, 1-2-3-4 (likewise 1-2-3-5 against 2-3-5-6
    from 1-2-3-5-6). The first strictly better keep in lattice order was 2-3-4-6."""
    values = solved("kniffel")
    engine = dp.make_engine(KNIFFEL)
    advisor = Advisor(KNIFFEL, values)
    card = Card(KNIFFEL)
    for b, box in enumerate(KNIFFEL.boxes):
        if box.key != "large_straight":
            card.filled[b] = 0
    mask, upper, joker_scored = card.state
    for dice, kept in (((1, 2, 3, 4, 6), (1, 2, 3, 4)), ((1, 2, 3, 5, 6), (1, 2, 3, 5))):
        for roll in (1, 2):
            assert tuple(advisor.advise(card, dice, roll)[1][0].keep) == kept
            _check(advisor, engine, values, card, dice, roll)


def test_random_situations_equal_the_advisors_first_option(solved):
    values = solved("kniffel")
    engine = dp.make_engine(KNIFFEL)
    advisor = Advisor(KNIFFEL, values)
    rng = random.Random(12)
    checked = 0
    while checked < 40:
        card = random_card(KNIFFEL, rng, rng.randrange(13))
        if not np.isfinite(values[card.state]):
            continue
        dice = tuple(sorted(rng.choice(KNIFFEL.faces) for _ in range(KNIFFEL.n_dice)))
        for roll in (1, 2, 3):
            _check(advisor, engine, values, card, dice, roll)
        checked += 1
