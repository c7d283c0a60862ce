"""How two bot versions do against each other: score, Elo, LOS, pentanomial, SPRT.

From games in which the two met at a two-seat table: the stored ones
(:func:`stored_comparison`), or any given (:func:`summarise`; new games are
played by :func:`arena.tournaments.matches.play_comparison`). Seat-swapped
games on one seed form the pairs of the pentanomial statistics.
"""

from __future__ import annotations

import math
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from arena.games.base import ArenaError, nearest
from arena.results.luck_book import LuckSource, tournament_luck
from arena.results.standings import game_points
from arena.results.stats import (
    AdjustedScore,
    MatchScore,
    Pentanomial,
    SprtResult,
    SprtSettings,
    adjusted_interval,
    elo_difference,
    elo_interval,
    likelihood_of_superiority,
    luck_adjusted,
    pentanomial_from_pairs,
    pentanomial_interval,
    score_interval,
    sets_interval,
    sets_likelihood_of_superiority,
    sets_of,
    sprt,
)
from arena.results.store import PlayedGame, Store, StoredBot
from arena.results.versions import Variant, first_plays, variant_of

GameLuck = Mapping[tuple[int, str], tuple[float, ...]]
"""Luck per seat by (tournament, game key)."""
WIDTH = 80
"""Columns a comparison's lines keep within."""


def wrapped(lines: Iterable[str], width: int = WIDTH) -> list[str]:
    """Each line within ``width`` columns, broken between words, what runs over indented
    two more than the line."""
    found: list[str] = []
    for line in lines:
        indent = " " * (len(line) - len(line.lstrip()))
        found += textwrap.wrap(line.strip(), width, initial_indent=indent,
                               subsequent_indent=indent + "  ", break_on_hyphens=False,
                               break_long_words=False)
    return found


@dataclass(frozen=True)
class Comparison:
    first: str
    second: str
    score: MatchScore
    pairs: Pentanomial
    sprt: SprtResult | None = None
    adjusted: AdjustedScore | None = None
    """The luck-adjusted score, where the games' luck was accounted for."""
    model: str = ""
    """The value model of the luck accounting."""
    sets: tuple[float, ...] = ()
    """The first bot's mean points in each duplicate set (the games on one seed): the
    independent observations of the score's interval and LOS."""
    set_sizes: tuple[int, ...] = ()
    """The games of each of :attr:`sets`."""

    @property
    def interval(self) -> tuple[float, float]:
        """The score's 95 % interval, over the duplicate sets."""
        return (sets_interval(self.sets, self.set_sizes) if self.sets
                else score_interval(self.score))

    @property
    def los(self) -> float:
        return (sets_likelihood_of_superiority(self.sets, self.set_sizes) if self.sets
                else likelihood_of_superiority(self.score))

    def lines(self, width: int = WIDTH) -> list[str]:
        """The comparison as the terminal shows it, within ``width`` columns."""
        ms = self.score
        low, high = self.interval
        over = (f" over {len(self.sets)} duplicate sets" if len(self.sets) > 1
                and len(self.sets) < ms.games else "")
        lines = [f"{self.first} vs {self.second}: {ms.games} games, "
                 f"+{ms.wins} ={ms.draws} -{ms.losses} (wins, draws, losses of "
                 f"{self.first})",
                 f"  score {100 * ms.score:.1f}% (95% interval {100 * low:.1f}% to "
                 f"{100 * high:.1f}%{over}), {elo_text(ms.score, (low, high))}, "
                 f"LOS {100 * self.los:.1f}%"]
        if self.pairs.pairs:
            counts = " ".join(map(str, self.pairs.counts))
            lines.append(f"  {self.pairs.pairs} seat-swapped "
                         f"{'pair' if self.pairs.pairs == 1 else 'pairs'} [LL LD DD/WL WD WW] = "
                         f"[{counts}], "
                         + elo_text(self.pairs.score, pentanomial_interval(self.pairs)))
        if self.adjusted is not None and self.adjusted.sets:
            lines += adjusted_lines(self.adjusted, self.model)
        if self.sprt is not None:
            r = self.sprt
            on = ", on the luck-adjusted sets" if sprt_on_adjusted(self.adjusted) else ""
            lines.append(f"  SPRT: LLR {r.llr:.3f} (bounds {r.lower:.3f}, {r.upper:.3f}): "
                         f"{r.verdict}{on}")
        return wrapped(lines, width)


RATIO_SETS = 10
"""Duplicate sets from which the variance the luck adjustment saves is shown: a ratio of
two variances from fewer is anything from a fraction to several times its value."""

SWEEPS = ("every game won", "every game lost")
"""What a score of 100 % and one of 0 % mean, where an Elo difference cannot be given."""


