"""Sonnentau: the game object registered as ``sonnentau``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.base import GameInfo, GameOption, absolute_path
from arena.games.sonnentau.board import Board, BoardError, default_board, load_board
from arena.games.sonnentau.notation import describe_action, describe_game, render
from arena.games.sonnentau.rules import (
    DEFAULT_TURN_LIMIT,
    DICE_VARIANTS,
    GAME_NAME,
    SonnentauAction,
    SonnentauState,
    new_state,
    parse_action,
)


class SonnentauGame:
    """Static facts and entry points of Sonnentau."""

    info = GameInfo(
        name=GAME_NAME,
        title="Sonnentau",
        min_seats=2,
        max_seats=4,
        options=(
            GameOption("board", str, "",
                       "board file (YAML); empty for the default board, "
                       "arena/games/sonnentau/board.yaml",
                       normalize=absolute_path, is_file=True),
            GameOption("dice", str, "standard",
                       "dice: two six-sided dice, or the three Miwin dice III, IV, V",
                       choices=tuple(DICE_VARIANTS)),
            GameOption("seats", int, 2, "number of players (set by the referee)",
                       choices=(2, 3, 4)),
            GameOption("turn_limit", int, DEFAULT_TURN_LIMIT,
                       "turns after which the game stops (termination 'turn-limit')",
                       minimum=1),
        ),
    )

    def initial_state(self, options: Mapping[str, Any] | None = None) -> SonnentauState:
        return new_state(self.info.resolve_options(options))

    def parse_action(self, text: str) -> SonnentauAction:
        return parse_action(text)

    def state_from_json(self, data: Mapping[str, Any]) -> SonnentauState:
        return SonnentauState.from_json(data)

    describe_game = staticmethod(describe_game)
    render = staticmethod(render)
    describe_action = staticmethod(describe_action)


GAME = SonnentauGame()

__all__ = ["GAME", "Board", "BoardError", "SonnentauGame", "default_board", "load_board"]
