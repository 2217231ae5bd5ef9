"""Kniffel 7's target table (dice told apart) through the job path (issue 28 step 4): its end-game layers,
chunked or not, bit for bit the exact on-demand computation of solver/chances/target_ordered.py from a card.
Both run the same kernel (dp/ordered_target.py) on the same next-state probabilities, column by column, so
the bits agree, not only to 1e-12."""

import json

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import items_cut, same_bits

from solver import dp
from solver.chances import target_ordered
from solver.chances.distribution import max_score
from solver.cli import cli
from solver.dp.ordered_target import SECONDS_PER_COLUMN
from solver.dp.target_layout import item_lengths, max_remaining
from solver.jobs.build import open_job, run_job, target_table
from solver.jobs.executors import ThreadExecutor
from solver.jobs.folder import JobError, JobFolder
from solver.jobs.task import job_engine
from solver.rules.presets import PRESETS

KNIFFEL7 = PRESETS["kniffel7"]
LAST = len(KNIFFEL7.boxes) - 1  # one box free: the quick tests' layer
N = 6


def build(path, from_filled, n_max, chunk_seconds):
    job = open_job(KNIFFEL7, "target", path, n_max=n_max, chunk_seconds=chunk_seconds, from_filled=from_filled)
    run_job(job, KNIFFEL7, ThreadExecutor(2))
    return job


def check_against_on_demand(flat, layout, from_filled, n_max, per_layer, seed=7):
    """Sample cards of every built layer: every need 1..n_max equals target_ordered's, bit for bit."""
    engine = dp.make_engine(KNIFFEL7, allow_slow=True)
    upper = engine.upper
    rng = np.random.default_rng(seed)
    checked = 0
    for n_filled in range(LAST, from_filled - 1, -1):
        masks, flags = dp.layer_items(KNIFFEL7, n_filled)
        for i in rng.choice(len(masks), per_layer, replace=False):
            mask, flag = int(masks[i]), int(flags[i])
            row = upper.row[mask, flag]
            u = int(rng.choice(np.flatnonzero(upper.reachable[row])))
            state = (mask, u, flag)
            exact = target_ordered.compute(engine, target_ordered.plan(engine, state, np.arange(1, n_max + 1)))
            length = layout.length[mask, flag]
            at = layout.offset[mask, flag] + layout.col[row, u] * length
            for need in range(1, n_max + 1):
                got = flat[at + need - 1] if need <= length else 0.0
                assert got == exact.probability(state, need), (state, need)
                checked += 1
    assert checked == (LAST - from_filled + 1) * per_layer * n_max


@pytest.fixture(scope="module")
def last_layer(tmp_path_factory):
    job = build(tmp_path_factory.mktemp("k7") / "many", LAST, N, chunk_seconds=0.2)
    assert len(job.plan) == 1 and len(job.plan[0]["chunks"]) > 1 and items_cut(job, job_engine(KNIFFEL7))
    return target_table(job, KNIFFEL7)


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_many_chunks_equal_one_chunk(last_layer, tmp_path):
    job = build(tmp_path / "one", LAST, N, chunk_seconds=1e9)
    assert len(job.plan[0]["chunks"]) == 1
    flat, layout = target_table(job, KNIFFEL7)
    assert same_bits(flat, last_layer[0]) and layout.size == flat.size
    assert not np.isnan(flat).any()


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_equal_to_on_demand_computation(last_layer):
    check_against_on_demand(*last_layer, from_filled=LAST, n_max=N, per_layer=8)


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_other_first_layer_refused(last_layer, tmp_path):
    """The folder's manifest names its first layer: another is refused (no layer need be built for that)."""
    open_job(KNIFFEL7, "target", tmp_path / "job", n_max=2, chunk_seconds=1e9, from_filled=LAST)
    with pytest.raises(JobError, match=f">= {LAST - 1}"):
        open_job(KNIFFEL7, "target", tmp_path / "job", n_max=2, from_filled=LAST - 1)


