"""CSV files of a tournament: standings (one row per bot) and games (one row per game)."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from arena.standings import BotResults
from arena.store import BotIdentity, GameRow


def write_standings(path: Path, results: Sequence[BotResults],
                    identities: Sequence[BotIdentity], seats: int) -> None:
    seat_columns = [f"seat{s}_{what}" for s in range(seats)
                    for what in ("games", "points", "mean_score")]
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["place", "bot", "version", "games", "wins", "draws", "losses",
                         "points", "byes", "score", "mean_score", "mean_rank", *seat_columns])
        for place, result in enumerate(results, 1):
            bot, tally = identities[result.index], result.overall
            by_seat = [value for seat in result.by_seat
                       for value in (seat.games, round(seat.points, 4),
                                     round(seat.mean_score, 4))]
            writer.writerow([place, bot.name, bot.version, tally.games, tally.wins, tally.draws,
                             tally.losses, round(result.total_points, 4), result.byes,
                             round(tally.score, 4), round(tally.mean_score, 4),
                             round(tally.mean_rank, 4), *by_seat])


def write_games(path: Path, rows: Iterable[GameRow], identities: Sequence[BotIdentity],
                seats: int) -> int:
    count = 0
    seat_columns = [f"seat{s}_{what}" for s in range(seats)
                    for what in ("bot", "version", "rank", "score", "status")]
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["game", "round", "table", "set", "rotation", "seed", *seat_columns,
                         "termination", "moves", "seconds"])
        for row in rows:
            per_seat = []
            for seat, bot in enumerate(row.seats):
                per_seat += [identities[bot].name, identities[bot].version, row.ranks[seat],
                             row.scores[seat], row.statuses[seat]]
            writer.writerow([row.key, row.round, row.table, row.set, row.rotation, row.seed,
                             *per_seat, row.termination, row.moves, round(row.duration, 6)])
            count += 1
    return count
