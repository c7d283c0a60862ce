"""A game task and how it is played, in whatever process or machine it is sent to.

:class:`MatchSetup` is what every game of a tournament shares and
:class:`~arena.tournaments.schedule.GameTask` one game of it; both are plain
data. :func:`play_task` seats the task's entrants (the bots package knows who
they are and how they run), has the referee play the game, and hands back the
record encoded for the store, so that the worker, not the parent, pays for that.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.bots.identity import BotEntry
from arena.bots.isolation import close_players, seat_players, with_entry_names
from arena.bots.process import Limits
from arena.referee.match import play_game
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


@dataclass(frozen=True)
class GameResult:
    task: GameTask
    game: FinishedGame
    duration: float


def play_task(setup: MatchSetup, task: GameTask) -> GameResult:
    """Play one task (in whatever process this runs)."""
    entries = [setup.bots[bot] for bot in task.seats]
    players = seat_players(entries, setup.limits)
    started = time.perf_counter()
    record = play_game(setup.game, players, task.seed, setup.options,
                       time_limit=setup.time_limit, time_bank=setup.time_bank)
    duration = time.perf_counter() - started
    record = with_entry_names(record, entries)
    log.info("game %s done: ranks %s, %s", task.key, record.ranks, record.termination)
    return GameResult(task, FinishedGame.of(record), duration)


def release_players() -> None:
    """Stop the bot processes this process started for its tasks (a worker's last step)."""
    close_players()
