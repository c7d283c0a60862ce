"""Who a bot is: the entry that names it, the identity it is stored under, its code hash.

A tournament names each bot by a :class:`BotEntry` (a spec, and optionally the
name, version and parameters it plays under). Its :class:`BotIdentity` is what
the results store keeps: name, version, the spec, the parameters, and a hash
of its code with the parameters folded in — the same name and version with
another hash is another bot. An untrusted bot says its name and version in the
handshake of a process of its own; only a trusted bot (isolation ``none``) is
imported into arena's process to be named.

A bot's code is read once, when it is named (:func:`keep_code`): a bot of files (a
file, a package folder, a program file of its own) becomes a bundle
(:mod:`arena.bots.bundles`) that it is named, hashed, kept and played from, wherever
it is played; its entry then names its files within the bundle. A bot found where it
is played — an installed entry point or module, a program in ``PATH`` — carries the
hash its code must have there (:class:`Installed`), checked before it plays.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shlex
import shutil
import socket
import sys
import types
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any

from arena.bots.bundles import (
    Bundle,
    Unpacked,
    bundle_of,
    pack,
    receive,
    relative_spec,
    spec_at,
    unpacked,
)
from arena.bots.files import MAX_PROGRAM_BYTES, BotFileError, BotTree, read_bot_file
from arena.bots.files import BotEntry as FileEntry
from arena.bots.isolation import NONE, SANDBOX, bot_process, handshaken
from arena.bots.loading import (
    ENTRY_POINT_GROUP,
    BotLoadError,
    LoadedBot,
    declared_games,
    load_bot,
    not_a_bot,
    other_games_problem,
    split_spec,
)
from arena.bots.process import COMMAND_PREFIX, Limits, ProcessPlayer, is_command
from arena.games.base import ArenaError
from arena.referee.protocol import Player, PlayerFailure, call_hook, raised_text
from arena.referee.record import CRASH

UNLOADABLE_VERSION = "unloadable"


@dataclass(frozen=True)
class Installed:
    """What a bot found where it is played must be there: its code's hash, and what that is
    (``arena-highlow-bot 1.0``), to say what differs."""

    code: str
    what: str


class InstalledMismatch(ArenaError):
    """A bot found where it is played is not the code that was registered for it."""


@dataclass(frozen=True)
class BotEntry:
    """One bot of a tournament: its spec and, optionally, its identity and parameters.

    An entry as it is played (:func:`keep_code`) names its code exactly: a bundle, whose
    files its spec names (``my_bot.py``, ``mybot/__init__.py:agent``), or what an
    installed bot must be."""

    spec: str
    name: str | None = None
    version: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    isolation: str | None = None
    """``sandbox``, ``process`` or ``none``; None: the sandbox where it works."""
    bundle: str | None = None
    """The digest of the bundle that holds the bot's files (its spec names them there)."""
    installed: Installed | None = None
    """For a bot found where it is played: what it must be there."""
    shown: str | None = None
    """Where its author has the bot's files, to name them so in failure details (None: by
    their names in the bot, as on a Dask worker)."""

    def to_json(self) -> dict[str, Any]:
        data = {"spec": self.spec, "name": self.name, "version": self.version,
                "params": dict(self.params), "isolation": self.isolation}
        if self.bundle is not None:
            data["bundle"] = self.bundle
        if self.installed is not None:
            data["installed"] = self.installed.code
        return data

    @property
    def trusted(self) -> bool:
        """Whether the bot runs inside arena's process (isolation ``none``)."""
        return self.isolation == NONE and not is_command(self.spec)

    @property
    def fallback_name(self) -> str:
        """The name to show before (or without) the bot's own: the entry's, or the file's."""
        return self.name or Path(split_spec(self.spec)[0]).stem


