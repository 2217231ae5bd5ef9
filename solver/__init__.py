"""kniffel: exact optimal-strategy solver and advisor for solitaire Kniffel and its variants."""

import os

# LLVM's SLP vectoriser turns the row-tuple code of the ordered-dice kernel (dp._row) into vector
# loads, maxes and adds: 3-4x faster there. Numba leaves it off by default. It changes no result
# (no reassociation: no fast-math) and Numba reads the setting at each compilation.
os.environ.setdefault("NUMBA_SLP_VECTORIZE", "1")

__version__ = "0.1.0"
