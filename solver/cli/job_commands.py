"""`kniffel solve VARIANT --workers N | --scheduler tcp://HOST:8786 | --job-dir DIR` (a layer-parallel build,
solver/jobs) and `kniffel solve --status DIR`: the same table files the normal solve writes, bit for bit; and
`kniffel distribution kniffel7 --job-dir DIR [--workers N | --scheduler ADDRESS]`: its forward pass as a job."""

from __future__ import annotations

import json
import signal
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import click

from ..i18n.texts import count_text, t
from ..store import tables
from . import waits
from .base import _cache_opening_pmf, progress_bar
from .settings import Settings


@contextmanager
def _executor(settings: Settings, workers: int | None, scheduler: str | None):
    """The job's executor, closed on the way out. `kill` (SIGTERM) meanwhile stops the job as Ctrl-C does: the
    executor is closed (a LocalCluster's workers and semaphores) instead of the command dying with them open,
    which left Python's resource tracker warning of leaked semaphores. While it closes (a second or two), a
    further Ctrl-C or kill is ignored: cut short, Dask's own clean-up at exit waited out a 10 s timeout."""
    from ..dp.compile import thread_count
    from ..jobs.executors import DaskExecutor, ThreadExecutor
    from ..store.files import STOPS

    main = threading.current_thread() is threading.main_thread()  # signal handlers are the main thread's
    previous = signal.signal(signal.SIGTERM, _terminated) if main else None
    try:
        executor: DaskExecutor | ThreadExecutor
        if scheduler:
            executor = DaskExecutor.connect(scheduler)  # fails within seconds, before any work
        elif workers:
            executor = DaskExecutor.local(workers)
        else:
            executor = ThreadExecutor(settings.threads or thread_count())
        try:
            yield executor
        finally:
            handlers = {stop: signal.signal(stop, signal.SIG_IGN) for stop in STOPS} if main else {}
            try:
                executor.close()
            finally:
                for stop, handler in handlers.items():
                    signal.signal(stop, handler)
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)


def _terminated(signum, frame):
    raise KeyboardInterrupt


def _run(variant, settings: Settings, job, executor) -> float:
    """Run the job with a progress bar over its cost, after a line saying what is left and about how long it
    takes (from half a minute of work); the seconds it took."""
    from ..jobs.build import costs_left, run_job, total_cost
    from ..jobs.plan import unit_seconds

    kind = t(f"job_kind_{job.manifest['kind']}")
    left = costs_left(job)
    cpu = sum(left) * unit_seconds(job.manifest["kind"], ordered=not variant.identical_dice)
    if cpu >= 30:
        cores = executor.cores()
        times = dict(cpu=waits.about(cpu), wall=waits.about(cpu / cores))
        waits.say("job_start", variant=variant.name, kind=kind, path=job.path, count=len(left), cores=cores, **times)
    desc = t("progress_job", variant=variant.name, kind=kind)
    t0 = time.perf_counter()
    with progress_bar(settings, total_cost(job), desc, "cost", unit_scale=True) as bar:
        run_job(job, variant, executor, bar.update)
    return time.perf_counter() - t0


def solve_by_job(variant, settings: Settings, *, with_target: bool, workers, scheduler, job_dir: Path | None):
    """Build the value table (and with_target the target table) through a job folder and save them where the
    normal solve does; (sidecar, target sidecar or None)."""
    from ..chances import targets
    from ..jobs.build import ev_table, open_job, save_target_table
    from ..jobs.folder import JobError
    from ..store import target_tables

    if not variant.identical_dice:
        raise JobError(t("job_identical", variant=variant.name))
    if workers and scheduler:
        raise JobError(t("job_both"))
    tables.check_writable_folder(settings.tables_dir, tables.paths(variant, settings.tables_dir))
    if with_target:
        target_paths = target_tables.target_paths(variant, settings.tables_dir)
        tables.check_writable_folder(settings.tables_dir, target_paths)
    folder = job_dir or settings.tables_dir / "jobs" / variant.name
    with _executor(settings, workers, scheduler) as executor:
        from .. import dp

        job = open_job(variant, "ev", folder / "ev")
        seconds = _run(variant, settings, job, executor)
        values, m2 = ev_table(job, variant)
        states = dp.count_states(variant)
        meta = tables.save(variant, values, settings.tables_dir, states=states, seconds=seconds, m2=m2)
        tmeta = None
        if with_target:
            engine = targets.target_engine(variant)
            job = open_job(variant, "target", folder / "target", n_max=targets.default_n(variant, engine))
            seconds = _run(variant, settings, job, executor)
            tmeta = save_target_table(job, variant, settings.tables_dir, seconds=seconds)
            _cache_opening_pmf(variant, values, settings)
    return meta, tmeta


ORDERED_FROM_FILLED = 10  # Kniffel 7's end game (up to 4 free boxes): about 27 CPU-hours; the rest is a cluster job


