"""Benchmark: how many fewer games luck accounting needs for the same certainty.

For each pairing it plays ``--pairs`` duplicate sets (one dice seed, both seat
orders) with trusted bots in this process's workers, accounts for every game's
luck with the game's shipped value model (:mod:`arena.results.values`), and
prints, for the first bot's score:

* the games needed for a 95 % interval of half-width ``--half-width`` with
  independent dice (one game of each set, seats alternating), with duplicate
  sets, and with duplicate sets plus luck adjustment, and the ratio of the
  last two (bootstrap 95 % interval over the sets) against the pairing's goal;
* the SPRT's mean number of games to a decision, raw pairs against adjusted
  sets, both at one common truth: ``--sprt-runs`` simulated tests draw the
  measured sets with replacement, their luck centred on the sample so that the
  raw and the adjusted score have the same expectation, the sample's score.
  That score is H1 (``elo1``) and H0 lies ``--sprt-width`` of a point of score
  below it. Both tests are arena's own, fishtest's exact GSPRT
  (:func:`arena.results.stats.sprt`): the raw one on the pentanomial of the
  pairs, the adjusted one on :func:`arena.results.stats.luck_adjusted` sets,
  cross-fitted from 40 sets on, with a look after every set up to 80 sets,
  then every 8 (compare's interval);
* how much of the accounted luck the cross-fitted adjustment takes out and the
  ratio with all of it taken out;
* unbiasedness: the raw and the adjusted mean score with their intervals, and
  the mean luck of seat 0 in random-vs-random games (it must be 0);
* the cost: accounting a game against playing it, seconds per game.

The Sonnentau model's coefficients come from other self-play games, and the
share of the luck taken out is cross-fitted, so the adjusted scores stay
unbiased. Goals (luck-adjusted / duplicate games): Seasons ≤ 0.2 for the
expectimax pairs, ≤ 0.25 for the close pair without expectimax (greedy against
greedy making a random move 10 % of the time) and for the weak pair (greedy
against greedy without re-rolls); Sonnentau ≤ 0.5. The last lines give each
pairing's ratio and its ratio to the goal; the line for each game's close pair
reads ``GAME: luck-adjusted / duplicate games ratio R (close pair)``.

Run from the repository root (about 15 minutes with 2 workers at 400 sets;
``--keep FILE.npz`` keeps the played sets and reuses them)::

    .venv/bin/python bench/luck_efficiency.py [--pairs 400] [--workers 2] [--seed 18]
        [--games seasons|sonnentau] [--only 'label text'] [--keep sets.npz]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from arena.bots.loading import load_bot
from arena.referee.match import play_game
from arena.results.luck import account
from arena.results.stats import (
    CONTINUE,
    H1_ACCEPTED,
    SprtSettings,
    elo_difference,
    luck_adjusted,
    pentanomial_from_pairs,
    sprt,
)
from arena.results.values import model_for

ROOT = Path(__file__).resolve().parent.parent
SEASONS = ROOT / "bots" / "seasons"
SONNENTAU = ROOT / "bots" / "sonnentau"
Z = 1.959963984540054
NOISY_GREEDY = "noisy-greedy"
"""A bench-only bot: Seasons' greedy bot playing a random legal action 10 % of the time."""
EVERY_LOOK_UNTIL = 80
LOOK_EVERY = 8


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
    Pairing("close pair: expectimax vs expectimax without its endgame search", "seasons",
            (str(SEASONS / "expectimax.py"), {}),
            (str(SEASONS / "expectimax.py"), {"endgame_nodes": 0}), close=True),
    Pairing("clear pair: expectimax vs greedy", "seasons",
            (str(SEASONS / "expectimax.py"), {}), (str(SEASONS / "greedy.py"), {})),
    Pairing("close pair without expectimax: greedy vs greedy with 10% random moves",
            "seasons", (str(SEASONS / "greedy.py"), {}), (NOISY_GREEDY, {"noise": 0.1}),
            goal=0.25),
    Pairing("weak pair: greedy vs greedy without re-rolls", "seasons",
            (str(SEASONS / "greedy.py"), {}), (str(SEASONS / "greedy.py"), {"rerolls": False}),
            goal=0.25),
    Pairing("heuristic vs search, standard dice", "sonnentau",
            (str(SONNENTAU / "heuristic.py"), {}), (str(SONNENTAU / "search.py"), {}),
            (("dice", "standard"),), goal=0.5, close=True),
    Pairing("heuristic vs search, miwin dice", "sonnentau",
            (str(SONNENTAU / "heuristic.py"), {}), (str(SONNENTAU / "search.py"), {}),
            (("dice", "miwin"),), goal=0.5),
)
RANDOM = {"seasons": str(SEASONS / "random_bot.py"), "sonnentau": str(SONNENTAU / "random_bot.py")}

