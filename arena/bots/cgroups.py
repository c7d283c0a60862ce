"""All of a sandboxed bot's processes together: cgroups for its memory, CPU and pauses.

The address-space and CPU limits hold per process, and a signal to a process
group stops only that group, so a bot that forks (a helper in a session of its
own, say) could use its memory once per process, burn CPU that counts nowhere
and run on between its games. Where arena runs as root and the cgroup (v1)
controllers can be written, each sandboxed bot gets, below arena's own, a group
in each of them (:class:`BotGroups`): ``memory`` limited to the bot's memory
limit (the kernel kills the sandbox's processes that go over it), ``cpuacct``
counting the CPU time of all its processes, ``freezer`` stopping them all
between games, and ``cpu`` giving all of them one share of the processors, as
much as any other bot's (a bot's helpers, each in a session of its own, would
otherwise each get as much as the opponent thinking meanwhile, and starve it
into a timeout). Its launcher joins them before it starts bubblewrap, so every
process of the sandbox is in them. Elsewhere (cgroup v2 without a delegated
subtree, no root) :func:`available` says no, and the sandbox counts and stops
the processes of the bot's PID namespace instead.
"""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import time
from pathlib import Path

from arena.bots import guard
from arena.bots.guard import PREFIX

CONTROLLERS = ("memory", "cpuacct", "freezer", "cpu")
FREEZE_SECONDS = 2.0
"""How long arena waits for a freezer group to be frozen."""


@functools.cache
def folder(controller: str) -> Path | None:
    """This process's cgroup (v1) of ``controller``, if arena may make groups below it."""
    if os.geteuid() != 0:
        return None
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
        groups = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    mount = next((line.split(" - ")[0].split()[3:5] for line in mounts
                  if " - cgroup " in line and controller in line.split(" - ")[1].split()[-1]
                  .split(",")), None)
    own = next((line.split(":", 2)[2] for line in groups
                if controller in line.split(":", 2)[1].split(",")), None)
    if mount is None or own is None:
        return None
    root, point = mount  # a mount of part of the hierarchy (in a container) starts at root
    if root != "/" and (own == root or own.startswith(root + "/")):
        own = own[len(root):]
    path = Path(point + "/" + own.lstrip("/"))
    return path if (path / "cgroup.procs").exists() and os.access(path, os.W_OK) else None


def available(controller: str = "memory") -> bool:
    """Whether sandboxed bots get a group of ``controller`` for all their processes
    together (``memory``: one memory limit; ``cpuacct``: one CPU count; ``freezer``: one
    pause; ``cpu``: one share of the processors)."""
    return folder(controller) is not None


