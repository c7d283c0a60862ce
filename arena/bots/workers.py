"""A fixed set of forked worker processes, each fed tasks over its own pipe, kept alive.

The parent hands every worker at most :data:`QUEUED_PER_WORKER` tasks at a time
and waits on the pipes and the workers' sentinels itself, with no helper
threads: multiprocessing.Pool's worker-handler thread spins while results wait
in its pipe, and concurrent.futures spends two threads on the same work — on
short games either costs the parent a noticeable share of a core. Tasks are
drawn from an iterator as workers free up, so the parent's memory stays flat
however long the run; the iterator may answer :data:`WAIT` (no task until a
running one finishes: a ladder's next round is chosen from the results of the
round before).

A worker runs in a process group of its own (a signal to its group reaches
no one else) and keeps a *beacon* in memory it shares with the parent: the
moment by which it will have moved on, and the seat it waits for. A worker
that dies, or whose beacon's moment passes (it hangs, or was stopped), is
killed with its group and replaced; its running task goes to ``on_lost``, which
gives a result for it (a loss of the seat that was deciding) or has it played
again, and its queued tasks are played again. Workers stop, running their
finalizer, when the parent dies, even by ``SIGKILL``, and are ended by the kernel if
their way out takes longer than :data:`EXIT_SECONDS`; on any exit from the iteration
they are stopped at once.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import signal
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Generic, TypeVar

from arena.bots.interrupts import children_deaf_to_ctrl_c, deaf_to_ctrl_c
from arena.bots.process import running_bots
from arena.bots.scratch import remove_abandoned
from arena.bots.strays import adopt_orphans, die_with_parent, kill_strays
from arena.games.base import ArenaError

QUEUED_PER_WORKER = 2
LOOKAHEAD_PER_WORKER = 16
"""With a spread, how many tasks per worker are drawn ahead to find each one it has not
had the key of."""
RECENT_KEYS = 4096
WATCHDOG_MARGIN = 5.0
"""Seconds a worker may overrun the moment its beacon gave, before it is killed."""
WATCH_SECONDS = 1.0
IDLE_SECONDS = 60.0
"""What a worker's beacon allows for work that waits on no bot (set-up, the referee)."""
EXIT_SECONDS = 30
"""How long a worker on its way out may take (closing its bots, then multiprocessing's own
exit steps) before the kernel ends it. A parent that lives kills it sooner; one that died
cannot, and a worker whose exit hangs would hold its bots and its copy of the run's files."""
MAX_ATTEMPTS = 3
"""A task whose worker is lost this often, without a seat to blame, stops the run."""
WAIT: Any = type("Wait", (), {"__repr__": lambda self: "WAIT"})()
"""What a task iterator yields for "nothing yet": it is asked again after the next result,
or at once when nothing is running."""
T = TypeVar("T")
R = TypeVar("R")


class WorkerDied(ArenaError):
    """A worker process was lost while running a task, too often to play it again."""

    def __init__(self, task: Any, exitcode: int | None) -> None:
        super().__init__(f"a worker process died (exit code {exitcode}) while running {task}")
        self.task, self.exitcode = task, exitcode


class WorkerError(ArenaError):
    """A task raised in its worker; the message carries the worker's traceback."""


@dataclass(frozen=True)
class Lost:
    """Why a worker was lost during a task: it died, or it hung (stopped answering)."""

    task: Any
    seat: int
    """The seat the worker waited for (-1: none, or not known)."""
    hung: bool
    exitcode: int | None

    def describe(self) -> str:
        if self.hung:
            return "the worker process stopped responding (it was killed and replaced)"
        if self.exitcode is not None and self.exitcode < 0:
            with contextlib.suppress(ValueError):
                name = signal.Signals(-self.exitcode).name
                return f"the worker process was killed by {name} (it was replaced)"
        return f"the worker process died, exit code {self.exitcode} (it was replaced)"


class Beacon:
    """A worker's note to its parent: by when it will have moved on, and for whom it waits.

    Outside a worker (one process, a Dask task) a beacon notes nothing.
    """

    def __init__(self, deadlines: Any = None, seats: Any = None, slot: int = 0) -> None:
        self.deadlines, self.seats, self.slot = deadlines, seats, slot

    def waiting(self, seat: int, seconds: float | None) -> None:
        """Waiting for ``seat`` for at most ``seconds`` (None: as long as it takes)."""
        if self.deadlines is not None:
            self.seats[self.slot] = seat
            self.deadlines[self.slot] = (math.inf if seconds is None
                                         else time.monotonic() + seconds)

    def busy(self) -> None:
        """Working on its own (for at most :data:`IDLE_SECONDS`)."""
        self.waiting(-1, IDLE_SECONDS)


