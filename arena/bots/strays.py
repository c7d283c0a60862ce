"""No process arena starts outlives its purpose: workers and bots die with their parent,
and what a bot leaves behind is found and killed even outside its process group.

:func:`die_with_parent` asks the kernel (Linux) to signal a process when the one
that started it dies, even by ``SIGKILL``.

Killing a bot's process group stops everything it started, unless a process
moved to a session of its own (``setsid``, as daemons do): it would outlive the
bot and keep using the machine for the rest of the tournament. On Linux, a
process that runs bots makes itself their *child subreaper*: every process
orphaned below it is handed to it instead of to ``init``. Such a process has
no other children in sessions of their own than its running bots, so any
other child in another session is something a bot left behind, and
:func:`kill_strays` kills and reaps it. Elsewhere these functions do nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Collection

from arena.bots.cgroups import release_stale
from arena.bots.kernel import PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG, prctl

MAX_ROUNDS = 100
REAP_SECONDS = 5.0
"""How long arena waits for a killed stray to end."""
_adopting_pid: int | None = None  # a forked child is not a subreaper: it must ask again


def die_with_parent(signal_number: int) -> None:
    """Have ``signal_number`` sent to this process when its parent dies (Linux)."""
    prctl(PR_SET_PDEATHSIG, signal_number)


def adopt_orphans() -> bool:
    """Have orphans of this process's descendants handed to it; whether that works here."""
    global _adopting_pid
    if _adopting_pid != os.getpid() and prctl(PR_SET_CHILD_SUBREAPER, 1):
        _adopting_pid = os.getpid()
    return _adopting_pid == os.getpid()


def kill_strays(bots: Collection[int]) -> int:
    """Kill and reap children in other sessions than ours, except the running ``bots``.

    Repeats until none is left (a stray may fork while it is being killed);
    returns how many were killed.
    """
    if _adopting_pid != os.getpid():
        return 0
    own_session, killed = os.getsid(0), 0
    for _ in range(MAX_ROUNDS):
        strays = [pid for pid, session in _children(skip=bots)
                  if session != own_session]
        if not strays:
            break
        release_stale()  # a stray frozen in its cgroup would never die
        for pid in strays:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        _reap(strays)
        killed += len(strays)
    return killed


def _reap(pids: Collection[int], seconds: float = REAP_SECONDS) -> None:
    """Wait for the killed ``pids`` to end, for at most ``seconds``: one that cannot end (a
    process stuck in the kernel) must not hang arena."""
    left, deadline = set(pids), time.monotonic() + seconds
    while left:
        for pid in list(left):
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    continue
            left.discard(pid)
        if left:
            if time.monotonic() > deadline:
                return
            time.sleep(0.005)


def _children(skip: Collection[int] = ()) -> list[tuple[int, int]]:
    """(pid, session) of each child of this process but ``skip``, zombies included."""
    me = os.getpid()
    try:
        pids = [int(pid) for task in os.listdir("/proc/self/task")
                for pid in _read(f"/proc/self/task/{task}/children").split()]
    except FileNotFoundError:  # a kernel without child lists: look at every process
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    stats = ((pid, _stat(pid)) for pid in pids if pid not in skip)
    return [(pid, stat[1]) for pid, stat in stats if stat is not None and stat[0] == me]


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent, session) of a process, None if it is gone."""
    try:
        # /proc/PID/stat: "pid (comm) state ppid pgrp session ..."; comm may hold spaces.
        fields = _read(f"/proc/{pid}/stat").rsplit(b")", 1)[1].split()
        return int(fields[1]), int(fields[3])
    except (OSError, IndexError, ValueError):
        return None


def _read(path: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()
