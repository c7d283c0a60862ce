"""Bots in their own processes, behind arena's JSON-lines protocol, with enforced limits.

The protocol (one JSON object or one action string per line; see the README):

- arena sends ``{"type": "hello", "protocol": 1}``; the bot answers with one
  line ``{"name": …, "version": …}`` (optionally ``"games": [...]``, the games
  it plays);
- before each game ``{"type": "start", "info": {game, options, seat, seats,
  seed, time_limit}}``, after it ``{"type": "end", "outcome": {ranks, scores,
  termination}}`` — no answer to either, except that a bot whose handshake said
  ``"ready": true`` answers each start with the line ``ready`` once it is ready
  to play (within the handshake's time);
- for each decision ``{"type": "act", "observation": {game, seat, state,
  legal_actions, time_left}}``; the bot answers with one line: the action string;
- ``{"type": "quit"}`` at the end.

The referee owns the clock: ``time_left`` is the decision's limit plus what is
left of the game's time bank. If no answer has come by then (plus a small
grace for the pipe), the bot's whole process group is killed — arena never
waits for a bot to return. A bot process gets an address-space limit, a CPU
limit per game, a file-size limit, a fresh working folder, and dies with the
process that started it; what it starts dies with it, even in a session of its
own (:mod:`arena.bots.strays`). A process that failed is started again for the next
game.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import resource
import select
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.interrupts import release_in_child, signals_held_while_forking
from arena.bots.loading import split_spec
from arena.bots.names import identity_problem, shown
from arena.bots.scratch import OwnedFolder
from arena.bots.strays import adopt_orphans, die_with_parent, kill_strays
from arena.games.base import Observation, Outcome
from arena.referee.protocol import STDERR_MARK, PlayerFailure, PlayerInfo, printable
from arena.referee.record import CRASH, TIMEOUT

log = logging.getLogger(__name__)
COMMAND_PREFIX = "command:"
POLL_SECONDS = 200e-6
"""How long arena polls for an answer before it sleeps until one comes: on a virtual
machine, waking a sleeping core takes longer than a quick bot takes to answer. Polling
pays only where a core is free for it (see :func:`poll_while_waiting`)."""
_poll_seconds = POLL_SECONDS
CPU_CHECK_SECONDS = 0.1
"""How often, at most, arena reads a bot's CPU time between decisions."""
CPU_WATCH_SECONDS = 0.25
"""How often arena reads the CPU time of a bot that thinks long about one decision. The
kernel's CPU limit does not stop every bot: the first process of a PID namespace (a
sandboxed bot) ignores the SIGXCPU it sends, and it counts one process only."""
HANDSHAKE_SECONDS = 30.0
GRACE_SECONDS = 0.25
OPEN_FILES = 1024
"""The files a bot's process may have open (RLIMIT_NOFILE): the usual default."""
QUIT_SECONDS = 0.1
MAX_LINE = 1 << 20
MAX_GAMES = 16
STDERR_TAIL = 2000
FILE_SIZE_LIMIT = 64 << 20
_encode_json = json.JSONEncoder(check_circular=False).encode
_warned_cpu_limit = False
_RUNNING_BOTS: set[int] = set()
"""Pids of the bot processes this process runs (each in a session of its own)."""


@dataclass(frozen=True)
class Limits:
    """What a bot process may use. ``None`` means no limit."""

    memory_mb: int | None = 1024
    cpu_seconds_per_game: float | None = 120.0
    handshake_seconds: float = HANDSHAKE_SECONDS
    processes: int = 64
    """Processes and threads, in the sandbox (a fork bomb stops there)."""
    scratch_mb: int = 64
    """Size of a sandboxed bot's writable /tmp."""


def _encode(message: Mapping[str, Any]) -> bytes:
    """A message as a line of JSON (in the layout ``json.dumps`` gives, which simple bots
    may match on: ``"legal_actions": [...]``)."""
    return (_encode_json(message) + "\n").encode()


def poll_while_waiting(enabled: bool) -> None:
    """Whether this process polls briefly for a bot's answer before it sleeps: worth it only
    where cores are to spare (a busy machine loses what polling takes from the bots)."""
    global _poll_seconds
    _poll_seconds = POLL_SECONDS if enabled else 0.0


def running_bots() -> set[int]:
    """Pids of the bot processes this process runs now."""
    return set(_RUNNING_BOTS)