@dataclass(frozen=True)
class BotIdentity:
    """A bot as the results store keeps it."""

    name: str
    version: str
    code_hash: str
    spec: str
    params: Mapping[str, Any] = field(default_factory=dict)
    bundle: str = ""
    """The digest of its kept code (a bundle in the store); empty for a bot found where it
    is played, or stored before code was kept."""

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def revision_label(self) -> str:
        """``name@version+3f2a9c``: the label of this revision everywhere
        (:func:`revision_labels`)."""
        return next(revision_labels(self.name, self.version, self.code_hash))


REVISION_DIGITS = 6
"""Digits of the code hash in a revision's label (more only where two revisions of one
version share their first six)."""


def revision_labels(name: str, version: str, code_hash: str) -> Iterator[str]:
    """The labels a revision may have, the one to use first: ``name@version+`` and the
    first :data:`REVISION_DIGITS` digits of its code hash, then one digit more at a time.

    The label follows from the revision alone — not from which revisions a database saw
    before it — so the same code has the same label in every database, report and
    ladder. The longer ones are for the one case in which a database must tell apart two
    revisions of a version whose hashes start alike (about one in 16 million for a pair).
    """
    base = f"{name}@{version}"
    if not code_hash:
        yield base
        return
    for digits in range(min(REVISION_DIGITS, len(code_hash)), len(code_hash) + 1):
        yield f"{base}+{code_hash[:digits]}"


@dataclass(frozen=True)
class Entrant:
    """A tournament entry with its identity, and why it cannot play if it cannot; ``entry``
    as it is played (:func:`keep_code`) and its ``bundle``, if it has one."""

    entry: BotEntry
    identity: BotIdentity
    problem: str | None = None
    bundle: Bundle | None = None


