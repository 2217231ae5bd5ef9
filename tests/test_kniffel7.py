"""Kniffel 7 (dice told apart): advice, game records and Super-Points, on reduced variants."""

import itertools
import json
import random
from functools import lru_cache

import numpy as np
import pytest
from naive import NaiveSolver

from solver import dp
from solver.advice.cards import Card
from solver.advice.choose import make_advisor
from solver.game.dice_input import parse_dice
from solver.game.review import decisions
from solver.rules.dice import possible_rolls
from solver.rules.presets import KNIFFEL7, PRESETS
from solver.rules.scoring import possible_points, score_tables
from solver.rules.variant import RuleError

BOXES = ["sevens", "fours", "chance"]


@pytest.fixture(scope="module")
def mini():
    v = PRESETS["kniffel7"].reduced(boxes=BOXES, n_dice=4, bonuses=[(8, 35)], name="k7-mini")
    values, _ = dp.solve(v)
    return v, values, make_advisor(v, values)


class OrderedBruteForce:
    """Keep values by enumerating the rerolled dice one by one (naive rules for the entries)."""

    def __init__(self, v, values, card):
        self.v, self.values, self.card = v, values, card
        self.naive = NaiveSolver("kniffel7", boxes=BOXES, n_dice=4, bonuses=[(8, 35)])
        self.filled = {v.boxes[b].key: p for b, p in card.filled.items()}
        self.final = lru_cache(maxsize=None)(self._final)
        self.second = lru_cache(maxsize=None)(self._second)
        self.kept_second = lru_cache(maxsize=None)(self._kept_second)

    def _final(self, dice):
        best = -1e9
        for key, pts, extra in self.naive.final_options(self.filled, list(dice)):
            after = self.card.with_entry(self.v.box_index(key), pts, extra)
            best = max(best, after.points + float(self.values[after.state]))
        return best

    def outcomes(self, dice, kept):
        rerolled = [d for d in range(4) if d not in kept]
        for faces in itertools.product(*(self.v.dice[d] for d in rerolled)):
            new = list(dice)
            for d, f in zip(rerolled, faces):
                new[d] = f
            yield tuple(new), 1 / 6 ** len(rerolled)

    def keep_after_second(self, dice, kept):
        """The same sum for every roll showing these faces on the kept dice: enumerated once for them."""
        return self.kept_second(kept, tuple(dice[d] for d in kept))

    def _kept_second(self, kept, faces):
        dice = [None] * 4  # the rerolled dice: every face in turn (outcomes)
        for d, f in zip(kept, faces):
            dice[d] = f
        return sum(p * self.final(d) for d, p in self.outcomes(dice, kept))

    def _second(self, dice):
        return max([self.final(dice)] + [self.keep_after_second(dice, k) for k in subsets(4) if len(k) < 4])

    def keep_after_first(self, dice, kept):
        return sum(p * self.second(d) for d, p in self.outcomes(dice, kept))


