"""The Python API's target play (solver/api/target_play.py) on identical dice: Table.chances and
Table.advise_target answer exactly what `kniffel chances --json` and `advise --target --json` print, from the
target table they build and save in the tables folder on first use; what they refuse is one KniffelError,
raised before any table is built. Dice told apart: tests/kniffel7_interpreted_cases.py (against the naive
solver) and the slow tests/test_ordered_job_answers.py (job_dir)."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

import solver
from solver.chances import targets
from solver.chances.targets import TargetError
from solver.cli import cli
from solver.store.target_tables import TargetTableMissing, target_paths

CARD = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,full=30,poker=40,generala=50"
SITUATIONS = [  # card, dice, roll, target, box_now
    ("", "11234", 1, 150, False),
    ("", "66665", 2, 200, False),
    ("sixes=24,poker=45", "12355", 3, 250, False),
    ("sixes=24,poker=45", "12355", 2, 250, True),
    (CARD, "23456", 1, 208, False),  # the stop now scores the Escalera servida
]


def run(folder, *args):
    res = CliRunner().invoke(cli, ["--tables", str(folder), "--no-progress", "--lang", "en", *args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def built(tables_of):
    """A generala table whose first chances() built and saved its target table (a few seconds)."""
    folder = tables_of("generala")
    table = solver.load("generala", tables_dir=folder, solve=False, progress=False)
    npy = target_paths(table.variant, folder)[0]
    assert not npy.exists()
    first = table.chances("", 200, progress=False)
    assert npy.exists()
    return table, folder, first


def test_chances_equal_the_clis(built):
    table, folder, first = built
    assert first.as_dict() == run(folder, "chances", "generala", "--target", "200", "--json")
    assert 0.1 < first.probability < 0.3 and first.probability >= first.probability_expected_play - 1e-12
    for card, target in [(CARD, 208), ("sixes=24,poker=45", 300), ({"generala": 50}, 100)]:
        text = table.card(card).format()
        assert table.chances(card, target).as_dict() == run(
            folder, "chances", "generala", "--card", text, "--target", str(target), "--json"
        )


@pytest.mark.parametrize("card,dice,roll,target,box_now", SITUATIONS)
def test_advise_target_equals_the_clis(built, card, dice, roll, target, box_now):
    table, folder, _ = built
    advice = table.advise_target(card, dice, roll, target, box_now=box_now)
    args = ["advise", "generala", "--card", card, "--dice", dice, "--roll", str(roll), "--target", str(target)]
    assert advice.as_dict(all_options=True) == run(folder, *args, *(["--box"] if box_now else []), "--all", "--json")
    assert advice.best is advice.options[0] and advice.target == target


def test_the_saved_table_is_loaded_not_built_again(built, monkeypatch):
    table, folder, first = built

    def no_build(*_args, **_kwargs):
        raise AssertionError("built again")

    monkeypatch.setattr(targets, "build_and_save", no_build)
    assert table.chances("", 200) == first  # this Table's table, kept
    again = solver.load("generala", tables_dir=folder, solve=False)
    assert again.chances("", 200, build=False) == first  # another Table: read from the folder
    assert isinstance(again._target_tables[0].flat, np.memmap)  # the saved file, memory-mapped
    advice = again.advise_target(CARD, "23456", 1, 208, build=False)
    assert advice.as_dict(all_options=True) == table.advise_target(CARD, "23456", 1, 208).as_dict(all_options=True)


def test_numpy_numbers_and_flags(built):
    """limit takes numpy numbers as every number of the API does; as_dict's flag is a flag (was: any truthy value)."""
    table, _, first = built
    for limit in (np.int64(5), np.float32(2.5), 10**30):
        assert table.chances("", 200, limit=limit) == first
    advice = table.advise_target(CARD, "23456", 1, 208)
    assert len(advice.as_dict(np.bool_(False))["options"]) == 10 < len(advice.as_dict(1)["options"])
    with pytest.raises(solver.KniffelError, match="all_options must be True or False, not 'no'"):
        advice.as_dict("no")


