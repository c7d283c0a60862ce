"""The competition's web application: pages, forms and the JSON API (Starlette).

Sessions are signed cookies (Starlette's ``SessionMiddleware``, ``SameSite=Lax``,
HTTP-only) that carry the participant's session generation and when they signed in:
signing out (or the organizer's ``arena serve users sign-out``) ends every session of
the participant, copies of the cookie included, and none lasts more than
:data:`SESSION_DAYS` however often it is used. Every form carries the session's CSRF
token, checked on every POST.
Uploads are read with a hard cap and unpacked by :mod:`arena.server.uploads`;
the web process never runs a bot — it queues the submission in the store, and
the ladder's process validates and plays it in the sandbox. Errors are one
friendly line, never a traceback.
"""

from __future__ import annotations

import codecs
import contextlib
import dataclasses
import hmac
import json
import math
import os
import secrets
import shutil
import tempfile
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import anyio
import anyio.to_thread
from jinja2 import Environment, PackageLoader, select_autoescape
from python_multipart.multipart import parse_options_header
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.games.base import ArenaError
from arena.referee.protocol import printable
from arena.reports.html import breakable
from arena.results.ladder_book import LadderBook, Submission
from arena.results.store import Store, StoreError
from arena.server import pages
from arena.server.config import ServeConfig, client_key
from arena.server.headers import SecurityHeaders
from arena.server.participants import (
    Participant,
    ParticipantError,
    VerifiedTokens,
    by_token,
    end_sessions,
    participant,
)
from arena.server.uploads import (
    MANIFEST,
    MAX_UPLOAD_BYTES,
    UnpackedBot,
    UploadError,
    unpack_upload,
)
from arena.tournaments.ladder import find_ladder
from arena.tournaments.ladder_intake import ladder_home, stage
from arena.tournaments.schedule import games_per_set

SESSION_DAYS = 14
REFRESH_SECONDS = 10
SIGN_IN_FAILURES = 10
"""Failed sign-ins (a wrong token, by form or API, or a wrong invite code) allowed from one
client address in :data:`SIGN_IN_WINDOW` seconds."""
SIGN_IN_WINDOW = 300.0
SIGN_IN_CEILING = 200
"""Failed sign-ins allowed on the whole server, from everywhere, in :data:`SIGN_IN_WINDOW`."""
REGISTRATIONS_PER_ADDRESS = 3
"""Registrations (``/register``) allowed from one client address in
:data:`REGISTRATION_WINDOW` seconds."""
REGISTRATIONS_CEILING = 30
"""Registrations allowed on the whole server in :data:`REGISTRATION_WINDOW` seconds."""
REGISTRATION_WINDOW = 3600.0
WORK_THREADS = 2
"""Hashes (scrypt) and upload checks run at once, each in a worker thread: off the event
loop, which serves every other request meanwhile."""
BOARD_LINES = 100
"""Bots a leaderboard page shows unless asked for all (``?all=1``)."""
MAX_BODY_BYTES = MAX_UPLOAD_BYTES + (64 << 10)
"""A request body: one upload and a few form fields."""


T = TypeVar("T")
SQLITE_INTEGERS = 1 << 63
"""Numbers a SQLite row id can be: a larger one in a URL names nothing."""


