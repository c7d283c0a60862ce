"""The process a Python bot runs in: ``python -m arena.bots.runner SPEC [PARAMS_JSON]``.

It speaks arena's JSON-lines bot protocol on the process's original stdout,
and sends everything the bot prints to stderr, so a bot's output can never
corrupt the protocol. Before the bot's code is imported it installs an audit
hook, a second line of defence behind the sandbox (and the only one a bot run
with isolation ``process`` has; see :func:`make_audit_hook`).
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterable
from typing import Any, BinaryIO, NoReturn

PROTOCOL = 1
SANDBOXED = "ARENA_SANDBOXED"
"""Set in a sandbox's environment: there, ctypes is the bot's own business."""
SPAWN_EVENTS = frozenset({
    "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.system", "os.exec",
    "subprocess.Popen", "pty.spawn",
})
CTYPES_EVENTS = frozenset({"ctypes.dlsym", "ctypes.call_function"})
"""Looking up or calling a foreign function; loading a library (numpy does, to import) is
harmless by itself."""
SIGNAL_EVENTS = frozenset({"os.kill", "os.killpg"})
PATH_EVENTS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    # event: (the positions of its path arguments, the positions of their directory fds)
    "os.remove": ((0,), (1,)), "os.rmdir": ((0,), (1,)), "os.mkdir": ((0,), (2,)),
    "os.rename": ((0, 1), (2, 3)), "os.truncate": ((0,), ()), "os.chmod": ((0,), (2,)),
    "os.chown": ((0,), (3,)), "os.utime": ((0,), (3,)), "shutil.rmtree": ((0,), (1,)),
    "sqlite3.connect": ((0,), ()),
}
REFUSED_EVENTS = frozenset({"os.link", "os.symlink"})
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


def _allowed_roots() -> tuple[str, ...]:
    roots = {os.path.realpath(os.getcwd()), os.path.realpath(tempfile.gettempdir()),
             "/dev/null"}
    return tuple(sorted(roots))


def _is_write(mode: Any, flags: Any) -> bool:
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and flags & WRITE_FLAGS != 0


def _is_other_process(path: str) -> bool:
    parts = path.split(os.sep)
    return (len(parts) > 2 and parts[1] == "proc" and parts[2].isdigit()
            and int(parts[2]) != os.getpid())


def _target(path: str, dir_fd: Any) -> str:
    """Where ``path`` leads, relative to the directory ``dir_fd`` if one is given."""
    if path == ":memory:" or path.startswith("file::memory:"):
        return ":memory:"
    if isinstance(dir_fd, int) and dir_fd >= 0 and not os.path.isabs(path):
        path = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
    return os.path.realpath(path)


def _refuse(what: str) -> NoReturn:
    raise PermissionError(f"arena: bots may not {what}")


def make_audit_hook(roots: tuple[str, ...], *, ctypes_allowed: bool = False,
                    ) -> Callable[[str, tuple[Any, ...]], None]:
    """An audit hook that refuses, with PermissionError: starting processes; writing,
    renaming, linking, truncating or changing the mode of files outside ``roots``;
    opening a directory outside them (so that no directory fd can lead out of them);
    looking into other processes' ``/proc`` entries; signalling other processes;
    opening databases outside ``roots``; and, unless ``ctypes_allowed``, foreign calls
    through ctypes, which would go around all of this."""

    def inside(path: str) -> bool:
        return any(path == r or path.startswith(r + os.sep) for r in roots)

    def resolved(value: Any) -> str | None:
        return (os.path.realpath(os.fsdecode(value))
                if isinstance(value, str | bytes | os.PathLike) else None)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in SPAWN_EVENTS:
            _refuse(f"start processes ({event})")
        if event in REFUSED_EVENTS:
            _refuse(f"make links ({event})")
        if event in CTYPES_EVENTS and not ctypes_allowed:
            _refuse(f"call foreign functions ({event})")
        if event in SIGNAL_EVENTS and args and args[0] not in (0, os.getpid()):
            _refuse(f"signal other processes ({event} {args[0]})")
        if event == "open" and args:
            _check_open(resolved(args[0]), args)
        elif event in ("os.listdir", "os.scandir") and args:
            path = resolved(args[0])
            if path is not None and _is_other_process(path):
                _refuse(f"look into other processes ({path})")
        elif event in PATH_EVENTS:
            _check_paths(event, args)

    def _check_open(path: str | None, args: tuple[Any, ...]) -> None:
        if path is None:
            return
        if _is_other_process(path):
            _refuse(f"look into other processes ({path})")
        if inside(path):
            return
        if _is_write(args[1] if len(args) > 1 else None, args[2] if len(args) > 2 else 0):
            _refuse(f"write outside their folder ({path})")
        if os.path.isdir(path):
            _refuse(f"open folders outside their own ({path})")

    def _check_paths(event: str, args: tuple[Any, ...]) -> None:
        paths, dir_fds = PATH_EVENTS[event]
        for index, position in enumerate(paths):
            if position >= len(args) or not isinstance(args[position], str | bytes | os.PathLike):
                continue  # an open file's descriptor: opening it was checked
            fd_at = dir_fds[index] if index < len(dir_fds) else len(args)
            dir_fd = args[fd_at] if fd_at < len(args) else None
            path = _target(os.fsdecode(args[position]), dir_fd)
            if path not in (":memory:", "") and not inside(path):
                _refuse(f"change files outside their folder ({event} {path})")

    return hook


def _disarm_unaudited() -> None:
    """Calls that raise no audit event are replaced before the bot's code runs."""
    import _posixsubprocess
    import posix

    def refused(*args: Any, **kwargs: Any) -> NoReturn:
        _refuse("start processes or make special files")

    for module, name in ((_posixsubprocess, "fork_exec"), (posix, "mkfifo"),
                         (posix, "mknod"), (os, "mkfifo"), (os, "mknod")):
        if hasattr(module, name):
            setattr(module, name, refused)


