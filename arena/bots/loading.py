"""Loading a bot in this process from its spec.

A bot is a player (:mod:`arena.referee.protocol`). Bots are named explicitly by a
*spec*:

``path/to/bot.py``
    The file's player: the one class defined in that file that has an ``act``
    method, a function named ``make_player``, or a function named ``agent``. None,
    or more than one, is an error that names the candidates.
``path/to/bot.py:Name``
    The attribute ``Name`` of that file.
``path/to/package``
    A package folder (with a ``/`` in its path): its ``__init__.py``.
``package.module:attr``
    The attribute ``attr`` of an importable module.
``name``
    An installed entry point in group ``arena.bots``.

A class or factory is called with the bot's parameters as keyword arguments;
an object that already has ``act`` is used as it is. An *agent function*, as in
Kaggle Environments (``def agent(observation)``, or any function whose first
parameter is named ``observation``), is the player's ``act``, called with the
bot's parameters as keyword arguments after the observation; its module's
``name``, ``version`` and ``games`` say who it is (by default: the file's name,
version ``1``).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.bots.files import BotFileError, read_bot
from arena.bots.names import name_problem, version_problem
from arena.games.base import ArenaError
from arena.referee.protocol import Player

ENTRY_POINT_GROUP = "arena.bots"
FACTORY_NAME = "make_player"
AGENT_NAME = "agent"


class BotLoadError(ArenaError):
    """A bot could not be loaded. ``details`` holds the bot's own traceback, if any."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


class BotNotFoundError(BotLoadError):
    """The spec names no file, module, attribute or entry point that exists."""


class BotImportError(BotLoadError):
    """The bot's code raised while being imported or constructed."""


class NoPlayerError(BotLoadError):
    """A bot file defines no player, or more than one (ambiguous)."""


class NotAPlayerError(BotLoadError):
    """The named object does not have the player protocol's shape."""


class BotFilesRefused(BotLoadError):
    """A bot's files are not all regular files and folders, or are over a cap
    (:mod:`arena.bots.files`); the message names the entry."""


@dataclass(frozen=True)
class LoadedBot:
    """A player with where it came from and a hash of its code."""

    player: Player
    spec: str
    code_hash: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.player.name

    @property
    def version(self) -> str:
        return self.player.version


def load_bot(spec: str, params: Mapping[str, Any] | None = None, *,
             check_files: bool = True) -> LoadedBot:
    """Load the player named by ``spec``; raise a BotLoadError subclass on any failure.

    A bot file's files (its package's folder) are checked before it is imported: regular
    files and folders only (:mod:`arena.bots.files`), and hashed as read. Only a bot's own
    process, whose files arena checked already, loads it with ``check_files`` False (and
    no hash)."""
    params = dict(params or {})
    target, attr = split_spec(spec)
    if target.endswith(".py"):
        checked = bot_files_hash(spec) if check_files and Path(target).is_file() else ""
        module = _import_file(spec, Path(target))
    elif attr is not None:
        module = _import_module(spec, target)
        checked = code_hash(module) if check_files else ""
    else:
        return _load_entry_point(spec, params, check_files)
    obj = _pick_attribute(spec, module, attr) if attr else _find_player(spec, module)
    player = _instantiate(spec, obj, params)
    return LoadedBot(player, spec, checked, params)


def bot_files_hash(spec: str) -> str:
    """The code hash of a bot file spec's files, refused (BotFilesRefused) unless they are
    all regular files and folders within the caps."""
    try:
        return read_bot(split_spec(spec)[0]).digest()
    except BotFileError as exc:
        raise BotFilesRefused(str(exc)) from None


def split_spec(spec: str) -> tuple[str, str | None]:
    """``bots/x.py:Greedy`` → (``bots/x.py``, ``Greedy``); ``pkg.mod:attr`` likewise; a
    package folder's path (``bots/seasons/trained``) is its ``__init__.py``."""
    target, sep, attr = spec.rpartition(":")
    if sep and attr and target and (target.endswith(".py") or ".py" not in spec):
        return _package_file(target), attr
    return _package_file(spec), None


def _package_file(target: str) -> str:
    if "/" in target and not target.endswith(".py") and (Path(target) / "__init__.py").is_file():
        return str(Path(target) / "__init__.py")
    return target


