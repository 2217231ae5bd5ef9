"""Issue 10: a table is the same bit for bit whatever the number of threads (identical dice on lane
threads of balanced shares, dice told apart with Python threads taking work items as they come)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

SOLVE = textwrap.dedent(
    """
    import hashlib, json
    import numba
    from solver import dp
    from solver.rules.presets import KNIFFEL7, PRESETS
    small7 = KNIFFEL7.reduced(boxes=["sixes", "sevens", "four_of_a_kind", "super_kniffel", "chance"], n_dice=4,
                              bonuses=[(20, 35)])
    out = {"threads": numba.get_num_threads()}
    for variant in (PRESETS["kniffel"], PRESETS["yatzy6"], small7):
        values, _ = dp.solve(variant, engine=dp.make_engine(variant, allow_slow=True))
        out[variant.name] = hashlib.sha256(values.tobytes()).hexdigest()
    print(json.dumps(out))
    """
)


def solve_with(threads: int) -> dict:
    env = {**os.environ, "NUMBA_NUM_THREADS": str(threads)}
    res = subprocess.run(
        [sys.executable, "-c", SOLVE], env=env, cwd=REPO, capture_output=True, text=True, timeout=900, check=True
    )
    return json.loads(res.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_tables_are_bit_identical_with_one_and_two_threads():
    one, two = solve_with(1), solve_with(2)
    assert one.pop("threads") == 1 and two.pop("threads") == 2
    assert one == two


def test_ordered_solve_threads_stop_at_the_next_work_item_after_ctrl_c(monkeypatch):
    """Ctrl-C in the main thread while the Kniffel 7 layer runs on worker threads: every thread ends
    after its current work item, and the interrupt goes on (the kernel is replaced by a slow stand-in:
    this is about the Python loop around it)."""
    import _thread
    import signal
    import threading
    import time

    import numpy as np
    import pytest

    from solver.dp import ordered_layer

    n_calls = 10_000
    calls = (np.zeros((n_calls, 8), np.int64),) * 3 + (np.full(n_calls, 8, np.int64),)
    monkeypatch.setattr(ordered_layer, "_ordered_calls", lambda *args: calls)
    done = []

    def slow_kernel(call_mask, *args):
        time.sleep(0.01 * call_mask.shape[0])  # 10 ms a call
        done.append((time.perf_counter(), call_mask.shape[0]))

    monkeypatch.setattr(ordered_layer, "_solve_calls_ordered", slow_kernel)
    # interrupt_main calls the SIGINT handler in place: Python's own, as at a terminal (a run started in the
    # background, or a pytest-xdist worker, ignores SIGINT and would see no interrupt at all)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        threading.Timer(0.5, _thread.interrupt_main).start()
        t0 = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            ordered_layer._solve_layer_ordered(None, None, type("Up", (), {"totals": None})(), None, None, None, [0, 1])
        stopped = time.perf_counter() - t0
    finally:
        signal.signal(signal.SIGINT, previous)
    # without the stop: 10,000 calls x 10 ms / 2 threads = 50 s; with it, the interrupt after 0.5 s, the main
    # thread's next look (every 0.1 s) and the items running then (40 ms each), with room for a loaded machine
    assert stopped < 2.0, stopped
    assert sum(n for _, n in done) < n_calls / 10
