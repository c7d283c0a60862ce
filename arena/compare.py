"""``arena compare``: how two bot versions do against each other.

From the stored games in which the two met at a two-seat table, or by playing
new seat-swapped pairs (same seed, seats swapped) — a fixed number, or until a
sequential probability ratio test (SPRT, on the pair-level pentanomial counts)
reaches a bound. New games are stored as a tournament of their own, so they
count in the ratings and a stopped comparison resumes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from arena.config import BotEntry, TournamentConfig
from arena.schedule import game_points
from arena.stats import (
    MatchScore,
    Pentanomial,
    SprtResult,
    SprtSettings,
    elo_with_error,
    likelihood_of_superiority,
    pentanomial_elo_with_error,
    pentanomial_from_pairs,
    score_interval,
    sprt,
)
from arena.store import PlayedGame, Store, StoredBot
from arena.tournament import Progress, RunReport, open_run, play_tasks, round_robin_tasks

SETS_PER_CHECK = 8


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
                 f"+{ms.wins} ={ms.draws} -{ms.losses}",
                 f"  score {100 * ms.score:.1f}% (95% interval {100 * low:.1f}% to "
                 f"{100 * high:.1f}%), Elo {_elo(elo)} ± {_elo(error)}, "
                 f"LOS {100 * likelihood_of_superiority(ms):.1f}%"]
        if self.pairs.pairs:
            pelo, perror = pentanomial_elo_with_error(self.pairs)
            counts = " ".join(map(str, self.pairs.counts))
            lines.append(f"  {self.pairs.pairs} seat-swapped pairs [LL LD DD/WL WD WW] = "
                         f"[{counts}], Elo {_elo(pelo)} ± {_elo(perror)}")
        if self.sprt is not None:
            r = self.sprt
            lines.append(f"  SPRT: LLR {r.llr:.3f} (bounds {r.lower:.3f}, {r.upper:.3f}): "
                         f"{r.verdict}")
        return lines


def _elo(value: float) -> str:
    return f"{value:.1f}" if abs(value) != float("inf") else ("inf" if value > 0 else "-inf")


def parse_version(text: str) -> tuple[str, str]:
    """``greedy@1.0`` → (``greedy``, ``1.0``)."""
    name, sep, version = text.rpartition("@")
    if not sep or not name or not version:
        from arena.games.base import ArenaError

        raise ArenaError(f"{text!r}: name a bot version as NAME@VERSION")
    return name, version


def stored_comparison(store: Store, game: str, first: StoredBot, second: StoredBot,
                      settings: SprtSettings | None = None) -> Comparison:
    """The two versions' direct meetings at two-seat tables among the stored games."""
    games = [g for g in store.played_games(game)
             if len(g.bots) == 2 and set(g.bots) == {first.id, second.id}]
    return summarise(first.identity.label, second.identity.label, first.id, games, settings)


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


def play_comparison(store: Store, game: str, first: StoredBot, second: StoredBot, *,
                    pairs: int, seed: int, workers: int, db: str,
                    settings: SprtSettings | None = None,
                    progress: Progress | None = None) -> Comparison:
    """Play up to ``pairs`` seat-swapped pairs (stopping early at an SPRT bound)."""
    config = TournamentConfig(
        name=f"compare {first.identity.label} vs {second.identity.label} seed {seed}"
             + (f" sprt {settings.elo0}/{settings.elo1}/{settings.alpha}/{settings.beta}"
                if settings else ""),
        game=game, bots=(_entry(first), _entry(second)), games_per_pairing=pairs,
        seed=seed, workers=workers, db=db)
    run = open_run(config, store)
    tasks = round_robin_tasks(config, run.entrants.labels)
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
