"""Strength of the Sonnentau bots: a seat-balanced round-robin among search-tuned,
search, heuristic and random, with TrueSkill ratings and pairwise scores, and a 4-player
table. search-tuned is the Sonnentau ladder's top reference: search with the weights its
entry in ``configs/sonnentau-ladder.yaml`` gives it (found by
``tools/tune_sonnentau_search.py``).

2 seats: each pair of bots plays ``--sets`` seat-swapped pairs of games (the same dice
with the seats swapped) per dice variant, through arena's own tournament runner (a
results database in a temporary folder, ``--workers`` processes, bots in-process).
Printed per dice variant: TrueSkill μ, σ and μ − 3σ of every bot, and each pair's
score with its 95 % interval, counting games as independent and, tighter, per
seat-swapped pair (pentanomial), and its luck-adjusted score with the interval
``arena compare`` prints (the shipped value model of the dice variant).

4 seats: search, heuristic, a second heuristic entry ("heuristic-2") and random at one
table, ``--sets4`` sets of the four seat rotations on the same dice (default ``--sets``
// 2, at least 1), so ``4 * sets4`` games per dice variant. Printed per bot: games,
mean rank (1 = best; tied bots share the better rank) with its 95 % interval (normal
approximation, standard error from the sample) and the share of games won (rank 1,
shared wins included).

Decision times (``--time-sets N``): search-tuned against search, N seat-swapped pairs
per dice variant, each bot in the sandbox under the ladder's time limit; per bot the
median, 99th percentile and slowest decision as the referee timed it, and the slowest
against a goal of 0.5 s.

    .venv/bin/python bench/sonnentau_strength.py [--sets 50] [--sets4 N] [--seed 2026]
        [--workers 2] [--dice {standard,miwin,both}] [--seats {2,4,both}]
        [--time-sets N]
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from statistics import NormalDist

import yaml

from arena.results.comparison import games_luck, summarise
from arena.results.luck_book import LuckSource
from arena.results.stats import adjusted_interval, pentanomial_interval, score_interval
from arena.results.store import PlayedGame, Store, StoredBot
from arena.results.versions import leaderboard
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

ROOT = Path(__file__).resolve().parents[1]
LADDER = ROOT / "configs/sonnentau-ladder.yaml"


def ladder_entry(name: str) -> dict[str, object]:
    """The entry called ``name`` among the bots of the Sonnentau ladder's config, its spec
    made absolute: the tuned search plays with the parameters the ladder ships."""
    bots = yaml.safe_load(LADDER.read_text())["bots"]
    entry = next(dict(bot) for bot in bots if isinstance(bot, dict) and bot["name"] == name)
    entry["spec"] = str(ROOT / entry["spec"])
    return entry


BOTS: list[str | dict[str, object]] = [
    ladder_entry("search-tuned"), str(ROOT / "bots/sonnentau/search.py"),
    str(ROOT / "bots/sonnentau/heuristic.py"), str(ROOT / "bots/sonnentau/random_bot.py")]
# The 4-seat table: the 2-seat bots plus a second, renamed heuristic entry.
BOTS4: list[str | dict[str, object]] = [
    str(ROOT / "bots/sonnentau/search.py"), str(ROOT / "bots/sonnentau/heuristic.py"),
    {"spec": str(ROOT / "bots/sonnentau/heuristic.py"), "name": "heuristic-2"},
    str(ROOT / "bots/sonnentau/random_bot.py")]


def strength_table(dice: str, sets: int, seed: int, workers: int, folder: Path) -> list[str]:
    """Play the round-robin for one dice variant and return the report's lines."""
    config = parse_config({
        "name": f"strength-{dice}", "game": "sonnentau", "options": {"dice": dice},
        "format": "round-robin", "bots": BOTS,
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
             f"  {'bot':13s} {'games':>5s} {'mu':>6s} {'sigma':>6s} {'mu-3sigma':>9s}"]
    for row in rows:
        r = row.rating
        lines.append(f"  {row.bot.identity.name:13s} {row.tally.games:5d} {r.mu:6.2f} "
                     f"{r.sigma:6.2f} {r.conservative:9.2f}")
    lines += ["", f"  {'pair':28s} {'score':>6s} {'95% (games)':>13s} {'95% (pairs)':>13s} "
                  f"{'luck-adjusted (95%)':>21s}"]
    by_name = {row.bot.identity.name: row.bot for row in rows}
    with Store(config.db) as store:
        for first, second in itertools.combinations(by_name, 2):
            lines.append(pair_line(store, games, by_name[first], by_name[second], workers))
    return lines


def pair_line(store: Store, games: list[PlayedGame], a: StoredBot, b: StoredBot,
              workers: int) -> str:
    """One pair's line: the first bot's score, its intervals counting games and counting
    seat-swapped pairs, and its luck-adjusted score as ``arena compare`` prints it."""
    met = [g for g in games if len(g.bots) == 2 and set(g.bots) == {a.id, b.id}]
    model, luck = games_luck(store, met, LuckSource(), workers)
    first, second = a.identity.name, b.identity.name
    result = summarise(first, second, a.id, met, None, luck, model)
    low, high = score_interval(result.score)
    plow, phigh = pentanomial_interval(result.pairs)
    adjusted = "-"
    if result.adjusted is not None:
        alow, ahigh = adjusted_interval(result.adjusted)
        adjusted = (f"{100 * result.adjusted.score:5.1f}% {100 * alow:5.1f}-"
                    f"{100 * ahigh:5.1f}%")
    return (f"  {first + ' vs ' + second:28s} {100 * result.score.score:5.1f}% "
            f"{100 * low:5.1f}-{100 * high:5.1f}% {100 * plow:5.1f}-{100 * phigh:5.1f}% "
            f"{adjusted:>21s}")


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
             f"  {'bot':13s} {'games':>5s} {'mean rank':>9s} {'95%':>11s} {'won':>6s}"]
    for position, bot_id in enumerate(entrants):
        mine = ranks[position]
        mean, low, high = mean_interval([float(r) for r in mine])
        won = sum(r == 1 for r in mine) / len(mine)
        lines.append(f"  {names[bot_id]:13s} {len(mine):5d} {mean:9.3f} "
                     f"{low:5.3f}-{high:5.3f} {100 * won:5.1f}%")
    if not report.complete or report.problems:
        lines += ["", f"  incomplete or with problems: {report.problems}"]
    return lines


