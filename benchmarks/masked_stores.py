"""Lists the kernels whose machine code stores through an AVX mask (vmaskmovpd / vpmaskmovq to memory).

    python benchmarks/masked_stores.py

AMD Zen microcodes these stores: a loop that LLVM vectorised with one ran about 4x slower than with a plain
store (solver/dp/compile.py, unmasked). The kernels are compiled afresh in a temporary cache folder (Numba
shows no machine code for kernels loaded from its cache), which takes a few minutes; the value solve, the
advice kernels, a simulation, small target tables and distributions are run so that their kernels compile.
Prints one line per kernel with such stores and exits 1 if there are any. AVX-512 machines mask stores
differently ({%k} operands, fast there): this check is for AVX2 machines.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile

STORE = re.compile(r"\bv(p?)maskmov(pd|ps|q|d)\s+%[xy]mm\d+, %[xy]mm\d+, [^%\s]")


def main() -> int:
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="kniffel-masked-")
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import importlib
    import pkgutil
    import warnings

    warnings.filterwarnings("ignore", message="Inspection disabled")
    import solver.dp as dp_package
    from solver import dp
    from solver.advice.advisor import Advisor
    from solver.advice.cards import Card
    from solver.chances.distribution import final_pmf
    from solver.chances.simulation import simulate
    from solver.chances.targets import build_target_table
    from solver.rules.presets import PRESETS

    for name in ("yahtzee", "yatzy"):
        variant = PRESETS[name]
        values, _ = dp.solve(variant)
        advisor = Advisor(variant, values)
        advisor.best_action(Card(variant), (1, 2, 3, 4, 5), 1)
        advisor.advise(Card(variant), (1, 2, 3, 4, 5), 2)
        advisor.advise(Card(variant), (6, 6, 6, 6, 6), 3)
        simulate(variant, values, 100, seed=1)
    small = {
        "kniffel": (["ones", "sixes", "kniffel", "chance"], 3, [(6, 10)]),
        "generala": (["twos", "escalera", "full", "generala", "doble_generala"], 5, None),
    }
    for name, (boxes, n_dice, bonuses) in small.items():
        variant = PRESETS[name].reduced(boxes=boxes, n_dice=n_dice, bonuses=bonuses)
        values, _ = dp.solve(variant)
        build_target_table(variant)
        final_pmf(variant, values, Card(variant))
    found = 0
    for info in pkgutil.iter_modules(dp_package.__path__):
        module = importlib.import_module(f"solver.dp.{info.name}")
        for name, kernel in sorted(vars(module).items()):
            if getattr(kernel, "__module__", "") != module.__name__ or not getattr(kernel, "signatures", None):
                continue
            stores = sum(len(STORE.findall(asm)) for asm in kernel.inspect_asm().values())
            if stores:
                print(f"{info.name}.{name}: {stores} masked stores")
                found += 1
    print(f"{found} kernels with masked stores")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