class BotGroups:
    """The cgroups of one sandboxed bot, one per controller that can be had here;
    ``join`` is called by its launcher."""

    _counter = 0

    def __init__(self, folders: dict[str, Path], limit_bytes: int | None) -> None:
        self.folders, self.limit_bytes = folders, limit_bytes
        self.guarded = False
        """Whether the process's guard counts this group (:class:`Guard`)."""
        self.join_fds: list[int] = []
        try:
            for path in dict.fromkeys(folders.values()):
                self.join_fds.append(os.open(path / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC))
        except OSError:
            self.remove()
            raise

    @classmethod
    def create(cls, limit_mb: int | None) -> BotGroups | None:
        """New groups, the memory group limited to ``limit_mb`` (none without a limit); None
        where no group can be made."""
        cls._counter += 1
        name = f"{PREFIX}{os.getpid()}-{cls._counter}"
        folders: dict[str, Path] = {}
        for controller in CONTROLLERS:
            parent = folder(controller)
            if parent is None or (controller == "memory" and limit_mb is None):
                continue
            path = parent / name
            if path in folders.values():  # controllers mounted together (cpu,cpuacct)
                folders[controller] = path
                continue
            _remove_stale(parent)
            try:
                path.mkdir()
                if controller == "memory" and limit_mb is not None:
                    limit = str(limit_mb << 20)
                    (path / "memory.limit_in_bytes").write_text(limit)
                    with contextlib.suppress(OSError):  # swap too, where the kernel counts it
                        (path / "memory.memsw.limit_in_bytes").write_text(limit)
                folders[controller] = path
            except OSError:
                with contextlib.suppress(OSError):
                    path.rmdir()
        if not folders:
            return None
        try:
            made = cls(folders, None if limit_mb is None else limit_mb << 20)
        except OSError:
            return None
        if "freezer" in folders:
            made.guarded = _guard.watch()
        return made

    def has(self, controller: str) -> bool:
        return controller in self.folders

    def join(self) -> None:
        """Put the calling process in the groups (in the child, before its exec)."""
        for fd in self.join_fds:
            os.write(fd, b"0")

    def went_over(self) -> bool:
        """Whether the kernel killed a process of the group for going over the limit."""
        if "memory" not in self.folders:
            return False
        try:
            control = (self.folders["memory"] / "memory.oom_control").read_text().split()
        except OSError:
            return False
        kills = control[control.index("oom_kill") + 1] if "oom_kill" in control else "0"
        return kills.isdigit() and int(kills) > 0

    def cpu_seconds(self) -> float | None:
        """The CPU time all the group's processes used (those gone too); None without a
        cpuacct group."""
        if "cpuacct" not in self.folders:
            return None
        try:
            return int((self.folders["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def freeze(self) -> bool:
        """Stop all the group's processes; whether they are (False without a freezer group,
        or if they are not frozen within FREEZE_SECONDS)."""
        return self._set_freezer("FROZEN")

    def thaw(self) -> bool:
        """Let the group's processes run again."""
        return self._set_freezer("THAWED")

    def _set_freezer(self, state: str) -> bool:
        if "freezer" not in self.folders:
            return False
        control = self.folders["freezer"] / "freezer.state"
        deadline = time.monotonic() + FREEZE_SECONDS
        try:
            control.write_text(state)
            # FREEZING until every process has stopped; written again, it tries again
            while control.read_text().strip() != state:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.001)
                control.write_text(state)
        except OSError:
            return False
        return True

    def remove(self) -> None:
        """Remove the groups once their processes are gone (they may take a moment)."""
        self.thaw()  # a frozen process does not even die
        for fd in self.join_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.join_fds = []
        for path in dict.fromkeys(self.folders.values()):
            guard.remove_group(str(path), tries=50)
        if self.guarded:
            self.guarded = False
            _guard.unwatch()


def _remove_stale(parent: Path) -> None:
    """Groups a killed arena left behind: those of processes that are gone (a group in use
    cannot be removed anyway). A bot left frozen there is thawed, and killed: its arena is
    gone."""
    with contextlib.suppress(OSError):
        for path in parent.iterdir():
            owner = path.name.removeprefix(PREFIX).split("-")[0]
            if path.name.startswith(PREFIX) and owner.isdigit() and not _alive(int(owner)):
                guard.release_group(str(path), tries=5)


def _parents() -> list[str]:
    return list(dict.fromkeys(str(parent) for parent in map(folder, CONTROLLERS)
                              if parent is not None))


class Guard:
    """This process's guard (:mod:`arena.bots.guard`), running while it has groups: it
    releases them should this process end without saying goodbye."""

    def __init__(self) -> None:
        self.owner = 0
        self.groups = 0
        self.pipe = -1
        self.process: subprocess.Popen[bytes] | None = None
        self.ended: list[subprocess.Popen[bytes]] = []

    def watch(self) -> bool:
        """Count a new group, starting the guard for the first; whether it is guarded."""
        if self.owner != os.getpid():  # a fresh process (forked: not its parent's guard)
            self.owner, self.groups, self.pipe, self.process = os.getpid(), 0, -1, None
            self.ended = []
        if not self.groups and not self._start():
            return False
        self.groups += 1
        return True

    def unwatch(self) -> None:
        """A group is gone; the guard ends with the last."""
        if self.owner != os.getpid() or self.groups <= 0:
            return
        self.groups -= 1
        if not self.groups:
            with contextlib.suppress(OSError):
                os.write(self.pipe, guard.BYE)
            with contextlib.suppress(OSError):
                os.close(self.pipe)
            self.pipe = -1

    def _start(self) -> bool:
        if self.process is not None:  # the guards before, reaped once they have ended
            self.ended.append(self.process)
        self.ended = [process for process in self.ended if process.poll() is None]
        read_end, self.pipe = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", guard.__file__, str(os.getpid()), *_parents()],
                stdin=read_end, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            os.close(self.pipe)
            self.pipe = -1
            return False
        finally:
            os.close(read_end)
        return True


_guard = Guard()


def release_stale() -> None:
    """Thaw and kill the bots of groups whose arena process is gone (a worker killed while
    its bots were frozen between games): a frozen process cannot even die."""
    parent = folder("freezer")
    if parent is not None:
        _remove_stale(parent)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# -- without cgroups: the bot's PID namespace ------------------------------------------------
# The sandbox gives each bot a PID namespace of its own; what the bot starts, even in a
# session of its own, is in it. Its members are found by their /proc entries' namespace.


def pid_namespace(pid: int) -> str | None:
    """The PID namespace of ``pid`` (``pid:[4026…]``), None if it is gone or is arena's own
    (then it would stand for every process of the machine)."""
    try:
        namespace = os.readlink(f"/proc/{pid}/ns/pid")
        return None if namespace == os.readlink("/proc/self/ns/pid") else namespace
    except OSError:
        return None


def namespace_members(namespace: str) -> list[int]:
    """The pids (as arena sees them) of the processes in ``namespace``."""
    members = []
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc"):
            if name.isdigit():
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{name}/ns/pid") == namespace:
                        members.append(int(name))
    return members


def namespace_cpu_seconds(namespace: str) -> float:
    """The CPU time of the processes in ``namespace``: each one's own, and that of its
    children that are gone and it waited for (which the kernel adds to it)."""
    ticks = 0
    for pid in namespace_members(namespace):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def signal_namespace(namespace: str, signal_number: int, rounds: int = 10) -> None:
    """Send ``signal_number`` to every process in ``namespace``; looks again for processes
    started meanwhile, up to ``rounds`` times (a stopped process starts none)."""
    done: set[int] = set()
    for _ in range(rounds):
        new = [pid for pid in namespace_members(namespace) if pid not in done]
        if not new:
            return
        for pid in new:
            with contextlib.suppress(OSError):
                os.kill(pid, signal_number)
        done.update(new)
