"""The message catalogues: extract the English texts, update the German, Spanish and French catalogues, compile
them, check them.

The English texts are the source: the EN_* dicts of solver/i18n/*.py (message key -> format string, or a pair
(singular, plural) where a count is printed). Babel extracts them with the extractor below (every entry as
pgettext(key, text) or npgettext(key, singular, plural): the key is the message's context), and updates
solver/i18n/locale/<lang>/LC_MESSAGES/kniffel.po from them: a changed English text turns its translation
fuzzy, a new one comes in untranslated, and `check` fails until a translator has been there.

    .venv/bin/python scripts/catalogues.py update    # extract, then merge into de/es/fr .po
    .venv/bin/python scripts/catalogues.py check     # every message translated, not fuzzy, same {fields}
    .venv/bin/python scripts/catalogues.py compile   # the .mo files into a folder (--out), for a build
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import string
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
I18N = ROOT / "solver" / "i18n"
LANGUAGES = ("de", "es", "fr")
sys.path.insert(0, str(ROOT))

from solver.i18n.gettext_files import _store, compile_po, po_path  # noqa: E402


def extract_english(fileobj, keywords, comment_tags, options):
    """Babel extraction method: every entry of a module-level EN_* dict, its key as the context."""
    tree = ast.parse(fileobj.read())
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)):
            continue
        if not any(isinstance(t, ast.Name) and t.id.startswith("EN") for t in node.targets):
            continue
        for key, value in zip(node.value.keys, node.value.values):
            if not isinstance(key, ast.Constant):
                continue
            if isinstance(value, ast.Tuple):
                yield value.lineno, "npgettext", (key.value, *(e.value for e in value.elts)), []  # type: ignore
            else:
                yield value.lineno, "pgettext", (key.value, value.value), []  # type: ignore


def extract() -> Catalog:
    """The template: every English text of solver/i18n."""
    template = Catalog(project="kniffel", domain="kniffel", charset="utf-8")
    for filename, lineno, message, _comments, context in extract_from_dir(
        str(I18N),
        method_map=[("*.py", extract_english)],
        keywords={"pgettext": ((1, "c"), 2), "npgettext": ((1, "c"), 2, 3)},
    ):
        template.add(message, locations=[(f"solver/i18n/{filename}", lineno)], context=context)
    return template


def po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    catalog.fuzzy = False  # the header: a fuzzy one would leave the plural rule out of the .mo
    catalog.last_translator = "kniffel developers"
    catalog.language_team = f"{catalog.locale} (kniffel)"
    write_po(out, catalog, width=120, include_previous=True, include_lineno=False)  # no line numbers: quiet diffs
    return out.getvalue()


def update(template: Catalog) -> None:
    for lang in LANGUAGES:
        path = po_path(lang)
        catalog = read_po(path.open("rb"), locale=lang, domain="kniffel")
        created = catalog.creation_date
        catalog.update(template, update_header_comment=False)
        catalog.creation_date = created  # an update that changes no message changes no byte
        catalog.obsolete.clear()  # a message gone from the source is gone: git keeps its history
        _store(path, po_bytes(catalog))


FIELD = re.compile(r"{(\w+)")


def fields(text: str) -> set[str]:
    """The {placeholders} of a format string (also those nested in a format spec: {name:<{width}})."""
    return set(FIELD.findall(text))


def problems(template: Catalog, lang: str) -> list[str]:
    """What is missing, fuzzy, or has other {fields} than the English text in one language's catalogue."""
    catalog = read_po(po_path(lang).open("rb"), locale=lang, domain="kniffel")
    found = []
    for message in template:
        if not message.id:
            continue
        key = message.context
        entry = catalog.get(message.id, context=key)
        if entry is None or not entry.string or not all(entry.string if entry.pluralizable else [entry.string]):
            found.append(f"{lang}: {key}: not translated")
            continue
        if entry.fuzzy:
            found.append(f"{lang}: {key}: fuzzy (the English text changed)")
        english = fields(message.id[1] if message.pluralizable else message.id)
        for form in entry.string if entry.pluralizable else [entry.string]:
            if fields(form) != english:
                found.append(f"{lang}: {key}: fields {sorted(fields(form))}, English {sorted(english)}")
            try:
                list(string.Formatter().parse(form))
            except ValueError as exc:
                found.append(f"{lang}: {key}: not a format string ({exc})")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("update", "check", "compile"))
    parser.add_argument("--out", type=Path, help="compile: the folder for <lang>/LC_MESSAGES/kniffel.mo")
    args = parser.parse_args(argv)
    template = extract()
    if args.command == "update":
        update(template)
    if args.command == "compile":
        for lang in LANGUAGES:
            out = (args.out or I18N / "locale") / lang / "LC_MESSAGES" / "kniffel.mo"
            _store(out, compile_po(po_path(lang).read_bytes(), lang))
    found = [p for lang in LANGUAGES for p in problems(template, lang)]
    for line in found:
        print(line, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
