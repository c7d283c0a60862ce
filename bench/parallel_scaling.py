"""A tournament on 2 worker processes against 1: the speed-up (goal >= 1.7 on two cores).

    .venv/bin/python bench/parallel_scaling.py [--games-per-pairing 300] [--isolation none]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

ROOT = Path(__file__).resolve().parents[1]


def parent_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed_run(folder: Path, workers: int, games_per_pairing: int,
              isolation: str) -> tuple[float, float]:
    """Games per second, and the parent's CPU seconds per game."""
    config = parse_config({
        "name": f"scaling-{workers}", "game": "seasons", "seed": 1, "workers": workers,
        "isolation": isolation, "games_per_pairing": games_per_pairing,
        "db": str(folder / f"w{workers}.db"),
        "bots": [str(ROOT / "bots/seasons/greedy.py"), str(ROOT / "bots/seasons/random_bot.py"),
                 {"spec": str(ROOT / "bots/seasons/greedy.py"), "name": "keep",
                  "params": {"rerolls": False}}]})
    with Store(config.db) as store:
        started, cpu = time.perf_counter(), parent_cpu()
        report = run_tournament(config, store)
        seconds, cpu = time.perf_counter() - started, parent_cpu() - cpu
    assert report.complete
    return report.total / seconds, cpu / report.total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-per-pairing", type=int, default=300)
    parser.add_argument("--isolation", choices=["none", "process", "sandbox"], default="none")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        one, _ = timed_run(Path(folder), 1, args.games_per_pairing, args.isolation)
        two, parent = timed_run(Path(folder), 2, args.games_per_pairing, args.isolation)
    ratio = two / one
    games = 3 * 2 * args.games_per_pairing
    print(f"{games} games, isolation {args.isolation}")
    print(f"1 worker:  {one:8.1f} games/s")
    print(f"2 workers: {two:8.1f} games/s (the parent: {1000 * parent:.2f} ms of CPU a game)")
    print(f"speed-up: {ratio:.2f} (goal >= 1.7: {'met' if ratio >= 1.7 else 'NOT met'})")


if __name__ == "__main__":
    main()
