"""The exact distribution of Kniffel 7 (dice told apart): the forward pass's choices are the advisor's under
the tie rule (checked against a plain numpy scan of every roll), its mean is the table's, it agrees with
the simulation, and the CLI, its cache and the shipped pmf behave."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from solver import dp
from solver.advice.cards import Card, parse_card
from solver.chances import distribution as dist
from solver.chances.simulation import tally
from solver.cli import cli
from solver.dp import forward_ordered as fo
from solver.dp import forward_ordered_layers
from solver.dp.ordered_play import TIE
from solver.rules.presets import KNIFFEL7, PRESETS
from solver.store import solving, tables
from solver.store.expected_play_cache import values_digest
from solver.store.shipped_pmf import shipped_pmf, write_shipped_pmf

UPPER = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,sevens=21"
ENDGAMES = [  # 1 to 3 free boxes
    UPPER + ",four_of_a_kind=20,five_of_a_kind=25,double_triple=25,straight_five=30,straight_six=40,super_kniffel=0",
    UPPER + ",four_of_a_kind=20,five_of_a_kind=25,double_triple=25,straight_five=30,chance=28",
    UPPER + ",four_of_a_kind=20,double_triple=0,straight_five=30,straight_six=40,chance=28",
    "ones=4,twos=10,threes=12,fours=16,fives=20,sixes=24,sevens=28,five_of_a_kind=30,double_triple=25,super_kniffel=60,"
    "straight_six=40",
]


@pytest.fixture(scope="module")
def k7():
    values, meta = solving.load_table(KNIFFEL7, tables.tables_dir())  # the table shipped in solver/data
    return values, meta, dp.make_engine(KNIFFEL7, allow_slow=True)


def scan_choices(vals, tables_):
    """The tie rule, plainly: per roll, the first choice in preference order within TIE of the best; and
    that best."""
    n = tables_.deltas.shape[1]
    best = np.full(tables_.rolls.shape[0], -np.inf)
    kept = []
    for bits in range(1 << n):
        pa = tables_.rolls + sum(tables_.deltas[:, d] for d in range(n) if not bits >> d & 1)
        kept.append(vals[pa])
        best = np.maximum(best, kept[-1])
    chosen = np.full(best.shape[0], -1)
    for bits in tables_.prefs:
        chosen = np.where((chosen < 0) & (kept[bits] >= best - TIE), bits, chosen)
    return chosen, best


@pytest.mark.parametrize(
    "text",
    [ENDGAMES[0], pytest.param(ENDGAMES[2], marks=pytest.mark.slow), pytest.param("", marks=pytest.mark.slow)],
)
@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_choices_are_the_tie_rules_for_every_roll(k7, text):
    """After roll 1 and roll 2, every one of the 6^7 rolls picks what a scan of its 128 keeps picks."""
    values, _, engine = k7
    tab = fo.forward_tables(engine)
    mask, upper, joker_scored = parse_card(KNIFFEL7, text).state
    _, after_second, after_first = dp.ordered_keep_values(engine, values, mask, upper, joker_scored)
    after_first[tab.rolls] = after_second[tab.rolls]  # keeping every die after roll 1: stopping
    _, best, pick_r, _, _, chosen, _, _ = fo._work(engine, tab)  # the pass's own buffers (uint8 picks): its types
    fo._choices(after_first, tab, best, pick_r, chosen)
    assert np.array_equal(chosen, scan_choices(after_first, tab)[0]), text
    _, kept = fo._second_values(mask, joker_scored, upper, engine.rules, engine.ordered, values)
    roll_values = np.full_like(after_second, np.nan)
    fo._second_choices(kept, tab, engine.ordered, best, pick_r, roll_values, chosen)
    picks, best = scan_choices(after_second, tab)
    assert np.array_equal(chosen, picks) and np.array_equal(roll_values[tab.rolls], best), text


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
@pytest.mark.parametrize("text", [*ENDGAMES[:2], *(pytest.param(c, marks=pytest.mark.slow) for c in ENDGAMES[2:])])
def test_mean_is_the_tables(k7, text):
    values, _, engine = k7
    card = parse_card(KNIFFEL7, text)
    pmf = dist.final_pmf(KNIFFEL7, values, card, engine)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12) and (pmf >= 0).all()
    assert abs(np.arange(pmf.shape[0]) @ pmf - card.points - values[card.state]) < 1e-9
    tail = dist.expected_play_at_least(KNIFFEL7, values, card, range(pmf.shape[0] + 2))
    assert all(a >= b for a, b in zip(tail, tail[1:])) and tail[card.points] == pytest.approx(1.0)


@pytest.fixture(scope="module")
def mini():
    v = PRESETS["kniffel7"].reduced(boxes=["sevens", "fours", "chance"], n_dice=4, bonuses=[(8, 35)], name="k7-mini")
    values, _ = dp.solve(v)
    return v, values


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_mean_is_the_tables_from_every_card_of_a_small_variant(mini):
    v, values = mini
    engine = dp.make_engine(v)
    for mask in range(1 << 3):
        for upper in engine.upper.totals(mask, 0):
            pmf = forward_ordered_layers.ordered_pmf(engine, values, mask, int(upper), 0, 0)
            assert abs(np.arange(pmf.shape[0]) @ pmf - values[mask, upper, 0]) < 1e-9, (mask, upper)


@pytest.mark.slow
def test_the_simulation_agrees(mini):
    """1e5 simulated games of the small variant against the exact pmf: chi-square over cells of at
    least 5 expected games (fixed seed)."""
    v, values = mini
    n = 100_000
    pmf = forward_ordered_layers.ordered_pmf(dp.make_engine(v), values, 0, 0, 0, 0)
    counts = tally(v, values, n, seed=7).score_counts
    top = max(pmf.shape[0], counts.shape[0])
    expected, observed = np.pad(pmf, (0, top - pmf.shape[0])) * n, np.pad(counts, (0, top - counts.shape[0]))
    assert observed[expected == 0].sum() == 0  # no game ends where the pass puts no mass
    big = expected >= 5
    cells = np.append(expected[big], expected[~big].sum()), np.append(observed[big], observed[~big].sum())
    chi2 = float(((cells[1] - cells[0]) ** 2 / np.maximum(cells[0], 1e-300)).sum())
    dof = big.sum()
    assert chi2 < dof + 4 * np.sqrt(2 * dof), (chi2, dof)


def test_shipped_pmf_is_read_only_for_its_table(tmp_path):
    pmf = np.array([0.25, 0.0, 0.75])
    write_shipped_pmf(KNIFFEL7, pmf, "abc", "def", 1.5, tmp_path)
    assert np.array_equal(shipped_pmf(KNIFFEL7, "abc", tmp_path), pmf)
    assert shipped_pmf(KNIFFEL7, "other", tmp_path) is None
    stamp = json.loads((tmp_path / "kniffel7.pmf.json").read_text())
    assert stamp["table_sha256"] == "def" and stamp["mean"] == 1.5


def run(tmp_path, *args):
    return CliRunner().invoke(cli, ["--tables", str(tmp_path), "--no-progress", "--lang", "en", *args])


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_cli_announces_a_long_pass_then_caches_it(tmp_path, monkeypatch, k7):
    from solver.cli import statistics_commands

    monkeypatch.setattr(statistics_commands, "LONG_PASS_SECONDS", 0.0)
    res = run(tmp_path, "distribution", "kniffel7", "--card", ENDGAMES[1], "--json")
    assert res.exit_code == 0, res.output
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("kniffel: exact distribution of kniffel7")
    out = json.loads(res.stdout)
    values = k7[0]
    card = parse_card(KNIFFEL7, ENDGAMES[1])
    assert out["mean"] == pytest.approx(card.points + values[card.state], abs=1e-9)
    again = run(tmp_path, "distribution", "kniffel7", "--card", ENDGAMES[1], "--json")
    assert again.exit_code == 0 and again.stderr == "" and json.loads(again.stdout)["pmf"] == out["pmf"]
    odds = run(tmp_path, "odds", "kniffel7", "--card", ENDGAMES[1], "--card", ENDGAMES[1], "--json")
    assert odds.exit_code == 0 and odds.stderr == "", odds.output
    players = json.loads(odds.stdout)["players"]
    assert players[0]["win"] == pytest.approx(players[1]["win"]) and players[0]["expected_final_score"] == out["mean"]


def test_the_empty_cards_pmf_ships_with_its_table(tmp_path, k7):
    """solver/data holds the empty card's pmf (scripts/ship_distribution.py), stamped with the shipped table's
    digest (a table solved again makes it stale: this fails until the pmf is computed again). Its mean is the
    table's start value, and `distribution` and `odds kniffel7` from empty cards answer from it, with no pass."""
    values = k7[0]
    pmf = shipped_pmf(KNIFFEL7, values_digest(values))
    assert pmf is not None, "solver/data/kniffel7.pmf.*: missing, damaged or of another table"
    assert abs(np.arange(pmf.shape[0]) @ pmf - values[0, 0, 0]) < 1e-9 and abs(pmf.sum() - 1.0) < 1e-12
    assert dist.pmf_work(KNIFFEL7, values, Card(KNIFFEL7)) == (0, 0.0)
    res = run(tmp_path, "distribution", "kniffel7", "--json")
    assert res.exit_code == 0 and res.stderr == "", res.output
    out = json.loads(res.stdout)
    assert out["mean"] == pytest.approx(values[0, 0, 0], abs=1e-9)
    assert np.allclose(out["pmf"], pmf[: len(out["pmf"])], rtol=0, atol=1e-15)
    odds = run(tmp_path, "odds", "kniffel7", "--card", "", "--card", "", "--json")
    assert odds.exit_code == 0 and odds.stderr == "", odds.output
    players = json.loads(odds.stdout)["players"]
    assert players[0]["win"] == pytest.approx(players[1]["win"]) and 0.45 < players[0]["win"] < 0.5


