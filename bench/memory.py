"""Peak memory of the parent process over a long tournament (goal < 300 MB at 100,000 games).

Results stream to the database as games finish; nothing accumulates in the parent.
Prints the parent's peak RSS at intervals so a leak would show as growth.

    .venv/bin/python bench/memory.py [--games 100000] [--workers 2]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import Progress, run_tournament

ROOT = Path(__file__).resolve().parents[1]


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    random_bot = str(ROOT / "bots/seasons/random_bot.py")
    with tempfile.TemporaryDirectory() as folder:
        config = parse_config({
            "name": "memory", "game": "seasons", "seed": 1, "workers": args.workers,
            "isolation": "none", "games_per_pairing": args.games // 2,
            "db": str(Path(folder) / "arena.db"),
            "bots": [random_bot, {"spec": random_bot, "name": "random-b"}]})
        started = time.perf_counter()
        marks = {args.games * k // 10 for k in range(1, 11)}
        done = [0]

        def game_done(result: object) -> None:
            done[0] += 1
            if done[0] in marks:
                print(f"{done[0]:7d} games  {time.perf_counter() - started:7.1f} s  "
                      f"parent peak RSS {peak_mb():6.1f} MB", flush=True)

        with Store(config.db) as store:
            run_tournament(config, store, Progress(game_done=game_done))
        size = (Path(folder) / "arena.db").stat().st_size / 2**20
    peak = peak_mb()
    print(f"database {size:.0f} MB; parent peak RSS {peak:.1f} MB "
          f"(goal < 300 MB: {'met' if peak < 300 else 'NOT met'})")


if __name__ == "__main__":
    main()