def decision_times(dice: str, sets: int, seed: int, workers: int, folder: Path) -> list[str]:
    """search-tuned against search in the sandbox under the ladder's time limit: each
    bot's decision times (as the referee measured them, start-up excluded) and the
    slowest against the goal of 0.5 s a decision."""
    limit = yaml.safe_load(LADDER.read_text())["time_limit"]
    config = parse_config({
        "name": f"times-{dice}", "game": "sonnentau", "options": {"dice": dice},
        "format": "round-robin", "bots": BOTS[:2], "games_per_pairing": sets,
        "seed": seed, "workers": workers, "isolation": "sandbox", "time_limit": limit,
        "db": str(folder / f"{dice}-times.db"), "output": str(folder / f"{dice}-times")})
    with Store(config.db) as store:
        report = run_tournament(config, store)
        names = {bot.id: bot.identity.name for bot in store.bots("sonnentau")}
        seconds: dict[str, list[float]] = {}
        statuses: list[str] = []
        for game in store.played_games("sonnentau"):
            record = store.record(game.tournament, game.key)
            statuses += [seat.status for seat in record.seats]
            for move in record.moves:
                if move.seat >= 0:
                    seconds.setdefault(names[game.bots[move.seat]], []).append(move.seconds)
    lines = [f"{dice} dice, decision times in the sandbox ({limit} s limit, "
             f"{report.played} games, seat statuses {dict(Counter(statuses))}):", "",
             f"  {'bot':13s} {'decisions':>9s} {'median':>8s} {'99%':>8s} {'slowest':>8s} "
             f"{'slowest / 0.5 s':>15s}"]
    for name, times in sorted(seconds.items()):
        times.sort()
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        lines.append(f"  {name:13s} {len(times):9d} {1000 * statistics.median(times):6.1f}ms "
                     f"{1000 * p99:6.1f}ms {1000 * times[-1]:6.1f}ms {times[-1] / 0.5:15.2f}")
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
    parser.add_argument("--time-sets", type=int, default=0,
                        help="also play this many seat-swapped pairs of search-tuned vs "
                             "search in the sandbox, and print their decision times")
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
            if args.time_sets:
                print("\n".join(decision_times(dice, args.time_sets, args.seed,
                                               args.workers, Path(folder))))
                print(flush=True)


if __name__ == "__main__":
    main()
