"""Standings: wins, draws, losses, points and scores per bot and per seat.

A game gives each seat *points* = (opponents beaten + ½ opponents tied) / (k - 1)
for ``k`` seats: 1 for a two-player win, ½ for a draw. A seat ranked first
alone has a *win*, first with others a *draw*, anything else a *loss*.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena.referee.record import OK


def game_points(ranks: Sequence[int]) -> tuple[float, ...]:
    """Points of each seat in one game: (opponents beaten + ½ tied) / (k - 1)."""
    k = len(ranks)
    return tuple(
        (sum(other > mine for other in ranks) + 0.5 * (sum(other == mine for other in ranks) - 1))
        / (k - 1)
        for mine in ranks
    )


@dataclass
class Tally:
    """Results of one bot, overall or in one seat."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    score_sum: float = 0.0
    rank_sum: int = 0
    failures: Counter[str] = field(default_factory=Counter)

    def add(self, seat: int, ranks: Sequence[int], scores: Sequence[float],
            status: str = OK) -> None:
        """Count the game in which this bot sat in ``seat``."""
        rank = ranks[seat]
        self.games += 1
        self.points += game_points(ranks)[seat]
        self.score_sum += scores[seat]
        self.rank_sum += rank
        if rank == 0 and list(ranks).count(0) == 1:
            self.wins += 1
        elif rank == 0:
            self.draws += 1
        else:
            self.losses += 1
        if status != OK:
            self.failures[status] += 1

    @property
    def score(self) -> float:
        """Points per game: the fraction of the points available."""
        return self.points / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        """Mean game score (Seasons: sector points; Sonnentau: pieces home)."""
        return self.score_sum / self.games if self.games else 0.0

    @property
    def mean_rank(self) -> float:
        """Mean finishing place, 1 = first."""
        return 1 + self.rank_sum / self.games if self.games else 0.0


@dataclass
class BotResults:
    """A bot's overall tally and its tally in each seat."""

    index: int
    label: str
    overall: Tally
    by_seat: list[Tally]
    byes: int = 0
    bye_points: float = 0.0
    buchholz: float | None = None

    @property
    def total_points(self) -> float:
        return self.overall.points + self.bye_points


def tally_games(labels: Sequence[str], seats: int,
                games: Iterable[tuple[Sequence[int], Sequence[int], Sequence[float],
                                      Sequence[str]]]) -> list[BotResults]:
    """Results per bot from (bot of each seat, ranks, scores, statuses) tuples."""
    results = [BotResults(i, label, Tally(), [Tally() for _ in range(seats)])
               for i, label in enumerate(labels)]
    for order, ranks, scores, statuses in games:
        for seat, bot in enumerate(order):
            results[bot].overall.add(seat, ranks, scores, statuses[seat])
            results[bot].by_seat[seat].add(seat, ranks, scores, statuses[seat])
    return results


def table_lines(results: Sequence[BotResults], *, seats: bool = True) -> list[str]:
    """A text table: one row per bot (best first as given), then one per bot and seat."""
    width = max(12, *(len(r.label) + len(" seat 0") for r in results))
    head = (f"{'bot':<{width}}  games  wins  draws  losses  points  score  "
            "mean score  mean rank")
    swiss = any(r.buchholz is not None for r in results)
    extra = "  byes  buchholz" if swiss else ""
    rows = [head + extra] + [
        _row(r.label, r.overall, width, r.total_points)
        + (f"  {r.byes:4d}  {r.buchholz or 0.0:8.1f}" if swiss else "") for r in results]
    if seats:
        rows += ["", head.replace("bot ", "seat", 1)]
        rows += [_row(f"{r.label} seat {seat}", tally, width, tally.points)
                 for r in results for seat, tally in enumerate(r.by_seat)]
    failures = [f"{r.label}: " + ", ".join(f"{k} {v}" for k, v in sorted(
        r.overall.failures.items())) for r in results if r.overall.failures]
    if failures:
        rows += ["", "failures: " + "; ".join(failures)]
    return rows


LEGEND_WIDTH = 88


def legend_lines(seats: int) -> list[str]:
    """What the standings' columns mean."""
    if seats == 2:
        counted = ("win: the better result; draw: an equal one; points: 1 per win, 1/2 per "
                   "draw")
    else:
        counted = (f"win: first place alone; draw: first place shared; loss: any other place;"
                   f" points: per game, (players beaten + 1/2 tied) / {seats - 1}")
    return textwrap.wrap(counted + "; score: points per game as a percentage; mean score: "
                         "the game's own score (Seasons: points on the board; Sonnentau: "
                         "pieces brought home); mean rank: 1 is first", LEGEND_WIDTH)


def _row(label: str, tally: Tally, width: int, points: float) -> str:
    return (f"{label:<{width}}  {tally.games:5d}  {tally.wins:4d}  {tally.draws:5d}  "
            f"{tally.losses:6d}  {points:6.1f}  {100 * tally.score:5.1f}%  "
            f"{tally.mean_score:10.2f}  {tally.mean_rank:9.2f}")
