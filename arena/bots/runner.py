"""The process a Python bot runs in: ``python -m arena.bots.runner SPEC [PARAMS_JSON]``.

It speaks arena's JSON-lines bot protocol on the process's original stdout,
and sends everything the bot prints to stderr, so a bot's output can never
corrupt the protocol. Before the bot's code is imported it installs an audit
hook that refuses starting other processes and writing files outside the
process's working folder and the temporary folder.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from typing import Any, TextIO

PROTOCOL = 1
SPAWN_EVENTS = frozenset({
    "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.system", "os.exec",
    "subprocess.Popen", "pty.spawn",
})
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


def make_audit_hook(roots: tuple[str, ...]) -> Callable[[str, tuple[Any, ...]], None]:
    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in SPAWN_EVENTS:
            raise PermissionError(f"arena: bots may not start processes ({event})")
        if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
            path = os.path.realpath(os.fsdecode(args[0]))
            if _is_other_process(path):
                raise PermissionError(f"arena: bots may not look into other processes ({path})")
            if _is_write(args[1] if len(args) > 1 else None, args[2] if len(args) > 2 else 0) \
                    and not any(path == r or path.startswith(r + os.sep) for r in roots):
                raise PermissionError(f"arena: bots may not write outside their folder ({path})")
        if event in ("os.remove", "os.rename", "os.rmdir", "os.mkdir", "shutil.rmtree") and args:
            path = os.path.realpath(os.fsdecode(args[0])) if isinstance(
                args[0], (str, bytes, os.PathLike)) else ""
            if path and not any(path.startswith(r + os.sep) for r in roots):
                raise PermissionError(f"arena: bots may not change files outside their folder "
                                      f"({path})")

    return hook


def _send(out: TextIO, message: Any) -> None:
    out.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
    out.flush()


def reply_text(action: Any) -> str:
    """What goes back on the wire: the action's canonical string, or a marker for garbage."""
    if isinstance(action, str):
        return action.replace("\n", " ").replace("\r", " ")
    if type(action).__module__.startswith("arena.games."):
        return str(action)
    return f"<not an action: {type(action).__name__}>"


class Session:
    """One bot behind the protocol."""

    def __init__(self, spec: str, params: dict[str, Any], out: TextIO) -> None:
        self.spec, self.params, self.out = spec, params, out
        self.player: Any = None

    def hello(self) -> None:
        from arena.bots.loading import BotLoadError, load_bot

        try:
            self.player = load_bot(self.spec, self.params).player
        except BotLoadError as exc:
            sys.stderr.write(exc.details)
            _send(self.out, {"error": str(exc)})
            raise SystemExit(3) from None
        hello = {"name": self.player.name, "version": self.player.version,
                 "protocol": PROTOCOL, "ready": True}
        games = getattr(self.player, "games", None)
        if isinstance(games, (list, tuple)) and all(isinstance(g, str) for g in games):
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


def serve(session: Session, lines: TextIO) -> None:
    for line in lines:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            session.hello()
        elif kind == "start":
            session.start(message["info"])
        elif kind == "act":
            session.act(message["observation"])
        elif kind == "end":
            session.end(message["outcome"])
        elif kind == "quit":
            return


def main(argv: list[str]) -> None:
    protocol_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # whatever the bot prints goes to stderr
    sys.stdout = sys.stderr
    spec = argv[0]
    params = json.loads(argv[1]) if len(argv) > 1 else {}
    sys.addaudithook(make_audit_hook(_allowed_roots()))
    try:
        serve(Session(spec, params, protocol_out), sys.stdin)
    except SystemExit:
        raise
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
