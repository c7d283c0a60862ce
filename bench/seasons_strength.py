"""Benchmark: playing strength of the Seasons bots in a seat-balanced round-robin.

Plays ``expectimax``, ``greedy``, ``greedy-keep`` (greedy that never re-rolls)
and ``random`` against each other through arena's own tournament machinery
(:func:`arena.tournaments.runner.run_tournament`, trusted bots, a throw-away results
database): every pairing plays ``--sets`` dice seeds in both seat orders, so
1,000 games per pairing by default. It prints

* each bot's TrueSkill rating over these games (mu, sigma, mu - 3 sigma), and
* each pairing's score for the first bot with 95 % intervals: from the
  seat-swapped pairs (pentanomial: the two games of a pair share their dice,
  which makes the interval honest and tight) and per game (trinomial).

Run from the repository root (about 4 minutes with 2 workers)::

    .venv/bin/python bench/seasons_strength.py [--sets 500] [--seed 2026] [--workers 2]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from arena.results.standings import game_points
from arena.results.stats import (
    MatchScore,
    pentanomial_from_pairs,
    pentanomial_interval,
    score_interval,
)
from arena.results.store import Store
from arena.results.versions import leaderboard
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "bots" / "seasons"


def make_config(sets: int, seed: int, workers: int, db: Path):
    bots = [
        str(BOTS / "expectimax.py"),
        str(BOTS / "greedy.py"),
        {"spec": str(BOTS / "greedy.py"), "name": "greedy-keep", "version": "1.0",
         "params": {"rerolls": False}},
        str(BOTS / "random_bot.py"),
    ]
    return parse_config({
        "name": f"seasons-strength-{seed}", "game": "seasons", "format": "round-robin",
        "bots": bots, "games_per_pairing": sets, "seed": seed, "workers": workers,
        "isolation": "none", "db": str(db), "output": str(db.parent / "reports"),
    }, source="bench/seasons_strength.py")


def pairing_lines(store: Store, tournament: int, labels: list[str]) -> list[str]:
    """One line per pairing: the first bot's score with 95 % intervals."""
    points = defaultdict(list)  # (a, b) -> first bot's points per game
    pairs = defaultdict(lambda: defaultdict(float))  # (a, b) -> set -> two-game points
    for game in store.games(tournament):
        a, b = sorted(game.seats)
        mine = game_points(game.ranks)[game.seats.index(a)]
        points[a, b].append(mine)
        pairs[a, b][game.round, game.table, game.set] += mine
    width = max(len(label) for label in labels)
    lines = []
    for (a, b), scores in sorted(points.items()):
        ms = MatchScore(scores.count(1.0), scores.count(0.5), scores.count(0.0))
        penta = pentanomial_from_pairs(pairs[a, b].values())
        low, high = pentanomial_interval(penta)
        game_low, game_high = score_interval(ms)
        lines.append(
            f"{labels[a]:>{width}} vs {labels[b]:<{width}}  {ms.games:5d} games "
            f"+{ms.wins} ={ms.draws} -{ms.losses}  score {100 * ms.score:5.1f}%  "
            f"95%: {100 * low:5.1f}-{100 * high:5.1f}% (pairs), "
            f"{100 * game_low:5.1f}-{100 * game_high:5.1f}% (games)")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=500,
                        help="dice seeds per pairing, each played in both seat orders")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    command = shlex.join([".venv/bin/python", "bench/seasons_strength.py",
                          "--sets", str(args.sets), "--seed", str(args.seed),
                          "--workers", str(args.workers)])
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        config = make_config(args.sets, args.seed, args.workers, Path(tmp) / "arena.db")
        with Store(config.db) as store:
            report = run_tournament(config, store)
            labels = [r.label for r in sorted(report.standings, key=lambda r: r.index)]
            rows = leaderboard(store, config.game)
            pairings = pairing_lines(store, report.tournament_id, labels)
    if report.problems:
        print("problems:", *report.problems, sep="\n  ", file=sys.stderr)
    print(f"Seasons strength: round-robin, {2 * args.sets} games per pairing, seed {args.seed}, "
          f"{report.played} games in {time.perf_counter() - started:.0f} s "
          f"with {args.workers} workers")
    print(f"reproduce: {command}")
    print()
    print(f"{'bot':<16} {'mu':>6} {'sigma':>6} {'mu-3sigma':>9} {'games':>6} {'score':>6}")
    for row in rows:
        rating, tally = row.rating, row.tally
        print(f"{row.bot.identity.label:<16} {rating.mu:6.2f} {rating.sigma:6.2f} "
              f"{rating.conservative:9.2f} {tally.games:6d} {100 * tally.score:5.1f}%")
    print()
    print("pairings (score of the first bot):")
    for line in pairings:
        print("  " + line)


if __name__ == "__main__":
    main()
