"""Do balanced seat orders remove variance? Sonnentau duplicate sets at 3 and 4 seats.

A duplicate set plays one game seed in every seat order of a design
(:func:`arena.tournaments.schedule.seat_orders`): ``rotations`` (the ``k`` cyclic
rotations, every bot always has the same bot in the seat before it) or ``balanced``
(every bot sits every seat and has every other bot before it equally often: 6 orders
at 3 seats, 12 at 4). The table: search, heuristic and random at 3 seats, plus a
second heuristic entry at 4, the shipped bots played in-process without a time limit
(their play is a function of the seed). Each set's seed is ``derive_seed(--seed,
"seat-orders", k, set)``; both designs play the same seeds, and a game both designs
have (same seed, same order) is played once, so the comparison is paired.

The figure: per bot, the variance over sets of its mean points per game in a set
(points: (opponents beaten + 1/2 tied) / (k - 1)), times the games in a set — the
variance per game played, so a 12-game set and a 4-game set compare fairly (for
independent games it would be the per-game variance for both). Printed per bot and
pooled over the table's bots (the sum of their variances), with the ratio balanced /
rotations and its 95 % percentile bootstrap interval (the sets resampled, both designs
together). A ratio below 1 means balanced orders buy more precision per game played.

Also printed, per bot: the *order effect*, its mean points per game in the rotations
minus in the balanced orders on the same seeds, with a 95 % interval (normal, over the
sets) — what always having the same predecessor is worth to a bot at this table, a bias
that more sets do not remove.

    .venv/bin/python bench/seat_orders.py [--sets3 300] [--sets4 100] [--seed 2026]
        [--resamples 2000]

Takes about 9 minutes of CPU on one core with the defaults (a 3-seat set of 6 games
about 0.7 s, a 4-seat set of 14 games about 2.7 s). Measured with the defaults: balanced
/ rotations 0.995 [0.867, 1.143] at 3 seats (300 sets, 1800 games), 1.280 [1.007, 1.617]
at 4 seats (100 sets, 1400 games); no order effect outside +-0.03 points per game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.bots.loading import load_bot
from arena.referee.dice import derive_seed
from arena.referee.match import play_game
from arena.referee.protocol import Player
from arena.results.standings import game_points
from arena.tournaments.schedule import BALANCED, ROTATIONS, Order, seat_orders

ROOT = Path(__file__).resolve().parents[1]
BOT_FILES = {"search": "search.py", "heuristic": "heuristic.py",
             "heuristic-2": "heuristic.py", "random": "random_bot.py"}
TABLES = {3: ("search", "heuristic", "random"),
          4: ("search", "heuristic", "heuristic-2", "random")}
DESIGNS = (ROTATIONS, BALANCED)

SetMeans = dict[str, list[float]]
"""Per design: each table position's mean points per game in one set."""


@dataclass(frozen=True)
class Figure:
    """A variance per game for each design, and the ratio's bootstrap interval."""

    rotations: float
    balanced: float
    low: float
    high: float

    @property
    def ratio(self) -> float:
        return self.balanced / self.rotations


def players_for(names: Sequence[str]) -> list[Player]:
    return [load_bot(str(ROOT / "bots/sonnentau" / BOT_FILES[name])).player for name in names]


def play_set(players: Sequence[Player], seed: int) -> dict[str, list[list[float]]]:
    """One seed in the orders of both designs: per design, per game, each position's points."""
    k = len(players)
    played: dict[Order, list[float]] = {}
    for order in sorted({order for design in DESIGNS for order in seat_orders(k, design)}):
        record = play_game("sonnentau", [players[p] for p in order], seed, time_limit=None)
        points = game_points(record.ranks)
        by_position = [0.0] * k
        for seat, position in enumerate(order):
            by_position[position] = points[seat]
        played[order] = by_position
    return {design: [played[order] for order in seat_orders(k, design)] for design in DESIGNS}


def set_means(games: list[list[float]]) -> list[float]:
    """Each position's mean points over the games of one set."""
    return [statistics.fmean(game[p] for game in games) for p in range(len(games[0]))]


