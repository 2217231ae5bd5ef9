"""Card syntax and the table files."""

import json

import numpy as np
import pytest

from solver import dp
from solver.advice.cards import parse_card
from solver.rules.presets import KNIFFEL, KNIFFEL7, PRESETS, YAHTZEE, find_variant
from solver.rules.variant import RuleError
from solver.store import tables


def test_card_syntax_names_positions_and_extra():
    card = parse_card(KNIFFEL, "einser=3, Dreier=9, kniffel=50, chance=30, extra=50")
    assert card.points == 3 + 9 + 50 + 30 + 50  # Chance 30: the joker entry the extra points need
    assert card.state == ((1 << 0) | (1 << 2) | (1 << 11) | (1 << 12), 12, 1)
    same = parse_card(KNIFFEL, "1=3,3=9,12=50,13=30,extra=50")
    assert same.filled == card.filled
    assert parse_card(KNIFFEL, "Große Straße=40").filled == parse_card(KNIFFEL, "grosse-strasse=40").filled
    assert parse_card(KNIFFEL, "large straight=40").filled == parse_card(KNIFFEL, "GROSSE STRASSE=40").filled
    assert parse_card(KNIFFEL, card.format()).filled == card.filled


def test_card_bonus_counts_once_reached():
    card = parse_card(KNIFFEL, "einser=3,zweier=6,dreier=9,vierer=12,fuenfer=15,sechser=18")
    assert card.upper_total == 63 and card.bonus == 35 and card.points == 98


@pytest.mark.parametrize(
    "text,fragment",
    [
        ("einser=7", "einser=7"),
        ("full house=20", "Full House cannot hold 20"),
        ("einser=1,ones=2", "appears twice"),
        ("foo=3", "unknown box"),
        ("extra=50", "extra points need Kniffel"),
        ("kniffel=0,extra=50", "extra points need Kniffel"),
        ("kniffel=50,extra=30", "steps of 50"),
        ("chance", "box=points"),
        ("chance=abc", "whole number"),
        ("14=3", "out of range"),
        ("chance=0", "Chance cannot hold 0"),  # restricted scratching: Chance always fits
    ],
)
def test_impossible_cards_are_rejected(text, fragment):
    with pytest.raises(RuleError, match=fragment):
        parse_card(KNIFFEL, text)


def test_variant_specific_limits():
    assert parse_card(YAHTZEE, "yahtzee=50,chance=20,extra=100").extra == 100
    with pytest.raises(RuleError):
        parse_card(YAHTZEE, "yahtzee=50,chance=20,extra=50")
    assert parse_card(KNIFFEL, "grosse strasse=40").filled == {KNIFFEL.box_index("large_straight"): 40}
    assert parse_card(KNIFFEL, "einser=5").upper_total == 5  # also a joker entry (box maximum)
    assert parse_card(KNIFFEL7, "siebener=60").upper_total == 60  # Super-Points count in the upper section
    with pytest.raises(RuleError):
        parse_card(KNIFFEL7, "super-kniffel=60,extra=60")


def test_find_variant_by_alias_and_house_rule():
    assert find_variant("Meister").name == "kniffel-meister"
    assert find_variant("kniffel", keep_one=True).min_keep_last_reroll == 1
    with pytest.raises(RuleError, match="known variants"):
        find_variant("poker")
    with pytest.raises(RuleError, match="kniffel only"):
        find_variant("yatzy", keep_one=True)


@pytest.fixture(scope="module")
def small():
    v = PRESETS["kniffel"].reduced(boxes=["ones", "sixes", "kniffel", "chance"], n_dice=3, name="tiny")
    values, states = dp.solve(v)
    return v, values, states


def test_table_round_trip_and_atomic_write(tmp_path, small):
    v, values, states = small
    meta = tables.save(v, values, tmp_path, states=states, seconds=0.1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.json", "tiny.npy"]  # no temp files left
    loaded, meta2 = tables.load(v, tmp_path)
    assert np.array_equal(loaded, values, equal_nan=True)
    assert meta2["start_value"] == meta["start_value"] == float(values[0, 0, 0])
    assert meta2["fingerprint"] == v.fingerprint() and meta2["states"] == states


def test_stale_or_damaged_tables_are_refused(tmp_path, small):
    v, values, states = small
    tables.save(v, values, tmp_path, states=states, seconds=0.1)
    other_rules = v.reduced(bonuses=[(3, 99)], name="tiny")
    with pytest.raises(tables.TableError, match="kniffel solve tiny"):
        tables.load(other_rules, tmp_path)
    npy, meta_path = tables.paths(v, tmp_path)
    npy.write_bytes(npy.read_bytes()[:100])
    with pytest.raises(tables.TableError, match="damaged"):
        tables.load(v, tmp_path)
    meta_path.write_text("{not json")
    with pytest.raises(tables.TableError, match="not JSON.*kniffel solve tiny"):
        tables.load(v, tmp_path)
    with pytest.raises(tables.TableMissing):
        tables.load(v, tmp_path / "nowhere")


def test_wrong_shape_is_refused(tmp_path, small):
    v, values, states = small
    tables.save(v, values, tmp_path, states=states, seconds=0.1)
    npy, meta_path = tables.paths(v, tmp_path)
    np.save(npy, values[:, :3])
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "sha256": tables.checksum(npy.read_bytes())}))  # checksum passes
    with pytest.raises(tables.TableError, match="expected"):
        tables.load(v, tmp_path)
    meta = json.loads(meta_path.read_text())
    assert meta["variant"] == "tiny"
