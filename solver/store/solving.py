"""Building tables: solve a variant with a progress bar, checkpoints for long solves, save atomically (the
values and their second moments, one pass); or load a table and solve it first when it is missing."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .. import dp
from ..dp.compile import require_jit
from ..errors import KniffelError
from ..i18n.texts import count_text, t
from ..rules.variant import Variant
from . import tables
from .locations import shipped_tables_dir


def _notice(text: str) -> None:
    print(f"kniffel: {text}", file=sys.stderr)


def _solve(variant: Variant, engine: dp.Engine, progress: bool, resume=None, after_layer=None):
    """dp.solve_with_moments with a tqdm bar on stderr (shown only on a terminal)."""
    from ..progress import LiveBar

    bar = LiveBar(
        total=dp.count_states(variant),
        desc=t("progress_solve", variant=variant.name),
        unit=" " + t("unit_state"),
        unit_scale=True,
        disable=None if progress else True,
        file=sys.stderr,
        leave=False,
    )
    with bar:
        return dp.solve_with_moments(
            variant, progress=bar.update, engine=engine, resume=resume, after_layer=after_layer
        )


def solve_table(
    variant: Variant,
    directory: Path,
    *,
    progress: bool = True,
    engine: dp.Engine | None = None,
    before_work: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, dict]:
    """Solve a variant, save its table (and second moments) to `directory` atomically and return (values,
    sidecar).

    Long solves (dice told apart) write a checkpoint after every layer and resume from it.
    `progress` shows a tqdm bar on stderr (only on a terminal); before_work(states left to solve) runs once
    the folder and any checkpoint have been checked, just before the work (the CLI says how long it takes).
    """
    require_jit("jit_solve", variant=variant.name)  # KNIFFEL_JIT=0: refused before any notice or estimate
    engine = engine or dp.make_engine(variant, allow_slow=True)  # refuses what it cannot solve, before the bar
    tables.check_writable_folder(directory, tables.paths(variant, directory))  # before the work, not when saving
    long_solve = engine.ordered is not None
    resume, before = None, 0.0
    if long_solve:
        found = tables.load_checkpoint(variant, directory)
        if found is not None:
            values, next_layer, solved, before = found
            resume = (values, next_layer, solved)
            total = count_text(dp.count_states(variant))
            _notice(t("notice_resuming", variant=variant.name, solved=count_text(solved), total=total))
    if before_work is not None:
        before_work(dp.count_states(variant) - (resume[2] if resume else 0))
    t0 = time.perf_counter()

    def checkpoint(values, next_layer, solved):
        tables.save_checkpoint(variant, directory, values, next_layer, solved, before + time.perf_counter() - t0)

    values, m2, states = _solve(variant, engine, progress, resume, checkpoint if long_solve else None)
    seconds = before + time.perf_counter() - t0
    meta = tables.save(variant, values, directory, states=states, seconds=seconds, m2=m2)
    tables.remove_checkpoint(variant, directory)
    return values, meta


def table_moments(
    variant: Variant,
    values: np.ndarray,
    directory: Path | None,
    *,
    progress: bool = True,
    engine: dp.Engine | None = None,
    notice: Callable[[str], None] = _notice,
) -> np.ndarray:
    """The second moments of `values`, the variant's table in `directory` (None: not on disk): read beside
    it, else (a table saved without them, by an older version) made as the solve makes them, by solving the
    table again (the same values, bit for bit) with a progress bar, and saved with it where the folder takes
    files."""
    if directory is not None:
        m2 = tables.load_moments(variant, directory, values)
        if m2 is not None:
            return m2
    notice(t("notice_moments", variant=variant.name))
    t0 = time.perf_counter()
    values, m2, states = _solve(variant, engine or dp.make_engine(variant), progress)
    assert m2 is not None, "second moments: identical dice only"
    if directory is not None:
        try:
            tables.save(variant, values, directory, states=states, seconds=time.perf_counter() - t0, m2=m2)
        except (OSError, KniffelError):
            pass  # a read-only tables folder, or something not a file in the way: solved again next time
    return m2


def load_table(variant: Variant, directory: Path) -> tuple[np.ndarray, dict]:
    """(values, sidecar) from `directory`, else the table shipped with the package; TableMissing if neither."""
    try:
        return tables.load(variant, directory)
    except tables.TableMissing:
        shipped = shipped_tables_dir()
        if directory.resolve() != shipped and tables.paths(variant, shipped)[0].exists():
            return tables.load(variant, shipped)
        raise


def table_meta(variant: Variant, directory: Path) -> dict | None:
    """The sidecar of the table load_table would use, if any."""
    meta = tables.read_meta(variant, directory)
    return meta if meta is not None else tables.read_meta(variant, shipped_tables_dir())


def load_or_solve(
    variant: Variant, directory: Path, *, progress: bool = True, notice: Callable[[str], None] = _notice
) -> tuple[np.ndarray, dict]:
    """The variant's (values, sidecar): loaded, or solved first (with a notice) when missing.

    A table that takes long to build (Kniffel 7, when not shipped) is refused with the command that
    builds it, instead of starting a half-hour solve unasked."""
    try:
        return load_table(variant, directory)
    except tables.TableMissing:
        require_jit("jit_solve", variant=variant.name)  # KNIFFEL_JIT=0: refused, not announced
        engine = dp.make_engine(variant)  # refuses what it cannot solve quickly, before the notice
        tables.check_writable_folder(directory, tables.paths(variant, directory))
        notice(t("notice_solving", variant=variant.name, path=directory))
        return solve_table(variant, directory, progress=progress, engine=engine)
