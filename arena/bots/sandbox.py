"""Bots in a bubblewrap sandbox: the isolation level ``sandbox``.

A sandboxed bot is a :class:`~arena.bots.process.ProcessPlayer` whose command
runs inside ``bwrap`` (Debian's package ``bubblewrap``). The command line is
built as data by :func:`bwrap_argv`, one option per need, each saying what it
keeps out. Inside, the bot has

- new user, PID, network, IPC, UTS and cgroup namespaces, a session of its
  own, and is the PID namespace's first process: when it ends, everything it
  started ends (the kernel kills the namespace), and it dies with arena;
- an unprivileged uid: when arena runs as root, a uid of its own for each bot
  process, one no process still has (so the process-count limit is that bot's
  alone and holds, and counts nothing an earlier bot left), else
  arena's own uid mapped into its user namespace;
- a read-only view of the system's ``/usr``, the Python interpreter and the
  installed packages (for Python bots), arena's package, and its own code at
  ``/bot``; a fresh ``/tmp`` of bounded size, its working and home folder,
  which is the only place it can write;
- no results database, config, checkout, other bot, process outside its
  sandbox, or network;
- a system-call filter (:mod:`arena.bots.syscall_filter`): the calls that reach the parts of
  the kernel escapes come from (ptrace, mounts, keyrings, BPF, namespaces, io_uring, ...)
  fail with EPERM.

Arena's process limits (address space, CPU per game, file size, process count)
apply as for a plain bot process. When arena runs as root, the system paths
the bot needs may lie in folders the bot's uid may not enter (a Python under
``/root``): arena mounts them, in a mount namespace of the bot's launcher only,
on folders that uid can reach.
"""

from __future__ import annotations

import functools
import json
import os
import resource
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots import syscall_filter
from arena.bots.bundles import spec_at
from arena.bots.cgroups import BotGroups, namespace_cpu_seconds, pid_namespace, signal_namespace
from arena.bots.files import MAX_PROGRAM_BYTES, BotEntry, BotTree, read_bot, read_bot_file
from arena.bots.interrupts import signals_held_while_forking
from arena.bots.kernel import bind_mount, libc, unshare_mounts
from arena.bots.loading import split_spec
from arena.bots.process import (
    COMMAND_PREFIX,
    Limits,
    ProcessPlayer,
    bot_command,
    child_setup,
    is_command,
    signal_exit_text,
)
from arena.games import find_game
from arena.games.base import ArenaError
from arena.referee.protocol import PlayerInfo

