"""The app's middleware: every response marked nosniff, and the loopback server's guard on the Host header."""

from __future__ import annotations

from collections.abc import Sequence

from starlette.datastructures import Headers
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..i18n.texts import speaking, t
from .page_texts import request_language

PASSED = "kniffel.host_allowed"  # set in the request's scope once the Host header is one allowed


class NoSniff:
    """X-Content-Type-Options: nosniff on every response, static files and refusals too: a browser takes
    each body as the type it is sent with, never guesses another."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_nosniff(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-content-type-options", b"nosniff")]
            await send(message)

        await self.app(scope, receive, send_nosniff)


class HostGuard:
    """Requests only for the host names given (a loopback server: against web pages that point their own name
    at this machine, DNS rebinding). Starlette's TrustedHostMiddleware decides (its parsing of the Host header,
    IPv6 included); a refusal is the app's JSON error in the reader's language, naming the names it answers
    to, instead of its bare English "Invalid host header"."""

    def __init__(self, app: ASGIApp, allowed_hosts: Sequence[str], headers: dict[str, str]) -> None:
        self.app = app
        self.allowed_hosts = list(dict.fromkeys(allowed_hosts))  # serve --host 127.0.0.1 adds a name it has
        self.headers = headers
        self.trusted = TrustedHostMiddleware(self._passed, allowed_hosts=self.allowed_hosts, www_redirect=False)

    async def _passed(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[PASSED] = True
        await self.app(scope, receive, send)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def refusal_dropped(message: Message) -> None:
            if scope.get(PASSED):
                await send(message)

        await self.trusted(scope, receive, refusal_dropped)
        if scope.get(PASSED):
            return
        host = Headers(scope=scope).get("host", "")[:80]
        with speaking(request_language(Request(scope))):
            message = t("api_host_refused", host=host, hosts=", ".join(self.allowed_hosts))
        await JSONResponse({"error": message}, 400, headers=self.headers)(scope, receive, send)
