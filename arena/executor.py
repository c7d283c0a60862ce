"""Executors: play game tasks and hand the records back to the parent as they finish.

The local executor uses a pool of worker processes (``fork``, so that
multiprocessing-logging can carry the workers' log records to the parent's
handlers); with one worker it plays in the parent process. A worker keeps each
bot for all its games — an in-process player, or a bot process (isolation
``process``, the default) that is started again after a failure;
``start(info)`` marks a new game.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import json
import logging
import shlex
import shutil
import signal
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.config import BotEntry
from arena.games.base import Action, ArenaError, Observation
from arena.match import play_game
from arena.players import (
    LoadedBot,
    PlayerFailure,
    call_hook,
    load_bot,
    source_file_hash,
    split_spec,
)
from arena.record import CRASH, GameRecord
from arena.sandbox import COMMAND_PREFIX, Limits, ProcessPlayer, bot_command, is_command
from arena.schedule import GameTask
from arena.store import FinishedGame
from arena.workers import WorkerDied, run_unordered

log = logging.getLogger("arena.executor")
PROCESS, NONE = "process", "none"
CONNECT_TIMEOUT = "20s"
ISOLATIONS = (PROCESS, NONE)


@dataclass(frozen=True)
class MatchSetup:
    """What every game of a tournament shares: plain data for any process."""

    game: str
    options: Mapping[str, Any]
    bots: tuple[BotEntry, ...]
    time_limit: float | None = None
    time_bank: float = 0.0
    limits: Limits = field(default_factory=Limits)


@dataclass(frozen=True)
class GameResult:
    task: GameTask
    game: FinishedGame
    duration: float


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


def entry_key(entry: BotEntry) -> str:
    return json.dumps(entry.to_json(), sort_keys=True)


def load_entry(entry: BotEntry) -> LoadedBot:
    """Load a tournament entry's bot in this process, under the entry's name and version."""
    loaded = load_bot(entry.spec, entry.params)
    if entry.name is None and entry.version is None:
        return loaded
    player = RenamedPlayer(loaded.player, entry.name or loaded.name,
                           entry.version or loaded.version)
    return LoadedBot(player, loaded.spec, loaded.code_hash, loaded.params)


def identity_hash(code_hash: str, params: Mapping[str, Any]) -> str:
    """The code hash with the parameters folded in: other parameters, other bot."""
    text = code_hash + json.dumps(dict(params), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def source_hash(spec: str) -> str:
    """A hash of a bot's code without running it: its file, package, module or program."""
    if is_command(spec):
        words = shlex.split(spec[len(COMMAND_PREFIX):])
        program = shutil.which(words[0]) if words else None
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


_players: dict[tuple[int, str], Any] = {}


def player_for(setup: MatchSetup, bot: int) -> Any:
    """This thread's player for entrant ``bot``, created on first use and kept.

    Per thread, because a Dask worker may run several tasks at once in threads.
    """
    entry = setup.bots[bot]
    key = (threading.get_ident(), entry_key(entry) + json.dumps(
        [setup.limits.memory_mb, setup.limits.cpu_seconds_per_game]))
    if key not in _players:
        _players[key] = _make_player(entry, setup.limits)
    return _players[key]


def _make_player(entry: BotEntry, limits: Limits) -> Any:
    if entry.isolation == NONE and not is_command(entry.spec):
        try:
            return load_entry(entry).player
        except Exception as exc:
            return UnloadablePlayer(entry.name or entry.spec, entry.version or "?", str(exc))
    process = IsolatedPlayer(bot_command(entry.spec, entry.params), limits, label=entry.spec)
    if entry.name is None and entry.version is None:
        return process
    return _RenamedProcess(process, entry)


class _RenamedProcess(RenamedPlayer):
    def __init__(self, process: IsolatedPlayer, entry: BotEntry) -> None:
        super().__init__(process, entry.name or "", entry.version or "")
        self.entry = entry

    def start(self, info: Any) -> None:
        self.player.start(info)
        self.name = self.entry.name or self.player.name
        self.version = self.entry.version or self.player.version


