"""Kismet (issue 17): coloured dice, three upper bonuses, sums plus points, the second Kismet.

Scores are checked against tests/naive.py roll by roll (test_scoring) and here against the worked
examples of the rules sources (docs/RULES.md); values against the naive solver on reduced cards."""

import itertools

import pytest
from naive import NaiveSolver
from test_dp_vs_naive import REDUCED, fast_value, legal_points

from solver import dp
from solver.rules.presets import KISMET, PRESETS
from solver.rules.scoring import box_score

TOL = 1e-9


def kismet(box, dice):
    return box_score(KISMET.boxes[KISMET.box_index(box)], dice, KISMET.colours)


def test_source_examples():
    # the Basic Section examples: 1-3-3-4-5 scores 1, 6, 4 or 5 above; three fives 15, two sixes 12, four fours 16
    assert [kismet(b, (1, 3, 3, 4, 5)) for b in ("ones", "threes", "fours", "fives")] == [1, 6, 4, 5]
    assert kismet("fives", (5, 5, 5, 1, 2)) == 15 and kismet("sixes", (6, 6, 1, 2, 3)) == 12
    assert kismet("fours", (4, 4, 4, 4, 2)) == 16
    # "four fives and a two are all red": a flush, 35
    assert kismet("flush", (5, 5, 5, 5, 2)) == 35
    assert kismet("flush", (5, 5, 5, 5, 3)) == 0
    # two pair same colour 3-3-4-4 (green) with any fifth die: the sum of all five dice
    assert kismet("two_pair_same_colour", (3, 3, 4, 4, 6)) == 20
    assert kismet("two_pair_same_colour", (3, 3, 5, 5, 6)) == 0  # green and red pairs
    assert kismet("two_pair_same_colour", (2, 2, 2, 2, 6)) == 14  # four of a kind qualifies
    # full house 1-1-1-4-4: sum + 15; same colour 3-3-3-4-4: sum + 20
    assert kismet("full_house", (1, 1, 1, 4, 4)) == 26
    assert kismet("full_house_same_colour", (1, 1, 1, 4, 4)) == 0
    assert kismet("full_house_same_colour", (3, 3, 3, 4, 4)) == 37
    assert kismet("full_house", (3, 3, 3, 3, 3)) == 0  # five equal dice are no full house (but see the joker)
    # four of a kind 2-5-5-5-5: sum + 25; Kismet 3-3-3-3-3: sum + 50; straight 30; Yarborough the sum
    assert kismet("four_of_a_kind", (2, 5, 5, 5, 5)) == 47
    assert kismet("kismet", (3, 3, 3, 3, 3)) == 65
    assert kismet("straight", (2, 3, 4, 5, 6)) == kismet("straight", (1, 2, 3, 4, 5)) == 30
    assert kismet("straight", (1, 2, 3, 4, 6)) == 0
    assert kismet("yarborough", (1, 2, 3, 4, 6)) == 16


def test_upper_bonus_steps():
    """35 for 63-70, 55 for 71-77, 75 from 78."""
    bonus = dp.rules_bonus(KISMET)
    assert [bonus[min(u, KISMET.upper_cap)] for u in (62, 63, 70, 71, 77, 78, 90)] == [0, 35, 35, 55, 55, 75, 75]


def test_second_kismet_fits_the_full_houses():
    """While Kismet holds points, five equal dice may go into the full houses (sum + 15 / + 20);
    after a scratched Kismet they score 0 there."""
    from solver.dp import roll_entries

    engine = dp.make_engine(KISMET)
    rolls = [tuple(sorted(r)) for r in itertools.combinations_with_replacement(KISMET.faces, 5)]
    r = rolls.index((4, 4, 4, 4, 4))
    mask = 1 << KISMET.box_index("kismet")
    held = dict(roll_entries(engine.rules, mask, 1, r))
    scratched = dict(roll_entries(engine.rules, mask, 0, r))
    fh, fhsc, straight = (KISMET.box_index(k) for k in ("full_house", "full_house_same_colour", "straight"))
    assert (held[fh], held[fhsc], held[straight]) == (35, 40, 0)
    assert (scratched[fh], scratched[fhsc]) == (0, 0)


