"""Target tables on disk with layers left out (layout compact-v2, solver/store/target_layers.py): what is
read back, stored or recomputed, is bit for bit what the build computed for every state and need,
and the turn's keep probabilities are too; the loaded table agrees with the brute-force reference."""

import json

import numpy as np
import pytest
from naive import NaiveSolver

from solver.advice.cards import Card
from solver.chances.targets import TargetTable, build_target_table, target_keep_probabilities, target_probability
from solver.chances.win import turn_vectors
from solver.rules.presets import PRESETS
from solver.store.target_layers import choose_dropped, state_column
from solver.store.target_tables import load_target, save_target, target_paths

VARIANTS = [
    ("kniffel", ["ones", "sixes", "kniffel", "chance"], 3, [(6, 10)]),
    ("yahtzee", ["threes", "yahtzee", "full_house", "small_straight", "chance"], 2, [(6, 10)]),
    ("generala", ["twos", "escalera", "full", "generala", "doble_generala"], 5, None),  # servida stops recomputed
]


def test_choose_dropped_is_the_heaviest_set_without_neighbours():
    assert choose_dropped(np.array([1, 5, 1, 1, 5, 1])) == (1, 4)
    assert choose_dropped(np.array([3, 1, 1, 3])) == (0, 3)
    assert choose_dropped(np.array([4])) == (0,)
    kniffel = [0, 17, 277, 1888, 7034, 16191, 24430, 24780, 16519, 6339, 1424, 161, 6]  # thousands of values
    assert choose_dropped(np.array(kniffel)) == (4, 6, 8, 10)  # layers under 1 % are kept: 0-2, 11, 12
    for sizes in (kniffel, [5, 5, 5, 5, 5], [9, 1, 1, 9, 1, 9, 9, 1], [50, 0, 30, 30, 0, 1, 1]):
        dropped = choose_dropped(np.array(sizes))
        assert all(b - a >= 2 for a, b in zip(dropped, dropped[1:]))
        allowed = {k for k in range(len(sizes)) if sizes[k] >= 0.01 * sum(sizes)}
        assert set(dropped) <= allowed
        subsets = [[k for k in range(len(sizes)) if s >> k & 1] for s in range(1 << len(sizes)) if not s & (s >> 1)]
        best = max(sum(sizes[k] for k in ks) for ks in subsets if set(ks) <= allowed)  # brute force
        assert sum(sizes[k] for k in dropped) == best


def every_state(table):
    up, lay = table.engine.upper, table.layout
    for mask in range((1 << len(table.variant.boxes)) - 1):
        for joker_scored in range(lay.length.shape[1]):
            if lay.length[mask, joker_scored] == 0:
                continue
            for upper in range(lay.col.shape[1]):
                if lay.col[up.row[mask, joker_scored], upper] >= 0:
                    yield mask, upper, joker_scored


