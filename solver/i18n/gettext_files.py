"""The gettext catalogues: solver/i18n/locale/<lang>/LC_MESSAGES/kniffel.po (English message ids, the
message's key as its context), compiled by Babel to .mo at first use into the user's cache folder (written
atomically, named by the .po's hash so an edited catalogue is compiled again). Where no cache folder is
writable the .mo is compiled in memory: slower, same texts."""

from __future__ import annotations

import gettext
import hashlib
import io
import os
import tempfile
from pathlib import Path

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "kniffel"


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def compile_po(po: bytes, lang: str) -> bytes:
    """The .mo of a .po, fuzzy entries left out (gettext's own rule)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    out = io.BytesIO()
    write_mo(out, read_po(io.BytesIO(po), locale=lang, domain=DOMAIN))
    return out.getvalue()


def _cache_folder() -> Path | None:
    try:
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("kniffel", appauthor=False)) / "locale"
    except Exception:  # no home folder: compile in memory
        return None


def _store(path: Path, data: bytes) -> None:
    """Temp file in the same folder, fsync, rename: a reader never sees half a .mo."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def translations(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of one language (English: none, the message ids are the texts)."""
    source = po_path(lang)
    if lang == "en" or not source.is_file():
        return gettext.NullTranslations()
    po = source.read_bytes()
    folder = _cache_folder()
    cached = None if folder is None else folder / f"{lang}-{hashlib.sha256(po).hexdigest()[:16]}.mo"
    if cached is not None and cached.is_file():
        return gettext.GNUTranslations(io.BytesIO(cached.read_bytes()))
    mo = compile_po(po, lang)
    if cached is not None:
        try:
            _store(cached, mo)
        except OSError:
            pass  # a read-only cache: the next run compiles again
    return gettext.GNUTranslations(io.BytesIO(mo))
