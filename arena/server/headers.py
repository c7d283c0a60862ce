"""The security headers of every response of ``arena serve``.

Each response carries a strict Content-Security-Policy (nothing is allowed unless named:
``default-src 'none'``), refuses to be framed (``frame-ancestors 'none'`` and
``X-Frame-Options: DENY``), is never sniffed into another type (``nosniff``) and sends
its address to this site alone (``Referrer-Policy: same-origin``). What a participant
sees signed in, what a Bearer token asks the API, and the answer to any form (the token
page among them) is ``Cache-Control: no-store``. A server with ``secure_cookies`` (behind
HTTPS) adds ``Strict-Transport-Security``.

The pages inline their CSS and the game page its script too; every such block is fixed
text (no request's data is in one), so the policy names each by its SHA-256 hash, taken
when the server starts from the templates and the report's assets themselves (never
from a response): an injected ``<script>`` or ``<style>`` matches no hash and does not
run. The game viewer's markup and script colour the seats with ``style`` attributes,
which a nonce cannot name and a hash only one value at a time (``'unsafe-hashes'``, of
every bot colour the viewer may write); the game page alone allows those
(``style-src-attr 'unsafe-inline'``: an attribute cannot run script, and with
``img-src`` closed it cannot send anything anywhere either).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import inspect
import re
from importlib import resources
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

INLINE = re.compile(r"<(script|style)>(.*?)</\1>", re.S)
"""An inline script or style block as the templates write it (a ``<script>`` with a
``type``, the page's JSON data, is never run and needs no hash)."""
GAME_PAGE = re.compile(r"/ladders/[^/]+/games/[^/]+")
"""The address of a game page (the report's viewer), whose policy allows its script."""
COMMON = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
NO_STORE = "no-store"
HSTS = "max-age=31536000"
"""With ``secure_cookies`` (served over HTTPS): browsers use HTTPS only, for a year."""


def source_hash(text: str) -> str:
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()
    return f"'sha256-{digest}'"


def server_blocks() -> dict[str, list[str]]:
    """The inline blocks of the server's templates, by tag: fixed text, served as written
    (a block with template code in it would differ from page to page: refused)."""
    found: dict[str, list[str]] = {"script": [], "style": []}
    folder = resources.files("arena.server").joinpath("templates")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".j2"):
            continue
        for tag, body in INLINE.findall(entry.read_text(encoding="utf-8")):
            if any(mark in body for mark in ("{{", "{%", "{#")):
                raise RuntimeError(f"{entry.name}: an inline <{tag}> holds template code, so "
                                   "the policy cannot name it by its hash")
            found[tag].append(body)
    return found


def game_blocks() -> dict[str, list[str]]:
    """The inline blocks of the game page and the viewer's macros, by tag, rendered with
    the report's assets (its CSS and script) as the page renders them."""
    from arena.reports.html import environment, page_assets

    env, assets = environment(), page_assets()
    found: dict[str, list[str]] = {"script": [], "style": []}
    for name in ("game_page.html.j2", "macros.html.j2"):
        source = env.loader.get_source(env, name)[0] if env.loader else ""
        for tag, body in INLINE.findall(source):
            # the sentinel keeps the block's last newline, which a template's end drops
            found[tag].append(env.from_string(body + ".").render(**assets)[:-1])
    return found


@functools.cache
def policies() -> tuple[str, str]:
    """The Content-Security-Policy of the server's pages (and of everything else it
    answers), and that of a game page."""
    server, game = server_blocks(), game_blocks()
    closing = "img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    def hashes(blocks: list[str]) -> str:
        return " ".join(dict.fromkeys(source_hash(block) for block in blocks)) or "'none'"

    page = (f"default-src 'none'; script-src {hashes(server['script'])}; "
            f"style-src {hashes(server['style'])}; {closing}")
    game_page = (f"default-src 'none'; script-src {hashes(server['script'] + game['script'])}; "
                 f"style-src {hashes(server['style'] + game['style'])}; "
                 f"style-src-attr 'unsafe-inline'; {closing}")
    return page, game_page


def signed_in(scope: Scope) -> bool:
    session = scope.get("session")
    return isinstance(session, dict) and bool(session.get("participant"))


class SecurityHeaders:
    """Pure ASGI middleware: the headers above on every HTTP response. It sits inside
    ``SessionMiddleware`` (so that it sees who is signed in, before and after the
    request) and outside the app's other middleware; a server error, which Starlette answers
    outside all middleware, it answers itself (with the app's handler) and re-raises."""

    def __init__(self, app: ASGIApp, https: bool = False) -> None:
        self.app, self.https = app, https
        self.page, self.game = policies()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        private = signed_in(scope) or scope.get("method") not in ("GET", "HEAD") or any(
            name == b"authorization" for name, _ in scope.get("headers") or [])
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = (
                    self.game if GAME_PAGE.fullmatch(scope.get("path", "")) else self.page)
                for name, value in COMMON.items():
                    headers[name] = value
                if self.https:
                    headers["Strict-Transport-Security"] = HSTS
                if private or signed_in(scope):
                    headers["Cache-Control"] = NO_STORE
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as exc:
            if not started:
                await self.server_error(scope, receive, send_with_headers, exc)
            raise

    async def server_error(self, scope: Scope, receive: Receive, send: Send,
                           exc: Exception) -> None:
        """The app's own answer to a server error, sent with the headers (Starlette's
        ``ServerErrorMiddleware`` then sees the response started and only re-raises)."""
        handlers: dict[Any, Any] = getattr(scope.get("app"), "exception_handlers", {})
        handler = handlers.get(Exception) or handlers.get(500)
        if handler is None:
            return
        try:
            request = Request(scope)
            if inspect.iscoroutinefunction(handler):
                response = await handler(request, exc)
            else:
                response = await run_in_threadpool(handler, request, exc)
            await response(scope, receive, send)
        except Exception:  # the error is left to Starlette's own handling
            return


__all__ = ["SecurityHeaders", "policies"]
