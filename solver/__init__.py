"""kniffel: exact optimal-strategy solver and advisor for solitaire Kniffel and its variants."""

from . import numba_setup

numba_setup.configure()  # before Numba is imported: its cache folder and threads

__version__ = "0.1.0"