def is_command(spec: str) -> bool:
    return spec.startswith(COMMAND_PREFIX)


def bot_command(spec: str, params: Mapping[str, Any]) -> list[str]:
    """The command line of a bot: ``command:…`` as given, a Python spec via arena.bots.runner."""
    if is_command(spec):
        words = shlex.split(spec[len(COMMAND_PREFIX):])
        if words and (os.sep in words[0]) and Path(words[0]).exists():
            words[0] = str(Path(words[0]).resolve())
        return words
    target, attr = split_spec(spec)
    if target.endswith(".py"):
        spec = str(Path(target).resolve()) + (f":{attr}" if attr else "")
    return [sys.executable, "-m", "arena.bots.runner", spec, json.dumps(dict(params))]


def child_setup(limits: Limits, parent: int) -> None:
    """Limits, and death with the parent (the process ``parent`` that started it); runs in
    the child between fork and exec, after any change of user (which would clear the death
    signal)."""
    if limits.memory_mb is not None:
        size = limits.memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # each open pipe or socket can hold kernel memory no address-space limit counts
    _, most = resource.getrlimit(resource.RLIMIT_NOFILE)
    files = OPEN_FILES if most == resource.RLIM_INFINITY else min(OPEN_FILES, most)
    resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
    die_with_parent(signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above: no signal comes
        os._exit(124)
    release_in_child()


class ProcessPlayer:
    """A player whose bot runs in a process of its own. Reusable across games."""

    isolation = "process"

    def __init__(self, command: Sequence[str], limits: Limits | None = None,
                 label: str = "bot", *, remember_load_failure: bool = False) -> None:
        self.command = list(command)
        self.limits = limits or Limits()
        self.label = label
        self.name, self.version = label, "?"
        self.process: subprocess.Popen[bytes] | None = None
        self.greeted = False
        """Whether the running process has shaken hands."""
        self.scratch: OwnedFolder | None = None
        """The running process's working folder."""
        self.stderr_fd: int | None = None
        """The running process's stderr, a file in memory."""
        self.buffer = b""
        self.games: tuple[str, ...] | None = None
        self.says_ready = False
        self.remember_load_failure = remember_load_failure
        self.load_error: str | None = None
        self.cpu_at_start = 0.0
        self.cpu_checked = 0.0
        self.can_limit_cpu = True
        self.code_paths: tuple[str, str] | None = None
        """Where the bot's files lie as it runs, and how its failures name them."""

    # -- process life ----------------------------------------------------------

    def ensure_running(self) -> None:
        """Start the bot process and shake hands, if it is not running."""
        if not self._running():
            if self.load_error is not None:
                raise PlayerFailure(CRASH, self.load_error)
            self._launch()
        elif self.greeted:
            return
        try:
            self._handshake()
        except PlayerFailure as failure:
            if self.remember_load_failure:  # a bot that cannot start is not retried each game
                self.load_error = f"the bot cannot be loaded: {failure.detail}"
            raise
        self.greeted = True

    def launch(self) -> None:
        """Start the bot's process, if it is not running, without waiting for its handshake
        (done when it is first asked to play): the bots of a game start side by side."""
        if not self._running() and self.load_error is None:
            with contextlib.suppress(PlayerFailure):  # it fails again, and says so, in start
                self._launch()

    def _running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _launch(self) -> None:
        self.close()
        self.scratch = OwnedFolder("arena-bot-")
        # in memory, not on disk: written and synced again and again, a disk file took the
        # disk's bandwidth from everyone; memory is counted against the bot's own limit
        self.stderr_fd = os.memfd_create("arena-bot-stderr", os.MFD_CLOEXEC)
        adopt_orphans()
        try:
            self.process = self._spawn(self.scratch.path, self.stderr_fd)
        except OSError as exc:
            self.close()
            raise PlayerFailure(CRASH, f"cannot start {self.command[0]!r}: {exc}") from None
        _RUNNING_BOTS.add(self.process.pid)
        assert self.process.stdin is not None
        os.set_blocking(self.process.stdin.fileno(), False)
        assert self.process.stdout is not None
        os.set_blocking(self.process.stdout.fileno(), False)
        self.buffer, self.greeted = b"", False

    def _spawn(self, folder: Path, stderr: Any) -> subprocess.Popen[bytes]:
        """Start the bot's process, its working folder ``folder``."""
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(folder),
               "TMPDIR": str(folder),
               "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "LANG": "C.UTF-8"}
        for key in ("PYTHONPATH", "VIRTUAL_ENV"):
            if key in os.environ:
                env[key] = os.environ[key]
        parent = os.getpid()
        with signals_held_while_forking():
            return subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                cwd=folder, env=env, start_new_session=True,
                preexec_fn=lambda: child_setup(self.limits, parent))

    @property
    def cpu_pid(self) -> int | None:
        """The bot's own process, whose soft CPU limit is moved each game."""
        return None if self.process is None else self.process.pid

    def cpu_seconds(self) -> float | None:
        """The CPU time that counts against the bot's budget: here its own process's (a
        sandboxed bot counts all its processes); None without a process."""
        pid = self.cpu_pid
        return None if pid is None else _cpu_seconds(pid)

    def _handshake(self) -> None:
        self._send({"type": "hello", "protocol": 1})
        line = self._read_line(self.limits.handshake_seconds, "the handshake")
        try:
            reply = json.loads(line)
        except (ValueError, RecursionError):  # nested too deeply for the parser: not a reply
            reply = None
        if not isinstance(reply, dict):
            self._fail(CRASH, f"malformed handshake {shown(line, 200)}")
        if "error" in reply:
            self._fail(CRASH, printable(str(reply["error"]))[:2000])
        name, version = reply.get("name"), reply.get("version")
        if name is None or version is None:
            self._fail(CRASH, f"handshake without name and version: {shown(line, 200)}")
        if isinstance(version, int | float) and not isinstance(version, bool):
            version = str(version)
        problem = identity_problem(name, version)
        if problem is not None:
            self._fail(CRASH, f"handshake refused: {problem}")
        self.name, self.version = name, version
        games = reply.get("games")
        self.games = (tuple(g for g in games if isinstance(g, str))[:MAX_GAMES]
                      if isinstance(games, list) else None)
        self.says_ready = reply.get("ready") is True

    def close(self) -> None:
        """Stop the bot process (and everything it started) and remove its folder."""
        if self.process is not None and self.process.poll() is None:
            self._resume()
            with contextlib.suppress(OSError, ValueError, PlayerFailure):
                self._send({"type": "quit"}, QUIT_SECONDS)  # failing, it closes the bot itself
        if self.process is not None:
            self._kill_group()
            for stream in (self.process.stdin, self.process.stdout):
                with contextlib.suppress(OSError):
                    if stream:
                        stream.close()
            _RUNNING_BOTS.discard(self.process.pid)
            self.process = None
            kill_strays(_RUNNING_BOTS)
        if self.scratch is not None:
            self.scratch.remove()
            self.scratch = None
        if self.stderr_fd is not None:
            os.close(self.stderr_fd)
            self.stderr_fd = None

    def _kill_group(self) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)

    # -- the player protocol ----------------------------------------------------------

    def start(self, info: PlayerInfo) -> None:
        self._resume()  # stopped at the end of its last game (maybe before its handshake)
        self.ensure_running()
        self._start_cpu_budget()
        self._send({"type": "start", "info": {
            "game": info.game, "options": dict(info.options), "seat": info.seat,
            "seats": info.seats, "seed": info.seed, "time_limit": info.time_limit}})
        if self.says_ready:  # its warm-up then does not count against its first decision
            line = self._read_line(self.limits.handshake_seconds, "the start of a game")
            if line != "ready":
                self._raise_reported_error(line)
                self._fail(CRASH, f"expected 'ready' after the start of a game, got {line[:200]!r}")

    def act(self, observation: Observation) -> str:
        if self.process is None:
            raise PlayerFailure(CRASH, "the bot process is not running")
        limit = observation.time_left
        seconds = None if limit is None else limit + GRACE_SECONDS
        started = time.monotonic()
        self._write(_encode({"type": "act", "observation": observation.to_json()}), "act",
                    seconds)
        reply = self._read_line(seconds, "a decision", since=started, watch_cpu=True)
        if reply.startswith('{"error"'):
            self._raise_reported_error(reply)
        if started - self.cpu_checked >= CPU_CHECK_SECONDS:
            self._check_cpu_budget(started)
        return reply

    def _raise_reported_error(self, line: str) -> None:
        """A bot whose hook raised says so (``{"error": "act() raised KeyError: 'x'"}``) and
        leaves its traceback on stderr: it loses by crash with both."""
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            return
        if isinstance(message, dict) and isinstance(message.get("error"), str):
            self._fail(CRASH, printable(message["error"])[:2000], as_reported=True)

    def end(self, outcome: Outcome) -> None:
        # A bot launched for a game that ended before its start (another seat forfeited
        # first) has not shaken hands: it hears nothing before its hello.
        if self._running():
            if self.greeted:
                with contextlib.suppress(PlayerFailure):
                    self._send({"type": "end", "outcome": outcome.to_json()})
                    # Over its budget since the last check: the game's result stands, but
                    # the bot (and what it started) is not kept; it starts again for its next.
                    self._check_cpu_budget(time.monotonic())
            if self.process is not None:
                self._pause()  # no CPU for a bot between its games
        kill_strays(_RUNNING_BOTS)  # what left the bot's process group during the game

    def _pause(self) -> None:
        """Stop the bot and what it starts, between games."""
        self._signal_group(signal.SIGSTOP)

    def _resume(self) -> None:
        self._signal_group(signal.SIGCONT)

    def _signal_group(self, signal_number: int) -> None:
        group = self.group
        if group is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal_number)

    @property
    def group(self) -> int | None:
        """The process group of the bot and what it starts (its session's)."""
        return None if self.process is None else self.process.pid

    # -- wire ---------------------------------------------------------------------------

    def _send(self, message: Mapping[str, Any], seconds: float | None = None) -> None:
        """Write one message; a bot that does not read it within ``seconds`` times out."""
        self._write(_encode(message), str(message.get("type")), seconds)

    def _write(self, line: bytes, kind: str, seconds: float | None = None) -> None:
        """Write one encoded message; a bot that does not read it within ``seconds`` times
        out. The pipe is non-blocking: a bot that answers without ever reading its input
        would otherwise fill the pipe and block arena for good."""
        assert self.process is not None and self.process.stdin is not None
        if seconds is None:
            seconds = self.limits.handshake_seconds
        fd = self.process.stdin.fileno()
        try:
            written = os.write(fd, line)
        except BlockingIOError:
            written = 0
        except OSError:
            self._fail(CRASH, "the bot process has exited")
        if written == len(line):  # the common case: the whole message at once
            return
        data = memoryview(line)[written:]
        deadline = time.monotonic() + seconds
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self._fail(TIMEOUT, f"the bot does not read its input ({seconds:.2f} s "
                                    f"waiting to send it a {kind!r} message)")
            select.select([], [fd], [], remaining)
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                pass
            except OSError:
                self._fail(CRASH, "the bot process has exited")

    def _read_line(self, seconds: float | None, waiting_for: str, *,
                   since: float | None = None, watch_cpu: bool = False) -> str:
        """The bot's next line, due ``seconds`` after ``since`` (a ``time.monotonic()``;
        now if None); with ``watch_cpu``, within the game's CPU budget too."""
        assert self.process is not None and self.process.stdout is not None
        deadline = None if seconds is None else (
            time.monotonic() if since is None else since) + seconds
        stream = self.process.stdout.fileno()
        spin_until = time.perf_counter() + _poll_seconds
        while b"\n" not in self.buffer:
            try:  # a quick bot has answered before a sleep and a wake-up would be over
                chunk = os.read(stream, 65536)
            except BlockingIOError:
                # The deadline is looked at only where the pipe holds no answer: a referee
                # held up past it (a loaded machine) takes the answer that came in time.
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    self._fail(TIMEOUT, f"no answer within {seconds:.2f} s to {waiting_for}")
                if time.perf_counter() < spin_until:
                    continue
                if watch_cpu and self.limits.cpu_seconds_per_game is not None:
                    remaining = self._watch_cpu(remaining)
                select.select([stream], [], [], remaining)
                continue
            if not chunk:
                # The pipe closed: let the process finish exiting, to report its status.
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=1.0)
                self._fail(CRASH, f"the bot process exited during {waiting_for}")
            self.buffer += chunk
            if len(self.buffer) > MAX_LINE:
                self._fail(CRASH, "answer longer than 1 MiB without a newline")
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace").strip()

    def _fail(self, status: str, reason: str, *, as_reported: bool = False) -> Any:
        """Kill the process, keep the tail of its stderr, and raise PlayerFailure; a reason
        the bot reported itself is kept as it is."""
        tail = ""
        if self.process is not None:
            code = self.process.poll()
            self._kill_group()
            if code == -signal.SIGXCPU:
                status, reason = TIMEOUT, self._cpu_text()
            elif code is not None and code != 0 and status == CRASH and not as_reported:
                reason = self._failure_text(code) or f"{reason} ({self._exit_text(code)})"
            tail = self.stderr_tail()
        self.close()
        raise PlayerFailure(status, printable(self.shown_paths(  # shown on terminals, pages
            reason + (f"\n{STDERR_MARK}\n{tail}" if tail else ""))))

    def shown_paths(self, text: str) -> str:
        """``text`` (a failure's detail) with the bot's files named as its author knows
        them, not where they lie as it runs (``/bot/…`` in the sandbox, a bundle's folder)."""
        if self.code_paths is None:
            return text
        where, shown = self.code_paths
        return text.replace(where, shown)

    def _exit_text(self, code: int) -> str:
        """How the bot's process ended, from its exit status ``code``."""
        return (code < 0 and signal_exit_text(-code)) or f"exit status {code}"

    def _failure_text(self, code: int | None) -> str | None:
        """What to say of a bot process that ended with ``code``, beyond its exit status."""
        return None

    def stderr_tail(self) -> str:
        if self.stderr_fd is None:
            return ""
        try:
            size = os.fstat(self.stderr_fd).st_size
            data = os.pread(self.stderr_fd, STDERR_TAIL, max(size - STDERR_TAIL, 0))
        except OSError:
            return ""
        return data[-STDERR_TAIL:].decode("utf-8", errors="replace").strip()

    # -- CPU time per game ------------------------------------------------------------

    def _start_cpu_budget(self) -> None:
        """Move the soft CPU limit to what the bot has used so far plus one game's budget.

        Only the soft limit moves: a lowered hard limit could not be raised again for the
        next game without privileges. A bot that raises its soft limit or ignores SIGXCPU
        is caught by :meth:`_check_cpu_budget`.
        """
        seconds, pid = self.limits.cpu_seconds_per_game, self.cpu_pid
        self.cpu_at_start = self.cpu_checked = 0.0
        if seconds is None or pid is None:
            return
        self.cpu_at_start = self.cpu_seconds() or 0.0  # what all its processes used
        self.cpu_checked = time.monotonic()
        if not self.can_limit_cpu:
            return
        try:  # the kernel's limit holds for the bot's own process only
            _soft, hard = resource.prlimit(pid, resource.RLIMIT_CPU)
            soft = int(_cpu_seconds(pid) + seconds) + 1
            resource.prlimit(pid, resource.RLIMIT_CPU,
                             (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
        except (OSError, ValueError) as exc:
            # A root without CAP_SYS_RESOURCE (in a container, say) may not limit a sandboxed
            # bot's uid; arena's own check between decisions then does it alone.
            self.can_limit_cpu = False
            global _warned_cpu_limit
            if not _warned_cpu_limit:
                _warned_cpu_limit = True
                log.info("cannot set the CPU limit of bot %s (pid %d): %s; arena checks "
                     "its CPU time between decisions instead", self.label, pid, exc)

    def _check_cpu_budget(self, now: float) -> None:
        """Fail with ``timeout`` if the bot's processes used more than the game's budget."""
        seconds = self.limits.cpu_seconds_per_game
        self.cpu_checked = now
        used = None if seconds is None else self.cpu_seconds()
        if seconds is not None and used is not None and used - self.cpu_at_start > seconds:
            self._fail(TIMEOUT, self._cpu_text())

    def _watch_cpu(self, remaining: float | None) -> float:
        """Check the CPU budget if it is time to; how long to wait for an answer before the
        next check (at most ``remaining``)."""
        now = time.monotonic()
        if now - self.cpu_checked >= CPU_WATCH_SECONDS:
            self._check_cpu_budget(now)
        wait = max(self.cpu_checked + CPU_WATCH_SECONDS - now, 0.0)
        return wait if remaining is None else min(remaining, wait)

    def _cpu_text(self) -> str:
        return (f"used up its CPU time for the game ({self.limits.cpu_seconds_per_game:g} s, "
                "cpu_limit)")


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def signal_exit_text(number: int) -> str | None:
    """``killed by SIGSEGV`` for a signal's number; None for a number no signal has."""
    with contextlib.suppress(ValueError):
        return f"killed by {signal.Signals(number).name}"
    return None
