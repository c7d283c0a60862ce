"""The Dask executor: games on a Dask cluster whose machines share no folder with this one.

A game task carries all a worker needs: the tournament's shared setup (one keyed piece
of data, sent once), the game, and as dependencies the bundles its bots play from
(:mod:`arena.bots.bundles`), each a keyed task ``arena-bundle-<digest>`` whose result is
the bundle. Dask moves each bundle to a worker once, from the scheduler or from a peer
that has it, and keeps it there while the run holds it; if the worker holding it dies,
the scheduler makes it again. The worker checks the bundle against its digest and
unpacks it once into a folder of its own (``<the worker's local directory>/arena-bundles``).
No path of this machine reaches a worker: entries name their files within their bundles,
and tracebacks name them so. A bot found where it is played (an entry point, an installed
module, a program in PATH) must be the same there, or the run stops with one line saying
which machine has what.

A worker that dies during a game costs that game only: Dask plays it again on another
worker (``distributed.scheduler.allowed-failures`` times at most), on the same seed, so
the results are those of a local run. Each worker sets itself up as a local worker
process does (:class:`ArenaWorker`), and stops the run's bot processes at its end.

The scheduler and the workers see the game seeds (a worker rolls the dice: it is part of
the referee); a task's seed never shows in a log line. Run them on machines you trust,
with TLS between them (Dask's ``distributed.comm.tls`` settings).
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from arena.bots.bundles import Bundle
from arena.games.base import ArenaError
from arena.tournaments.schedule import GameTask
from arena.tournaments.tasks import (
    GameResult,
    MatchSetup,
    play_shipped,
    release_players,
)
from arena.tournaments.workers import WAIT

CONNECT_TIMEOUT = "20s"
PLUGIN = "arena"
IN_FLIGHT_PER_THREAD = 8
"""Games queued per worker thread: enough that a worker never waits for the next one
while its result travels back."""
THREADS_SECONDS = 5.0
"""How often the cluster's size is asked again while a run goes on."""


def _same(value: Any) -> Any:
    return value


def run_dask(setup: MatchSetup, tasks: Iterable[GameTask], scheduler: str,
             bundles: Iterable[Bundle] = ()) -> Iterator[GameResult]:
    """Send the tasks to a Dask cluster and yield the results as they come back.

    Tasks are drawn as the cluster frees up (:data:`IN_FLIGHT_PER_THREAD` per worker
    thread in flight), so an endless iterator works, and one that answers :data:`WAIT` is
    asked again after the next result. Run workers with one thread each
    (``dask worker ADDRESS --nthreads 1``).
    """
    dask = _distributed()
    try:
        client = dask.Client(scheduler, timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise ArenaError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    from arena.tournaments.dask_worker import ArenaWorker, threads_by_host

    run = uuid.uuid4().hex[:16]
    shipped = for_workers(setup, run)
    futures: dict[Any, GameTask] = {}
    try:
        client.register_plugin(ArenaWorker(threads_by_host(client.nthreads())), name=PLUGIN)
        held = {bundle.digest: client.submit(_same, bundle, key=bundle.key)
                for bundle in bundles}
        common = client.submit(_same, shipped, key=f"arena-setup-{run}")

        def submit(task: GameTask) -> Any:
            needed = [held[digest] for digest in shipped.bundles_of(task)]
            future = client.submit(play_shipped, common, task, *needed,
                                   key=f"arena-game-{run}-{task.key}")
            futures[future] = task
            return future

        try:
            yield from _results(client, dask.as_completed(), iter(tasks), submit, futures)
        except dask.KilledWorker as exc:
            raise ArenaError(_killed_text(exc)) from None
    finally:
        client.cancel(list(futures))
        with contextlib.suppress(Exception):
            client.run(release_players, run)
        client.close()


def _distributed() -> Any:
    """The ``distributed`` package (untyped: used through Any)."""
    try:
        import distributed
    except ImportError:
        raise ArenaError("the dask executor needs Dask: pip install 'arena[dask]'") from None
    return distributed


def _results(client: Any, running: Any, todo: Iterator[GameTask], submit: Any,
             futures: dict[Any, GameTask]) -> Iterator[GameResult]:
    threads, asked = 0, 0.0
    while True:
        if time.monotonic() - asked > THREADS_SECONDS:
            threads, asked = sum(client.nthreads().values()), time.monotonic()
        waited = False
        while running.count() < max(1, IN_FLIGHT_PER_THREAD * threads):
            task = next(todo, None)
            if task is None or task is WAIT:
                waited = task is WAIT
                break
            running.add(submit(task))
        if running.is_empty():
            if waited:
                continue
            return
        future = next(running)
        futures.pop(future, None)
        yield future.result()


def _killed_text(exc: BaseException) -> str:
    return (f"Dask workers died while playing a game, too often to play it again ({exc}); "
            "the finished games are kept, run again to resume")


def for_workers(setup: MatchSetup, run: str) -> MatchSetup:
    """The setup as a worker gets it: the run's id, and no path of this machine (a bot's
    failures name its files as they are named in the bot)."""
    import dataclasses

    bots = tuple(dataclasses.replace(entry, shown=None) for entry in setup.bots)
    return dataclasses.replace(setup, bots=bots, run=run)
