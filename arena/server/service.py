"""Running the server: the web application under uvicorn, and each ladder's games in a
process of its own beside it, both stopped together.

The ladders run exactly as ``arena ladder run`` runs them (a process each, started
fresh, not forked from the web server): the web process only reads the store and
queues submissions in it, so no bot ever runs inside it.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
from collections.abc import AsyncIterator
from multiprocessing.process import BaseProcess
from types import FrameType

from starlette.applications import Starlette

from arena.server.app import create_app
from arena.server.config import ServeConfig

log = logging.getLogger(__name__)
STOP_SECONDS = 60.0
_SPAWN = multiprocessing.get_context("spawn")


def run_one_ladder(path: str) -> None:
    """In a process of its own: run the ladder of the config at ``path`` until SIGTERM."""
    from arena.bots.strays import die_with_parent
    from arena.results.store import Store
    from arena.tournaments.ladder import LadderControl, run_ladder
    from arena.tournaments.ladder_config import load_ladder_config

    die_with_parent(signal.SIGTERM)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server stops it, with SIGTERM
    control = LadderControl()

    def stop(number: int, frame: object) -> None:
        control.stop = True

    signal.signal(signal.SIGTERM, stop)
    config = load_ladder_config(path)
    with Store(config.play.db) as store:
        run_ladder(config, store, control)


class Ladders:
    """The ladders' processes."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.processes: list[BaseProcess] = []

    def start(self) -> None:
        for path in self.config.ladder_paths:
            process = _SPAWN.Process(target=run_one_ladder, args=(path,), daemon=False)
            process.start()
            self.processes.append(process)
            log.info("ladder %s runs in process %s", path, process.pid)

    def stop(self) -> None:
        """Ask each ladder to finish the games it plays, then wait (killing it after
        STOP_SECONDS)."""
        for process in self.processes:
            if process.is_alive() and process.pid:
                with contextlib.suppress(ProcessLookupError):
                    process.terminate()
        for process in self.processes:
            process.join(STOP_SECONDS)
            if process.is_alive():
                process.kill()
                process.join()
        self.processes.clear()


def serving_app(config: ServeConfig) -> Starlette:
    """The web application; with ``run_ladders``, the ladders start and stop with it."""
    ladders = Ladders(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if config.run_ladders:
            ladders.start()
        try:
            yield
        finally:
            ladders.stop()

    return create_app(config, lifespan)


def serve(config: ServeConfig, host: str, port: int) -> None:
    """Serve until Ctrl-C or SIGTERM: the web server stops taking requests, then the
    ladders finish their games."""
    import asyncio

    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            # Stop as asked, without raising the signal again once stopped (which would
            # end in a traceback instead of the ladders' clean stop).
            self.force_exit = self.should_exit and sig == signal.SIGINT
            self.should_exit = True

    server = Server(uvicorn.Config(serving_app(config), host=host, port=port,
                                   log_level="warning", server_header=False))
    asyncio.run(server.serve())