BWRAP = "bwrap"
INSTALL_HINT = "apt-get install bubblewrap"
UID_BASE = 1 << 30
"""Sandboxed bots of a root arena run as uids from here up: the pid of the process that
starts them times 256, plus a counter."""
INSIDE_UID = 65534
"""The bot's uid as it sees it (``nobody``)."""
CODE = "/bot"
SCRATCH = "/tmp"
TOP_LEVEL_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime")
DEVICES = ("null", "zero", "full", "random", "urandom")
"""The host's devices a sandbox sees (the same inodes: the filter refuses setting their
times, which any process that may write them could, as a channel)."""
DEV_LINKS = (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
             ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2"))
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
ARENA_PACKAGE = Path(__file__).resolve().parents[1]
FILTER_SYSCALLS = True
"""Not a setting: False only for ``bench/syscall_filter_cost.py``, to measure the filter's
cost. A sandbox always has its system-call filter."""


class SandboxUnavailable(Exception):
    """bubblewrap cannot run here; the message says why."""


@dataclass(frozen=True)
class Bind:
    """A host folder or file the bot sees read-only at ``inside``."""

    host: str
    inside: str


def bwrap_argv(inner: Sequence[str], binds: Sequence[Bind], limits: Limits, *,
               info_fd: int | None = None, nproc_inside: int | None = None,
               seccomp_fds: Sequence[int] = ()) -> list[str]:
    """The ``bwrap`` command line that runs ``inner`` in a sandbox seeing only ``binds``."""
    argv = [BWRAP,
            "--unshare-all",        # user, PID, net, IPC, UTS, cgroup: no network, no other process
            "--unshare-user",       # the user namespace for certain, not only where it can be had
            "--disable-userns",     # no user namespaces inside: less of the kernel to attack
            "--die-with-parent",    # ends with the bwrap process arena started, and arena
            "--as-pid-1",           # the bot is init: when it ends, all it started is killed
            "--new-session",        # no controlling terminal: no keystrokes pushed into arena's
            "--hostname", "arena-bot",
            "--uid", str(INSIDE_UID), "--gid", str(INSIDE_UID),
            "--clearenv"]           # only the variables below: nothing of arena's environment
    for key, value in (("HOME", SCRATCH), ("TMPDIR", SCRATCH), ("PATH", SANDBOX_PATH),
                       ("LANG", "C.UTF-8"), ("PYTHONDONTWRITEBYTECODE", "1"),
                       ("PYTHONUNBUFFERED", "1"), ("PYTHONNOUSERSITE", "1"),
                       ("ARENA_SANDBOXED", "1"), *_arena_import_path()):
        argv += ["--setenv", key, value]
    argv += ["--ro-bind", "/usr", "/usr"]  # system programs and libraries, read-only
    for name in TOP_LEVEL_LINKS:        # /bin, /lib, ... as on the host (links into /usr)
        path = Path("/", name)
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            argv += ["--ro-bind", str(path), str(path)]
    for name in ETC_FILES:              # the loader's cache and the time zone: nothing else of /etc
        argv += ["--ro-bind-try", name, name]
    argv += ["--proc", "/proc",         # a /proc showing only the sandbox's processes
             "--tmpfs", "/proc/sys"]    # without the machine's tunables and exact counters
    argv += ["--tmpfs", "/dev"]         # a /dev of its own with only these, no terminals:
    for device in DEVICES:              # no devpts (its pty count is the machine's)
        argv += ["--dev-bind", f"/dev/{device}", f"/dev/{device}"]
    for name, target in DEV_LINKS:
        argv += ["--symlink", target, f"/dev/{name}"]
    argv += ["--size", str(limits.scratch_mb << 20), "--tmpfs", SCRATCH,  # the only writable place
             "--chdir", SCRATCH]
    for bind in binds:  # the interpreter, packages, arena, the bot's code, the game's files:
        argv += ["--ro-bind", bind.host, bind.inside]  # after /tmp, which would hide them
    for mount in ("/", "/dev", "/proc/sys"):  # the sandbox's own, in memory: read-only, or a
        argv += ["--remount-ro", mount]       # bot could fill the machine's memory (tmpfs is
                                             # not counted by any limit but the memory cgroup)
    if info_fd is not None:
        argv += ["--info-fd", str(info_fd)]  # where bwrap says the bot's pid
    for fd in seccomp_fds:              # the system-call filter, loaded just before the bot
        argv += ["--add-seccomp-fd", str(fd)]
    argv.append("--")
    if nproc_inside is not None:        # arena is not root: the bot limits its own process count
        argv += ["/usr/bin/prlimit", f"--nproc={nproc_inside}", "--"]
    return argv + list(inner)


@functools.cache
def sandbox_problem() -> str | None:
    """Why the sandbox cannot run here (None if it can): checked once per process, by
    starting a sandboxed interpreter."""
    if not sys.platform.startswith("linux"):
        return f"the sandbox needs Linux, not {sys.platform}"
    if shutil.which(BWRAP) is None:
        return f"bubblewrap (bwrap) is not installed; install it with: {INSTALL_HINT}"
    if os.geteuid() != 0 and not Path("/usr/bin/prlimit").exists():
        return "the sandbox needs /usr/bin/prlimit (util-linux) when arena is not root"
    problem = syscall_filter.problem()
    if problem is not None:
        return f"the sandbox's system-call filter cannot be had: {problem}"
    launch = SandboxLaunch([sys.executable, "-c", "import arena.games"], None, Limits())
    try:
        result = launch.run_briefly()
    except (OSError, SandboxUnavailable) as exc:
        return f"bubblewrap (bwrap) does not work here: {exc}"
    if result.returncode != 0:
        why = result.stderr.decode("utf-8", "replace").strip().splitlines()
        last = why[-1] if why else f"exit status {result.returncode}"
        return f"bubblewrap (bwrap) does not work here: {last}{_folder_hint(last)}"
    return None


TMPDIR_ADVICE = "set TMPDIR to a folder every user may enter, such as /tmp"


def _folder_hint(error: str) -> str:
    """What to do when bwrap, as the bot's own user, cannot reach the bot's folder."""
    folder = tempfile.gettempdir()
    if "Permission denied" not in error or folder not in error:
        return ""
    return (f" (the bots' folders are made in the temporary folder {folder}, which a folder "
            f"above it keeps private: {TMPDIR_ADVICE})")


def uids_in_use() -> set[int]:
    """The real, effective and saved uids of every process on the machine (as this process's
    namespace sees them: a sandbox's processes under their uid outside it)."""
    found: set[int] = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fd = os.open(f"/proc/{name}/status", os.O_RDONLY)
            except OSError:
                continue
            try:
                head = os.read(fd, 1024)  # the Uid line is among the first ten
            except OSError:
                continue
            finally:
                os.close(fd)
            at = head.find(b"\nUid:")
            if at >= 0:
                found.update(int(uid) for uid in head[at + 5:].split(b"\n", 1)[0].split()[:3])
    return found


class SandboxLaunch:
    """How to start one sandboxed command: its binds, its uid, its bwrap command line."""

    _counter = 0

    def __init__(self, inner: Sequence[str], code: Path | None, limits: Limits,
                 files: Sequence[str] = (), groups: BotGroups | None = None) -> None:
        self.inner, self.code, self.limits, self.groups = list(inner), code, limits, groups
        self.root = os.geteuid() == 0
        self.uid = self._next_uid() if self.root else None
        libc()  # loaded here, in the parent: the child between fork and exec only calls it
        self.binds = (system_binds() + ([Bind(str(code), CODE)] if code else [])
                      + [Bind(path, path) for path in files if Path(path).is_file()])

    @classmethod
    def _next_uid(cls) -> int:
        """The next of this process's 256 uids that no process has. They come round again,
        and a bot still alive under one (frozen between games) would share with the next
        what the kernel counts per uid (its processes, against RLIMIT_NPROC): a channel."""
        base = UID_BASE + ((os.getpid() & 0x3FFFFF) << 8)
        taken = uids_in_use()
        for _ in range(256):
            cls._counter = (cls._counter + 1) % 256
            if base + cls._counter not in taken:
                return base + cls._counter
        raise SandboxUnavailable("all 256 sandbox uids of this process are in use")

    def argv(self, staged: Sequence[Bind], info_fd: int | None,
             seccomp_fds: Sequence[int] = ()) -> list[str]:
        return bwrap_argv(self.inner, staged, self.limits, info_fd=info_fd,
                          nproc_inside=None if self.root else self.limits.processes,
                          seccomp_fds=seccomp_fds)

    def stage(self, folder: Path) -> list[Bind]:
        """As root: an empty folder per bind below ``folder``, which the bot's uid can
        reach, for the launcher to mount the bind's host path on (see :meth:`preexec`)."""
        if not self.root:
            return self.binds
        folder.chmod(0o711)
        staged = []
        for index, bind in enumerate(self.binds):
            mount_point = folder / "stage" / str(index)
            if Path(bind.host).is_dir():
                mount_point.mkdir(parents=True)
            else:
                mount_point.parent.mkdir(parents=True, exist_ok=True)
                mount_point.touch()
            mount_point.parent.chmod(0o755)
            staged.append(Bind(str(mount_point), bind.inside))
        return staged

    def preexec(self, staged: Sequence[Bind], parent: int) -> None:
        """In the child, before bwrap: mount what is staged, become the bot's uid, set the
        limits. Runs between fork and exec: no allocation-heavy work, no imports."""
        if self.uid is not None:
            if not unshare_mounts():
                os._exit(120)
            for bind, stage in zip(self.binds, staged, strict=True):
                if not bind_mount(bind.host, stage.host):
                    os._exit(121)
            if self.groups is not None:  # its cgroups: bwrap and all of the sandbox in them
                try:
                    self.groups.join()
                except OSError:
                    os._exit(122)
            os.setgroups([])
            os.setresgid(self.uid, self.uid, self.uid)
            os.setresuid(self.uid, self.uid, self.uid)
            resource.setrlimit(resource.RLIMIT_NPROC,
                               (self.limits.processes, self.limits.processes))
        child_setup(self.limits, parent)

    def popen(self, folder: Path, stdin: Any, stdout: Any, stderr: Any,
              ) -> tuple[subprocess.Popen[bytes], int]:
        """Start the sandbox; returns the process and the read end of bwrap's info pipe."""
        staged = self.stage(folder)
        try:  # no filter, no sandbox: it is never started without one
            seccomp = syscall_filter.filter_fds() if FILTER_SYSCALLS else []
        except syscall_filter.SyscallFilterUnavailable as exc:
            raise SandboxUnavailable(f"no system-call filter: {exc}") from None
        info_read, info_write = os.pipe()
        passed = (info_write, *seccomp)
        parent = os.getpid()
        try:  # the memory group's fd is open in the child until its exec, and no longer
            with signals_held_while_forking():
                process = subprocess.Popen(
                    self.argv(staged, info_write, seccomp), stdin=stdin, stdout=stdout,
                    stderr=stderr, cwd="/", env={"PATH": SANDBOX_PATH},
                    start_new_session=True, pass_fds=passed,
                    preexec_fn=lambda: self.preexec(staged, parent))
        except BaseException:
            os.close(info_read)
            raise
        finally:
            for fd in passed:  # bwrap has its own copies
                os.close(fd)
        return process, info_read

    def run_briefly(self, seconds: float = 30.0) -> subprocess.CompletedProcess[bytes]:
        """Run the sandboxed command to its end (for the probe)."""
        folder = Path(tempfile.mkdtemp(prefix="arena-probe-"))
        try:
            process, info = self.popen(folder, subprocess.DEVNULL, subprocess.PIPE,
                                       subprocess.PIPE)
            try:
                out, err = process.communicate(timeout=seconds)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)  # bwrap and its set-up child
                process.wait()
                raise SandboxUnavailable(f"a sandboxed interpreter took over {seconds:.0f} s "
                                         "to start") from None
            finally:
                os.close(info)  # open until bwrap is done: it may block writing to it
            if process.returncode in (120, 121):
                raise SandboxUnavailable("cannot mount the interpreter's folders for the "
                                         "sandbox's user")
            return subprocess.CompletedProcess(process.args, process.returncode, out, err)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def system_binds() -> list[Bind]:
    """What a Python bot needs besides /usr: the interpreter's installation, the
    environment's packages, and arena's package if it lies elsewhere (an editable install)."""
    package = ARENA_PACKAGE
    paths = dict.fromkeys(str(Path(p).resolve()) for p in
                          (sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix))
    binds = [Bind(path, path) for path in paths if not _covered(path, "/usr")]
    if not any(_covered(str(package), bind.host) for bind in binds):
        binds.append(Bind(str(package), str(package)))
    # A virtual environment's python is a link to the base interpreter, both must be seen.
    return [bind for index, bind in enumerate(binds)
            if not any(_covered(bind.host, other.host) for other in binds[:index])]


