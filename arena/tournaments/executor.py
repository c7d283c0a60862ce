"""Executors: ship game tasks to where they are played, and hand back the results as
they finish.

The local executor feeds a fixed set of forked worker processes
(:mod:`arena.bots.workers`), at least one: games never run in the parent.
The Dask executor (:mod:`arena.tournaments.dask_executor`) sends the tasks to a
cluster. Either way a task is played by :func:`arena.tournaments.tasks.play_task`
from the bundles its bots' code was kept in (:mod:`arena.bots.bundles`), and each
worker keeps its bots for all its games.
"""

from __future__ import annotations

import signal
from collections.abc import Iterable, Iterator

from arena.bots.bundles import Bundle, receive
from arena.bots.workers import MAX_ATTEMPTS, WorkerDied, run_unordered
from arena.games.base import ArenaError
from arena.tournaments.schedule import GameTask, dice_of
from arena.tournaments.tasks import (
    GameResult,
    MatchSetup,
    Settle,
    play_task,
    prepare_worker,
    release_players,
)

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


def run_local(setup: MatchSetup, tasks: Iterable[GameTask], workers: int,
              bundles: Iterable[Bundle] = ()) -> Iterator[GameResult]:
    """Yield each task's result as it finishes (in any order with several workers).

    Games are always played in worker processes, never in this one, so that nothing a bot
    does to the process that runs it can stop the tournament: a lost worker is replaced.
    The bundles are unpacked here, once, before the workers are forked.
    """
    receive(bundles)
    try:
        yield from run_unordered(_play_in_worker, tasks, max(1, workers),
                                 initializer=_worker_init, initargs=(setup, max(1, workers)),
                                 finalizer=release_players,
                                 on_lost=Settle(setup),
                                 spread=dice_of)
    except WorkerDied as died:
        raise ArenaError(
            f"the worker processes died {MAX_ATTEMPTS} times while playing game "
            f"{died.task.key}, before any bot was deciding; the finished games are kept, "
            "run again to resume") from None


def run_tasks(setup: MatchSetup, tasks: Iterable[GameTask], *, workers: int,
              executor: str = "local", scheduler: str | None = None,
              bundles: Iterable[Bundle] = ()) -> Iterator[GameResult]:
    """The executor the config names: local worker processes, or a Dask cluster; the
    ``bundles`` hold the code the setup's bots play from."""
    if executor == "dask":
        from arena.tournaments.dask_executor import run_dask

        if not scheduler:
            raise ArenaError("the dask executor needs a scheduler address (--scheduler)")
        return run_dask(setup, tasks, scheduler, bundles)
    return run_local(setup, tasks, workers, bundles)
