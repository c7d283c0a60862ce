"""Executors: ship game tasks to where they are played, and hand back the results as
they finish.

The local executor feeds a fixed set of forked worker processes
(:mod:`arena.tournaments.workers`), at least one: games never run in the parent.
The Dask executor sends the tasks to a cluster. Either way a task is played by
:func:`arena.tournaments.tasks.play_task`, and each worker keeps its bots for
all its games.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable, Iterator
from typing import Any

from arena.games.base import ArenaError
from arena.tournaments.schedule import GameTask
from arena.tournaments.tasks import (
    GameResult,
    MatchSetup,
    lost_game,
    play_task,
    prepare_worker,
    release_players,
)
from arena.tournaments.workers import MAX_ATTEMPTS, WAIT, WorkerDied, run_unordered

CONNECT_TIMEOUT = "20s"


_worker_setup: MatchSetup | None = None


def _worker_init(setup: MatchSetup, workers: int) -> None:
    # The parent handles Ctrl-C. A stopped worker's bot processes die with it
    # (they are started with PR_SET_PDEATHSIG).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    prepare_worker(workers)
    global _worker_setup
    _worker_setup = setup


def _play_in_worker(task: GameTask) -> GameResult:
    assert _worker_setup is not None, "worker started without its setup"
    return play_task(_worker_setup, task)


def dice_of(task: GameTask) -> int:
    """Games on the same dice (a set's) go to different workers where they can: a worker
    that plays one game of each set needs one process per bot, since no process plays two
    games on the same dice."""
    return task.seed


def run_local(setup: MatchSetup, tasks: Iterable[GameTask],
              workers: int) -> Iterator[GameResult]:
    """Yield each task's result as it finishes (in any order with several workers).

    Games are always played in worker processes, never in this one, so that nothing a bot
    does to the process that runs it can stop the tournament: a lost worker is replaced.
    """
    try:
        yield from run_unordered(_play_in_worker, tasks, max(1, workers),
                                 initializer=_worker_init, initargs=(setup, max(1, workers)),
                                 finalizer=release_players,
                                 on_lost=lambda lost: lost_game(setup, lost),
                                 spread=dice_of)
    except WorkerDied as died:
        raise ArenaError(
            f"the worker processes died {MAX_ATTEMPTS} times while playing game "
            f"{died.task.key}, before any bot was deciding; the finished games are kept, "
            "run again to resume") from None


def run_dask(setup: MatchSetup, tasks: Iterable[GameTask], scheduler: str
             ) -> Iterator[GameResult]:
    """Send the tasks to a Dask cluster and yield the results as they come back.

    Tasks are drawn as the cluster frees up (two per worker thread in flight), so an
    endless iterator works, and one that answers :data:`WAIT` is asked again after the
    next result. The workers need arena installed and the bots' files at the same paths
    (a shared file system, or the same checkout on every machine). Run workers with one
    thread each (``dask worker ADDRESS --nthreads 1``).
    """
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ArenaError("the dask executor needs Dask: pip install 'arena[dask]'") from None
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise ArenaError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    todo = iter(tasks)
    running = as_completed()
    futures: set[Any] = set()
    try:
        while True:
            capacity = max(1, 2 * sum(client.nthreads().values()))
            waited = False
            while running.count() < capacity:
                task = next(todo, None)
                if task is None or task is WAIT:
                    waited = task is WAIT
                    break
                future = client.submit(play_task, setup, task, pure=False)
                futures.add(future)
                running.add(future)
            if running.is_empty():
                if waited:
                    continue
                return
            future = next(running)
            futures.discard(future)
            yield future.result()
    finally:
        client.cancel(list(futures))
        client.close()


def run_tasks(setup: MatchSetup, tasks: Iterable[GameTask], *, workers: int,
              executor: str = "local", scheduler: str | None = None) -> Iterator[GameResult]:
    """The executor the config names: local worker processes, or a Dask cluster."""
    if executor == "dask":
        if not scheduler:
            raise ArenaError("the dask executor needs a scheduler address (--scheduler)")
        return run_dask(setup, tasks, scheduler)
    return run_local(setup, tasks, workers)