def solve_ordered_target_job(
    variant, settings: Settings, workers, scheduler, job_dir, from_filled, n_max, as_json: bool = False
) -> None:
    """Build the target table of dice told apart (Kniffel 7) by job, its layers with from_filled or more boxes
    filled and needs 1..n_max, into the job folder's layer files (<job-dir>/target/layer-KK.npy); what was built
    in a line, or as JSON."""
    from ..chances.distribution import max_score
    from ..jobs.build import open_job, target_table
    from ..jobs.folder import JobError

    if workers and scheduler:
        raise JobError(t("job_both"))
    from_filled = ORDERED_FROM_FILLED if from_filled is None else min(from_filled, len(variant.boxes) - 1)
    if n_max is None:  # the highest score (Kniffel 7: 910, the empty card's max_remaining), without the 12 s pass
        n_max = max_score(variant)
    folder = (job_dir or settings.tables_dir / "jobs" / variant.name) / "target"
    with _executor(settings, workers, scheduler) as executor:
        job = open_job(variant, "target", folder, n_max=n_max, from_filled=from_filled)
        seconds = _run(variant, settings, job, executor)
    size = target_table(job, variant)[1].size
    if as_json:
        built = dict(variant=variant.name, from_filled=from_filled, n_max=n_max, values=size, path=str(folder))
        click.echo(json.dumps({**built, "seconds": round(seconds, 3)}))
        return
    done = dict(filled=from_filled, n=n_max, size=count_text(size), path=folder, seconds=f"{seconds:.1f}")
    click.echo(t("job_ordered_done", variant=variant.name, **done))


def forward_job_options(command):
    """`distribution`'s --job-dir, --workers and --scheduler (Kniffel 7's forward pass as a job)."""
    command = click.option("--scheduler", metavar="ADDRESS")(command)
    command = click.option("--workers", type=click.IntRange(1))(command)
    return click.option("--job-dir", type=click.Path(file_okay=False))(
        command
    )  # a str: '' is refused (a Path would be '.')


def check_forward_job(variant, job_dir: str | None, workers, scheduler) -> bool:
    """Whether `distribution` runs its pass as a job; JobError (one line) for options that do not go together."""
    from ..jobs.folder import JobError

    if job_dir is None and not workers and not scheduler:
        return False
    for option, value, key in (("--job-dir", job_dir, "option_empty_folder"), ("--scheduler", scheduler, "")):
        if value == "":
            raise JobError(t(key or "option_empty_address", option=option))
    if variant.identical_dice:
        raise JobError(t("job_forward_identical", variant=variant.name))
    if workers and scheduler:
        raise JobError(t("job_both"))
    if job_dir is None:
        raise JobError(t("job_forward_needs_dir"))
    return True


def distribution_by_job(variant, settings: Settings, values, card, job_dir: str, workers, scheduler) -> None:
    """Kniffel 7's forward pass from the card as a resumable job in job_dir (solver/jobs/forward_job.py), on
    threads or Dask; its pmf goes into the cache that `distribution` then reads (as an in-process pass's). No job
    when the answer is at hand (the shipped pmf of the empty card, or the cache)."""
    from ..chances.distribution import check_card
    from ..jobs.forward_job import open_forward_job, run_forward_job
    from ..store.expected_play_cache import cached_rest, store_rest, values_digest
    from ..store.shipped_pmf import shipped_pmf

    check_card(variant, values, card)
    digest = values_digest(values)
    if card.full or (not card.filled and shipped_pmf(variant, digest) is not None):
        return  # the answer is at hand: shipped (the empty card) ...
    if cached_rest(variant, settings.tables_dir, digest, card.state) is not None:
        return  # ... or cached by an earlier pass
    job = open_forward_job(variant, Path(job_dir), values, card.state, card_text=card.format())
    desc = t("progress_job", variant=variant.name, kind=t("job_kind_forward"))
    with _executor(settings, workers, scheduler) as executor:
        with progress_bar(settings, job.manifest["states_bound"], desc, "state", unit_scale=True) as bar:
            pmf = run_forward_job(job, variant, settings.tables_dir, values, executor, bar.update)
    store_rest(variant, settings.tables_dir, digest, card.state, pmf)


def job_status(path: Path) -> None:
    """Per job folder in `path` (itself, or its ev/ and target/): layers done, chunks left, time left."""
    from ..jobs.build import costs_left
    from ..jobs.folder import MANIFEST, JobError, JobFolder

    found = [p for p in (path, path / "ev", path / "target") if (p / MANIFEST).exists()]
    if not found:
        raise JobError(t("job_status_none", path=path))
    for folder in found:
        job = JobFolder.read(folder)
        if job.manifest["kind"] == "forward":
            from ..jobs.forward_job import forward_status

            click.echo("\n".join(forward_status(job)))
            continue
        m, done = job.manifest, job.done()
        chunks = sum(len(layer["chunks"]) for layer in job.plan if layer["filled"] not in done)
        to_build = costs_left(job)
        n = f" N {m['n_max']}" if m["kind"] == "target" else ""
        click.echo(
            t(
                "job_status",
                path=folder,
                variant=m["variant"],
                kind=t(f"job_kind_{m['kind']}"),
                n=n,
                layers_done=len(done),
                layers=len(job.plan),
                chunks_left=len(to_build),
                chunks=chunks,
            )
        )
        cost_done, cpu_cost = (sum(v.get(k, 0) for v in done.values()) for k in ("cost", "cpu_cost"))
        if not to_build:  # finished: no time left to estimate (waits.about says at least 5 s)
            continue
        if cpu_cost:  # the CPU the chunks took (since 2026-12-07): pauses and a busy machine do not count
            rate = sum(v.get("cpu", 0) for v in done.values()) / cpu_cost
            click.echo(t("job_status_cpu", cpu=waits.about(sum(to_build) * rate), rate=f"{rate * 1e6:.2f}"))
        elif cost_done:
            rate = sum(v["seconds"] for v in done.values()) / cost_done
            click.echo(t("job_status_time", minutes=f"{sum(to_build) * rate / 60:.1f}", rate=f"{rate * 1e6:.2f}"))
        else:
            click.echo(t("job_status_no_time"))