def test_the_answers_and_errors_are_the_packages(built):
    table, _, first = built
    assert isinstance(first, solver.Chances) and isinstance(
        table.advise_target(CARD, "23456", 1, 208), solver.TargetAdvice
    )
    assert issubclass(solver.TargetError, solver.KniffelError) and issubclass(
        solver.TargetTableMissing, solver.KniffelError
    )


def test_build_false_on_a_folder_without_the_target_table(tables_of):
    folder = tables_of("generala")
    table = solver.load("generala", tables_dir=folder, solve=False)
    with pytest.raises(TargetTableMissing):
        table.chances("", 200, build=False)
    with pytest.raises(TargetTableMissing):
        table.advise_target("", "11234", 1, 200, build=False)
    assert not target_paths(table.variant, folder)[0].exists()


@pytest.mark.parametrize(
    "call,message",
    [
        (lambda t: t.chances("", 0), "target must be a whole number of at least 1, not 0"),
        (lambda t: t.chances("", "200"), "target must be a whole number of at least 1, not '200'"),
        (lambda t: t.chances("", True), "target must be a whole number of at least 1, not True"),
        (lambda t: t.chances("", 200.0), "target must be a whole number of at least 1, not 200.0"),
        (lambda t: t.chances("", 400), "the generala target table reaches 360 more points"),
        (lambda t: t.chances(CARD + ",escalera=20,doble_generala=0", 300), "full"),
        (lambda t: t.chances("", 200, job_dir="job"), "job_dir: generala answers from its target table"),
        (lambda t: t.chances("", 200, build="yes"), "build must be True or False, not 'yes'"),
        (lambda t: t.chances("", 200, progress=None), "progress must be True or False, not None"),
        (lambda t: t.chances("", 200, limit=float("nan")), "limit must be a number of seconds of at least 0"),
        (lambda t: t.chances("", 200, limit=10**400), "limit must be a number of seconds of at least 0"),
        (lambda t: t.chances("", 200, limit=np.bool_(True)), "limit must be a number of seconds of at least 0"),
        (lambda t: t.advise_target("", "11234", 4, 200), "roll must be 1, 2 or 3, not 4"),
        (lambda t: t.advise_target("", "1123", 1, 200), "dice"),
        (lambda t: t.advise_target("", "11234", 1, -5), "target must be a whole number of at least 1, not -5"),
        (lambda t: t.advise_target("", "11234", 1, 200, box_now="no"), "box_now must be True or False"),
    ],
)
def test_refusals_come_before_any_build(tables_of, call, message):
    folder = tables_of("generala")
    table = solver.load("generala", tables_dir=folder, solve=False)
    with pytest.raises(solver.KniffelError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(table)
    assert not target_paths(table.variant, folder)[0].exists()


def test_dice_told_apart_refuse_a_bad_limit_and_a_missing_job_folder(tmp_path):
    table = solver.load("kniffel7", solve=False)  # the shipped table: nothing compiles before these refusals
    with pytest.raises(TargetError, match="limit must be a number of seconds"):
        table.chances("", 300, limit=-1)
    with pytest.raises(TargetError, match="limit must be a number of seconds"):
        table.advise_target("", "2145676", 1, 300, limit="soon")
    with pytest.raises(solver.KniffelError, match=str(tmp_path / "nothing")):
        table.chances("", 300, job_dir=tmp_path / "nothing")
    with pytest.raises(TargetError, match="target 2000: no game of kniffel7 ends above"):
        table.chances("", 2000)
    for call in (
        lambda: table.chances("", 300, limit=0, build="yes"),
        lambda: table.advise_target("", "2145676", 1, 300, build=None),
    ):
        with pytest.raises(solver.KniffelError, match="build must be True or False"):
            call()  # dice told apart build nothing, but a junk flag is refused there too
