"""Benchmark: Swiss pairing of a 1,000-bot field, seconds per round against a 1 s goal.

Simulates a Swiss with seeded random results (each bot has a hidden strength;
every table plays one game per seat rotation and each game ranks the bots by
strength plus noise) and times only :func:`arena.tournaments.swiss.pair_round`.

Run from the repository root::

    .venv/bin/python bench/swiss_pairing.py [--bots 1000] [--rounds 9] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import time

from arena.tournaments.swiss import RoundPairing, TableResult, pair_round, validate_swiss

GOAL_SECONDS = 1.0


def play_table(table: tuple[int, ...], strength: list[float], rng: random.Random) -> TableResult:
    """One table in all seat rotations: per game, (beaten + 0.5 tied) / (k - 1) per bot."""
    k = len(table)
    points = [0.0] * k
    for _ in range(k):
        scores = [round(strength[bot] + rng.gauss(0.0, 1.0), 1) for bot in table]
        for i in range(k):
            beaten = sum(scores[i] > scores[j] for j in range(k) if j != i)
            tied = sum(scores[i] == scores[j] for j in range(k) if j != i)
            points[i] += (beaten + 0.5 * tied) / (k - 1)
    return TableResult(table, tuple(points))


def count_rematches(pairing: RoundPairing, met: set[frozenset[int]]) -> int:
    """Pairs at this round's tables that already met, updating ``met``."""
    repeats = 0
    for table in pairing.tables:
        for i, a in enumerate(table):
            for b in table[i + 1:]:
                pair = frozenset((a, b))
                repeats += pair in met
                met.add(pair)
    return repeats


def simulate(n_bots: int, k: int, rounds: int, seed: int) -> list[tuple[float, int]]:
    """Seconds spent pairing and rematches, per round."""
    validate_swiss(n_bots, k, rounds)
    rng = random.Random(seed)
    strength = [rng.gauss(0.0, 1.0) for _ in range(n_bots)]
    history: list[list[TableResult]] = []
    byes: list[list[int]] = []
    met: set[frozenset[int]] = set()
    figures = []
    for _ in range(rounds):
        start = time.perf_counter()
        pairing = pair_round(n_bots, k, history, byes, bye_points=float(k))
        elapsed = time.perf_counter() - start
        figures.append((elapsed, count_rematches(pairing, met)))
        history.append([play_table(table, strength, rng) for table in pairing.tables])
        byes.append(list(pairing.byes))
    return figures


def report(k: int, figures: list[tuple[float, int]]) -> None:
    seconds = [elapsed for elapsed, _ in figures]
    mean = sum(seconds) / len(seconds)
    worst = max(seconds)
    verdict = "met" if worst <= GOAL_SECONDS else "NOT met"
    per_round = ", ".join(f"{s:.3f}" for s in seconds)
    rematches = sum(repeats for _, repeats in figures)
    print(f"k={k}: {mean:.3f} s/round mean, {worst:.3f} s worst "
          f"(goal <= {GOAL_SECONDS:g} s: {verdict}; worst/goal = {worst / GOAL_SECONDS:.2f}); "
          f"repeat meetings: {rematches}")
    print(f"      per round: {per_round}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"Swiss pairing, {args.bots} bots, {args.rounds} rounds, seed {args.seed}")
    for k in (2, 4):
        report(k, simulate(args.bots, k, args.rounds, args.seed))


if __name__ == "__main__":
    main()
