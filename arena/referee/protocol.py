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

import re
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
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


_ARENA = str(Path(__file__).resolve().parents[1])
DETAIL_CHARS = 2000
"""How much of a failure's traceback or stderr a record keeps (its end)."""


def printable(text: str) -> str:
    """``text`` with every unprintable character but newlines and tabs written as an escape
    (``\\x1b``), so that it shows as what it is on a terminal and cannot act on it."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c in "\n\t" else
                   c.encode("unicode_escape").decode("ascii") for c in text)


def raised_text(hook: str, exc: BaseException) -> str:
    """``act() raised KeyError: 'x'`` and the bot's own traceback, without arena's frames:
    the detail a crash is recorded with."""
    summary = traceback.format_exception_only(type(exc), exc)[-1].strip()
    return f"{hook}() raised {summary}\n{bot_traceback(exc)[-DETAIL_CHARS:]}".rstrip()


def bot_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` with only the bot's frames (arena's and importlib's left
    out), so that what an author reads starts in their own code."""
    kept: list[str] = []
    skip = False
    for line in traceback.format_exception(type(exc), exc, exc.__traceback__):
        if line.startswith('  File "'):
            skip = line.startswith(f'  File "{_ARENA}/') or "<frozen importlib" in line
        if not skip:
            kept.append(line)
    return "".join(kept)


STDERR_MARK = "--- stderr ---"
"""Separates a bot process's failure from the tail of its stderr in a failure's detail."""


_NUMBERS = re.compile(r"0x[0-9a-fA-F]+|\d+(?:\.\d+)?")


def failure_shape(text: str) -> str:
    """``text`` with its numbers (seconds, line numbers, addresses) as ``#``: failures of
    the same shape are the same failure, told once."""
    return _NUMBERS.sub("#", text.strip())


def failure_excerpt(detail: str, lines: int = 8) -> list[str]:
    """What to show of a failure's detail: its first line, then the end of the bot's last
    traceback (or of its stderr), at most ``lines`` lines of it."""
    head, _, rest = detail.strip().partition("\n")
    body = rest.replace(STDERR_MARK, "").strip("\n")
    start = body.rfind("Traceback (most recent call last):")
    if start > 0:
        body = body[start:]
    tail = [line for line in body.splitlines() if line.strip()][-lines:]
    return [head, *tail] if head else tail


__all__ = ["Observation", "Outcome", "Player", "PlayerFailure", "PlayerInfo", "call_hook"]
