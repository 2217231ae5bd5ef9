"""Numbers as a reader of the language writes them (245,11 in German, Spanish and French; 245.11 in English):
the digits come from Python's own format (so every language shows the same rounding), the decimal mark,
thousands separator and percent sign from Babel's locale data (CLDR)."""

from __future__ import annotations

import functools
import re
import string

_SPEC = re.compile(
    r"(?P<align>(?:.?[<>=^])?)(?P<sign>[-+ ]?)(?P<zero>0?)(?P<width>\d*)(?P<rest>[,_]?(?:\.\d+)?[a-zA-Z%]?)"
)


@functools.cache
def symbols(lang: str) -> tuple[str, str, str]:
    """(decimal mark, thousands separator, percent suffix) of a language: ('.', ',', '%') in English."""
    if lang == "en":
        return ".", ",", "%"
    from babel import Locale
    from babel.numbers import get_decimal_symbol, get_group_symbol

    pattern = Locale.parse(lang).percent_formats[None].pattern  # '#,##0 %': what follows the digits
    return get_decimal_symbol(lang), get_group_symbol(lang), pattern[pattern.rindex("0") + 1 :]


def format_number(value: int | float, spec: str, lang: str) -> str:
    """format(value, spec), written the language's way; the width still counts characters."""
    found = _SPEC.fullmatch(spec)
    if lang == "en" or found is None or found["zero"]:
        return format(value, spec)
    decimal, group, percent = symbols(lang)
    text = format(value, found["sign"] + found["rest"])
    if text.endswith("%"):
        text = text[:-1] + percent
    text = text.translate({ord("."): decimal, ord(","): group})
    return format(text, (found["align"] or ">") + found["width"])


class LocaleFormatter(string.Formatter):
    """str.format whose numbers follow the language (format_number); everything else as str.format."""

    def __init__(self, lang: str):
        self.lang = lang

    def format_field(self, value, format_spec):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return format_number(value, format_spec, self.lang)
        return super().format_field(value, format_spec)