def adjusted_lines(adjusted: AdjustedScore, model: str, *, name: str = "score",
                   sweeps: tuple[str, str] = SWEEPS) -> list[str]:
    """The luck-adjusted score (called ``name``), Elo and the variance they save, for a
    comparison; where the adjusted mean lies outside 0-100 %, the raw sets' score, and a
    note why."""
    low, high = adjusted_interval(adjusted)
    score = (f"{name} {100 * adjusted.score:.1f}% (95% interval {100 * low:.1f}% to "
             f"{100 * high:.1f}%), {elo_text(adjusted.score, (low, high), sweeps)}")
    if adjusted.raw_stands:
        return [f"  luck-adjusted ({model}): {adjusted.raw_reason}, so the raw sets' "
                f"{name} stands:", f"    {score}"]
    lines = [f"  luck-adjusted ({model}): {score}"]
    ratio = adjusted.variance_ratio
    if adjusted.sets < RATIO_SETS:
        lines.append(f"    (the variance it saves is shown from {RATIO_SETS} duplicate sets on:"
                     f" {adjusted.sets} cannot tell it)")
    elif math.isfinite(ratio):
        lines.append(f"    variance {ratio:.2f}× the raw one over {adjusted.sets} duplicate "
                     f"sets: the same certainty from {100 * ratio:.0f}% of the games "
                     f"({100 * adjusted.scale:.0f}% of the accounted luck taken out)")
    return lines


def elo_text(score: float, interval: tuple[float, float],
             sweeps: tuple[str, str] = SWEEPS) -> str:
    """``Elo 35.2 ± 20.1`` (half the width of the 95 % ``interval`` in Elo, as cutechess);
    where the interval reaches 0 % or 100 % the open side is said, and where every game
    was won (or lost) the difference has no estimate, only the interval's bound:
    ``Elo above +75 (every game won: …)``, in the words of ``sweeps``."""
    elo = elo_difference(score)
    low, high = elo_interval(interval)
    if math.isfinite(elo) and math.isfinite(low) and math.isfinite(high):
        return f"Elo {elo:.1f} ± {(high - low) / 2:.1f}"
    if math.isfinite(elo):
        if math.isfinite(low):
            return f"Elo {elo:+.1f} (95% interval from {low:+.0f}, no bound above)"
        if math.isfinite(high):
            return f"Elo {elo:+.1f} (95% interval up to {high:+.0f}, no bound below)"
        return f"Elo {elo:+.1f} (too few games or duplicate sets for a 95% interval)"
    won = elo > 0
    bound = low if won else high
    every = sweeps[0] if won else sweeps[1]
    if not math.isfinite(bound):
        return f"Elo: no estimate ({every}, too few games for a bound)"
    side = "above" if won else "below"
    end = "lower" if won else "upper"
    return f"Elo {side} {bound:+.0f} ({every}: no estimate, the {end} end of its 95% interval)"


def common_game(store: Store, *names: str) -> str:
    """The one game in which bots of every one of ``names`` are stored; an ArenaError that
    says which name is stored nowhere, and how a bot gets stored, if one is not."""
    stored = sorted({b.identity.name for b in store.bots()})
    for name in names:
        if name not in stored:
            raise ArenaError(unknown_bot(name, stored, store.path))
    games = [g for g in sorted({b.game for b in store.bots()})
             if all(any(b.identity.name == n for b in store.bots(g)) for n in names)]
    if len(games) != 1:
        found = ", ".join(games) if games else "none"
        raise ArenaError(f"name the game with --game (games with both bots: {found})")
    return games[0]


def unknown_bot(name: str, stored: Sequence[str], db: object) -> str:
    """What to say of a bot name that no stored bot has."""
    if "/" in name or name.endswith((".py", ".sh")):
        first = f"compare takes the names of stored bots, not files ({name!r})"
    else:
        first = f"no bot named {name!r} in {db}" + nearest(name, stored)
    return (f"{first}; a bot is stored once it has played in a tournament there; put it in "
            "a config's bots and `arena run` it (for two of the shipped bots: `arena run "
            "configs/seasons-round-robin.yaml`)")


def stored_comparison(store: Store, game: str, first: StoredBot, second: StoredBot,
                      settings: SprtSettings | None = None, *,
                      luck: LuckSource | None = None, workers: int = 0) -> Comparison:
    """The two versions' direct meetings at two-seat tables among the stored games, each
    counted once (:func:`first_plays`); with ``luck``, also their luck-adjusted score
    (the games accounted for where needed)."""
    return _compared(store, game, first, second, _meetings(store.played_games(game), first,
                                                            second), settings, luck, workers)


