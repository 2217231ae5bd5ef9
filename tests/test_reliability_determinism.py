"""Issue 10: a table is the same bit for bit whatever the number of threads (identical dice with
Numba's prange, dice told apart with Python threads taking work items as they come)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SOLVE = textwrap.dedent(
    """
    import hashlib, json
    import numba
    from solver import dp
    from solver.rules import KNIFFEL7, PRESETS
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


def test_tables_are_bit_identical_with_one_and_two_threads():
    one, two = solve_with(1), solve_with(2)
    assert one.pop("threads") == 1 and two.pop("threads") == 2
    assert one == two