def subsets(n):
    return [tuple(d for d in range(n) if m >> d & 1) for m in range(1 << n)]


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_keep_advice_matches_brute_force(mini):
    v, values, adv = mini
    for card, dice in [
        (Card(v), (7, 7, 4, 2)),
        (Card(v, {v.box_index("chance"): 20}), (2, 4, 7, 1)),
        (Card(v, {v.box_index("sevens"): 14}), (4, 4, 1, 7)),
    ]:
        brute = OrderedBruteForce(v, values, card)
        for roll, value_of in ((2, brute.keep_after_second), (1, brute.keep_after_first)):
            options = adv.keep_options(card, dice, roll)
            assert len(options) == 16  # every choice of dice, by identity
            for o in options:
                expected = brute.final(dice) if len(o.keep_dice) == 4 else value_of(dice, o.keep_dice)
                assert abs(o.expected_final_score - expected) < 1e-9, (roll, o.text)


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_keep_text_names_the_dice(mini):
    v, _, adv = mini
    best = adv.keep_options(Card(v), (7, 7, 4, 2), 1)[0]
    assert best.keep_dice == (0, 1) and best.text == "keep blue 7, green 7; reroll the other two"
    assert best.as_dict(v)["keep_dice"] == ["blue", "green"]


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_box_advice_and_value_agree(mini):
    v, values, adv = mini
    card = Card(v, {v.box_index("fours"): 8})
    opts = adv.box_options(card, (7, 7, 4, 1))
    assert {v.boxes[o.box].key: o.points for o in opts} == {"sevens": 14, "chance": 19}
    brute = OrderedBruteForce(v, values, card)
    assert abs(opts[0].expected_final_score - brute.final((7, 7, 4, 1))) < 1e-9


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_game_with_dice_told_apart_reviews_lossless(mini):
    from test_simulate_review import play

    v, _, adv = mini
    game, _ = play(v, adv, seed=4, mistakes={})
    keeps = [i for i, ev in enumerate(game.events) if "keep_dice" in ev]
    assert keeps
    for i in keeps:  # kept dice stay put in the next roll
        before, after = game.events[i - 1]["roll"], game.events[i + 1]["roll"]
        assert all(after[d] == before[d] for d in game.events[i]["keep_dice"])
    assert sum(d.loss for d in decisions(game, adv)) == 0


def test_named_dice_syntax():
    assert parse_dice(KNIFFEL7, "blue=2,green=3,purple=7,yellow=1,red=6,black=7,white=4") == (2, 3, 7, 1, 6, 7, 4)
    assert parse_dice(KNIFFEL7, "2,3,7,1,6,7,4") == (2, 3, 7, 1, 6, 7, 4)
    with pytest.raises(RuleError, match=r"die 2 \(green\) has no face 2"):
        parse_dice(KNIFFEL7, "blue=3,green=2,purple=7,yellow=1,red=6,black=7,white=4")
    with pytest.raises(RuleError, match="no face for white"):
        parse_dice(KNIFFEL7, "blue=3,green=3,purple=7,yellow=1,red=6,black=7")
    with pytest.raises(RuleError, match="die 7 \\(white\\) has no face 7"):
        parse_dice(KNIFFEL7, "2,3,7,1,6,7,7")


def test_super_points_in_every_free_box():
    """Super-Kniffel holding 60 and six equal dice: 60 in any free box, upper boxes included."""
    rolls = possible_rolls(KNIFFEL7.dice)
    rules = dp.rules_arrays(KNIFFEL7, rolls)
    r = rolls.index((1, 4, 4, 4, 4, 4, 4))
    mask = 1 << KNIFFEL7.box_index("super_kniffel")
    entries = dict(dp.roll_entries(rules, mask, 1, r))
    assert len(entries) == 13 and set(entries.values()) == {60}
    normal = dict(dp.roll_entries(rules, mask, 0, r))  # Super-Kniffel scratched: scored normally
    assert normal[KNIFFEL7.box_index("fours")] == 24 and normal[KNIFFEL7.box_index("double_triple")] == 0
    tables = score_tables(KNIFFEL7, rolls)
    assert tables.joker_roll[r] and not tables.joker_roll[rolls.index((1, 2, 4, 4, 4, 4, 4))]


# -- the committed table (issue 5) -------------------------------------------------------------------


@pytest.fixture(scope="module")
def k7_table():
    from solver.store import solving, tables

    return solving.load_table(KNIFFEL7, tables.tables_dir())  # the table shipped in solver/data


