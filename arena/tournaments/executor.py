"""Executors: ship game tasks to where they are played, and hand back the results as
they finish.

The local executor feeds a fixed set of forked worker processes
(:mod:`arena.tournaments.workers`); with one worker it plays in this process.
The Dask executor sends the tasks to a cluster. Either way a task is played by
:func:`arena.tournaments.tasks.play_task`, and each worker keeps its bots for
all its games.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable, Iterator, Sequence

from arena.games.base import ArenaError
from arena.tournaments.schedule import GameTask
from arena.tournaments.tasks import GameResult, MatchSetup, play_task, release_players
from arena.tournaments.workers import WorkerDied, run_unordered

CONNECT_TIMEOUT = "20s"


_worker_setup: MatchSetup | None = None


def _worker_init(setup: MatchSetup) -> None:
    # The parent handles Ctrl-C. A stopped worker's bot processes die with it
    # (they are started with PR_SET_PDEATHSIG).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _worker_setup
    _worker_setup = setup


def _play_in_worker(task: GameTask) -> GameResult:
    assert _worker_setup is not None, "worker started without its setup"
    return play_task(_worker_setup, task)


def run_local(setup: MatchSetup, tasks: Sequence[GameTask] | Iterable[GameTask],
              workers: int) -> Iterator[GameResult]:
    """Yield each task's result as it finishes (in any order with several workers)."""
    if workers <= 1:
        try:
            for task in tasks:
                yield play_task(setup, task)
        finally:
            release_players()
        return
    try:
        yield from run_unordered(_play_in_worker, tasks, workers, initializer=_worker_init,
                                 initargs=(setup,), finalizer=release_players)
    except WorkerDied as died:
        raise ArenaError(
            f"a worker process died while playing game {died.task.key} (a bot run with "
            "isolation 'none' can take its worker down); the finished games are kept, "
            "run again to resume") from None


def run_dask(setup: MatchSetup, tasks: Sequence[GameTask], scheduler: str
             ) -> Iterator[GameResult]:
    """Send the tasks to a Dask cluster and yield the results as they come back.

    The workers need arena installed and the bots' files at the same paths (a shared
    file system, or the same checkout on every machine). Run workers with one thread
    each (``dask worker ADDRESS --nthreads 1``).
    """
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ArenaError("the dask executor needs Dask: pip install 'arena[dask]'") from None
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise ArenaError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    futures = []
    try:
        futures = client.map(play_task, [setup] * len(tasks), list(tasks), pure=False)
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.cancel(futures)
        client.close()


def run_tasks(setup: MatchSetup, tasks: Sequence[GameTask], *, workers: int,
              executor: str = "local", scheduler: str | None = None) -> Iterator[GameResult]:
    """The executor the config names: local worker processes, or a Dask cluster."""
    if executor == "dask":
        if not scheduler:
            raise ArenaError("the dask executor needs a scheduler address (--scheduler)")
        return run_dask(setup, tasks, scheduler)
    return run_local(setup, tasks, workers)
