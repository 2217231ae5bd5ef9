"""kniffel: exact optimal-strategy solver and advisor for solitaire Kniffel and its variants.

The public API (solver/api/) loads lazily, so `import solver` stays cheap:

    import solver
    table = solver.load("kniffel")
    table.advise("chance=22", dice="33516", roll=1).best.text
"""

from typing import Any

from . import numba_setup
from .version import __version__ as __version__  # solver.__version__

numba_setup.configure()  # before Numba is imported: its cache folder and threads


__all__ = [
    "Advice", "Chances", "KniffelError", "PokerAdvice", "Simulation", "Table", "TargetAdvice", "TargetError",
    "TargetTableMissing", "as_card", "as_dice", "find_variant", "load", "poker_advice", "simulate", "variants",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name == "KniffelError":
        from .errors import KniffelError

        return KniffelError
    if name == "find_variant":
        from .rules.presets import find_variant

        return find_variant
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'solver' has no attribute {name!r}")
