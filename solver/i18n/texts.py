"""What the command line says, in German and in English: two plain catalogues (message id -> format string).

Plain dicts rather than gettext: gettext would need .po files compiled to .mo files at build time and
shipped as package data, keyed by the English sentence; two dicts need no build step, travel inside the
package, and a test checks that both hold the same ids with the same placeholders.

The language: `--lang de|en`, else the locale variables (LC_ALL, LC_MESSAGES, LANG: the first one set
decides, as in POSIX; a language other than de or en, C or POSIX leaves the choice to the variant),
else the variant's own language (German for the Kniffel games, English for Yahtzee and Yatzy).
"""

from __future__ import annotations

import difflib
import errno
import os
import re

from .catalogue import DE, EN
from .errors import DE_ERRORS, EN_ERRORS
from .errors_system import DE_SYSTEM_ERRORS, EN_SYSTEM_ERRORS
from .help import DE_HELP, EN_HELP
from .poker import DE_POKER, EN_POKER
from .reports import DE_REPORTS, EN_REPORTS

CATALOGUES = {
    "de": {**DE, **DE_ERRORS, **DE_SYSTEM_ERRORS, **DE_REPORTS, **DE_HELP, **DE_POKER},
    "en": {**EN, **EN_ERRORS, **EN_SYSTEM_ERRORS, **EN_REPORTS, **EN_HELP, **EN_POKER},
}
LANGUAGES = tuple(CATALOGUES)

_current = "en"  # the library speaks English unless the CLI chose otherwise


def locale_language(environ=None) -> str | None:
    """'de' or 'en' from the locale variables, or None when they name neither."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var, "")
        if value:
            lang = value.split(".")[0].split("_")[0].lower()
            return lang if lang in CATALOGUES else None
    return None


def choose_language(requested: str | None, variant_lang: str = "en", environ=None) -> str:
    """--lang, else the locale, else the variant's language."""
    if requested:
        return requested
    return locale_language(environ) or variant_lang


def set_language(lang: str) -> None:
    global _current
    if lang not in CATALOGUES:
        raise ValueError(f"language {lang!r}: one of {', '.join(LANGUAGES)}")
    _current = lang


def language() -> str:
    return _current


def t(msg_id: str, **fields) -> str:
    """The message in the current language, its fields filled in."""
    return CATALOGUES[_current][msg_id].format(**fields)


def word_list(words, lang: str | None = None) -> str:
    """'a, b or c' / 'a, b oder c'."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {CATALOGUES[lang or _current]['or']} {words[-1]}"


def did_you_mean(word: str, candidates, normalize=lambda s: s.lower()) -> str:
    """' Did you mean X?' for the closest candidates, or ''. `candidates`: names, or a mapping from every
    accepted spelling to the name to show for it."""
    shown = candidates if isinstance(candidates, dict) else {c: c for c in candidates}
    by_norm: dict[str, str] = {}
    for spelling, name in shown.items():
        by_norm.setdefault(normalize(spelling), name)
    close = difflib.get_close_matches(normalize(word), list(by_norm), n=3, cutoff=0.6)
    names = list(dict.fromkeys(by_norm[c] for c in close))
    return t("did_you_mean", words=word_list(names)) if names else ""


def count_text(n: int, lang: str | None = None) -> str:
    """A whole number with its thousands marked as the language writes them: 100,000 / 100.000."""
    text = f"{n:,}"
    return text.replace(",", ".") if (lang or _current) == "de" else text


# -- the operating system's refusals -----------------------------------------------------
def os_reason(exc: OSError) -> str:
    """Why the operating system refused, in the current language (its own English text when the
    catalogue has no word for that errno)."""
    key = f"reason_{errno.errorcode.get(exc.errno or 0, '')}"
    return CATALOGUES[_current][key] if key in CATALOGUES[_current] else str(exc.strerror or exc)


def os_error_text(exc: OSError) -> str:
    """One line for an OSError: what was done (files.FileOperationError knows it), to which path, why. The
    project's own file operations name their file; an OSError without one is a write to stdout or stderr."""
    operation = getattr(exc, "operation", None)
    if exc.filename is None:
        return t("os_output", reason=os_reason(exc))
    return t(f"os_{operation}" if operation else "os_path", path=exc.filename, reason=os_reason(exc))


# -- names in the chosen language -------------------------------------------------------
DIE_NAMES_DE = {"blue": "blau", "green": "grün", "purple": "lila", "yellow": "gelb", "red": "rot", "black": "schwarz"}
DIE_NAMES_DE["white"] = "weiß"


def die_name(variant, index: int, lang: str | None = None) -> str:
    name = variant.die_names[index]
    return DIE_NAMES_DE.get(name, name) if (lang or _current) == "de" else name


def box_name(variant, index: int, lang: str | None = None) -> str:
    box = variant.boxes[index]
    return box.name_de if (lang or _current) == "de" else box.name_en


def variant_title(variant, lang: str | None = None) -> str:
    """The variant's title in the chosen language (a variant without a catalogue entry: its own title)."""
    return CATALOGUES[lang or _current].get(f"title_{variant.name}", variant.title)


def option_name(option: str, lang: str | None = None) -> str:
    """A variant's option ('house rule: --keep-one') in the chosen language."""
    return CATALOGUES[lang or _current].get(f"option_{option}", option)


def bonus_name(variant, lang: str | None = None) -> str:
    """What the extra points of further jokers are called: 'Yahtzee bonus', 'Kniffel-Bonus'."""
    if variant.joker_box is None:
        return CATALOGUES[lang or _current]["extra"]
    return CATALOGUES[lang or _current]["joker_bonus_name"].format(box=box_name(variant, variant.joker_index, lang))


# -- click's own usage errors -------------------------------------------------------------
def _template_pattern(template: str) -> re.Pattern:
    """The English template as a pattern: each {field} (or {field!r}) matches any text."""
    parts = re.split(r"{(\w+)(?:![rs])?}", template)
    regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    return re.compile(regex, re.DOTALL)


_CLICK_PATTERNS = [(key, _template_pattern(text)) for key, text in CATALOGUES["en"].items() if key.startswith("click_")]


def click_message(message: str, lang: str | None = None) -> str:
    """A message click formatted in English, in the current language: matched against click's templates
    (errors_system.py, `click_*`), the German template filled with what matched. Unknown messages stay
    as they are."""
    lang = lang or _current
    if lang == "en":
        return message
    for key, pattern in _CLICK_PATTERNS:
        found = pattern.fullmatch(message)
        if found:
            fields = found.groupdict()
            if "message" in fields:
                fields["message"] = click_message(fields["message"], lang)
            if "name" in fields:  # click's Path type names what it wanted: 'File', 'Directory', 'Path'
                fields["name"] = CATALOGUES[lang].get(f"path_kind_{fields['name']}", fields["name"])
            template = re.sub(r"{(\w+)![rs]}", r"{\1}", CATALOGUES[lang][key])  # the matched text is quoted already
            return template.format(**fields)
    return message