def test_fingerprints_of_the_older_presets_unchanged():
    """The colour fields are new: left at their defaults they must not move any older table's fingerprint."""
    recorded = {"kniffel": "5005ebcd5eff9519", "yahtzee": "9fa64c716298ba1e", "kniffel7": "80e90c998096366d"}
    assert {name: PRESETS[name].fingerprint() for name in recorded} == recorded


def test_colours_validated():
    import dataclasses

    with pytest.raises(ValueError, match="colour"):
        dataclasses.replace(KISMET, colours=((1, 6), (2, 5), (3,)))
    with pytest.raises(ValueError, match="colour"):
        dataclasses.replace(KISMET, colours=())


# end-game cards of the full game: one or two boxes free, a joker-held Kismet among them
ENDGAME = [
    {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "two_pair_same_colour": 20,
     "three_of_a_kind": 20, "straight": 30, "flush": 35, "full_house_same_colour": 0, "four_of_a_kind": 45,
     "yarborough": 22, "kismet": 70},
    {"ones": 2, "twos": 8, "threes": 9, "fours": 12, "fives": 20, "sixes": 12, "two_pair_same_colour": 0,
     "three_of_a_kind": 20, "straight": 0, "flush": 35, "full_house": 30, "four_of_a_kind": 45,
     "yarborough": 22},
    {"ones": 3, "twos": 6, "threes": 9, "fours": 16, "fives": 20, "two_pair_same_colour": 20,
     "three_of_a_kind": 20, "straight": 30, "flush": 35, "full_house": 0, "full_house_same_colour": 37,
     "yarborough": 22, "kismet": 0},
]  # fmt: skip


@pytest.mark.slow  # kismet's whole table (about 10 s); its rules on reduced variants: test_dp_vs_naive.py
@pytest.mark.parametrize("card", ENDGAME)
def test_endgame_cards_against_naive(card, solved):
    values = solved("kismet")
    naive = NaiveSolver("kismet")
    assert abs(fast_value(KISMET, values, card) - naive.state_value(card)) < TOL


@pytest.mark.slow
def test_start_value(solved):
    """No published optimum exists (docs/RULES.md); this solver's figure, pinned."""
    assert abs(solved("kismet")[0, 0, 0] - 315.1040405989) < 1e-8


@pytest.mark.parametrize("boxes,n_dice,bonuses", [r[1:] for r in REDUCED if r[0] == "kismet"][:2])
def test_reduced_kismet_distribution_and_target(boxes, n_dice, bonuses):
    """The exact distribution (forward pass) and the target table follow the colour rules and the second
    Kismet like the value solve."""
    from test_distribution import assert_same_dist, to_come
    from test_target import check_card

    from solver.chances.targets import build_target_table

    variant = KISMET.reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    values, _ = dp.solve(variant)
    naive = NaiveSolver("kismet", boxes=boxes, n_dice=n_dice, bonuses=bonuses)
    assert_same_dist(to_come(variant, values, {}), naive.distribution({}), "empty card")
    held = {"kismet": max(legal_points(variant, "kismet"))}  # the second Kismet can come
    assert_same_dist(to_come(variant, values, held), naive.distribution(held), held)
    table = build_target_table(variant)  # N = the highest score: every need
    for filled in ({}, held):
        check_card(variant, table, naive, filled, range(1, table.n_max + 1))


@pytest.mark.parametrize(
    "boxes,bonuses",
    [
        (["twos", "full_house_same_colour", "kismet", "flush", "yarborough"], [(2, 3), (4, 5)]),
        pytest.param(None, None, marks=pytest.mark.slow),  # the whole game
    ],
)
def test_simulated_games_score_like_the_table(solved, boxes, bonuses):
    """Simulation plays the table's policy: its mean lies within 4 standard errors of the start value, and
    every box holds points the rules allow (colour boxes and the second Kismet included)."""
    from solver.chances.simulation import simulate
    from solver.rules.scoring import possible_points

    variant = KISMET if boxes is None else KISMET.reduced(boxes=boxes, bonuses=bonuses)
    values = solved("kismet") if boxes is None else dp.solve(variant)[0]
    games = simulate(variant, values, 2000, seed=5)
    scores = games.scores
    assert abs(scores.mean() - values[0, 0, 0]) < 4 * scores.std() / len(scores) ** 0.5
    for b in range(len(variant.boxes)):
        assert set(games.boxes[:, b].tolist()) <= set(possible_points(variant, b))
