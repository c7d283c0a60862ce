"""Executors: play game tasks and hand the records back to the parent as they finish.

The local executor uses a pool of worker processes (``fork``, so that
multiprocessing-logging can carry the workers' log records to the parent's
handlers); with one worker it plays in the parent process. Each worker loads
every bot once and reuses it across games; ``start(info)`` marks a new game.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import multiprocessing
import signal
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.config import BotEntry
from arena.games.base import Action, Observation
from arena.match import play_game
from arena.players import LoadedBot, Player, load_bot
from arena.record import GameRecord
from arena.schedule import GameTask

log = logging.getLogger("arena.executor")


@dataclass(frozen=True)
class MatchSetup:
    """What every game of a tournament shares: plain data for any process."""

    game: str
    options: Mapping[str, Any]
    bots: tuple[BotEntry, ...]
    time_limit: float | None = None


@dataclass(frozen=True)
class GameResult:
    task: GameTask
    record: GameRecord
    duration: float


class RenamedPlayer:
    """A player under the name and version its tournament entry gives it."""

    def __init__(self, player: Player, name: str, version: str) -> None:
        self.player, self.name, self.version = player, name, version

    def act(self, observation: Observation) -> Action | str:
        return self.player.act(observation)

    def start(self, info: Any) -> None:
        hook = getattr(self.player, "start", None)
        if callable(hook):
            hook(info)

    def end(self, outcome: Any) -> None:
        hook = getattr(self.player, "end", None)
        if callable(hook):
            hook(outcome)


def entry_key(entry: BotEntry) -> str:
    return json.dumps(entry.to_json(), sort_keys=True)


def load_entry(entry: BotEntry) -> LoadedBot:
    """Load a tournament entry's bot, under the entry's name and version if it sets them."""
    loaded = load_bot(entry.spec, entry.params)
    if entry.name is None and entry.version is None:
        return loaded
    player = RenamedPlayer(loaded.player, entry.name or loaded.name,
                           entry.version or loaded.version)
    return LoadedBot(player, loaded.spec, loaded.code_hash, loaded.params)


def identity_hash(bot: LoadedBot) -> str:
    """The code hash with the parameters folded in: other parameters, other bot."""
    text = bot.code_hash + json.dumps(dict(bot.params), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


@functools.lru_cache(maxsize=256)
def _cached_player(key: str) -> Player:
    return load_entry(BotEntry(**json.loads(key))).player


def play_task(setup: MatchSetup, task: GameTask) -> GameResult:
    """Play one task (in whatever process this runs)."""
    players = [_cached_player(entry_key(setup.bots[bot])) for bot in task.seats]
    started = time.perf_counter()
    record = play_game(setup.game, players, task.seed, setup.options,
                       time_limit=setup.time_limit)
    duration = time.perf_counter() - started
    log.info("game %s done: ranks %s, %s", task.key, record.ranks, record.termination)
    return GameResult(task, record, duration)


def _ignore_interrupts() -> None:
    # The parent handles Ctrl-C and stops the pool; workers must not die mid-write.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_local(setup: MatchSetup, tasks: Sequence[GameTask] | Iterable[GameTask],
              workers: int) -> Iterator[GameResult]:
    """Yield each task's result as it finishes (in any order with several workers)."""
    if workers <= 1:
        for task in tasks:
            yield play_task(setup, task)
        return
    context = multiprocessing.get_context("fork")
    with context.Pool(workers, initializer=_ignore_interrupts) as pool:
        yield from pool.imap_unordered(functools.partial(play_task, setup), tasks)
