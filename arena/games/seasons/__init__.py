"""Seasons of the Sun: the game object registered as ``seasons``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.base import GameInfo, GameOption
from arena.games.seasons.notation import describe_action, describe_game, render
from arena.games.seasons.rules import (
    DEFAULT_PLACEMENT_LIMIT,
    GAME_NAME,
    SeasonsAction,
    SeasonsState,
    parse_action,
)


class SeasonsGame:
    """Static facts and entry points of Seasons of the Sun."""

    info = GameInfo(
        name=GAME_NAME,
        title="Seasons of the Sun",
        min_seats=2,
        max_seats=2,
        options=(
            GameOption("placement_limit", int, DEFAULT_PLACEMENT_LIMIT,
                       "placements after which the game stops (termination 'placement-limit')",
                       minimum=1),
        ),
    )

    def initial_state(self, options: Mapping[str, Any] | None = None) -> SeasonsState:
        return SeasonsState(self.info.resolve_options(options)["placement_limit"])

    def parse_action(self, text: str) -> SeasonsAction:
        return parse_action(text)

    def state_from_json(self, data: Mapping[str, Any]) -> SeasonsState:
        return SeasonsState.from_json(data)

    describe_game = staticmethod(describe_game)
    render = staticmethod(render)
    describe_action = staticmethod(describe_action)


GAME = SeasonsGame()
