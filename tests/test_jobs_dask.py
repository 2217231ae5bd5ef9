"""Layer-parallel builds on Dask distributed (issue 28): a LocalCluster of two one-thread workers gives the
in-process build's bits, also when a worker process is killed during a layer; a scheduler address that does
not answer is one line and exit 2 within seconds. Skipped without Dask (pip install 'kniffel[cluster]')."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("distributed", reason="Dask distributed is not installed: pip install 'kniffel[cluster]'")

from helpers import JOB_N, JOB_VARIANT, in_process_tables, same_bits  # noqa: E402

from solver.jobs.build import ev_table, open_job, run_job, target_table  # noqa: E402
from solver.jobs.executors import DaskExecutor  # noqa: E402


@pytest.fixture(scope="module")
def built():
    return in_process_tables(JOB_VARIANT, JOB_N)


@pytest.fixture(scope="module")
def cluster():
    executor = DaskExecutor.local(2)
    yield executor
    executor.close()


@pytest.mark.slow  # a LocalCluster in a process of its own (a few seconds)
def test_the_schedulers_errors_stay_off_stderr():
    """A LocalCluster's scheduler logs ERROR lines of its own ("Couldn't gather keys" of the workers a Ctrl-C
    ended, met beside `kniffel: interrupted` by a slow test under load); the command's stderr is its one line:
    a chunk that fails reaches the driver through its future. (In a process of its own: under pytest, whose
    handler sits on the root logger, distributed sets up no handler of its own.)"""
    script = (
        "import logging\n"
        "from solver.jobs.executors import DaskExecutor\n"
        "if __name__ == '__main__':\n"
        "    executor = DaskExecutor.local(1)\n"
        "    logging.getLogger('distributed.scheduler').error(\"Couldn't gather keys: {'chunk': 'forgotten'}\")\n"
        "    executor.close()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")


def test_ev_table_on_two_workers_equals_in_process(built, cluster, tmp_path):
    job = open_job(JOB_VARIANT, "ev", tmp_path / "ev", chunk_seconds=1e-5)
    run_job(job, JOB_VARIANT, cluster)
    values, m2 = ev_table(job, JOB_VARIANT)
    assert same_bits(values, built[0][0]) and same_bits(m2, built[0][1])


def test_target_table_on_two_workers_equals_in_process(built, cluster, tmp_path):
    job = open_job(JOB_VARIANT, "target", tmp_path / "target", n_max=JOB_N, chunk_seconds=1e-4)
    run_job(job, JOB_VARIANT, cluster)
    assert same_bits(target_table(job, JOB_VARIANT)[0], built[1][0])


def test_worker_killed_during_a_layer(built, cluster, tmp_path):
    """A worker process killed (SIGKILL) while a layer runs: its chunks run again elsewhere (and on the worker
    its nanny starts anew); the table is the same, bit for bit."""
    job = open_job(JOB_VARIANT, "target", tmp_path / "target", n_max=JOB_N, chunk_seconds=1e-5)
    pids = sorted(cluster.client.run(os.getpid).values())
    assert len(pids) == 2
    busiest = max(job.plan, key=lambda layer: len(layer["chunks"]))
    killed = []
    seen = [0]

    def progress(_cost):
        seen[0] += 1
        layer_start = sum(len(layer["chunks"]) for layer in job.plan[: job.plan.index(busiest)])
        if not killed and seen[0] == layer_start + 1:  # the first chunk of the busiest layer is back
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    run_job(job, JOB_VARIANT, cluster, progress)
    assert killed
    assert same_bits(target_table(job, JOB_VARIANT)[0], built[1][0])
    cluster.client.wait_for_workers(2, timeout=60)  # the nanny's new worker: the next test has two again


def test_dead_scheduler_is_one_line_and_exit_2_fast(tmp_path):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    res = subprocess.run(
        [sys.executable, "-m", "solver.cli", "--tables", str(tmp_path), "--lang", "en", "solve", "kniffel"]
        + ["--scheduler", f"tcp://127.0.0.1:{port}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    took = time.monotonic() - t0
    assert res.returncode == 2
    lines = [line for line in res.stderr.splitlines() if not line.endswith("...")]  # a cold cache's compiling line
    assert len(lines) == 1 and f"no Dask scheduler answers at tcp://127.0.0.1:{port}" in lines[0], res.stderr
    assert took < 20, took  # the connect timeout is 3 s; the rest is Python's start on a busy machine
    assert not (tmp_path / "kniffel.npy").exists()


@pytest.mark.slow
def test_kniffel_tables_on_two_workers_equal_in_process(tmp_path, cluster):
    """The whole kniffel value table through the CLI (the same file as the normal solve writes, byte for
    byte), and its target table up to N = 30 through a LocalCluster(2 x 1), equal to the in-process build."""
    from solver import dp
    from solver.cli import cli
    from solver.dp.target import solve_target
    from solver.dp.target_layout import item_lengths, target_layout
    from solver.rules.presets import PRESETS

    for folder, extra in (("plain", []), ("job", ["--workers", "2", "--job-dir", str(tmp_path / "jobs")])):
        res = CliRunner().invoke(cli, ["--tables", str(tmp_path / folder), "--no-progress", "solve", "kniffel", *extra])
        assert res.exit_code == 0, res.output
    assert (tmp_path / "plain" / "kniffel.npy").read_bytes() == (tmp_path / "job" / "kniffel.npy").read_bytes()
    kniffel = PRESETS["kniffel"]
    engine = dp.make_engine(kniffel)
    layout = target_layout(engine, 30, item_lengths(engine, 30))
    job = open_job(kniffel, "target", tmp_path / "target", n_max=30, chunk_seconds=0.5)
    run_job(job, kniffel, cluster)
    assert same_bits(target_table(job, kniffel)[0], solve_target(engine, layout))


@pytest.mark.slow  # Kniffel 7's kernels on the workers (about 9 s); dice told apart in jobs: test_jobs_ordered.py
def test_kniffel7_end_game_on_two_workers_equals_threads(cluster, tmp_path):
    """Kniffel 7's target table (dice told apart), its last layer up to need 5, in many chunks: the two
    workers give the thread executor's bits."""
    from solver.jobs.executors import ThreadExecutor
    from solver.rules.presets import PRESETS

    kniffel7 = PRESETS["kniffel7"]
    last = len(kniffel7.boxes) - 1
    flats = []
    for name, executor in (("threads", ThreadExecutor(2)), ("dask", cluster)):
        job = open_job(kniffel7, "target", tmp_path / name, n_max=5, chunk_seconds=0.2, from_filled=last)
        assert len(job.plan[0]["chunks"]) > 1
        run_job(job, kniffel7, executor)
        flats.append(target_table(job, kniffel7)[0])
    assert same_bits(flats[0], flats[1])


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux: /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.slow  # real job processes with a LocalCluster each (about 10 s each)
@pytest.mark.parametrize(
    "how, when",
    [("ctrl-c", "layer"), ("kill", "layer"), ("ctrl-c", "start"), ("kill", "start"), ("ctrl-c twice", "layer")],
)
def test_a_stopped_job_is_one_line_and_leaves_no_process(tmp_path, how, when):
    """Ctrl-C at a terminal (SIGINT to the whole foreground group: the LocalCluster's workers too) or `kill` of
    the command (SIGTERM), while a layer runs or while the cluster starts (its workers spawned, the job not
    begun): `kniffel: interrupted`, exit code 130, nothing else on stderr (the workers printed tracebacks, and
    the resource tracker a warning of leaked semaphores), and no process of the job left. Twice, 0.1 s apart
    (an impatient player): the second came while Python shut down, which ended it by SIGINT (exit -2)."""
    from helpers import ctrl_c_as_at_a_terminal

    jobs = tmp_path / "jobs"
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver.cli", "--tables", str(tmp_path), "--lang", "en", "--no-progress"]
        + ["solve", "kniffel", "--workers", "1", "--job-dir", str(jobs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own, as a terminal's foreground job
        preexec_fn=ctrl_c_as_at_a_terminal,
    )
    deadline = time.monotonic() + 120
    if when == "start":  # the cluster's processes spawned (the resource tracker, the workers), no job yet
        while len(_children(proc.pid)) < 2:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
        assert not (jobs / "ev" / "job.json").exists()
    else:
        while not (jobs / "ev" / "job.json").exists():  # the cluster is up and the job has started
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.1)
        time.sleep(1)
    if how.startswith("ctrl-c"):
        os.killpg(proc.pid, signal.SIGINT)
        if how == "ctrl-c twice":
            time.sleep(0.1)
            os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (130, "kniffel: interrupted\n"), err
    for _ in range(100):  # the workers and the resource tracker end with the command
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("processes of the stopped job are still running")
    assert not (tmp_path / "kniffel.npy").exists()
