"""The ASGI app behind `kniffel serve`: one static page and a small JSON API.

Every answer comes from the public API (solver/api/, solver/reports.py), equal to what the CLI's --json prints:

    GET /api/variants                                            `kniffel variants --json`
    GET /api/value?variant=&card=                                `kniffel value VARIANT --card C --json`
    GET /api/advise?variant=&card=&dice=&roll=[&box=1][&all=1]   `kniffel advise ... --json [--box] [--all]`
    GET /api/distribution?variant=&card=                         `kniffel distribution VARIANT --card C --json`
    GET /api/chances?variant=&card=&target=                      `kniffel chances VARIANT --card C --target T --json`
    GET /api/advise?...&target=T                                 `kniffel advise ... --target T --json`
    GET /api/texts[?lang=]                                       the page's texts (page_texts.py)

Messages come in the language of the request's Accept-Language header (English when it names none of
de, en, es, fr), as the page sends it.

Kniffel 7's target answers come from the built layers of a target-table job where the server was given one
(`serve --job-dir`) and they hold the card, else are computed from the card when that takes WEB_PASS_SECONDS at
most, else the chances carry "note" (the page's one line) and advise --target answers the plain advice, its
chances under "target".

Bad input is HTTP 400 {"error": "<the CLI's one-line message>"}; a table that cannot be had without a long
solve (Kniffel 7 when neither the tables folder nor the package holds it, and every target table: minutes
to build) is HTTP 409 with a one-line message naming the command that builds it. Safety: every parameter
has a length limit and unknown or repeated parameters are refused; no request names a file. Advice and
values, their table loaded, are answered in the event loop (microseconds to milliseconds); everything
longer is a job of work.Jobs on one kernel thread (bounded queue, HTTP 503 with Retry-After when full,
cancelled when its client goes away), so an advice request is answered while a distribution is computed.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import dp
from ..advice.card_checks import check_bonus_roll
from ..advice.cards import Card, parse_card, without_pending_bonus
from ..advice.choose import make_advisor
from ..api import Table
from ..chances import distribution as dist
from ..chances import targets
from ..chances.ordered_chances import chances_answer, check_card, target_answer
from ..chances.ordered_job import ServedJob
from ..errors import KniffelError
from ..game.dice_input import parse_dice
from ..i18n.texts import language, speaking, t
from ..reports import value_report, variants_report
from ..rules.presets import find_variant
from ..rules.variant import Variant
from ..store import solving, tables, target_tables
from .middleware import HostGuard, NoSniff
from .page_texts import page_texts, request_language
from .poker import poker_routes
from .requests import joker_scored, query, roll_number, target_number, turn_start_card
from .work import KERNELS, RETRY_AFTER_S, DistributionCache, Jobs, Unavailable, WarmUp

STATIC = Path(__file__).resolve().parent / "static"
WEB_PASS_SECONDS = 60.0  # longer Kniffel 7 work (forward pass, exact target play) is left to the CLI
# Kniffel 7 cards this free fit WEB_PASS_SECONDS (worst estimates at SECONDS_PER_STATE 0.025 s, 2 threads: 6 free
# 3,620 states, 45 s; 7 free 9,630 states, 120 s: benchmarks/chart_free_boxes.py); only the hint of the message, the
# estimate decides
CHART_FREE_BOXES = 6
HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
}
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]


class TableUnavailable(KniffelError):
    """The table is missing and building it is a long solve that no request may start (HTTP 409)."""


class TableCache:
    """Each variant's Table, loaded once and shared by every request.

    A missing table of identical dice is solved once, by the first request that needs it (about a second
    once Numba's kernels are compiled; saved to the tables folder like `kniffel solve` does); requests
    for that variant wait for it. A table that takes long to build (Kniffel 7) is never solved by a
    request: TableUnavailable with the CLI's message. Every load and solve runs on the kernel thread, one
    at a time, so a table is never read half-written.
    """

    def __init__(self, tables_dir: Path, solve_missing: bool = True):
        self.tables_dir = tables_dir
        self.solve_missing = solve_missing
        self._tables: dict[str, Table] = {}
        self._spread_ready: set[str] = set()

    def loaded(self, variant: Variant) -> Table | None:
        return self._tables.get(variant.name)

    def get(self, variant: Variant) -> Table:
        table = self._tables.get(variant.name)
        return KERNELS.run(self._load_once, variant) if table is None else table

    def _load_once(self, variant: Variant) -> Table:
        if variant.name not in self._tables:  # loaded by an earlier job meanwhile
            self._tables[variant.name] = self._load(variant)
        return self._tables[variant.name]

    def _load(self, variant: Variant) -> Table:
        try:
            values, meta = solving.load_table(variant, self.tables_dir)
        except tables.TableMissing as exc:
            if not self.solve_missing:
                raise TableUnavailable(str(exc)) from None
            try:
                engine = dp.make_engine(variant)  # refuses a long solve, with the CLI's message
            except KniffelError as refusal:
                raise TableUnavailable(str(refusal)) from None
            values, meta = solving.solve_table(variant, self.tables_dir, progress=False, engine=engine)
        return Table(variant, values, meta, make_advisor(variant, values), self.tables_dir)

    def advice_ready(self, variant: Variant) -> bool:
        """Are the variant's table and second moments loaded (nothing left for its first advice to wait on)?"""
        return variant.name in self._tables and variant.name in self._spread_ready

    def with_spread(self, variant: Variant) -> Table:
        """The table, its second moments (each option's std) loaded once: on the kernel thread, because a
        table saved without them is solved again (seconds; then saved with them)."""
        if variant.name not in self._spread_ready:
            KERNELS.run(self._spread_once, variant)
        return self.get(variant)

    def _spread_once(self, variant: Variant) -> None:
        table = self.get(variant)
        if variant.identical_dice and variant.name not in self._spread_ready:
            table.advise("", (variant.faces[0],) * variant.n_dice, 1, spread=True)  # loads them into the Table
        self._spread_ready.add(variant.name)


class TargetTableCache:
    """Each variant's target table, loaded (memory-mapped, checksum verified) once and shared.

    Never built by a request: building one takes minutes (`kniffel solve VARIANT --target`), so a
    missing table is TargetTableMissing (HTTP 409). A missing table is not remembered: once the
    command has built it, the next request loads it. A file changed since it was loaded (rebuilt, or
    rewritten in place by another tool) is loaded and verified again.
    """

    def __init__(self, tables_dir: Path):
        self.tables_dir = tables_dir
        self._tables: dict[str, targets.TargetTable] = {}
        self._lock = threading.Lock()

    def get(self, variant: Variant) -> targets.TargetTable:
        table = self._tables.get(variant.name)
        if table is None or not table.unchanged():
            with self._lock:
                table = self._tables.get(variant.name)
                if table is None or not table.unchanged():
                    self._tables.pop(variant.name, None)  # a damaged file is not answered from
                    table = targets.load_target_table(variant, self.tables_dir)
                    self._tables[variant.name] = table
        return table


def json_answer(handler: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
    """An endpoint whose result (or KniffelError) becomes the JSON response."""

    async def endpoint(request: Request) -> Response:
        headers = HEADERS
        try:
            with speaking(request_language(request)):  # its messages in the reader's language
                body, status = await handler(request), 200
        except Unavailable as exc:
            body, status, headers = {"error": str(exc)}, 503, {**HEADERS, "Retry-After": str(RETRY_AFTER_S)}
        except (TableUnavailable, tables.TableError, target_tables.TargetTableError) as exc:
            body, status = {"error": str(exc)}, 409
        except KniffelError as exc:
            body, status = {"error": str(exc)}, 400
        return JSONResponse(body, status_code=status, headers=headers)

    endpoint.__name__ = handler.__name__
    return endpoint


def create_app(
    tables_dir: Path | None = None,
    *,
    solve_missing: bool = True,
    allowed_hosts: list[str] | None = None,
    warm_up: Variant | None = None,
    on_slow: Callable[[], None] | None = None,
    on_ready: Callable[[float], None] | None = None,
    jobs: Jobs | None = None,
    target_job: ServedJob | None = None,
) -> Starlette:
    """The app. `allowed_hosts` (the Host header's name) guards a loopback server against DNS rebinding.
    `warm_up`: a variant whose advice (table, second moments, compiled kernels) is made ready when the server
    starts, rather than by the first request (app.state.warm_up; on_slow/on_ready: see work.WarmUp).
    `jobs`: the queue of long computations (default: work.Jobs(), app.state.jobs). `target_job`: Kniffel 7's
    target-table job whose layers answer its target requests where they hold the card."""
    cache = TableCache(tables.tables_dir(tables_dir), solve_missing)
    warming = None if warm_up is None else WarmUp(lambda: cache.with_spread(warm_up), on_slow, on_ready)
    target_cache = TargetTableCache(cache.tables_dir)
    distributions = DistributionCache()
    queue = jobs or Jobs()

    def queued(request: Request, work: Callable[[Callable[..., None]], Any]) -> Awaitable[Any]:
        """work(checkpoint) as a job; an identical request (same path and query) waits for the same one."""
        context = contextvars.copy_context()  # the job speaks the request's language on the kernel thread
        key = (request.url.path, request.url.query, language())
        return queue.run(key, lambda checkpoint: context.run(work, checkpoint), request.receive)

    async def now_or_queued(request: Request, ready: bool, work: Callable[[], Any]) -> Any:
        """work() at once in the event loop when its table is ready (microseconds to milliseconds: no thread
        hop, nothing to wait behind), else as a job (the table is loaded, or solved, first)."""
        return work() if ready else await queued(request, lambda _checkpoint: work())

    def from_job(variant: Variant, card: Card, target: int):
        """The probabilities from the --job-dir's layers where they hold this card and target, else None."""
        return None if target_job is None or target_job.variant != variant else target_job.found(card, target)

    async def variants(request: Request):
        query(request)
        return variants_report(cache.tables_dir)

    async def value(request: Request):
        params = query(request, required=("variant",), allowed=("card",))
        variant = find_variant(params["variant"])
        card, waiting = turn_start_card(variant, params)
        ready = cache.loaded(variant) is not None
        return await now_or_queued(request, ready, lambda: value_report(cache.get(variant), card) | waiting)

    async def advise(request: Request):
        params = query(request, allowed=("variant", "card", "dice", "roll", "box", "all", "target"))
        box_now, show_all, roll = joker_scored(params, "box"), joker_scored(params, "all"), roll_number(params)
        target = target_number(params)
        variant = find_variant(params.get("variant", "kniffel"))  # the CLI's default variant; variant= is refused
        if target is not None:
            return await advise_target(request, variant, params, target, roll, box_now, show_all)

        def answer() -> dict:
            table = cache.with_spread(variant)
            advice = table.advise(params.get("card", ""), params.get("dice", ""), roll, box_now=box_now, spread=True)
            return advice.as_dict(all_options=show_all)

        # dice told apart (Kniffel 7): a card's first advice takes seconds, so it is a job
        return await now_or_queued(request, variant.identical_dice and cache.advice_ready(variant), answer)

    async def advise_target(
        request: Request,
        variant: Variant,
        params: dict[str, str],
        target: int,
        roll: int,
        box_now: bool,
        show_all: bool,
    ) -> dict:
        """advise --target: checked in the CLI's order, so that a bad request is refused before any table."""
        given = parse_card(variant, params.get("card", ""))
        card = without_pending_bonus(given)  # as Table.advise counts it
        rolled = parse_dice(variant, params.get("dice", ""))
        check_bonus_roll(given, card, rolled)
        if not variant.identical_dice:  # Kniffel 7: computed from the card, as the CLI does
            check_card(variant, card, target)

            def answer_ordered(_checkpoint: Callable[..., None]) -> dict:
                table, found = cache.get(variant), from_job(variant, card, target)
                return target_answer(table, card, rolled, roll, target, box_now, show_all, WEB_PASS_SECONDS, found)

            return await queued(request, answer_ordered)
        targets.check_target(variant, card, target)

        def answer(_checkpoint: Callable[..., None]) -> dict:
            table, target_table = cache.get(variant), target_cache.get(variant)
            advice = targets.target_advice(variant, target_table, table.advisor, card, rolled, roll, target, box_now)
            return advice.as_dict(all_options=show_all)

        return await queued(request, answer)

    async def chances(request: Request):
        params = query(request, required=("variant", "target"), allowed=("card",))
        variant = find_variant(params["variant"])
        target = target_number(params)
        if target is None:
            raise KniffelError("parameter 'target' is empty; give the final score to reach")
        card, waiting = turn_start_card(variant, params)
        if not variant.identical_dice:  # Kniffel 7: computed from the card, as the CLI does
            check_card(variant, card, target)

            def answer_ordered(_checkpoint: Callable[..., None]) -> dict:
                table, found = cache.get(variant), from_job(variant, card, target)
                return chances_answer(table, card, target, WEB_PASS_SECONDS, found) | waiting

            return await queued(request, answer_ordered)
        targets.check_target(variant, card, target)

        def answer(checkpoint: Callable[..., None]) -> dict:
            table, target_table = cache.get(variant), target_cache.get(variant)
            pmf = np.asarray(distributions.get(table, card, checkpoint).pmf)  # the forward pass, remembered

            def expected_play(_card: Card, target: int) -> float:  # as win.probability_expected_play
                return dist.p_at_least(pmf, target)

            return targets.chances(variant, target_table, card, target, expected_play).as_dict() | waiting

        return await queued(request, answer)

    async def distribution(request: Request):
        params = query(request, required=("variant",), allowed=("card",))
        variant = find_variant(params["variant"])
        card, waiting = turn_start_card(variant, params)  # checked before a table is loaded, as the CLI does

        def answer(checkpoint: Callable[..., None]) -> dict:
            table = cache.get(variant)
            states, seconds = dist.pmf_work(variant, table.values, card)
            if seconds > WEB_PASS_SECONDS:  # dice told apart, early in the game: the CLI computes it
                fields = {"states": states, "duration": dist.pass_duration(seconds), "free": CHART_FREE_BOXES}
                raise KniffelError(t("dist_too_long_web", variant=variant.name, **fields))
            return distributions.get(table, card, checkpoint).as_dict() | waiting

        return await queued(request, answer)

    async def texts(request: Request):
        params = query(request, allowed=("lang",))
        return page_texts(params.get("lang") or None, request)

    def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers=HEADERS)

    def not_found(request: Request) -> Response:
        with speaking(request_language(request)):
            message = t("api_no_such_call", path=request.url.path[:80])
        return JSONResponse({"error": message}, 404, headers=HEADERS)

    routes = [
        Route("/", page),
        *poker_routes(HEADERS),  # the dice-poker tab: its page and /api/poker
        Route("/api/variants", json_answer(variants)),
        Route("/api/value", json_answer(value)),
        Route("/api/advise", json_answer(advise)),
        Route("/api/distribution", json_answer(distribution)),
        Route("/api/chances", json_answer(chances)),
        Route("/api/texts", json_answer(texts)),
        Route("/api/{rest:path}", not_found),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(NoSniff)]
    if allowed_hosts:
        middleware.append(Middleware(HostGuard, allowed_hosts=allowed_hosts, headers=HEADERS))

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if warming is not None:
            warming.start()  # not awaited: requests are accepted meanwhile
        yield

    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.tables = cache
    app.state.warm_up = warming
    app.state.target_tables = target_cache
    app.state.jobs = queue
    return app