class BodyLimit:
    """Refuse a request body larger than ``max_bytes`` before it is read (by its declared
    length) and while it is read (by counting), with 413 and one line; a client gone before
    its body came is no error."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > self.max_bytes:
            await self._refuse(scope, send)
            return
        seen = 0

        async def counted() -> Any:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.max_bytes:
                raise HTTPException(413, "the upload is larger than 1 MiB")
            return message

        with contextlib.suppress(ClientDisconnect):  # gone, or closed as too slow: no answer
            await self.app(scope, counted, send)

    async def _refuse(self, scope: Any, send: Any) -> None:
        text = "the upload is larger than 1 MiB, or its size is not given"
        path = str(scope.get("path", ""))
        body = (b'{"error": "' + text.encode() + b'"}') if path.startswith("/api/") else (
            f"<!doctype html><title>Too large</title><p>{text}</p>".encode())
        kind = b"application/json" if path.startswith("/api/") else b"text/html; charset=utf-8"
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", kind),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


class Window:
    """At most ``limit`` tries per key (an address, a name) in any ``seconds``: those
    counted, and those under way (reserved, not yet settled) as if counted already."""

    def __init__(self, limit: int, seconds: float, refusal: str) -> None:
        self.limit, self.seconds, self.refusal = limit, seconds, refusal
        self.counted: dict[str, deque[float]] = {}
        self.pending: dict[str, int] = {}

    def wait(self, key: str, now: float) -> float | None:
        """None while ``key`` has a try left; else the seconds until it has one."""
        counted = self.counted.get(key)
        while counted and now - counted[0] >= self.seconds:
            counted.popleft()
        if len(counted or ()) + self.pending.get(key, 0) < self.limit:
            return None
        return self.seconds - (now - counted[0]) if counted else 1.0

    def settle(self, key: str, now: float, counted: bool) -> None:
        self.pending[key] -= 1
        if not self.pending[key]:
            del self.pending[key]
        if counted:
            self.counted.setdefault(key, deque()).append(now)
        if len(self.counted) > 1_000:  # forget the keys whose tries are all over
            for stale in [k for k, times in self.counted.items()
                          if not times or now - times[-1] >= self.seconds]:
                del self.counted[stale]


class Limits:
    """Tries counted in several windows at once (per address, per name, on the whole
    server). :meth:`reserve` takes a try in each, all under one lock, before the work it
    guards (a token's hash) — or refuses it (429) if any window is full; :meth:`settle`
    ends it, counted or not. A try under way counts, so however many arrive at once, no
    more than a window's limit are ever worked on in it."""

    def __init__(self, **windows: Window) -> None:
        self.lock = threading.Lock()
        self.windows = windows

    def reserve(self, **keys: str) -> dict[str, str]:
        now = time.monotonic()
        with self.lock:
            for window, key in keys.items():
                wait = self.windows[window].wait(key, now)
                if wait is not None:
                    minutes = max(1, math.ceil(wait / 60))
                    raise HTTPException(429, self.windows[window].refusal + (
                        f"; try again in {minutes} minute{'s' if minutes > 1 else ''}"),
                        headers={"Retry-After": str(math.ceil(wait))})
            for window, key in keys.items():
                pending = self.windows[window].pending
                pending[key] = pending.get(key, 0) + 1
        return keys

    def settle(self, keys: dict[str, str], *, counted: bool) -> None:
        now = time.monotonic()
        with self.lock:
            for window, key in keys.items():
                self.windows[window].settle(key, now, counted)

    @contextlib.contextmanager
    def attempt(self, counted: bool, /, **keys: str) -> Iterator[Attempt]:
        """A try reserved (:meth:`reserve`) for the block, settled however the block ends:
        counted as the block last set ``counted``, or as given when it raised."""
        attempt = Attempt(counted)
        reserved = self.reserve(**keys)
        try:
            yield attempt
        finally:
            self.settle(reserved, counted=attempt.counted)


@dataclasses.dataclass
class Attempt:
    """Whether a try under way (:meth:`Limits.attempt`) is to be counted when it ends."""

    counted: bool


def sign_in_limits() -> Limits:
    """Failed sign-ins: :data:`SIGN_IN_FAILURES` per address, and
    :data:`SIGN_IN_CEILING` on the whole server, in :data:`SIGN_IN_WINDOW` seconds."""
    return Limits(
        address=Window(SIGN_IN_FAILURES, SIGN_IN_WINDOW, "too many failed sign-ins from here"),
        server=Window(SIGN_IN_CEILING, SIGN_IN_WINDOW, "too many failed sign-ins on this "
                      "server just now"))


def registration_limits() -> Limits:
    """Registrations: :data:`REGISTRATIONS_PER_ADDRESS` per address and
    :data:`REGISTRATIONS_CEILING` on the whole server in :data:`REGISTRATION_WINDOW`."""
    return Limits(
        address=Window(REGISTRATIONS_PER_ADDRESS, REGISTRATION_WINDOW,
                       "too many registrations from here"),
        server=Window(REGISTRATIONS_CEILING, REGISTRATION_WINDOW,
                      "too many registrations on this server just now"))


class UnderWay:
    """Uploads being staged, per participant. An upload under way counts against the
    hourly limit until it is recorded, so uploads checked at once in different threads
    cannot all pass the count before any is recorded; none waits for another."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pending: Counter[int] = Counter()

    @contextlib.contextmanager
    def reserved(self, who: int, recorded: Callable[[], int], limit: int) -> Iterator[None]:
        """One more upload of ``who`` for the block, if ``recorded()`` (those stored in the
        last hour) and those under way leave room under ``limit``; else ArenaError."""
        with self.lock:
            if recorded() + self.pending[who] >= limit:
                raise ArenaError(f"at most {limit} submissions an hour; try again later")
            self.pending[who] += 1
        try:
            yield
        finally:
            with self.lock:
                self.pending[who] -= 1
                if not self.pending[who]:
                    del self.pending[who]


class GameCounts:
    """Each ladder's number of games, counted once and then only over the new rows."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.seen: dict[int, tuple[int, int]] = {}

    def count(self, book: LadderBook) -> int:
        with self.lock:
            last, counted = self.seen.get(book.tid, (0, 0))
        added, last = book.games_after(last)
        with self.lock:
            known_last, known = self.seen.get(book.tid, (0, 0))
            if last > known_last:
                self.seen[book.tid] = (last, counted + added)
            return max(counted + added, known)


class Stores(threading.local):
    """One store connection per thread (Starlette runs plain endpoints in a thread pool)."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.store: Store | None = None

    def get(self) -> Store:
        if self.store is None:
            self.store = Store(self.db)
        return self.store


def secret_key(db: str) -> str:
    """The key that signs session cookies, kept beside the database (made once, 0600)."""
    path = Path(db).with_name(Path(db).name + ".session-key")
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="ascii", opener=lambda p, f: _private(p, f)) as handle:
            handle.write(secrets.token_hex(32))
    return path.read_text(encoding="ascii").strip()


def _private(path: str, flags: int) -> int:
    return os.open(path, flags, 0o600)


def create_app(config: ServeConfig,
               lifespan: Callable[[Starlette], AbstractAsyncContextManager[None]] | None = None
               ) -> Starlette:
    stores = Stores(config.db)
    env = Environment(loader=PackageLoader("arena.server", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    env.filters["printable"] = printable
    env.filters["breakable"] = breakable  # a label wraps at @ and +, not inside its version
    env.filters["when"] = lambda moment: time.strftime("%Y-%m-%d %H:%M UTC",
                                                       time.gmtime(moment))
    web = Web(config, stores, env)
    routes = [
        Route("/", web.index), Route("/healthz", web.health),
        Route("/signin", web.signin, methods=["GET", "POST"]),
        Route("/signout", web.signout, methods=["POST"]),
        Route("/register", web.register, methods=["GET", "POST"]),
        Route("/ladders/{ladder}", web.leaderboard),
        Route("/ladders/{ladder}/bots/{name}", web.bot),
        Route("/ladders/{ladder}/games/{key}", web.game),
        Route("/ladders/{ladder}/compare", web.compare),
        Route("/submit", web.submit, methods=["GET", "POST"]),
        Route("/me", web.mine),
        Route("/submissions/{submission:int}", web.submission),
        Route("/organizer", web.organizer, methods=["GET", "POST"]),
        Route("/api/ladders/{ladder}/leaderboard", web.api_leaderboard),
        Route("/api/ladders/{ladder}/bots/{name}", web.api_bot),
        Route("/api/ladders/{ladder}/games/{key}", web.api_game),
        Route("/api/submissions", web.api_submit, methods=["POST"]),
        Route("/api/submissions/{submission:int}", web.api_submission),
        Route("/{page:path}/", without_slash, methods=list(SLASHED_METHODS)),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(
        SessionMiddleware, secret_key=secret_key(config.db),
        session_cookie=session_cookie(config.secure_cookies), max_age=SESSION_DAYS * 86400,
        same_site="lax", https_only=config.secure_cookies),
        Middleware(SecurityHeaders, https=config.secure_cookies),
        Middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)],
        exception_handlers={HTTPException: web.http_error, Exception: web.server_error},
        lifespan=lifespan)
    # Starlette's own redirect of a trailing slash names the Host header's server: this
    # one (the route above) stays on whatever server was asked
    app.router.redirect_slashes = False
    return app


SLASHED_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
"""The methods a trailing slash is redirected for: a 307 keeps the method and body."""


async def without_slash(request: Request) -> Response:
    """``/ladders/x/`` to ``/ladders/x``, by a path on this server (never ``//elsewhere``,
    nor ``/\\elsewhere``, which browsers read as another server)."""
    page = request.path_params["page"].lstrip("/")
    target = "/" + quote(page, safe="/:@!$&'()*+,;=-._~")
    query = request.url.query
    return RedirectResponse(target + (f"?{query}" if query else ""), status_code=307)


def session_cookie(secure: bool) -> str:
    """The session cookie's name: over HTTPS ``__Host-`` prefixed, which browsers accept only
    from a secure origin, for the whole site, with no Domain (no subdomain can set it)."""
    return "__Host-arena_session" if secure else "arena_session"


class Web:
    """The endpoints, sharing the config, the per-thread stores and the templates."""

    def __init__(self, config: ServeConfig, stores: Stores, env: Environment) -> None:
        self.config, self.stores, self.env = config, stores, env
        self.games = GameCounts()
        self.boards, self.recent = pages.Boards(), pages.RecentGames()
        self.tokens = VerifiedTokens()
        self.options = pages.EntrantOptions()
        self.sign_ins, self.registrations = sign_in_limits(), registration_limits()
        self.workers = anyio.CapacityLimiter(WORK_THREADS)
        self.uploading = UnderWay()

    # -- plumbing ------------------------------------------------------------------------

    @property
    def store(self) -> Store:
        return self.stores.get()

    def page(self, request: Request, template: str, status: int = 200,
             **values: Any) -> HTMLResponse:
        who = self.who(request)
        html = self.env.get_template(template).render(
            title=self.config.title, who=who, csrf=csrf_token(request),
            ladders=[ladder.name for ladder in self.config.ladders], **values)
        return HTMLResponse(html, status_code=status)

    def who(self, request: Request) -> Participant | None:
        """The signed-in participant; a session that was ended (a sign-out anywhere, the
        organizer) or is older than :data:`SESSION_DAYS` is cleared."""
        participant_id = request.session.get("participant")
        if not participant_id:
            return None
        found = participant(self.store, int(participant_id))
        since = request.session.get("since")
        if found is None or request.session.get("sessions") != found.sessions or not \
                isinstance(since, int | float) or time.time() - since > SESSION_DAYS * 86400:
            request.session.clear()
            return None
        return found

    def signed_in(self, request: Request) -> Participant:
        who = self.who(request)
        if who is None:
            raise HTTPException(303, headers={"Location": "/signin"})
        return who

    def ladder(self, name: str) -> Any:
        if self.config.ladder(name) is None:
            raise HTTPException(404, "no such ladder")
        try:
            return find_ladder(self.store, name)
        except StoreError:
            raise HTTPException(404, "this ladder has not started yet") from None

    async def off_loop(self, work: Callable[[], T]) -> T:
        """``work()`` in a worker thread, at most :data:`WORK_THREADS` at once: a hash or an
        upload's check would stall every other request on the event loop. ``self.store``
        read inside ``work`` is that thread's own connection."""
        return await anyio.to_thread.run_sync(work, limiter=self.workers)

    async def api_participant(self, request: Request) -> Participant:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise HTTPException(401, "send Authorization: Bearer TOKEN")
        return await self.authenticate(request, token.strip())

    async def authenticate(self, request: Request, token: str) -> Participant:
        """The token's participant; 401 if it is wrong; 429, before any hash, while its
        address has had :data:`SIGN_IN_FAILURES` failures, or the server
        :data:`SIGN_IN_CEILING`, in :data:`SIGN_IN_WINDOW` (a try under way counts as a
        failure until it is over). The hash runs off the event loop. A token verified lately
        costs none (:class:`~arena.server.participants.VerifiedTokens`) and passes whatever
        others failed: the limits bound the hashing, and no one's failures lock out a
        participant who signed in. (There is no limit per name: a token's secret is 192
        random bits, which no number of tries guesses, and such a limit let anyone lock a
        chosen participant out.)"""
        known = await self.off_loop(lambda: self.tokens.check(self.store, token))
        if known is not None:
            return known
        address = client_key(request.client.host) if request.client else "?"
        with self.sign_ins.attempt(True, address=address, server="") as attempt:
            try:
                found = await self.off_loop(lambda: by_token(self.store, token,
                                                             verified=self.tokens))
            except ParticipantError as exc:
                raise HTTPException(401, str(exc)) from None
            attempt.counted = False
            return found

    async def http_error(self, request: Request, exc: Exception) -> Any:
        assert isinstance(exc, HTTPException)
        if exc.status_code in (301, 302, 303) and exc.headers:
            return RedirectResponse(exc.headers["Location"], status_code=303)
        response = self.error(request, exc.status_code, str(exc.detail))
        if exc.status_code == 429 and exc.headers:
            response.headers.update(exc.headers)  # Retry-After
        return response

    async def server_error(self, request: Request, exc: Exception) -> Any:
        return self.error(request, 500, "something went wrong on the server; try again")

    def error(self, request: Request, status: int, message: str) -> Any:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": message}, status_code=status)
        return self.page(request, "error.html.j2", status, message=message)

    # -- pages -----------------------------------------------------------------------------

    def index(self, request: Request) -> HTMLResponse:
        boards = []
        for ladder in self.config.ladders:
            try:
                row = find_ladder(self.store, ladder.name)
                boards.append((ladder.name, row.game,
                               self.trouble(request, ladder.name) or row.status,
                               self.boards.lines(self.store, row, limit=5)))
            except StoreError:
                boards.append((ladder.name, ladder.game,
                               self.trouble(request, ladder.name) or "not started", []))
        return self.page(request, "index.html.j2", boards=boards,
                         invite=self.config.invite_code is not None)

    def health(self, request: Request) -> JSONResponse:
        """``{"status": "ok"|"degraded", "ladders": {name: {"state", "why", "restarts"}}}``
        from the serving process's memory (no database)."""
        ladders = getattr(request.app.state, "ladders", None)
        return JSONResponse({"status": "ok", "ladders": {}} if ladders is None
                            else ladders.health())

    @staticmethod
    def trouble(request: Request, name: str) -> str | None:
        """Why the ladder's games stopped (``stopped: …``), when the server runs its
        ladders and its process is not running; else None."""
        ladders = getattr(request.app.state, "ladders", None)
        return None if ladders is None else ladders.trouble(name)

    async def signin(self, request: Request) -> Any:
        if request.method in ("GET", "HEAD"):
            return self.page(request, "signin.html.j2")
        form = await checked_form(request)
        try:
            who = await self.authenticate(request, str(form.get("token", "")).strip())
        except HTTPException as exc:
            return self.page(request, "signin.html.j2", 403 if exc.status_code == 401
                             else exc.status_code, problem=str(exc.detail))
        start_session(request, who)
        return RedirectResponse("/", status_code=303)

    async def signout(self, request: Request) -> Any:
        await checked_form(request)
        who = self.who(request)
        if who is not None:  # a copy of the cookie ends with it
            end_sessions(self.store, who.name)
        request.session.clear()
        return RedirectResponse("/", status_code=303)

    async def register(self, request: Request) -> Any:
        if self.config.invite_code is None:
            raise HTTPException(404, "registration is closed: ask the organizer for a token")
        if request.method in ("GET", "HEAD"):
            return self.page(request, "register.html.j2")
        form = await checked_form(request)
        code, name = str(form.get("invite", "")), str(form.get("name", "")).strip()
        address = client_key(request.client.host) if request.client else "?"
        from arena.server.participants import add_participant

        try:  # a wrong invite code is a failed sign-in; registrations have limits of their own
            with self.sign_ins.attempt(True, address=address, server="") as attempt:
                attempt.counted = not hmac.compare_digest(code.encode(),
                                                          self.config.invite_code.encode())
            if attempt.counted:
                return self.page(request, "register.html.j2", 403, problem="wrong invite code")
            with self.registrations.attempt(False, address=address, server="") as joining:
                who, token = await self.off_loop(lambda: add_participant(self.store, name,
                                                                          stranger=True))
                joining.counted = True
        except HTTPException as exc:
            return self.page(request, "register.html.j2", exc.status_code,
                             problem=str(exc.detail))
        except ParticipantError as exc:
            return self.page(request, "register.html.j2", 400, problem=str(exc))
        start_session(request, who)
        return self.page(request, "token.html.j2", token=token, name=who.name)

    def leaderboard(self, request: Request) -> HTMLResponse:
        row = self.ladder(request.path_params["ladder"])
        book = LadderBook(self.store, row.id)
        everyone = request.query_params.get("all") == "1"
        rows, shown, active = self.boards.html(self.store, row, everyone=everyone,
                                               limit=None if everyone else BOARD_LINES)
        return self.page(request, "leaderboard.html.j2", ladder=row,
                         process=self.trouble(request, row.name), rows=rows, shown=shown,
                         active=active, everyone=everyone,
                         per_hour=self.recent.count(book, time.time()),
                         games=self.games.count(book), refresh=REFRESH_SECONDS)

    def bot(self, request: Request) -> HTMLResponse:
        row = self.ladder(request.path_params["ladder"])
        page = self.bot_page(request, row)
        who = self.who(request)
        mine = who is not None and (who.organizer or who.id == page.owner)
        own = page.positions if who is not None and who.organizer else (
            page.positions & pages.own_positions(LadderBook(self.store, row.id), who.id)
            if mine and who is not None else set())
        return self.page(request, "bot.html.j2", ladder=row, bot=page, mine=mine,
                         chart=rating_chart(page), won_by=pages.won_by, ending=pages.ending,
                         failures=pages.failures(self.store, row, own) if own else [])

    def bot_page(self, request: Request, row: Any) -> pages.BotPage:
        """The bot of the URL, with the pages of its games (``?games=N``) and of its
        opponents (``?opponents=N``) asked for; 404 if the ladder has no such bot."""
        page = pages.bot_page(self.store, row, request.path_params["name"],
                              games_page=page_number(request, "games"),
                              opponents_page=page_number(request, "opponents"))
        if page is None:
            raise HTTPException(404, "no bot of that name in this ladder")
        return page

    def compare(self, request: Request) -> HTMLResponse:
        row = self.ladder(request.path_params["ladder"])
        a, b = request.query_params.get("a", ""), request.query_params.get("b", "")
        ladder = self.config.ladder(row.name)
        beta = ladder.ratings.beta if ladder else 25 / 6
        found = pages.compare_versions(self.store, row, a, b, beta) if a and b else None
        problem = "choose two different bots of this ladder" if a and b and not found else None
        return self.page(request, "compare.html.j2", ladder=row, a=a, b=b,
                         options_a=self.options.options(self.store, row, a),
                         options_b=self.options.options(self.store, row, b), found=found,
                         problem=problem)

    def game(self, request: Request) -> HTMLResponse:
        from arena.reports.game_page import game_page_html

        row = self.ladder(request.path_params["ladder"])
        key = request.path_params["key"]
        who = self.who(request)
        self.check_set_played(row, key)
        try:
            html = game_page_html(self.store, row, key, title=f"{row.name}: game {key}",
                                  back_link=(f"/ladders/{quote(row.name, safe='')}", row.name),
                                  detail_seats=self.own_seats(who, row, key))
        except StoreError:
            raise HTTPException(404, "no such game") from None
        return HTMLResponse(html)

    def check_set_played(self, row: Any, key: str) -> None:
        """404 for a game of a ladder with a secret seed while another game of its duplicate
        set is still to be stored: the set's games share their dice, so its moves would
        tell whoever reads them the dice still to come in that game."""
        ladder = self.config.ladder(row.name)
        prefix, sep, rotation = key.rpartition("-o")
        if not row.secret or row.status == "complete" or ladder is None or not sep \
                or not rotation.isdigit():
            return
        keys = [f"{prefix}-o{order}" for order in range(
            games_per_set(ladder.play.seats, ladder.play.seat_orders))]
        stored = self.store.db.execute(
            "SELECT count(*) FROM games WHERE tournament_id = ? AND key IN "
            f"({','.join('?' * len(keys))})", (row.id, *keys)).fetchone()[0]
        if key in keys and stored < len(keys):
            raise HTTPException(404, "this game is shown once every game of its duplicate set "
                                     "has been played: they share its dice")

    def own_seats(self, who: Participant | None, row: Any, key: str) -> set[int]:
        """The seats of game ``key`` whose failure details ``who`` may read: those of their
        own bots (every seat for the organizer), matched by entrant, never by name."""
        found = self.store.db.execute("SELECT seats FROM games WHERE tournament_id = ? AND"
                                      " key = ?", (row.id, key)).fetchone()
        if who is None or not found:
            return set()
        seated = [int(entrant) for entrant in json.loads(found[0])]
        if who.organizer:
            return set(range(len(seated)))
        owned = pages.own_positions(LadderBook(self.store, row.id), who.id)
        return {seat for seat, entrant in enumerate(seated) if entrant in owned}

    async def submit(self, request: Request) -> Any:
        who = self.signed_in(request)
        if request.method in ("GET", "HEAD"):
            return self.page(request, "submit.html.j2", limit=MAX_UPLOAD_BYTES)
        form = await checked_form(request)
        ladder, bot = str(form.get("ladder", "")), form.get("bot")
        try:
            submission_id = await self.off_loop(lambda: self.accept_upload(who, ladder, bot))
        except (UploadError, ArenaError) as exc:
            return self.page(request, "submit.html.j2", 400, problem=str(exc),
                             limit=MAX_UPLOAD_BYTES)
        return RedirectResponse(f"/submissions/{submission_id}", status_code=303)

    def accept_upload(self, who: Participant, ladder_name: str, upload: Any) -> int:
        """Queue the uploaded bot for the ladder; its submission's id."""
        row = self.ladder(ladder_name)
        if row.status != "running":
            raise ArenaError(f"ladder {row.name} is {row.status}: it takes no submissions")
        if not isinstance(upload, UploadFile):
            raise UploadError("choose a bot file (.py) or a zip to upload")
        book = LadderBook(self.store, row.id)
        with self.uploading.reserved(
                who.id, lambda: book.submissions_since(who.id, time.time() - 3600),
                self.config.submissions_per_hour):
            return self.staged_upload(who, book, row, upload)

    def staged_upload(self, who: Participant, book: LadderBook, row: Any,
                      upload: UploadFile) -> int:
        """Stage the upload and record who sent it."""
        data = upload.file.read(MAX_UPLOAD_BYTES + 1)
        home = ladder_home(self.store, row.name)
        unpacked = Path(tempfile.mkdtemp(prefix="upload-", dir=_made(home / "uploads")))
        try:
            bot = unpack_upload(upload.filename or "", data, unpacked / "bot")
            if bot.game is not None and bot.game != row.game:
                raise UploadError(f"the manifest names {bot.game}; this ladder plays {row.game}")
            entry, _, attr = bot.spec.partition(":")
            submission_id = stage(book, home, Path(entry), f"web: {who.name}",
                                  attr=attr or None,
                                  package=package_of(Path(entry), bot, unpacked / "bot"),
                                  submitter=who.id)
        except ArenaError as exc:  # said to the participant: the server's folders are not
            raise UploadError(without_folders(str(exc), {unpacked / "bot": "the upload",
                                                         home: "the ladder"})) from None
        finally:
            shutil.rmtree(unpacked, ignore_errors=True)
        return submission_id

    def mine(self, request: Request) -> HTMLResponse:
        """The signed-in participant's submissions and bots, in every ladder."""
        who = self.signed_in(request)
        found = [pages.submission_view(self.store, row, submission)
                 for row in self.stored_ladders()
                 for submission in LadderBook(self.store, row.id).submitted_by(who.id)]
        return self.page(request, "mine.html.j2", submissions=found)

    def stored_ladders(self) -> list[Any]:
        """The config's ladders that the store holds (one not started yet is left out)."""
        rows = []
        for ladder in self.config.ladders:
            with contextlib.suppress(StoreError):
                rows.append(find_ladder(self.store, ladder.name))
        return rows

    def submission(self, request: Request) -> HTMLResponse:
        who = self.signed_in(request)
        found = self.find_submission(who, request.path_params["submission"])
        row, submission = found
        return self.page(request, "submission.html.j2", ladder=row,
                         view=pages.submission_view(self.store, row, submission),
                         refresh=REFRESH_SECONDS if submission.status in (
                             "queued", "validating", "validated") else None)

    def find_submission(self, who: Participant, submission_id: int) -> tuple[Any, Submission]:
        if not 0 < submission_id < SQLITE_INTEGERS:  # no row has it: nor can SQLite hold it
            raise HTTPException(404, "no submission of yours with that number")
        for row in self.stored_ladders():
            book = LadderBook(self.store, row.id)
            try:
                submission = book.submission(submission_id)
            except StoreError:
                continue
            if who.organizer or book.submitter_of(submission.id) == who.id:
                return row, submission
        raise HTTPException(404, "no submission of yours with that number")

    async def organizer(self, request: Request) -> Any:
        who = self.signed_in(request)
        if not who.organizer:
            raise HTTPException(403, "only the organizer may open this page")
        notice, confirm = None, None
        if request.method == "POST":
            form = await checked_form(request)
            action, ladder = str(form.get("action", "")), str(form.get("ladder", ""))
            if action == "freeze" and form.get("confirm") != "yes":
                confirm = self.ladder(ladder).name  # asked first: it cannot be undone
            else:
                notice = self.organize(action, ladder, str(form.get("bot", "")))
        from arena.server.participants import participants

        people = participants(self.store)
        names = {p.id: p.name for p in people}
        page, size = page_number(request, "submissions"), pages.SUBMISSIONS_PAGE
        managed = [{"row": row, "submissions": pages.organizer_submissions(
                        self.store, row, names, limit=size, offset=(page - 1) * size),
                    "pages": max(1, -(-pages.submission_count(self.store, row) // size))}
                   for row in self.stored_ladders()]
        return self.page(request, "organizer.html.j2", managed=managed, notice=notice,
                         confirm=confirm, people=people, page=page)

    def organize(self, action: str, ladder_name: str, bot: str) -> str:
        from arena.tournaments.ladder import freeze
        from arena.tournaments.ladder_intake import retire

        row = self.ladder(ladder_name)
        try:
            if action == "freeze":
                freeze(self.store, row.name)
                return f"{row.name} is frozen: it plays its final games now"
            if action == "retire":
                return f"{retire(LadderBook(self.store, row.id), row.game, bot)} retired"
        except ArenaError as exc:
            return str(exc)
        raise HTTPException(400, "unknown action")

    # -- the JSON API ---------------------------------------------------------------------

    def api_leaderboard(self, request: Request) -> Response:
        row = self.ladder(request.path_params["ladder"])
        return Response(self.boards.json(self.store, row), media_type="application/json")

    def api_bot(self, request: Request) -> JSONResponse:
        row = self.ladder(request.path_params["ladder"])
        return JSONResponse(self.bot_page(request, row).to_json())

    def api_game(self, request: Request) -> JSONResponse:
        row = self.ladder(request.path_params["ladder"])
        self.check_set_played(row, request.path_params["key"])
        try:
            record = self.store.record(row.id, request.path_params["key"])
        except StoreError:
            raise HTTPException(404, "no such game") from None
        data = record.to_json()
        if row.secret and row.status != "complete":
            data.pop("seed", None)
        for seat in data.get("seats", []):
            seat.pop("detail", None)  # a bot's traceback is its owner's to see
        return JSONResponse(data)

    async def api_submit(self, request: Request) -> JSONResponse:
        who = await self.api_participant(request)
        form = await form_of(request, max_fields=4)
        ladder, bot = str(form.get("ladder", "")), form.get("bot")
        try:
            submission_id = await self.off_loop(lambda: self.accept_upload(who, ladder, bot))
        except (UploadError, ArenaError) as exc:
            raise HTTPException(400, str(exc)) from None
        return JSONResponse({"submission": submission_id, "status": "queued",
                             "url": f"/api/submissions/{submission_id}",
                             "page": f"/submissions/{submission_id}"}, status_code=201)

    async def api_submission(self, request: Request) -> JSONResponse:
        who = await self.api_participant(request)

        def view() -> JSONResponse:  # in a thread, as a plain endpoint runs, with its store
            row, submission = self.find_submission(who, request.path_params["submission"])
            return JSONResponse(pages.submission_view(self.store, row, submission))

        return await run_in_threadpool(view)


def package_of(entry: Path, bot: UnpackedBot, folder: Path) -> Path | None:
    """The folder a zip's bot (unpacked in ``folder``) runs as: the package whose
    ``__init__.py`` is the entry. A zip whose entry is another module runs as that one
    file, so it may hold nothing else but its manifest."""
    itself = entry.relative_to(folder).as_posix()
    if entry.name == "__init__.py":
        inside = entry.parent.relative_to(folder).as_posix()
        outside = [f for f in bot.files if f != MANIFEST and inside != "."
                   and not f.startswith(f"{inside}/")]
        if outside:
            raise UploadError(f"the package is {inside}/, whose __init__.py is the entry; the "
                              f"zip also holds {outside[0]}, outside it, which the bot would "
                              "not have: put it in the package, or leave it out")
        return entry.parent
    others = [f for f in bot.files if f not in (MANIFEST, itself)]
    if others:
        raise UploadError("a zip with more than one file is a package: name its "
                          "__init__.py as the entry (the other files sit beside it, imported "
                          f"relatively), or upload the single file; it also holds {others[0]}")
    return None


def without_folders(message: str, names: dict[Path, str]) -> str:
    """``message`` with each folder's path (as given and resolved, the longest first) put
    as its name: ``/srv/x/uploads/upload-1/bot/a.py`` → ``the upload/a.py``."""
    spelled = {str(spelling): name for folder, name in names.items()
               for spelling in (folder, folder.resolve())}
    for path in sorted(spelled, key=len, reverse=True):
        message = message.replace(path, spelled[path])
    return message


def _made(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def start_session(request: Request, who: Participant) -> None:
    """A new session for ``who``, of their current generation, that lasts at most
    :data:`SESSION_DAYS` from now however often it is used."""
    request.session.clear()
    request.session.update({"participant": who.id, "sessions": who.sessions,
                            "since": time.time()})


MAX_PAGE = 1_000_000
"""A page number beyond this is taken as this one (a list that long is past its end)."""


def page_number(request: Request, name: str) -> int:
    """The page asked for by the query parameter ``name``: 1 unless it is a number from 1
    (one too large is the last page there could be)."""
    text = request.query_params.get(name, "")
    if not (text.isascii() and text.isdigit()):
        return 1
    digits = text.lstrip("0")
    return max(1, min(int(digits or "0"), MAX_PAGE)) if len(digits) <= 7 else MAX_PAGE


def csrf_token(request: Request) -> str:
    token = request.session.get("csrf")
    if not token:
        token = request.session["csrf"] = secrets.token_urlsafe(24)
    return str(token)


async def form_of(request: Request, max_fields: int) -> FormData:
    """The POSTed form (one file at most), in UTF-8: a body that names another charset is
    refused (415), and so is a field that is not text (400): a lone surrogate, which
    another charset can decode to, fails wherever the text is used."""
    _, options = parse_options_header(request.headers.get("content-type", ""))
    charset = options.get(b"charset", b"utf-8").decode("latin-1")
    try:
        utf8 = codecs.lookup(charset).name == "utf-8"
    except LookupError:
        utf8 = False
    if not utf8:
        raise HTTPException(415, f"forms are read in UTF-8 only, not {printable(charset)!r}")
    form = await request.form(max_files=1, max_fields=max_fields)
    for name, value in form.multi_items():
        text = value.filename or "" if isinstance(value, UploadFile) else value
        try:
            f"{name}{text}".encode()
        except UnicodeEncodeError:
            raise HTTPException(400, f"form field {printable(name)!r} is not text") from None
    return form


async def checked_form(request: Request) -> Any:
    """The POSTed form, refused unless it carries the session's CSRF token."""
    form = await form_of(request, max_fields=8)
    given = str(form.get("csrf", ""))
    expected = request.session.get("csrf", "")
    if not expected or not hmac.compare_digest(given.encode(), str(expected).encode()):
        raise HTTPException(403, "the form has expired; reload the page and try again")
    return form


def rating_chart(page: pages.BotPage) -> str:
    """μ after each round the bot played, one line per version, as inline SVG: the lowest
    and highest μ marked on the left, the first and last round below. Drawn twice, wide
    and narrow: the page shows the narrow one on a phone, where it is drawn at about its own
    size (its text 13 px and more)."""
    if not page.history:
        return ""
    return (_rating_svg(page, 640, 220, "wide") + "\n"
            + _rating_svg(page, 320, 240, "narrow"))


def _rating_svg(page: pages.BotPage, width: int, height: int, kind: str) -> str:
    from markupsafe import escape

    left, pad = 56, 40
    rounds = [h.round for h in page.history]
    mus = [h.mu for h in page.history]
    low, high = min(mus), max(mus)
    span = max(high - low, 1.0)
    first, last = min(rounds), max(max(rounds), min(rounds) + 1)

    def x(r: int) -> float:
        return left + (width - left - pad) * (r - first) / (last - first)

    def y(mu: float) -> float:
        return height - pad - (height - 2 * pad) * (mu - low) / span

    parts = [f'<line x1="{left}" x2="{width - pad}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
             f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>'
             for v in (low, high)]
    parts += [f'<text x="{x(r):.1f}" y="{height - 4}" text-anchor="middle">round {r + 1}'
              "</text>" for r in (first, last)]
    for version in page.versions:
        points = " ".join(f"{x(h.round):.1f},{y(h.mu):.1f}" for h in page.history
                          if h.position == version.submission.position)
        parts.append(f'<polyline fill="none" stroke-width="2" points="{points}">'
                     f"<title>{escape(version.bot.label)}</title></polyline>")
    return (f'<svg class="chart {kind}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="μ after each round">{"".join(parts)}</svg>')

