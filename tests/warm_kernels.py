"""Compile the kernels the quick tests use into the Numba disk cache before the test workers start.

With an empty cache every xdist worker compiles each kernel it meets, the same kernels on both workers at
once: about a minute and a half of one core each. conftest.py's pytest_configure (on the xdist controller,
when the cache is cold) runs this file as two processes, one a group, so that the compiling is split over
the two cores and done once; the workers then load the kernels from the cache. The groups are the ones a new
install compiles in the background (solver/cli/prewarm.py), on small variants.

    python tests/warm_kernels.py identical   # solve with moments, advice, batch, forward pass (generala)
    python tests/warm_kernels.py play        # target table, least sure points, simulation, best action (generala)

Kniffel 7's kernels (dice told apart) are not here: the quick tests run them interpreted
(tests/test_kniffel7_interpreted.py), the slow tests compile them.
"""

from __future__ import annotations

import sys

from solver.cli.prewarm import run_groups


def main(names: list[str]) -> None:
    run_groups(names)


if __name__ == "__main__":
    main(sys.argv[1:])
