"""Whether one target answer can come from files alone, so that a fresh process may run the kernels as
plain Python (numba_setup.interpret, as plain `advise` does): loading Numba and its cached kernels costs
most of a second, one target turn interpreted a few hundredths.

Sidecars only (no table read, no kernel, no import of solver.dp): the value table and the target table
exist for these rules in the current format, the card's layer (and for advice the next one: the boxes
it fills) is stored, not left out (a recomputed state is hundreds of interpreted columns), and for
`chances` the points to come under max-expected play are cached for the card's state (an interpreted
forward pass would take hours). A wrong "yes" would only be slow, never wrong: the same code runs.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import KniffelError
from ..i18n.texts import t
from ..rules.variant import Variant
from ..store.expected_play_cache import cache_path, has_state
from ..store.files import read_json

TARGET_FORMAT = 2  # target_tables.TARGET_FORMAT (not imported: that module loads solver.dp)
MAX_SIDECAR_BYTES = 1 << 20


def _target_sidecar(variant: Variant, directory: Path) -> dict | None:
    if not (directory / f"{variant.name}.target.npy").exists():
        return None
    try:
        meta = read_json(
            directory / f"{variant.name}.target.json", MAX_SIDECAR_BYTES, t("word_target_sidecar"), KniffelError
        )
    except KniffelError:
        return None
    ok = isinstance(meta, dict) and meta.get("format") == TARGET_FORMAT
    return meta if ok and meta.get("fingerprint") == variant.fingerprint() else None


def answers_from_disk(variant: Variant, directory: Path, state, *, next_layer: bool, expected_play: bool) -> bool:
    """Can a target answer at this card state (mask, upper, joker_scored) be read from files alone?"""
    from ..store import tables

    if not variant.identical_dice:
        return False
    table = tables.read_meta(variant, directory)
    meta = _target_sidecar(variant, directory)
    if table is None or meta is None or not isinstance(meta.get("dropped_layers"), list):
        return False
    filled = bin(int(state[0])).count("1")
    if filled in meta["dropped_layers"] or (next_layer and filled + 1 in meta["dropped_layers"]):
        return False
    return not expected_play or has_state(cache_path(variant, directory), table.get("sha256"), state)
