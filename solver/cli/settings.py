"""What every command shares before it runs: the settings of the command line (Settings), the language of a
usage error, and the default variant. Beneath base.py and help.py, which both read it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..i18n.texts import LANGUAGES, locale_language


def _usage_language(args: list[str]) -> str:
    """The language of a usage error, which comes before any command runs: --lang, else the locale, else
    the language of a variant named on the command line, else English."""
    from ..rules.presets import PRESETS

    for i, arg in enumerate(args):
        if arg.startswith("--lang="):
            value = arg.partition("=")[2]
            if value in LANGUAGES:
                return value
        if arg == "--lang" and i + 1 < len(args) and args[i + 1] in LANGUAGES:
            return args[i + 1]
    named = [PRESETS[a].lang for a in args if a in PRESETS]
    if not named and "poker" in args:  # the dice-poker duel speaks as Würfelpoker players do
        named = [PRESETS["wuerfelpoker"].lang]
    if not named and any(a in DEFAULT_VARIANT_COMMANDS for a in args):
        named = [PRESETS[_variant_or_default(None)].lang]  # `kniffel play --bogus`: the game it would play
    return locale_language() or (named[0] if named else "en")


DEFAULT_VARIANT_COMMANDS = ("play", "advise", "simulate")  # VARIANT is optional: kniffel


@dataclass
class Settings:
    """Every command's shared flags, in one object."""

    tables_dir: Path
    threads: int | None = None
    progress: bool = True
    lang: str | None = None  # --lang; None: the locale variables, else the variant's language


def _variant_or_default(variant_name):
    return "kniffel" if variant_name is None else variant_name  # '' is no variant: find_variant refuses it
