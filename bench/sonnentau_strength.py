"""Strength of the Sonnentau bots: a seat-balanced round-robin among search, heuristic
and random, with TrueSkill ratings and pairwise scores, and a 4-player table.

2 seats: each pair of bots plays ``--sets`` seat-swapped pairs of games (the same dice
with the seats swapped) per dice variant, through arena's own tournament runner (a
results database in a temporary folder, ``--workers`` processes, bots in-process).
Printed per dice variant: TrueSkill μ, σ and μ − 3σ of every bot, and each pair's
score with its 95 % interval, counting games as independent and, tighter, per
seat-swapped pair (pentanomial).

4 seats: search, heuristic, a second heuristic entry ("heuristic-2") and random at one
table, ``--sets4`` sets of the four seat rotations on the same dice (default ``--sets``
// 2, at least 1), so ``4 * sets4`` games per dice variant. Printed per bot: games,
mean rank (1 = best; tied bots share the better rank) with its 95 % interval (normal
approximation, standard error from the sample) and the share of games won (rank 1,
shared wins included).

    .venv/bin/python bench/sonnentau_strength.py [--sets 50] [--sets4 N] [--seed 2026]
        [--workers 2] [--dice {standard,miwin,both}] [--seats {2,4,both}]
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import tempfile
import time
from pathlib import Path
from statistics import NormalDist

from arena.results.comparison import summarise
from arena.results.stats import pentanomial_interval, score_interval
from arena.results.store import Store
from arena.results.versions import leaderboard
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

ROOT = Path(__file__).resolve().parents[1]
BOTS = ["bots/sonnentau/search.py", "bots/sonnentau/heuristic.py",
        "bots/sonnentau/random_bot.py"]
# The 4-seat table: the 2-seat bots plus a second, renamed heuristic entry.
BOTS4: list[str | dict[str, str]] = [
    str(ROOT / "bots/sonnentau/search.py"), str(ROOT / "bots/sonnentau/heuristic.py"),
    {"spec": str(ROOT / "bots/sonnentau/heuristic.py"), "name": "heuristic-2"},
    str(ROOT / "bots/sonnentau/random_bot.py")]


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


def mean_interval(values: list[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """The mean of ``values`` and its normal-approximation interval (sample standard error)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, math.nan, math.nan
    half = (NormalDist().inv_cdf((1.0 + confidence) / 2.0)
            * statistics.stdev(values) / math.sqrt(len(values)))
    return mean, mean - half, mean + half


def four_seat_table(dice: str, sets: int, seed: int, workers: int,
                    folder: Path) -> list[str]:
    """Play the 4-seat round-robin (one table) for one dice variant; the report's lines."""
    config = parse_config({
        "name": f"strength4-{dice}", "game": "sonnentau", "options": {"dice": dice},
        "format": "round-robin", "seats": 4, "bots": BOTS4,
        "games_per_pairing": sets, "seed": seed, "workers": workers, "isolation": "none",
        "db": str(folder / f"{dice}-4.db"), "output": str(folder / f"{dice}-4")})
    started = time.perf_counter()
    with Store(config.db) as store:
        report = run_tournament(config, store)
        seconds = time.perf_counter() - started
        entrants = store.entrants(report.tournament_id)
        names = {bot.id: bot.identity.name for bot in store.bots("sonnentau")}
        games = list(store.games(report.tournament_id))
    ranks: list[list[int]] = [[] for _ in entrants]
    for game in games:
        for seat, position in enumerate(game.seats):
            ranks[position].append(game.ranks[seat] + 1)
    lines = [f"{dice} dice, 4 seats: {len(games)} games ({sets} sets of 4 seat rotations, "
             f"seed {seed}) in {seconds:.0f} s", "",
             f"  {'bot':12s} {'games':>5s} {'mean rank':>9s} {'95%':>11s} {'won':>6s}"]
    for position, bot_id in enumerate(entrants):
        mine = ranks[position]
        mean, low, high = mean_interval([float(r) for r in mine])
        won = sum(r == 1 for r in mine) / len(mine)
        lines.append(f"  {names[bot_id]:12s} {len(mine):5d} {mean:9.3f} "
                     f"{low:5.3f}-{high:5.3f} {100 * won:5.1f}%")
    if not report.complete or report.problems:
        lines += ["", f"  incomplete or with problems: {report.problems}"]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=50,
                        help="seat-swapped pairs of games per pairing and dice variant")
    parser.add_argument("--sets4", type=int, default=None,
                        help="sets of 4 seat rotations per dice variant for the 4-seat "
                             "table (default: --sets // 2, at least 1)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--dice", choices=["standard", "miwin", "both"], default="both")
    parser.add_argument("--seats", choices=["2", "4", "both"], default="both",
                        help="which sections to play: 2 seats, 4 seats or both")
    args = parser.parse_args()
    sets4 = args.sets4 if args.sets4 is not None else max(1, args.sets // 2)
    variants = ["standard", "miwin"] if args.dice == "both" else [args.dice]
    with tempfile.TemporaryDirectory() as folder:
        for dice in variants:
            if args.seats in ("2", "both"):
                print("\n".join(strength_table(dice, args.sets, args.seed, args.workers,
                                               Path(folder))))
                print(flush=True)
            if args.seats in ("4", "both"):
                print("\n".join(four_seat_table(dice, sets4, args.seed, args.workers,
                                                Path(folder))))
                print(flush=True)


if __name__ == "__main__":
    main()
