"""Random-vs-random Seasons: arena's engine and referee against a bare loop.

The bare loop is deliberately minimal — plain lists, `random.randint` for the
dice, no framework — and plays the same rules. arena plays through its
referee with two in-process random bots and seat-bound SHA-256 dice. Both are
timed in this one run; the figure that matters is the ratio (goal >= 0.4).

    .venv/bin/python bench/engine_vs_bare.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from arena.match import play_game
from arena.players import load_bot

VALUES = [5, 8, 9, 10, 13, 15, 9, 10, 11, 13, 17]
IS_MAX = [True] * 6 + [False] * 5
ROOT = Path(__file__).resolve().parents[1]


def bare_game(rng: random.Random) -> tuple[int, int]:
    """One game of random Seasons in plain Python: scores of both seats."""
    fields = [[0] * 11, [0] * 11]
    seat = 0
    while True:
        dice = [rng.randint(1, 6) for _ in range(3)]
        for slot in range(3):
            if rng.random() < 0.5:
                dice[slot] = rng.randint(1, 6)
        total = sum(dice)
        own, other = fields[seat], fields[1 - seat]
        sector = rng.choice([i for i in range(11) if own[i] == 0])
        own[sector] = total
        won = False
        if other[sector] == total:
            own[sector] = other[sector] = 0
        elif other[sector]:
            won = (total > other[sector]) == IS_MAX[sector]
        if 0 not in fields[0] and 0 not in fields[1]:
            break
        seat = seat if won else 1 - seat
        if 0 not in fields[seat]:
            seat = 1 - seat
    score = [0, 0]
    for i in range(11):
        a, b = fields[0][i], fields[1][i]
        score[0 if (a > b) == IS_MAX[i] else 1] += VALUES[i]
    return score[0], score[1]


def rate(play, seconds: float) -> float:
    """Games per second of ``play(index)`` over about ``seconds``."""
    games, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        play(games)
        games += 1
    return games / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    rng = random.Random(1)
    random_bot = str(ROOT / "bots/seasons/random_bot.py")
    players = [load_bot(random_bot).player, load_bot(random_bot).player]
    bare = rate(lambda i: bare_game(rng), args.seconds)
    arena = rate(lambda i: play_game("seasons", players, i), args.seconds)
    ratio = arena / bare
    print(f"bare loop:        {bare:9.1f} games/s")
    print(f"arena referee:    {arena:9.1f} games/s")
    print(f"ratio: {ratio:.2f} (goal >= 0.4: {'met' if ratio >= 0.4 else 'NOT met'})")


if __name__ == "__main__":
    main()
