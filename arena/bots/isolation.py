"""The players a worker seats: each tournament entry at its isolation level, under its name.

An entry with isolation ``process`` (the default) becomes a bot process
(:class:`~arena.bots.process.ProcessPlayer`), started again after a failure; a
trusted entry (``none``) is loaded into this process. Either plays under the
name and version its entry gives it, and a bot that cannot load stands in as a
player that forfeits every game. A worker keeps each entry's player for all its
games (``start(info)`` marks a new game) and stops them with
:func:`close_players`.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.bots.identity import NONE, PROCESS, BotEntry
from arena.bots.loading import BotLoadError, BotNotFoundError, LoadedBot, load_bot, split_spec
from arena.bots.process import Limits, ProcessPlayer, bot_command, is_command
from arena.games.base import Action, Observation
from arena.referee.protocol import Player, PlayerFailure, call_hook
from arena.referee.record import CRASH, GameRecord


class RenamedPlayer:
    """A player under the name and version its tournament entry gives it."""

    def __init__(self, player: Any, name: str, version: str) -> None:
        self.player, self.name, self.version = player, name, version

    def act(self, observation: Observation) -> Action | str:
        result: Action | str = self.player.act(observation)
        return result

    def start(self, info: Any) -> None:
        call_hook(self.player, "start", info)

    def end(self, outcome: Any) -> None:
        call_hook(self.player, "end", outcome)


class UnloadablePlayer:
    """Stands in for a bot that cannot be loaded: every game it sits in is forfeited."""

    def __init__(self, name: str, version: str, reason: str) -> None:
        self.name, self.version, self.reason = name, version, reason

    def start(self, info: Any) -> None:
        raise PlayerFailure(CRASH, f"the bot cannot be loaded: {self.reason}")

    def act(self, observation: Observation) -> str:
        raise PlayerFailure(CRASH, f"the bot cannot be loaded: {self.reason}")


class IsolatedPlayer(ProcessPlayer):
    """A bot process that remembers a failure to load, so it is not retried every game."""

    load_error: str | None = None

    def start(self, info: Any) -> None:
        if self.load_error is not None:
            raise PlayerFailure(CRASH, self.load_error)
        try:
            super().start(info)
        except PlayerFailure as failure:
            if self.name == self.label:  # the handshake never completed
                self.load_error = f"the bot cannot be loaded: {failure.detail}"
            raise


class RenamedProcess(RenamedPlayer):
    """A bot process under its entry's name; what the entry leaves open, its handshake says."""

    def __init__(self, process: IsolatedPlayer, entry: BotEntry) -> None:
        super().__init__(process, entry.name or "", entry.version or "")
        self.entry = entry

    def start(self, info: Any) -> None:
        self.player.start(info)
        self.name = self.entry.name or self.player.name
        self.version = self.entry.version or self.player.version


def load_entry(entry: BotEntry) -> LoadedBot:
    """Load a trusted entry's bot in this process, under the entry's name and version."""
    loaded = load_bot(entry.spec, entry.params)
    if entry.name is None and entry.version is None:
        return loaded
    player = RenamedPlayer(loaded.player, entry.name or loaded.name,
                           entry.version or loaded.version)
    return LoadedBot(player, loaded.spec, loaded.code_hash, loaded.params)


def make_player(entry: BotEntry, limits: Limits) -> Player:
    """A new player for ``entry`` at its isolation level."""
    if entry.trusted:
        try:
            return load_entry(entry).player
        except Exception as exc:
            return UnloadablePlayer(entry.name or entry.spec, entry.version or "?", str(exc))
    process = IsolatedPlayer(bot_command(entry.spec, entry.params), limits, label=entry.spec)
    if entry.name is None and entry.version is None:
        return process
    return RenamedProcess(process, entry)


_players: dict[tuple[int, str], Player] = {}


def player_for(entry: BotEntry, limits: Limits) -> Player:
    """This thread's player for ``entry``, created on first use and kept.

    Per thread, because a Dask worker may run several tasks at once in threads.
    """
    key = (threading.get_ident(), json.dumps(
        [entry.to_json(), limits.memory_mb, limits.cpu_seconds_per_game], sort_keys=True))
    if key not in _players:
        _players[key] = make_player(entry, limits)
    return _players[key]


def seat_players(entries: Sequence[BotEntry], limits: Limits) -> list[Player]:
    """The players for a game's seats; a bot process not yet started shows its entry's name
    (its handshake gives it its own)."""
    players = [player_for(entry, limits) for entry in entries]
    for player, entry in zip(players, entries, strict=True):
        if isinstance(player, ProcessPlayer) and player.name == player.label:
            player.name = entry.fallback_name
    return players


def with_entry_names(record: GameRecord, entries: Sequence[BotEntry]) -> GameRecord:
    """``record`` with each seat under the name and version its entry gives it."""
    seats = tuple(
        dataclasses.replace(seat, name=entry.name or seat.name,
                            version=entry.version or seat.version)
        for seat, entry in zip(record.seats, entries, strict=True))
    return dataclasses.replace(record, seats=seats)


def start_bot(spec: str, isolation: str = PROCESS, limits: Limits | None = None) -> Player:
    """A bot ready to play: in a process of its own with its handshake done, or loaded here
    with isolation ``none``; BotLoadError, with the bot's stderr, if it does not start."""
    if isolation == NONE and not is_command(spec):
        return load_bot(spec).player
    target, _attr = split_spec(spec)
    if not is_command(spec) and target.endswith(".py") and not Path(target).is_file():
        raise BotNotFoundError(f"bot {spec!r}: no such file {target!r}")
    player = ProcessPlayer(bot_command(spec, {}), limits, label=spec)
    try:
        player.ensure_running()
    except PlayerFailure as failure:
        head, _, tail = failure.detail.partition("\n--- stderr ---\n")
        raise BotLoadError(f"bot {spec!r} cannot be loaded: {head}", tail) from None
    return player


def close_player(player: Any) -> None:
    """Stop ``player``'s bot process (and what it started), if it has one."""
    inner = getattr(player, "player", player)
    if isinstance(inner, ProcessPlayer):
        inner.close()


def close_players() -> None:
    """Stop every bot process this process started for entries."""
    for player in _players.values():
        close_player(player)
    _players.clear()


atexit.register(close_players)
