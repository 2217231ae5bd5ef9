"""A variant's engine: everything the kernels need for it (its rules as arrays, the keep lattice of identical
dice or the index tables of dice told apart, its upper-total states), and which variants the kernels solve."""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from ..rules.dice import KeepLattice, keep_lattice, multisets
from ..rules.variant import RuleError, Variant
from .ordered_dice import OrderedDice, ordered_dice
from .rules import Rules, rules_arrays
from .states import UpperStates, upper_states


class Engine(NamedTuple):
    """Everything the kernels need for one variant."""

    variant: Variant
    rules: Rules
    lattice: KeepLattice | None  # identical dice only
    upper: UpperStates
    ordered: OrderedDice | None  # dice told apart only


MAX_ORDERED_DICE = 5  # beyond this a solve takes long (seven dice: about half an hour): only an explicit `solve`


def make_engine(variant: Variant, allow_slow: bool = False, ordered: bool | None = None) -> Engine:
    """The kernels' view of a variant: multisets for identical dice, ordered dice otherwise
    (`ordered=True` forces the ordered kernel, which the tests cross-check on identical dice)."""
    faces = variant.faces
    if len(faces) < 3 or any(len(die) != 6 for die in variant.dice):
        raise ValueError(f"{variant.name}: the kernels need six-sided dice")
    rules = _rules(variant)
    if ordered is None:
        ordered = not variant.identical_dice
    if not ordered:
        return Engine(variant, rules, keep_lattice(variant.n_dice, len(faces)), _upper(variant), None)
    if variant.min_keep_last_reroll:
        raise RuleError(f"{variant.name}: the keep-a-die house rule is only solved for identical dice")
    if variant.has_first_roll_points:
        raise RuleError(f"{variant.name}: first-roll (servida) points are only solved for identical dice")
    if variant.n_dice > MAX_ORDERED_DICE and not allow_slow:
        raise RuleError(
            f"{variant.name}: its table takes about half an hour to build; build it once with "
            f"`kniffel solve {variant.name}` (resumable)"
        )
    return Engine(variant, rules, None, _upper(variant), _ordered(variant))


# An engine's arrays are a pure function of the variant and only read (by the kernels, as by the caches that keep
# engines: chances/ordered_chances.py, dp/forward_ordered.py), so each is built once a process for the last few
# variants: Kniffel 7's took 0.4 s a make_engine, paid again by every command and request.
@lru_cache(maxsize=8)
def _rules(variant: Variant) -> Rules:
    faces = variant.faces
    rolls = [tuple(f for f, c in zip(faces, m) for _ in range(c)) for m in multisets(variant.n_dice, len(faces))]
    return rules_arrays(variant, rolls)


@lru_cache(maxsize=8)
def _upper(variant: Variant) -> UpperStates:
    return upper_states(variant)


@lru_cache(maxsize=4)
def _ordered(variant: Variant) -> OrderedDice:
    return ordered_dice(variant)