_CACHE: dict[Any, Any] = {}


class NoisyGreedy:
    """Greedy, but a random legal action with probability ``noise`` (seeded per game)."""

    name = NOISY_GREEDY
    version = "1.0"

    def __init__(self, noise: float) -> None:
        self.greedy = load_bot(str(SEASONS / "greedy.py")).player
        self.noise = noise
        self.rng = random.Random(0)

    def start(self, info: Any) -> None:
        self.rng = random.Random(f"{NOISY_GREEDY}/{info.seed}")

    def act(self, observation: Any) -> Any:
        if self.rng.random() < self.noise:
            return self.rng.choice(observation.legal_actions)
        return self.greedy.act(observation)


def _player(spec: str, params: dict[str, Any]) -> Any:
    key = ("bot", spec, tuple(sorted(params.items())))
    if key not in _CACHE:
        _CACHE[key] = NoisyGreedy(**params) if spec == NOISY_GREEDY else load_bot(
            spec, params).player
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


# ---------------------------------------------------------------------------
# The SPRT at one common truth


@dataclass(frozen=True)
class SprtFigures:
    """Mean sets to a decision, share accepting H1, share undecided at the cap."""

    sets: float
    h1: float
    undecided: float


def common_truth_hypotheses(points: np.ndarray, width: float) -> SprtSettings:
    """H1 at the sets' own score, H0 ``width`` of a point of score below it (above it where
    the score is within ``width`` of 0)."""
    truth = float(points.mean())
    other = truth - width if truth - width > 0.0 else truth + width
    low, high = sorted((truth, other))
    elo0, elo1 = elo_difference(low), elo_difference(high)
    return SprtSettings(elo0, elo1)


def is_look(sets: int) -> bool:
    return sets >= 2 and (sets < EVERY_LOOK_UNTIL or sets % LOOK_EVERY == 0)


def sprt_run(points: np.ndarray, luck: np.ndarray, settings: SprtSettings,
             adjusted: bool) -> tuple[str, int]:
    """One test on these sets, in order: (verdict, sets played to it)."""
    for sets in range(2, len(points) + 1):
        if not is_look(sets):
            continue
        if adjusted:
            tested: Any = luck_adjusted(points[:sets].tolist(), luck[:sets].tolist())
        else:
            tested = pentanomial_from_pairs((2 * points[:sets]).tolist())
        verdict = sprt(tested, settings).verdict
        if verdict != CONTINUE:
            return verdict, sets
    return CONTINUE, len(points)


def sprt_at_one_truth(points: np.ndarray, luck: np.ndarray, settings: SprtSettings,
                      runs: int, cap: int,
                      rng: np.random.Generator) -> tuple[SprtFigures, SprtFigures]:
    """(raw, adjusted) figures over ``runs`` tests, each pair of tests on the same sets
    drawn with replacement; the luck centred, so that both have the sample's score as
    their truth."""
    centred = luck - luck.mean()
    found: dict[bool, list[tuple[str, int]]] = {False: [], True: []}
    for _ in range(runs):
        picks = rng.integers(0, len(points), size=cap)
        for adjusted in (False, True):
            found[adjusted].append(sprt_run(points[picks], centred[picks], settings, adjusted))
    return figures_of(found[False]), figures_of(found[True])


def figures_of(tests: list[tuple[str, int]]) -> SprtFigures:
    verdicts = [verdict for verdict, _ in tests]
    return SprtFigures(float(np.mean([sets for _, sets in tests])),
                       verdicts.count(H1_ACCEPTED) / len(tests),
                       verdicts.count(CONTINUE) / len(tests))


# ---------------------------------------------------------------------------
# Report


@dataclass(frozen=True)
class Measured:
    label: str
    game: str
    ratio: float
    goal: float
    sprt_ratio: float
    close: bool


