"""Two bot revisions compared through the games each played against the same opponents
on the same dice: a paired (duplicate) comparison, not a head-to-head one.

A game's dice follow the tournament's seed, the names and versions at its table and its
place in the schedule, so two revisions of one version entered in the same config (the
README's loop: edit the bot, run the config again) played every game on the same dice
against the same opponents. Where the first sat in a seat against opponents *O* on a seed
and the second sat in the same seat against the same *O* on the same seed (in the same
variant of the game), the first's points minus the second's is a paired difference: the
dice were the same, so their luck cancels except where different decisions met different
rolls. The games of one seed (a duplicate set) share their dice and are one independent
observation: the differences of a set are averaged.

Each set's observation is its *paired score*, ``1/2 + difference / 2`` (1 where the first
won every game the second lost, 1/2 where they did alike), so that the intervals, Elo
and LOS read as those of a head-to-head score; it is no head-to-head result, and a bot
that is better against these opponents need not be better against the other.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from arena.results.comparison import (
    WIDTH,
    GameLuck,
    adjusted_lines,
    elo_text,
    games_luck,
    wrapped,
)
from arena.results.luck_book import LuckSource
from arena.results.standings import game_points
from arena.results.stats import (
    AdjustedScore,
    luck_adjusted,
    mean_likelihood_of_superiority,
    mean_score_interval,
    set_units,
)
from arena.results.store import PlayedGame, Store, StoredBot
from arena.results.versions import variant_of

PAIRED_SWEEPS = ("better in every set", "worse in every set")
"""What a paired score of 100 % and one of 0 % mean."""
Arrangement = tuple[str, int, tuple[int | None, ...]]
"""(variant, seed, the bots by seat with None for the compared bot's seat)."""


@dataclass(frozen=True)
class PairedGame:
    """One arrangement both bots played: their mean points there and, where the games'
    luck was accounted for, their mean luck."""

    unit: tuple[str, int]
    """The duplicate set: (variant, seed)."""
    first: float
    second: float
    first_luck: float | None = None
    second_luck: float | None = None

    @property
    def difference(self) -> float:
        return self.first - self.second


@dataclass(frozen=True)
class CommonComparison:
    """The first bot against the second through the games each played against the same
    opponents on the same dice."""

    first: str
    second: str
    games: tuple[PairedGame, ...] = ()
    opponents: tuple[str, ...] = ()
    """The opponents of the paired games, by label."""
    shared: tuple[str, ...] = ()
    """The opponents both bots played at all, on the same dice or not."""
    adjusted: AdjustedScore | None = None
    model: str = ""

    @property
    def units(self) -> tuple[float, ...]:
        """Per duplicate set, in set order: the paired score, 1/2 + the mean difference / 2,
        weighed by the set's games where sets differ in size (:func:`set_units`: a set cut
        short), so that their mean is the games' paired score."""
        by_set: dict[tuple[str, int], list[float]] = defaultdict(list)
        for game in self.games:
            by_set[game.unit].append(game.difference)
        ordered = [d for _, d in sorted(by_set.items())]
        return tuple(set_units([0.5 + sum(d) / len(d) / 2 for d in ordered],
                               [len(d) for d in ordered]))

    @property
    def sets(self) -> int:
        return len({game.unit for game in self.games})

    @property
    def score(self) -> float:
        units = self.units
        return sum(units) / len(units) if units else 0.5

    def lines(self, width: int = WIDTH) -> list[str]:
        """The comparison as the terminal shows it, within ``width`` columns."""
        games = self.games
        better = sum(game.difference > 0 for game in games)
        worse = sum(game.difference < 0 for game in games)
        low, high = mean_score_interval(self.units)
        lines = [f"{self.first} vs {self.second} through common opponents, not "
                 f"head-to-head: each played the same {_count(len(games), 'game')} "
                 f"({_count(self.sets, 'duplicate set')}: the same dice, seats and opponents, "
                 f"{_names(self.opponents)})",
                 f"  {self.first} did better in {better}, the same in "
                 f"{len(games) - better - worse}, worse in {worse} of them",
                 f"  score difference {_points(2 * self.score - 1)} percentage points (95% "
                 f"interval {_points(2 * low - 1)} to {_points(2 * high - 1)})",
                 f"  paired score {100 * self.score:.1f}% (95% interval {100 * low:.1f}% to "
                 f"{100 * high:.1f}%), {elo_text(self.score, (low, high), PAIRED_SWEEPS)}, LOS "
                 f"{100 * mean_likelihood_of_superiority(self.units):.1f}%"]
        if self.adjusted is not None and self.adjusted.sets:
            lines += adjusted_lines(self.adjusted, self.model, name="paired score",
                                    sweeps=PAIRED_SWEEPS)
        return wrapped(lines, width)


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}" if number == 1 else f"{number} {thing}s"


def _points(difference: float) -> str:
    """A difference of scores (0 to 1) in percentage points: ``+5.0``."""
    return f"{100 * difference:+.1f}"


NAMED = 4
"""Opponents named in a comparison's text; more are counted."""


def _names(labels: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``; beyond :data:`NAMED`, ``a, b, c and 5 others``."""
    if len(labels) > NAMED:
        return f"{', '.join(labels[:NAMED - 1])} and {len(labels) - NAMED + 1} others"
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"


@dataclass
class _Seen:
    """One bot's games in one arrangement."""

    points: list[float] = field(default_factory=list)
    games: list[PlayedGame] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)


