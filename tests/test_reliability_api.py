"""Issue 25, item 7: every public entry point fed junk (Hypothesis) gives a correct answer or KniffelError,
never another exception; bools are not numbers, floats are not whole numbers, even 3.0."""

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import solver
from solver.advice.batch import decode_option

QUICK = settings(
    max_examples=25,  # per entry point: 47 of them, about 1,200 junk values of every kind a run
    deadline=None,  # the first call of a kernel compiles or loads it: seconds
    suppress_health_check=list(HealthCheck),
)
FULL_EARLY = "kniffel=50,chance=20,einser=3,zweier=6,dreier=9,vierer=12,fuenfer=15,sechser=18,dreierpasch=20"
LATE = FULL_EARLY + ",viererpasch=20,full house=25"

scalars = (
    st.floats(allow_nan=True, allow_infinity=True)
    | st.integers(-(2**70), 2**70)
    | st.booleans()
    | st.none()
    | st.text(max_size=6)
    | st.binary(max_size=4)
    | st.sampled_from([np.int64(3), np.uint64(2**64 - 1), np.float64(2.0), np.bool_(True), 1e20, "False", 3.7])
)
junk = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner))


@pytest.fixture(scope="module")
def table(tables_of):
    return solver.load("kniffel", tables_dir=tables_of("kniffel"), progress=False)


def answers_or_refuses(call):
    """The call's answer, or None when it raised KniffelError (anything else fails the test)."""
    try:
        return call()
    except solver.KniffelError as exc:
        assert str(exc) and "\n" not in str(exc)
        return None


