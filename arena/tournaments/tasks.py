"""A game task and how it is played, in whatever process or machine it is sent to.

:class:`MatchSetup` is what every game of a tournament shares and
:class:`~arena.tournaments.schedule.GameTask` one game of it; both are plain
data. :func:`play_task` seats the task's entrants (the bots package knows who
they are and how they run: each entry names its kept code, a bundle the worker
was given, :mod:`arena.bots.bundles`), has the referee play the game, and hands
back the record encoded for the store, so that the worker, not the parent, pays
for that.
Each seat's player tells the worker's beacon how long its call may take, so
that a worker stuck on a bot is found (:mod:`arena.bots.workers`);
:func:`lost_game` is the record of a game whose worker was lost.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.bots.bundles import Bundle, receive
from arena.bots.identity import BotEntry
from arena.bots.isolation import SANDBOX
from arena.bots.process import GRACE_SECONDS, QUIT_SECONDS, Limits, poll_while_waiting
from arena.bots.roster import close_players, seat_players, with_entry_names
from arena.bots.workers import Beacon, Lost, beacon
from arena.games.base import Action, Observation
from arena.referee.match import play_game
from arena.referee.protocol import Player, call_hook
from arena.referee.record import CRASH, TIMEOUT, GameRecord, SeatRecord
from arena.results.store import FinishedGame
from arena.tournaments.schedule import GameTask

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MatchSetup:
    """What every game of a tournament shares: plain data for any process."""

    game: str
    options: Mapping[str, Any]
    bots: tuple[BotEntry, ...]
    time_limit: float | None = None
    time_bank: float = 0.0
    limits: Limits = field(default_factory=Limits)
    refusals: tuple[str | None, ...] = ()
    """Per entrant: why it may not play (its games are forfeited), or None."""
    names: tuple[tuple[str, str], ...] = ()
    """Per entrant: the name and version it plays under."""
    labels: tuple[str, ...] = ()
    """Per entrant: its revision's label (``name@version+3f2a9c``), for the log."""
    run: str = ""
    """Which run the games are of, on a worker that may serve several (a Dask worker): the
    bots each run starts are its own, and stopped at its end."""

    def bundles_of(self, task: GameTask) -> list[str]:
        """The digests of the bundles the task's bots play from."""
        return sorted({digest for bot in set(task.seats)
                       if (digest := self.bots[bot].bundle) is not None})


@dataclass(frozen=True)
class GameResult:
    task: GameTask
    game: FinishedGame
    duration: float


class Watched:
    """A seat's player that notes on the worker's beacon how long each of its calls may take
    (its decisions: the time left plus the pipe's grace)."""

    __slots__ = ("beacon", "player", "seat", "start_seconds")

    def __init__(self, player: Player, seat: int, beacon: Beacon, start_seconds: float) -> None:
        self.player, self.seat, self.beacon = player, seat, beacon
        self.start_seconds = start_seconds

    @property
    def name(self) -> str:
        return self.player.name

    @property
    def version(self) -> str:
        return self.player.version

    def start(self, info: Any) -> None:
        self.beacon.waiting(self.seat, self.start_seconds)
        try:
            call_hook(self.player, "start", info)
        finally:
            self.beacon.busy()

    def act(self, observation: Observation) -> Action | str:
        left = observation.time_left
        self.beacon.waiting(self.seat, None if left is None else left + GRACE_SECONDS)
        try:
            return self.player.act(observation)
        finally:
            self.beacon.busy()

    def end(self, outcome: Any) -> None:
        self.beacon.waiting(self.seat, QUIT_SECONDS + 1.0)
        try:
            call_hook(self.player, "end", outcome)
        finally:
            self.beacon.busy()


def play_task(setup: MatchSetup, task: GameTask) -> GameResult:
    """Play one task (in whatever process this runs)."""
    with _playing(setup.run):
        return _play(setup, task)


def _play(setup: MatchSetup, task: GameTask) -> GameResult:
    entries = [setup.bots[bot] for bot in task.seats]
    refusals = [setup.refusals[bot] if setup.refusals else None for bot in task.seats]
    note = beacon()
    start_seconds = 2 * setup.limits.handshake_seconds + 1.0  # a restart, then 'ready'
    players = [Watched(player, seat, note, start_seconds) for seat, player in
               enumerate(seat_players(entries, setup.limits, task.seed, refusals,
                                      setup.run))]
    started = time.perf_counter()
    record = play_game(setup.game, players, task.seed, setup.options,
                       time_limit=setup.time_limit, time_bank=setup.time_bank,
                       seat_order=task.rotation)
    duration = time.perf_counter() - started
    record = with_entry_names(record, entries)
    log.info("game %s (%s) done: ranks %s, %s", task.key,
             " vs ".join(setup.labels[bot] if setup.labels else f"{seat.name}@{seat.version}"
                         for bot, seat in zip(task.seats, record.seats, strict=True)),
             record.ranks, record.termination)
    return GameResult(task, FinishedGame.of(record), duration)