def _import_file(spec: str, path: Path) -> ModuleType:
    if not path.is_file():
        raise BotNotFoundError(f"bot {spec!r}: no such file {str(path)!r}")
    resolved = path.resolve()
    name = "arena_bot_" + hashlib.sha256(str(resolved).encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, resolved)
    if module_spec is None or module_spec.loader is None:
        raise BotNotFoundError(f"bot {spec!r}: {str(path)!r} is not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        module_spec.loader.exec_module(module)
    except BaseException as exc:
        del sys.modules[name]
        raise _import_failure(spec, exc, "failed to import") from None
    return module


def _import_module(spec: str, name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and name.startswith(exc.name):
            raise BotNotFoundError(f"bot {spec!r}: no module named {name!r}") from None
        raise _import_failure(spec, exc, "failed to import") from None
    except BaseException as exc:
        raise _import_failure(spec, exc, "failed to import") from None


def _import_failure(spec: str, exc: BaseException, what: str) -> BotImportError:
    summary = traceback.format_exception_only(type(exc), exc)[-1].strip()
    details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return BotImportError(f"bot {spec!r} {what}: {summary}", _bot_frames(details))


def _bot_frames(details: str) -> str:
    """Drop the frames of arena and importlib so the bot's own traceback remains."""
    kept: list[str] = []
    skip = False
    for line in details.splitlines(keepends=True):
        if line.startswith('  File "'):
            skip = "<frozen importlib" in line or f'"{__file__}"' in line
        if not skip:
            kept.append(line)
    return "".join(kept)


def _load_entry_point(spec: str, params: Mapping[str, Any], check_files: bool = True
                      ) -> LoadedBot:
    from importlib.metadata import entry_points  # here: it takes a while to import

    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == spec]
    if not found:
        what = not_a_bot(spec)
        if what:
            raise BotNotFoundError(f"bot {spec!r}: {what}")
        installed = sorted(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))
        raise BotNotFoundError(
            f"bot {spec!r} not found: name a file (path/to/bot.py), path/to/bot.py:Name, "
            f"module:attr, or an installed entry point in group {ENTRY_POINT_GROUP!r} "
            f"(installed: {', '.join(installed) or 'none'})")
    try:
        obj = found[0].load()
    except BaseException as exc:
        raise _import_failure(spec, exc, "failed to import") from None
    player = _instantiate(spec, obj, params)
    checked = code_hash(inspect.getmodule(obj)) if check_files else ""
    return LoadedBot(player, spec, checked, params)


def not_a_bot(spec: str) -> str:
    """Why a file or folder that exists is no bot ("" for anything else): a bot is a
    Python file, a package folder with ``__init__.py``, or a program (``cmd:``)."""
    path = Path(spec)
    if spec.endswith(".py") or ":" in spec:
        return ""
    try:
        if path.is_dir() and not (path / "__init__.py").is_file():
            return (f"{spec} is a folder without __init__.py: name one of its bot files "
                    f"({spec.rstrip('/')}/NAME.py), or add __init__.py to play it as a "
                    "package")
        if path.is_file():
            return (f"{spec} is a file but no Python bot (a bot is a .py file, a package "
                    "folder, or a program named as cmd:PROGRAM)")
    except OSError:
        return ""
    return ""


def _pick_attribute(spec: str, module: ModuleType, attr: str) -> Any:
    try:
        return getattr(module, attr)
    except AttributeError:
        raise BotNotFoundError(f"bot {spec!r}: the module has no attribute {attr!r}") from None


def _find_player(spec: str, module: ModuleType) -> Any:
    candidates = [
        obj for name, obj in vars(module).items()
        if (inspect.isclass(obj) and obj.__module__ == module.__name__
            and callable(getattr(obj, "act", None)))
        or (name in (FACTORY_NAME, AGENT_NAME) and callable(obj))
    ]
    if not candidates:
        raise NoPlayerError(
            f"bot {spec!r}: no player found (define one class with an act method, a "
            f"function named {FACTORY_NAME}, or a function {AGENT_NAME}(observation))")
    if len(candidates) > 1:
        names = ", ".join(sorted(obj.__name__ for obj in candidates))
        raise NoPlayerError(
            f"bot {spec!r}: several players found ({names}); name one as {spec}:NAME")
    return candidates[0]


