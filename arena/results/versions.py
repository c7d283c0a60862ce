"""Bot versions across tournaments: the all-time leaderboard and each version's history.

All-time ratings of a game are computed from every stored game of that game,
in the canonical order of :func:`arena.results.store.Store.rated_games`, and saved to
the ``ratings`` table with the system that produced them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Container, Iterator
from dataclasses import dataclass

from arena.results.ratings import RatedGame, Rating, RatingSettings, RatingTable, make_rater
from arena.results.standings import Tally
from arena.results.store import Store, StoredBot, TournamentRow


@dataclass(frozen=True)
class LeaderboardRow:
    bot: StoredBot
    rating: Rating
    tally: Tally


@dataclass(frozen=True)
class HistoryRow:
    """A version's all-time rating right after one tournament it played in."""

    version: str
    tournament: str
    finished: float
    rating: Rating
    games: int


@dataclass
class AllTime:
    table: RatingTable
    tallies: dict[int, Tally]
    after_tournament: dict[int, dict[int, tuple[Rating, int]]]


def all_time(store: Store, game: str, settings: RatingSettings | None = None) -> AllTime:
    """Rate every stored game of ``game``; keep a snapshot after each tournament."""
    settings = settings or RatingSettings()
    table = RatingTable(make_rater(settings))
    tallies: dict[int, Tally] = defaultdict(Tally)
    snapshots: dict[int, dict[int, tuple[Rating, int]]] = {}
    last: int | None = None
    for played in store.played_games(game):
        if last is not None and played.tournament != last:
            snapshots[last] = _snapshot(table)
        last = played.tournament
        if len(set(played.bots)) == len(played.bots):
            table.add(RatedGame(played.bots, played.ranks))
        for seat, bot in enumerate(played.bots):
            tallies[bot].add(seat, played.ranks, played.scores)
    if last is not None:
        snapshots[last] = _snapshot(table)
    store.save_ratings(settings.system, game, {
        bot: (r.mu, r.sigma, table.games.get(bot, 0)) for bot, r in table.ratings.items()})
    return AllTime(table, dict(tallies), snapshots)


def _snapshot(table: RatingTable) -> dict[int, tuple[Rating, int]]:
    return {bot: (rating, table.games[bot]) for bot, rating in table.ratings.items()}


def leaderboard(store: Store, game: str,
                settings: RatingSettings | None = None) -> list[LeaderboardRow]:
    """Every rated version of every bot, best first by μ − 3σ."""
    result = all_time(store, game, settings)
    bots = {bot.id: bot for bot in store.bots(game)}
    rated = [LeaderboardRow(bots[bot_id], rating, result.tallies[bot_id])
             for bot_id, rating in result.table.leaderboard()]
    unrated = [LeaderboardRow(bot, result.table.rater.initial(), Tally())
               for bot_id, bot in bots.items() if bot_id not in result.table.ratings]
    return rated + unrated


def history(store: Store, name: str, game: str,
            settings: RatingSettings | None = None) -> list[HistoryRow]:
    """Each version of bot ``name``: its rating and games after every tournament it played."""
    versions = {bot.id: bot for bot in store.bots(game) if bot.identity.name == name}
    if not versions:
        return []
    return [HistoryRow(versions[point.bot].identity.version, point.tournament.name,
                       point.tournament.finished or point.tournament.created, point.rating,
                       point.games)
            for point in after_each_tournament(store, game, versions,
                                               all_time(store, game, settings))]


@dataclass(frozen=True)
class Snapshot:
    """A bot's all-time rating and games right after one tournament it played in."""

    position: int
    """Position of the tournament among the game's tournaments (oldest first)."""
    tournament: TournamentRow
    bot: int
    rating: Rating
    games: int


def after_each_tournament(store: Store, game: str, bots: Container[int],
                          result: AllTime) -> Iterator[Snapshot]:
    """The snapshots of ``bots`` after every tournament of ``game`` they played, oldest
    tournament first, its bots in entry order."""
    for position, tournament in enumerate(store.tournaments(game)):
        snapshot = result.after_tournament.get(tournament.id, {})
        for bot_id in dict.fromkeys(store.entrants(tournament.id)):
            if bot_id in bots and bot_id in snapshot:
                rating, games = snapshot[bot_id]
                yield Snapshot(position, tournament, bot_id, rating, games)


def games_played(store: Store) -> list[str]:
    """The games that have stored bots (played in tournaments, or submitted)."""
    return sorted({bot.game for bot in store.bots()})
