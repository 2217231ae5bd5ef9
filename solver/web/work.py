"""The server's long work: the kernels that use every core, on one thread of their own, in a bounded queue of jobs.

Advice and values take microseconds to milliseconds once their table is loaded: the app answers them in
the event loop. The rest takes up to seconds on every core: a new card's final-score distribution (the
forward pass), target advice and chances, loading a table or its second moments, solving a missing table
of identical dice. Those run as Jobs on one thread, KERNELS: each already runs on every core (lanes.in_threads),
so two forward passes at once would each take twice as long.

A request waiting for a job holds no thread (it awaits the job's future), identical requests share one job, a job
nobody waits for any more (its clients went away or ran out of time) is cancelled, and the queue is bounded: a full
queue is HTTP 503 at once. The kernels release the GIL while they run (nogil), so the event loop keeps answering
advice meanwhile (measured: benchmarks/bench_web.py). A worker process was the other choice: it would isolate the
GIL entirely, but each worker loads its own copy of the tables and of the compiled kernels (seconds), and only sees
the variants of a fresh interpreter.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from starlette.types import Receive

from ..advice.cards import Card
from ..api import Table
from ..chances import distribution as dist
from ..errors import KniffelError
from ..i18n.texts import t

T = TypeVar("T")
DISTRIBUTIONS_KEPT = 256  # (variant, card) answers remembered: the forward pass takes seconds
QUEUE_LIMIT = 4  # jobs queued or running at once: each takes up to seconds, so a fifth would wait long anyway
BUDGET_S = 120.0  # the longest a request waits for its job, queued and running (a cold Numba cache: about a minute)
RETRY_AFTER_S = 10  # a 503's Retry-After


class KernelThread:
    """One thread for every long kernel call of the process (solve, forward pass), in the order asked."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._here = threading.local()  # .inside on the kernel thread itself

    def _mark(self) -> None:
        self._here.inside = True

    def submit(self, work: Callable[..., T], *args) -> Future[T]:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="kniffel-kernels", initializer=self._mark)
            return self._pool.submit(work, *args)

    def run(self, work: Callable[..., T], *args) -> T:
        """work(*args) on the kernel thread (at once when called there: a job that loads a table); the
        caller waits (without the GIL) for its result or error."""
        if getattr(self._here, "inside", False):
            return work(*args)
        return self.submit(work, *args).result()


KERNELS = KernelThread()  # one for the process: two apps in one process must not launch kernels at once


class Unavailable(KniffelError):
    """HTTP 503 with Retry-After: the queue is full, or the answer took longer than a request may wait."""


class Cancelled(Exception):
    """Raised inside a job at its next checkpoint once nobody waits for it; nobody sees it."""


class Job:
    """One queued or running computation and the requests waiting for it."""

    def __init__(self) -> None:
        self.future: Future[Any]  # set by Jobs._join, once the job is submitted
        self.waiters = 0
        self.cancelled = threading.Event()

    def checkpoint(self, *_: object) -> None:
        """Called by the work between its steps (the forward pass: after each turn's layer)."""
        if self.cancelled.is_set():
            raise Cancelled


async def client_gone(receive: Receive) -> None:
    """Returns once the client has closed its connection (ASGI's http.disconnect; a GET's body is empty)."""
    while (await receive())["type"] != "http.disconnect":
        pass


