"""Kniffel 7's kernels in the quick suite, interpreted: a child pytest with KNIFFEL_JIT=0 runs the Kniffel 7
cases on small variants (tests/kniffel7_interpreted_cases.py and reduced-variant tests of other files), where
the kernels are plain Python and nothing compiles. Compiled, the same kernels cost about a minute of CPU to
compile before the first answer: the tests of the compiled kernels on the real kniffel7 are slow tests."""

import os
import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent
CASES = [
    "kniffel7_interpreted_cases.py",
    "test_dp_vs_naive.py::test_dice_told_apart_match_naive",
    "test_dp_vs_naive.py::test_super_points_on_dice_told_apart_match_naive",
    "test_dp_vs_naive.py::test_ordered_kernel_equals_multiset_kernel_on_identical_dice[kniffel-boxes1]",
    "test_kniffel7.py::test_keep_advice_matches_brute_force",
    "test_kniffel7.py::test_box_advice_and_value_agree",
    "test_kniffel7.py::test_keep_text_names_the_dice",
    "test_kniffel7.py::test_game_with_dice_told_apart_reviews_lossless",
    "test_kniffel7.py::test_interrupted_solve_resumes_from_its_checkpoint",
]
EXPECTED = 23  # tests in CASES: all must run and pass, none skipped or left out


def test_kniffel7_kernels_interpreted_pass_every_case():
    env = {**os.environ, "KNIFFEL_JIT": "0", "KNIFFEL_TESTS_INTERPRETED": "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-W", "error"]
    run = subprocess.run([*command, *CASES], cwd=TESTS, env=env, capture_output=True, text=True, timeout=600)
    tail = run.stdout[-3000:] + run.stderr[-2000:]
    assert run.returncode == 0, tail
    summary = run.stdout.strip().splitlines()[-1]
    assert re.fullmatch(rf"{EXPECTED} passed in [\d.]+s( \(\d+:\d+:\d+\))?", summary), tail
