"""The split of a parallel kernel's items into one lane per thread (solver/dp/lanes.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.dp.lanes import balanced_lanes, in_threads


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=300), st.integers(1, 8))
def test_every_item_in_one_lane_and_no_lane_far_above_the_mean(costs, n_lanes):
    order, lane_start = balanced_lanes(np.array(costs), n_lanes)
    assert sorted(order.tolist()) == list(range(len(costs)))  # each item exactly once
    assert lane_start[0] == 0 and lane_start[-1] == len(costs) and np.all(np.diff(lane_start) >= 0)
    loads = [sum(costs[i] for i in order[a:b]) for a, b in zip(lane_start[:-1], lane_start[1:])]
    # greedy largest-first: a lane ends at most one item above the mean load of the lanes
    assert max(loads) <= sum(costs) / len(loads) + max(costs)


def test_items_sorted_big_first_are_shared_evenly():
    """The case Numba's prange split badly: big items first, then small ones."""
    costs = np.array([100] * 50 + [1] * 50)
    order, lane_start = balanced_lanes(costs, 2)
    loads = [costs[order[a:b]].sum() for a, b in zip(lane_start[:-1], lane_start[1:])]
    assert loads == [2525, 2525]


def test_run_lanes_runs_each_lane_once_and_passes_on_its_error():
    from solver.dp.lanes import run_lanes

    seen = []
    run_lanes(lambda first, last, out: out.append((first, last)), np.array([0, 3, 3, 7]), seen)
    assert sorted(seen) == [(0, 3), (3, 3), (3, 7)]

    def failing(first, last):
        if first == 3:
            raise ValueError("lane 2")

    with pytest.raises(ValueError, match="lane 2"):
        run_lanes(failing, np.array([0, 3, 5]))


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 200), st.integers(0, 9), st.integers(1, 4))
def test_in_threads_runs_every_item_once(n, chunk, threads):
    """Each item in exactly one kernel call, in ranges lo < hi of at most chunk items (chunk 0: an equal share)."""
    import solver.dp.lanes as lanes

    runs = np.zeros(n, dtype=np.int64)
    calls = []

    def kernel(lo, hi, out):
        calls.append((lo, hi))
        out[lo:hi] += 1

    saved = lanes.thread_count
    lanes.thread_count = lambda: threads
    try:
        in_threads(kernel, n, runs, chunk=chunk)
    finally:
        lanes.thread_count = saved
    assert runs.tolist() == [1] * n
    assert all(lo < hi for lo, hi in calls)
    if chunk and threads > 1:
        assert all(hi - lo <= chunk for lo, hi in calls)
