"""Bot versions across tournaments: the all-time leaderboard and each version's history.

All-time ratings are computed per *variant* of a game — its number of players and
its options (Sonnentau's dice, board, …) — from every stored game of the
variant's tournaments, in the canonical order of
:func:`arena.results.store.Store.played_games`, and saved to the ``ratings``
table with the system that produced them. Asked to pool, they are computed from
every game of the game, whatever its variant.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games import find_game
from arena.referee.match import SEATS_OPTION
from arena.results.bradley_terry import SeatedGame
from arena.results.ratings import RatedGame, Rating, RatingSettings, RatingTable, make_rater
from arena.results.standings import Tally
from arena.results.store import PlayedGame, Store, StoredBot, TournamentRow


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


POOLED = "all"


@dataclass(frozen=True)
class Variant:
    """One way a game is played: ``key`` tells variants apart, ``label`` names one."""

    key: str
    label: str


def variant_of(tournament: TournamentRow) -> Variant:
    """The variant a tournament was played in: its players and its game's options (the
    defaults filled in)."""
    config = tournament.config
    given = dict(config.get("options") or {})
    seats = int(config.get("seats", 2))
    values: dict[str, Any] = {}
    shown = [f"{seats} players"]
    for option in find_game(tournament.game).info.options:
        value = given.get(option.name, option.default)
        if option.name == SEATS_OPTION:
            continue
        values[option.name] = value
        if option.choices or value != option.default:
            text = Path(str(value)).name if option.is_file else str(value)
            shown.append(f"{option.name} {text}")
    key = json.dumps({"seats": seats, "options": values}, sort_keys=True)
    return Variant(key, ", ".join(shown))


def variants(store: Store, game: str) -> list[Variant]:
    """The variants of ``game`` that tournaments were played in, the oldest first."""
    found: dict[str, Variant] = {}
    for tournament in store.tournaments(game):
        variant = variant_of(tournament)
        found.setdefault(variant.key, variant)
    return list(found.values())


@dataclass
class AllTime:
    table: RatingTable
    tallies: dict[int, Tally]
    after_tournament: dict[int, dict[int, tuple[Rating, int]]]


def first_plays(store: Store, game: str, games: Iterable[PlayedGame]) -> list[PlayedGame]:
    """``games`` without the replays: a config run again after another of its bots changed
    plays its other tables again on the same seeds, and a game with the same bots in the
    same seats on the same seed (in the same variant) is the same game, not a new
    observation. The first stored play of each is kept."""
    variants = {t.id: variant_of(t).key for t in store.tournaments(game)}
    seen: set[tuple[str, int, tuple[int, ...]]] = set()
    kept = []
    for played in games:
        arrangement = (variants[played.tournament], played.seed, played.bots)
        if arrangement not in seen:
            seen.add(arrangement)
            kept.append(played)
    return kept


def all_time(store: Store, game: str, settings: RatingSettings | None = None,
             variant: Variant | None = None) -> AllTime:
    """Rate the stored games of ``game`` in ``variant`` (every game, pooled, if None), a
    replayed game once (:func:`first_plays`); keep a snapshot after each tournament."""
    settings = settings or RatingSettings()
    table = RatingTable(make_rater(settings))
    tallies: dict[int, Tally] = defaultdict(Tally)
    snapshots: dict[int, dict[int, tuple[Rating, int]]] = {}
    last: int | None = None
    included = None if variant is None else {
        t.id for t in store.tournaments(game) if variant_of(t).key == variant.key}
    for played in first_plays(store, game, store.played_games(game)):
        if included is not None and played.tournament not in included:
            continue
        if last is not None and played.tournament != last:
            snapshots[last] = _snapshot(table)
        last = played.tournament
        if len(set(played.bots)) == len(played.bots):
            table.add(RatedGame(played.bots, played.ranks, played.failed))
        for seat, bot in enumerate(played.bots):
            tallies[bot].add(seat, played.ranks, played.scores)
    if last is not None:
        snapshots[last] = _snapshot(table)
    store.save_ratings(settings.system, game, POOLED if variant is None else variant.key, {
        bot: (r.mu, r.sigma, table.games.get(bot, 0)) for bot, r in table.ratings.items()})
    return AllTime(table, dict(tallies), snapshots)


def seated_games(store: Store, game: str, variant: Variant | None = None
                 ) -> list[SeatedGame]:
    """The stored games of ``game`` in ``variant`` (all, pooled, if None) for a
    Bradley-Terry fit, each with its duplicate set; a replayed game once."""
    included = None if variant is None else {
        t.id for t in store.tournaments(game) if variant_of(t).key == variant.key}
    return [SeatedGame(played.bots, played.ranks,
                       (played.tournament, played.round, played.table, played.set),
                       played.failed)
            for played in first_plays(store, game, store.played_games(game))
            if included is None or played.tournament in included]


def _snapshot(table: RatingTable) -> dict[int, tuple[Rating, int]]:
    return {bot: (rating, table.games[bot]) for bot, rating in table.ratings.items()}


def leaderboard(store: Store, game: str, settings: RatingSettings | None = None,
                variant: Variant | None = None) -> list[LeaderboardRow]:
    """Every rated bot revision of ``variant`` (pooled: of the game), best first by
    μ − 3σ; then the ones that entered its tournaments without a rated game."""
    result = all_time(store, game, settings, variant)
    bots = {bot.id: bot for bot in store.bots(game)}
    rated = [LeaderboardRow(bots[bot_id], rating, result.tallies[bot_id])
             for bot_id, rating in result.table.leaderboard()]
    entered = {bot_id for t in store.tournaments(game)
               if variant is None or variant_of(t).key == variant.key
               for bot_id in store.entrants(t.id)}
    unrated = [LeaderboardRow(bot, result.table.rater.initial(),
                              result.tallies.get(bot_id, Tally()))
               for bot_id, bot in bots.items()
               if bot_id not in result.table.ratings and bot_id in entered]
    return rated + unrated


def never_played(store: Store, game: str) -> list[StoredBot]:
    """The bots of ``game`` registered (submitted) but in no tournament yet."""
    entered = {bot_id for t in store.tournaments(game) for bot_id in store.entrants(t.id)}
    return [bot for bot in store.bots(game) if bot.id not in entered]


def history(store: Store, name: str, game: str, settings: RatingSettings | None = None,
            variant: Variant | None = None) -> list[HistoryRow]:
    """Each revision of bot ``name``: its rating and games after every tournament of
    ``variant`` (pooled: of the game) it played."""
    versions = {bot.id: bot for bot in store.bots(game) if bot.identity.name == name}
    if not versions:
        return []
    return [HistoryRow(versions[point.bot].label.partition("@")[2], point.tournament.name,
                       point.tournament.finished or point.tournament.created, point.rating,
                       point.games)
            for point in after_each_tournament(store, game, versions,
                                               all_time(store, game, settings, variant),
                                               variant)]


@dataclass(frozen=True)
class Snapshot:
    """A bot's all-time rating and games right after one tournament it played in."""

    position: int
    """Position of the tournament among the game's tournaments (oldest first)."""
    tournament: TournamentRow
    bot: int
    rating: Rating
    games: int


def tournaments_of(store: Store, game: str, variant: Variant | None = None
                   ) -> list[TournamentRow]:
    """The tournaments of ``game`` (of ``variant`` only, if given), the oldest first."""
    return [t for t in store.tournaments(game)
            if variant is None or variant_of(t).key == variant.key]


def after_each_tournament(store: Store, game: str, bots: Container[int],
                          result: AllTime, variant: Variant | None = None
                          ) -> Iterator[Snapshot]:
    """The snapshots of ``bots`` after every tournament of ``game`` (of ``variant``) they
    played, oldest tournament first, its bots in entry order."""
    for position, tournament in enumerate(tournaments_of(store, game, variant)):
        snapshot = result.after_tournament.get(tournament.id, {})
        for bot_id in dict.fromkeys(store.entrants(tournament.id)):
            if bot_id in bots and bot_id in snapshot:
                rating, games = snapshot[bot_id]
                yield Snapshot(position, tournament, bot_id, rating, games)


def games_played(store: Store) -> list[str]:
    """The games that have stored bots (played in tournaments, or submitted)."""
    return sorted({bot.game for bot in store.bots()})