_beacon = Beacon()


def beacon() -> Beacon:
    """This process's beacon (one that notes nothing outside a worker)."""
    return _beacon


@dataclass
class _Worker(Generic[T]):
    slot: int
    process: BaseProcess
    connection: Connection
    tasks: deque[T] = field(default_factory=deque)


class _Recent:
    """The last :data:`RECENT_KEYS` keys added, for membership tests."""

    def __init__(self) -> None:
        self.order: deque[Hashable] = deque()
        self.keys: set[Hashable] = set()

    def __contains__(self, key: object) -> bool:
        return key in self.keys

    def add(self, key: Hashable) -> None:
        if key in self.keys:
            return
        self.order.append(key)
        self.keys.add(key)
        if len(self.order) > RECENT_KEYS:
            self.keys.discard(self.order.popleft())


NOTHING: Any = type("Nothing", (), {"__repr__": lambda self: "NOTHING"})()
"""What :meth:`Spreader.next_for` gives when the iterator has ended."""
STALE: Any = type("Stale", (), {"__repr__": lambda self: "STALE"})()
"""What :meth:`Spreader.next_for` gives, asked for a fresh task, when the worker has had
the keys of all the tasks drawn ahead."""


class Spreader(Generic[T]):
    """Gives tasks of the same key (``spread(task)``) to different workers where it can: a
    worker gets the first of the tasks drawn ahead whose key it has not had lately (the
    first, if it had them all). A free worker never waits for a task of another key."""

    def __init__(self, spread: Callable[[T], Hashable]) -> None:
        self.spread = spread
        self.ahead: deque[T] = deque()
        """Tasks drawn from the iterator but not yet given to a worker."""
        self.waits = False
        """Whether the iterator said :data:`WAIT` when last asked."""
        self.given: dict[Hashable, _Recent] = {}
        """Per worker: the keys of the tasks it was given lately."""

    def next_for(self, worker: Hashable, todo: Iterator[T], lookahead: int,
                 fresh_only: bool = False) -> Any:
        """The next task for ``worker``, drawing up to ``lookahead`` tasks ahead;
        :data:`WAIT` or :data:`NOTHING` when there is none, and with ``fresh_only``
        :data:`STALE` when there is none of a key the worker has not had."""
        while len(self.ahead) < lookahead and not self.waits:
            drawn = next(todo, NOTHING)
            if drawn is NOTHING or drawn is WAIT:
                self.waits = drawn is WAIT
                break
            self.ahead.append(drawn)
        if not self.ahead:
            waited, self.waits = self.waits, False
            return WAIT if waited else NOTHING
        had = self.given.setdefault(worker, _Recent())
        task = next((t for t in self.ahead if self.spread(t) not in had), None)
        if task is None:
            if fresh_only:
                return STALE
            task = self.ahead[0]
        self.ahead.remove(task)
        had.add(self.spread(task))
        return task


@dataclass
class _Pool(Generic[T]):
    context: Any
    function: Callable[[T], Any]
    initializer: Callable[..., None]
    initargs: tuple[Any, ...]
    finalizer: Callable[[], None]
    deadlines: Any
    seats: Any
    workers: list[_Worker[T]] = field(default_factory=list)
    replays: deque[T] = field(default_factory=deque)
    attempts: dict[int, int] = field(default_factory=dict)
    spreader: Spreader[T] | None = None

    def next_for(self, slot: int, todo: Iterator[T]) -> Any:
        """The next task for the worker in ``slot``: one to play again first; then, with a
        spread, as the :class:`Spreader` picks it; :data:`WAIT` or :data:`NOTHING` when
        there is no task."""
        if self.replays:
            return self.replays.popleft()
        if self.spreader is None or len(self.workers) == 1:
            return next(todo, NOTHING)
        return self.spreader.next_for(slot, todo, LOOKAHEAD_PER_WORKER * len(self.workers))


    def start(self, slot: int) -> _Worker[T]:
        parent_end, child_end = self.context.Pipe()
        parent_ends = [worker.connection for worker in self.workers] + [parent_end]
        self.deadlines[slot], self.seats[slot] = math.inf, -1
        process = self.context.Process(target=_serve, daemon=True, args=(
            child_end, parent_ends, os.getpid(), slot, self.deadlines, self.seats,
            self.initializer, self.initargs, self.function, self.finalizer))
        with children_deaf_to_ctrl_c():
            process.start()
        with contextlib.suppress(OSError):  # the worker does it too; whichever comes first
            os.setpgid(process.pid, process.pid)
        child_end.close()
        return _Worker(slot, process, parent_end)