def _arena_import_path() -> list[tuple[str, str]]:
    """``PYTHONPATH`` for arena's package where the interpreter's installation does not
    hold it (an editable install, or a copy on the ``PYTHONPATH`` arena was started with):
    inside, the interpreter finds the package arena itself runs, the only one shown there."""
    prefixes = {sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix}
    if any(_covered(str(ARENA_PACKAGE), str(Path(prefix).resolve())) for prefix in prefixes):
        return []
    return [("PYTHONPATH", str(ARENA_PACKAGE.parent))]


def _covered(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def read_child_pid(info_fd: int, seconds: float) -> int | None:
    """The bot's pid (outside its namespace), from bwrap's info pipe; None if not said."""
    data = b""
    try:
        while b"}" not in data:
            ready, _, _ = select.select([info_fd], [], [], seconds)
            if not ready:
                return None
            chunk = os.read(info_fd, 4096)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(info_fd)
    try:
        pid = json.loads(data.decode()).get("child-pid")
    except (ValueError, AttributeError):
        return None
    return pid if isinstance(pid, int) and pid > 0 else None


def option_files(info: PlayerInfo) -> tuple[str, ...]:
    """The files a game's options name (a Sonnentau board), for the sandbox to show."""
    try:
        options = find_game(info.game).info.options
    except ArenaError:
        return ()
    return tuple(sorted(str(info.options[o.name]) for o in options
                        if o.is_file and info.options.get(o.name)))


def sandbox_code(spec: str) -> BotTree | None:
    """The files a sandboxed bot runs from, read once (never through a link, nothing but
    files and folders, capped): a Python bot's file or package folder, a program bot's own
    program file (executable); None for a bot found in the sandbox (an installed module or
    entry point, a program in PATH)."""
    if is_command(spec):
        words = shlex.split(spec[len(COMMAND_PREFIX):])
        if not (words and os.sep in words[0] and Path(words[0]).is_file()):
            return None
        data, _executable = read_bot_file(words[0], limit=MAX_PROGRAM_BYTES)  # not a link
        name = Path(os.path.abspath(words[0])).name
        return BotTree(name, False, (BotEntry(name, data, True),))
    target = split_spec(spec)[0]
    return read_bot(target) if target.endswith(".py") else None


def _author_path(spec: str) -> str:
    """The files a spec names, as it names them (a package: its folder)."""
    target = (shlex.split(spec[len(COMMAND_PREFIX):]) or [""])[0] if is_command(spec) \
        else split_spec(spec)[0]
    return target.removesuffix("/__init__.py")


class SandboxedPlayer(ProcessPlayer):
    """A bot process inside a bubblewrap sandbox (the default isolation)."""

    isolation = "sandbox"

    def __init__(self, spec: str, params: Mapping[str, Any], limits: Limits | None = None,
                 label: str = "bot", *, code: BotTree | None = None, shown: str | None = None,
                 remember_load_failure: bool = False) -> None:
        super().__init__(bot_command(spec, params), limits, label,
                         remember_load_failure=remember_load_failure)
        self.spec, self.params = spec, dict(params)
        self.code, self.shown = code, shown
        """The bot's files (a bundle's, and ``spec`` names them within it), or None: those
        its spec names, read at its first start and kept; how failures name them."""
        self.code_read = code is not None
        self.bot_pid: int | None = None
        self.groups: BotGroups | None = None
        self.namespace: str | None = None
        """The bot's PID namespace: all its processes, where it has no cgroups."""
        self.signalled = False
        """Whether its pause between games was by signals (no freezer group)."""
        self.files: tuple[str, ...] = ()
        """Files a game's options name (a board): seen in the sandbox at the same path."""

    def start(self, info: PlayerInfo) -> None:
        files = option_files(info)
        if files != self.files:  # another board: a sandbox that shows it
            self.files = files
            self.close()
        super().start(info)

    def _spawn(self, folder: Path, stderr: Any) -> subprocess.Popen[bytes]:
        code = folder / "code"
        code.mkdir(mode=0o755)
        self.groups = BotGroups.create(self.limits.memory_mb)
        launch = SandboxLaunch(self._inner_command(code), code, self.limits, self.files,
                               self.groups)
        process, info = launch.popen(folder, subprocess.PIPE, subprocess.PIPE, stderr)
        self.bot_pid = read_child_pid(info, self.limits.handshake_seconds)
        self.namespace = None if self.bot_pid is None else pid_namespace(self.bot_pid)
        return process

    def _inner_command(self, folder: Path) -> list[str]:
        """The bot's command as it runs inside: its files written into ``folder`` (``/bot``)
        from the bytes read once, never read again from where they came from."""
        if not self.code_read:
            self.code, self.code_read = sandbox_code(self.spec), True
            self.shown = self.shown or _author_path(self.spec)
        if self.code is None:  # found in the sandbox: installed, or in PATH
            if is_command(self.spec):
                return shlex.split(self.spec[len(COMMAND_PREFIX):])
            return [sys.executable, "-m", "arena.bots.runner", self.spec,
                    json.dumps(self.params)]
        self.code.write(folder / self.code.name)
        self.code_paths = (f"{CODE}/{self.code.name}", self.shown or self.code.name)
        inside = spec_at(self.spec, self.code, CODE)
        if is_command(inside):
            return shlex.split(inside[len(COMMAND_PREFIX):])
        return [sys.executable, "-m", "arena.bots.runner", inside, json.dumps(self.params)]

    @property
    def cpu_pid(self) -> int | None:
        return self.bot_pid

    def cpu_seconds(self) -> float | None:
        """The CPU time of all the bot's processes: its cpuacct group's, else its PID
        namespace's (what a helper in a session of its own uses counts too)."""
        if self.groups is not None and self.groups.has("cpuacct"):
            return self.groups.cpu_seconds()
        if self.namespace is not None:
            return namespace_cpu_seconds(self.namespace)
        return super().cpu_seconds()

    def _pause(self) -> None:
        """All the bot's processes stop: its freezer group is frozen, else each process of
        its PID namespace (and its process group) gets SIGSTOP."""
        self.signalled = not (self.groups is not None and self.groups.freeze())
        if self.signalled:
            super()._pause()
            if self.namespace is not None:
                signal_namespace(self.namespace, signal.SIGSTOP)

    def _resume(self) -> None:
        if self.groups is not None:
            self.groups.thaw()
        super()._resume()
        if self.signalled and self.namespace is not None:
            signal_namespace(self.namespace, signal.SIGCONT, rounds=1)
        self.signalled = False

    def close(self) -> None:
        if self.groups is not None:
            self.groups.thaw()  # a frozen process does not even die
        super().close()
        if self.groups is not None:
            self.groups.remove()
            self.groups = None
        self.namespace, self.signalled = None, False

    def _exit_text(self, code: int) -> str:
        # bubblewrap exits with 128 + the signal that ended the bot
        return (code > 128 and signal_exit_text(code - 128)) or super()._exit_text(code)

    def _failure_text(self, code: int | None) -> str | None:
        # bubblewrap exits with 128 + the signal that ended the bot; bubblewrap itself killed
        # by the kernel ends with the signal
        killed = code in (-signal.SIGKILL, 128 + signal.SIGKILL)
        if killed and self.groups is not None and self.groups.went_over():
            return (f"used more than its memory ({self.limits.memory_mb} MB for all its "
                    "processes, memory_limit)")
        return super()._failure_text(code)

    @property
    def group(self) -> int | None:
        return self.bot_pid  # bwrap gives the bot a session (and process group) of its own
