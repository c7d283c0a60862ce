"""Positions from the original Sonnentau rules' worked examples, for the bot tests."""

from __future__ import annotations

from arena.games import find_game
from arena.games.sonnentau.rules import SonnentauState, parse_action


def example_position(dice: str, roll: str) -> SonnentauState:
    """Seat 0's pieces on X and Y, and ``roll`` (e.g. ``dice:2,6``) to play."""
    state = find_game("sonnentau").initial_state({"dice": dice})
    state.set_place(0, 3, "X")
    state.set_place(0, 1, "Y")
    state.apply(parse_action(roll))
    return state