def declared_games(player: Any) -> tuple[str, ...] | None:
    """The games a player says it plays (its ``games``: a list or tuple of names), or None
    where it says nothing that reads as such."""
    games = getattr(player, "games", None)
    if isinstance(games, list | tuple) and all(isinstance(g, str) for g in games):
        return tuple(games)
    return None


def other_games_problem(games: tuple[str, ...] | None, game: str) -> str | None:
    """``plays seasons (its `games`), not sonnentau`` where ``games`` leave out ``game``."""
    if games is None or game in games:
        return None
    return f"plays {', '.join(games) or 'no game'} (its `games`), not {game}"


def is_agent_function(obj: Any) -> bool:
    """Whether ``obj`` is an agent function: a plain function whose first parameter is
    named ``observation`` (the name ``agent`` alone says so too)."""
    if not inspect.isfunction(obj):
        return False
    parameters = list(inspect.signature(obj).parameters)
    return obj.__name__ == AGENT_NAME or parameters[:1] == ["observation"]


class FunctionPlayer:
    """An agent function as a player: ``act(observation)`` calls it; its module names it."""

    def __init__(self, function: Any, params: Mapping[str, Any], fallback_name: str) -> None:
        module = inspect.getmodule(function)
        self.function, self.params = function, dict(params)
        self.name = getattr(module, "name", None) or fallback_name
        version = getattr(module, "version", None) or getattr(module, "__version__", None)
        self.version = str(version) if isinstance(version, int | float) else version or "1"
        self.games = declared_games(module)

    def act(self, observation: Any) -> Any:
        return self.function(observation, **self.params)


def _instantiate(spec: str, obj: Any, params: Mapping[str, Any]) -> Player:
    if is_agent_function(obj):
        stem = Path(split_spec(spec)[0]).stem.replace("_", "-") or "agent"
        obj = FunctionPlayer(obj, params, stem)
    elif not callable(getattr(obj, "act", None)) or inspect.isclass(obj):
        if not callable(obj):
            raise NotAPlayerError(f"bot {spec!r}: {obj!r} is neither a player nor a factory")
        try:
            obj = obj(**params)
        except BaseException as exc:
            raise _import_failure(spec, exc, "failed to start") from None
    elif params:
        raise NotAPlayerError(f"bot {spec!r} is a ready player object and takes no parameters")
    check_player(spec, obj)
    player: Player = obj
    return player


def check_player(spec: str, obj: Any) -> None:
    """Raise NotAPlayerError unless ``obj`` has a valid name and version and an act method."""
    problems = [problem for problem in (name_problem(getattr(obj, "name", None)),
                                        version_problem(getattr(obj, "version", None)))
                if problem is not None]
    if not callable(getattr(obj, "act", None)):
        problems.append("it has no act(observation) method")
    if problems:
        raise NotAPlayerError(
            f"bot {spec!r} is not a player: " + "; ".join(problems)
            + " (a player needs name, version and act(observation))")


def code_hash(module: ModuleType | None) -> str:
    """SHA-256 of the module's source file (of every file for a package); BotFilesRefused
    unless its files are all regular files and folders within the caps."""
    path = getattr(module, "__file__", None)
    if not path:
        return ""
    try:
        return source_file_hash(Path(path))
    except BotFileError as exc:
        raise BotFilesRefused(str(exc)) from None


def source_file_hash(file: Path) -> str:
    """SHA-256 of a bot's source: the file's bytes, or, for a package, its folder's every
    entry (relative path, executable bit, bytes; its data, a trained policy say, decides
    its play as much as its code; compiled caches aside), read as :mod:`arena.bots.files`
    reads a bot (BotFileError for a link, device, FIFO or socket, or too much)."""
    return read_bot(file).digest()


__all__ = [
    "BotFilesRefused", "BotImportError", "BotLoadError", "BotNotFoundError", "LoadedBot",
    "NoPlayerError", "NotAPlayerError", "bot_files_hash", "check_player", "load_bot",
    "split_spec",
]
