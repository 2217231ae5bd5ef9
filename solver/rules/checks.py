"""The public API's argument checks, one rule each: a wrong argument is a KniffelError (RuleError) whose
message names the argument, what it was and what is allowed, as the CLI's errors do."""

from __future__ import annotations

import os

import numpy as np

from ..errors import KniffelError
from ..i18n.texts import t
from .variant import RuleError, Variant


def is_whole(value) -> bool:
    """A whole number as Python or numpy holds it. Bools are not numbers here, and floats are refused even
    when whole (3.7 would otherwise become 3, and nan, inf and 1e20 have no integer at all)."""
    return type(value) is int or isinstance(value, int | np.integer) and not isinstance(value, bool)


def shown(value) -> str:
    """A value as a message quotes it: repr, cut short (a huge list or string would flood the line)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def whole(name: str, value, low: int, high: int | None = None) -> int:
    """A whole number from low to high (no upper bound when high is None)."""
    if not is_whole(value) or value < low or high is not None and value > high:
        allowed = t("api_range", low=low, high=high) if high is not None else t("api_at_least", low=low)
        raise RuleError(t("api_whole", name=name, value=shown(value), allowed=allowed))
    return int(value)


def flag(name: str, value) -> bool:
    """True or False (numpy's bools too, and 0 or 1 as the tables index them); nothing else is truthy here."""
    if isinstance(value, bool | np.bool_) or is_whole(value) and value in (0, 1):
        return bool(value)
    raise RuleError(t("api_flag", name=name, value=shown(value)))


def folder(name: str, value) -> str | os.PathLike | None:
    """A folder path (a non-empty string or os.PathLike, without a NUL: no file system has one), or None for
    the default."""
    if value is None:
        return value
    if isinstance(value, os.PathLike | str) and value:
        path = os.fspath(value)
        if ("\0" if isinstance(path, str) else b"\0") not in path:
            return value
    raise RuleError(t("api_folder", name=name, value=shown(value)))


def text(name: str, value, example: str) -> str:
    if not isinstance(value, str):
        raise RuleError(t("api_text", name=name, value=shown(value), example=example))
    return value


def sequence(name: str, value, example: str) -> list:
    """A list or tuple (not a string, whose characters would pass for items)."""
    if not isinstance(value, list | tuple):
        raise RuleError(t("api_sequence", name=name, value=shown(value), example=example))
    return list(value)


def variant(name: str, value) -> Variant:
    if not isinstance(value, Variant):
        raise RuleError(t("api_variant", name=name, value=shown(value)))
    return value


MAX_NAME = 20


def check_names(names: list, where: str, error: type[KniffelError]) -> None:
    """Players' names, wherever they come from (--players, odds --names, a game file): 1 to MAX_NAME printable
    characters (they are echoed to the terminal: no escape sequences, no bells, no line breaks), distinct."""
    for name in names:
        if not isinstance(name, str) or not name or len(name) > MAX_NAME or not name.isprintable():
            raise error(t("players_name", where=where, name=shown(name), most=MAX_NAME))
    folded = [n.casefold() for n in names]
    if len(set(folded)) != len(folded):
        twice = next(n for n in names if folded.count(n.casefold()) > 1)
        raise error(t("players_twice", where=where, name=twice))
