"""What the command line says, in German, English, Spanish and French.

The English texts are the source: message id -> format string in catalogue.py, errors.py, errors_system.py,
help.py, reports.py and web.py (a pair (singular, plural) where a count is printed). The other languages are gettext
catalogues (gettext_files.py: locale/<lang>/LC_MESSAGES/kniffel.po) whose message ids are those English texts,
with the key as their context; scripts/catalogues.py extracts, updates and compiles them. Call sites keep
asking by key: t("message_id", **fields). Numbers are written the language's way (numbers.py).

The language: `--lang de|en|es|fr`, else the locale variables (LC_ALL, LC_MESSAGES, LANG: the first one set
decides, as in POSIX; GNU gettext's LANGUAGE list before it, except in the C locale; another language, C or
POSIX leaves the choice to the variant), else the variant's own
language (German for the Kniffel games, English for Yahtzee and Yatzy, Spanish for Generala, French for Yams).
"""

from __future__ import annotations

import difflib
import errno
import functools
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from .catalogue import EN
from .errors import EN_ERRORS
from .errors_system import EN_SYSTEM_ERRORS
from .gettext_files import translations
from .help import EN_HELP
from .jobs import EN_JOBS
from .numbers import LocaleFormatter, format_number
from .poker import EN_POKER
from .reports import EN_REPORTS
from .web import EN_WEB

SOURCE: dict = {**EN, **EN_ERRORS, **EN_SYSTEM_ERRORS, **EN_REPORTS, **EN_HELP, **EN_WEB, **EN_JOBS, **EN_POKER}
LANGUAGES = ("de", "en", "es", "fr")


class _Catalogues(Mapping):
    """language -> {message id: text}, each language read from its catalogue when first asked for (a plural
    message: its general form)."""

    def __init__(self) -> None:
        self._loaded: dict[str, dict[str, str]] = {}

    def __getitem__(self, lang: str) -> dict[str, str]:
        if lang not in LANGUAGES:
            raise KeyError(lang)
        if lang not in self._loaded:
            self._loaded[lang] = {key: _translate(lang, key, 2) for key in SOURCE}
        return self._loaded[lang]

    def __iter__(self) -> Iterator[str]:
        return iter(LANGUAGES)

    def __len__(self) -> int:
        return len(LANGUAGES)


CATALOGUES = _Catalogues()


def _translate(lang: str, key: str, count) -> str:
    """The text of one message in one language (English where the catalogue lacks it)."""
    source = SOURCE[key]
    if isinstance(source, tuple):
        n = count if isinstance(count, int) else 2
        return _translations(lang).npgettext(key, source[0], source[1], n)
    return _translations(lang).pgettext(key, source)


@functools.cache
def _translations(lang: str):
    return translations(lang)


@functools.cache
def _formatter(lang: str) -> LocaleFormatter:
    return LocaleFormatter(lang)


_current = "en"  # the library speaks English unless the CLI chose otherwise
# one request of the web page speaks its reader's language (web/app.py), without touching the others'
_request_language: ContextVar[str | None] = ContextVar("kniffel_language", default=None)


def _ours(name: str) -> str | None:
    """The language of ours a locale name (de_DE.UTF-8, fr, es_AR@euro) names, or None."""
    lang = name.split(".")[0].split("@")[0].split("_")[0].lower()
    return lang if lang in CATALOGUES else None


def locale_language(environ=None) -> str | None:
    """A language of ours from the locale variables, or None when they name none. As GNU gettext: LANGUAGE
    (a priority list, de:fr) comes first unless the locale is C or POSIX, where LANGUAGE is ignored."""
    env = os.environ if environ is None else environ
    locale = next((env[var] for var in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(var)), "")
    if locale.split(".")[0] not in ("", "C", "POSIX"):
        for name in env.get("LANGUAGE", "").split(":"):
            if name and _ours(name):
                return _ours(name)
    return _ours(locale) if locale else None


def choose_language(requested: str | None, variant_lang: str = "en", environ=None) -> str:
    """--lang, else the locale, else the variant's language."""
    if requested:
        return requested
    return locale_language(environ) or variant_lang


def set_language(lang: str) -> None:
    global _current
    if lang not in LANGUAGES:
        raise ValueError(f"language {lang!r}: one of {', '.join(LANGUAGES)}")
    _current = lang


def language() -> str:
    return _request_language.get() or _current


def speaking_language() -> str | None:
    """A web request's language (speaking), else None: the CLI's --json is the same in every language (a
    contract), while a JSON answer to a web request is in the request's language."""
    return _request_language.get()


@contextmanager
def speaking(lang: str | None) -> Iterator[None]:
    """The current context (a web request, its job) speaks `lang` meanwhile (None: the process's language)."""
    token = _request_language.set(lang if lang in LANGUAGES else None)
    try:
        yield
    finally:
        _request_language.reset(token)


def t(msg_id: str, **fields) -> str:
    """The message in the current language, its fields filled in (numbers the language's way)."""
    source = SOURCE[msg_id]
    lang = language()
    if lang == "en" and isinstance(source, str):
        return source.format(**fields)
    text = _translate(lang, msg_id, fields.get("count")) if isinstance(source, tuple) else CATALOGUES[lang][msg_id]
    return _formatter(lang).format(text, **fields)


