"""What every game in the report's viewer costs: writing a report that holds every game (the
first part in the page, the others in files beside it) against one that held only the first
part, for a round robin of 32 Seasons bots (992 games), beside the time its games took.

    .venv/bin/python bench/report_viewer.py [--bots 32] [--games-per-pairing 1]

Bots are the shipped greedy and random bots in arena's process (isolation none), the
cheapest games there are, so the ratio to the play time is the largest it gets.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from arena.reports import viewer, write_reports
from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

ROOT = Path(__file__).resolve().parent.parent


def cpu_seconds() -> float:
    """CPU seconds of this process and of its ended children (the games' workers)."""
    now = os.times()
    return now.user + now.system + now.children_user + now.children_system


def timed(work: object) -> tuple[float, float]:
    """Wall and CPU seconds of ``work()``."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    work()  # type: ignore[operator]
    return time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=32)
    parser.add_argument("--games-per-pairing", type=int, default=1)
    args = parser.parse_args()
    bots = [{"spec": str(ROOT / ("bots/seasons/greedy.py" if i % 2 else
                                 "bots/seasons/random_bot.py")), "name": f"bot-{i:02d}"}
            for i in range(args.bots)]
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "arena.db"
        config = parse_config({"name": "bench", "game": "seasons", "seed": 1, "workers": 1,
                               "isolation": "none", "bots": bots, "db": str(db),
                               "games_per_pairing": args.games_per_pairing})
        with Store(db) as store:
            play = timed(lambda: run_tournament(config, store))
            row = store.find_tournament("bench")
            games = sum(1 for _ in store.games(row.id))
            every = timed(lambda: write_reports(store, row, Path(folder) / "every"))
            held = viewer.MAX_MOVES
            viewer.MAX_MOVES = 0  # the first part only, as the viewer held before
            try:
                first = timed(lambda: write_reports(store, row, Path(folder) / "first"))
            finally:
                viewer.MAX_MOVES = held
        files = sorted((Path(folder) / "every" / "report-games").glob("part-*.js"))
        size = sum(path.stat().st_size for path in files) / 1e6
    print(f"{games} games of {args.bots} bots played in {play[0]:.1f} s ({play[1]:.1f} s CPU)")
    print(f"report, every game in the viewer: {every[0]:.1f} s ({every[1]:.1f} s CPU); "
          f"{len(files)} part files, {size:.1f} MB")
    print(f"report, the first part only:      {first[0]:.1f} s ({first[1]:.1f} s CPU)")
    extra = every[1] - first[1]
    print(f"every game costs {extra:.1f} s CPU more: {extra / play[1]:.2f} x the play's CPU, "
          f"{1000 * extra / max(1, games - 300):.1f} ms a game")


if __name__ == "__main__":
    main()
