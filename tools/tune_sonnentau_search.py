"""Weigh parameters of the Sonnentau search bot against its defaults in duplicate sets.

For each JSON object of parameters given, ``bots/sonnentau/search.py`` with them plays
the bot with its defaults on ``--sets`` seeds from ``--seed``, both seat orders on each
seed (a duplicate set), and every game's luck is accounted for with the shipped value
model of the dice variant. Printed per candidate: the mean score per game with its 95 %
interval over the sets, and the luck-adjusted score with its interval as ``arena
compare`` computes them (:func:`arena.results.stats.luck_adjusted`, the share of the
luck cross-fitted) — the figure a scan ranks by.

This is how the weights of ``search-tuned`` in ``configs/sonnentau-ladder.yaml`` were
found: single changes and then pairs and triples around the best, 200 sets each on seeds
from 5,100,000 (about 35 s a candidate with standard dice on 2 cores, 90 s with Miwin
dice), then the chosen weights confirmed on 600 fresh sets from seed 6,000,000.
Candidates scanned on the same seeds share their luck, so the best of many is flattered
by chance: confirm it on other seeds.

    .venv/bin/python tools/tune_sonnentau_search.py --dice standard --sets 200 \\
        --seed 5100000 '{"spare": 1.2, "shortcut": 0.4, "exposure": 0.6}' ...
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import time
from pathlib import Path
from typing import Any

from arena.bots.loading import load_bot
from arena.games.base import ArenaError
from arena.referee.match import play_game
from arena.results.luck import account
from arena.results.stats import adjusted_interval, luck_adjusted, mean_score_interval
from arena.results.values import model_for

SEARCH = str(Path(__file__).resolve().parents[1] / "bots/sonnentau/search.py")
_LOADED: dict[str, Any] = {}


def _player(params: dict[str, Any]) -> Any:
    key = json.dumps(params, sort_keys=True)
    if key not in _LOADED:
        _LOADED[key] = load_bot(SEARCH, params).player
    return _LOADED[key]


def play_set(task: tuple[dict[str, Any], int, str]) -> tuple[float, float]:
    """The candidate's mean points and mean luck over both seat orders on one seed."""
    params, seed, dice = task
    candidate, base = _player(params), _player({})
    model = _LOADED.setdefault(f"model/{dice}", model_for("sonnentau", {"dice": dice}))
    points = luck = 0.0
    for seat, players in ((0, [candidate, base]), (1, [base, candidate])):
        result = account(play_game("sonnentau", players, seed=seed,
                                   options={"dice": dice}), model)
        points += result.points[seat] / 2
        luck += result.luck[seat] / 2
    return points, luck


def summary(params: dict[str, Any], sets: list[tuple[float, float]], seconds: float) -> str:
    points = [p for p, _ in sets]
    raw_low, raw_high = mean_score_interval(points)
    adjusted = luck_adjusted(points, [lk for _, lk in sets], 2 * len(sets))
    low, high = adjusted_interval(adjusted)
    return (f"{json.dumps(params)}: score {100 * statistics.fmean(points):.1f}% "
            f"({100 * raw_low:.1f}% to {100 * raw_high:.1f}%), luck-adjusted "
            f"{100 * adjusted.score:.1f}% ({100 * low:.1f}% to {100 * high:.1f}%; share of "
            f"the luck {adjusted.scale:.2f}; {len(sets)} sets in {seconds:.0f} s)")


def candidate(parser: argparse.ArgumentParser, text: str) -> dict[str, Any]:
    """The parameters ``text`` gives, checked by loading the bot with them."""
    try:
        params = json.loads(text)
    except json.JSONDecodeError as exc:
        parser.error(f"{text!r} is not JSON: {exc}")
    if not isinstance(params, dict):
        parser.error(f"{text!r} is not a JSON object of parameters")
    try:
        _player(params)
    except ArenaError as exc:
        parser.error(str(exc))
    return params


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("candidates", nargs="+", help="parameters as a JSON object")
    parser.add_argument("--dice", choices=["standard", "miwin"], default="standard")
    parser.add_argument("--sets", type=int, default=200)
    parser.add_argument("--seed", type=int, default=5_100_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if args.sets < 2:
        parser.error("give at least 2 sets")
    candidates = [candidate(parser, text) for text in args.candidates]
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        for params in candidates:
            started = time.perf_counter()
            tasks = [(params, args.seed + i, args.dice) for i in range(args.sets)]
            sets = pool.map(play_set, tasks, chunksize=4)
            print(summary(params, sets, time.perf_counter() - started), flush=True)


if __name__ == "__main__":
    main()
