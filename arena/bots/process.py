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
import os
import resource
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.loading import split_spec
from arena.bots.strays import adopt_orphans, die_with_parent, kill_strays
from arena.games.base import Observation, Outcome
from arena.referee.protocol import PlayerFailure, PlayerInfo
from arena.referee.record import CRASH, TIMEOUT

COMMAND_PREFIX = "command:"
HANDSHAKE_SECONDS = 30.0
GRACE_SECONDS = 0.25
QUIT_SECONDS = 0.1
MAX_LINE = 1 << 20
STDERR_TAIL = 2000
FILE_SIZE_LIMIT = 64 << 20
_RUNNING_BOTS: set[int] = set()
"""Pids of the bot processes this process runs (each in a session of its own)."""


@dataclass(frozen=True)
class Limits:
    """What a bot process may use. ``None`` means no limit."""

    memory_mb: int | None = 1024
    cpu_seconds_per_game: float | None = 120.0
    handshake_seconds: float = HANDSHAKE_SECONDS


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


def _child_setup(limits: Limits) -> None:
    # Runs in the child between fork and exec: limits, and death with the parent.
    if limits.memory_mb is not None:
        size = limits.memory_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    die_with_parent(signal.SIGKILL)


class ProcessPlayer:
    """A player whose bot runs in a process of its own. Reusable across games."""

    def __init__(self, command: Sequence[str], limits: Limits | None = None,
                 label: str = "bot") -> None:
        self.command = list(command)
        self.limits = limits or Limits()
        self.label = label
        self.name, self.version = label, "?"
        self.process: subprocess.Popen[bytes] | None = None
        self.folder: Path | None = None
        self.buffer = b""
        self.games: tuple[str, ...] | None = None
        self.says_ready = False

    # -- process life ----------------------------------------------------------

    def ensure_running(self) -> None:
        """Start the bot process and shake hands, if it is not running."""
        if self.process is not None and self.process.poll() is None:
            return
        self.close()
        self.folder = Path(tempfile.mkdtemp(prefix="arena-bot-"))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.folder),
               "TMPDIR": str(self.folder),
               "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "LANG": "C.UTF-8"}
        for key in ("PYTHONPATH", "VIRTUAL_ENV"):
            if key in os.environ:
                env[key] = os.environ[key]
        stderr = open(self.folder / "stderr.txt", "wb")  # noqa: SIM115 - the child owns it
        adopt_orphans()
        try:
            self.process = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                cwd=self.folder, env=env, start_new_session=True,
                preexec_fn=lambda: _child_setup(self.limits))
        except OSError as exc:
            raise PlayerFailure(CRASH, f"cannot start {self.command[0]!r}: {exc}") from None
        finally:
            stderr.close()
        _RUNNING_BOTS.add(self.process.pid)
        assert self.process.stdin is not None
        os.set_blocking(self.process.stdin.fileno(), False)
        self.buffer = b""
        self._handshake()

    def _handshake(self) -> None:
        self._send({"type": "hello", "protocol": 1})
        line = self._read_line(self.limits.handshake_seconds, "the handshake")
        try:
            reply = json.loads(line)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            self._fail(CRASH, f"malformed handshake {line[:200]!r}")
        if "error" in reply:
            self._fail(CRASH, str(reply["error"]))
        name, version = reply.get("name"), reply.get("version")
        if not (isinstance(name, str) and name and isinstance(version, str | int | float)):
            self._fail(CRASH, f"handshake without name and version: {line[:200]!r}")
        self.name, self.version = name, str(version)
        games = reply.get("games")
        self.games = tuple(games) if isinstance(games, list) else None
        self.says_ready = reply.get("ready") is True

    def close(self) -> None:
        """Stop the bot process (and everything it started) and remove its folder."""
        if self.process is not None:
            if self.process.poll() is None:
                with contextlib.suppress(OSError, ValueError, PlayerFailure):
                    self._send({"type": "quit"}, QUIT_SECONDS)
            self._kill_group()
            for stream in (self.process.stdin, self.process.stdout):
                with contextlib.suppress(OSError):
                    if stream:
                        stream.close()
            _RUNNING_BOTS.discard(self.process.pid)
            self.process = None
            kill_strays(_RUNNING_BOTS)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None

    def _kill_group(self) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)

    # -- the player protocol ----------------------------------------------------------

    def start(self, info: PlayerInfo) -> None:
        self.ensure_running()
        self._set_cpu_budget()
        self._send({"type": "start", "info": {
            "game": info.game, "options": dict(info.options), "seat": info.seat,
            "seats": info.seats, "seed": info.seed, "time_limit": info.time_limit}})
        if self.says_ready:  # its warm-up then does not count against its first decision
            line = self._read_line(self.limits.handshake_seconds, "the start of a game")
            if line != "ready":
                self._fail(CRASH, f"expected 'ready' after the start of a game, got {line[:200]!r}")

    def act(self, observation: Observation) -> str:
        if self.process is None:
            raise PlayerFailure(CRASH, "the bot process is not running")
        limit = observation.time_left
        seconds = None if limit is None else limit + GRACE_SECONDS
        started = time.monotonic()
        self._send({"type": "act", "observation": observation.to_json()}, seconds)
        left = None if seconds is None else seconds - (time.monotonic() - started)
        return self._read_line(left, "a decision")

    def end(self, outcome: Outcome) -> None:
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(PlayerFailure):
                self._send({"type": "end", "outcome": outcome.to_json()})
        kill_strays(_RUNNING_BOTS)  # what left the bot's process group during the game

    # -- wire ---------------------------------------------------------------------------

    def _send(self, message: Mapping[str, Any], seconds: float | None = None) -> None:
        """Write one message; a bot that does not read it within ``seconds`` times out.

        The pipe is non-blocking: a bot that answers without ever reading its input
        would otherwise fill the pipe and block arena for good.
        """
        assert self.process is not None and self.process.stdin is not None
        if seconds is None:
            seconds = self.limits.handshake_seconds
        fd = self.process.stdin.fileno()
        data = memoryview(json.dumps(message).encode() + b"\n")
        deadline = time.monotonic() + seconds
        while data:
            try:
                data = data[os.write(fd, data):]
            except BlockingIOError:
                pass
            except OSError:
                self._fail(CRASH, "the bot process has exited")
            if data:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._fail(TIMEOUT, f"the bot does not read its input ({seconds:.2f} s "
                                        f"waiting to send it a {message.get('type')!r} message)")
                select.select([], [fd], [], remaining)

    def _read_line(self, seconds: float | None, waiting_for: str) -> str:
        assert self.process is not None and self.process.stdout is not None
        deadline = None if seconds is None else time.monotonic() + seconds
        stream = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                self._fail(TIMEOUT, f"no answer within {seconds:.2f} s to {waiting_for}")
            ready, _, _ = select.select([stream], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(stream, 65536)
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

    def _fail(self, status: str, reason: str) -> Any:
        """Kill the process, keep the tail of its stderr, and raise PlayerFailure."""
        tail = ""
        if self.process is not None:
            code = self.process.poll()
            self._kill_group()
            if code is not None and code != 0 and status == CRASH:
                reason += f" (exit status {_exit_text(code)})"
            tail = self.stderr_tail()
        self.close()
        raise PlayerFailure(status, reason + (f"\n--- stderr ---\n{tail}" if tail else ""))

    def stderr_tail(self) -> str:
        if self.folder is None:
            return ""
        try:
            data = (self.folder / "stderr.txt").read_bytes()
        except OSError:
            return ""
        return data[-STDERR_TAIL:].decode("utf-8", errors="replace").strip()

    def _set_cpu_budget(self) -> None:
        seconds = self.limits.cpu_seconds_per_game
        if seconds is None or self.process is None or not hasattr(resource, "prlimit"):
            return
        used = _cpu_seconds(self.process.pid)
        soft = int(used + seconds) + 1
        with contextlib.suppress(OSError, ValueError):
            resource.prlimit(self.process.pid, resource.RLIMIT_CPU, (soft, soft + 1))


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _exit_text(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return str(code)
