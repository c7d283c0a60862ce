"""Do the Bradley-Terry 95 % intervals cover? Simulated round-robins of bots of known Elo.

Six bots of Elo −300, −200, −100, +50, +150 and +400 (mean 0) and an earlier-seat
advantage of +30 play round-robins of duplicate sets: every pair plays ``sets``
sets of two seat-swapped games (3, 10 and 40 sets: 90, 300 and 1,200 games). The
two games of a set are dependent in one of three ways (``--scenario``):

* ``mixed`` (the goal's): half the sets share their dice, so whoever sits first
  tends to win both games (a Gaussian copula, correlation 0.8, on "the first seat
  wins"); the other half are two independent games;
* ``independent``: every game independent;
* ``same-winner``: the same bot tends to win both games of a set (copula 0.5 on
  "this bot wins"), so the set is worth less than two games.

Each game's result keeps the Bradley-Terry probability, so the true ratings are
known. For each sample size, ``--replicates`` seeded samples are fitted and each
bot's interval (its Elo relative to the mean) checked against the truth. Printed:
the pooled coverage over the six bots, the two extreme bots' (−300 and +400), the
misses split into truth below / above the interval, the seat advantage's
coverage, the mean width and the extreme bots' mean error. ``new`` is
:func:`arena.results.bradley_terry.fit` (Firth-penalised profile-likelihood
intervals with the sets' design effect); ``old`` is the method it replaced:
maximum a posteriori estimates, 200 percentile-bootstrap resamplings of the sets.

Goal: pooled coverage ≥ 0.92 at 90 games and ≥ 0.94 at 300 (the ``mixed``
scenario); the last lines give the ratio to the goal. Also printed: how long
``fit`` takes for 30 bots and 20,000 games.

    .venv/bin/python bench/bt_coverage.py [--replicates 1000] [--scenario all]
        [--old 300] [--seed 1]

About 11 minutes with the defaults (``--quick``: 200 replicates, about 2 minutes).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from arena.results.bradley_terry import (
    ELO_PER_UNIT,
    SeatedGame,
    Table,
    fit,
    maximise,
    set_comparisons,
    tabulate,
)

TRUE_ELO = (-300.0, -200.0, -100.0, 50.0, 150.0, 400.0)
EXTREMES = (0, 5)
SEAT_ELO = 30.0
SIZES = (3, 10, 40)
GOALS = {3: 0.92, 10: 0.94}
SCENARIOS = ("mixed", "independent", "same-winner")
OLD_RESAMPLES = 200
PHI = NormalDist().cdf


@dataclass(frozen=True)
class Intervals:
    """One fitted sample: each bot's (low, high) in Elo relative to the mean, its
    estimate, and the seat advantage's interval."""

    low: tuple[float, ...]
    high: tuple[float, ...]
    elo: tuple[float, ...]
    seat: tuple[float, float]


def simulate(sets: int, seed: int, scenario: str = "mixed",
             true_elo: Sequence[float] = TRUE_ELO) -> list[SeatedGame]:
    """A round-robin of ``sets`` duplicate sets per pair, dependent as ``scenario``."""
    rng = random.Random(seed)
    games = []
    for a in range(len(true_elo)):
        for b in range(a + 1, len(true_elo)):
            for number in range(sets):
                games += _duplicate_set(rng, true_elo, a, b, scenario, (a, b, number))
    return games


def _duplicate_set(rng: random.Random, true_elo: Sequence[float], a: int, b: int,
                   scenario: str, group: object) -> list[SeatedGame]:
    shared = rng.gauss(0, 1)
    dice = scenario == "mixed" and rng.random() < 0.5
    games = []
    for first, second in ((a, b), (b, a)):
        p_first = 1 / (1 + math.exp(-(true_elo[first] - true_elo[second] + SEAT_ELO)
                                    / ELO_PER_UNIT))
        if dice:
            first_wins = _correlated(rng, shared, 0.8) < p_first
        elif scenario == "same-winner":
            p_a = p_first if first == a else 1 - p_first
            first_wins = (_correlated(rng, shared, 0.5) < p_a) == (first == a)
        else:
            first_wins = rng.random() < p_first
        games.append(SeatedGame((first, second), (0, 1) if first_wins else (1, 0), group))
    return games


def _correlated(rng: random.Random, shared: float, rho: float) -> float:
    """A uniform variable whose normal score has correlation ``rho`` with ``shared``'s."""
    return PHI(math.sqrt(rho) * shared + math.sqrt(1 - rho) * rng.gauss(0, 1))


def new_intervals(games: Sequence[SeatedGame]) -> Intervals:
    result = fit(games)
    bots = sorted(result.elo)
    return Intervals(tuple(result.low[b] for b in bots), tuple(result.high[b] for b in bots),
                     tuple(result.elo[b] for b in bots), result.seat_interval)