def number(value: int | float, spec: str = "", lang: str | None = None) -> str:
    """One number as the language writes it: number(245.11, ".2f") -> '245,11' in German."""
    return format_number(value, spec, lang or language())


def word_list(words, lang: str | None = None) -> str:
    """'a, b or c' / 'a, b oder c'."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {CATALOGUES[lang or language()]['or']} {words[-1]}"


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
    return format_number(n, ",", lang or language())


# -- the operating system's refusals -----------------------------------------------------
def os_reason(exc: OSError) -> str:
    """Why the operating system refused, in the current language (its own English text when the
    catalogue has no word for that errno)."""
    key = f"reason_{errno.errorcode.get(exc.errno or 0, '')}"
    return CATALOGUES[language()].get(key, str(exc.strerror or exc))


def os_error_text(exc: OSError) -> str:
    """One line for an OSError: what was done (files.FileOperationError knows it), to which path, why. The
    project's own file operations name their file; an OSError without one is a write to stdout or stderr."""
    operation = getattr(exc, "operation", None)
    if exc.filename is None:
        return t("os_output", reason=os_reason(exc))
    return t(f"os_{operation}" if operation else "os_path", path=exc.filename, reason=os_reason(exc))


# -- names in the chosen language -------------------------------------------------------
def die_name(variant, index: int, lang: str | None = None) -> str:
    """A Kniffel 7 die's colour in the language (`colour_<name>`: its first spelling)."""
    name = variant.die_names[index]
    return CATALOGUES[lang or language()].get(f"colour_{name}", name).split("/")[0]


@functools.cache
def colour_spellings(lang: str) -> dict[str, str]:
    """Every spelling of a die colour a player of `lang` may type -> the colour (its English name): the names in
    English, German and `lang`, and the short codes of `lang` (a code of another
    language would clash: 'b' is blue in English, blanco in Spanish). `lang`'s own spellings win."""
    spellings: dict[str, str] = {}
    for each in dict.fromkeys(("en", "de", lang)):
        for key, text in CATALOGUES[each].items():
            if key.startswith("colour_") and not key.startswith("colour_code_"):
                spellings.update(dict.fromkeys(text.lower().split("/"), key.removeprefix("colour_")))
    for key, code in CATALOGUES[lang].items():
        if key.startswith("colour_code_"):
            spellings[code.lower()] = key.removeprefix("colour_code_")
    return spellings


def box_name(variant, index: int, lang: str | None = None) -> str:
    """The box's name in the language: German and English from the box itself, the others from the catalogue
    (`box_<key>`; a box it lacks keeps its English name)."""
    box = variant.boxes[index]
    lang = lang or language()
    if lang in ("de", "en"):
        return box.name_de if lang == "de" else box.name_en
    return CATALOGUES[lang].get(f"box_{box.key}", box.name_en)


def variant_title(variant, lang: str | None = None) -> str:
    """The variant's title in the chosen language (a variant without a catalogue entry: its own title)."""
    return CATALOGUES[lang or language()].get(f"title_{variant.name}", variant.title)


def option_name(option: str, lang: str | None = None) -> str:
    """A variant's option ('house rule: --keep-one') in the chosen language."""
    return CATALOGUES[lang or language()].get(f"option_{option}", option)


def bonus_name(variant, lang: str | None = None) -> str:
    """What the extra points of further jokers are called: 'Yahtzee bonus', 'Kniffel-Bonus'."""
    if variant.joker_box is None:
        return CATALOGUES[lang or language()]["extra"]
    return _formatter(lang or language()).format(
        CATALOGUES[lang or language()]["joker_bonus_name"], box=box_name(variant, variant.joker_index, lang)
    )


# -- click's own usage errors -------------------------------------------------------------
def _template_pattern(template: str) -> re.Pattern:
    """The English template as a pattern: each {field} (or {field!r}) matches any text."""
    parts = re.split(r"{(\w+)(?:![rs])?}", template)
    regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    return re.compile(regex, re.DOTALL)


_CLICK_PATTERNS = [(key, _template_pattern(text)) for key, text in EN_SYSTEM_ERRORS.items() if key.startswith("click_")]


# click's placeholders of the arguments -> their catalogue keys (metavar_<key>): the help and click's own messages
ARGUMENT_METAVARS = {"VARIANT": "variant", "DICE": "dice", "GAME.json": "game"}


def click_message(message: str, lang: str | None = None) -> str:
    """A message click formatted in English, in the current language: matched against click's templates
    (errors_system.py, `click_*`), the German template filled with what matched. Unknown messages stay
    as they are."""
    lang = lang or language()
    if lang == "en":
        return message
    for key, pattern in _CLICK_PATTERNS:
        found = pattern.fullmatch(message)
        if found:
            fields = found.groupdict()
            if "message" in fields:
                fields["message"] = click_message(fields["message"], lang)
            if "name" in fields:  # click's Path type names what it wanted ('File'), a missing argument its metavar
                name, argument = fields["name"], ARGUMENT_METAVARS.get(fields["name"].strip("'"))
                fields["name"] = (
                    f"'{CATALOGUES[lang][f'metavar_{argument}']}'"
                    if argument
                    else CATALOGUES[lang].get(f"path_kind_{name}", name)
                )
            template = re.sub(r"{(\w+)![rs]}", r"{\1}", CATALOGUES[lang][key])  # the matched text is quoted already
            return template.format(**fields)
    return message
