"""CSV files of a tournament: standings and ratings (one row per bot), pairs (one row per
ordered pair of bots that met) and games (one row per game).

Names and versions come from bots and configs: a text cell that a spreadsheet
would take for a formula (``=``, ``+``, ``-``, ``@``, a tab or a carriage return
first) is written with a leading apostrophe, as OWASP advises, so it shows as
text and never runs.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from arena.bots.identity import BotIdentity
from arena.reports.written import replaced
from arena.results.ratings import Rating
from arena.results.standings import BotResults
from arena.results.stats import elo_interval
from arena.results.store import GameRow
from arena.tournaments.runner import places

if TYPE_CHECKING:
    from arena.reports.model import PairResult


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """``value`` as a CSV cell that no spreadsheet runs as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _is_number(value):
        return "'" + value
    return value


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class SafeWriter:
    """A csv writer whose text cells are neutralised by :func:`cell`."""

    def __init__(self, out: TextIO) -> None:
        self.writer = csv.writer(out)

    def writerow(self, row: Iterable[object]) -> None:
        self.writer.writerow([cell(value) for value in row])


def write_standings(path: Path, results: Sequence[BotResults],
                    identities: Sequence[BotIdentity], seats: int) -> None:
    seat_columns = [f"seat{s}_{what}" for s in range(seats)
                    for what in ("games", "points", "mean_score")]
    with replaced(path, newline="") as out:
        writer = SafeWriter(out)
        writer.writerow(["place", "bot", "version", "games", "wins", "draws", "losses",
                         "points", "byes", "score", "mean_score", "mean_rank", *seat_columns])
        for place, result in zip(places(results), results, strict=True):
            bot, tally = identities[result.index], result.overall
            by_seat = [value for seat in result.by_seat
                       for value in (seat.games, round(seat.points, 4),
                                     round(seat.mean_score, 4) if seat.games else "")]
            writer.writerow([place, bot.name, bot.version, tally.games, tally.wins, tally.draws,
                             tally.losses, round(result.total_points, 4), result.byes,
                             *((round(tally.score, 4), round(tally.mean_score, 4),
                                round(tally.mean_rank, 4)) if tally.games else ("", "", "")),
                             *by_seat])


def write_games(path: Path, rows: Iterable[GameRow], identities: Sequence[BotIdentity],
                seats: int, *, hide_seeds: bool = False) -> int:
    """One row per game, each seat with its bot, result and isolation, and the detail of
    each failure; ``hide_seeds`` leaves the seed column empty (a secret-seed tournament
    still running)."""
    count = 0
    seat_columns = [f"seat{s}_{what}" for s in range(seats)
                    for what in ("bot", "version", "rank", "score", "status", "isolation")]
    with replaced(path, newline="") as out:
        writer = SafeWriter(out)
        writer.writerow(["game", "round", "table", "set", "rotation", "seed", *seat_columns,
                         "termination", "detail", "moves", "seconds"])
        for row in rows:
            per_seat = []
            for seat, bot in enumerate(row.seats):
                isolation = row.isolations[seat] if seat < len(row.isolations) else ""
                per_seat += [identities[bot].name, identities[bot].version, row.ranks[seat],
                             row.scores[seat], row.statuses[seat], isolation]
            writer.writerow([row.key, row.round, row.table, row.set, row.rotation,
                             "" if hide_seeds else row.seed, *per_seat, row.termination,
                             failure_details(row), row.moves, round(row.duration, 6)])
            count += 1
    return count


def failure_details(row: GameRow) -> str:
    """Why each seat that failed lost (``seat 0: act() raised KeyError: 'x'`` and the bot's
    traceback), the seats apart by a blank line; empty when nobody failed."""
    return "\n\n".join(f"seat {seat}: {detail}" for seat, detail in enumerate(row.details)
                       if detail and row.statuses[seat] != "ok")


RATING_COLUMNS = ["bot", "version", "mu", "sigma", "mu_minus_3sigma", "games", "system"]
PAIR_COLUMNS = ["bot", "version", "opponent", "opponent_version", "games", "wins", "draws",
                "losses", "score", "elo", "elo_error", "elo_low", "elo_high", "los",
                "adjusted_score", "adjusted_low", "adjusted_high", "adjusted_elo",
                "adjusted_elo_error", "adjusted_elo_low", "adjusted_elo_high", "adjusted_note"]
"""Elo cells are empty where there is no finite value: no Elo for a clean sweep, no error
and no bound on the side where the 95 % interval reaches 0 or 1 (``elo_low`` alone is the
one-sided bound of a sweep). ``adjusted_note`` says when the adjusted sets' mean fell
outside [0, 1], and the adjusted columns hold the raw sets' score instead."""


def write_ratings(path: Path, rows: Iterable[tuple[BotIdentity, Rating, int]],
                  system: str) -> None:
    """One row per bot, in the order given: (identity, rating, games rated); a bot without
    a rated game (a bye alone) has empty rating cells, not the prior's."""
    with replaced(path, newline="") as out:
        writer = SafeWriter(out)
        writer.writerow(RATING_COLUMNS)
        for bot, rating, games in rows:
            shown = ([round(rating.mu, 6), round(rating.sigma, 6), round(rating.conservative, 6)]
                     if games else ["", "", ""])
            writer.writerow([bot.name, bot.version, *shown, games, system])


def write_pairs(path: Path, rows: Iterable[tuple[BotIdentity, BotIdentity, PairResult]]) -> None:
    """One row per ordered pair of bots that met: (bot, opponent, the bot's results)."""
    with replaced(path, newline="") as out:
        writer = SafeWriter(out)
        writer.writerow(PAIR_COLUMNS)
        for bot, opponent, pair in rows:
            elo, error = pair.elo
            writer.writerow([bot.name, bot.version, opponent.name, opponent.version, pair.games,
                             pair.wins, pair.draws, pair.losses, round(pair.score, 4),
                             _number(elo, 1), _number(error, 1),
                             *_elo_bounds(pair.interval), round(pair.los, 4),
                             *_adjusted_columns(pair)])


def _adjusted_columns(pair: PairResult) -> list[float | str]:
    """The pair's luck-adjusted score, its 95 % interval, Elo, error, Elo bounds and note;
    empty where none."""
    interval, elo = pair.adjusted_interval, pair.adjusted_elo
    if pair.adjusted is None or interval is None or elo is None:
        return [""] * 8
    note = f"{pair.adjusted.raw_reason}: the raw sets' score" if pair.adjusted.raw_stands \
        else ""
    return [round(pair.adjusted.score, 4), round(interval[0], 4), round(interval[1], 4),
            _number(elo[0], 1), _number(elo[1], 1), *_elo_bounds(interval), note]


def _elo_bounds(interval: tuple[float, float]) -> list[float | str]:
    return [_number(value, 1) for value in elo_interval(interval)]


def _number(value: float, digits: int) -> float | str:
    """A rounded number; empty where it is not finite (a perfect score has no Elo, an
    interval reaching 0 or 1 no bound on that side)."""
    return round(value, digits) if math.isfinite(value) else ""
