"""Running the server: the web application under uvicorn, and each ladder's games in a
process of its own beside it, both stopped together.

The ladders run exactly as ``arena ladder run`` runs them (a process each, started
fresh, not forked from the web server): the web process only reads the store and
queues submissions in it, so no bot ever runs inside it.

The serving process watches its ladders' processes: one that ends unexpectedly (killed,
crashed) is restarted after a wait that doubles at each death in a row (``RESTART_*``);
its state ("running", "restarting", "stopped" and why) shows on the pages and in
``/healthz``. One that ends cleanly (its final phase done), one stopped with SIGTERM and
the ladders the server stops are not restarted.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import math
import multiprocessing
import resource
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any

from starlette.applications import Starlette

from arena.bots.interrupts import children_deaf_to_ctrl_c, deaf_to_ctrl_c
from arena.games.base import ArenaError
from arena.referee.protocol import printable
from arena.server.app import create_app
from arena.server.config import ServeConfig
from arena.server.connections import Guard, guarded_h11

log = logging.getLogger(__name__)
STOP_SECONDS = 60.0
RESTART_FIRST_SECONDS = 1.0
"""The wait before restarting a ladder process that died; it doubles at each death in a
row, up to ``RESTART_MAX_SECONDS``."""
RESTART_MAX_SECONDS = 60.0
STEADY_SECONDS = 300.0
"""A ladder process that ran this long before it died waits ``RESTART_FIRST_SECONDS``
again."""
WATCH_SECONDS = 0.5
"""How often the serving process looks at its ladders' processes."""
_SPAWN = multiprocessing.get_context("spawn")


LadderLines = Callable[[str, bool], Any]
"""Given a ladder's name and whether to show each game: the progress of ``run_ladder``
that tells the terminal what the ladder does (the command line's, as ``arena ladder run``
shows it). A module-level function: it is handed to a spawned process."""


def run_one_ladder(path: str, lines: LadderLines | None = None, verbose: bool = False
                   ) -> None:
    """In a process of its own: run the ladder of the config at ``path`` until SIGTERM,
    telling ``lines`` what it does."""
    from arena.bots.strays import die_with_parent
    from arena.results.store import DatabaseGone, Store
    from arena.tournaments.ladder import LadderControl, run_ladder
    from arena.tournaments.ladder_config import load_ladder_config

    deaf_to_ctrl_c()  # the server stops it, with SIGTERM
    die_with_parent(signal.SIGTERM)
    control = LadderControl()

    def stop(number: int, frame: object) -> None:
        control.stop = True

    signal.signal(signal.SIGTERM, stop)
    try:
        config = load_ladder_config(path)
        with Store(config.play.db) as store:
            run_ladder(config, store, control,
                       None if lines is None else lines(config.name, verbose))
    except DatabaseGone as exc:  # restarted, it would start a new ladder in a new file
        sys.stderr.write(printable(f"[{path}] {exc}") + "\n")
        sys.exit(DATABASE_GONE)
    except ArenaError as exc:  # the serving process tells how it ended, and restarts it
        sys.stderr.write(printable(f"[{path}] {exc}") + "\n")
        sys.exit(1)


DATABASE_GONE = 74  # sysexits.h EX_IOERR: an error on a file
"""A ladder process's exit code when its database was deleted or replaced under it: it is
not restarted (a new process would begin a new ladder, its history in the old file)."""


def exit_cause(code: int | None) -> str:
    """How a process with exit code ``code`` ended, in words."""
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    if code == DATABASE_GONE:
        return ("its database was deleted or replaced while it played; put it back "
                "and restart the server")
    return "ended cleanly (exit code 0)" if code == 0 else f"exited with code {code}"


