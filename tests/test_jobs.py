"""Layer-parallel builds (solver/jobs, issue 28) on the in-process executor: the plan, bit-for-bit equality
with the in-process build, resuming after an interruption, a lost or damaged chunk or layer, refusals."""

import json
import os
import threading
import time

import numpy as np
import pytest
from click.testing import CliRunner
from helpers import JOB_N as N
from helpers import JOB_VARIANT as VARIANT
from helpers import in_process_tables, items_cut, same_bits

from solver import dp
from solver.cli import cli
from solver.dp.target import solve_target
from solver.dp.target_layout import item_lengths, target_layout
from solver.jobs.build import ev_table, open_job, run_job, save_target_table, target_table
from solver.jobs.executors import ThreadExecutor
from solver.jobs.folder import JobError, manifest_digest
from solver.jobs.plan import chunk_ranges, layer_name, make_plan
from solver.rules.presets import PRESETS


@pytest.fixture(scope="module")
def built():
    return in_process_tables(VARIANT, N)


def test_chunk_ranges_cover_in_order():
    costs = np.array([5, 1, 1, 7, 2, 2, 2, 9])
    for budget in (1, 3, 6, 10, 1000):
        ranges = chunk_ranges(costs, budget)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(costs)
        assert all(a < b for a, b in ranges) and all(b == c for (_, b), (c, _) in zip(ranges, ranges[1:]))
        assert all(costs[a : b - 1].sum() < budget for a, b in ranges)  # closed as soon as the budget is reached
    assert chunk_ranges(costs, 1000) == [(0, 8)]
    assert chunk_ranges(costs, 1) == [(i, i + 1) for i in range(8)]
    assert chunk_ranges(np.zeros(0), 5) == []


def test_plan_layers_and_costs():
    engine = dp.make_engine(VARIANT)
    plan = make_plan("ev", engine, None, 1e-4)
    assert [layer["filled"] for layer in plan] == [4, 3, 2, 1, 0]
    for layer in plan:
        masks, _ = dp.layer_items(VARIANT, layer["filled"])
        assert layer["rows"] == len(masks) and layer["chunks"][-1][1] == len(masks)  # ev: a row per item
        assert sum(c for _, _, c in layer["chunks"]) == layer["cost"]
    assert sum(layer["cost"] for layer in plan) == dp.count_states(VARIANT)  # ev: a unit per state solved


@pytest.mark.parametrize("chunk_seconds", [1e-5, 1e9])  # one item a chunk, one chunk a layer
def test_ev_table_equals_in_process(built, tmp_path, chunk_seconds):
    job = open_job(VARIANT, "ev", tmp_path / "ev", chunk_seconds=chunk_seconds)
    assert {len(layer["chunks"]) > 1 for layer in job.plan} == ({True, False} if chunk_seconds < 1 else {False})
    run_job(job, VARIANT, ThreadExecutor(2))
    values, m2 = ev_table(job, VARIANT)
    assert same_bits(values, built[0][0]) and same_bits(m2, built[0][1])


@pytest.mark.parametrize("chunk_seconds", [1e-5, 1e9])
def test_target_table_equals_in_process(built, tmp_path, chunk_seconds):
    job = open_job(VARIANT, "target", tmp_path / "target", n_max=N, chunk_seconds=chunk_seconds)
    run_job(job, VARIANT, ThreadExecutor(2))
    flat, layout = target_table(job, VARIANT)
    assert same_bits(flat, built[1][0]) and layout.size == built[1][1].size


