"""Strength of the Sonnentau bots: a seat-balanced round-robin among search, heuristic
and random, with TrueSkill ratings and pairwise scores.

Each pair of bots plays ``--sets`` seat-swapped pairs of games (the same dice with
the seats swapped) per dice variant, through arena's own tournament runner (a
results database in a temporary folder, ``--workers`` processes, bots in-process).
Printed per dice variant: TrueSkill μ, σ and μ − 3σ of every bot, and each pair's
score with its 95 % interval, counting games as independent and, tighter, per
seat-swapped pair (pentanomial).

    .venv/bin/python bench/sonnentau_strength.py [--sets 50] [--seed 2026] [--workers 2]
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import time
from pathlib import Path

from arena.compare import summarise
from arena.config import parse_config
from arena.stats import pentanomial_interval, score_interval
from arena.store import Store
from arena.tournament import run_tournament
from arena.versions import leaderboard

ROOT = Path(__file__).resolve().parents[1]
BOTS = ["bots/sonnentau/search.py", "bots/sonnentau/heuristic.py",
        "bots/sonnentau/random_bot.py"]


def strength_table(dice: str, sets: int, seed: int, workers: int, folder: Path) -> list[str]:
    """Play the round-robin for one dice variant and return the report's lines."""
    config = parse_config({
        "name": f"strength-{dice}", "game": "sonnentau", "options": {"dice": dice},
        "format": "round-robin", "bots": [str(ROOT / spec) for spec in BOTS],
        "games_per_pairing": sets, "seed": seed, "workers": workers, "isolation": "none",
        "db": str(folder / f"{dice}.db"), "output": str(folder / dice)})
    started = time.perf_counter()
    with Store(config.db) as store:
        run_tournament(config, store)
        seconds = time.perf_counter() - started
        rows = leaderboard(store, "sonnentau")
        games = list(store.played_games("sonnentau"))
    lines = [f"{dice} dice: {len(games)} games ({sets} seat-swapped pairs per pairing, "
             f"seed {seed}) in {seconds:.0f} s", "",
             f"  {'bot':12s} {'games':>5s} {'mu':>6s} {'sigma':>6s} {'mu-3sigma':>9s}"]
    for row in rows:
        r = row.rating
        lines.append(f"  {row.bot.identity.name:12s} {row.tally.games:5d} {r.mu:6.2f} "
                     f"{r.sigma:6.2f} {r.conservative:9.2f}")
    lines += ["", f"  {'pair':24s} {'score':>6s} {'95% (games)':>15s} {'95% (pairs)':>15s}"]
    by_name = {row.bot.identity.name: row.bot for row in rows}
    for first, second in itertools.combinations(by_name, 2):
        a, b = by_name[first], by_name[second]
        met = [g for g in games if len(g.bots) == 2 and set(g.bots) == {a.id, b.id}]
        result = summarise(first, second, a.id, met, None)
        low, high = score_interval(result.score)
        plow, phigh = pentanomial_interval(result.pairs)
        lines.append(f"  {first + ' vs ' + second:24s} {100 * result.score.score:5.1f}% "
                     f"{100 * low:6.1f}-{100 * high:5.1f}% {100 * plow:6.1f}-{100 * phigh:5.1f}%")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=50,
                        help="seat-swapped pairs of games per pairing and dice variant")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dice", choices=["standard", "miwin", "both"], default="both")
    args = parser.parse_args()
    variants = ["standard", "miwin"] if args.dice == "both" else [args.dice]
    with tempfile.TemporaryDirectory() as folder:
        for dice in variants:
            print("\n".join(strength_table(dice, args.sets, args.seed, args.workers,
                                           Path(folder))))
            print()


if __name__ == "__main__":
    main()