def play_shipped(setup: MatchSetup, tasks: tuple[GameTask, ...],
                 *bundles: Bundle) -> list[GameResult]:
    """Play tasks sent together with the bundles their bots play from (unpacked here once),
    one after the other."""
    receive(bundles)
    results = []
    for task in tasks:
        if setup.run in _released:  # its client has gone: start no more of its bots
            raise RunReleased(f"run {setup.run} was released before game {task.key}")
        results.append(play_task(setup, task))
    return results


class RunReleased(Exception):
    """The games sent together are of a run whose bots were released (its client gone)."""


def lost_game(setup: MatchSetup, lost: Lost) -> GameResult:
    """The result of a game whose worker was lost while the seat ``lost.seat`` was deciding:
    that seat loses (timeout if the worker hung, crash if it died); the others share first
    place; no moves or scores are known."""
    task: GameTask = lost.task
    status = TIMEOUT if lost.hung else CRASH
    seats = []
    for seat, bot in enumerate(task.seats):
        name, version = setup.names[bot] if setup.names else (setup.bots[bot].fallback_name, "?")
        failed = seat == lost.seat
        seats.append(SeatRecord(name, version, status if failed else "ok",
                                f"{lost.describe()} while this bot was deciding" if failed
                                else "", setup.bots[bot].isolation or ""))
    k = len(task.seats)
    ranks = tuple(k - 1 if seat == lost.seat else 0 for seat in range(k))
    record = GameRecord(setup.game, dict(setup.options), task.seed, tuple(seats), (), ranks,
                        (0.0,) * k, status, {"worker_lost": lost.describe()})
    log.warning("game %s: %s while seat %d was deciding; recorded as lost by that seat",
                task.key, lost.describe(), lost.seat)
    return GameResult(task, FinishedGame.of(record), 0.0)


class Settle:
    """What a worker lost while a seat was deciding costs: that seat's loss (``crash``, or
    ``timeout`` if it hung), but for a sandboxed bot, which cannot signal or kill its
    worker (another user in a PID namespace of its own), a worker killed from outside
    (the operator, the OOM killer) plays the game again, once, on the same dice: the
    results are those of a run without the kill. None: play it again."""

    def __init__(self, setup: MatchSetup) -> None:
        self.setup = setup
        self.replayed: set[str] = set()

    def __call__(self, lost: Lost) -> GameResult | None:
        task: GameTask = lost.task
        entry = self.setup.bots[task.seats[lost.seat]]
        if not lost.hung and entry.isolation == SANDBOX and task.key not in self.replayed:
            self.replayed.add(task.key)
            log.warning("game %s: %s while a sandboxed bot was deciding; played again",
                        task.key, lost.describe())
            return None
        return lost_game(self.setup, lost)


def prepare_worker(workers: int) -> None:
    """Set a worker process up for a run of ``workers`` workers: it polls briefly for a bot's
    answer only where that leaves a core for the bot (two per worker)."""
    poll_while_waiting(2 * workers <= (os.cpu_count() or 1))


def release_players(run: str | None = None) -> None:
    """Stop the bot processes this process started for the tasks of the run ``run`` (None:
    of every run; a worker's last step). Games of ``run`` sent together that are still to
    come are not played: they would start its bots again, which nobody would release."""
    if run:
        _released.add(run)
    close_players(run)


_released: set[str] = set()
"""The runs whose bots this process released."""


_activity_lock = threading.Lock()
_playing_now: Counter[str] = Counter()
"""Per run: the games this process is playing of it."""
_last_played: dict[str, float] = {}
"""Per run: when this process last finished one of its games (``time.monotonic``)."""


@contextlib.contextmanager
def _playing(run: str) -> Iterator[None]:
    with _activity_lock:
        _playing_now[run] += 1
        _last_played.setdefault(run, time.monotonic())
    try:
        yield
    finally:
        with _activity_lock:
            _playing_now[run] -= 1
            _last_played[run] = time.monotonic()


def release_idle(seconds: float) -> list[str]:
    """Stop the bot processes of the runs none of whose games this process has played for
    ``seconds``, none being played now: a run whose client is gone (killed, say) never
    releases them itself. The runs released; one that comes back starts its bots again."""
    with _activity_lock:  # held: no game of a run starts while its bots are stopped
        now = time.monotonic()
        idle = [run for run, last in _last_played.items()
                if not _playing_now[run] and now - last >= seconds]
        for run in idle:
            close_players(run)
            del _last_played[run]
            _playing_now.pop(run, None)
    return idle
