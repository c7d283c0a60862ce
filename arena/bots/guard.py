"""The guard of a process whose bots are in cgroups: it thaws and kills them should that
process end without saying goodbye (:class:`arena.bots.cgroups.Guard` starts it).

A process killed while its bots are frozen between games (a worker whose run was killed
with SIGKILL) cannot thaw them, and a frozen process does not even die. The guard reads
a pipe whose other end only its owner holds: when the pipe ends without :data:`BYE`,
the owner has ended, however, and the guard releases the owner's groups.

It runs as a script of the standard library alone (``python -I -S``), so that it starts
in a few milliseconds: one starts with a worker's first bot of a run.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Sequence

BYE = b"bye"
PREFIX = "arena-bot-"


def release_group(path: str, tries: int) -> None:
    """Kill the processes of the group at ``path``, thaw it and remove it (once they are
    gone, trying ``tries`` times). They are killed while still frozen: a frozen process
    cannot fork, and one thawed with SIGKILL pending dies before it runs again, so none
    escapes between the list and the kill."""
    for _ in range(10):
        pids = _processes(path)
        for pid in pids:
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(pid), signal.SIGKILL)
        with contextlib.suppress(OSError), open(os.path.join(path, "freezer.state"),
                                                "w") as state:
            state.write("THAWED")
        if not pids:
            break
    remove_group(path, tries)


def _processes(path: str) -> list[str]:
    try:
        with open(os.path.join(path, "cgroup.procs")) as procs:
            return procs.read().split()
    except OSError:
        return []


def remove_group(path: str, tries: int) -> None:
    """Remove the group at ``path`` once its processes are gone (trying ``tries`` times,
    20 ms apart)."""
    for _ in range(tries):
        try:
            os.rmdir(path)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.02)


def release(owner: int, parents: Sequence[str]) -> None:
    """Release every group ``owner`` made below these controllers' folders."""
    for parent in parents:
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            if name.startswith(f"{PREFIX}{owner}-"):
                release_group(os.path.join(parent, name), tries=50)


def main(argv: Sequence[str]) -> None:
    """``OWNER PARENT...``: wait for the owner's goodbye or its end; at its end, release.
    The guard is in its owner's session (not a stray to kill) and ignores Ctrl-C, SIGTERM
    and a hang-up: it ends with its owner's groups."""
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)
    said = b""
    with contextlib.suppress(OSError):
        while chunk := os.read(0, 64):
            said += chunk
    if not said.endswith(BYE):
        release(int(argv[0]), argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
