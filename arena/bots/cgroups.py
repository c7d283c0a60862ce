"""One memory limit for all of a sandboxed bot's processes together: a memory cgroup.

The address-space limit holds per process, so a bot that forks could use it
once per process. Where arena runs as root and the cgroup (v1) memory
controller can be written, each sandboxed bot gets a cgroup of its own below
arena's, limited to the bot's memory limit; its launcher joins it before it
starts bubblewrap, so every process of the sandbox is counted, and the kernel
kills the sandbox's processes that go over it. Elsewhere (cgroup v2 without a
delegated subtree, no root) the limit stays per process; :func:`available`
says which.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from pathlib import Path

PREFIX = "arena-bot-"


@functools.cache
def _memory_folder() -> Path | None:
    """This process's memory cgroup (v1), if arena may make groups below it."""
    if os.geteuid() != 0:
        return None
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
        groups = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    mount = next((line.split(" - ")[0].split()[4] for line in mounts
                  if " - cgroup " in line and "memory" in line.split(" - ")[1].split()[-1]
                  .split(",")), None)
    own = next((line.split(":", 2)[2] for line in groups
                if "memory" in line.split(":", 2)[1].split(",")), None)
    if mount is None or own is None:
        return None
    folder = Path(mount + own)
    return folder if (folder / "cgroup.procs").exists() and os.access(folder, os.W_OK) else None


def available() -> bool:
    """Whether sandboxed bots get a memory limit for all their processes together."""
    return _memory_folder() is not None


class MemoryGroup:
    """A memory cgroup for one sandboxed bot; ``join_fd`` is written by its launcher."""

    _counter = 0

    def __init__(self, folder: Path, limit_bytes: int) -> None:
        self.folder, self.limit_bytes = folder, limit_bytes
        self.join_fd = os.open(folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)

    @classmethod
    def create(cls, limit_mb: int | None) -> MemoryGroup | None:
        """A new group limited to ``limit_mb``, or None where none can be made."""
        parent = _memory_folder()
        if parent is None or limit_mb is None:
            return None
        _remove_stale(parent)
        cls._counter += 1
        folder = parent / f"{PREFIX}{os.getpid()}-{cls._counter}"
        try:
            folder.mkdir()
            limit = str(limit_mb << 20)
            (folder / "memory.limit_in_bytes").write_text(limit)
            with contextlib.suppress(OSError):  # swap too, where the kernel counts it
                (folder / "memory.memsw.limit_in_bytes").write_text(limit)
            return cls(folder, limit_mb << 20)
        except OSError:
            with contextlib.suppress(OSError):
                folder.rmdir()
            return None

    def join(self) -> None:
        """Put the calling process in the group (in the child, before its exec)."""
        os.write(self.join_fd, b"0")

    def went_over(self) -> bool:
        """Whether the kernel killed a process of the group for going over the limit."""
        try:
            control = (self.folder / "memory.oom_control").read_text().split()
        except OSError:
            return False
        kills = control[control.index("oom_kill") + 1] if "oom_kill" in control else "0"
        return kills.isdigit() and int(kills) > 0

    def remove(self) -> None:
        """Remove the group once its processes are gone (they may take a moment)."""
        with contextlib.suppress(OSError):
            os.close(self.join_fd)
        for _ in range(50):
            try:
                self.folder.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)


def _remove_stale(parent: Path) -> None:
    """Groups a killed arena left behind: those of processes that are gone (a group in use
    cannot be removed anyway)."""
    with contextlib.suppress(OSError):
        for folder in parent.iterdir():
            owner = folder.name.removeprefix(PREFIX).split("-")[0]
            if folder.name.startswith(PREFIX) and owner.isdigit() and not _alive(int(owner)):
                with contextlib.suppress(OSError):
                    folder.rmdir()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
