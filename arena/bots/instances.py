"""One bot, several instances: no instance plays two games on the same dice.

The games of a duplicate set share one game seed, so the same dice: that is what
cancels luck between the bots. A bot process that played one game of a set would
know, in the next, every die of the seat its opponent now holds, and what it left in
its ``/tmp``. So a process keeps the bot's instances for an entry and seats, for each
game, one that has played no game on that game's seed, starting a new one when none
is left. Instances are reused across sets (a new seed is new dice), so a two-player
round-robin starts each bot about twice per worker, not once per game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.bots.process import ProcessPlayer
from arena.referee.protocol import Player

KEEP = 4
"""Instances of one entry kept running at most (a set of a four-seat table in rotations
needs four); beyond that the least recently used one is stopped."""


@dataclass
class _Instance:
    player: Player
    seeds: set[int] = field(default_factory=set)
    """The game seeds it has played on."""
    used: int = 0


class InstancePool:
    """The instances of one bot in this process; :meth:`for_seed` picks the one to seat."""

    def __init__(self, make: Callable[[], Player], *, first: Player | None = None,
                 keep: int = KEEP) -> None:
        self.make, self.keep = make, keep
        self.instances = [] if first is None else [_Instance(first)]
        self.clock = 0

    def for_seed(self, seed: int) -> Player:
        """An instance that has played no game on ``seed``, marked as playing on it now."""
        self.clock += 1
        fresh = next((i for i in self.instances if seed not in i.seeds), None)
        if fresh is None:
            fresh = _Instance(self.make())
            self.instances.append(fresh)
            self._stop_least_used(fresh)
        fresh.seeds.add(seed)
        fresh.used = self.clock
        return fresh.player

    def _stop_least_used(self, keeping: _Instance) -> None:
        while len(self.instances) > self.keep:
            oldest = min((i for i in self.instances if i is not keeping),
                         key=lambda i: i.used)
            stop_bot(oldest.player)
            self.instances.remove(oldest)

    @property
    def sample(self) -> Player:
        """The first instance (for its name and version once started)."""
        if not self.instances:
            self.instances.append(_Instance(self.make()))
        return self.instances[0].player

    @property
    def name(self) -> str:
        return self.sample.name

    @property
    def version(self) -> str:
        return self.sample.version

    def close(self) -> None:
        for instance in self.instances:
            stop_bot(instance.player)
        self.instances.clear()


def seated(player: Any, seed: int) -> Any:
    """The instance of ``player`` to seat in a game on ``seed`` (``player`` itself if it is
    not a pool)."""
    return player.for_seed(seed) if isinstance(player, InstancePool) else player


def stop_bot(player: Any) -> None:
    """Stop ``player``'s bot processes (a pool's, or one wrapped in a renaming player)."""
    inner = getattr(player, "player", player)
    if isinstance(inner, InstancePool | ProcessPlayer):
        inner.close()