def old_intervals(games: Sequence[SeatedGame], seed: int = 0,
                  resamples: int = OLD_RESAMPLES) -> Intervals:
    """The replaced method: MAP estimates (the prior, no Firth penalty), intervals the
    2.5 and 97.5 percentiles of ``resamples`` fits to resampled duplicate sets."""
    n = 1 + max(bot for game in games for bot in game.bots)
    table = tabulate(n, *set_comparisons(games))
    rng = np.random.default_rng(seed)
    samples = [_map_elo(table, np.ones(table.sets))]
    for _ in range(resamples):
        drawn = np.bincount(rng.integers(0, table.sets, table.sets), minlength=table.sets)
        samples.append(_map_elo(table, drawn.astype(float)))
    values = np.array(samples[1:])
    low, high = np.percentile(values, 2.5, axis=0), np.percentile(values, 97.5, axis=0)
    return Intervals(tuple(low[:n]), tuple(high[:n]), tuple(samples[0][:n]),
                     (float(low[n]), float(high[n])))


def _map_elo(table: Table, weights: np.ndarray) -> np.ndarray:
    """Mean-0 Elo ratings and the seat advantage fitted with each set weighted."""
    w = weights[table.row_set]
    cells = len(table.count)
    weighted = dataclasses.replace(
        table, count=np.bincount(table.row_cell, weights=w * table.row_count, minlength=cells),
        score=np.bincount(table.row_cell, weights=w * table.row_score, minlength=cells))
    theta = maximise(weighted, np.zeros(table.n + 1), False).theta * ELO_PER_UNIT
    theta[:table.n] -= np.mean(theta[:table.n])
    return theta


@dataclass(frozen=True)
class Coverage:
    pooled: float
    extremes: float
    below: int
    above: int
    seat: float
    width: float
    extreme_error: tuple[float, float]


def coverage(method: str, sets: int, replicates: int, scenario: str, seed: int = 1
             ) -> Coverage:
    """How often ``method``'s intervals hold the true ratings over seeded samples."""
    truth = np.array(TRUE_ELO) - np.mean(TRUE_ELO)
    hits, seats, widths, errors = [], [], [], []
    below = above = 0
    for replicate in range(replicates):
        games = simulate(sets, seed * 1_000_003 + replicate, scenario)
        found = new_intervals(games) if method == "new" else old_intervals(games, replicate)
        low, high = np.array(found.low), np.array(found.high)
        hits.append((low <= truth) & (truth <= high))
        below += int(np.sum(truth < low))
        above += int(np.sum(truth > high))
        seats.append(found.seat[0] <= SEAT_ELO <= found.seat[1])
        widths.append(float(np.mean(high - low)))
        errors.append(np.array(found.elo)[list(EXTREMES)] - truth[list(EXTREMES)])
    table = np.array(hits)
    error = np.mean(errors, axis=0)
    return Coverage(float(table.mean()), float(table[:, list(EXTREMES)].mean()), below, above,
                    float(np.mean(seats)), float(np.mean(widths)),
                    (float(error[0]), float(error[1])))


def report(method: str, sets: int, found: Coverage, seconds: float) -> str:
    n = len(TRUE_ELO)
    return (f"  {method:3s} {sets * n * (n - 1):5d} games: pooled {found.pooled:.3f}, "
            f"extremes {found.extremes:.3f}, misses below/above {found.below}/{found.above}, "
            f"seat {found.seat:.3f}, width {found.width:4.0f} Elo, extremes' error "
            f"{found.extreme_error[0]:+4.0f}/{found.extreme_error[1]:+4.0f} ({seconds:.0f} s)")


def timing(bots: int = 30, games: int = 20_000, seed: int = 1) -> float:
    """Seconds for ``fit`` on seat-swapped pairs of random bots of random strength."""
    rng = random.Random(seed)
    elo = [rng.gauss(0, 200) for _ in range(bots)]
    played = []
    for number in range(games // 2):
        a, b = rng.sample(range(bots), 2)
        for first, second in ((a, b), (b, a)):
            d = (elo[first] - elo[second] + SEAT_ELO) / ELO_PER_UNIT
            won = rng.random() < 1 / (1 + math.exp(-d))
            played.append(SeatedGame((first, second), (0, 1) if won else (1, 0), number))
    started = time.perf_counter()
    fit(played)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--old", type=int, default=300,
                        help="replicates for the old method (slower: 200 fits each)")
    parser.add_argument("--scenario", choices=[*SCENARIOS, "all"], default="all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="200 replicates, 100 old")
    args = parser.parse_args()
    replicates, old = (200, 100) if args.quick else (args.replicates, args.old)
    scenarios = SCENARIOS if args.scenario == "all" else (args.scenario,)
    print(f"Bradley-Terry coverage of 95 % intervals: bots {TRUE_ELO}, seat +{SEAT_ELO:g}")
    headline: dict[int, float] = {}
    for scenario in scenarios:
        print(f"\nscenario {scenario}:")
        for sets in SIZES:
            for method, count in (("old", old), ("new", replicates)):
                if count <= 0:
                    continue
                started = time.perf_counter()
                found = coverage(method, sets, count, scenario, args.seed)
                print(report(method, sets, found, time.perf_counter() - started), flush=True)
                if method == "new" and scenario == "mixed":
                    headline[sets] = found.pooled
    print(f"\nfit, 30 bots and 20,000 games: {timing():.2f} s")
    for sets, goal in GOALS.items():
        if sets in headline:
            n = len(TRUE_ELO)
            verdict = "met" if headline[sets] >= goal else "NOT met"
            print(f"coverage at {sets * n * (n - 1)} games (mixed): {headline[sets]:.3f} "
                  f"(goal ≥ {goal}: {verdict}, ratio to goal = {headline[sets] / goal:.3f})")


if __name__ == "__main__":
    main()