class Jobs:
    """The long computations of one app, each run on KERNELS. At most `limit` are queued or running (a
    cancelled one counts until it has stopped); a request for another is Unavailable at once. A request
    identical to one queued or running (the same key) waits for the same job. A request waits at most
    `budget` seconds, and stops waiting when its client goes away; a job nobody waits for any more is
    cancelled: never started when still queued, stopped at its next checkpoint when running."""

    def __init__(self, limit: int = QUEUE_LIMIT, budget: float = BUDGET_S) -> None:
        self.limit, self.budget = limit, budget
        self._jobs: dict[Hashable, Job] = {}  # the jobs requests may still join
        self._open = 0  # jobs submitted and not yet finished
        self._lock = threading.RLock()  # reentrant: a future done at once calls its callback in add_done_callback

    @property
    def open(self) -> int:
        return self._open

    async def run(self, key: Hashable, work: Callable[[Callable[..., None]], T], receive: Receive) -> T:
        """work(checkpoint) as the job of `key` (joined when one is under way); `receive`: the request's ASGI
        receive, to see its client go away."""
        job = self._join(key, work)
        answer = asyncio.wrap_future(job.future)
        gone = asyncio.ensure_future(client_gone(receive))
        try:
            done, _ = await asyncio.wait((answer, gone), timeout=self.budget, return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            answer.add_done_callback(lambda f: f.cancelled() or f.exception())  # a late error is not "unretrieved"
            self._leave(key, job)
        if answer in done:
            return answer.result()
        if gone in done:
            raise Unavailable(t("api_client_gone"))  # answered to nobody
        raise Unavailable(t("api_too_slow", budget=self.budget, seconds=RETRY_AFTER_S))

    def _join(self, key: Hashable, work: Callable[[Callable[..., None]], Any]) -> Job:
        with self._lock:
            job = self._jobs.get(key)
            if job is None:
                if self._open >= self.limit:
                    raise Unavailable(t("api_busy", count=self._open, seconds=RETRY_AFTER_S))
                job = self._jobs[key] = Job()
                self._open += 1
                job.future = KERNELS.submit(self._start, job, work)
                job.future.add_done_callback(lambda _: self._finished(key, job))
            job.waiters += 1
            return job

    @staticmethod
    def _start(job: Job, work: Callable[[Callable[..., None]], T]) -> T:
        job.checkpoint()  # cancelled while queued, after its future could no longer be
        return work(job.checkpoint)

    def _leave(self, key: Hashable, job: Job) -> None:
        with self._lock:
            job.waiters -= 1
            if job.waiters == 0 and not job.future.done():  # nobody waits for it any more
                job.cancelled.set()
                job.future.cancel()  # still queued: never starts; running: stops at its next checkpoint
                self._jobs.pop(key, None)

    def _finished(self, key: Hashable, job: Job) -> None:
        with self._lock:
            self._open -= 1
            if self._jobs.get(key) is job:
                del self._jobs[key]


class WarmUp:
    """The first request's wait, taken at start-up: `work` (load a table, load or compile its kernels: up to a
    minute on a cold Numba cache) on a thread of its own, so that the server accepts requests meanwhile (a
    request that needs the same table waits for the kernel thread, no longer than it would have anyway).
    `on_slow()` is called once the work has taken `slow_after` seconds, then `on_ready(seconds)` when it is done
    without an error (one that failed is answered to the first request that needs the table)."""

    def __init__(
        self,
        work: Callable[[], object],
        on_slow: Callable[[], None] | None = None,
        on_ready: Callable[[float], None] | None = None,
        slow_after: float = 1.0,
    ) -> None:
        self.work, self.on_slow, self.on_ready, self.slow_after = work, on_slow, on_ready, slow_after
        self.done = threading.Event()
        self.error: Exception | None = None  # the first request meets it again and answers it as usual
        self._said_slow = False
        self._lock = threading.Lock()

    def start(self) -> None:
        threading.Thread(target=self._run, name="kniffel-warm-up", daemon=True).start()

    def _slow(self) -> None:
        with self._lock:
            if self.done.is_set():
                return
            self._said_slow = True
        if self.on_slow is not None:
            self.on_slow()

    def _run(self) -> None:
        t0 = time.perf_counter()
        timer = threading.Timer(self.slow_after, self._slow)
        timer.daemon = True
        timer.start()
        try:
            self.work()
        except Exception as exc:
            self.error = exc
        finally:
            timer.cancel()
            with self._lock:
                self.done.set()
                said_slow = self._said_slow
            if said_slow and self.on_ready is not None and self.error is None:  # a failure: the request says it
                self.on_ready(time.perf_counter() - t0)


class DistributionCache:
    """The final-score distribution of each recent (variant, card), computed once. Used by jobs, on the
    kernel thread: one computation at a time, and Jobs shares one among identical requests."""

    def __init__(self, size: int = DISTRIBUTIONS_KEPT):
        self.size = size
        self._answers: OrderedDict[tuple[str, str], dist.Distribution] = OrderedDict()

    def get(self, table: Table, card: Card, checkpoint: Callable[..., None]) -> dist.Distribution:
        """`checkpoint`: called between the forward pass's layers (it raises to stop it)."""
        key = (table.variant.name, card.format())
        if key in self._answers:
            self._answers.move_to_end(key)
            return self._answers[key]
        answer = dist.distribution(table.variant, table.values, card, engine=table.advisor.engine, progress=checkpoint)
        self._answers[key] = answer
        while len(self._answers) > self.size:
            self._answers.popitem(last=False)
        return answer