def test_target_table_saved_from_its_layers_is_the_in_process_file(built, tmp_path):
    """The job's table saved streamed from its layer files: the file `save_target` writes from the in-process
    build's array, byte for byte, and the same sidecar but for its time stamps."""
    from solver.store.target_tables import load_target, save_target, target_paths

    job = open_job(VARIANT, "target", tmp_path / "job", n_max=N, chunk_seconds=2e-5)
    run_job(job, VARIANT, ThreadExecutor(2))
    flat, layout = built[1]
    metas = [save_target(VARIANT, flat, layout, tmp_path / "plain", seconds=1.0)]
    metas.append(save_target_table(job, VARIANT, tmp_path / "job-table", seconds=1.0))
    files = [target_paths(VARIANT, tmp_path / name)[0].read_bytes() for name in ("plain", "job-table")]
    assert files[0] == files[1] and metas[0]["dropped_layers"]  # layers left out: the streamed save skips them
    assert {**metas[0], "created": ""} == {**metas[1], "created": ""}
    loaded, *_ = load_target(VARIANT, dp.make_engine(VARIANT), tmp_path / "job-table")
    assert loaded.shape[0] == metas[1]["size"]


def test_items_cut_into_parts_give_the_same_bits(tmp_path):
    """Chunks that start and end inside work items (at one of their upper totals: a variant whose bonus is
    reachable has several a card) give the bits of one chunk a layer and of the in-process build."""
    variant = PRESETS["kniffel"].reduced(
        boxes=["ones", "twos", "sixes", "kniffel", "chance"], n_dice=3, bonuses=((10, 35),)
    )
    engine = dp.make_engine(variant)
    flats = []
    for name, seconds in (("one", 1e9), ("many", 1e-5)):
        job = open_job(variant, "target", tmp_path / name, n_max=30, chunk_seconds=seconds)
        assert items_cut(job, engine) == (seconds < 1)
        run_job(job, variant, ThreadExecutor(2))
        flats.append(target_table(job, variant)[0])
    in_process = solve_target(engine, target_layout(engine, 30, item_lengths(engine, 30)))
    assert same_bits(flats[0], flats[1]) and same_bits(flats[1], in_process)


class Interrupted(Exception):
    pass


class StopAfter:
    """An executor that runs `n` tasks, then stops as a killed driver would (mid-layer)."""

    def __init__(self, n: int):
        self.left = n

    def run(self, fn, tasks, done):
        for task in tasks:
            if self.left == 0:
                raise Interrupted
            self.left -= 1
            done(task, fn(task))


def corrupt(job, n_filled: int, index: int) -> None:
    """Change one value of the chunk's stretch of the layer's .part file (its mark left as it was)."""
    layer = next(entry for entry in job.plan if entry["filled"] == n_filled)
    part = job.part_path(n_filled)
    data = bytearray(part.read_bytes())
    header = len(data) - 8 * layer["at"][-1]
    at = header + 8 * layer["at"][index]
    data[at : at + 8] = np.float64(0.123).tobytes()
    part.write_bytes(bytes(data))


def test_resume_after_interruption_and_damage(built, tmp_path):
    job = open_job(VARIANT, "target", tmp_path / "job", n_max=N, chunk_seconds=2e-5)
    sizes = [len(layer["chunks"]) for layer in job.plan]
    stop = sizes[0] + sizes[1] + 3  # two layers done, three chunks of the third
    assert sizes[2] > 4
    with pytest.raises(Interrupted):
        run_job(job, VARIANT, StopAfter(stop))
    third = job.plan[2]["filled"]
    assert [job.chunk_written(third, i) for i in range(4)] == [True, True, True, False]
    assert not list(job.path.glob("shards*")) and job.part_path(third).exists()  # no shard files: in place
    job.mark_path(third, 0).unlink()  # a lost chunk
    corrupt(job, third, 1)  # a damaged one: its values no longer have its mark's checksum
    assert not job.chunk_ok(third, 0) and not job.chunk_ok(third, 1) and job.chunk_ok(third, 2)
    finished = job.path / layer_name(job.plan[0]["filled"])
    finished.write_bytes(finished.read_bytes()[:-8])  # a damaged finished layer is built again
    ran = []
    counting = ThreadExecutor(2)
    plain_run = counting.run
    counting.run = lambda fn, tasks, done: plain_run(fn, (ran.append(t) or t for t in tasks), done)
    reopened = open_job(VARIANT, "target", tmp_path / "job", n_max=N)
    run_job(reopened, VARIANT, counting)
    redone = [(t.filled, t.chunk) for t in ran if t.filled == third]
    assert (third, 0) in redone and (third, 1) in redone and (third, 2) not in redone
    assert sum(t.filled == job.plan[1]["filled"] for t in ran) == 0  # the intact finished layer is kept
    kept = job.plan[2]["chunks"][2][2]  # the CPU recorded is this run's: of the chunks it computed
    assert reopened.done()[third]["cpu_cost"] == job.plan[2]["cost"] - kept and reopened.done()[third]["cpu"] > 0
    assert same_bits(target_table(reopened, VARIANT)[0], built[1][0])
    assert not list(job.path.glob("*.part")) and not list((job.path / "marks").iterdir())


