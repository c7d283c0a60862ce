"""Matches: a few games between given bots with rotated seats, and their summary.

Game ``k`` of a match uses the game seed ``derive_seed(seed, "match", k // n)``
and seats the bots rotated by ``k % n`` (``n`` seats), so every group of ``n``
consecutive games plays the same dice in all seat rotations — the duplicate
format that cancels luck between the bots.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.dice import derive_seed
from arena.games.base import Game
from arena.match import check_seat_count, play_game
from arena.players import Player
from arena.record import GameRecord
from arena.standings import BotResults, table_lines, tally_games


def match_seed(seed: int, index: int, seats: int) -> int:
    return derive_seed(seed, "match", index // seats)


def rotation(index: int, seats: int) -> list[int]:
    """Which bot sits in each seat in game ``index``: seat i gets bot (i + index) mod n."""
    return [(seat + index) % seats for seat in range(seats)]


def play_match(game: Game, players: Sequence[Player], seed: int, games: int,
               options: Mapping[str, Any] | None = None, *, time_limit: float | None = None,
               ) -> Iterator[tuple[list[int], GameRecord]]:
    """Yield (bot index of each seat, record) for each game, as it is played."""
    check_seat_count(game, len(players))
    for index in range(games):
        order = rotation(index, len(players))
        seated = [players[bot] for bot in order]
        yield order, play_game(game, seated, match_seed(seed, index, len(players)), options,
                               time_limit=time_limit)


@dataclass
class MatchSummary:
    """Per-bot and per-bot-per-seat results, plus termination reasons."""

    labels: list[str]
    seats: int
    results: list[BotResults] = field(init=False)
    terminations: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.results = tally_games(self.labels, self.seats, [])

    def add(self, order: Sequence[int], record: GameRecord) -> None:
        self.terminations[record.termination] += 1
        statuses = [s.status for s in record.seats]
        for seat, bot in enumerate(order):
            self.results[bot].overall.add(seat, record.ranks, record.scores, statuses[seat])
            self.results[bot].by_seat[seat].add(seat, record.ranks, record.scores,
                                                statuses[seat])

    def lines(self) -> list[str]:
        return [*table_lines(self.results), "", "terminations: " + ", ".join(
            f"{reason} {count}" for reason, count in sorted(self.terminations.items()))]


def bot_labels(players: Sequence[Player]) -> list[str]:
    """``name@version`` for each bot, numbered where the same bot plays twice."""
    plain = [f"{p.name}@{p.version}" for p in players]
    counts = Counter(plain)
    seen: Counter[str] = Counter()
    labels = []
    for label in plain:
        seen[label] += 1
        labels.append(f"{label} #{seen[label]}" if counts[label] > 1 else label)
    return labels
