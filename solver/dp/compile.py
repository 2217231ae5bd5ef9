"""The one njit of the package: Numba's, with the on-disk cache switched off when no cache folder is
writable (solver/numba_setup.py decides)."""

from __future__ import annotations

from numba import njit as _numba_njit

from .. import numba_setup


def njit(*args, **options):
    if not numba_setup.CACHE_ENABLED:
        options.pop("cache", None)
    return _numba_njit(*args, **options)
