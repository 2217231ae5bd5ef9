"""Numba's environment, set before Numba is first imported (solver/__init__.py imports this first).

* The on-disk cache of compiled kernels lives in a folder keyed by a hash of every kernel source
  (solver/dp/*.py) and Numba's version. Numba's own cache checks only the file of the decorated
  function, not the files of the kernels it calls; a new folder for new sources makes a stale kernel
  impossible. The folder is the user's cache folder, else a private temporary folder; when neither is
  writable the kernels compile on each start (a one-line notice says so) instead of failing.
* A NUMBA_NUM_THREADS that Numba would refuse at import is dropped with a notice. The notices come from the
  catalogues, in the locale's language (--lang is not read yet when `import solver` runs).
* LLVM's SLP vectoriser is switched on: it turns the row-tuple code of the dice-told-apart kernel into
  vector instructions (3-4x faster there) and changes no result (no fast-math).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

KERNELS = Path(__file__).resolve().parent / "dp"
CACHE_ENABLED = True  # read by dp.compile: False when no cache folder is writable
# read by dp.compile when it is first imported: KNIFFEL_JIT=0 keeps the kernels plain Python (see there)
JIT = os.environ.get("KNIFFEL_JIT", "1").strip() != "0"


def _notice(msg_id: str, **fields) -> None:
    """One line on stderr from the catalogues, in the locale's language: this runs while `import solver` is under
    way, before the CLI has read --lang. solver.i18n imports nothing of the solver but solver.errors, so no
    circle; it is imported only here, when there is something to say, so a plain start pays nothing for it."""
    from .i18n.texts import locale_language, speaking, t

    with speaking(locale_language()):
        text = t(msg_id, **fields)
    print(f"kniffel: {text}", file=sys.stderr)


def kernel_hash() -> str:
    digest = hashlib.sha256()
    try:
        digest.update(version("numba").encode())
    except PackageNotFoundError:
        pass
    for path in sorted(KERNELS.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder):
            pass
        return True
    except OSError:
        return False


def _user_cache_root() -> Path | None:
    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("kniffel", appauthor=False))
    except Exception:  # no home folder, unknown user: try the next place
        return None


def _choose_cache_dir() -> str | None:
    tag = f"numba-{kernel_hash()}"
    candidates = []
    if os.environ.get("NUMBA_CACHE_DIR"):
        wanted = Path(os.environ["NUMBA_CACHE_DIR"])  # the user's choice, checked like ours
        # configure() sets it to the chosen folder: a child process (a test's, a worker) reuses that folder
        candidates.append(wanted if wanted.name == tag else wanted / tag)
    root = _user_cache_root()
    if root is not None:
        candidates.append(root / tag)
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    candidates.append(Path(tempfile.gettempdir()) / f"kniffel-{uid}" / tag)
    for folder in candidates:
        if _writable(folder):
            return str(folder)
    return None


def interpret() -> bool:
    """Run the kernels as plain Python in this process (as KNIFFEL_JIT=0 does), for one quick answer from a
    solved table; possible only before solver.dp is first imported. Returns whether it took effect."""
    global JIT
    if "solver.dp.compile" in sys.modules:
        return not JIT
    JIT = False
    return True


def configure() -> None:
    global CACHE_ENABLED
    os.environ.setdefault("NUMBA_SLP_VECTORIZE", "1")
    threads = os.environ.get("NUMBA_NUM_THREADS")
    if threads is not None and not (threads.strip().isdigit() and int(threads) >= 1):
        _notice("numba_threads_ignored", value=threads)
        del os.environ["NUMBA_NUM_THREADS"]
    wanted = os.environ.get("NUMBA_CACHE_DIR")
    folder = _choose_cache_dir()
    if folder is None:
        CACHE_ENABLED = False
        _notice("numba_no_cache")
    elif wanted and not folder.startswith(wanted):
        _notice("numba_cache_moved", wanted=wanted, folder=folder)
    if folder is not None:
        os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:  # imported before us: its config was read already
        import numba

        numba.config.CACHE_DIR = folder or ""  # type: ignore[attr-defined]
