"""The players a worker seats: each tournament entry at its isolation level, under its name.

An entry becomes a bot process (sandboxed or plain, :mod:`arena.bots.isolation`),
started again after a failure, or, if trusted (``none``), a bot loaded into this
process. Either plays under the name and version its entry gives it, and a bot
that cannot load, or whose entry was refused, stands in as a player that
forfeits every game. A worker keeps each entry's instances for all its games
(``start(info)`` marks a new game), seating one that has played nothing on the game's
dice (:mod:`arena.bots.instances`), and stops them with :func:`close_players`.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import threading
from collections.abc import Sequence
from typing import Any

from arena.bots.identity import (
    UNLOADABLE_VERSION,
    BotEntry,
    check_installed,
    entry_process,
    load_trusted,
)
from arena.bots.instances import InstancePool, stop_bot
from arena.bots.loading import LoadedBot
from arena.bots.process import Limits, ProcessPlayer
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
    """Stands in for a bot that cannot be loaded or was refused: every game it sits in is
    forfeited."""

    def __init__(self, name: str, version: str, reason: str) -> None:
        self.name, self.version, self.reason = name, version, reason

    def start(self, info: Any) -> None:
        raise PlayerFailure(CRASH, self.reason)

    def act(self, observation: Observation) -> str:
        raise PlayerFailure(CRASH, self.reason)


class RenamedProcess(RenamedPlayer):
    """A bot process under its entry's name; what the entry leaves open, its handshake says."""

    def __init__(self, process: ProcessPlayer, entry: BotEntry) -> None:
        super().__init__(process, entry.name or "", entry.version or "")
        self.entry = entry

    def start(self, info: Any) -> None:
        self.player.start(info)
        self.name = self.entry.name or self.player.name
        self.version = self.entry.version or self.player.version


def load_entry(entry: BotEntry) -> LoadedBot:
    """Load a trusted entry's bot in this process, from its kept code, under the entry's
    name and version."""
    loaded = load_trusted(entry)
    if entry.name is None and entry.version is None:
        return loaded
    player = RenamedPlayer(loaded.player, entry.name or loaded.name,
                           entry.version or loaded.version)
    return LoadedBot(player, loaded.spec, loaded.code_hash, loaded.params)


def make_player(entry: BotEntry, limits: Limits, refused: str | None = None) -> Player:
    """A new player for ``entry`` at its isolation level (resolved already), from its kept
    code; InstalledMismatch if it is a bot found here that is not what it must be."""
    name, version = entry.fallback_name, entry.version or UNLOADABLE_VERSION
    if refused is not None:
        return UnloadablePlayer(name, version, refused)
    check_installed(entry)  # not a forfeit: the machine, not the bot, is at fault
    if entry.trusted:
        try:
            return load_entry(entry).player
        except Exception as exc:
            return UnloadablePlayer(name, version, f"the bot cannot be loaded: {exc}")
    process = entry_process(entry, limits, remember_load_failure=True)
    if entry.name is None and entry.version is None:
        return process
    return RenamedProcess(process, entry)


_pools: dict[tuple[str, int, str], InstancePool] = {}
_pools_lock = threading.Lock()


def pool_for(entry: BotEntry, limits: Limits, refused: str | None = None, run: str = ""
             ) -> InstancePool:
    """This thread's instances of ``entry`` in the run ``run``, kept for all its games.

    Per thread, because a Dask worker may run several tasks at once in threads; per run,
    because it may serve several runs, and each releases its own at its end.
    """
    key = (run, threading.get_ident(), json.dumps(
        [entry.to_json(), dataclasses.asdict(limits), refused], sort_keys=True))
    with _pools_lock:
        if key not in _pools:
            _pools[key] = InstancePool(lambda: make_player(entry, limits, refused))
        return _pools[key]


def seat_players(entries: Sequence[BotEntry], limits: Limits, seed: int,
                 refusals: Sequence[str | None] | None = None, run: str = "") -> list[Player]:
    """The players for a game's seats on the game seed ``seed``, none of which has played on
    it before (``refusals``: why an entry may not play, if it may not); a bot process not
    yet started shows its entry's name (its handshake gives it its own)."""
    refusals = refusals or [None] * len(entries)
    players = [pool_for(entry, limits, refused, run).for_seed(seed)
               for entry, refused in zip(entries, refusals, strict=True)]
    for player, entry in zip(players, entries, strict=True):
        process = getattr(player, "player", player)
        if isinstance(process, ProcessPlayer):
            process.launch()  # the seats' processes start side by side
        if isinstance(player, ProcessPlayer) and player.name == player.label:
            player.name = entry.fallback_name
    return players


def with_entry_names(record: GameRecord, entries: Sequence[BotEntry]) -> GameRecord:
    """``record`` with each seat under the name and version its entry gives it, and the
    isolation it ran at."""
    seats = tuple(
        dataclasses.replace(seat, name=entry.name or seat.name,
                            version=entry.version or seat.version,
                            isolation=entry.isolation or "")
        for seat, entry in zip(record.seats, entries, strict=True))
    return dataclasses.replace(record, seats=seats)


def close_players(run: str | None = None) -> None:
    """Stop the bot processes this process started for the run ``run`` (None: for every
    run), and forget them."""
    with _pools_lock:
        keys = [key for key in _pools if run is None or key[0] == run]
        pools = [_pools.pop(key) for key in keys]
    for pool in pools:
        stop_bot(pool)


atexit.register(close_players)