def _send(out: BinaryIO, message: Any) -> None:
    """One line to arena, in one write (``out`` is unbuffered)."""
    text = message if isinstance(message, str) else json.dumps(message)
    out.write((text + "\n").encode("utf-8", "backslashreplace"))


def reply_text(action: Any) -> str:
    """What goes back on the wire: the action's canonical string, or a marker for garbage."""
    if isinstance(action, str):
        return action.replace("\n", " ").replace("\r", " ")
    if type(action).__module__.startswith("arena.games."):
        return str(action)
    return f"<not an action: {type(action).__name__}>"


class Session:
    """One bot behind the protocol."""

    def __init__(self, spec: str, params: dict[str, Any], out: BinaryIO,
                 refused: str | None = None) -> None:
        self.spec, self.params, self.out = spec, params, out
        self.refused = refused
        """Why the bot's files are refused (checked before the audit hook), if they are."""
        self.player: Any = None

    def hello(self) -> None:
        from arena.bots.loading import BotLoadError, declared_games, load_bot

        try:
            if self.refused is not None:
                raise BotLoadError(self.refused)
            self.player = load_bot(self.spec, self.params, check_files=False).player
        except BotLoadError as exc:
            sys.stderr.write(exc.details)
            _send(self.out, {"error": str(exc)})
            raise SystemExit(3) from None
        hello = {"name": self.player.name, "version": self.player.version,
                 "protocol": PROTOCOL, "ready": True}
        games = declared_games(self.player)
        if games is not None:
            hello["games"] = list(games)
        _send(self.out, hello)

    def start(self, info: dict[str, Any]) -> None:
        from arena.referee.protocol import PlayerInfo, call_hook

        call_hook(self.player, "start", PlayerInfo(**info))
        _send(self.out, "ready")

    def end(self, outcome: dict[str, Any]) -> None:
        from arena.games.base import Outcome
        from arena.referee.protocol import call_hook

        call_hook(self.player, "end", Outcome.from_json(outcome))

    def act(self, observation: dict[str, Any]) -> None:
        from arena.games.base import Observation

        name = observation["game"]
        legal = _parse_all(name, tuple(observation["legal_actions"]))
        obs = Observation(name, observation["seat"], observation["state"], legal,
                          observation.get("time_left"))
        _send(self.out, reply_text(self.player.act(obs)))


@functools.lru_cache(maxsize=4096)
def _parse_all(game: str, texts: tuple[str, ...]) -> tuple[Any, ...]:
    """The actions of a legal-action list; the same lists come back again and again."""
    return tuple(_parse(game, text) for text in texts)


@functools.lru_cache(maxsize=4096)
def _parse(game: str, text: str) -> Any:
    from arena.games import find_game

    return find_game(game).parse_action(text)


def serve(session: Session, lines: Iterable[bytes | str]) -> None:
    for line in lines:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            session.hello()
        elif kind == "start":
            _run_hook(session, "start", session.start, message["info"])
        elif kind == "act":
            _run_hook(session, "act", session.act, message["observation"])
        elif kind == "end":
            _run_hook(session, "end", session.end, message["outcome"])
        elif kind == "quit":
            return


def _run_hook(session: Session, hook: str, call: Any, argument: Any) -> None:
    """Run one of the bot's hooks; if it raises, say so (``act() raised KeyError: 'x'``),
    leave the bot's own traceback on stderr, and end the process: arena starts a fresh one
    for the next game."""
    try:
        call(argument)
    except Exception as exc:
        from arena.referee.protocol import bot_traceback, raised_text

        sys.stderr.write(bot_traceback(exc))
        sys.stderr.flush()
        if hook != "end":  # after the game nobody reads the answer
            _send(session.out, {"error": raised_text(hook, exc).splitlines()[0]})
        os._exit(1)


def _files_refused(spec: str) -> str | None:
    """Why the bot file's files are refused (a link, device, FIFO or socket among them, or
    too much; :mod:`arena.bots.files`), or None."""
    from arena.bots.loading import BotLoadError, bot_files_hash, split_spec

    target = split_spec(spec)[0]
    if not target.endswith(".py") or not os.path.isfile(target):
        return None  # a module, an entry point, or no file: loading says what is wrong
    try:
        bot_files_hash(spec)
    except BotLoadError as exc:
        return str(exc)
    return None


def main(argv: list[str]) -> None:
    protocol_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # whatever the bot prints goes to stderr
    sys.stdout = sys.stderr
    spec = argv[0]
    params = json.loads(argv[1]) if len(argv) > 1 else {}
    _disarm_unaudited()
    refused = _files_refused(spec)  # now: the audit hook refuses to open the bot's folders
    sys.addaudithook(make_audit_hook(_allowed_roots(),
                                     ctypes_allowed=os.environ.get(SANDBOXED) == "1"))
    try:
        serve(Session(spec, params, protocol_out, refused), sys.stdin.buffer)
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
