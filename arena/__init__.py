"""arena: tournaments, ratings and reports for bots playing Seasons of the Sun and Sonnentau.

The public Python API, importable from ``arena`` itself::

    >>> import arena
    >>> greedy = arena.load_bot("bots/seasons/greedy.py").player
    >>> rival = arena.load_bot("bots/seasons/random_bot.py").player
    >>> record = arena.play_game("seasons", [greedy, rival], seed=7)
    >>> record.ranks, record.seats[0].name
    ((0, 1), 'greedy')

or, in the style of Kaggle Environments, with the shipped bots by name::

    >>> arena.make("seasons").run(["greedy", "random"], seed=7).ranks
    (0, 1)

Names are loaded on first use, so ``import arena`` stays cheap (a bot process
imports it too).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "ArenaError": "arena.games.base",
    "Action": "arena.games.base",
    "Observation": "arena.games.base",
    "Outcome": "arena.games.base",
    "GAMES": "arena.games",
    "find_game": "arena.games",
    "Player": "arena.referee.protocol",
    "PlayerInfo": "arena.referee.protocol",
    "PlayerFailure": "arena.referee.protocol",
    "play_game": "arena.referee.match",
    "GameRecord": "arena.referee.record",
    "game_log": "arena.referee.record",
    "read_records": "arena.referee.record",
    "replay": "arena.referee.record",
    "write_records": "arena.referee.record",
    "load_bot": "arena.bots.loading",
    "BotEntry": "arena.bots.identity",
    "Store": "arena.results.store",
    "TournamentConfig": "arena.tournaments.config",
    "load_config": "arena.tournaments.config",
    "parse_config": "arena.tournaments.config",
    "play_match": "arena.tournaments.matches",
    "run_tournament": "arena.tournaments.runner",
    "Environment": "arena.api",
    "Match": "arena.api",
    "Step": "arena.api",
    "make": "arena.api",
    "open_store": "arena.api",
    "steps": "arena.api",
    "stored_games": "arena.api",
    "stored_replays": "arena.api",
    "ReplayError": "arena.reports.replay",
    "check_replay": "arena.reports.replay",
    "from_replay": "arena.reports.replay",
    "read_replays": "arena.reports.replay",
    "to_replay": "arena.reports.replay",
}

__all__ = [
    "GAMES", "Action", "ArenaError", "BotEntry", "Environment", "GameRecord", "Match",
    "Observation", "Outcome", "Player", "PlayerFailure", "PlayerInfo", "ReplayError", "Step",
    "Store", "TournamentConfig", "check_replay", "find_game", "from_replay", "game_log",
    "load_bot", "load_config", "make", "open_store", "parse_config", "play_game", "play_match",
    "read_records", "read_replays", "replay", "run_tournament", "steps", "stored_games",
    "stored_replays", "to_replay", "write_records",
]



def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'arena' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:
    from arena.api import (
        Environment,
        Match,
        Step,
        make,
        open_store,
        steps,
        stored_games,
        stored_replays,
    )
    from arena.bots.identity import BotEntry
    from arena.bots.loading import load_bot
    from arena.games import GAMES, find_game
    from arena.games.base import Action, ArenaError, Observation, Outcome
    from arena.referee.match import play_game
    from arena.referee.protocol import Player, PlayerFailure, PlayerInfo
    from arena.referee.record import GameRecord, game_log, read_records, replay, write_records
    from arena.reports.replay import (
        ReplayError,
        check_replay,
        from_replay,
        read_replays,
        to_replay,
    )
    from arena.results.store import Store
    from arena.tournaments.config import TournamentConfig, load_config, parse_config
    from arena.tournaments.matches import play_match
    from arena.tournaments.runner import run_tournament
