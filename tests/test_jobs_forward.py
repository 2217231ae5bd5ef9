"""Kniffel 7's forward pass as a job (solver/jobs/forward_job.py): the pmf is the in-process ordered_pmf's bit
for bit, whatever the chunks and the executor (threads; Dask LocalCluster(2 x 1), slow); a run killed by SIGKILL
mid-layer, deleted or truncated shards and damaged checkpoints resume to the same bits; a folder of another
card, kind or table is refused in one line; the CLI's --job-dir, its status and the shipped pmf's checksum."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from click.testing import CliRunner

from solver import dp
from solver.advice.cards import parse_card
from solver.cli import cli
from solver.dp.forward_ordered_layers import ordered_pmf
from solver.jobs import forward_job as fj
from solver.jobs.executors import ThreadExecutor
from solver.jobs.folder import JobError
from solver.rules.presets import KNIFFEL7
from solver.store import solving, tables
from solver.store.shipped_pmf import shipped_pmf, write_shipped_pmf

# 10 boxes filled, 4 free: about 60 turn states, a second or two of the kernel
CARD = "ones=3,twos=6,threes=9,fours=12,fives=15,sixes=18,sevens=21,four_of_a_kind=20,double_triple=0,straight_five=30"
OTHER = CARD + ",chance=28"


class Stop(Exception):
    pass


@pytest.fixture(scope="module")
def k7():
    values, _ = solving.load_table(KNIFFEL7, tables.tables_dir())
    engine = dp.make_engine(KNIFFEL7, allow_slow=True)
    state = parse_card(KNIFFEL7, CARD).state
    return values, state, ordered_pmf(engine, values, *state, 0, 2)


def same_bits(a, b) -> bool:
    return a.shape == b.shape and bool((a.view(np.int64) == b.view(np.int64)).all())


def run(path, k7, executor=None, chunk_seconds=0.05, progress=None):
    values, state, _ = k7
    job = fj.open_forward_job(KNIFFEL7, path, values, state, chunk_seconds, card_text=CARD)
    return fj.run_forward_job(job, KNIFFEL7, tables.tables_dir(), values, executor or ThreadExecutor(2), progress)


def stop_in_layer(path, k7, layer: int, after: int):
    """Run until `after` states of the card's layer + `layer` are done, then stop (as an interrupted run)."""
    first = bin(k7[1][0]).count("1")
    seen = {}

    def progress(k):
        at = max(int(k) for k in fj.record(fj.JobFolder.read(path))["checkpoints"])
        seen[at] = seen.get(at, 0) + k
        if at == first + layer and seen[at] >= after:
            raise Stop

    with pytest.raises(Stop):
        run(path, k7, ThreadExecutor(1), 1e-6, progress)


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
@pytest.mark.parametrize("chunk_seconds", [1e-6, 0.05, 1e6])  # one state a chunk, a few, one chunk a layer
def test_job_equals_in_process_bit_for_bit(k7, tmp_path, chunk_seconds):
    pmf = run(tmp_path / "job", k7, chunk_seconds=chunk_seconds)
    assert same_bits(pmf, k7[2])
    assert same_bits(run(tmp_path / "job", k7), k7[2])  # a finished job answers from its pmf.npy
    assert sorted(p.name for p in (tmp_path / "job").iterdir()) == [fj.RECORD, "job.json", "marks", fj.PMF, "shards"]


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_chunks_of_a_layer_by_its_state_count(k7, tmp_path):
    values, state, _ = k7
    job = fj.open_forward_job(KNIFFEL7, tmp_path, values, state)
    assert fj.layer_chunks(job, 10) == [(0, 10)]  # a layer of 0.25 s: chunks of 1 s at least
    assert fj.layer_chunks(job, 400) == [(i, i + 40) for i in range(0, 400, 40)]
    big = fj.layer_chunks(job, 100_000)  # 2,500 s: chunks of a minute, 2,400 states at 0.025 s a state
    assert big[0] == (0, 2400) and big[-1][1] == 100_000 and len(big) == 42


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_interrupted_run_resumes_reusing_its_shards(k7, tmp_path, monkeypatch):
    stop_in_layer(tmp_path, k7, 1, 5)
    done = sorted(p.name for p in (tmp_path / "marks").iterdir())
    assert done, "shards of the interrupted layer"
    ran = []
    real = fj.run_forward_chunk
    monkeypatch.setattr(fj, "run_forward_chunk", lambda task: ran.append(task) or real(task))
    assert same_bits(run(tmp_path, k7, ThreadExecutor(1), 1e-6), k7[2])
    first = bin(k7[1][0]).count("1")
    assert not any(t.filled == first for t in ran)  # the finished layer: from its checkpoint
    assert {(t.filled, t.chunk) for t in ran if t.filled == first + 1}.isdisjoint(
        (first + 1, int(name[-12:-7])) for name in done
    )  # the shards found whole are not built again


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_sigkill_mid_layer_resumes_to_the_same_bits(k7, tmp_path):
    """A child process runs the job and is killed (SIGKILL) once it is inside a layer with shards written;
    the rerun here gives the same bits."""
    ready = tmp_path / "ready"
    child = f"""
import time
from pathlib import Path
from solver.advice.cards import parse_card
from solver.jobs import forward_job as fj
from solver.jobs.executors import ThreadExecutor
from solver.rules.presets import KNIFFEL7
from solver.store import solving, tables
values, _ = solving.load_table(KNIFFEL7, tables.tables_dir())
job = fj.open_forward_job(KNIFFEL7, Path({str(tmp_path / "job")!r}), values, parse_card(KNIFFEL7, {CARD!r}).state, 1e-6)
seen = [0]
def progress(k):
    seen[0] += k
    if seen[0] >= 8:
        Path({str(ready)!r}).write_text("x")
        time.sleep(600)
fj.run_forward_job(job, KNIFFEL7, tables.tables_dir(), values, ThreadExecutor(1), progress)
"""
    proc = subprocess.Popen([sys.executable, "-c", child])
    try:
        deadline = time.monotonic() + 240
        while not ready.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ready.exists(), "the child did not reach the layer"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert list((tmp_path / "job" / "marks").iterdir()) and not (tmp_path / "job" / fj.PMF).exists()
    assert same_bits(run(tmp_path / "job", k7, ThreadExecutor(1), 1e-6), k7[2])


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
@pytest.mark.parametrize("damage", ["delete shard", "truncate shard", "garble mark", "checkpoint", "two checkpoints"])
def test_damaged_files_are_rebuilt(k7, tmp_path, damage):
    stop_in_layer(tmp_path, k7, 2, 4)
    checkpoints = sorted(int(k) for k in fj.record(fj.JobFolder.read(tmp_path))["checkpoints"])
    shards = sorted((tmp_path / "shards").iterdir())
    assert len(checkpoints) == 2 and shards
    if damage == "delete shard":
        shards[0].unlink()
    elif damage == "truncate shard":
        shards[-1].write_bytes(shards[-1].read_bytes()[:-8])
    elif damage == "garble mark":
        next((tmp_path / "marks").iterdir()).write_text("0" * 64)
    else:
        for k in checkpoints[-1:] if damage == "checkpoint" else checkpoints:
            mass = tmp_path / f"mass-{k:02d}.npy"
            raw = bytearray(mass.read_bytes())
            raw[-1] ^= 1
            mass.write_bytes(bytes(raw))
    assert same_bits(run(tmp_path, k7, ThreadExecutor(2), 1e-6), k7[2])


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_a_folder_of_another_card_kind_or_table_is_refused_in_one_line(k7, tmp_path):
    values, state, _ = k7
    fj.open_forward_job(KNIFFEL7, tmp_path, values, state)
    with pytest.raises(JobError) as err:
        fj.open_forward_job(KNIFFEL7, tmp_path, values, parse_card(KNIFFEL7, OTHER).state)
    assert "\n" not in str(err.value) and "card [1791" in str(err.value)
    changed = values.copy()
    changed[0, 0, 0] += 1e-9
    with pytest.raises(JobError, match="values_sha256"):
        fj.open_forward_job(KNIFFEL7, tmp_path, changed, state)
    from solver.jobs.build import open_job

    with pytest.raises(JobError, match="forward"):
        open_job(KNIFFEL7, "target", tmp_path, n_max=5, from_filled=13)


