"""How two bot versions do against each other: score, Elo, LOS, pentanomial, SPRT.

From games in which the two met at a two-seat table: the stored ones
(:func:`stored_comparison`), or any given (:func:`summarise`; new games are
played by :func:`arena.tournaments.matches.play_comparison`). Seat-swapped
games on one seed form the pairs of the pentanomial statistics.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from arena.games.base import ArenaError
from arena.results.standings import game_points
from arena.results.stats import (
    MatchScore,
    Pentanomial,
    SprtResult,
    SprtSettings,
    elo_difference,
    elo_with_error,
    likelihood_of_superiority,
    pentanomial_elo_with_error,
    pentanomial_from_pairs,
    score_interval,
    sprt,
)
from arena.results.store import PlayedGame, Store, StoredBot

SWEEP_CHANCE = 0.05
"""A clean sweep's Elo bound: the strength at which a sweep would be this unlikely."""


@dataclass(frozen=True)
class Comparison:
    first: str
    second: str
    score: MatchScore
    pairs: Pentanomial
    sprt: SprtResult | None = None

    def lines(self) -> list[str]:
        ms = self.score
        low, high = score_interval(ms)
        elo, error = elo_with_error(ms)
        lines = [f"{self.first} vs {self.second}: {ms.games} games, "
                 f"+{ms.wins} ={ms.draws} -{ms.losses} (wins, draws, losses of "
                 f"{self.first})",
                 f"  score {100 * ms.score:.1f}% (95% interval {100 * low:.1f}% to "
                 f"{100 * high:.1f}%), {elo_text(elo, error, ms.games)}, "
                 f"LOS {100 * likelihood_of_superiority(ms):.1f}%"]
        if self.pairs.pairs:
            pelo, perror = pentanomial_elo_with_error(self.pairs)
            counts = " ".join(map(str, self.pairs.counts))
            lines.append(f"  {self.pairs.pairs} seat-swapped pairs [LL LD DD/WL WD WW] = "
                         f"[{counts}], " + elo_text(pelo, perror, ms.games))
        if self.sprt is not None:
            r = self.sprt
            lines.append(f"  SPRT: LLR {r.llr:.3f} (bounds {r.lower:.3f}, {r.upper:.3f}): "
                         f"{r.verdict}")
        return lines


def elo_text(elo: float, error: float, games: int) -> str:
    """``Elo 35.2 ± 20.1``; where every one of ``games`` games was won (or lost) the
    difference has no estimate, only a one-sided 95% bound: the score ``p`` at which
    winning them all has a chance of 5% (``p ** games = 0.05``), ``Elo above +75 (…)``."""
    if math.isfinite(elo) and math.isfinite(error):
        return f"Elo {elo:.1f} ± {error:.1f}"
    bound = elo_difference(SWEEP_CHANCE ** (1 / max(games, 1)))
    if elo > 0:
        return f"Elo above {bound:+.0f} (every game won: no estimate, a 95% bound)"
    return f"Elo below {-bound:+.0f} (every game lost: no estimate, a 95% bound)"


def common_game(store: Store, *names: str) -> str:
    """The one game in which bots of every one of ``names`` are stored."""
    games = [g for g in sorted({b.game for b in store.bots()})
             if all(any(b.identity.name == n for b in store.bots(g)) for n in names)]
    if len(games) != 1:
        found = ", ".join(games) if games else "none"
        raise ArenaError(f"name the game with --game (games with both bots: {found})")
    return games[0]


def stored_comparison(store: Store, game: str, first: StoredBot, second: StoredBot,
                      settings: SprtSettings | None = None) -> Comparison:
    """The two versions' direct meetings at two-seat tables among the stored games."""
    games = [g for g in store.played_games(game)
             if len(g.bots) == 2 and set(g.bots) == {first.id, second.id}]
    return summarise(first.label, second.label, first.id, games, settings)


def summarise(first_label: str, second_label: str, first_id: int,
              games: Iterable[PlayedGame], settings: SprtSettings | None) -> Comparison:
    wins = draws = losses = 0
    by_set: dict[tuple[int, int, int, int], list[float]] = defaultdict(list)
    for game in games:
        points = game_points(game.ranks)[game.bots.index(first_id)]
        wins, draws, losses = (wins + (points == 1), draws + (points == 0.5),
                               losses + (points == 0))
        by_set[(game.tournament, game.round, game.table, game.set)].append(points)
    pairs = pentanomial_from_pairs(sum(p) for p in by_set.values() if len(p) == 2)
    score = MatchScore(wins, draws, losses)
    verdict = sprt(pairs, settings) if settings is not None else None
    return Comparison(first_label, second_label, score, pairs, verdict)