def identity_hash(code_hash: str, params: Mapping[str, Any]) -> str:
    """The code hash with the parameters folded in: other parameters, other bot."""
    text = code_hash + json.dumps(dict(params), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class KeptCode:
    """A bot's code as read once (:func:`keep_code`): its entry as it is played, its
    bundle (a bot of files), and its code hash (before its parameters are folded in)."""

    entry: BotEntry
    bundle: Bundle | None
    code: str


def keep_code(entry: BotEntry) -> KeptCode:
    """Read ``entry``'s code once, as it will be hashed and played: a Python bot's file or
    package folder, or a program bot's own program file, becomes a bundle that the entry
    then names; any other bot is found where it is played, and must be what it is here.
    BotFileError if a bot's files are refused (a link, device, FIFO or socket, too much)."""
    spec = entry.spec
    if is_command(spec):
        return _keep_command(entry, shlex.split(spec[len(COMMAND_PREFIX):]))
    target, _attr = split_spec(spec)
    if target.endswith(".py"):
        if not Path(target).is_file():
            return KeptCode(entry, None, "")  # it does not load, and says so
        bundle, tree = bundle_of(target)
        shown = target.removesuffix("/__init__.py")  # as the author named it
        return KeptCode(dataclasses.replace(entry, spec=relative_spec(spec, tree),
                                            bundle=bundle.digest, shown=shown),
                        bundle, tree.digest())
    found = installed_code(spec)
    if found is None:
        return KeptCode(entry, None, "")
    return KeptCode(dataclasses.replace(entry, installed=found), None, found.code)


def _keep_command(entry: BotEntry, words: list[str]) -> KeptCode:
    """A program bot: its own program file (named with a path) kept as a bundle, executable;
    a program of the system's, found in PATH, to be the same where it is played."""
    spec = entry.spec
    program = shutil.which(words[0]) if words else None
    if program and os.sep in words[0]:
        data = read_bot_file(words[0], limit=MAX_PROGRAM_BYTES)[0]  # read as a bot's files
        tree = BotTree(Path(os.path.abspath(words[0])).name, False,
                       (FileEntry(Path(os.path.abspath(words[0])).name, data, True),))
        bundle = pack(tree)
        code = hashlib.sha256(spec.encode() + b"\0" + data).hexdigest()
        return KeptCode(dataclasses.replace(entry, spec=relative_spec(spec, tree),
                                            bundle=bundle.digest, shown=words[0]),
                        bundle, code)
    found = installed_code(spec)
    assert found is not None
    return KeptCode(dataclasses.replace(entry, installed=found), None, found.code)


def installed_code(spec: str) -> Installed | None:
    """What a bot found where it is played is here: a program in PATH by its bytes, an
    installed module by its files, an entry point by its distribution's name and version;
    None where there is none."""
    if is_command(spec):
        words = shlex.split(spec[len(COMMAND_PREFIX):])
        program = shutil.which(words[0]) if words else None
        data = Path(program).read_bytes() if program else b""
        code = hashlib.sha256(spec.encode() + b"\0" + data).hexdigest()
        return Installed(code, f"the program {program or (words or ['?'])[0]} ({code[:12]})")
    target, attr = split_spec(spec)
    if attr is None:
        return _entry_point_code(spec)
    chain = module_chain(target)
    if not chain or not chain[-1].origin:
        return None
    digest = hashlib.sha256()
    for part in chain:  # the module and its packages' __init__.py: the code its import runs
        if part.origin is None or part.origin in ("built-in", "frozen"):
            continue
        source = _module_bytes(part)
        if source is None:
            return None
        if part is not chain[-1] and (b"__path__" in source or b"extend_path" in source):
            raise BotFileError(
                f"bot {spec!r}: its package {part.name} sets where its modules are found "
                "(__path__), so arena cannot tell which file plays without running it; "
                f"name the bot's file instead (path/to/{target.rpartition('.')[2]}.py:{attr})")
        digest.update(part.name.encode() + b"\0" + source + b"\0")
    code = digest.hexdigest()
    return Installed(code, f"the module {target} ({code[:12]})")


def _module_bytes(found: ModuleSpec) -> bytes | None:
    """A module's source as it is imported: its file's bytes, or an archive member's (a
    zip on the path) as its loader reads them."""
    assert found.origin is not None
    if Path(found.origin).is_file():
        return Path(found.origin).read_bytes()
    return _loader_data(found)


def _loader_data(found: ModuleSpec) -> bytes | None:
    read = getattr(found.loader, "get_data", None)
    try:
        data = read(found.origin) if read is not None else None
    except OSError:
        return None
    return data if isinstance(data, bytes) else None


def module_origin(name: str) -> str | None:
    """The file module ``name`` would be imported from (:func:`module_spec`)."""
    found = module_spec(name)
    return found.origin if found is not None else None


def module_spec(name: str) -> ModuleSpec | None:
    """How module ``name`` would be imported (:func:`module_chain`'s last)."""
    chain = module_chain(name)
    return chain[-1] if chain else None


def module_chain(name: str) -> list[ModuleSpec] | None:
    """How module ``name`` and each package above it would be imported, the outermost
    first, found without running any code: ``importlib.util.find_spec`` imports a dotted
    name's parent packages, and a bot's package must not run in arena's own process unless
    the bot is trusted. Each part is asked of the import system's finders, within its
    parent's folders; a namespace package among the parents stands in ``sys.modules`` as
    an empty module while its children are looked for (the finders ask for it there), and
    is taken out after. None where a part is not found."""
    imported = sys.modules.get(name)
    if imported is not None:
        spec = getattr(imported, "__spec__", None)
        return [spec] if spec is not None else None
    where: list[str] | None = None
    chain: list[ModuleSpec] = []
    standing_in: list[str] = []
    parts = name.split(".")
    try:
        for depth in range(1, len(parts) + 1):
            part = ".".join(parts[:depth])
            found = _find_without_importing(part, where)
            if found is None:
                return None
            chain.append(found)
            where = list(found.submodule_search_locations or [])
            if found.origin is None and where and part not in sys.modules:
                stand_in = types.ModuleType(part)
                stand_in.__path__ = where
                stand_in.__spec__ = found
                sys.modules[part] = stand_in
                standing_in.append(part)
    finally:
        for part in standing_in:
            sys.modules.pop(part, None)
    return chain


def _find_without_importing(name: str, where: list[str] | None) -> ModuleSpec | None:
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            found = find(name, where)
        except (ImportError, ValueError, TypeError, OSError, KeyError, AttributeError):
            continue
        if found is not None:
            return found  # type: ignore[no-any-return]
    return None


def _entry_point_code(name: str) -> Installed | None:
    from importlib.metadata import entry_points  # here: it takes a while to import

    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not found:
        return None
    point = found[0]
    dist = point.dist
    package, version = (dist.name, dist.version) if dist is not None else ("?", "?")
    text = f"entry point\0{point.name}\0{point.value}\0{package}\0{version}"
    return Installed(hashlib.sha256(text.encode()).hexdigest(), f"{package} {version}")


def check_installed(entry: BotEntry) -> None:
    """InstalledMismatch unless a bot found where it is played is what it must be."""
    if entry.installed is None:
        return
    here = installed_code(entry.spec)
    if here is None or here.code != entry.installed.code:
        found = "not installed" if here is None else here.what
        raise InstalledMismatch(
            f"bot {entry.spec!r} was {entry.installed.what} when it was read, but is "
            f"{found} on {socket.gethostname()} now: a bot found where it plays must be the "
            "same on every machine that plays it, and stay so while it plays")


def source_hash(spec: str) -> str:
    """A hash of a bot's code without running it: its file, package, module or program
    (an entry point: its distribution's name and version)."""
    return keep_code(BotEntry(spec)).code


def play_revision(spec: str) -> str:
    """The hash a bot played by ``spec`` (without parameters) is stored under, as a
    tournament would store it: its revision label's (:func:`revision_labels`); empty for a
    bot whose code cannot be read."""
    try:
        code = source_hash(spec)
    except BotFileError:
        return ""
    return identity_hash(code, {}) if code else ""


def code_of(entry: BotEntry) -> Unpacked | None:
    """The unpacked bundle an entry plays from (None: a bot found where it is played)."""
    return None if entry.bundle is None else unpacked(entry.bundle)


def entry_process(entry: BotEntry, limits: Limits | None = None, *,
                  remember_load_failure: bool = False) -> ProcessPlayer:
    """A bot process for an isolated entry, from its kept code (not started)."""
    check_installed(entry)
    return bot_process(entry.spec, entry.params, entry.isolation or SANDBOX, limits,
                       remember_load_failure=remember_load_failure, code=code_of(entry),
                       shown=entry.shown)


def start_kept(spec: str, kept: KeptCode, limits: Limits | None = None) -> Player:
    """The bot ``spec`` playing from its code as read once (``kept``, at its entry's
    level), its handshake done: every instance started so plays those bytes, whatever its
    files hold by then. BotLoadError, with the bot's stderr, if it does not start."""
    if kept.bundle is not None:
        receive([kept.bundle])
    if kept.entry.isolation == NONE and not is_command(spec):
        return load_trusted(kept.entry).player
    return handshaken(entry_process(kept.entry, limits), spec)


def load_trusted(entry: BotEntry) -> LoadedBot:
    """A trusted entry's bot loaded in this process, from its kept code; failures name its
    files as its author knows them."""
    check_installed(entry)
    code = code_of(entry)
    if code is None:
        return load_bot(entry.spec, entry.params)
    paths = (str(code.path), entry.shown or code.tree.name)
    try:
        loaded = load_bot(spec_at(entry.spec, code.tree, str(code.folder)), entry.params)
    except BotLoadError as exc:
        raise type(exc)(shown_text(str(exc), paths), shown_text(exc.details, paths)) from None
    return dataclasses.replace(loaded, player=ShownPaths(loaded.player, paths))


@dataclass(frozen=True)
class Handshake:
    """Who a bot says it is, and the games it says it plays (None: it does not say)."""

    name: str
    version: str
    games: tuple[str, ...] | None = None


def identify_entry(entry: BotEntry, limits: Limits,
                   heard: dict[str, Handshake] | None = None) -> Handshake:
    """Who ``entry`` (as it is played) plays as: the entry's name and version, else the
    bot's own, said in its handshake (in its own process, unless it is trusted). ``heard``
    keeps the handshakes of the entries seen so far: entries that differ only in the name
    and version they give the bot (a config of 400 copies of one bot) start it once."""
    key = json.dumps({**entry.to_json(), "name": None, "version": None}, sort_keys=True)
    said = None if heard is None else heard.get(key)
    if said is None:
        said = _handshake(entry, limits)
        if heard is not None:
            heard[key] = said
    return Handshake(entry.name or said.name, entry.version or said.version, said.games)


def _handshake(entry: BotEntry, limits: Limits) -> Handshake:
    if entry.trusted:
        bot = load_trusted(entry)
        return Handshake(bot.name, bot.version, declared_games(bot.player))
    player = entry_process(entry, limits)
    try:
        player.ensure_running()
        return Handshake(player.name, player.version, player.games)
    finally:
        player.close()


def entrant(entry: BotEntry, limits: Limits, game: str | None = None,
            heard: dict[str, Handshake] | None = None) -> Entrant:
    """Read ``entry``'s code once and name it from that code; a bot whose files are refused,
    that cannot load, or that says it does not play ``game``, gets a stand-in identity and
    a problem (``heard``: see :func:`identify_entry`)."""
    try:
        kept = keep_code(entry)
    except BotFileError as exc:  # a link, device, FIFO or socket among its files, or too much
        return _stand_in(entry, f"it cannot be loaded: {exc}")
    what = not_a_bot(entry.spec) if kept.bundle is None and not kept.code else ""
    if what:
        return _stand_in(entry, f"it cannot be loaded: {what}")
    if kept.bundle is not None:
        receive([kept.bundle])
    try:
        said = identify_entry(kept.entry, limits, heard)
    except (PlayerFailure, BotLoadError) as exc:
        detail = exc.detail if isinstance(exc, PlayerFailure) else str(exc)
        return _stand_in(kept.entry, "it cannot be loaded: "
                         + (detail.splitlines() or ["no reason given"])[0], kept)
    other = None if game is None else other_games_problem(said.games, game)
    identity = BotIdentity(said.name, said.version, identity_hash(kept.code, entry.params),
                           entry.spec, dict(entry.params),
                           kept.bundle.digest if kept.bundle else "")
    return Entrant(kept.entry, identity, None if other is None else f"it {other}", kept.bundle)


def _stand_in(entry: BotEntry, problem: str, kept: KeptCode | None = None) -> Entrant:
    name, version = entry.fallback_name, entry.version or UNLOADABLE_VERSION
    code = kept.code if kept else ""
    spec = entry.spec if kept is None or kept.bundle is None else entry.shown or entry.spec
    identity = BotIdentity(name, version, identity_hash(code, entry.params), spec,
                           dict(entry.params))
    return Entrant(entry, identity, problem, kept.bundle if kept else None)


class ShownPaths:
    """A trusted bot loaded from its kept code, whose failures name its files as its author
    knows them (not where the bundle lies)."""

    def __init__(self, player: Any, paths: tuple[str, str]) -> None:
        self.player, self.paths = player, paths
        self.name, self.version = player.name, player.version
        self.games = declared_games(player)

    def start(self, info: Any) -> None:
        if hasattr(self.player, "start"):
            self._call("start", self.player.start, info)

    def act(self, observation: Any) -> Any:
        return self._call("act", self.player.act, observation)

    def end(self, outcome: Any) -> None:
        call_hook(self.player, "end", outcome)

    def _call(self, hook: str, method: Any, argument: Any) -> Any:
        try:
            return method(argument)
        except PlayerFailure:
            raise
        except Exception as exc:
            raise PlayerFailure(CRASH, shown_text(raised_text(hook, exc), self.paths)) from None


def shown_text(text: str, paths: tuple[str, str]) -> str:
    """``text`` with the bot's files named as ``paths`` says: (where they lie, as shown)."""
    return text.replace(paths[0], paths[1])
