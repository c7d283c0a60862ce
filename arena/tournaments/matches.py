"""Matches: a few games between given bots with rotated seats, and head-to-head
comparisons of two stored bot versions.

Game ``k`` of a match (:func:`play_match`) uses the game seed
``derive_seed(seed, "match", k // n)`` and seats the bots rotated by ``k % n``
(``n`` seats), so every group of ``n`` consecutive games plays the same dice in
all seat rotations — the duplicate format that cancels luck between the bots.

:func:`play_comparison` plays seat-swapped pairs between two stored versions — a
fixed number, or until a sequential probability ratio test (SPRT, on the
pair-level pentanomial counts) reaches a bound. Its games are stored as a
tournament of their own, so they count in the ratings and a stopped comparison
resumes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.bots.identity import BotEntry
from arena.games import find_game
from arena.games.base import Game
from arena.referee.dice import derive_seed
from arena.referee.match import check_seat_count, play_game
from arena.referee.protocol import Player
from arena.referee.record import GameRecord
from arena.results.comparison import Comparison, summarise
from arena.results.standings import BotResults, table_lines, tally_games
from arena.results.stats import SprtSettings
from arena.results.store import Store, StoredBot
from arena.tournaments.config import TournamentConfig
from arena.tournaments.runner import Progress, RunReport, open_run, play_tasks, round_robin_tasks

SETS_PER_CHECK = 8


def match_seed(seed: int, index: int, seats: int) -> int:
    return derive_seed(seed, "match", index // seats)


def rotation(index: int, seats: int) -> list[int]:
    """Which bot sits in each seat in game ``index``: seat i gets bot (i + index) mod n."""
    return [(seat + index) % seats for seat in range(seats)]


def play_match(game: Game | str, players: Sequence[Player], seed: int, games: int,
               options: Mapping[str, Any] | None = None, *, time_limit: float | None = None,
               ) -> Iterator[tuple[list[int], GameRecord]]:
    """Yield (bot index of each seat, record) for each game, as it is played."""
    game = find_game(game) if isinstance(game, str) else game
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


def play_comparison(store: Store, game: str, first: StoredBot, second: StoredBot, *,
                    pairs: int, seed: int, workers: int, db: str,
                    settings: SprtSettings | None = None,
                    progress: Progress | None = None) -> Comparison:
    """Play up to ``pairs`` seat-swapped pairs (stopping early at an SPRT bound)."""
    config = TournamentConfig(
        name=f"compare {first.identity.label} vs {second.identity.label} seed {seed}"
             + (f" sprt {settings.elo0},{settings.elo1},{settings.alpha},{settings.beta}"
                if settings else ""),
        game=game, bots=(_entry(first), _entry(second)), games_per_pairing=pairs,
        seed=seed, workers=workers, db=db)
    run = open_run(config, store)
    tasks = list(round_robin_tasks(run.config, run.entrants.labels))
    report = RunReport(run.tid, len(tasks), len(store.finished_keys(run.tid)))
    progress = progress or Progress()
    progress.started(report.total, report.already_done)
    chunk = 2 * SETS_PER_CHECK * max(1, config.worker_count)
    result = _result(store, run.tid, run.entrants.labels, first.id, game, settings)
    for start in range(0, len(tasks), chunk):
        if result.sprt is not None and result.sprt.is_finished:
            break
        play_tasks(run, tasks[start:start + chunk], report, progress)
        result = _result(store, run.tid, run.entrants.labels, first.id, game, settings)
    store.set_status(run.tid, "complete")
    return result


def _result(store: Store, tid: int, labels: list[str], first_id: int, game: str,
            settings: SprtSettings | None) -> Comparison:
    games = [g for g in store.played_games(game) if g.tournament == tid]
    return summarise(labels[0], labels[1], first_id, games, settings)


def _entry(bot: StoredBot) -> BotEntry:
    identity = bot.identity
    return BotEntry(identity.spec, identity.name, identity.version, dict(identity.params))
