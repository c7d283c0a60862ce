"""The game registry: an explicit table, no registration by import side effect."""

from __future__ import annotations

from arena.games import seasons, sonnentau
from arena.games.base import Game, UnknownGameError, unknown_name_message

GAMES: dict[str, Game] = {
    seasons.GAME.info.name: seasons.GAME,
    sonnentau.GAME.info.name: sonnentau.GAME,
}


def find_game(name: str) -> Game:
    """The game registered as ``name``; UnknownGameError lists the known games."""
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGameError(unknown_name_message("game", name, GAMES)) from None


def game_names() -> list[str]:
    return sorted(GAMES)