def test_layer_file_truncated_before_its_barrier(built, tmp_path):
    """The layer's .part file cut between its chunks' writes and the barrier: one line, nothing renamed into
    place; the rerun sets its size again and builds the chunks cut off (their marks no longer match) again,
    with the same bits."""
    job = open_job(VARIANT, "target", tmp_path / "job", n_max=N, chunk_seconds=2e-5)

    class Truncating(ThreadExecutor):
        def run(self, fn, tasks, done):
            tasks = list(tasks)
            super().run(fn, tasks, done)
            part = job.part_path(tasks[-1].filled)
            part.write_bytes(part.read_bytes()[:-8])

    with pytest.raises(JobError, match="changed after it was written") as exc:
        run_job(job, VARIANT, Truncating(2))
    first = job.plan[0]["filled"]
    assert "\n" not in str(exc.value) and not (job.path / layer_name(first)).exists()
    last = len(job.plan[0]["chunks"]) - 1
    assert not job.chunk_ok(first, last) and job.chunk_ok(first, 0)
    reopened = open_job(VARIANT, "target", tmp_path / "job", n_max=N)
    run_job(reopened, VARIANT, ThreadExecutor(2))
    assert same_bits(target_table(reopened, VARIANT)[0], built[1][0])


@pytest.mark.parametrize("place", ["layer", "part", "mark", "folder"])
def test_a_fifo_or_folder_in_a_job_file_s_place_is_built_over_not_waited_on(built, tmp_path, place):
    """A FIFO where a finished layer, the layer under way or a chunk's mark was (or an empty folder in the
    .part file's place): the rerun opens it without waiting for a writer, builds that part again and gives
    the same bits. The rerun runs on a thread: a hang fails the test instead of stopping the run."""
    job = open_job(VARIANT, "target", tmp_path / "job", n_max=N, chunk_seconds=2e-5)
    with pytest.raises(Interrupted):
        run_job(job, VARIANT, StopAfter(len(job.plan[0]["chunks"]) + 2))
    first, second = job.plan[0]["filled"], job.plan[1]["filled"]
    path = {
        "layer": job.path / layer_name(first),
        "part": job.part_path(second),
        "mark": job.mark_path(second, 0),
        "folder": job.part_path(second),
    }[place]
    path.unlink()
    path.mkdir() if place == "folder" else os.mkfifo(path)
    reopened = open_job(VARIANT, "target", tmp_path / "job", n_max=N)
    result = []

    def rerun_and_read():
        run_job(reopened, VARIANT, ThreadExecutor(2))
        result.append(target_table(reopened, VARIANT))

    rerun = threading.Thread(target=rerun_and_read, daemon=True)
    rerun.start()
    rerun.join(120)
    assert result, f"the rerun waited on the {place} for 120 s"
    assert same_bits(result[0][0], built[1][0])
    assert (job.path / layer_name(second)).is_file()
    assert path.is_file() if place == "layer" else not path.exists()  # a layer file again, or no leftover


