"""The target build's kernels compiled in a second process while this one solves or loads the value table
(issue 27: `chances kniffel --target 300` as the first command).

Numba holds the GIL while it compiles, so a thread would not overlap the value table's compile; a second
process does, on the second core: it builds the target table of a small variant of the same rules (three
boxes, three dice: the same kernels with the same argument types, a fraction of a second of work), which
writes the compiled kernels into the Numba cache. The build then waits for it and loads them from there.
When the child fails, nothing is lost: the build compiles the kernels itself, as without this module.
"""

from __future__ import annotations

import atexit
import subprocess
import sys

from . import prewarm

# the child's work (not `-m`: the package imports this module before running it as __main__, which Python warns of;
# the current folder off sys.path first, where a folder named solver or numpy would be imported instead)
_CHILD = "import sys; del sys.path[0]; from solver.cli.target_compile import compile_kernels as c; c(sys.argv[1])"
_child: list[subprocess.Popen] = []  # the compile started by start(), until wait() has seen it end


def start(variant, tables_dir) -> None:
    """Start compiling the target kernels beside this process when the variant's target table is missing
    (it will be built) and the kernels are not in the cache yet; at most one child a process."""
    from ..store.target_tables import target_paths
    from . import waits

    if _child or not variant.identical_dice or not waits.cold("target"):
        return
    if all(p.exists() for p in target_paths(variant, tables_dir)):
        return
    try:
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, variant.name],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:  # no second process: the build compiles the kernels itself
        return
    _child.append(child)
    prewarm.BUSY.add("target")  # the background compile of a new install leaves these to it
    atexit.register(_stop, child)


def wait() -> None:
    """Before the target build: let the child finish writing the compiled kernels (nothing when none runs)."""
    while _child:
        _child.pop().wait()
    prewarm.BUSY.discard("target")


def _stop(child: subprocess.Popen) -> None:
    """At exit (an error before the build): the child's work is of no more use."""
    if child.poll() is None:
        child.terminate()
        child.wait()


def compile_kernels(name: str) -> None:
    """The child's work: a small target table of the variant's rules, which leaves the kernels in the cache."""
    from ..chances.targets import build_target_table
    from ..rules.presets import PRESETS

    variant = PRESETS.get(name, PRESETS["kniffel"])  # the kernels' argument types are those of every preset
    small = variant.reduced(boxes=[b.key for b in variant.boxes[:3]], n_dice=3)
    build_target_table(small)