@pytest.mark.parametrize(
    "name, down_to",
    [("kniffel", 9), pytest.param("kniffel7", 10, marks=pytest.mark.slow)],  # Kniffel 7's whole pass: about 12 s
)
def test_end_game_max_remaining_is_the_whole_passes_rows(name, down_to):
    """An end-game job computes max_remaining only down to its first layer: those rows (and so the item
    lengths) equal the whole pass's, the layers below stay NaN."""
    engine = job_engine(PRESETS[name])
    whole, part = max_remaining(engine), max_remaining(engine, down_to)
    filled = np.array([bin(mask).count("1") for mask in range(whole.shape[0])])
    needed = filled >= down_to
    assert np.array_equal(part[needed], whole[needed], equal_nan=True) and not np.isnan(part[needed]).all()
    assert np.isnan(part[~needed]).all()
    n_max = max_score(PRESETS[name])
    lengths_whole, lengths_part = item_lengths(engine, n_max, whole), item_lengths(engine, n_max, part)
    assert np.array_equal(lengths_part[needed], lengths_whole[needed])


def test_default_n_is_the_highest_score():
    assert max_score(KNIFFEL7) == 910  # the empty card's max_remaining (measured; docs/cluster.md)


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_cli_builds_and_tells_status(tmp_path):
    def run(*args):
        return CliRunner().invoke(cli, ["--tables", str(tmp_path), "--lang", "en", "--no-progress", *args])

    job_dir = tmp_path / "jobs"
    res = run("solve", "kniffel7", "--target", "--job-dir", str(job_dir), "--from-filled", str(LAST), "--n-max", "3")
    assert res.exit_code == 0, res.output
    assert f"{LAST} or more boxes filled, needs 1..3" in res.output
    assert (job_dir / "target" / f"layer-{LAST:02d}.npy").exists()
    res = run("solve", "--status", str(job_dir))
    assert res.exit_code == 0 and "kniffel7 target table N 3, 1/1 layers done" in res.output, res.output
    again = ["--target", "--job-dir", str(job_dir), "--from-filled", str(LAST), "--n-max", "3", "--json"]
    res = run("solve", "kniffel7", *again)  # done: answered from the folder, as JSON alone on stdout
    assert res.exit_code == 0 and res.stderr == "", res.output
    size = target_table(JobFolder.read(job_dir / "target"), PRESETS["kniffel7"])[1].size
    assert json.loads(res.stdout) | {"seconds": 0} == {
        "variant": "kniffel7", "from_filled": LAST, "n_max": 3, "values": size, "path": str(job_dir / "target"),
        "seconds": 0,
    }  # fmt: skip
    res = run("solve", "kniffel", "--job-dir", str(job_dir), "--from-filled", "3")
    assert res.exit_code == 2 and "--from-filled and --n-max are for the target table" in res.output


@pytest.mark.slow
def test_two_layers_equal_to_on_demand_computation(tmp_path):
    """Layers 13 and 12 filled (the second reads the first's file), N 4: about a minute of CPU."""
    job = build(tmp_path / "job", LAST - 1, 4, chunk_seconds=5)
    check_against_on_demand(*target_table(job, KNIFFEL7), from_filled=LAST - 1, n_max=4, per_layer=6)


def test_a_job_says_what_is_left_and_how_long_before_it_starts(tmp_path, monkeypatch):
    """Issue 27: a wait of hours is announced. The line for Kniffel 7's end game at N 910: every chunk of the
    four layers, the CPU by the plan's measured seconds a column, the wall on the executor's cores."""
    import solver.jobs.build

    def stopped(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(solver.jobs.build, "run_job", stopped)
    job_dir = tmp_path / "jobs"
    args = ["--tables", str(tmp_path), "--lang", "en", "--threads", "2", "--no-progress"]
    res = CliRunner().invoke(cli, [*args, "solve", "kniffel7", "--target", "--job-dir", str(job_dir)])
    assert res.exit_code == 130, res.output
    job = JobFolder.read(job_dir / "target")
    chunks = sum(len(layer["chunks"]) for layer in job.plan)
    hours = sum(layer["cost"] for layer in job.plan) * SECONDS_PER_COLUMN / 3600
    assert len(job.plan) == 4 and hours > 10 and len(res.stderr.splitlines()) == 2  # and `kniffel: interrupted`
    said = res.stderr.splitlines()[0]
    assert said == (
        f"kniffel: kniffel7: target table job in {job_dir / 'target'}: {chunks:,} chunks to build, "
        f"about {round(hours)} h of CPU, about {round(hours / 2)} h of wall time (cores: 2); stop it at any time: the "
        "same command continues"
    )
