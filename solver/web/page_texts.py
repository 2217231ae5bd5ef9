"""The page's language: its texts from the catalogues (solver/i18n/web.py and the .po files, GET /api/texts) and
the language of every API answer, read from the request's Accept-Language header (app.js sends the reader's
choice there)."""

from __future__ import annotations

from starlette.requests import Request

from ..errors import KniffelError
from ..i18n.texts import CATALOGUES, LANGUAGES, t


def accepted_language(header: str) -> str | None:
    """Our language that an Accept-Language header ('es-AR,es;q=0.9,en;q=0.8') prefers, or None."""
    ranked = []
    for position, part in enumerate(header.split(",")[:20]):
        tag, _, weight = part.strip().partition(";")
        q = 1.0
        if weight.strip().startswith("q="):
            try:
                q = float(weight.strip()[2:])
            except ValueError:
                q = 0.0
        lang = tag.strip().split("-")[0].lower()
        if lang in LANGUAGES and q > 0:
            ranked.append((-q, position, lang))
    return min(ranked)[2] if ranked else None


def request_language(request: Request) -> str | None:
    return accepted_language(request.headers.get("accept-language", ""))


def page_texts(lang: str | None, request: Request) -> dict:
    """The page's texts in `lang` (else in the browser's language, else English); `browser`: the language the
    browser asks for (None: none of ours), so that the page can fall back to the variant's own."""
    browser = request_language(request)
    if lang is not None and lang not in LANGUAGES:
        raise KniffelError(t("web_language_choice", lang=lang[:5], languages=", ".join(LANGUAGES)))
    chosen = lang or browser or "en"
    texts = {key: text for key, text in CATALOGUES[chosen].items() if key.startswith("web_")}
    return {"lang": chosen, "browser": browser, "languages": list(LANGUAGES), "texts": texts}