def test_a_folder_with_files_in_a_job_file_s_place_is_one_line_then_moved_and_rerun(built, tmp_path):
    """A folder that is not empty where the .part file goes is not the build's to delete: one line says what
    stands there and that moving it away lets the same command go on, which it then does, to the same bits."""
    job = open_job(VARIANT, "target", tmp_path / "job", n_max=N, chunk_seconds=2e-5)
    with pytest.raises(Interrupted):
        run_job(job, VARIANT, StopAfter(len(job.plan[0]["chunks"]) + 2))
    part = job.part_path(job.plan[1]["filled"])
    part.unlink()
    part.mkdir()
    (part / "notes.txt").write_text("mine")
    reopened = open_job(VARIANT, "target", tmp_path / "job", n_max=N)
    with pytest.raises(JobError) as refused:
        run_job(reopened, VARIANT, ThreadExecutor(2))
    line = str(refused.value)
    assert "\n" not in line and str(part) in line and "move it away" in line and "not empty" in line.lower()
    assert (part / "notes.txt").read_text() == "mine"  # the user's folder kept
    part.rename(tmp_path / "moved")
    run_job(open_job(VARIANT, "target", tmp_path / "job", n_max=N), VARIANT, ThreadExecutor(2))
    assert same_bits(target_table(reopened, VARIANT)[0], built[1][0])


def test_job_folder_of_an_older_format_refused(tmp_path):
    """A job folder of format 2 (shards assembled by the driver) is not read: one line naming the format."""
    open_job(VARIANT, "ev", tmp_path / "job", chunk_seconds=1e9)
    manifest = json.loads((tmp_path / "job" / "job.json").read_text())
    older = {**manifest, "format": 2}
    (tmp_path / "job" / "job.json").write_text(json.dumps({**older, "manifest_sha256": manifest_digest(older)}))
    with pytest.raises(JobError, match="job format 2, not of .* job format 3") as exc:
        open_job(VARIANT, "ev", tmp_path / "job")
    assert "\n" not in str(exc.value)


def test_other_job_folder_refused(tmp_path):
    open_job(VARIANT, "ev", tmp_path / "job", chunk_seconds=1e9)
    other = PRESETS["kniffel"].reduced(boxes=["ones", "sixes", "kniffel", "chance"], n_dice=3)
    with pytest.raises(JobError, match="holds a build of kniffel-reduced ev") as exc:
        open_job(other, "ev", tmp_path / "job")
    assert "\n" not in str(exc.value)
    with pytest.raises(JobError, match="not of kniffel-reduced target"):
        open_job(VARIANT, "target", tmp_path / "job", n_max=N)
    manifest = json.loads((tmp_path / "job" / "job.json").read_text())
    older = {**manifest, "solver_version": "0.0.1"}
    (tmp_path / "job" / "job.json").write_text(json.dumps({**older, "manifest_sha256": manifest_digest(older)}))
    with pytest.raises(JobError, match="version 0.0.1"):
        open_job(VARIANT, "ev", tmp_path / "job")


def test_a_changed_job_json_that_still_parses_is_refused_not_built(built, tmp_path):
    """job.json's chunk bounds changed (a flipped digit, an edit): the build would leave a gap in the table
    without a word. Its own checksum refuses it in one line, through the API and `solve --status`; a manifest
    written before the checksum existed (none in it) is read as it was."""
    open_job(VARIANT, "target", tmp_path / "job", n_max=N, chunk_seconds=2e-5)
    path = tmp_path / "job" / "job.json"
    manifest = json.loads(path.read_text())
    chunks = manifest["plan"][0]["chunks"]
    assert len(chunks) > 1
    changed = json.loads(json.dumps(manifest))
    changed["plan"][0]["chunks"][1][0] += 1  # the second chunk starts one state later: a gap
    path.write_text(json.dumps(changed))
    with pytest.raises(JobError, match="job.json is damaged") as exc:
        open_job(VARIANT, "target", tmp_path / "job", n_max=N)
    assert "\n" not in str(exc.value)
    result = CliRunner().invoke(cli, ["--lang", "en", "solve", "--status", str(tmp_path / "job")])
    assert result.exit_code == 2 and "job.json is damaged" in result.output and "Traceback" not in result.output
    path.write_text(json.dumps({k: v for k, v in manifest.items() if k != "manifest_sha256"}))
    run_job(open_job(VARIANT, "target", tmp_path / "job", n_max=N), VARIANT, ThreadExecutor(2))
    assert same_bits(target_table(open_job(VARIANT, "target", tmp_path / "job", n_max=N), VARIANT)[0], built[1][0])


