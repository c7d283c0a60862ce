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
from arena.record import OK, GameRecord


def match_seed(seed: int, index: int, seats: int) -> int:
    return derive_seed(seed, "match", index // seats)


def rotation(index: int, seats: int) -> list[int]:
    """Which bot sits in each seat in game ``index``: seat i gets bot (i + index) mod n."""
    return [(seat + index) % seats for seat in range(seats)]


def play_match(game: Game, players: Sequence[Player], seed: int, games: int,
               options: Mapping[str, Any] | None = None,
               ) -> Iterator[tuple[list[int], GameRecord]]:
    """Yield (bot index of each seat, record) for each game, as it is played."""
    check_seat_count(game, len(players))
    for index in range(games):
        order = rotation(index, len(players))
        seated = [players[bot] for bot in order]
        yield order, play_game(game, seated, match_seed(seed, index, len(players)), options)


@dataclass
class Tally:
    """Wins, draws, losses and points of one bot (overall or in one seat)."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    failures: Counter[str] = field(default_factory=Counter)

    def add(self, rank: int, ranks: Sequence[int], points: float, status: str) -> None:
        self.games += 1
        self.points += points
        shared = list(ranks).count(rank) > 1
        if rank == 0 and not shared:
            self.wins += 1
        elif rank == 0:
            self.draws += 1
        else:
            self.losses += 1
        if status != OK:
            self.failures[status] += 1

    @property
    def score(self) -> float:
        """Fraction of the available points: a win is 1, a draw 1/2."""
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0

    @property
    def mean_points(self) -> float:
        return self.points / self.games if self.games else 0.0


@dataclass
class MatchSummary:
    """Per-bot and per-bot-per-seat tallies, plus termination reasons."""

    labels: list[str]
    seats: int
    overall: list[Tally] = field(init=False)
    by_seat: list[list[Tally]] = field(init=False)
    terminations: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.overall = [Tally() for _ in self.labels]
        self.by_seat = [[Tally() for _ in range(self.seats)] for _ in self.labels]

    def add(self, order: Sequence[int], record: GameRecord) -> None:
        self.terminations[record.termination] += 1
        for seat, bot in enumerate(order):
            args = (record.ranks[seat], record.ranks, record.scores[seat],
                    record.seats[seat].status)
            self.overall[bot].add(*args)
            self.by_seat[bot][seat].add(*args)

    def lines(self) -> list[str]:
        width = max(12, *(len(label) + len(" seat 0") for label in self.labels))
        head = f"{'bot':<{width}}  games  wins  draws  losses  score   mean points"
        rows = [head]
        for label, tally in zip(self.labels, self.overall, strict=True):
            rows.append(_tally_row(label, tally, width))
        rows.append("")
        rows.append(head.replace("bot ", "seat", 1))
        for label, seats in zip(self.labels, self.by_seat, strict=True):
            for seat, tally in enumerate(seats):
                rows.append(_tally_row(f"{label} seat {seat}", tally, width))
        rows.append("")
        rows.append("terminations: " + ", ".join(
            f"{reason} {count}" for reason, count in sorted(self.terminations.items())))
        failures = [f"{label}: " + ", ".join(f"{k} {v}" for k, v in sorted(t.failures.items()))
                    for label, t in zip(self.labels, self.overall, strict=True) if t.failures]
        if failures:
            rows.append("failures: " + "; ".join(failures))
        return rows


def _tally_row(label: str, tally: Tally, width: int) -> str:
    return (f"{label:<{width}}  {tally.games:5d}  {tally.wins:4d}  {tally.draws:5d}  "
            f"{tally.losses:6d}  {100 * tally.score:5.1f}%  {tally.mean_points:11.2f}")


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
