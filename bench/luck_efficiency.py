"""Benchmark: how many fewer games luck accounting needs for the same certainty.

For each pairing it plays ``--pairs`` duplicate pairs (one dice seed, both seat
orders) with trusted bots in this process's workers, accounts for every game's
luck with the game's shipped value model (:mod:`arena.results.values`), and
prints, for the first bot's score:

* the games needed for a 95 % interval of half-width ``--half-width`` with
  independent dice (one game of each pair, seats alternating), with duplicate
  pairs, and with duplicate pairs plus luck adjustment, and the ratio of the
  last two (bootstrap 95 % interval over the pairs);
* the SPRT's mean number of games to a decision (elo0 = 0, elo1 = the measured
  difference, alpha = beta = 0.05), raw pairs against adjusted pairs, from
  ``--sprt-runs`` simulated tests drawing pairs with replacement from the
  sample; both use the same normal-approximation GSPRT on per-pair scores;
* how much of the accounted luck the cross-fitted adjustment takes out
  (:func:`arena.results.stats.luck_adjusted`) and the ratio with all of it taken out;
* unbiasedness: the raw and the adjusted mean score with their intervals, and
  the mean luck of seat 0 in random-vs-random games (it must be 0);
* the cost: accounting a game against playing it, seconds per game.

The share of the luck taken out is cross-fitted (each half of the pairs is
adjusted with the factor fitted on the other half), and the Sonnentau model's
coefficients come from other self-play games, so the adjusted scores stay
unbiased. Goals: Seasons
≤ 0.2 for the close strong pair and for expectimax vs greedy, ≤ 0.6 for the
weak pair; Sonnentau ≤ 0.75. The last line for each game reads
``GAME: luck-adjusted / duplicate games ratio R (close pair)``.

Run from the repository root (about 15 minutes with 2 workers at 400 pairs)::

    .venv/bin/python bench/luck_efficiency.py [--pairs 400] [--workers 2] [--seed 18]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from arena.bots.loading import load_bot
from arena.referee.match import play_game
from arena.results.luck import account
from arena.results.stats import expected_score, luck_adjusted
from arena.results.values import model_for

ROOT = Path(__file__).resolve().parent.parent
SEASONS = ROOT / "bots" / "seasons"
SONNENTAU = ROOT / "bots" / "sonnentau"
Z = 1.959963984540054


@dataclass(frozen=True)
class Pairing:
    label: str
    game: str
    first: tuple[str, dict[str, Any]]
    second: tuple[str, dict[str, Any]]
    options: tuple[tuple[str, Any], ...] = ()
    goal: float = 0.2
    close: bool = False


PAIRINGS = (
    Pairing("weak pair: greedy vs greedy without re-rolls", "seasons",
            (str(SEASONS / "greedy.py"), {}), (str(SEASONS / "greedy.py"), {"rerolls": False}),
            goal=0.6),
    Pairing("clear pair: expectimax vs greedy", "seasons",
            (str(SEASONS / "expectimax.py"), {}), (str(SEASONS / "greedy.py"), {})),
    Pairing("close pair: expectimax vs expectimax without its endgame search", "seasons",
            (str(SEASONS / "expectimax.py"), {}),
            (str(SEASONS / "expectimax.py"), {"endgame_nodes": 0}), close=True),
    Pairing("heuristic vs search, miwin dice", "sonnentau",
            (str(SONNENTAU / "heuristic.py"), {}), (str(SONNENTAU / "search.py"), {}),
            (("dice", "miwin"),), goal=0.75),
    Pairing("heuristic vs search, standard dice", "sonnentau",
            (str(SONNENTAU / "heuristic.py"), {}), (str(SONNENTAU / "search.py"), {}),
            (("dice", "standard"),), goal=0.75, close=True),
)
RANDOM = {"seasons": str(SEASONS / "random_bot.py"), "sonnentau": str(SONNENTAU / "random_bot.py")}

_CACHE: dict[Any, Any] = {}


def _player(spec: str, params: dict[str, Any]) -> Any:
    key = ("bot", spec, tuple(sorted(params.items())))
    if key not in _CACHE:
        _CACHE[key] = load_bot(spec, params).player
    return _CACHE[key]


def _model(game: str, options: dict[str, Any]) -> Any:
    key = ("model", game, tuple(sorted(options.items())))
    if key not in _CACHE:
        _CACHE[key] = model_for(game, options)
    return _CACHE[key]


def play_pair(task: tuple[int, int]) -> tuple[list[float], list[float], float, float]:
    """Both seat orders on one seed: (first bot's points, its luck, play s, account s)."""
    index, seed = task
    pairing = PAIRINGS[index]
    options = dict(pairing.options)
    first, second = _player(*pairing.first), _player(*pairing.second)
    model = _model(pairing.game, options)
    points, luck, play, accounting = [], [], 0.0, 0.0
    for seat, players in ((0, [first, second]), (1, [second, first])):
        start = time.perf_counter()
        record = play_game(pairing.game, players, seed=seed, options=options)
        middle = time.perf_counter()
        result = account(record, model)
        accounting += time.perf_counter() - middle
        play += middle - start
        points.append(result.points[seat])
        luck.append(result.luck[seat])
    return points, luck, play, accounting


def random_luck(task: tuple[str, int, tuple[tuple[str, Any], ...]]) -> float:
    """Seat 0's luck in one random-vs-random game."""
    game, seed, options = task
    bot = _player(RANDOM[game], {})
    record = play_game(game, [bot, bot], seed=seed, options=dict(options))
    return float(account(record, _model(game, dict(options))).luck[0])


def games_for(variance_per_game: float, half_width: float) -> float:
    return (Z / half_width) ** 2 * variance_per_game


def bootstrap_ratio(raw: np.ndarray, adjusted: np.ndarray, rng: np.random.Generator,
                    draws: int = 2000) -> tuple[float, float]:
    n = len(raw)
    picks = rng.integers(0, n, size=(draws, n))
    ratios = adjusted[picks].var(axis=1) / raw[picks].var(axis=1)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return float(low), float(high)


def sprt_games(units: np.ndarray, elo1: float, runs: int, rng: np.random.Generator,
               cap: int) -> tuple[float, float]:
    """(mean games to a decision, share of runs undecided at ``cap`` pairs)."""
    s0, s1 = expected_score(0.0), expected_score(elo1)
    lower, upper = math.log(0.05 / 0.95), math.log(0.95 / 0.05)
    picks = units[rng.integers(0, len(units), size=(runs, cap))]
    n = np.arange(1, cap + 1)
    mean = np.cumsum(picks, axis=1) / n
    variance = np.maximum(np.cumsum(picks ** 2, axis=1) / n - mean ** 2, 1e-12)
    llr = 0.5 * (s1 - s0) * (2 * mean - s0 - s1) / variance * n
    llr[:, :1] = 0.0  # one pair has no variance
    done = (llr >= upper) | (llr <= lower)
    decided = done.any(axis=1)
    first = np.where(decided, done.argmax(axis=1) + 1, cap)
    return float(2 * first.mean()), float(1 - decided.mean())


def elo_of(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def report_pairing(pairing: Pairing, rows: list[tuple[list[float], list[float], float, float]],
                   args: argparse.Namespace, rng: np.random.Generator) -> float:
    points = np.array([r[0] for r in rows])
    luck = np.array([r[1] for r in rows])
    raw_sets = points.mean(axis=1)
    fitted = luck_adjusted(raw_sets.tolist(), luck.mean(axis=1).tolist())
    adjusted_sets = np.array(fitted.units)
    all_luck_ratio = (points - luck).mean(axis=1).var() / raw_sets.var()
    independent = points[np.arange(len(rows)), np.arange(len(rows)) % 2]
    h = args.half_width
    n_ind = games_for(independent.var(), h)
    n_dup = 2 * games_for(raw_sets.var(), h)
    n_adj = 2 * games_for(adjusted_sets.var(), h)
    ratio = adjusted_sets.var() / raw_sets.var()
    low, high = bootstrap_ratio(raw_sets, adjusted_sets, rng)
    raw_mean, adj_mean = raw_sets.mean(), adjusted_sets.mean()
    raw_half = Z * raw_sets.std() / math.sqrt(len(rows))
    adj_half = Z * adjusted_sets.std() / math.sqrt(len(rows))
    agree = abs(raw_mean - adj_mean) <= raw_half
    stronger = 1.0 if adj_mean >= 0.5 else -1.0
    elo1 = max(5.0, abs(elo_of(adj_mean)))
    raw_sprt, raw_open = sprt_games(0.5 + stronger * (raw_sets - 0.5), elo1, args.sprt_runs,
                                    rng, args.sprt_cap)
    adj_sprt, adj_open = sprt_games(0.5 + stronger * (adjusted_sets - 0.5), elo1,
                                    args.sprt_runs, rng, args.sprt_cap)
    play = sum(r[2] for r in rows) / (2 * len(rows))
    accounting = sum(r[3] for r in rows) / (2 * len(rows))
    print(f"\n{pairing.game}: {pairing.label} ({len(rows)} duplicate pairs)")
    print(f"  score of the first bot: raw {100 * raw_mean:.1f}% ± {100 * raw_half:.1f}, "
          f"luck-adjusted {100 * adj_mean:.1f}% ± {100 * adj_half:.1f} "
          f"({'agree' if agree else 'DISAGREE'}: the adjusted mean lies "
          f"{'inside' if agree else 'outside'} the raw interval)")
    print(f"  games for a 95% interval of ±{100 * h:.0f} points: independent dice "
          f"{n_ind:,.0f}, duplicate {n_dup:,.0f}, duplicate + luck {n_adj:,.0f}")
    print(f"  duplicate / independent {n_dup / n_ind:.2f}; luck-adjusted / duplicate "
          f"{ratio:.3f} (95% {low:.3f} to {high:.3f}; goal ≤ {pairing.goal}, ratio to goal "
          f"{ratio / pairing.goal:.2f}); {100 * fitted.scale:.0f}% of the luck taken out "
          f"(cross-fitted; all of it: {all_luck_ratio:.3f})")
    print(f"  SPRT elo0 0, elo1 {elo1:.0f}: mean games to a decision raw {raw_sprt:,.0f}"
          f"{f' ({100 * raw_open:.0f}% undecided at the cap)' if raw_open else ''}, "
          f"adjusted {adj_sprt:,.0f}{f' ({100 * adj_open:.0f}% undecided)' if adj_open else ''}"
          f" ({adj_sprt / raw_sprt:.2f}x)")
    print(f"  cost per game: playing {1000 * play:.1f} ms, accounting {1000 * accounting:.1f} ms "
          f"({accounting / play:.2f}x the play)")
    return ratio


def report_random_luck(game: str, luck: list[float]) -> None:
    values = np.array(luck)
    half = Z * values.std() / math.sqrt(len(values))
    inside = abs(values.mean()) <= half
    print(f"  {game}, random vs random, {len(values)} games: mean luck of seat 0 "
          f"{values.mean():+.4f} ± {half:.4f} ({'zero within' if inside else 'NOT zero at'} "
          "95%)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--random-games", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--half-width", type=float, default=0.02)
    parser.add_argument("--sprt-runs", type=int, default=400)
    parser.add_argument("--sprt-cap", type=int, default=20_000)
    parser.add_argument("--games", nargs="+", default=["seasons", "sonnentau"],
                        choices=["seasons", "sonnentau"])
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    ratios: dict[str, float] = {}
    started = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        print("unbiasedness: the luck of random play")
        for game, options in (("seasons", ()), ("sonnentau", (("dice", "standard"),))):
            if game not in args.games:
                continue
            if model_for(game, dict(options)) is None:
                print(f"  {game}: no value model for {dict(options)}; skipped")
                continue
            tasks = [(game, args.seed * 1_000_003 + i, options) for i in range(args.random_games)]
            report_random_luck(game, pool.map(random_luck, tasks, chunksize=8))
        for index, pairing in enumerate(PAIRINGS):
            if pairing.game not in args.games:
                continue
            if model_for(pairing.game, dict(pairing.options)) is None:
                print(f"\n{pairing.game}: {pairing.label}: no value model; skipped")
                continue
            tasks = [(index, args.seed * 1_000_003 + i) for i in range(args.pairs)]
            rows = pool.map(play_pair, tasks, chunksize=4)
            ratio = report_pairing(pairing, rows, args, rng)
            if pairing.close:
                ratios[pairing.game] = ratio
    print(f"\n({time.perf_counter() - started:.0f} s in all)")
    for game, ratio in ratios.items():
        print(f"{game}: luck-adjusted / duplicate games ratio {ratio:.3f} (close pair)")


if __name__ == "__main__":
    main()
