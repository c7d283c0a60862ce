"""The game registry: an explicit table, no registration by import side effect.

A game's module is imported when the game is first asked for: a bot process that plays
Seasons never loads Sonnentau's rules, which keeps its start-up short.
"""

from __future__ import annotations

import importlib
from typing import Any

from arena.games.base import Game, UnknownGameError, unknown_name_message

MODULES = {"seasons": "arena.games.seasons", "sonnentau": "arena.games.sonnentau"}
"""Each game's name and the module whose ``GAME`` it is."""


def find_game(name: str) -> Game:
    """The game registered as ``name``; UnknownGameError lists the known games."""
    if name not in MODULES:
        raise UnknownGameError(unknown_name_message("game", name, MODULES))
    game: Game = importlib.import_module(MODULES[name]).GAME
    return game


def game_names() -> list[str]:
    return sorted(MODULES)


def __getattr__(name: str) -> Any:
    if name == "GAMES":  # every game, by name (which loads them all)
        return {game: find_game(game) for game in MODULES}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