@dataclass
class LadderProcess:
    """One ladder's process, and what the serving process knows of it."""

    name: str
    path: str
    process: BaseProcess | None = None
    state: str = "stopped"
    """"running", "restarting" (it died; it starts again at ``restart_at``) or "stopped"
    (not started, ended cleanly, or stopped with the server)."""
    why: str = "not started"
    restarts: int = 0
    deaths: int = 0
    """Deaths in a row (each after a run shorter than ``STEADY_SECONDS``)."""
    started: float = 0.0
    restart_at: float = 0.0
    lost_database: bool = False
    """Its database was deleted or replaced under it: stopped, not restarted."""

    def trouble(self, now: float) -> str | None:
        """None while it runs; else ``stopped: <why>`` (``, restarting in N s``)."""
        if self.state == "running":
            return None
        text = f"stopped: {self.why}"
        if self.state == "restarting":
            text += f", restarting in {math.ceil(max(0.0, self.restart_at - now))} s"
        return text

    def to_json(self, now: float) -> dict[str, Any]:
        data: dict[str, Any] = {"state": self.state, "why": self.why or None,
                                "restarts": self.restarts}
        if self.state == "restarting":
            data["restart_in"] = round(max(0.0, self.restart_at - now), 1)
        return data


class Ladders:
    """The ladders' processes, watched: one that dies is restarted (:meth:`check`)."""

    def __init__(self, config: ServeConfig, lines: LadderLines | None = None,
                 verbose: bool = False) -> None:
        self.config, self.lines, self.verbose = config, lines, verbose
        self.ladders = [LadderProcess(ladder.name, path)
                        for ladder, path in zip(config.ladders, config.ladder_paths,
                                                strict=True)]
        self.stopping = False

    @property
    def processes(self) -> list[BaseProcess]:
        return [ladder.process for ladder in self.ladders if ladder.process is not None]

    def start(self) -> None:
        self.stopping = False
        for ladder in self.ladders:
            self._start(ladder)

    def _start(self, ladder: LadderProcess) -> None:
        process = _SPAWN.Process(target=run_one_ladder, name=f"ladder {ladder.name}",
                                 args=(ladder.path, self.lines, self.verbose), daemon=False)
        with children_deaf_to_ctrl_c():
            process.start()
        ladder.process, ladder.started = process, time.monotonic()
        ladder.why, ladder.state = "", "running"
        log.info("ladder %s runs in process %s", ladder.name, process.pid)

    def check(self) -> None:
        """Notice the ladder processes that ended (and say how); restart those that died
        once their wait is over."""
        now = time.monotonic()
        for ladder in self.ladders:
            if self.stopping:
                return
            if ladder.state == "running" and ladder.process is not None \
                    and not ladder.process.is_alive():
                self._ended(ladder, now)
            elif ladder.state == "restarting" and now >= ladder.restart_at:
                ladder.restarts += 1
                self._start(ladder)

    def _ended(self, ladder: LadderProcess, now: float) -> None:
        assert ladder.process is not None
        code = ladder.process.exitcode
        ladder.why = exit_cause(code)
        ladder.lost_database = code == DATABASE_GONE
        if code in (0, -signal.SIGTERM, DATABASE_GONE):  # asked to stop, done, or no file
            ladder.state = "stopped"
            log.warning("ladder %s (process %s) %s; it is not restarted", ladder.name,
                        ladder.process.pid, ladder.why)
            return
        if now - ladder.started >= STEADY_SECONDS:
            ladder.deaths = 0
        wait = min(RESTART_FIRST_SECONDS * 2 ** ladder.deaths, RESTART_MAX_SECONDS)
        ladder.deaths = min(ladder.deaths + 1, 30)
        ladder.restart_at = now + wait
        ladder.state = "restarting"
        log.warning("ladder %s (process %s) %s; restarting it in %g s", ladder.name,
                    ladder.process.pid, ladder.why, wait)

    async def watch(self) -> None:
        """:meth:`check` every ``WATCH_SECONDS``, until cancelled."""
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            try:
                self.check()
            except Exception:  # a restart that failed (no memory, no processes): next time
                log.exception("watching the ladders' processes")

    def trouble(self, name: str) -> str | None:
        """Why the ladder ``name`` plays no games now (None: its process runs)."""
        found = next((ladder for ladder in self.ladders if ladder.name == name), None)
        return None if found is None else found.trouble(time.monotonic())

    def health(self) -> dict[str, Any]:
        """``/healthz``'s answer: "degraded" while a ladder waits to be restarted, or has
        lost its database."""
        now = time.monotonic()
        states = {ladder.name: ladder.to_json(now) for ladder in self.ladders}
        degraded = any(ladder.state == "restarting" or ladder.lost_database
                       for ladder in self.ladders)
        return {"status": "degraded" if degraded else "ok", "ladders": states}

    def stop(self) -> None:
        """Ask each ladder to finish the games it plays, then wait (killing it after
        STOP_SECONDS); none is restarted."""
        self.stopping = True
        for process in self.processes:
            if process.is_alive() and process.pid:
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
        for process in self.processes:
            process.join(STOP_SECONDS)
            if process.is_alive():
                process.kill()
                process.join()
        for ladder in self.ladders:
            if ladder.process is not None or ladder.state == "restarting":
                ladder.state, ladder.why = "stopped", "the server stopped"
            ladder.process = None


