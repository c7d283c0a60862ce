"""Ctrl-C is answered once, by the process the user started.

A Ctrl-C at a terminal sends SIGINT to every process of the foreground process
group: ``arena`` and, unless they left the group, the processes it started. Those
(game workers, the luck accounting, ladders, validations) are stopped by their
parent, which says once what was kept; one that took the SIGINT itself would print
a ``KeyboardInterrupt`` traceback, above all while it is still starting (a spawned
process imports for a second before it can set a handler).

So a child is started with SIGINT blocked and ignored (:func:`children_deaf_to_ctrl_c`:
both are inherited through fork and exec, and a Ctrl-C meanwhile waits for the
parent, which is not lost), and the child ignores it, then unblocks it, first
thing (:func:`deaf_to_ctrl_c`).

A fork that runs Python in the child (``subprocess.Popen`` with ``preexec_fn``, as
bots are started) runs Python's fork hooks around it, where an exception that a
signal handler raises (Ctrl-C's ``KeyboardInterrupt``, a worker's exit on SIGTERM)
is printed as "Exception ignored" and dropped. Such a fork holds those signals
(:func:`signals_held_while_forking`): they come once it is done. The child gets
the default dispositions, unblocked, before its program starts
(:func:`release_in_child`).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

_SIGINT = {signal.SIGINT}
HELD_WHILE_FORKING = frozenset({signal.SIGINT, signal.SIGTERM})


@contextlib.contextmanager
def children_deaf_to_ctrl_c() -> Iterator[None]:
    """Processes started within are born with SIGINT blocked and, when started from the
    main thread, ignored (see the module docstring).

    Ignored matters for a spawned child: Python then installs no handler of its own, and
    a library may unblock SIGINT while the child still imports (multiprocessing's resource
    tracker does). Blocked, a Ctrl-C meanwhile stays pending for this process (Linux
    never drops a blocked signal as ignored), and comes to its own handler once that is
    back."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGINT)
    handler = None
    if threading.current_thread() is threading.main_thread():
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def deaf_to_ctrl_c() -> None:
    """In a child's main thread: ignore SIGINT (a Ctrl-C that came while it started is
    dropped), then unblock it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGINT)


@contextlib.contextmanager
def signals_held_while_forking() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the processes started within have forked (see the
    module docstring); their children must call :func:`release_in_child`."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_WHILE_FORKING)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def release_in_child() -> None:
    """In a child between fork and exec: SIGINT and SIGTERM as a new program expects them,
    by default and unblocked (a parent's ignored Ctrl-C is not the child's)."""
    for number in HELD_WHILE_FORKING:
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD_WHILE_FORKING)


class Terminated(KeyboardInterrupt):
    """SIGTERM to the command the user started (a supervisor's stop, ``timeout``): answered
    as a Ctrl-C is, with the same cleanup and message, and the status of a SIGTERM."""

    exit_code = 128 + signal.SIGTERM


def answer_signals_once() -> None:
    """In the command's main thread: the first Ctrl-C raises ``KeyboardInterrupt``, the
    first SIGTERM :class:`Terminated`; from then on both are ignored while the command
    winds up (its cleanup is bounded in time), so an impatient second Ctrl-C neither cuts
    the cleanup short nor prints a second answer."""

    def ignore_both() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def interrupted(number: int, frame: object) -> None:
        ignore_both()
        raise KeyboardInterrupt

    def terminated(number: int, frame: object) -> None:
        ignore_both()
        raise Terminated

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, terminated)


def interrupt_status(stop: BaseException) -> int:
    """The exit status for a command stopped by ``stop``: 130 for a Ctrl-C, 143 for a
    SIGTERM, or the status a person's abandoned game carries."""
    return int(getattr(stop, "exit_code", 130))