def cli_run(tmp_path, *args):
    (tmp_path / "tables").mkdir(parents=True, exist_ok=True)  # the pmf cache is written into an existing folder
    return CliRunner().invoke(cli, ["--tables", str(tmp_path / "tables"), "--no-progress", "--lang", "en", *args])


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_cli_job_dir_status_and_refusals(k7, tmp_path):
    plain = cli_run(tmp_path / "plain", "distribution", "kniffel7", "--card", CARD, "--json")
    job = cli_run(tmp_path, "distribution", "kniffel7", "--card", CARD, "--json", "--job-dir", str(tmp_path / "j"))
    assert plain.exit_code == 0 and job.exit_code == 0, job.output
    assert json.loads(job.stdout)["pmf"] == json.loads(plain.stdout)["pmf"]
    status = cli_run(tmp_path, "solve", "--status", str(tmp_path / "j"))
    assert status.exit_code == 0 and "finished (mean " in status.stdout, status.output
    again = cli_run(tmp_path, "distribution", "kniffel7", "--card", CARD, "--json", "--job-dir", str(tmp_path / "j2"))
    assert again.exit_code == 0 and not (tmp_path / "j2").exists()  # from the cache
    assert json.loads(again.stdout)["pmf"] == json.loads(job.stdout)["pmf"]
    for args, text in (
        (["kniffel7", "--card", OTHER, "--job-dir", str(tmp_path / "j")], "holds a build of kniffel7 forward"),
        (["kniffel7", "--workers", "2"], "go with --job-dir"),
        (["kniffel7", "--workers", "2", "--scheduler", "tcp://x:1", "--job-dir", "d"], "not both"),
        (["kniffel", "--job-dir", str(tmp_path / "k")], "dice told apart"),
        (["kniffel7", "--job-dir", ""], "give a folder name"),
    ):
        res = cli_run(tmp_path, "distribution", *args)
        assert res.exit_code == 2 and res.stderr.count("\n") == 1 and text in res.stderr, (args, res.output)


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_empty_card_with_a_shipped_pmf_runs_no_job(k7, tmp_path, monkeypatch):
    """Only a shipped pmf skips the long pass: with one (of this table), --job-dir starts no job."""
    import solver.chances.distribution as dist
    import solver.store.shipped_pmf as shipped

    fake = np.zeros(301)
    fake[300] = 1.0
    for module in (dist, shipped):
        monkeypatch.setattr(module, "shipped_pmf", lambda variant, digest, directory=None: fake)
    res = cli_run(tmp_path, "distribution", "kniffel7", "--json", "--job-dir", str(tmp_path / "j"))
    assert res.exit_code == 0 and json.loads(res.stdout)["mean"] == 300.0, res.output
    assert not (tmp_path / "j").exists()


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
def test_status_of_a_job_under_way(k7, tmp_path):
    stop_in_layer(tmp_path, k7, 1, 3)
    res = cli_run(tmp_path, "solve", "--status", str(tmp_path))
    assert res.exit_code == 0, res.output
    assert "1/4 layers done" in res.stdout and "hours left at the pace so far" in res.stdout, res.stdout


