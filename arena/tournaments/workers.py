"""A fixed set of forked worker processes, each fed tasks over its own pipe.

The parent hands every worker at most :data:`QUEUED_PER_WORKER` tasks at a time
and waits on the pipes and the workers' sentinels itself, with no helper
threads: multiprocessing.Pool's worker-handler thread spins while results wait
in its pipe, and concurrent.futures spends two threads on the same work — on
short games either costs the parent a noticeable share of a core. Tasks are
drawn from an iterator as workers free up, so the parent's memory stays flat
however long the tournament. A worker that dies is reported with the task it
was running; on any exit from the iteration the workers are stopped at once.
Workers also stop, running their finalizer, when the parent dies, even by
``SIGKILL``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

from arena.bots.strays import die_with_parent
from arena.games.base import ArenaError

QUEUED_PER_WORKER = 2
T = TypeVar("T")
R = TypeVar("R")


class WorkerDied(ArenaError):
    """A worker process ended while it still had tasks."""

    def __init__(self, task: Any, exitcode: int | None) -> None:
        super().__init__(f"a worker process died (exit code {exitcode}) while running {task}")
        self.task, self.exitcode = task, exitcode


class WorkerError(ArenaError):
    """A task raised in its worker; the message carries the worker's traceback."""


@dataclass
class _Worker(Generic[T]):
    process: BaseProcess
    connection: Connection
    tasks: deque[T] = field(default_factory=deque)


def _serve(connection: Connection, parent_ends: list[Connection], parent: int,
           initializer: Callable[..., None], initargs: tuple[Any, ...],
           function: Callable[[Any], Any], finalizer: Callable[[], None]) -> None:
    # A worker whose parent dies, even by SIGKILL, must not live on with its bots:
    # the kernel sends it SIGTERM, which runs the finalizer on the way out, and
    # with the parent's pipe ends closed here a read sees the parent gone as EOF.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    die_with_parent(signal.SIGTERM)
    if os.getppid() != parent:
        return  # the parent died before we could ask
    for end in parent_ends:
        end.close()
    initializer(*initargs)
    try:
        while (task := _next_task(connection)) is not None:
            try:
                reply: tuple[str, Any] = ("ok", function(task))
            except Exception:
                reply = ("error", traceback.format_exc())
            connection.send(reply)
    finally:
        finalizer()


def _next_task(connection: Connection) -> Any:
    """The next task, or None when told to stop or when the parent is gone."""
    try:
        return connection.recv()
    except EOFError:
        return None


def _exit_on_sigterm(signal_number: int, frame: Any) -> None:
    raise SystemExit(128 + signal_number)


def run_unordered(function: Callable[[T], R], tasks: Iterable[T], workers: int, *,
                  initializer: Callable[..., None], initargs: tuple[Any, ...] = (),
                  finalizer: Callable[[], None] = lambda: None) -> Iterator[R]:
    """Yield ``function(task)`` for every task, as the forked workers finish them.

    ``initializer(*initargs)`` runs once in each worker, ``finalizer()`` when it
    is told to stop. ``function`` must be a module-level function.
    """
    context = multiprocessing.get_context("fork")
    pool: list[_Worker[T]] = []
    todo = iter(tasks)
    try:
        for _ in range(workers):
            parent_end, child_end = context.Pipe()
            parent_ends = [worker.connection for worker in pool] + [parent_end]
            process = context.Process(target=_serve, daemon=True, args=(
                child_end, parent_ends, os.getpid(), initializer, initargs, function, finalizer))
            process.start()
            child_end.close()
            pool.append(_Worker(process, parent_end))
        yield from _feed(pool, todo)
    finally:
        _stop(pool)


def _feed(pool: list[_Worker[T]], todo: Iterator[T]) -> Iterator[Any]:
    by_connection = {worker.connection: worker for worker in pool}
    by_sentinel = {worker.process.sentinel: worker for worker in pool}
    for worker in pool:
        _top_up(worker, todo)
    while any(worker.tasks for worker in pool):
        busy = [w for w in pool if w.tasks]
        ready = wait([w.connection for w in busy] + [w.process.sentinel for w in busy])
        for handle in ready:
            worker = (by_sentinel[handle] if isinstance(handle, int)
                      else by_connection[handle])  # type: ignore[index]
            if not worker.tasks:
                continue
            yield _receive(worker)
            _top_up(worker, todo)


def _top_up(worker: _Worker[T], todo: Iterator[T]) -> None:
    while len(worker.tasks) < QUEUED_PER_WORKER:
        task = next(todo, None)
        if task is None:
            return
        worker.tasks.append(task)
        try:
            worker.connection.send(task)
        except OSError:  # the worker has died; its sentinel will say so
            return


def _receive(worker: _Worker[T]) -> Any:
    try:
        status, value = worker.connection.recv()
    except (EOFError, OSError):
        worker.process.join(timeout=1)
        raise WorkerDied(worker.tasks[0], worker.process.exitcode) from None
    worker.tasks.popleft()
    if status == "error":
        raise WorkerError(f"a task failed in its worker:\n{value}")
    return value


def _stop(pool: list[_Worker[T]]) -> None:
    for worker in pool:
        with contextlib.suppress(OSError):
            worker.connection.send(None)
    for worker in pool:  # an idle worker gets time to close its bots; a busy one does not
        worker.process.join(timeout=5 if not worker.tasks else 0)
        if worker.process.is_alive():
            worker.process.terminate()
            worker.process.join(timeout=5)
        worker.connection.close()
