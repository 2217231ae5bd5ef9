"""Work split into one lane per thread, of near-equal cost.

Numba's prange hands each thread an equal count of iterations, not an equal share of the work: items
sorted big first put every big item on the first thread. A parallel kernel that takes lanes instead
(`for lane in prange(n_lanes)`, then its items in turn) gets a balanced split whatever the sizes.

run_lanes runs a plain (nogil) kernel once per lane on threads of its own instead: the same split, without
a parallel kernel's compile (Numba's parallel pass and a second copy of the whole call tree: _target_layer
compiled in 7.2 s of CPU as a prange kernel, 1.9 s as a lane kernel), and with the GIL free meanwhile.
"""

from __future__ import annotations

import heapq
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .compile import thread_count


def balanced_lanes(costs: np.ndarray, n_lanes: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(order, lane_start): lane t runs items order[lane_start[t] : lane_start[t + 1]]. Largest item
    first, each to the least loaded lane (within 4/3 of the best split, and close to it when there
    are many more items than lanes)."""
    if n_lanes is None:
        n_lanes = thread_count()
    n_lanes = max(1, min(n_lanes, len(costs)))
    loads = [(0.0, lane) for lane in range(n_lanes)]
    lanes: list[list[int]] = [[] for _ in range(n_lanes)]
    for item in np.argsort(-np.asarray(costs, dtype=np.float64), kind="stable"):
        load, lane = heapq.heappop(loads)
        lanes[lane].append(int(item))
        heapq.heappush(loads, (load + float(costs[item]), lane))
    order = np.array([item for lane in lanes for item in lane], dtype=np.int64)
    lane_start = np.cumsum([0] + [len(lane) for lane in lanes]).astype(np.int64)
    return order, lane_start


def layer_lanes(masks: np.ndarray, jokers_scored: np.ndarray, costs: np.ndarray):
    """One layer's work items (masks, jokers_scored) reordered lane by lane, and lane_start (see balanced_lanes)."""
    order, lane_start = balanced_lanes(costs)
    return lane_start, masks[order], jokers_scored[order]


def in_threads(kernel, n: int, *args, chunk: int = 0) -> None:
    """kernel(lo, hi, *args) over the items 0 <= i < n, on thread_count() threads at once: each thread takes
    the next `chunk` items (0: an equal share) until none are left. The kernel releases the GIL (nogil) and
    writes only its own items' results. Threads here rather than Numba's prange: a prange kernel compiles
    for seconds longer (its loop body compiled again as a gufunc, with all its callees' code), a thread
    costs tens of microseconds."""
    threads = min(thread_count(), n)
    if threads <= 1:
        if n > 0:
            kernel(0, n, *args)
        return
    step = chunk or -(-n // threads)
    starts = iter(range(0, n, step))  # shared: each next() is one step under the GIL

    def work() -> None:
        for lo in starts:
            kernel(lo, min(lo + step, n), *args)

    with ThreadPoolExecutor(threads) as pool:
        for done in [pool.submit(work) for _ in range(threads)]:
            done.result()


def run_lanes(kernel, lane_start: np.ndarray, *args) -> None:
    """kernel(lane_start[t], lane_start[t + 1], *args) for every lane t (kernel: an njit(nogil=True) kernel
    over the items of one lane), the lanes on in_threads' threads."""

    def lanes(lo: int, hi: int) -> None:
        for t in range(lo, hi):
            kernel(int(lane_start[t]), int(lane_start[t + 1]), *args)

    in_threads(lanes, lane_start.shape[0] - 1, chunk=1)
