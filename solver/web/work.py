"""The server's heavy work: Numba's parallel kernels on one thread of their own, distributions computed once.

Requests are plain functions that Starlette runs in its thread pool. Advice takes a few milliseconds of
single-threaded kernels; a new card's distribution (the forward pass) takes seconds on every core, and so
do a missing table's solve and its second moments. Those parallel kernels all run on one thread, KERNELS:

* Numba's workqueue threading layer (used where neither TBB nor OpenMP is installed) is not thread-safe:
  two threads launching parallel kernels at once abort the process. GNU OpenMP (the usual layer) is safe
  but keeps a team of worker threads for every thread that launches one: one launching thread, one team.
* The cores are busy anyway: two forward passes at once would each take twice as long.

Parallel kernels release the GIL while they run, and the forward pass's serial kernels are nogil, so
the request threads keep answering advice meanwhile (measured: benchmarks/bench_web.py). A worker process
was the other choice: it would isolate the GIL entirely, but each worker loads its own copy of the tables
and of the compiled kernels (seconds), and only sees the variants of a fresh interpreter.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from ..advice.cards import Card
from ..api import Table
from ..chances import distribution as dist

T = TypeVar("T")
DISTRIBUTIONS_KEPT = 256  # (variant, card) answers remembered: the forward pass takes seconds


class KernelThread:
    """One thread for every parallel kernel of the process (solve, second moments, forward pass), in
    the order asked."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def submit(self, work: Callable[..., T], *args) -> Future[T]:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kniffel-kernels")
            return self._pool.submit(work, *args)

    def run(self, work: Callable[..., T], *args) -> T:
        """work(*args) on the kernel thread; the caller waits (without the GIL) for its result or error."""
        return self.submit(work, *args).result()


KERNELS = KernelThread()  # one for the process: two apps in one process must not launch kernels at once


class WarmUp:
    """The first request's wait, taken at start-up: `work` (load a table, load or compile its kernels: up to a
    minute on a cold Numba cache) on a thread of its own, so that the server accepts requests meanwhile (a
    request that needs the same table waits for the same locks, no longer than it would have anyway).
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
    """The final-score distribution of each recent (variant, card), computed on KERNELS once: a request
    for a card whose distribution is being computed waits for that computation instead of starting one."""

    def __init__(self, size: int = DISTRIBUTIONS_KEPT):
        self.size = size
        self._answers: OrderedDict[tuple[str, str], dist.Distribution] = OrderedDict()
        self._pending: dict[tuple[str, str], Future[dist.Distribution]] = {}
        self._lock = threading.Lock()

    def get(self, table: Table, card: Card) -> dist.Distribution:
        key = (table.variant.name, card.format())
        with self._lock:
            if key in self._answers:
                self._answers.move_to_end(key)
                return self._answers[key]
            future = self._pending.get(key)
            if future is None:
                future = KERNELS.submit(self._compute, key, table, card)
                self._pending[key] = future
        return future.result()

    def _compute(self, key: tuple[str, str], table: Table, card: Card) -> dist.Distribution:
        try:
            answer = dist.distribution(table.variant, table.values, card, engine=table.advisor.engine)
        except BaseException:
            with self._lock:
                del self._pending[key]  # not remembered: the error reaches every request waiting for it
            raise
        with self._lock:  # one step: a request in between sees the answer or the pending computation
            del self._pending[key]
            self._answers[key] = answer
            while len(self._answers) > self.size:
                self._answers.popitem(last=False)
        return answer