def common_opponents(store: Store, game: str, first: StoredBot, second: StoredBot, *,
                     luck: LuckSource | None = None, workers: int = 0,
                     variant: str | None = None,
                     stored: Iterable[PlayedGame] | None = None) -> CommonComparison:
    """The two revisions through their games against the same opponents on the same dice
    (games in which both sat are head-to-head, and left out), of one ``variant`` (its key)
    if given; with ``luck``, the paired differences of the luck-adjusted points too (the
    games accounted for where needed). ``stored``: the game's stored games, where the
    caller has them already."""
    variants = {t.id: variant_of(t).key for t in store.tournaments(game)}
    seen: dict[int, dict[Arrangement, _Seen]] = {first.id: {}, second.id: {}}
    for played in store.played_games(game) if stored is None else stored:
        if variant is not None and variants[played.tournament] != variant:
            continue
        present = [bot for bot in (first.id, second.id) if bot in played.bots]
        if len(present) != 1 or played.bots.count(present[0]) != 1:
            continue
        seat = played.bots.index(present[0])
        arrangement = (variants[played.tournament], played.seed,
                       tuple(None if s == seat else bot for s, bot in enumerate(played.bots)))
        games = seen[present[0]].setdefault(arrangement, _Seen())
        games.points.append(game_points(played.ranks)[seat])
        games.games.append(played)
        games.seats.append(seat)
    both = sorted(set(seen[first.id]) & set(seen[second.id]), key=str)
    labels = {bot.id: bot.label for bot in store.bots(game)}
    model, found = ("", None)
    if luck is not None and both:
        model, found = games_luck(store, [g for a in both for bot in seen.values()
                                          for g in bot[a].games], luck, workers)
    paired = tuple(_paired(a, seen[first.id][a], seen[second.id][a], found) for a in both)
    shared = _opponent_ids(seen[first.id]) & _opponent_ids(seen[second.id])
    return CommonComparison(first.label, second.label, paired,
                            _labels(labels, _opponent_ids(both)), _labels(labels, shared),
                            _adjusted(paired) if found is not None else None, model)


def _opponent_ids(arrangements: Iterable[Arrangement]) -> set[int]:
    return {bot for _, _, seats in arrangements for bot in seats if bot is not None}


def _labels(labels: Mapping[int, str], ids: Iterable[int]) -> tuple[str, ...]:
    return tuple(sorted(labels.get(bot, "?") for bot in ids))


def _paired(arrangement: Arrangement, first: _Seen, second: _Seen,
            luck: GameLuck | None) -> PairedGame:
    variant, seed, _ = arrangement
    return PairedGame((variant, seed), _mean(first.points), _mean(second.points),
                      _mean_luck(first, luck), _mean_luck(second, luck))


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _mean_luck(seen: _Seen, luck: GameLuck | None) -> float | None:
    if luck is None:
        return None
    found = [luck.get((g.tournament, g.key)) for g in seen.games]
    if any(values is None for values in found):
        return None
    return _mean([values[seat] for values, seat in zip(found, seen.seats, strict=True)
                  if values is not None])


def _adjusted(games: Sequence[PairedGame]) -> AdjustedScore:
    """The paired scores of the sets whose every game was accounted for, and the luck in
    them: half the first's luck minus the second's (their difference's)."""
    by_set: dict[tuple[str, int], list[PairedGame]] = defaultdict(list)
    for game in games:
        by_set[game.unit].append(game)
    points, luck, sizes = [], [], []
    for _, its_games in sorted(by_set.items()):
        lucks = [(g.first_luck, g.second_luck) for g in its_games]
        if any(a is None or b is None for a, b in lucks):
            continue
        points.append(0.5 + _mean([g.difference for g in its_games]) / 2)
        luck.append(_mean([(a or 0.0) - (b or 0.0) for a, b in lucks]) / 2)
        sizes.append(len(its_games))
    return luck_adjusted(points, luck, sum(sizes), sizes=sizes)


def without_pairs(comparison: CommonComparison, db: str, larger_tables: int = 0,
                  stopped: int = 0) -> str:
    """Why the stored games cannot compare the two bots, and what to do instead;
    ``larger_tables``: the games in which they met at tables of more than two and their
    places count against each other (as in pairs.csv), ``stopped`` those ended by another
    seat's failure, where they do not."""
    first, second = comparison.first, comparison.second
    if larger_tables or stopped:
        more = (f"; {stopped} more ended by another seat's failure, where their places are "
                "not compared" if stopped else "")
        return (f"{first} and {second} met only at tables of more than two seats "
                f"({larger_tables} games in {db}{more}), and compare reads two-seat games: their "
                "scores against each other there are in pairs.csv and the report's pair "
                "matrix; play them against each other with --games N, or --sprt")
    if comparison.shared:
        why = (f", and though both played {_names(comparison.shared)}, they never sat in "
               "the same seat against the same bots on the same dice in the same variant "
               "(a game's dice follow the config's seed and the names and versions at its "
               "table: another seed or version plays other dice; and games of other "
               "options or seat counts are not compared)")
    else:
        why = " and played no opponent in common"
    return (f"{first} and {second} have not met in {db}{why}; play them against each "
            "other with --games N, or --sprt")