def interval_cells(expected, observed, least):
    """Consecutive scores pooled into intervals of at least `least` expected games (the last interval takes
    the rest): the cells of a chi-square test."""
    cells, e, o = [], 0.0, 0
    for x, y in zip(expected, observed):
        e, o = e + x, o + y
        if e >= least:
            cells.append((e, o))
            e, o = 0.0, 0
    cells[-1] = (cells[-1][0] + e, cells[-1][1] + o)
    return np.array(cells).T


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_the_shipped_pmf_agrees_with_the_simulation(k7):
    """2,000 simulated games of Kniffel 7 from the empty card (fixed seed) against the shipped pmf: no game
    ends where the pmf has no mass; chi-square over score intervals of at least 40 expected games."""
    values = k7[0]
    pmf = shipped_pmf(KNIFFEL7, values_digest(values))
    assert pmf is not None
    n = 2000
    counts = tally(KNIFFEL7, values, n, seed=11).score_counts
    top = max(pmf.shape[0], counts.shape[0])
    expected, observed = np.pad(pmf, (0, top - pmf.shape[0])) * n, np.pad(counts, (0, top - counts.shape[0]))
    assert observed[expected == 0].sum() == 0
    cells_expected, cells_observed = interval_cells(expected, observed, 40.0)
    chi2 = float(((cells_observed - cells_expected) ** 2 / cells_expected).sum())
    dof = cells_expected.shape[0] - 1
    assert dof >= 30 and chi2 < dof + 4 * np.sqrt(2 * dof), (chi2, dof)


