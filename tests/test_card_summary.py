"""Card.summary (one pass over the entries, kept with them until they change) against the card's plain
definitions, under every way a dict can change and every way a card can be copied."""

from __future__ import annotations

import copy
import pickle
import random

import pytest
from helpers import random_card
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from solver.advice.cards import Card, box_values, parse_card
from solver.api import as_card
from solver.errors import KniffelError
from solver.rules.presets import PRESETS


def plain_summary(card: Card) -> tuple[int, int, int, int]:
    """The definitions, read afresh: mask, capped upper total, joker flag, points (boxes + bonuses + extras)."""
    v = card.variant
    upper = sum(p for b, p in card.filled.items() if v.boxes[b].is_upper)
    bonus = sum(bonus.points for bonus in v.bonuses if upper >= bonus.threshold)
    joker = int(v.has_flag and card.filled.get(v.joker_index, 0) > 0)
    mask = sum(1 << b for b in card.filled)
    return mask, min(upper, v.upper_cap), joker, sum(card.filled.values()) + bonus + card.extra


@pytest.mark.parametrize("name", [n for n, v in PRESETS.items()])
def test_summary_is_the_cards_definitions(name):
    """Upper totals past every bonus threshold (kismet's three, yatzy's 50) and past the cap, the joker flag,
    extra points; asked twice (the second time from what the entries keep)."""
    v = PRESETS[name]
    rng = random.Random(name)
    bonuses = 0
    for _ in range(300):
        card = random_card(v, rng, rng.randrange(0, len(v.boxes) + 1))
        for b in [b for b in card.filled if v.boxes[b].is_upper and rng.random() < 0.6]:
            card.filled[b] = max(box_values(v, b))  # high upper totals: the bonuses
        card.extra = rng.choice([0, v.extra_points, 3 * v.extra_points])
        assert card.summary() == plain_summary(card), card.format()
        assert card.summary() == plain_summary(card) == (*card.state, card.points), card.format()
        bonuses += card.bonus > 0
    assert bonuses > 50 or not v.bonuses


YAHTZEE, YATZY = PRESETS["yahtzee"], PRESETS["yatzy"]
boxes = st.integers(0, len(YAHTZEE.boxes) - 1)
points = st.sampled_from([0, 1, 3, 5, 6, 12, 18, 25, 30, 40, 50])  # some fit some boxes: valid cards too


class CardChanges(RuleBasedStateMachine):
    """A card asked for its summary between changes made by every dict method that changes a dict, by
    assignment of its fields, and through copies."""

    def __init__(self):
        super().__init__()
        self.card = Card(YAHTZEE)

    @invariant()
    def summary_is_fresh(self):
        assert self.card.summary() == plain_summary(self.card), (self.card.filled, self.card.extra)

    @invariant()
    def a_card_used_as_it_is_is_valid_as_it_is(self):
        """as_card marks a valid card checked; a change must drop the mark (else a now invalid card passes)."""
        try:
            checked = as_card(YAHTZEE, self.card)
        except KniffelError:
            return
        assert checked == parse_card(YAHTZEE, self.card.format())

    @rule(box=boxes, p=points)
    def set_item(self, box, p):
        self.card.filled[box] = p

    @rule(box=boxes)
    def del_item(self, box):
        if box in self.card.filled:
            del self.card.filled[box]

    @rule(box=boxes)
    def pop(self, box):
        self.card.filled.pop(box, None)

    @rule()
    def popitem(self):
        if self.card.filled:
            self.card.filled.popitem()

    @rule()
    def clear(self):
        self.card.filled.clear()

    @rule(box=boxes, p=points)
    def setdefault(self, box, p):
        self.card.filled.setdefault(box, p)

    @rule(entries=st.dictionaries(boxes, points, max_size=4), as_pairs=st.booleans())
    def update(self, entries, as_pairs):
        self.card.filled.update(list(entries.items()) if as_pairs else entries)

    @rule(entries=st.dictionaries(boxes, points, max_size=4))
    def merge_in_place(self, entries):
        self.card.filled |= entries

    @rule(extra=st.sampled_from([0, 100, 300]))
    def set_extra(self, extra):
        self.card.extra = extra

    @rule(entries=st.dictionaries(boxes, points, max_size=6))
    def replace_entries(self, entries):
        self.card.filled = entries  # a plain dict: read afresh each time

    @rule(other=st.sampled_from([YAHTZEE, YATZY]))
    def change_variant(self, other):
        if all(b < len(other.boxes) for b in self.card.filled):
            self.card.variant = other

    @rule(how=st.sampled_from(["copy", "deepcopy", "pickle", "dataclass"]))
    def copy_card(self, how):
        self.card.summary()  # a summary kept, then copied with the entries
        if how == "copy":
            self.card = copy.copy(self.card)
        elif how == "deepcopy":
            self.card = copy.deepcopy(self.card)
        elif how == "pickle":
            self.card = pickle.loads(pickle.dumps(self.card))
        else:
            self.card = Card(self.card.variant, self.card.filled, self.card.extra)

    @rule(box=boxes, p=points)
    def with_entry(self, box, p):
        self.card.summary()
        self.card = self.card.with_entry(box, p)


TestCardChanges = CardChanges.TestCase
TestCardChanges.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)


@given(st.dictionaries(boxes, points, max_size=8))
def test_a_card_made_from_a_dict_keeps_its_own_copy(entries):
    """Card(variant, d) copies d: a later change to d is not a change of the card's entries behind its back."""
    given_entries = dict(entries)
    card = Card(YAHTZEE, given_entries)
    before = card.summary()
    given_entries[0] = 5
    given_entries.pop(12, None)
    assert card.filled == entries and card.summary() == before == plain_summary(card)
