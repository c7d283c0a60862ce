"""Who a bot is: the entry that names it, the identity it is stored under, its code hash.

A tournament names each bot by a :class:`BotEntry` (a spec, and optionally the
name, version and parameters it plays under). Its :class:`BotIdentity` is what
the results store keeps: name, version, the spec, the parameters, and a hash
of its code with the parameters folded in — the same name and version with
another hash is another bot. An untrusted bot says its name and version in the
handshake of a process of its own; only a trusted bot (isolation ``none``) is
imported into arena's process to be named.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shlex
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.files import MAX_PROGRAM_BYTES, BotFileError, read_bot_file
from arena.bots.isolation import NONE, SANDBOX, bot_process
from arena.bots.loading import (
    BotLoadError,
    declared_games,
    load_bot,
    other_games_problem,
    source_file_hash,
    split_spec,
)
from arena.bots.process import COMMAND_PREFIX, Limits, is_command
from arena.referee.protocol import PlayerFailure

UNLOADABLE_VERSION = "unloadable"


@dataclass(frozen=True)
class BotEntry:
    """One bot of a tournament: its spec and, optionally, its identity and parameters."""

    spec: str
    name: str | None = None
    version: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    isolation: str | None = None
    """``sandbox``, ``process`` or ``none``; None: the sandbox where it works."""

    def to_json(self) -> dict[str, Any]:
        return {"spec": self.spec, "name": self.name, "version": self.version,
                "params": dict(self.params), "isolation": self.isolation}

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
    """A tournament entry with its identity, and why it cannot play if it cannot."""

    entry: BotEntry
    identity: BotIdentity
    problem: str | None = None


def identity_hash(code_hash: str, params: Mapping[str, Any]) -> str:
    """The code hash with the parameters folded in: other parameters, other bot."""
    text = code_hash + json.dumps(dict(params), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def source_hash(spec: str) -> str:
    """A hash of a bot's code without running it: its file, package, module or program."""
    if is_command(spec):
        words = shlex.split(spec[len(COMMAND_PREFIX):])
        program = shutil.which(words[0]) if words else None
        if program and os.sep in words[0]:  # the bot's own program: read as its files are
            data = read_bot_file(words[0], limit=MAX_PROGRAM_BYTES)[0]
        else:  # a program of the system's, found in PATH
            data = Path(program).read_bytes() if program else b""
        return hashlib.sha256(spec.encode() + b"\0" + data).hexdigest()
    target, _attr = split_spec(spec)
    path: str | None = target if target.endswith(".py") else None
    if path is None:
        found = importlib.util.find_spec(target.split(":")[0]) if ":" in spec else None
        path = found.origin if found else None
    if not path or not Path(path).is_file():
        return ""
    return source_file_hash(Path(path))


@dataclass(frozen=True)
class Handshake:
    """Who a bot says it is, and the games it says it plays (None: it does not say)."""

    name: str
    version: str
    games: tuple[str, ...] | None = None


def identify(spec: str, params: Mapping[str, Any], limits: Limits | None = None,
             isolation: str = SANDBOX) -> Handshake:
    """What a bot says in its handshake (its code runs in its own process, sandboxed unless
    ``isolation`` is ``process``)."""
    player = bot_process(spec, params, isolation, limits)
    try:
        player.ensure_running()
        return Handshake(player.name, player.version, player.games)
    finally:
        player.close()


def identify_entry(entry: BotEntry, limits: Limits) -> Handshake:
    """Who ``entry`` plays as: the entry's name and version, else the bot's own."""
    if entry.trusted:
        bot = load_bot(entry.spec, entry.params)
        said = Handshake(bot.name, bot.version, declared_games(bot.player))
    else:
        said = identify(entry.spec, entry.params, limits, entry.isolation or SANDBOX)
    return Handshake(entry.name or said.name, entry.version or said.version, said.games)


def entrant(entry: BotEntry, limits: Limits, game: str | None = None) -> Entrant:
    """Name ``entry``; a bot that cannot load, or that says it does not play ``game``, gets
    a stand-in identity and a problem."""
    problem = None
    try:
        said = identify_entry(entry, limits)
        name, version = said.name, said.version
        other = None if game is None else other_games_problem(said.games, game)
        problem = None if other is None else f"it {other}"
    except (PlayerFailure, BotLoadError) as exc:
        name, version = entry.fallback_name, entry.version or UNLOADABLE_VERSION
        detail = exc.detail if isinstance(exc, PlayerFailure) else str(exc)
        problem = "it cannot be loaded: " + (detail.splitlines() or ["no reason given"])[0]
    try:
        code = source_hash(entry.spec)
    except BotFileError as exc:  # a link, device, FIFO or socket among its files, or too much
        code, problem = "", f"it cannot be loaded: {exc}"
    identity = BotIdentity(name, version, identity_hash(code, entry.params), entry.spec,
                           dict(entry.params))
    return Entrant(entry, identity, problem)