NAIVE_CARDS = [
    (ENDGAMES[0], True),  # 1 free box (chance): no tie moves mass
    (ENDGAMES[1], True),  # 2 free boxes
    (UPPER.replace("fours=12,", "") + ",four_of_a_kind=20,five_of_a_kind=25,double_triple=25,straight_five=30,"
     "straight_six=40,super_kniffel=60", False),  # fours and chance with Super-Points: tied keeps move mass
    (UPPER.replace(",sevens=21", "") + ",four_of_a_kind=20,double_triple=25,straight_five=30,straight_six=40,"
     "super_kniffel=0", False),  # 3 free boxes
]  # fmt: skip


@pytest.fixture
def naive7():
    import naive_kniffel7

    yield naive_kniffel7
    naive_kniffel7.clear_caches()


def naive_pmf(naive, filled, size):
    out = np.zeros(size)
    for score, q in naive.final_pmf_max_ev(filled).items():
        out[score] = q
    return out


@pytest.mark.parametrize(
    "text,untied", [NAIVE_CARDS[0], *(pytest.param(*c, marks=pytest.mark.slow) for c in NAIVE_CARDS[1:])]
)
@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_against_the_brute_force_reference(k7, naive7, monkeypatch, text, untied):
    """tests/naive_kniffel7.py, written apart: the same mean; the same pmf where no tie moves mass, and
    everywhere once the reference breaks ties among keeps as the advisor does (its own order differs
    among keeps of as many dice)."""
    values, _, engine = k7
    card = parse_card(KNIFFEL7, text)
    filled = {KNIFFEL7.boxes[b].key: p for b, p in card.filled.items()}
    pmf = dist.final_pmf(KNIFFEL7, values, card, engine)
    assert abs(naive7.expected_final(filled) - card.points - values[card.state]) < 1e-9
    size = pmf.shape[0] + 200
    ref = naive_pmf(naive7, filled, size)
    assert abs(ref @ np.arange(size) - pmf @ np.arange(pmf.shape[0])) < 1e-9
    if untied:
        assert np.abs(ref[: pmf.shape[0]] - pmf).max() < 1e-12 and ref[pmf.shape[0] :].sum() == 0
    ours = sorted(naive7.REROLLS, key=lambda r: (len(r), tuple(d for d in range(7) if d not in r)))
    monkeypatch.setattr(naive7, "REROLLS", ours)
    monkeypatch.setattr(naive7, "REROLL_MASK", np.array([[d in r for d in range(7)] for r in ours]))
    naive7.clear_caches()
    ref = naive_pmf(naive7, filled, size)
    assert np.abs(ref[: pmf.shape[0]] - pmf).max() < 1e-12 and ref[pmf.shape[0] :].sum() == 0


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_ctrl_c_leaves_no_cache(tmp_path, k7):
    """Ctrl-C during the pass (here: from its progress callback) stops it and writes nothing."""
    values, _, engine = k7
    card = parse_card(KNIFFEL7, ENDGAMES[1])

    def interrupt(k):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        dist.final_pmf(KNIFFEL7, values, card, engine, progress=interrupt, directory=tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_table_standings_wait_for_late_cards(k7):
    """`play --players`: the chances of winning come once the passes are short, and then exactly."""
    from solver.errors import KniffelError
    from solver.game.table_game import WinChances

    values, _, engine = k7
    chances = WinChances(KNIFFEL7, values, engine)
    with pytest.raises(KniffelError, match="later in the game"):
        chances([Card(KNIFFEL7), parse_card(KNIFFEL7, "chance=20")])
    late = [parse_card(KNIFFEL7, ENDGAMES[0]), parse_card(KNIFFEL7, ENDGAMES[1].replace("chance=28", "chance=20"))]
    wins, tie = chances(late)
    assert len(wins) == 2 and sum(wins) + tie == pytest.approx(1.0) and min(wins) >= 0
