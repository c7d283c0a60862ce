"""Rating 100,000 games with TrueSkill and with openskill (Weng-Lin): games per second.

    .venv/bin/python bench/rating_speed.py [--games 100000] [--bots 20]
"""

from __future__ import annotations

import argparse
import random
import time

from arena.results.ratings import RatedGame, RatingSettings, make_rater, rate_games


def synthetic_games(count: int, bots: int, seats: int, seed: int = 1) -> list[RatedGame]:
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        players = tuple(rng.sample(range(bots), seats))
        ranks = tuple(rng.sample(range(seats), seats))
        games.append(RatedGame(players, ranks))
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=20)
    args = parser.parse_args()
    for seats in (2, 4):
        games = synthetic_games(args.games, args.bots, seats)
        for system in ("trueskill", "openskill"):
            started = time.perf_counter()
            rate_games(games, make_rater(RatingSettings(system=system)))
            seconds = time.perf_counter() - started
            print(f"{system:9s} {seats}-player: {args.games} games in {seconds:6.1f} s "
                  f"({args.games / seconds:8.0f} games/s)")


if __name__ == "__main__":
    main()
