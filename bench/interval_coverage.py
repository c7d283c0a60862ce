"""Do the raw and luck-adjusted 95 % intervals cover, and does the SPRT keep its 5 %?

Worlds whose truth is known exactly, each a distribution of duplicate sets (two
seat-swapped games on one seed: the first bot's points and the luck the value
model accounts it) from which samples of 10 to 160 sets are drawn:

* ``close``, ``clear``, ``weak``: synthetic sets shaped like the measured pairs
  (expectimax vs its variant without endgame search, expectimax vs greedy, greedy vs
  greedy without re-rolls). Each game's win chance ``q`` is the true score, a seat
  advantage and a skill term per set (small, now and then a large blunder: skewed,
  heavy-tailed, mean zero); the two games share their dice (antithetic draws) with
  some probability; the luck is ``k (win - q)`` (``k > 1``: a model that overstates
  the luck, as the Seasons model does for weak bots) plus Student-t(4) noise of the
  model. Its expectation is zero, so the adjusted score's truth is the mean of ``q``.
* ``real close``, ``real clear``, ``real weak`` (``--real-sets`` per pair, played
  here with the shipped value model): the played sets, drawn with replacement,
  their luck centred on the sample so that it has mean zero in this world too; the
  truth is the sample's mean score.

For each world and sample size, ``--replicates`` samples; for each sample the
luck-adjusted interval (:func:`arena.results.stats.luck_adjusted` then
:func:`~arena.results.stats.adjusted_interval`, cross-fitted from 40 sets) and
the raw interval of the same sets (:func:`~arena.results.stats.pentanomial_interval`)
either hold the truth or not. Also the trinomial interval
(:func:`~arena.results.stats.score_interval`) on independent games scoring 50, 70,
90 and 97 % (2 % draws), its coverage computed exactly over every outcome. ``old``
is the method they replaced: the normal quantile with the population variance
(clamped to [0, 1]).

From 40 sets on (cross-fitted), the line also gives the variance of the adjusted
mean over the samples against the mean squared standard error the interval uses:
1 where the interval carries the error of the fitted slopes.

Then the SPRT's type I error: ``--runs`` tests at elo0 0, elo1 ``--elo1``, in a
world where H0 holds exactly (the close pair's synthetic sets at 50 %, and the real
close sets reweighted to 50 % by fishtest's maximum-likelihood tilt), on raw pairs and
on adjusted sets, looking every 8 sets as compare does, capped at ``--cap`` sets.

Goals: coverage ≥ 0.94 for the luck-adjusted interval from 10 sets on and for the
raw interval; type I error ≤ 5 % (nominal). The last lines give each figure and its
ratio to the goal.

    .venv/bin/python bench/interval_coverage.py [--replicates 2000] [--runs 400]
        [--real-sets 200] [--workers 2] [--seed 1] [--keep real_sets.npz]

About 6 minutes on 2 cores with the defaults, half of it playing the real sets
(``--real-sets 0`` skips them; ``--quick``: 400 replicates, 100 runs, no real sets).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import multiprocessing
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from arena.results.stats import (
    CROSS_FIT_FROM,
    MatchScore,
    SprtSettings,
    adjusted_interval,
    expected_score,
    luck_adjusted,
    pentanomial_from_pairs,
    pentanomial_interval,
    score_interval,
    sprt,
)

SIZES = (10, 20, 40, 80, 160)
GAME_SIZES = (10, 20, 50, 100)
GAME_WINS = (0.49, 0.69, 0.89, 0.96)  # with 2 % draws: scores 0.5, 0.7, 0.9, 0.97
DRAWS = 0.02
LOOK_EVERY = 8  # sets between two looks of the SPRT, as compare's SETS_PER_CHECK
Z = 1.959963984540054
COVERAGE_GOAL = 0.94
TYPE_ONE_GOAL = 0.05
TAIL_DF = 4  # degrees of freedom of the model's own error: heavy tails, a finite variance
SEASONS = Path(__file__).resolve().parent.parent / "bots" / "seasons"

Draw = Callable[[int, np.random.Generator], tuple[np.ndarray, np.ndarray]]
"""(sets, rng) -> (each set's mean points per game, its mean luck per game)."""


@dataclass(frozen=True)
class Synthetic:
    """Sets of two seat-swapped games; see the module's docstring."""

    truth: float
    seat: float
    shared: float
    blunder: float
    size: float
    noise: float
    k: float
    eta: float

    def __post_init__(self) -> None:
        top = self.truth + self.seat + self.blunder * self.size / 2 + self.noise
        if self.truth - self.seat - self.size - self.noise < 0 or top > 1:
            raise ValueError(f"{self}: a win chance would leave [0, 1]")

    def draw(self, sets: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        # a blunder costs up to `size` of the win chance; the shift keeps the mean at 0
        hit = rng.random(sets) < self.blunder
        skill = (np.where(hit, -self.size * rng.random(sets), 0.0) + self.blunder * self.size / 2
                 + rng.uniform(-self.noise, self.noise, sets))
        chance = np.stack([self.truth + self.seat + skill, self.truth - self.seat + skill], 1)
        dice = rng.random(sets)
        other = np.where(rng.random(sets) < self.shared, 1 - dice, rng.random(sets))
        won = np.stack([dice < chance[:, 0], other < chance[:, 1]], 1).astype(float)
        luck = self.k * (won - chance) + self.eta * rng.standard_t(TAIL_DF, size=(sets, 2))
        return won.mean(1), luck.mean(1)


SYNTHETIC = {
    "close": Synthetic(0.506, 0.06, 0.85, 0.04, 0.25, 0.04, 1.03, 0.015),
    "clear": Synthetic(0.73, 0.06, 0.6, 0.05, 0.3, 0.1, 1.04, 0.06),
    "weak": Synthetic(0.93, 0.02, 0.3, 0.02, 0.2, 0.03, 1.7, 0.12),
}

REAL_PAIRS: dict[str, tuple[tuple[str, dict[str, Any]], tuple[str, dict[str, Any]]]] = {
    "close": ((str(SEASONS / "expectimax.py"), {}),
              (str(SEASONS / "expectimax.py"), {"endgame_nodes": 0})),
    "clear": ((str(SEASONS / "expectimax.py"), {}), (str(SEASONS / "greedy.py"), {})),
    "weak": ((str(SEASONS / "greedy.py"), {}), (str(SEASONS / "greedy.py"), {"rerolls": False})),
}


@dataclass(frozen=True)
class Resampled:
    """Played sets drawn with replacement (weights ``chances``), luck centred under them."""

    points: np.ndarray
    luck: np.ndarray
    chances: np.ndarray

    @classmethod
    def of(cls, points: np.ndarray, luck: np.ndarray,
           chances: np.ndarray | None = None) -> Resampled:
        chances = np.full(len(points), 1 / len(points)) if chances is None else chances
        return cls(points, luck - chances @ luck, chances)

    @property
    def truth(self) -> float:
        return float(self.chances @ self.points)

    def draw(self, sets: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        picks = rng.choice(len(self.points), size=sets, p=self.chances)
        return self.points[picks], self.luck[picks]

    def tilted(self, score: float) -> Resampled:
        """The nearest world (maximum likelihood, fishtest's tilt) whose truth is ``score``:
        chances ``p_i / (1 + x (a_i - score))`` with mean ``score``."""
        d = self.points - score
        lo, hi = -1 / d.max(), -1 / d.min()
        for _ in range(200):
            x = (lo + hi) / 2
            if self.chances @ (d / (1 + x * d)) > 0:
                lo = x
            else:
                hi = x
        chances = self.chances / (1 + x * d)
        return Resampled.of(self.points, self.luck, chances / chances.sum())


# ---------------------------------------------------------------------------
# Intervals: the new ones are arena's, the old ones written out here


def old_interval(values: Sequence[float]) -> tuple[float, float]:
    """The replaced interval: ``mean ± 1.96 · population sd / √n``, clamped to [0, 1]."""
    n = len(values)
    mean = sum(values) / n
    half = Z * math.sqrt(sum((v - mean) ** 2 for v in values) / n / n)
    return max(0.0, mean - half), min(1.0, mean + half)


def set_intervals(points: np.ndarray, luck: np.ndarray,
                  method: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """(adjusted interval, raw interval) of one sample of sets."""
    adjusted = luck_adjusted(points.tolist(), luck.tolist())
    if method == "old":
        return old_interval(adjusted.units), old_interval(points.tolist())
    pairs = pentanomial_from_pairs((2 * points).tolist())
    return adjusted_interval(adjusted), pentanomial_interval(pairs)


def set_coverage(draw: Draw, truth: float, sets: int, replicates: int, method: str,
                 rng: np.random.Generator) -> tuple[float, float]:
    """(adjusted, raw) share of samples whose interval holds the truth."""
    held = np.zeros(2)
    for _ in range(replicates):
        points, luck = draw(sets, rng)
        for i, (low, high) in enumerate(set_intervals(points, luck, method)):
            held[i] += low <= truth <= high
    adjusted, raw = held / replicates
    return float(adjusted), float(raw)


def game_coverage(wins: float, games: int, method: str) -> float:
    """Exact coverage of the score interval for independent games (every outcome's
    chance summed where its interval holds the truth)."""
    losses = 1 - wins - DRAWS
    truth = wins + DRAWS / 2
    held = 0.0
    for w in range(games + 1):
        for d in range(games - w + 1):
            lost = games - w - d
            if method == "old":
                low, high = old_interval([1.0] * w + [0.5] * d + [0.0] * lost)
            else:
                low, high = score_interval(MatchScore(w, d, lost))
            if low <= truth <= high:
                held += math.exp(math.lgamma(games + 1) - math.lgamma(w + 1) - math.lgamma(d + 1)
                                 - math.lgamma(lost + 1) + w * math.log(wins)
                                 + d * math.log(DRAWS) + lost * math.log(losses))
    return held


# ---------------------------------------------------------------------------
# The SPRT's type I error


def sprt_run(draw: Draw, settings: SprtSettings, cap: int, adjusted: bool,
             rng: np.random.Generator) -> tuple[str, int]:
    """One test on sets drawn from ``draw``: (verdict, sets played)."""
    points, luck = draw(cap, rng)
    for sets in range(LOOK_EVERY, cap + 1, LOOK_EVERY):
        if adjusted:
            tested: Any = luck_adjusted(points[:sets].tolist(), luck[:sets].tolist())
        else:
            tested = pentanomial_from_pairs((2 * points[:sets]).tolist())
        result = sprt(tested, settings)
        if result.is_finished:
            return result.verdict, sets
    return "continue", cap


def type_one_error(draw: Draw, settings: SprtSettings, runs: int, cap: int, adjusted: bool,
                   rng: np.random.Generator) -> tuple[float, float, float]:
    """(share accepting H1, share undecided at the cap, mean sets to the end)."""
    verdicts, lengths = [], []
    for _ in range(runs):
        verdict, sets = sprt_run(draw, settings, cap, adjusted, rng)
        verdicts.append(verdict)
        lengths.append(sets)
    return (verdicts.count("H1 accepted") / runs, verdicts.count("continue") / runs,
            float(np.mean(lengths)))


# ---------------------------------------------------------------------------
# Real sets

_CACHE: dict[str, Any] = {}


def play_set(task: tuple[str, int]) -> tuple[list[float], list[float]]:
    """Both seat orders on one seed: (the first bot's points, its luck)."""
    from arena.bots.loading import load_bot
    from arena.referee.match import play_game
    from arena.results.luck import account
    from arena.results.values import model_for

    name, seed = task
    if name not in _CACHE:
        first, second = REAL_PAIRS[name]
        _CACHE[name] = (load_bot(*first).player, load_bot(*second).player,
                        model_for("seasons", {}))
    first_bot, second_bot, model = _CACHE[name]
    points, luck = [], []
    for seat, players in ((0, [first_bot, second_bot]), (1, [second_bot, first_bot])):
        result = account(play_game("seasons", players, seed=seed), model)
        points.append(result.points[seat])
        luck.append(result.luck[seat])
    return points, luck


def real_worlds(sets: int, workers: int, seed: int, keep: Path | None) -> dict[str, Resampled]:
    """The played sets of each real pair (from ``keep`` where it holds them, else played
    and kept there)."""
    kept: dict[str, np.ndarray] = dict(np.load(keep)) if keep and keep.exists() else {}
    worlds = {}
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for name in REAL_PAIRS:
            started = time.perf_counter()
            if f"{name}_points" not in kept:
                rows = pool.map(play_set, [(name, seed * 1_000_003 + i) for i in range(sets)],
                                chunksize=4)
                kept[f"{name}_points"] = np.array([r[0] for r in rows]).mean(1)
                kept[f"{name}_luck"] = np.array([r[1] for r in rows]).mean(1)
            points, luck = kept[f"{name}_points"], kept[f"{name}_luck"]
            worlds[f"real {name}"] = Resampled.of(points, luck)
            print(f"  {len(points)} sets of the {name} pair ({time.perf_counter() - started:.0f} "
                  f"s): score {points.mean():.3f}, mean luck {luck.mean():+.4f} (centred)",
                  flush=True)
    if keep:
        arrays: dict[str, Any] = kept
        np.savez(keep, **arrays)
    return worlds


# ---------------------------------------------------------------------------
# Report


def cross_fitted_variance_ratio(draw: Draw, sets: int, replicates: int,
                                rng: np.random.Generator) -> float:
    """The variance of the cross-fitted adjusted mean over samples, over the mean of the
    squared standard error its interval uses (``sum_f n_f s_f² / n²``, each fold adjusted
    with the slope fitted on the other): 1 where the interval carries the error of the
    fitted slopes, above 1 where it misses some."""
    means, squares = [], []
    for _ in range(replicates):
        points, luck = draw(sets, rng)
        units = np.array(luck_adjusted(points.tolist(), luck.tolist()).units)
        folds = (units[0::2], units[1::2])
        means.append(units.mean())
        squares.append(sum(len(f) * f.var(ddof=1) for f in folds) / sets ** 2)
    return float(np.var(means) / np.mean(squares))


def coverage_table(worlds: dict[str, tuple[Draw, float]], replicates: int,
                   rng: np.random.Generator) -> dict[str, tuple[float, float]]:
    """Print each world's coverage; by world, the worst (adjusted, raw) of the new method."""
    worst = {}
    print(f"\nduplicate sets, {replicates} samples each: coverage of 95 % intervals, "
          "luck-adjusted | raw pairs (old → new)")
    for name, (draw, truth) in worlds.items():
        print(f"  {name:<11} (truth {truth:.3f})")
        lowest = [1.0, 1.0]
        for sets in SIZES:
            old = set_coverage(draw, truth, sets, replicates, "old", rng)
            new = set_coverage(draw, truth, sets, replicates, "new", rng)
            lowest = [min(lowest[0], new[0]), min(lowest[1], new[1])]
            slope = ""
            if sets >= CROSS_FIT_FROM:
                ratio = cross_fitted_variance_ratio(draw, sets, replicates, rng)
                slope = f"  (variance of the adjusted mean / its se²: {ratio:.3f})"
            print(f"    {sets:>3}: {old[0]:.3f} → {new[0]:.3f} | {old[1]:.3f} → {new[1]:.3f}"
                  f"{slope}", flush=True)
        worst[name] = (lowest[0], lowest[1])
    return worst


def game_table() -> float:
    worst = 1.0
    print("\nindependent games (2 % draws): exact coverage of the score interval (old → new)")
    for wins in GAME_WINS:
        cells = []
        for games in GAME_SIZES:
            old = game_coverage(wins, games, "old")
            new = game_coverage(wins, games, "new")
            worst = min(worst, new)
            cells.append(f"{games} games {old:.3f} → {new:.3f}")
        print(f"  score {wins + DRAWS / 2:.2f}: " + ", ".join(cells), flush=True)
    return worst


def sprt_table(worlds: dict[str, Draw], args: argparse.Namespace,
               rng: np.random.Generator) -> float:
    settings = SprtSettings(0.0, args.elo1)
    print(f"\nSPRT type I error: H0 true (score 50 %), elo0 0, elo1 {args.elo1:g}, alpha = "
          f"beta = 0.05, {args.runs} tests each, a look every {LOOK_EVERY} sets, at most "
          f"{args.cap} sets")
    worst = 0.0
    for name, draw in worlds.items():
        for adjusted in (False, True):
            started = time.perf_counter()
            error, open_, length = type_one_error(draw, settings, args.runs, args.cap,
                                                  adjusted, rng)
            worst = max(worst, error)
            se = math.sqrt(error * (1 - error) / args.runs)
            print(f"  {name:<11} {'adjusted' if adjusted else 'raw pairs':<9}: H1 accepted "
                  f"{error:.3f} ± {se:.3f}, undecided {open_:.3f}, mean {length:,.0f} sets "
                  f"({time.perf_counter() - started:.0f} s)", flush=True)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--elo1", type=float, default=5.0)
    parser.add_argument("--cap", type=int, default=5000)
    parser.add_argument("--real-sets", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, metavar="FILE.npz",
                        help="keep the real sets in this file, and reuse them from it")
    parser.add_argument("--quick", action="store_true",
                        help="400 replicates, 100 runs, no real sets")
    args = parser.parse_args()
    if args.quick:
        args.replicates, args.runs, args.real_sets = 400, 100, 0
    started = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    worlds: dict[str, tuple[Draw, float]] = {
        name: (world.draw, world.truth) for name, world in SYNTHETIC.items()}
    real: dict[str, Resampled] = {}
    if args.real_sets:
        print(f"real sets ({args.real_sets} per pair, {args.workers} workers):")
        real = real_worlds(args.real_sets, args.workers, args.seed, args.keep)
        worlds.update((name, (world.draw, world.truth)) for name, world in real.items())
    worst = coverage_table(worlds, args.replicates, rng)
    games = game_table()
    h0: dict[str, Draw] = {"close": dataclasses.replace(SYNTHETIC["close"], truth=0.5).draw}
    if "real close" in real:
        h0["real close"] = real["real close"].tilted(expected_score(0.0)).draw
    type_one = sprt_table(h0, args, rng) if args.runs else math.nan
    print(f"\n({time.perf_counter() - started:.0f} s in all)")
    real_names = [name for name in worst if name.startswith("real")]
    figures = [("luck-adjusted interval, synthetic sets", [worst[n][0] for n in SYNTHETIC]),
               ("raw interval of pairs, synthetic sets", [worst[n][1] for n in SYNTHETIC])]
    if real_names:
        figures += [("luck-adjusted interval, real sets", [worst[n][0] for n in real_names]),
                    ("raw interval of pairs, real sets", [worst[n][1] for n in real_names])]
    figures.append(("score interval of independent games (exact)", [games]))
    for label, values in figures:
        value = min(values)
        verdict = "met" if value >= COVERAGE_GOAL else "NOT met"
        print(f"worst coverage from 10 sets on, {label}: {value:.3f} (goal ≥ {COVERAGE_GOAL}: "
              f"{verdict}, ratio to goal {value / COVERAGE_GOAL:.3f})")
    if math.isnan(type_one):
        return
    verdict = "met" if type_one <= TYPE_ONE_GOAL else "NOT met"
    print(f"worst SPRT type I error: {type_one:.3f} (nominal {TYPE_ONE_GOAL}: {verdict}, "
          f"ratio to nominal {type_one / TYPE_ONE_GOAL:.3f})")


if __name__ == "__main__":
    main()