def _serve(connection: Connection, parent_ends: list[Connection], parent: int, slot: int,
           deadlines: Any, seats: Any, initializer: Callable[..., None],
           initargs: tuple[Any, ...], function: Callable[[Any], Any],
           finalizer: Callable[[], None]) -> None:
    # A worker whose parent dies, even by SIGKILL, must not live on with its bots:
    # the kernel sends it SIGTERM, which runs the finalizer on the way out, and
    # with the parent's pipe ends closed here a read sees the parent gone as EOF.
    deaf_to_ctrl_c()  # the parent stops it; it leaves the terminal's process group below
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    die_with_parent(signal.SIGTERM)
    if os.getppid() != parent:
        return  # the parent died before we could ask
    os.setpgid(0, 0)  # a signal to this worker's group reaches no one else
    for end in parent_ends:
        end.close()
    global _beacon
    _beacon = Beacon(deadlines, seats, slot)
    sys.unraisablehook = _note_a_dropped_exit
    initializer(*initargs)
    try:
        while not _dropped_exit and (task := _next_task(connection)) is not None:
            _beacon.busy()
            try:
                reply: tuple[str, Any] = ("ok", function(task))
            except Exception:
                reply = ("error", traceback.format_exc())
            _beacon.busy()
            connection.send(reply)
    finally:
        # Whether told to stop or terminated, the worker is on its way out: a SIGTERM
        # now (a Ctrl-C's, or the parent's death) must not cut its bots' cleanup short.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _end_by_the_kernel_after(EXIT_SECONDS)
        finalizer()


def _end_by_the_kernel_after(seconds: int) -> None:
    # A SIGTERM's exit is raised wherever the worker was, possibly inside a library's
    # half-done bookkeeping (a logging queue's thread started, the step that ends it not yet
    # registered): a lock or a join on the way out may then never return. SIGALRM's default
    # action ends the process in the kernel, whatever its threads wait for.
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(seconds)


def _next_task(connection: Connection) -> Any:
    """The next task, or None when told to stop or when the parent is gone."""
    try:
        return connection.recv()
    except EOFError:
        return None


_dropped_exit = False
"""Whether the exit on SIGTERM was raised where Python drops exceptions (a ``__del__``, a
garbage collector's callback): the worker then ends after its task."""


def _note_a_dropped_exit(unraisable: Any) -> None:
    if unraisable.exc_type is SystemExit and getattr(unraisable.exc_value, "code", None) == (
            128 + signal.SIGTERM):
        global _dropped_exit
        _dropped_exit = True
        return
    sys.__unraisablehook__(unraisable)


def _exit_on_sigterm(signal_number: int, frame: Any) -> None:
    # The kernel tells a parent's death once for each of its threads that ends: only the
    # first may interrupt, or a second would cut the finalizer short and leave bots behind.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise SystemExit(128 + signal_number)


def run_unordered(function: Callable[[T], R], tasks: Iterable[T], workers: int, *,
                  initializer: Callable[..., None] = lambda: None,
                  initargs: tuple[Any, ...] = (),
                  finalizer: Callable[[], None] = lambda: None,
                  on_lost: Callable[[Lost], R | None] = lambda lost: None,
                  spread: Callable[[T], Hashable] | None = None) -> Iterator[R]:
    """Yield ``function(task)`` for every task, as the forked workers finish them.

    ``initializer(*initargs)`` runs once in each worker, ``finalizer()`` when it is
    told to stop. ``function`` must be a module-level function. When a worker is
    lost during a task, ``on_lost`` gives that task's result, or None to play it again.
    Tasks of the same ``spread(task)`` go to different workers where they can (a free
    worker never waits for one).
    """
    context = multiprocessing.get_context("fork")
    pool: _Pool[T] = _Pool(context, function, initializer, initargs, finalizer,
                           context.RawArray("d", workers), context.RawArray("i", workers),
                           spreader=Spreader(spread) if spread else None)
    adopt_orphans()  # what a lost worker's bots leave behind comes here, to be killed
    remove_abandoned()  # the folders of bots and bundles of killed runs and workers
    todo = iter(tasks)
    try:
        for slot in range(workers):
            pool.workers.append(pool.start(slot))
        yield from _feed(pool, todo, on_lost)
    finally:
        _stop(pool.workers)
        remove_abandoned()