def close_players() -> None:
    """Stop every bot process this process started."""
    for player in _players.values():
        inner = getattr(player, "player", player)
        if isinstance(inner, ProcessPlayer):
            inner.close()
    _players.clear()


atexit.register(close_players)


def play_task(setup: MatchSetup, task: GameTask) -> GameResult:
    """Play one task (in whatever process this runs)."""
    players = [player_for(setup, bot) for bot in task.seats]
    _name_seats(players, setup, task)
    started = time.perf_counter()
    record = play_game(setup.game, players, task.seed, setup.options,
                       time_limit=setup.time_limit, time_bank=setup.time_bank)
    duration = time.perf_counter() - started
    record = _with_entry_names(record, setup, task)
    log.info("game %s done: ranks %s, %s", task.key, record.ranks, record.termination)
    return GameResult(task, FinishedGame.of(record), duration)


def _name_seats(players: Sequence[Any], setup: MatchSetup, task: GameTask) -> None:
    """Give unstarted bot processes their configured names for the record's seats."""
    for player, bot in zip(players, task.seats, strict=True):
        entry = setup.bots[bot]
        if isinstance(player, ProcessPlayer) and player.name == player.label:
            player.name = entry.name or Path(split_spec(entry.spec)[0]).stem


def _with_entry_names(record: GameRecord, setup: MatchSetup, task: GameTask) -> GameRecord:
    import dataclasses

    seats = tuple(
        dataclasses.replace(seat, name=setup.bots[bot].name or seat.name,
                            version=setup.bots[bot].version or seat.version)
        for seat, bot in zip(record.seats, task.seats, strict=True))
    return dataclasses.replace(record, seats=seats)


_worker_setup: MatchSetup | None = None


def _worker_init(setup: MatchSetup) -> None:
    # The parent handles Ctrl-C. A stopped worker's bot processes die with it
    # (they are started with PR_SET_PDEATHSIG).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _worker_setup
    _worker_setup = setup


def _play_in_worker(task: GameTask) -> GameResult:
    assert _worker_setup is not None, "worker started without its setup"
    return play_task(_worker_setup, task)


def run_local(setup: MatchSetup, tasks: Sequence[GameTask] | Iterable[GameTask],
              workers: int) -> Iterator[GameResult]:
    """Yield each task's result as it finishes (in any order with several workers)."""
    if workers <= 1:
        try:
            for task in tasks:
                yield play_task(setup, task)
        finally:
            close_players()
        return
    try:
        yield from run_unordered(_play_in_worker, tasks, workers, initializer=_worker_init,
                                 initargs=(setup,), finalizer=close_players)
    except WorkerDied as died:
        raise ArenaError(
            f"a worker process died while playing game {died.task.key} (a bot run with "
            "isolation 'none' can take its worker down); the finished games are kept, "
            "run again to resume") from None


def run_dask(setup: MatchSetup, tasks: Sequence[GameTask], scheduler: str
             ) -> Iterator[GameResult]:
    """Send the tasks to a Dask cluster and yield the results as they come back.

    The workers need arena installed and the bots' files at the same paths (a shared
    file system, or the same checkout on every machine). Run workers with one thread
    each (``dask worker ADDRESS --nthreads 1``).
    """
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ArenaError("the dask executor needs Dask: pip install 'arena[dask]'") from None
    try:
        client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise ArenaError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    futures = []
    try:
        futures = client.map(play_task, [setup] * len(tasks), list(tasks), pure=False)
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.cancel(futures)
        client.close()


def run_tasks(setup: MatchSetup, tasks: Sequence[GameTask], *, workers: int,
              executor: str = "local", scheduler: str | None = None) -> Iterator[GameResult]:
    """The executor the config names: local worker processes, or a Dask cluster."""
    if executor == "dask":
        if not scheduler:
            raise ArenaError("the dask executor needs a scheduler address (--scheduler)")
        return run_dask(setup, tasks, scheduler)
    return run_local(setup, tasks, workers)
