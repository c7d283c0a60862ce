"""The results model behind every report: one tournament's numbers, computed once.

:func:`build_model` reads the tournament's games once, in schedule order (round,
table, set, rotation), and derives everything the CSV and HTML writers show:
the standings, the tournament's own ratings (rated from its games alone with
the rating settings stored with it) and their progression, the pairwise score
matrix, the seat statuses and game terminations, and each bot's failures with
their details (read from the records of the games it lost by failing). All-time
ratings across tournaments (for comparing versions) come from
:func:`arena.results.versions.all_time`.

Games are numbered 1, 2, … in schedule order, as everywhere a person reads them
(the report's viewer and links, ``arena board --game``).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields

from arena.bots.identity import BotEntry, BotIdentity
from arena.referee.protocol import STDERR_MARK, failure_shape
from arena.referee.record import OK, SEAT_STATUSES, failed_seats
from arena.results.comparison import adjusted_score
from arena.results.luck_book import LuckSource, Progress, tournament_luck
from arena.results.ratings import (
    RatedGame,
    Rating,
    RatingSettings,
    RatingTable,
    compared,
    make_rater,
    rate_games,
)
from arena.results.standings import BotResults, game_points
from arena.results.stats import (
    AdjustedScore,
    MatchScore,
    adjusted_elo_with_error,
    adjusted_interval,
    elo_and_error,
    likelihood_of_superiority,
    score_interval,
    sets_interval,
    sets_likelihood_of_superiority,
    sets_of,
)
from arena.results.store import GameRow, Store, StoredBot, StoreError, TournamentRow
from arena.results.versions import after_each_tournament, all_time, tournaments_of, variant_of
from arena.tournaments.config import TournamentConfig
from arena.tournaments.ladder_config import LADDER_FORMAT
from arena.tournaments.runner import standings, total_games

PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1", "#76b7b2", "#edc948",
           "#9c755f", "#ff9da7", "#6b6ecf", "#bab0ac", "#2f8f83")
"""Bot colours (Tableau 10 and a few more), by entrant position; more bots get hues."""

MAX_PROGRESS_POINTS = 250
"""Points kept per bot in the rating progression (a long tournament is thinned)."""


def bot_colour(index: int) -> str:
    """A distinct colour for entrant ``index``: the palette, then golden-angle hues at three
    lightnesses (so that two bots of close hues still differ)."""
    if index < len(PALETTE):
        return PALETTE[index]
    hue = (index * 137.508) % 360
    return _hsl_hex(hue, 0.6, (0.42, 0.56, 0.68)[index % 3])


def ink_on(colour: str) -> str:
    """Dark or white text, whichever reads better on ``colour`` (``#rrggbb``)."""
    return DARK_INK if contrast(colour, DARK_INK) >= contrast(colour, "#ffffff") else "#ffffff"


DARK_INK = "#111827"


def contrast(first: str, second: str) -> float:
    """The WCAG contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    light, dark = sorted((_luminance(first), _luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _luminance(colour: str) -> float:
    channels = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _hsl_hex(hue: float, saturation: float, lightness: float) -> str:
    c = (1 - abs(2 * lightness - 1)) * saturation
    x = c * (1 - abs((hue / 60) % 2 - 1))
    m = lightness - c / 2
    sector = int(hue // 60) % 6
    r, g, b = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x)][sector]
    return "#{:02x}{:02x}{:02x}".format(*(round((v + m) * 255) for v in (r, g, b)))


def stored_config(row: TournamentRow) -> TournamentConfig:
    """The tournament's config rebuilt from the JSON stored with it.

    The stored config was validated when the tournament was created; it is rebuilt
    here without checking again (the bot files need not be reachable from the
    current directory, and unset values are stored as null). Settings the stored
    JSON lacks keep their defaults.
    """
    data = row.config
    bots = tuple(BotEntry(str(b["spec"]), b.get("name"), b.get("version"),
                          dict(b.get("params") or {})) for b in data.get("bots", []))
    rebuilt = {"name", "game", "seed", "secret_seed", "bots", "ratings", "source"}
    settings = {f.name: data[f.name] for f in fields(TournamentConfig)
                if f.name in data and f.name not in rebuilt}
    return TournamentConfig(
        name=row.name, game=row.game, seed=row.seed, secret_seed=row.secret, bots=bots,
        **settings,
        ratings=RatingSettings.from_mapping(data.get("ratings") or {}),
        source=f"tournament {row.name!r}")


@dataclass(frozen=True)
class Bot:
    """An entrant: its position in the tournament, its stored id and identity."""

    index: int
    id: int
    identity: BotIdentity
    colour: str

    @property
    def name(self) -> str:
        return self.identity.name

    @property
    def version(self) -> str:
        return self.identity.version

    @property
    def label(self) -> str:
        return self.identity.label

    @property
    def ink(self) -> str:
        """The text colour to write on the bot's colour."""
        return ink_on(self.colour)


@dataclass(frozen=True)
class PairResult:
    """Results of bot ``row`` against bot ``col`` (entrant positions), pairwise by rank."""

    row: int
    col: int
    wins: int
    draws: int
    losses: int
    adjusted: AdjustedScore | None = None
    """The luck-adjusted score, from the pair's two-seat games whose luck was accounted for."""
    first_game: int = 0
    """The number of the pair's first game (from 1, schedule order)."""
    sets: tuple[float, ...] = ()
    """The first bot's mean points against the second in each duplicate set (the games
    on one seed): the independent observations its interval, Elo error and LOS come from,
    since games on the same dice are not independent of each other."""
    set_sizes: tuple[int, ...] = ()
    """The games of each of :attr:`sets` that count (a failure at a larger table leaves
    the others' game out)."""

    @property
    def adjusted_interval(self) -> tuple[float, float] | None:
        """The adjusted score's 95 % interval, None where there is no adjusted score."""
        return adjusted_interval(self.adjusted) if self.adjusted and self.adjusted.sets else None

    @property
    def adjusted_elo(self) -> tuple[float, float] | None:
        """The adjusted score's Elo and its ± error (95 %)."""
        return (adjusted_elo_with_error(self.adjusted) if self.adjusted and self.adjusted.sets
                else None)

    @property
    def match(self) -> MatchScore:
        return MatchScore(self.wins, self.draws, self.losses)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return self.match.score

    @property
    def interval(self) -> tuple[float, float]:
        """The score's 95 % interval, over the duplicate sets (:attr:`sets`)."""
        return (sets_interval(self.sets, self.set_sizes) if self.sets
                else score_interval(self.match))

    @property
    def elo(self) -> tuple[float, float]:
        """Elo difference and its ± error (95 %), from :attr:`interval`."""
        return elo_and_error(self.score, self.interval)

    @property
    def los(self) -> float:
        """The likelihood of superiority, over the duplicate sets."""
        return (sets_likelihood_of_superiority(self.sets, self.set_sizes) if self.sets
                else likelihood_of_superiority(self.match))


@dataclass(frozen=True)
class ProgressPoint:
    """A bot's rating right after its ``games``-th game of the tournament."""

    games: int
    mu: float
    sigma: float


@dataclass(frozen=True)
class VersionPoint:
    """A bot version's all-time rating after one tournament it played in."""

    tournament: int
    """Position of the tournament among the game's tournaments (oldest first)."""
    rating: Rating
    games: int


@dataclass(frozen=True)
class VersionHistory:
    """All-time ratings across the database's tournaments of the game."""

    tournaments: tuple[str, ...]
    """The tournaments of the game (and variant) that a version of these bots played in,
    the oldest first."""
    current: int
    """Position of this report's tournament in ``tournaments``."""
    series: Mapping[tuple[str, str], tuple[VersionPoint, ...]]
    """(name, version) -> one point per tournament that version played in."""


@dataclass
class Counts:
    """Seat statuses and game terminations of a bot's games."""

    statuses: Counter[str] = field(default_factory=Counter)
    terminations: Counter[str] = field(default_factory=Counter)

    @property
    def failures(self) -> int:
        return sum(n for status, n in self.statuses.items() if status != OK)


@dataclass(frozen=True)
class FailureGroup:
    """Identical failures of one bot (same status, same detail up to its numbers) and the
    numbers of the games they lost."""

    status: str
    detail: str
    """The detail of the first of these games: a summary line (``act() raised KeyError:
    'x'``), then the bot's traceback or, after a ``--- stderr ---`` line, its stderr."""
    games: tuple[int, ...]
    same_text: bool = True
    """False when the details differ in their numbers (times, line numbers, addresses)."""

    @property
    def summary(self) -> str:
        return self.detail.strip().partition("\n")[0] or f"no detail was recorded ({self.status})"

    @property
    def body(self) -> str:
        """The detail after its summary line: traceback and stderr, or empty."""
        return self.detail.strip().partition("\n")[2].strip("\n")

    @property
    def has_stderr(self) -> bool:
        return STDERR_MARK in self.detail


@dataclass(frozen=True)
class ReportModel:
    """Everything a report shows about one tournament."""

    tournament: TournamentRow
    config: TournamentConfig
    bots: tuple[Bot, ...]
    rows: tuple[GameRow, ...]
    total: int
    standings: tuple[BotResults, ...]
    ratings: RatingTable
    progress: Mapping[int, tuple[ProgressPoint, ...]]
    pairs: Mapping[tuple[int, int], PairResult]
    counts: Mapping[int, Counts]
    terminations: Counter[str]
    history: VersionHistory
    isolations: Mapping[int, str] = field(default_factory=dict)
    """Per entrant: how its bot was isolated in its games (``sandbox``, ``process``, …)."""
    failures: Mapping[int, tuple[FailureGroup, ...]] = field(default_factory=dict)
    """Per entrant that failed in any game: its failures, most frequent first."""
    luck_model: str = ""
    """The value model whose luck accounting adjusts the pair scores ("" where none did)."""

    @property
    def settings(self) -> RatingSettings:
        return self.config.ratings

    @property
    def identities(self) -> list[BotIdentity]:
        return [bot.identity for bot in self.bots]

    def rating(self, index: int) -> Rating:
        return self.ratings.get(index)

    def rated_games(self, index: int) -> int:
        return self.ratings.games.get(index, 0)

    def rating_order(self) -> list[Bot]:
        """Entrants best first by μ − 3σ (then by standings place); bots without a rated
        game (a bye alone) last, as ``arena ratings`` lists them."""
        place = {r.index: p for p, r in enumerate(self.standings)}
        return sorted(self.bots, key=lambda b: (not self.rated_games(b.index),
                                                -self.rating(b.index).conservative,
                                                place[b.index]))

    def standings_order(self) -> list[Bot]:
        return [self.bots[r.index] for r in self.standings]

    @property
    def is_swiss(self) -> bool:
        return self.config.format == "swiss"

    @property
    def is_ladder(self) -> bool:
        return self.config.format == LADDER_FORMAT


def build_model(store: Store, tournament: TournamentRow, *, luck: LuckSource | None = None,
                workers: int = 0, progress: Progress | None = None) -> ReportModel:
    """Read the tournament's games once and compute every number of its reports; with
    ``luck``, the pairs' luck-adjusted scores too (games accounted for where needed)."""
    config = stored_config(tournament)
    bots = entrant_bots(store, tournament)
    rows = tuple(store.games(tournament.id))
    two_seat = [row.key for row in rows if len(row.seats) == 2]  # the only ones a pair shows
    model_name, luck_by_key = (
        tournament_luck(store, tournament.id, two_seat, source=luck, workers=workers,
                        progress=progress) if luck and two_seat else ("", {}))
    labels = [bot.label for bot in bots]
    table, ratings_progress = tournament_ratings(rows, config.ratings)
    counts, terminations = count_endings(rows, len(bots))
    ranked = standings(store, tournament.id, labels, config)
    if config.format == LADDER_FORMAT:  # bots play different numbers of games: by rating
        ranked.sort(key=lambda result: -table.get(result.index).conservative)
    return ReportModel(
        tournament=tournament, config=config, bots=bots, rows=rows,
        total=len(rows) if config.format == LADDER_FORMAT else total_games(config),
        standings=tuple(ranked),
        ratings=table, progress=ratings_progress,
        pairs=pair_results(rows, luck_by_key), counts=counts,
        terminations=terminations,
        history=version_history(store, tournament, bots, config.ratings),
        isolations=isolation_of_bots(rows),
        failures=failure_groups(lambda row: seat_details(store, tournament.id, row), rows),
        luck_model=model_name)


def entrant_bots(store: Store, tournament: TournamentRow) -> tuple[Bot, ...]:
    stored = {bot.id: bot for bot in store.bots(tournament.game)}
    return tuple(Bot(index, bot_id, shown_identity(stored[bot_id]), bot_colour(index))
                 for index, bot_id in enumerate(store.entrants(tournament.id)))


def shown_identity(bot: StoredBot) -> BotIdentity:
    """The bot's identity as the report and its CSV files show it: a later revision's
    version with its revision (``1.0+3f2a9c``), so that ``name@version`` is its label."""
    return dataclasses.replace(bot.identity, version=bot.label[len(bot.identity.name) + 1:])


def rated_games(rows: Sequence[GameRow]) -> list[RatedGame]:
    """The games as rating input: players are entrant positions, in the order given."""
    return [RatedGame(tuple(row.seats), tuple(row.ranks), failed_seats(row.statuses))
            for row in rows]


def tournament_ratings(rows: Sequence[GameRow], settings: RatingSettings,
                       ) -> tuple[RatingTable, dict[int, tuple[ProgressPoint, ...]]]:
    """The tournament's own ratings and each bot's rating after each of its games."""
    progress: dict[int, list[ProgressPoint]] = {}

    def follow(_index: int, game: RatedGame, table: RatingTable) -> None:
        for player in game.players:
            rating = table.ratings[player]
            progress.setdefault(player, []).append(
                ProgressPoint(table.games[player], rating.mu, rating.sigma))

    table = rate_games(rated_games(rows), make_rater(settings), follow)
    return table, {bot: _thin(points) for bot, points in progress.items()}


def _thin(points: list[ProgressPoint]) -> tuple[ProgressPoint, ...]:
    """At most about MAX_PROGRESS_POINTS points, always keeping the last."""
    step = math.ceil(len(points) / MAX_PROGRESS_POINTS)
    kept = points[::step]
    if kept[-1] is not points[-1]:
        kept.append(points[-1])
    return tuple(kept)


def pair_results(rows: Sequence[GameRow], luck: Mapping[str, tuple[float, ...]] | None = None
                 ) -> dict[tuple[int, int], PairResult]:
    """Ordered pairs of bots that met: wins, draws, losses of the first by their ranks;
    with ``luck`` (by game key), the luck-adjusted score of their two-seat games.

    At larger tables a seat's luck is shared among all its opponents, so no pair's own
    adjusted score follows from it: pairs that met only there have none.
    """
    tally: dict[tuple[int, int], list[int]] = {}
    by_set: dict[tuple[int, int], dict[SetKey, list[float]]] = {}
    for number, row in enumerate(rows, 1):
        failed = failed_seats(row.statuses)
        where = (0, row.round, row.table, row.set)
        for a, bot_a in enumerate(row.seats):
            for b, bot_b in enumerate(row.seats):
                if bot_a == bot_b or not compared(a, b, failed, len(row.seats)):
                    continue
                counts = tally.setdefault((bot_a, bot_b), [0, 0, 0, number])
                rank_a, rank_b = row.ranks[a], row.ranks[b]
                outcome = 0 if rank_a < rank_b else 1 if rank_a == rank_b else 2
                counts[outcome] += 1
                by_set.setdefault((bot_a, bot_b), {}).setdefault(where, []).append(
                    1.0 - outcome / 2)
    adjusted = _adjusted_pairs(rows, luck) if luck else {}
    return {pair: PairResult(pair[0], pair[1], counts[0], counts[1], counts[2],
                             adjusted.get(pair), counts[3], *sets_of(by_set[pair].values()))
            for pair, counts in tally.items()}


SetKey = tuple[int, int, int, int]


def _adjusted_pairs(rows: Sequence[GameRow], luck: Mapping[str, tuple[float, ...]]
                    ) -> dict[tuple[int, int], AdjustedScore]:
    raw: dict[tuple[int, int], dict[SetKey, list[float]]] = {}
    adjusted: dict[tuple[int, int], dict[SetKey, list[float]]] = {}
    for row in rows:
        if len(row.seats) != 2 or row.seats[0] == row.seats[1]:
            continue
        points = game_points(row.ranks)
        where = (0, row.round, row.table, row.set)
        for seat, bot in enumerate(row.seats):
            pair = (bot, row.seats[1 - seat])
            raw.setdefault(pair, {}).setdefault(where, []).append(points[seat])
            if row.key in luck:
                adjusted.setdefault(pair, {}).setdefault(where, []).append(
                    points[seat] - luck[row.key][seat])
    return {pair: adjusted_score(raw[pair], sets) for pair, sets in adjusted.items()}


def isolation_of_bots(rows: Sequence[GameRow]) -> dict[int, str]:
    """Each entrant's isolation levels over its games, e.g. ``sandbox``; empty if unknown."""
    levels: dict[int, set[str]] = {}
    for row in rows:
        for seat, bot in enumerate(row.seats):
            if seat < len(row.isolations) and row.isolations[seat]:
                levels.setdefault(bot, set()).add(row.isolations[seat])
    return {bot: ", ".join(sorted(found)) for bot, found in levels.items()}


def count_endings(rows: Sequence[GameRow], bots: int) -> tuple[dict[int, Counts], Counter[str]]:
    """Seat statuses and terminations per bot, and the terminations of all games."""
    counts = {index: Counts(Counter(dict.fromkeys(SEAT_STATUSES, 0))) for index in range(bots)}
    terminations: Counter[str] = Counter()
    for row in rows:
        terminations[row.termination] += 1
        for seat, bot in enumerate(row.seats):
            counts[bot].statuses[row.statuses[seat]] += 1
            counts[bot].terminations[row.termination] += 1
    return counts, terminations


def version_history(store: Store, tournament: TournamentRow, bots: Sequence[Bot],
                    settings: RatingSettings) -> VersionHistory:
    """All-time μ − 3σ after each tournament of every version of this tournament's bots,
    over the tournaments (of its game and variant) that any of those versions played in."""
    variant = variant_of(tournament)
    result = all_time(store, tournament.game, settings, variant)
    names = {bot.name for bot in bots}
    versions = {bot.id: shown_identity(bot) for bot in store.bots(tournament.game)
                if bot.identity.name in names}
    points = list(after_each_tournament(store, tournament.game, versions, result, variant))
    played = {point.tournament.id for point in points} | {tournament.id}
    tournaments = [row for row in tournaments_of(store, tournament.game, variant)
                   if row.id in played]
    position = {row.id: index for index, row in enumerate(tournaments)}
    series: dict[tuple[str, str], list[VersionPoint]] = {}
    for point in points:
        key = (versions[point.bot].name, versions[point.bot].version)
        series.setdefault(key, []).append(VersionPoint(position[point.tournament.id],
                                                       point.rating, point.games))
    return VersionHistory(tuple(row.name for row in tournaments), position[tournament.id],
                          {key: tuple(found) for key, found in series.items()})



# -- failures ----------------------------------------------------------------------------


def seat_details(store: Store, tournament: int, row: GameRow) -> Sequence[str]:
    """Each seat's failure detail in game ``row``: from the row where the store keeps them
    there, else from the game's record."""
    if any(row.details):
        return row.details
    try:
        return [seat.detail for seat in store.record(tournament, row.key).seats]
    except StoreError as exc:
        return [str(exc)] * len(row.seats)


def failure_groups(details: Callable[[GameRow], Sequence[str]], rows: Sequence[GameRow],
                   ) -> dict[int, tuple[FailureGroup, ...]]:
    """Per bot, its failed seats grouped by status and detail, most frequent first.

    Details that differ only in their numbers (a timeout's seconds, a line number, an
    address) count as the same failure; only the games of failed seats are read.
    """
    found: dict[tuple[int, str, str], list[tuple[int, str]]] = {}
    for number, row in enumerate(rows, 1):
        if all(status == OK for status in row.statuses):
            continue
        texts = details(row)
        for seat, status in enumerate(row.statuses):
            if status != OK:
                text = texts[seat] if seat < len(texts) else ""
                key = (row.seats[seat], status, failure_shape(text))
                found.setdefault(key, []).append((number, text))
    groups: dict[int, list[FailureGroup]] = {}
    for (bot, status, _shape), games in found.items():
        groups.setdefault(bot, []).append(FailureGroup(
            status, games[0][1], tuple(number for number, _ in games),
            same_text=len({text for _, text in games}) == 1))
    return {bot: tuple(sorted(found_groups, key=lambda g: (-len(g.games), g.games[0])))
            for bot, found_groups in sorted(groups.items())}