def serving_app(config: ServeConfig, lines: LadderLines | None = None,
                verbose: bool = False) -> Starlette:
    """The web application; with ``run_ladders``, the ladders start and stop with it
    (telling ``lines`` what they do), and a ladder process that dies is restarted (their
    states: ``app.state.ladders``)."""
    ladders = Ladders(config, lines, verbose)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        watching = None
        if config.run_ladders:
            ladders.start()
            watching = asyncio.create_task(ladders.watch())
        try:
            yield
        finally:
            if watching is not None:
                watching.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watching
            ladders.stop()

    app = create_app(config, lifespan)
    if config.run_ladders:
        app.state.ladders = ladders
    return app


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host``:``port``; one line (ArenaError) when it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            reason = "the port is in use (another server?): stop it, or choose another --port"
        elif exc.errno == errno.EACCES:
            reason = "not allowed (ports below 1024 need privileges): choose another --port"
        elif exc.errno == errno.EADDRNOTAVAIL or isinstance(exc, socket.gaierror):
            reason = "no such address on this machine: check --host"
        else:
            reason = exc.strerror or str(exc)
        raise ArenaError(f"cannot listen on {host}:{port}: {reason}") from None
    sock.set_inheritable(False)
    return sock


FILES_KEPT = 256
"""Open files the server keeps for itself (its database, templates, ladders' pipes) beyond
its connections."""
BACKLOG = 2048
"""Connections waiting to be accepted (uvicorn's default). A full queue drops a new
connection's first packet, and its client tries again only a second later; asyncio accepts
up to this many at once, before the guard can close any, so the open-file limit leaves room
for them too."""


def open_file_room(connections: int) -> int:
    """Connections the process can hold, up to ``connections``: its open-file limit raised
    for them as far as allowed, less what it needs for itself (a server at the limit cannot
    even accept, and asyncio logs every try)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + BACKLOG + FILES_KEPT
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    room = soft if soft != resource.RLIM_INFINITY else wanted
    return max(16, min(connections, room - BACKLOG - FILES_KEPT))


def serve(config: ServeConfig, host: str, port: int, *, lines: LadderLines | None = None,
          verbose: bool = False, ready: Callable[[], None] = lambda: None) -> None:
    """Serve until Ctrl-C or SIGTERM: the web server stops taking requests, then the
    ladders finish their games. ``ready`` is called once the port is bound (ArenaError if
    it cannot be); the ladders' lines and their processes' ends show on stderr."""
    import uvicorn

    sock = listening_socket(host, port)
    ready()
    if not log.handlers:
        shown = logging.StreamHandler(sys.stderr)
        shown.setFormatter(logging.Formatter("%(message)s"))
        log.addHandler(shown)
        log.setLevel(logging.INFO)

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            # Stop as asked, without raising the signal again once stopped (which would
            # end in a traceback instead of the ladders' clean stop).
            self.force_exit = self.should_exit and sig == signal.SIGINT
            self.should_exit = True

    # X-Forwarded-For only from the configured proxies: uvicorn's default believes it from
    # 127.0.0.1, which would let anyone pick the address the sign-in limits count.
    limits = replace(config.connections, max=open_file_room(config.connections.max))
    guard = Guard(limits, config.trusted_proxies)
    server = Server(uvicorn.Config(serving_app(config, lines, verbose), host=host, port=port,
                                   log_level="warning", server_header=False,
                                   proxy_headers=bool(config.trusted_proxies),
                                   forwarded_allow_ips=list(config.trusted_proxies),
                                   http=guarded_h11(guard), backlog=BACKLOG))

    async def serving() -> None:
        asyncio.get_running_loop().set_exception_handler(guard.loop_exception)
        await server.serve(sockets=[sock])

    with sock:
        asyncio.run(serving())
