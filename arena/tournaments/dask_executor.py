"""The Dask executor: games on a Dask cluster whose machines share no folder with this one.

A Dask task carries a few games (:class:`Pace`), on dice the worker it is meant for has
not had (so that a worker needs one process per bot: the two games of a set go to two
workers where there are two), and all a worker needs to play them:
the tournament's shared setup (one keyed piece of data, sent once), the games, and as
dependencies the bundles their bots play from (:mod:`arena.bots.bundles`), each a keyed
task ``arena-bundle-<digest>`` whose result is the bundle. Dask moves each bundle to a
worker once, from the scheduler or from a peer
that has it, and keeps it there while the run holds it; if the worker holding it dies,
the scheduler makes it again. The worker checks the bundle against its digest and
unpacks it once into a folder of its own (``<the worker's local directory>/arena-bundles``).
No path of this machine reaches a worker: entries name their files within their bundles,
and tracebacks name them so. A bot found where it is played (an entry point, an installed
module, a program in PATH) must be the same there, or the run stops with one line saying
which machine has what.

A worker that dies during a game costs that task's games only: Dask plays them again on
another worker (``distributed.scheduler.allowed-failures`` times at most), on the same
seeds, so the results are those of a local run. Each worker sets itself up as a local worker
process does (:class:`ArenaWorker`), and stops the run's bot processes at its end.

The scheduler and the workers see the game seeds (a worker rolls the dice: it is part of
the referee); a task's seed never shows in a log line. Run them on machines you trust,
with TLS between them (Dask's ``distributed.comm.tls`` settings).
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import CancelledError
from typing import Any

from arena.bots.bundles import Bundle
from arena.bots.workers import (
    LOOKAHEAD_PER_WORKER,
    NOTHING,
    STALE,
    WAIT,
    Spreader,
)
from arena.games.base import ArenaError
from arena.tournaments.schedule import GameTask, dice_of
from arena.tournaments.tasks import (
    GameResult,
    MatchSetup,
    play_shipped,
    release_players,
)

CONNECT_TIMEOUT = "20s"
PLUGIN = "arena"
IN_FLIGHT_PER_THREAD = 2
"""Tasks queued per worker thread: a worker has its next one when it finishes one."""
TASK_SECONDS = 1.0
"""About how long a task's games take together. A Dask task costs the cluster some
milliseconds of CPU (the scheduler, this client, the worker's event loop), as much as a
quick game: so a task carries several games, as many as take this long by the games so
far (the first ones go one a task)."""
MAX_GAMES_PER_TASK = 64
THREADS_SECONDS = 5.0
"""How often the cluster's size is asked again while a run goes on."""
_FULL: Any = object()


def _same(value: Any) -> Any:
    return value


def run_dask(setup: MatchSetup, tasks: Iterable[GameTask], scheduler: str,
             bundles: Iterable[Bundle] = ()) -> Iterator[GameResult]:
    """Send the tasks to a Dask cluster and yield the results as they come back.

    Tasks are drawn as the cluster frees up (:data:`IN_FLIGHT_PER_THREAD` Dask tasks per
    worker thread in flight, each of a few games: :class:`Pace`), so an endless iterator
    works, and one that answers :data:`WAIT` is asked again after the next result. Run
    workers with one thread each (``dask worker ADDRESS --nthreads 1``).
    """
    dask = _distributed()
    try:
        client = dask.Client(scheduler, timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise ArenaError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    from arena.tournaments.dask_worker import ArenaWorker, threads_by_host

    run = uuid.uuid4().hex[:16]
    shipped = for_workers(setup, run)
    futures: set[Any] = set()
    try:
        client.register_plugin(ArenaWorker(threads_by_host(client.nthreads())), name=PLUGIN)
        held = {bundle.digest: client.submit(_same, bundle, key=bundle.key)
                for bundle in bundles}
        common = client.submit(_same, shipped, key=f"arena-setup-{run}")

        def submit(games: list[GameTask], worker: str | None) -> Any:
            digests = sorted({digest for task in games for digest in shipped.bundles_of(task)})
            # meant for a worker, played by another if that one is lost; with no worker
            # known yet, by whichever comes
            placed = {"workers": [worker], "allow_other_workers": True} if worker else {}
            future = client.submit(play_shipped, common, tuple(games),
                                   *[held[digest] for digest in digests],
                                   key=f"arena-games-{run}-{games[0].key}", **placed)
            futures.add(future)
            return future

        try:
            yield from _results(client, dask.as_completed(), iter(tasks), submit, futures)
        except dask.KilledWorker as exc:
            raise ArenaError(_killed_text(exc)) from None
        except (CancelledError, OSError) as exc:
            if client.status == "running":
                raise
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ArenaError(f"lost the Dask scheduler at {scheduler} ({reason}); the "
                             "finished games are kept: run the same command again once it "
                             "is back") from None
    finally:
        with contextlib.suppress(Exception):
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


class Pace:
    """How many games a Dask task carries: about :data:`TASK_SECONDS` of play, by the mean
    duration of the games so far (one before any has finished)."""

    def __init__(self) -> None:
        self.games, self.seconds = 0, 0.0

    def note(self, results: list[GameResult]) -> None:
        self.games += len(results)
        self.seconds += sum(result.duration for result in results)

    def games_per_task(self) -> int:
        if self.seconds <= 0.0:
            return 1
        return max(1, min(MAX_GAMES_PER_TASK, int(TASK_SECONDS * self.games / self.seconds)))


def _draw(spreader: Spreader[GameTask], worker: str | None, todo: Iterator[GameTask],
          size: int, workers: int, busy: bool) -> tuple[list[GameTask], Any]:
    """Up to ``size`` tasks for ``worker``, each on dice it has not had lately (a worker that
    plays one game of each set needs one process per bot), and what stopped the drawing:
    :data:`WAIT`, :data:`NOTHING` (no task is left), :data:`STALE` (the worker has had the
    dice of every task drawn ahead) or :data:`_FULL` (``size`` tasks were drawn). A worker
    with nothing to do (not ``busy``) gets one task on dice it has had rather than wait."""
    games: list[GameTask] = []
    lookahead = (size + LOOKAHEAD_PER_WORKER) * max(1, workers)
    while len(games) < size:
        task = spreader.next_for(worker, todo, lookahead, fresh_only=busy or bool(games))
        if task is NOTHING or task is WAIT or task is STALE:
            return games, task
        games.append(task)
    return games, _FULL


def _results(client: Any, running: Any, todo: Iterator[GameTask], submit: Any,
             futures: set[Any]) -> Iterator[GameResult]:
    """Keep up to :data:`IN_FLIGHT_PER_THREAD` tasks per worker thread in flight, each meant
    for one worker (it runs on another if that one is lost), until no task is left."""
    threads: dict[str | None, int] = {}
    asked = 0.0
    pace, spreader = Pace(), Spreader(dice_of)
    in_flight: Counter[str | None] = Counter()
    meant_for: dict[Any, str | None] = {}
    while True:
        if time.monotonic() - asked > THREADS_SECONDS:
            threads, asked = dict(client.nthreads()) or {None: 1}, time.monotonic()
        stopped: Any = _FULL
        for worker, count in threads.items():
            while in_flight[worker] < IN_FLIGHT_PER_THREAD * count:
                games, stopped = _draw(spreader, worker, todo, pace.games_per_task(),
                                       len(threads), busy=in_flight[worker] > 0)
                if games:
                    future = submit(games, worker)
                    running.add(future)
                    meant_for[future] = worker
                    in_flight[worker] += 1
                if stopped is not _FULL:
                    break
            if stopped is NOTHING or stopped is WAIT:
                break
        if running.is_empty():
            if stopped is WAIT:
                continue
            return
        future = next(running)
        futures.discard(future)
        in_flight[meant_for.pop(future)] -= 1
        results = future.result()
        pace.note(results)
        yield from results


def _killed_text(exc: BaseException) -> str:
    return (f"Dask workers died while playing a game, too often to play it again ({exc}); "
            "the finished games are kept, run again to resume")


def for_workers(setup: MatchSetup, run: str) -> MatchSetup:
    """The setup as a worker gets it: the run's id, and no path of this machine (a bot's
    failures name its files as they are named in the bot)."""
    import dataclasses

    bots = tuple(dataclasses.replace(entry, shown=None) for entry in setup.bots)
    return dataclasses.replace(setup, bots=bots, run=run)