# -- the cases of the issue ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "args, fragment",
    [
        ((2048, 0, "False"), "joker must be True or False, not 'False'"),
        ((3.7, 0), "mask must be a whole number from 0 to 8191, not 3.7"),
        ((float("nan"), 0), "mask must be a whole number"),
        ((0, float("inf")), "upper must be a whole number of at least 0, not inf"),
        ((None, 0), "not None"),
        (([1], 0), "not [1]"),
        ((True, 0), "not True"),
        ((2.0, 0), "not 2.0"),
    ],
)
def test_state_value_refuses(table, args, fragment):
    with pytest.raises(solver.KniffelError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        table.state_value(*args)


def test_state_value_takes_numpy_integers_and_bools_for_the_flag(table):
    assert table.state_value(np.int64(2048), np.uint8(0), np.bool_(True)) == table.state_value(2048, 0, True)
    assert table.state_value(2048, 0, 1) == table.state_value(2048, 0, True)


@pytest.mark.parametrize("folder", [123, "\x00", Path("tables\x00"), b"t\x00"])
def test_load_refuses_a_tables_dir_that_is_no_path(folder):
    """A NUL is in no path: Hypothesis found "\x00" raising ValueError (embedded null byte) from Path.resolve."""
    with pytest.raises(solver.KniffelError, match="tables_dir must be a folder path"):
        solver.load("kniffel", tables_dir=folder, solve=False)


def test_load_says_a_tables_dir_name_is_too_long():
    """The file system's refusal (ENAMETOOLONG) in words, not an OSError out of Path.exists."""
    with pytest.raises(solver.KniffelError, match="the name is too long"):
        solver.load("kniffel", tables_dir="x" * 5000, solve=False)


@pytest.mark.parametrize("bad", [1e20, [1e20], 10**19, np.uint64(2**64 - 1), [1.0], [True], ["1"]])
def test_batches_refuse_what_has_no_int64(table, bad):
    """Was: 1e20 reported as -9223372036854775808; whole floats and bools were taken as integers."""
    with pytest.raises(solver.KniffelError, match="mask: expected integers") as info:
        table.option_values_batch(bad, [0], [0], [[1, 2, 3, 4, 5]], [1])
    assert "-9223372036854775808" not in str(info.value)
    with pytest.raises(solver.KniffelError, match="mask: expected integers"):
        table.state_values(bad, [0], [0])


@pytest.mark.parametrize("name", ["mask", "upper", "joker", "dice", "roll"])
def test_batches_refuse_a_ragged_list(table, name):
    args = {"mask": [0, 0], "upper": [0, 0], "joker": [0, 0], "dice": [[1, 2, 3, 4, 5]] * 2, "roll": [1, 1]}
    args[name] = [[1], [1, 2]] if name != "dice" else [[1, 2, 3, 4, 5], [1, 2]]
    with pytest.raises(solver.KniffelError, match=f"{name}: expected an array of integers"):
        table.option_values_batch(**args)


@pytest.mark.parametrize("code", ["x", 3.7, None, True, [1]])
def test_decode_option_refuses(table, code):
    with pytest.raises(solver.KniffelError, match="option code"):
        decode_option(table.advisor.engine, code)


@pytest.mark.parametrize(
    "dice, fragment",
    [
        (np.array(200), "not array(200)"),  # was a TypeError (a 0-d array cannot be listed)
        (np.array([[1, 2, 3, 4, 5]]), "dice are a string such as"),
        ([200], "dice '200': 1 die given"),  # was read as three dice, '2,0,0'
        (b"200", "not b'200'"),  # was read as the faces 50, 48, 48
        ([], "0 dice given"),
    ],
)
def test_as_dice_says_what_was_given(table, dice, fragment):
    with pytest.raises(solver.KniffelError, match=re.escape(fragment)):
        solver.as_dice(table.variant, dice)


def test_simulate_refuses_more_games_than_the_cli_allows(table):
    """Was: a bare MemoryError for 10**12 games."""
    with pytest.raises(solver.KniffelError, match="games must be a whole number from 2 to 100000000"):
        solver.simulate(table, games=10**12)


# -- everything fed junk ---------------------------------------------------------------------------
ENTRY_POINTS = {
    "load.variant": lambda t, j: solver.load(j, tables_dir=t.directory, solve=False),
    "load.tables_dir": lambda t, j: solver.load("kniffel", tables_dir=j, solve=False),
    "load.flags": lambda t, j: solver.load("kniffel", tables_dir=t.directory, solve=j, progress=j, keep_one=j),
    "find_variant": lambda t, j: solver.find_variant(j),
    "find_variant.keep_one": lambda t, j: solver.find_variant("kniffel", j),
    "as_card": lambda t, j: solver.as_card(t.variant, j),
    "as_card.variant": lambda t, j: solver.as_card(j, ""),
    "as_dice": lambda t, j: solver.as_dice(t.variant, j),
    "as_dice.variant": lambda t, j: solver.as_dice(j, "12345"),
    "value": lambda t, j: t.value(j),
    "future": lambda t, j: t.future(j),
    "card": lambda t, j: t.card(j),
    "state_value.mask": lambda t, j: t.state_value(j, 0),
    "state_value.upper": lambda t, j: t.state_value(0, j),
    "state_value.joker": lambda t, j: t.state_value(2048, 0, j),
    "advise.dice": lambda t, j: t.advise("", j, 1),
    "advise.roll": lambda t, j: t.advise("", "12345", j),
    "advise.flags": lambda t, j: t.advise("", "12345", 3, box_now=j, spread=False),
    "best_action.card": lambda t, j: t.best_action(j, "12345", 1),
    "best_action.roll": lambda t, j: t.best_action("", "12345", j),
    "distribution.at_least": lambda t, j: t.distribution(LATE, j),
    "odds.cards": lambda t, j: t.odds(j),
    "odds.names": lambda t, j: t.odds([LATE, LATE], j),
    "state_values": lambda t, j: t.state_values(j, j, j),
    "option_values_batch.mask": lambda t, j: t.option_values_batch(j, 0, 0, [[1, 2, 3, 4, 5]], 1),
    "option_values_batch.upper": lambda t, j: t.option_values_batch(0, j, 0, [[1, 2, 3, 4, 5]], 1),
    "option_values_batch.joker": lambda t, j: t.option_values_batch(0, 0, j, [[1, 2, 3, 4, 5]], 1),
    "option_values_batch.dice": lambda t, j: t.option_values_batch(0, 0, 0, j, 1),
    "option_values_batch.roll": lambda t, j: t.option_values_batch(0, 0, 0, [[1, 2, 3, 4, 5]], j),
    "decode_option.engine": lambda t, j: decode_option(j, 0),
    "decode_option.code": lambda t, j: decode_option(t.advisor.engine, j),
    "decode_option.mask": lambda t, j: decode_option(t.advisor.engine, 0, j, 0, [1, 1, 1, 2, 2]),
    "decode_option.joker": lambda t, j: decode_option(t.advisor.engine, 0, 0, j, [1, 1, 1, 2, 2]),
    "decode_option.dice": lambda t, j: decode_option(t.advisor.engine, 0, 0, 0, j),
    "simulate.games": lambda t, j: solver.simulate(t, j if not isinstance(j, int) or j > 100 else 3),
    "simulate.seed": lambda t, j: solver.simulate(t, 3, j),
    "simulate.variant": lambda t, j: solver.simulate(j, 3, tables_dir=t.directory),
    "simulate.progress": lambda t, j: solver.simulate(t, 3, progress=j),
    "Advice.as_dict": lambda t, j: t.advise("", "12345", 1).as_dict(j),
    # target play, build=False: the folder has no target table, so an answer is refused only after the checks
    "chances.card": lambda t, j: t.chances(j, 300, build=False),
    "chances.target": lambda t, j: t.chances("", j, build=False),
    "chances.progress": lambda t, j: t.chances("", 300, build=False, progress=j),
    "chances.job_dir": lambda t, j: t.chances("", 300, build=False, job_dir=j),
    "chances.limit": lambda t, j: t.chances("", 300, build=False, limit=j),
    "advise_target.dice": lambda t, j: t.advise_target("", j, 1, 300, build=False),
    "advise_target.roll": lambda t, j: t.advise_target("", "12345", j, 300, build=False),
    "advise_target.box_now": lambda t, j: t.advise_target("", "12345", 3, 300, build=False, box_now=j),
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@QUICK
@given(value=junk)
def test_junk_gives_an_answer_or_kniffel_error(table, entry, value):
    answers_or_refuses(lambda: ENTRY_POINTS[entry](table, value))


# -- item 6: simulation in bounded memory ----------------------------------------------------------
def numpy_summary(scores: np.ndarray) -> dict:
    """The figures as 0.1.0 computed them from every game's score (solver/chances/simulation.py, summary)."""
    s = scores.astype(np.float64)
    return {
        "mean": float(s.mean()),
        "std": float(s.std(ddof=1)) if len(s) > 1 else 0.0,
        "median": float(np.median(s)),
        "min": int(s.min()),
        "max": int(s.max()),
        "percentiles": {str(p): float(np.percentile(s, p)) for p in (1, 5, 25, 75, 95, 99)},
        "p_at_least": {str(t): float((s >= t).mean()) for t in (200, 250, 300, 400)},
    }


RUNS = [("kniffel", 1, 1), ("kniffel", 2, 3), ("kniffel", 777, 5), ("kniffel", 4000, 7), ("yahtzee", 1001, 2)]


@pytest.mark.parametrize(
    "variant, games, seed",
    [*RUNS, ("yacht", 2500, 9), pytest.param("yatzy", 2500, 9, marks=pytest.mark.slow)],  # no joker flag
)
def test_counts_give_the_figures_of_the_scores(solved, monkeypatch, variant, games, seed):
    """Counted batch by batch, the figures are those numpy gives for the list of scores: identical, but for
    std, whose variance is now exact (numpy's sum of squares may differ in the last bit)."""
    from solver.chances import simulation as sim
    from solver.rules.presets import PRESETS

    v, values = PRESETS[variant], solved(variant)
    every = sim.simulate(v, values, games, seed=seed)
    monkeypatch.setattr(sim, "BATCH", 300)  # many batches: the counts add up across them
    got = sim.summary(sim.tally(v, values, games, seed=seed))
    want = numpy_summary(every.scores)
    assert got["std"] == pytest.approx(want.pop("std"), rel=1e-13, abs=1e-13)
    assert {k: got[k] for k in want} == want
    for i, b in enumerate(v.boxes):
        assert got["boxes"][b.key]["mean"] == float(every.boxes[:, i].mean())
        assert got["boxes"][b.key]["zero_rate"] == float((every.boxes[:, i] == 0).mean())


def test_scores_are_kept_for_small_runs_only(solved, monkeypatch):
    from solver.chances import simulation as sim
    from solver.rules.presets import KNIFFEL

    monkeypatch.setattr(sim, "BATCH", 100)
    monkeypatch.setattr(sim, "SCORES_KEPT", 250)
    values = solved("kniffel")
    small, large = sim.tally(KNIFFEL, values, 250, seed=1), sim.tally(KNIFFEL, values, 251, seed=1)
    assert np.array_equal(small.scores, sim.simulate(KNIFFEL, values, 250, seed=1).scores)
    assert large.scores is None and large.score_counts.sum() == 251
    assert (large.score_counts[: len(small.score_counts)] >= small.score_counts).all()  # one game more