def test_committed_table_start_value(k7_table):
    values, meta = k7_table
    assert meta["start_value"] == pytest.approx(365.27069740157054, abs=1e-9)
    assert values[0, 0, 0] == meta["start_value"]


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_committed_table_is_consistent_with_the_kernel(k7_table):
    """Recompute sampled states from their successors with the kernel: the stored values match bit for bit
    (the table is the kernel's own output; a faster kernel must not change a bit of it)."""
    values, _ = k7_table
    engine = dp.make_engine(KNIFFEL7, allow_slow=True)
    upper_states = engine.upper
    rng = random.Random(7)
    checked = 0
    while checked < 3:
        mask = rng.randrange(1, (1 << 14) - 1)
        joker_scored = 1 if mask >> KNIFFEL7.joker_index & 1 and rng.random() < 0.5 else 0
        upper_totals = upper_states.totals(mask, joker_scored)[:2]
        result = dp.ordered_turn(engine, mask, joker_scored, upper_totals, values)
        assert np.array_equal(result, values[mask, upper_totals, joker_scored])
        checked += 1


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_advise_kniffel7_through_the_cli():
    from click.testing import CliRunner

    from solver.cli import cli

    res = CliRunner().invoke(
        cli, ["advise", "kniffel7", "--dice", "blue=7,green=7,purple=7,yellow=1,red=2,black=7,white=3", "--json"]
    )
    assert res.exit_code == 0, res.output
    best = json.loads(res.stdout)["best"]
    assert set(best["keep_dice"]) >= {"blue", "green", "purple", "black"}


def test_committed_table_matches_naive_last_turns(k7_table):
    """End-game states with one free box against tests/naive.py (all 6^7 ordered outcomes)."""
    from naive import kniffel7_endgame_value

    values, _ = k7_table
    rng = random.Random(11)
    keys = [b.key for b in KNIFFEL7.boxes]
    for free in ["sevens", "ones", "chance", "double_triple", "super_kniffel"]:
        card = Card(KNIFFEL7)
        super_kniffel = rng.choice([0, 60]) if free != "super_kniffel" else None
        for b, key in enumerate(keys):
            if key != free:  # Super-Points (60 in any box) only on cards whose Super-Kniffel holds 60
                card.filled[b] = rng.choice(possible_points(KNIFFEL7, b, jokers=super_kniffel == 60))
        if super_kniffel is not None:
            card.filled[KNIFFEL7.joker_index] = super_kniffel
        expected = kniffel7_endgame_value({KNIFFEL7.boxes[b].key: p for b, p in card.filled.items()})
        assert abs(float(values[card.state]) - expected) < 1e-9, (free, card.format())


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_interrupted_solve_resumes_from_its_checkpoint(tmp_path, monkeypatch, capsys):
    """`kniffel solve` of dice told apart writes a checkpoint after each layer; interrupted, it
    continues from the last one to the same table."""
    from solver import cli
    from solver.store import tables

    variant = KNIFFEL7.reduced(boxes=["sevens", "super_kniffel", "chance"], n_dice=3, bonuses=[(14, 35)])
    full, states = dp.solve(variant)
    real_save = tables.save_checkpoint
    layers_done = []

    def save_then_interrupt(*args, **kwargs):
        real_save(*args, **kwargs)
        layers_done.append(args[3])
        if len(layers_done) == 2:
            raise KeyboardInterrupt

    monkeypatch.setattr(tables, "save_checkpoint", save_then_interrupt)
    settings = cli.Settings(tmp_path, progress=False)
    with pytest.raises(KeyboardInterrupt):
        cli.solve_table(variant, settings)
    assert tables.checkpoint_paths(variant, tmp_path)[1].exists()
    assert not (tmp_path / f"{variant.name}.npy").exists()
    monkeypatch.setattr(tables, "save_checkpoint", real_save)
    values, meta = cli.solve_table(variant, settings)
    assert "resuming" in capsys.readouterr().err
    assert np.array_equal(values, full, equal_nan=True)
    assert meta["states"] == states
    assert not any(tmp_path.glob(".*checkpoint*"))


def test_ordered_kernel_refuses_the_keep_one_house_rule():
    """The ordered kernel has no minimum keep before the last roll: refused, not silently ignored."""
    with pytest.raises(RuleError, match="identical dice"):
        dp.make_engine(PRESETS["kniffel-keep-one"], ordered=True)
