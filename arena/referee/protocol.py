"""The player protocol: what the referee asks of a bot, and what it hands one.

A player has ``name`` and ``version`` (strings) and ``act(observation)``,
which returns one of ``observation.legal_actions`` (the action itself or its
canonical string). Optional hooks: ``start(info)`` before the game with a
:class:`PlayerInfo`, ``end(outcome)`` after it with the game's
:class:`~arena.games.base.Outcome`.

The referee defines this protocol and the bots package implements it (bots
loaded in-process, bot processes, a person at the terminal), so the referee
never needs to know where a bot runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from arena.games.base import Action, Observation, Outcome


@runtime_checkable
class Player(Protocol):
    """What the referee needs from a bot: its identity, read after ``start``, and ``act``."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    def act(self, observation: Observation) -> Action | str: ...


@dataclass(frozen=True)
class PlayerInfo:
    """Handed to ``start(info)``: the game, the bot's seat, and a seed of its own.

    ``seed`` is for the bot's own randomness; it is derived from, but never
    equal to, anything that decides the dice.
    """

    game: str
    options: Mapping[str, Any]
    seat: int
    seats: int
    seed: int
    time_limit: float | None = None


class PlayerFailure(Exception):
    """Raised by a player wrapper when its bot failed: ``status`` is what the referee records
    (``crash`` or ``timeout``), ``detail`` says why (with the tail of the bot's stderr)."""

    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


def call_hook(player: Any, hook: str, argument: Any) -> None:
    """Call ``player.start(info)`` or ``player.end(outcome)`` if the player has it."""
    method: Callable[[Any], Any] | None = getattr(player, hook, None)
    if callable(method):
        method(argument)


__all__ = ["Observation", "Outcome", "Player", "PlayerFailure", "PlayerInfo", "call_hook"]