def variance_per_game(sets: Sequence[list[float]], position: int | None, per_set: int) -> float:
    """The variance of one position's set means (None: the sum over positions) x games."""
    positions = range(len(sets[0])) if position is None else [position]
    return per_set * sum(statistics.variance([means[p] for means in sets]) for p in positions)


def figure(sets: Sequence[SetMeans], k: int, position: int | None, resamples: int,
           rng: random.Random) -> Figure:
    sizes = {design: len(seat_orders(k, design)) for design in DESIGNS}

    def both(sample: Sequence[SetMeans]) -> tuple[float, float]:
        return (variance_per_game([s[ROTATIONS] for s in sample], position, sizes[ROTATIONS]),
                variance_per_game([s[BALANCED] for s in sample], position, sizes[BALANCED]))

    rotations, balanced = both(sets)
    ratios = sorted(b / r for r, b in (both(rng.choices(sets, k=len(sets)))
                                       for _ in range(resamples)) if r > 0)
    return Figure(rotations, balanced, ratios[int(0.025 * len(ratios))],
                  ratios[int(0.975 * len(ratios)) - 1])


def measure(k: int, count: int, seed: int, resamples: int) -> tuple[list[str], Figure]:
    """Play ``count`` sets at a ``k``-seat table; the report lines and the pooled figure."""
    names = TABLES[k]
    players = players_for(names)
    started = time.perf_counter()
    sets: list[SetMeans] = []
    for index in range(count):
        games = play_set(players, derive_seed(seed, "seat-orders", k, index))
        sets.append({design: set_means(games[design]) for design in DESIGNS})
    seconds = time.perf_counter() - started
    played = count * len({o for d in DESIGNS for o in seat_orders(k, d)})
    rng = random.Random(derive_seed(seed, "bootstrap", k))
    lines = [f"sonnentau k={k} ({', '.join(names)}): {count} sets, {played} games in "
             f"{seconds:.0f} s; rotations {k} games a set, balanced "
             f"{len(seat_orders(k, BALANCED))}",
             f"  {'bot':12s} {'rotations':>10s} {'balanced':>10s} {'ratio':>7s}  95% interval"]
    figures = {position: figure(sets, k, position, resamples, rng)
               for position in [*range(k), None]}
    for position, fig in figures.items():
        label = "all (sum)" if position is None else names[position]
        lines.append(f"  {label:12s} {fig.rotations:10.4f} {fig.balanced:10.4f} "
                     f"{fig.ratio:7.3f}  [{fig.low:.3f}, {fig.high:.3f}]")
    lines.append("  order effect (rotations - balanced points per game, 95% interval): "
                 + ", ".join(f"{name} {order_effect(sets, p)}" for p, name in enumerate(names)))
    return lines, figures[None]


def order_effect(sets: Sequence[SetMeans], position: int) -> str:
    """The mean of one position's rotations-minus-balanced set means, with its interval."""
    differences = [s[ROTATIONS][position] - s[BALANCED][position] for s in sets]
    mean = statistics.fmean(differences)
    half = 1.96 * statistics.stdev(differences) / len(differences) ** 0.5
    return f"{mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets3", type=int, default=300, help="sets at the 3-seat table")
    parser.add_argument("--sets4", type=int, default=100, help="sets at the 4-seat table")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    print("variance of a bot's mean points per game over one duplicate set, times the "
          "games in the set")
    pooled: dict[int, Figure] = {}
    for k, count in ((3, args.sets3), (4, args.sets4)):
        lines, pooled[k] = measure(k, count, args.seed, args.resamples)
        print("\n".join(lines), flush=True)
    for k, fig in pooled.items():
        print(f"sonnentau k={k}: all bots, balanced / rotations {fig.ratio:.3f}, 95% "
              f"bootstrap interval [{fig.low:.3f}, {fig.high:.3f}]")
    for k, fig in pooled.items():
        print(f"sonnentau k={k}: balanced / rotations variance per game {fig.ratio:.3f}")


if __name__ == "__main__":
    main()
