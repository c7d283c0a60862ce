"""Random Sonnentau play through arena's referee: games per second, 2 and 4 players.

    .venv/bin/python bench/sonnentau_random.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from arena.bots.loading import load_bot
from arena.referee.match import play_game

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    spec = str(ROOT / "bots/sonnentau/random_bot.py")
    for dice in ("standard", "miwin"):
        for seats in (2, 4):
            players = [load_bot(spec).player for _ in range(seats)]
            games = moves = 0
            started = time.perf_counter()
            while time.perf_counter() - started < args.seconds:
                record = play_game("sonnentau", players, games, {"dice": dice})
                games += 1
                moves += len(record.moves)
            seconds = time.perf_counter() - started
            print(f"{dice:8s} {seats} players: {games / seconds:7.1f} games/s, "
                  f"{moves / seconds:9.0f} moves/s ({moves // games} moves a game)")


if __name__ == "__main__":
    main()