@pytest.mark.slow  # Kniffel 7 compiled (quick: test_kniffel7_interpreted.py)
@pytest.mark.parametrize("damage", ["deleted", "fifo"])
def test_status_of_a_finished_job_whose_pmf_is_gone_or_a_fifo(k7, tmp_path, damage):
    """The finished job's pmf.npy deleted, or a FIFO in its place: --status neither fails with a traceback nor
    waits on the FIFO; it reads only a pmf that has its checksum, and the rerun computes it again."""
    path = tmp_path / "job"
    run(path, k7)
    (path / fj.PMF).unlink()
    if damage == "fifo":
        os.mkfifo(path / fj.PMF)
    res = cli_run(path, "solve", "--status", str(path))
    assert res.exit_code == 0 and "Traceback" not in res.output and "layers done" in res.stdout, res.output
    (path / fj.PMF).unlink(missing_ok=True)
    assert same_bits(run(path, k7), k7[2])


def test_shipped_pmf_is_read_only_with_its_checksum(tmp_path):
    pmf = np.array([0.25, 0.0, 0.75])
    stamp = write_shipped_pmf(KNIFFEL7, pmf, "abc", "def", 1.5, tmp_path)
    assert len(stamp["pmf_sha256"]) == 64 and same_bits(shipped_pmf(KNIFFEL7, "abc", tmp_path), pmf)
    npy = tmp_path / "kniffel7.pmf.npy"
    raw = bytearray(npy.read_bytes())
    raw[-3] ^= 0x10
    npy.write_bytes(bytes(raw))
    assert shipped_pmf(KNIFFEL7, "abc", tmp_path) is None


@pytest.mark.slow  # a LocalCluster's start and Kniffel 7's kernels loaded on two workers: about 7 s here (load 3)
def test_on_a_local_cluster_of_two_workers(k7, tmp_path):
    pytest.importorskip("distributed")
    from solver.jobs.executors import DaskExecutor

    executor = DaskExecutor.local(2)
    try:
        assert same_bits(run(tmp_path, k7, executor, 1e-6), k7[2])
    finally:
        executor.close()