def report_pairing(pairing: Pairing, rows: list[tuple[list[float], list[float], float, float]],
                   args: argparse.Namespace, rng: np.random.Generator) -> Measured:
    points = np.array([r[0] for r in rows])
    luck = np.array([r[1] for r in rows])
    raw_sets = points.mean(axis=1)
    luck_sets = luck.mean(axis=1)
    fitted = luck_adjusted(raw_sets.tolist(), luck_sets.tolist())
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
    settings = common_truth_hypotheses(raw_sets, args.sprt_width)
    raw, adj = sprt_at_one_truth(raw_sets, luck_sets, settings, args.sprt_runs, args.sprt_cap,
                                 rng)
    play = sum(r[2] for r in rows) / (2 * len(rows))
    accounting = sum(r[3] for r in rows) / (2 * len(rows))
    print(f"\n{pairing.game}: {pairing.label} ({len(rows)} duplicate sets)")
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
    print(f"  SPRT at one truth, the sets' score {100 * raw_mean:.1f}% = H1 (elo1 "
          f"{settings.elo1:+.1f}), H0 {100 * args.sprt_width:g} points below (elo0 "
          f"{settings.elo0:+.1f}), {args.sprt_runs} tests: mean games to a decision raw "
          f"{2 * raw.sets:,.0f} (H1 {100 * raw.h1:.0f}%{undecided(raw)}), adjusted "
          f"{2 * adj.sets:,.0f} (H1 {100 * adj.h1:.0f}%{undecided(adj)}): "
          f"{adj.sets / raw.sets:.3f} of the games")
    print(f"  cost per game: playing {1000 * play:.1f} ms, accounting {1000 * accounting:.1f} ms "
          f"({accounting / play:.2f}x the play)", flush=True)
    return Measured(pairing.label, pairing.game, float(ratio), pairing.goal,
                    adj.sets / raw.sets, pairing.close)


def undecided(figures: SprtFigures) -> str:
    return f", {100 * figures.undecided:.0f}% undecided at the cap" if figures.undecided else ""


def report_random_luck(game: str, luck: list[float]) -> None:
    values = np.array(luck)
    half = Z * values.std() / math.sqrt(len(values))
    inside = abs(values.mean()) <= half
    print(f"  {game}, random vs random, {len(values)} games: mean luck of seat 0 "
          f"{values.mean():+.4f} ± {half:.4f} ({'zero within' if inside else 'NOT zero at'} "
          "95%)")


def played_sets(pool: Any, index: int, args: argparse.Namespace,
                kept: dict[str, np.ndarray]) -> list[tuple[list[float], list[float], float,
                                                           float]]:
    """The pairing's sets, from ``kept`` where it holds as many, else played (and kept)."""
    key = f"{index}-{args.seed}-{args.pairs}"
    if f"{key}-points" not in kept:
        tasks = [(index, args.seed * 1_000_003 + i) for i in range(args.pairs)]
        rows = pool.map(play_pair, tasks, chunksize=4)
        kept[f"{key}-points"] = np.array([r[0] for r in rows])
        kept[f"{key}-luck"] = np.array([r[1] for r in rows])
        kept[f"{key}-seconds"] = np.array([r[2:] for r in rows])
    return [(list(p), list(lk), float(s[0]), float(s[1])) for p, lk, s in
            zip(kept[f"{key}-points"], kept[f"{key}-luck"], kept[f"{key}-seconds"],
                strict=True)]


def summary(measured: list[Measured]) -> None:
    for m in measured:
        verdict = "met" if m.ratio <= m.goal else f"NOT met by {m.ratio - m.goal:.3f}"
        print(f"{m.game}, {m.label}: luck-adjusted / duplicate {m.ratio:.3f}, goal ≤ {m.goal} "
              f"({verdict}; ratio to goal {m.ratio / m.goal:.2f}); SPRT games at one truth "
              f"{m.sprt_ratio:.3f}")
    for m in measured:
        if m.close:
            print(f"{m.game}: luck-adjusted / duplicate games ratio {m.ratio:.3f} (close pair)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--random-games", type=int, default=400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--half-width", type=float, default=0.02)
    parser.add_argument("--sprt-runs", type=int, default=400)
    parser.add_argument("--sprt-width", type=float, default=0.02,
                        help="score between H0 and H1 (default 0.02: two points)")
    parser.add_argument("--sprt-cap", type=int, default=5_000, help="sets per test at most")
    parser.add_argument("--games", nargs="+", default=["seasons", "sonnentau"],
                        choices=["seasons", "sonnentau"])
    parser.add_argument("--only", metavar="TEXT",
                        help="only the pairings whose label has TEXT (e.g. 'without expectimax')")
    parser.add_argument("--keep", type=Path, metavar="FILE.npz",
                        help="keep the played sets in this file, and reuse them from it")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    kept: dict[str, np.ndarray] = dict(np.load(args.keep)) if args.keep and \
        args.keep.exists() else {}
    measured: list[Measured] = []
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
            if pairing.game not in args.games or (args.only and args.only not in pairing.label):
                continue
            if model_for(pairing.game, dict(pairing.options)) is None:
                print(f"\n{pairing.game}: {pairing.label}: no value model; skipped")
                continue
            rows = played_sets(pool, index, args, kept)
            if args.keep:
                arrays: dict[str, Any] = kept
                np.savez(args.keep, **arrays)
            measured.append(report_pairing(pairing, rows, args, rng))
    print(f"\n({time.perf_counter() - started:.0f} s in all)")
    summary(measured)


if __name__ == "__main__":
    main()
