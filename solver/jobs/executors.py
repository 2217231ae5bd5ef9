"""Two executors behind one interface: run(fn, tasks, done) runs fn(task) for every task and calls
done(task, result) in the calling thread as each finishes; it returns when all have (the layer's barrier).

* Threads: in this process (the default; no new dependency). The kernels release the GIL.
* Dask distributed: a LocalCluster of N single-thread worker processes, or a running scheduler at a
  tcp:// address (workers on other machines with the same package installed and the job folder shared).
  Dask is imported only here, only when asked for (`pip install 'kniffel[cluster]'`).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from multiprocessing import resource_tracker

from ..i18n.texts import t
from ..store.files import STOPS
from .folder import JobError

CONNECT_TIMEOUT = 3  # seconds: a scheduler that does not answer is named within them, not waited for
RETRIES = 3  # a task whose worker died is run again (tasks are idempotent)
# Dask starts its workers with MALLOC_TRIM_THRESHOLD_=65536: glibc then hands freed memory back at once and
# maps large blocks anew, and the target kernel's per-item work arrays cost page faults each time: 30 % more
# CPU (kniffel target table, N 60, one thread: 10.8-12.4 s default, 13.3-16.7 s with it). Unset here; on a
# cluster the workers' config does the same (docs/cluster.md).
TRIM = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"
# Dask's housekeeping, slowed or off: an idle LocalCluster(2 x 1) used 0.10-0.12 s of CPU a second of wall
# with Dask's defaults (a 10 ms profiler in each worker, 20 ms event-loop ticks, 100 ms memory checks,
# 500 ms system monitors), 0.016 s with these; on a busy machine a build's wall is long, and that CPU was
# a third of the overhead. The tasks are a minute's work and few: nothing here needs finer ticks. Work
# stealing is off: a worker takes the next queued chunk when it is free.
QUIET = {
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing": False,
}


# Ctrl-C at a terminal goes to every process of the foreground group, a LocalCluster's workers too: each
# printed a traceback. A worker now leaves at once and silently (a Dask preload, run in each worker's main
# thread, restarted ones included; a chunk cut short has no mark, so the rerun builds it again); ignoring it
# instead kept the driver waiting about 10 s for a worker busy in a kernel. The workers start with SIGINT and
# SIGTERM blocked (local(): a Ctrl-C before this preload ran printed their tracebacks too), unblocked here.
def dask_setup(worker) -> None:
    """The preload of a LocalCluster's workers (this module, by name: preload=[__name__])."""
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))
    if hasattr(signal, "pthread_sigmask"):  # POSIX
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)


class ThreadExecutor:
    def __init__(self, threads: int):
        self.threads = max(1, threads)

    def cores(self) -> int:
        return self.threads

    def run(self, fn: Callable, tasks: Iterable, done: Callable) -> None:
        pool = ThreadPoolExecutor(self.threads)
        try:
            futures = {pool.submit(fn, task): task for task in tasks}
            for future in as_completed(futures):
                done(futures[future], future.result())
        finally:  # stopped (Ctrl-C, kill, a failed chunk): the chunks under way end, the queued ones never start
            pool.shutdown(cancel_futures=True)

    def close(self) -> None:
        pass


def _distributed():
    try:
        import distributed
    except ImportError:
        raise JobError(t("job_no_dask")) from None
    return distributed


class DaskExecutor:
    def __init__(self, client, cluster=None):
        self.client = client
        self.cluster = cluster

    @classmethod
    def local(cls, workers: int) -> DaskExecutor:
        """A LocalCluster of `workers` processes with one thread each (the tasks' kernels are serial: one core a
        worker, no Numba threading layer needed)."""
        import logging

        # Ctrl-C and kill wait until the cluster is up (a few seconds), then stop it: the main thread blocks
        # both meanwhile, and so, for good, do the threads it starts (Dask's event loop, which starts the
        # workers' processes: they begin with both blocked, dask_setup). Multiprocessing's resource tracker
        # is started first: starting it unblocks both in the thread that does (resource_tracker.ensure_running).
        main = threading.current_thread() is threading.main_thread() and hasattr(signal, "pthread_sigmask")  # POSIX
        if main:
            resource_tracker.ensure_running()
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS) if main else None
        try:
            distributed = _distributed()
            import dask

            with dask.config.set({TRIM: None, **QUIET}):
                cluster = distributed.LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",  # a free port: two clusters on one machine do not collide
                    # not ERROR: at a Ctrl-C the scheduler logs "Couldn't gather keys" of the workers it lost,
                    # beside the one line; a chunk that fails is told by its future, in the driver
                    silence_logs=logging.CRITICAL,
                    preload=[__name__],  # dask_setup
                )
            executor = cls(distributed.Client(cluster), cluster)
        except BaseException:
            if mask is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            raise
        if mask is not None:
            try:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a stop held meanwhile arrives here
            except BaseException:
                executor.close()
                raise
        return executor

    @classmethod
    def connect(cls, address: str) -> DaskExecutor:
        """The scheduler at `address`; JobError within CONNECT_TIMEOUT seconds when it does not answer."""
        distributed = _distributed()
        try:
            client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:
            raise JobError(t("job_scheduler", address=address, seconds=CONNECT_TIMEOUT, error=exc)) from None
        return cls(client)

    def cores(self) -> int:
        """The worker threads connected now (at least 1: a scheduler's workers may still be joining)."""
        return max(1, sum(self.client.nthreads().values()))

    def run(self, fn: Callable, tasks: Iterable, done: Callable) -> None:
        distributed = _distributed()
        futures = {}
        for task in tasks:
            key = f"kniffel-{task.kind}-{task.variant.name}-{task.filled}-{task.chunk}-{os.getpid()}"
            futures[self.client.submit(fn, task, key=key, pure=False, retries=RETRIES)] = task
        for future in distributed.as_completed(futures):
            task = futures[future]
            try:
                result = future.result()
            except (distributed.KilledWorker, distributed.TimeoutError, OSError) as exc:
                raise JobError(t("job_chunk_failed", layer=task.filled, chunk=task.chunk, error=exc)) from None
            done(task, result)
            future.release()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()
