"""Benchmark: would a factor for each share of the luck take out more than one factor?

arena's luck-adjusted score takes out the game's accounted luck times one cross-fitted
factor (:func:`arena.results.stats.luck_adjusted`). Any share of the luck has an
expectation of zero, so each share could have a factor of its own and the adjusted
score would stay unbiased. This bench plays ``--sets`` duplicate sets of one of
``bench/luck_efficiency.py``'s Seasons pairings, splits each game's luck (the first
bot's) into the rolls of the first bot and of its opponent, each early, middle or
late in the game (thirds of the game's rolls), and prints the variance of the sets'
adjusted scores with cross-fitted factors (ten folds, least squares) for:

* one factor for all the luck (what arena does), and the luck taken out whole;
* a factor per roller, per third of the game, and per roller and third.

Run from the repository root (about a minute for 600 sets of a pair of greedy bots)::

    .venv/bin/python bench/luck_shares.py [--pairing 'without expectimax'] [--sets 600]
        [--seed 900000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import luck_efficiency

from arena.referee.match import play_game
from arena.referee.record import GameRecord
from arena.results.luck import account
from arena.results.values import model_for

THIRDS = 3
SPLITS = ("one factor", "per roller", "per third", "per roller and third")


def shares(record: GameRecord, model: Any, seat: int) -> tuple[float, np.ndarray]:
    """``seat``'s points, and its luck by roller (``seat``'s rolls first) and third."""
    found = account(record, model, keep_rolls=True)
    split = np.zeros(2 * THIRDS)
    for index, roll in enumerate(found.rolls):
        third = index * THIRDS // len(found.rolls)
        roller = record.moves[roll.move + 1].seat if roll.move + 1 < len(record.moves) else seat
        split[(0 if roller == seat else THIRDS) + third] += roll.luck[seat]
    return found.points[seat], split


def played_sets(label: str, sets: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per set, the first bot's mean points and its mean luck by share."""
    pairing = next(p for p in luck_efficiency.PAIRINGS
                   if label in p.label and p.game == "seasons")
    first = luck_efficiency._player(*pairing.first)
    second = luck_efficiency._player(*pairing.second)
    model = model_for("seasons", {})
    points, luck = np.zeros(sets), np.zeros((sets, 2 * THIRDS))
    for n in range(sets):
        for seat, players in ((0, [first, second]), (1, [second, first])):
            record = play_game("seasons", players, seed=seed + n)
            got, split = shares(record, model, seat)
            points[n] += got / 2
            luck[n] += split / 2
    return points, luck


def cross_fitted(points: np.ndarray, controls: np.ndarray, folds: int = 10) -> np.ndarray:
    """The points less the controls times factors fitted on the other folds."""
    order = np.random.default_rng(0).permutation(len(points))
    adjusted = np.empty(len(points))
    for fold in range(folds):
        held = order[fold::folds]
        kept = np.setdiff1d(order, held)
        x = controls[kept] - controls[kept].mean(axis=0)
        factors = np.linalg.lstsq(x, points[kept] - points[kept].mean(), rcond=None)[0]
        adjusted[held] = points[held] - controls[held] @ factors
    return adjusted


def variances(points: np.ndarray, luck: np.ndarray) -> dict[str, float]:
    """The adjusted sets' variance for the luck taken out whole and for each split."""
    rollers = np.stack([luck[:, :THIRDS].sum(axis=1), luck[:, THIRDS:].sum(axis=1)], axis=1)
    controls = {"one factor": luck.sum(axis=1, keepdims=True), "per roller": rollers,
                "per third": luck[:, :THIRDS] + luck[:, THIRDS:], "per roller and third": luck}
    found = {"raw": float(points.var(ddof=1)),
             "all of the luck": float((points - luck.sum(axis=1)).var(ddof=1))}
    for name in SPLITS:
        found[name] = float(cross_fitted(points, controls[name]).var(ddof=1))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairing", default="without expectimax",
                        help="text of the pairing's label in bench/luck_efficiency.py")
    parser.add_argument("--sets", type=int, default=600)
    parser.add_argument("--seed", type=int, default=900_000)
    args = parser.parse_args()
    started = time.perf_counter()
    points, luck = played_sets(args.pairing, args.sets, args.seed)
    found = variances(points, luck)
    print(f"{args.pairing}: {args.sets} sets from seed {args.seed} "
          f"({time.perf_counter() - started:.0f} s)")
    for name, variance in found.items():
        print(f"  {name:<22} variance {variance:.5f}  "
              f"({variance / found['one factor']:.3f}× one factor)")


if __name__ == "__main__":
    main()
