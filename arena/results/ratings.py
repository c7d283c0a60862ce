"""Ratings: TrueSkill (or openskill's Weng-Lin) over stored games, in a fixed order.

Every rating is computed in the parent process from the games alone, always in
the same canonical order — by tournament (oldest first), then round, table,
set and seat rotation — so the same results always give the same ratings,
whatever order the workers finished the games in. Two-player games and
free-for-all tables are both rated from the games' ranks; equal ranks are ties.

TrueSkill runs through an explicit ``trueskill.TrueSkill`` environment, never
the module's global one. The default ``tau`` is near zero because bots do not
change between games, and ``draw_probability`` is above zero because Seasons
can end 60-60 and Sonnentau tables share ranks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import trueskill

from arena.games.base import ArenaError

SYSTEMS = ("trueskill", "openskill")
DEFAULT_MU = 25.0
DEFAULT_SIGMA = DEFAULT_MU / 3


class RatingSettingsError(ArenaError, ValueError):
    """Rating parameters that cannot be used."""


@dataclass(frozen=True)
class RatingSettings:
    """The rating system and its constants (the ``ratings:`` section of a config)."""

    system: str = "trueskill"
    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA
    beta: float = DEFAULT_SIGMA / 2
    tau: float = DEFAULT_SIGMA / 1000
    draw_probability: float = 0.05

    def __post_init__(self) -> None:
        if self.system not in SYSTEMS:
            raise RatingSettingsError(
                f"rating system must be one of {', '.join(SYSTEMS)}, not {self.system!r}")
        if not 0 < self.draw_probability < 1:
            raise RatingSettingsError("draw_probability must be above 0 and below 1")
        if self.sigma <= 0 or self.beta <= 0 or self.tau < 0:
            raise RatingSettingsError("sigma and beta must be positive, tau not negative")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> RatingSettings:
        known = set(cls.__dataclass_fields__)
        unknown = set(data) - known
        if unknown:
            raise RatingSettingsError(f"unknown rating setting(s): {', '.join(sorted(unknown))}"
                                      f"; known: {', '.join(sorted(known))}")
        values = {k: (str(v) if k == "system" else float(v)) for k, v in data.items()}
        return cls(**values)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """μ − 3σ: a rating the bot is very likely to be above."""
        return self.mu - 3 * self.sigma


class Rater(Protocol):
    """A rating system: a starting rating and an update from one game's ranks."""

    system: str

    def initial(self) -> Rating: ...

    def rate(self, ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]: ...


class TrueSkillRater:
    system = "trueskill"

    def __init__(self, settings: RatingSettings) -> None:
        self.env = trueskill.TrueSkill(mu=settings.mu, sigma=settings.sigma, beta=settings.beta,
                                       tau=settings.tau,
                                       draw_probability=settings.draw_probability)

    def initial(self) -> Rating:
        return Rating(self.env.mu, self.env.sigma)

    def rate(self, ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
        teams = [(self.env.create_rating(r.mu, r.sigma),) for r in ratings]
        rated = self.env.rate(teams, ranks=list(ranks))
        return [Rating(team[0].mu, team[0].sigma) for team in rated]


class OpenSkillRater:
    """openskill's Plackett-Luce model (Weng-Lin), much faster than TrueSkill."""

    system = "openskill"

    def __init__(self, settings: RatingSettings) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce(mu=settings.mu, sigma=settings.sigma, beta=settings.beta,
                                  tau=settings.tau)
        self.settings = settings

    def initial(self) -> Rating:
        return Rating(self.settings.mu, self.settings.sigma)

    def rate(self, ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
        teams = [[self.model.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
        rated = self.model.rate(teams, ranks=[float(r) for r in ranks])
        return [Rating(team[0].mu, team[0].sigma) for team in rated]


def make_rater(settings: RatingSettings | None = None) -> Rater:
    settings = settings or RatingSettings()
    return TrueSkillRater(settings) if settings.system == "trueskill" else OpenSkillRater(settings)


@dataclass(frozen=True)
class RatedGame:
    """What rating needs of a game: who sat where (any hashable ids), the ranks, and the
    seats whose failure ended it early (a forfeit), if any did."""

    players: tuple[Any, ...]
    ranks: tuple[int, ...]
    failed: tuple[int, ...] = ()


def compared(a: int, b: int, failed: Sequence[int], seats: int) -> bool:
    """Whether seats ``a`` and ``b`` of a game compare by their ranks: always, except at a
    larger table that a forfeit stopped before it was decided (at Sonnentau's start it ranks
    all the others first): there a failed seat lost to each other seat, and nothing is
    known between two that did not fail, nor between two that did."""
    return not failed or seats == 2 or ((a in failed) != (b in failed))


@dataclass
class RatingTable:
    """Current ratings and games counted per player."""

    rater: Rater
    ratings: dict[Any, Rating] = field(default_factory=dict)
    games: dict[Any, int] = field(default_factory=dict)

    def get(self, player: Any) -> Rating:
        return self.ratings.get(player) or self.rater.initial()

    def add(self, game: RatedGame) -> None:
        if game.failed and len(game.players) > 2:
            updated = self._forfeit(game.players, game.failed)
        else:
            updated = self.rater.rate([self.get(p) for p in game.players], game.ranks)
        for player, rating in zip(game.players, updated, strict=True):
            self.ratings[player] = rating
            self.games[player] = self.games.get(player, 0) + 1

    def _forfeit(self, players: Sequence[Any], failed: Sequence[int]) -> list[Rating]:
        """A forfeit at a larger table as each failed seat's loss to each other seat, nothing
        between two others or two failed seats: a seat beats the failed ones, and a failed
        seat loses to the others, each against the ratings before the game, in the order
        of those ratings (weakest first), so that where they sat does not matter."""
        before = [self.get(p) for p in players]
        updated = list(before)

        def by_rating(seats: Iterable[int]) -> list[int]:
            return sorted(seats, key=lambda seat: (before[seat].mu, before[seat].sigma))

        others = by_rating(seat for seat in range(len(players)) if seat not in failed)
        losers = by_rating(failed)
        for seat in others:
            for loser in losers:
                updated[seat] = self.rater.rate([updated[seat], before[loser]], (0, 1))[0]
        for loser in failed:
            for seat in others:
                updated[loser] = self.rater.rate([before[seat], updated[loser]], (0, 1))[1]
        return updated

    def leaderboard(self) -> list[tuple[Any, Rating]]:
        """Best first by μ − 3σ."""
        return sorted(self.ratings.items(), key=lambda item: -item[1].conservative)


def rate_games(games: Iterable[RatedGame], rater: Rater,
               on_game: Callable[[int, RatedGame, RatingTable], None] | None = None,
               ) -> RatingTable:
    """Rate ``games`` in the order given; ``on_game(index, game, table)`` follows along."""
    table = RatingTable(rater)
    for index, game in enumerate(games):
        if len(set(game.players)) != len(game.players):
            continue  # a bot against itself tells nothing about its strength
        table.add(game)
        if on_game is not None:
            on_game(index, game, table)
    return table