@pytest.mark.parametrize("name,boxes,n_dice,bonuses", VARIANTS)
def test_loaded_table_reads_back_the_built_values_bit_for_bit(tmp_path, name, boxes, n_dice, bonuses):
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    built = build_target_table(variant)
    meta = save_target(variant, built.flat, built.layout, tmp_path, seconds=1.0)
    flat, layout, *_ = load_target(variant, built.engine, tmp_path)
    loaded = TargetTable(variant, built.engine, flat, layout)
    assert layout.dropped and meta["dropped_layers"] == list(layout.dropped)
    assert flat.shape[0] == meta["size"] < built.layout.size  # the dropped layers are not in the file
    assert target_paths(variant, tmp_path)[0].stat().st_size < built.flat.nbytes * 0.8
    up = built.engine.upper
    for mask, upper, joker_scored in every_state(built):
        ln = int(built.layout.length[mask, joker_scored])
        start = built.layout.offset[mask, joker_scored] + built.layout.col[up.row[mask, joker_scored], upper] * ln
        got = state_column(built.engine, layout, flat, mask, upper, joker_scored)
        assert np.array_equal(got, built.flat[start : start + ln]), (mask, upper, joker_scored)
        for n in (1, ln // 2 + 1, ln):
            a = keep_probabilities(built, mask, upper, joker_scored, n)
            b = keep_probabilities(loaded, mask, upper, joker_scored, n)
            assert all(np.array_equal(x, y) for x, y in zip(a, b)), (mask, upper, joker_scored, n)


def keep_probabilities(table, mask, upper, joker_scored, n):
    card = _StateCard((mask, upper, joker_scored))
    return target_keep_probabilities(table, card, n)  # type: ignore[arg-type]


class _StateCard:
    """What target_keep_probabilities and turn_vectors read of a card: its state."""

    def __init__(self, state):
        self.state = state


def test_loaded_vectors_and_naive_reference(tmp_path):
    name, boxes, n_dice, bonuses = VARIANTS[0]
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    built = build_target_table(variant)
    save_target(variant, built.flat, built.layout, tmp_path, seconds=1.0)
    loaded = TargetTable(variant, built.engine, *load_target(variant, built.engine, tmp_path)[:2])
    for mask, upper, joker_scored in every_state(built):
        card = _StateCard((mask, upper, joker_scored))
        a, b = turn_vectors(built, card), turn_vectors(loaded, card)  # type: ignore[arg-type]
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    naive = NaiveSolver(name, boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    cards = [{}, {"ones": 2}, {"sixes": 12, "kniffel": 50}, {"ones": 3, "chance": 17}]
    for filled in cards:
        card = Card(variant, {variant.box_index(k): p for k, p in filled.items()})
        for n in range(1, built.n_max + 1, 2):
            got = target_probability(variant, loaded, card, card.points + n)
            assert abs(got - naive.target_probability(filled, n)) < 1e-9, (filled, n)


def test_a_version_1_table_is_refused_with_the_rebuild_line(tmp_path):
    from solver.store.target_tables import TargetTableError

    name, boxes, n_dice, bonuses = VARIANTS[0]
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    built = build_target_table(variant)
    save_target(variant, built.flat, built.layout, tmp_path, seconds=1.0)
    side = target_paths(variant, tmp_path)[1]
    meta = json.loads(side.read_text())
    side.write_text(json.dumps({**meta, "format": 1, "layout": "compact-v1"}))
    with pytest.raises(TargetTableError, match=r"older format; rebuild it with `kniffel solve \S+ --target`"):
        load_target(variant, built.engine, tmp_path)
    side.write_text(json.dumps({**meta, "dropped_layers": []}))
    with pytest.raises(TargetTableError, match="damaged"):
        load_target(variant, built.engine, tmp_path)


def test_expected_play_cache_reads_back_the_forward_pass(tmp_path):
    from solver import dp
    from solver.chances.distribution import final_pmf, p_at_least
    from solver.chances.win import opponent_pmf, probability_expected_play
    from solver.store.expected_play_cache import cache_path, values_digest

    name, boxes, n_dice, bonuses = VARIANTS[0]
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    values = dp.solve(variant)[0]
    card = Card(variant, {variant.box_index("ones"): 2})
    pmf = final_pmf(variant, values, card)
    for target in (5, 30, 60):
        want = p_at_least(pmf, target)  # P(final >= target), as every answer takes it
        assert probability_expected_play(variant, values, card, target, tmp_path) == want  # computed, stored
        assert probability_expected_play(variant, values, card, target, tmp_path) == want  # read back
    assert np.array_equal(
        opponent_pmf(variant, values, Card(variant), directory=tmp_path), final_pmf(variant, values, Card(variant))
    )
    path = cache_path(variant, tmp_path)
    data = json.loads(path.read_text())
    assert len(data["entries"]) == 2
    key = next(iter(data["entries"]))
    data["entries"][key] = [0.0] * len(data["entries"][key])  # damaged: its checksum no longer matches
    path.write_text(json.dumps(data))
    assert probability_expected_play(variant, values, card, 30, tmp_path) == p_at_least(pmf, 30)
    other = values.copy()
    other[0, 0, 0] += 1  # another value table: the cache is not used but replaced
    assert probability_expected_play(variant, other, card, 30, tmp_path) == p_at_least(pmf, 30)
    assert json.loads(path.read_text())["values_sha256"] == values_digest(other) != values_digest(values)


def test_answers_from_disk_only_for_stored_layers_and_cached_pmfs(tmp_path):
    from solver.chances.target_quick import answers_from_disk
    from solver.chances.win import probability_expected_play
    from solver.store.solving import load_or_solve

    name, boxes, n_dice, bonuses = VARIANTS[1]
    variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    state = Card(variant).state
    assert not answers_from_disk(variant, tmp_path, state, next_layer=False, expected_play=False)  # no tables
    values = load_or_solve(variant, tmp_path)[0]
    built = build_target_table(variant)
    meta = save_target(variant, built.flat, built.layout, tmp_path, seconds=1.0)
    dropped = meta["dropped_layers"]
    for mask in range(1 << len(boxes)):
        filled = bin(mask).count("1")
        card_state = (mask, 0, 0)
        assert answers_from_disk(variant, tmp_path, card_state, next_layer=False, expected_play=False) == (
            filled not in dropped
        )
        assert answers_from_disk(variant, tmp_path, card_state, next_layer=True, expected_play=False) == (
            filled not in dropped and filled + 1 not in dropped
        )
    if 0 not in dropped:
        assert not answers_from_disk(variant, tmp_path, state, next_layer=False, expected_play=True)
        probability_expected_play(variant, values, Card(variant), 10, tmp_path)  # computed and cached
        assert answers_from_disk(variant, tmp_path, state, next_layer=False, expected_play=True)