def _feed(pool: _Pool[T], todo: Iterator[T], on_lost: Callable[[Lost], Any]) -> Iterator[Any]:
    while _top_up_all(pool, todo):
        busy = [w for w in pool.workers if w.tasks]
        handles: list[Any] = [w.connection for w in busy] + [w.process.sentinel for w in busy]
        ready = wait(handles, timeout=_until_overdue(pool, busy))
        for worker in busy:
            if worker.connection in ready or worker.process.sentinel in ready:
                result = _receive(pool, worker, on_lost)
            elif _overdue(pool, worker):
                result = _lose(pool, worker, on_lost, hung=True)
            else:
                continue
            if result is not NOTHING:
                yield result


def _top_up_all(pool: _Pool[T], todo: Iterator[T]) -> bool:
    """Give every worker its tasks; whether any worker has one. With nothing running, an
    iterator that waits is asked again: it has nothing left to wait for."""
    while True:
        waited = False
        for worker in pool.workers:
            waited = _top_up(pool, worker, todo) or waited
        if any(worker.tasks for worker in pool.workers):
            return True
        if not waited:
            return False


def _until_overdue(pool: _Pool[T], busy: list[_Worker[T]]) -> float:
    """How long to wait before looking at the beacons again: a worker may move its moment
    nearer while the parent waits, so the parent looks at least every WATCH_SECONDS."""
    soonest = float(min(pool.deadlines[w.slot] for w in busy))
    return min(WATCH_SECONDS, max(0.0, soonest + WATCHDOG_MARGIN - time.monotonic()))


def _overdue(pool: _Pool[T], worker: _Worker[T]) -> bool:
    return time.monotonic() > float(pool.deadlines[worker.slot]) + WATCHDOG_MARGIN


def _top_up(pool: _Pool[T], worker: _Worker[T], todo: Iterator[T]) -> bool:
    """Queue tasks on ``worker``; whether the iterator said :data:`WAIT`."""
    if not worker.tasks:  # an idle worker's beacon is old: it gets time to pick the task up
        pool.deadlines[worker.slot] = time.monotonic() + IDLE_SECONDS
    while len(worker.tasks) < QUEUED_PER_WORKER:
        task = pool.next_for(worker.slot, todo)
        if task is NOTHING or task is WAIT:
            return task is WAIT
        worker.tasks.append(task)
        try:
            worker.connection.send(task)
        except OSError:  # the worker has died; its sentinel will say so
            return False
    return False


def _receive(pool: _Pool[T], worker: _Worker[T], on_lost: Callable[[Lost], Any]) -> Any:
    try:
        status, value = worker.connection.recv()
    except (EOFError, OSError):
        return _lose(pool, worker, on_lost, hung=False)
    worker.tasks.popleft()
    if status == "error":
        raise WorkerError(f"a task failed in its worker:\n{value}")
    return value


def _lose(pool: _Pool[T], worker: _Worker[T], on_lost: Callable[[Lost], Any], *,
          hung: bool) -> Any:
    """Kill ``worker`` and what it started, replace it, and settle its tasks."""
    seat = pool.seats[worker.slot]
    _kill(worker)
    worker.connection.close()
    kill_strays(running_bots())
    task, *queued = worker.tasks
    pool.replays.extend(queued)
    lost = Lost(task, seat, hung, worker.process.exitcode)
    index = pool.workers.index(worker)
    pool.workers[index] = pool.start(worker.slot)
    result = on_lost(lost) if seat >= 0 else None
    if result is not None:
        return result
    tries = pool.attempts[id(task)] = pool.attempts.get(id(task), 0) + 1
    if tries >= MAX_ATTEMPTS:
        raise WorkerDied(task, worker.process.exitcode)
    pool.replays.appendleft(task)
    return NOTHING


def _kill(worker: _Worker[Any]) -> None:
    """SIGKILL to the worker and its process group (a stopped worker dies too)."""
    pid = worker.process.pid
    if pid is None:
        return
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)
    worker.process.join(timeout=5)


def _stop(pool: list[_Worker[T]]) -> None:
    for worker in pool:
        with contextlib.suppress(OSError):
            worker.connection.send(None)
    for worker in pool:  # an idle worker gets time to close its bots; a busy one does not
        worker.process.join(timeout=5 if not worker.tasks else 0)
        if worker.process.is_alive():
            worker.process.terminate()  # its finalizer closes its bots
            worker.process.join(timeout=5)
        if worker.process.is_alive():
            _kill(worker)
        worker.connection.close()
    kill_strays(running_bots())
