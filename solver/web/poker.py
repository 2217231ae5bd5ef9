"""The dice-poker tab of the web page: its page and its one API call (the CLI's `kniffel poker --json`).

    GET /poker                                                          the page (static/poker.html)
    GET /api/poker?dice=&hand=&roll=&rolls=&max_reroll=&ties=&match=    `kniffel poker ... --json`

Bad input is HTTP 400 {"error": "<the CLI's one-line message>"}, as every other call of the page.
"""

from __future__ import annotations

from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ..errors import KniffelError
from ..poker.advice import poker_advice

STATIC = Path(__file__).resolve().parent / "static"
LIMITS = {"dice": 20, "hand": 20, "roll": 1, "rolls": 1, "max_reroll": 1, "ties": 10, "match": 5}
NUMBERS = {"roll": 1, "rolls": 3, "max_reroll": 5}  # whole-number parameters and their defaults


def poker_params(request: Request) -> dict:
    """The call's arguments for poker_advice; unknown, repeated or too long parameters refused in one line."""
    items = request.query_params.multi_items()
    names = [key for key, _ in items]
    for key in names:
        if key not in LIMITS:
            raise KniffelError(f"unknown parameter {key[:40]!r}; allowed: {', '.join(LIMITS)}")
        if names.count(key) > 1:
            raise KniffelError(f"parameter {key!r} is given twice")
    too_long = [key for key, value in items if len(value) > LIMITS[key]]
    if too_long:
        raise KniffelError(f"parameter {too_long[0]!r} is too long; at most {LIMITS[too_long[0]]} characters")
    out = dict(items)
    args: dict = {"dice": out.get("dice") or None, "hand": out.get("hand") or None, "ties": out.get("ties", "kickers")}
    for key, default in NUMBERS.items():
        text = out.get(key, str(default))
        if not (text.isascii() and text.isdigit()):
            raise KniffelError(f"parameter {key!r} is a whole number, not {text!r}")
        args[key] = int(text)
    if out.get("match", "0") not in ("0", "1"):
        raise KniffelError(f"parameter 'match' is 1 or 0, not {out['match']!r}")
    args["match_rolls"] = out.get("match") == "1"
    return args


def poker_routes(headers: dict[str, str]) -> list[Route]:
    """The tab's routes, with the app's security headers."""

    async def answer(request: Request) -> Response:
        try:
            args = poker_params(request)
            body, status = (await run_in_threadpool(lambda: poker_advice(**args).as_dict())), 200
        except KniffelError as exc:
            body, status = {"error": str(exc)}, 400
        return JSONResponse(body, status_code=status, headers=headers)

    def page(request: Request) -> Response:
        return FileResponse(STATIC / "poker.html", headers=headers)

    return [Route("/poker", page), Route("/api/poker", answer)]