def cli_run(tables_dir, *args):
    return CliRunner().invoke(cli, ["--tables", str(tables_dir), "--no-progress", "--lang", "en", *args])


def test_cli_refuses_another_job_folder_and_tells_status(tmp_path):
    job = open_job(VARIANT, "ev", tmp_path / "jobs" / "ev", chunk_seconds=1e-5)
    with pytest.raises(Interrupted):
        run_job(job, VARIANT, StopAfter(len(job.plan[0]["chunks"]) + 2))
    res = cli_run(tmp_path, "solve", "kniffel", "--job-dir", str(tmp_path / "jobs"))
    assert res.exit_code == 2
    assert "holds a build of kniffel-reduced ev" in res.output and res.output.count("\n") == 1
    assert not (tmp_path / "kniffel.npy").exists()
    res = cli_run(tmp_path, "solve", "--status", str(tmp_path / "jobs"))
    assert res.exit_code == 0, res.output
    chunks = sum(len(layer["chunks"]) for layer in job.plan[1:])
    assert f"kniffel-reduced value table, 1/5 layers done, {chunks - 2} chunks of {chunks} left" in res.output
    done = job.done()[job.plan[0]["filled"]]  # every chunk of the first layer computed in that run
    assert done["cpu"] > 0 and done["cpu_cost"] == done["cost"] == job.plan[0]["cost"]
    rate = done["cpu"] / done["cpu_cost"]
    assert f"of CPU left at the pace so far ({rate * 1e6:.2f} us of CPU a cost unit" in res.output
    older = {k: {"sha256": v["sha256"], "seconds": v["seconds"], "cost": v["cost"]} for k, v in job.done().items()}
    (job.path / "layers.json").write_text(json.dumps({str(k): v for k, v in older.items()}))  # before CPU counts
    res = cli_run(tmp_path, "solve", "--status", str(tmp_path / "jobs"))
    assert res.exit_code == 0 and "minutes left at the pace so far" in res.output, res.output
    res = cli_run(tmp_path, "solve", "--status", str(tmp_path))
    assert res.exit_code == 2 and "holds no job folder" in res.stderr and res.stderr.count("\n") == 1
    assert res.stdout == ""
    run_job(job, VARIANT, ThreadExecutor(2))  # finished: no time left is estimated
    res = cli_run(tmp_path, "solve", "--status", str(tmp_path / "jobs"))
    assert res.exit_code == 0 and res.output.splitlines() == [
        f"{job.path}: kniffel-reduced value table, 5/5 layers done, 0 chunks of 0 left in the next layers"
    ]


@pytest.mark.parametrize("array", [np.zeros((0, 3)), np.array(2.5), np.arange(12.0).reshape(3, 4).T])
def test_save_atomic_writes_what_np_load_reads_back(tmp_path, array):
    """Empty, 0-d and non-contiguous arrays too (an end-game job's skipped layers have no columns); always C order,
    so a C-ordered array's file is np.save's byte for byte."""
    from solver.jobs.job_files import save_atomic

    save_atomic(tmp_path / "a.npy", array)
    back = np.load(tmp_path / "a.npy")
    assert back.shape == array.shape and back.dtype == array.dtype and np.array_equal(back, array)
    if array.flags.c_contiguous:
        np.save(tmp_path / "b.npy", array)
        assert (tmp_path / "a.npy").read_bytes() == (tmp_path / "b.npy").read_bytes()


def test_a_stopped_thread_executor_starts_no_more_chunks():
    """Ctrl-C or kill (here: done() raising) while a layer runs on threads: the chunks under way end, the queued
    ones never start (the pool's shutdown used to run the whole queue: minutes to hours of a Kniffel 7 layer)."""
    ran = []

    def chunk(task):
        ran.append(task)
        time.sleep(0.01)
        return task

    def done(task, result):
        raise Interrupted

    with pytest.raises(Interrupted):
        ThreadExecutor(2).run(chunk, range(100), done)
    assert len(ran) <= 4, len(ran)