def stored_comparisons(store: Store, game: str, first: StoredBot, second: StoredBot, *,
                       luck: LuckSource | None = None, workers: int = 0,
                       played: Iterable[PlayedGame] | None = None
                       ) -> list[tuple[Variant, Comparison]]:
    """:func:`stored_comparison` for each variant of the game (players and options) in
    which the two met, the oldest first: games of other rules are not pooled. ``played``:
    the game's stored games, where the caller has them already."""
    variants = {t.id: variant_of(t) for t in store.tournaments(game)}
    by_variant: dict[str, list[PlayedGame]] = {}
    for played_game in _meetings(store.played_games(game) if played is None else played,
                                 first, second):
        by_variant.setdefault(variants[played_game.tournament].key, []).append(played_game)
    shown = {variant.key: variant for variant in variants.values()}
    return [(shown[key], _compared(store, game, first, second, games, None, luck, workers))
            for key, games in by_variant.items()]


def _meetings(played: Iterable[PlayedGame], first: StoredBot, second: StoredBot
              ) -> list[PlayedGame]:
    """The games in which the two sat at a table of two."""
    return [g for g in played if len(g.bots) == 2 and set(g.bots) == {first.id, second.id}]


def _compared(store: Store, game: str, first: StoredBot, second: StoredBot,
              meetings: Sequence[PlayedGame], settings: SprtSettings | None,
              luck: LuckSource | None, workers: int) -> Comparison:
    games = first_plays(store, game, meetings)
    model, found = games_luck(store, games, luck, workers) if luck else ("", None)
    return summarise(first.label, second.label, first.id, games, settings, found, model)


def games_luck(store: Store, games: Sequence[PlayedGame], source: LuckSource,
               workers: int = 0) -> tuple[str, GameLuck | None]:
    """(model name, luck by game) of stored games; ``("", None)`` where the game has no
    value model."""
    keys: dict[int, list[str]] = defaultdict(list)
    for game in games:
        keys[game.tournament].append(game.key)
    names: set[str] = set()
    found: dict[tuple[int, str], tuple[float, ...]] = {}
    for tournament, its_keys in keys.items():
        name, luck = tournament_luck(store, tournament, its_keys, source=source,
                                     workers=workers)
        if not name:
            return "", None
        names.add(name)
        found.update(((tournament, key), values) for key, values in luck.items())
    return ", ".join(sorted(names)), found


def summarise(first_label: str, second_label: str, first_id: int,
              games: Iterable[PlayedGame], settings: SprtSettings | None,
              luck: GameLuck | None = None, model: str = "") -> Comparison:
    """Score, pairs and SPRT of the first bot in ``games``; with ``luck``, the adjusted
    score too, and the SPRT runs on it."""
    wins = draws = losses = 0
    by_set: dict[tuple[int, int, int, int], list[float]] = defaultdict(list)
    adjusted_by_set: dict[tuple[int, int, int, int], list[float]] = defaultdict(list)
    for game in games:
        seat = game.bots.index(first_id)
        points = game_points(game.ranks)[seat]
        wins, draws, losses = (wins + (points == 1), draws + (points == 0.5),
                               losses + (points == 0))
        where = (game.tournament, game.round, game.table, game.set)
        by_set[where].append(points)
        if luck is not None and (game.tournament, game.key) in luck:
            adjusted_by_set[where].append(points - luck[game.tournament, game.key][seat])
    pairs = pentanomial_from_pairs(sum(p) for p in by_set.values() if len(p) == 2)
    score = MatchScore(wins, draws, losses)
    adjusted = (adjusted_score(by_set, adjusted_by_set) if luck is not None else None)
    tested: MatchScore | Pentanomial | AdjustedScore = (
        adjusted if adjusted is not None and sprt_on_adjusted(adjusted) else pairs)
    verdict = sprt(tested, settings) if settings is not None else None
    return Comparison(first_label, second_label, score, pairs, verdict, adjusted, model,
                      *sets_of(by_set.values()))


def sprt_on_adjusted(adjusted: AdjustedScore | None) -> bool:
    """Whether the SPRT tests the luck-adjusted sets: where there are some, and their score
    stands (not where the raw sets' does, :attr:`AdjustedScore.raw_stands`)."""
    return adjusted is not None and adjusted.sets > 0 and not adjusted.raw_stands


def adjusted_score(raw: Mapping[tuple[int, int, int, int], list[float]],
                   adjusted: Mapping[tuple[int, int, int, int], list[float]]) -> AdjustedScore:
    """The adjusted score over the sets whose every game was accounted for, in set order."""
    complete = sorted(where for where, points in adjusted.items()
                      if len(points) == len(raw[where]))
    points = [sum(raw[w]) / len(raw[w]) for w in complete]
    luck = [(sum(raw[w]) - sum(adjusted[w])) / len(raw[w]) for w in complete]
    return luck_adjusted(points, luck, sum(len(adjusted[w]) for w in complete),
                         sizes=[len(raw[w]) for w in complete])
