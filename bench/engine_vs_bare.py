"""Random-vs-random Seasons: arena's engine and referee against a bare loop.

The bare loop is deliberately minimal — plain lists, `random.randint` for the
dice, no framework — and plays the same rules. arena plays through its
referee with two in-process random bots and its seat-bound SHA-512 dice. A
third line plays arena's engine with arena's dice but without the referee
(the choice made inline), which splits arena's time between the engine and
dice on one side and the referee on the other. The three are timed in
interleaved rounds in this one run and each keeps its best round; the figure
that matters is the ratio arena / bare loop (goal >= 0.4).

    .venv/bin/python bench/engine_vs_bare.py [--seconds 6]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path

from arena.bots.loading import load_bot
from arena.games import find_game
from arena.games.base import CHANCE_SEAT, DiceRequest
from arena.referee.dice import DiceStream
from arena.referee.match import play_game

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


def engine_game(rng: random.Random, dice: DiceStream) -> None:
    """One game through arena's engine and dice, the choices made here: no referee."""
    state = find_game("seasons").initial_state()
    while True:
        seat = state.current_seat
        if seat == CHANCE_SEAT:
            state.apply_roll(dice.roll(state.chance_request()))
        elif seat < 0:
            return
        else:
            state.apply(rng.choice(state.legal_actions()))


class RecordingDice(DiceStream):
    """A dice stream that keeps every request it is asked."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.requests: list[DiceRequest] = []

    def roll(self, request: DiceRequest) -> tuple[int, ...]:
        self.requests.append(request)
        return super().roll(request)


def dice_requests(games: int) -> list[tuple[int, list[DiceRequest]]]:
    """The dice requests of ``games`` random games, with their seeds."""
    rng, found = random.Random(2), []
    for seed in range(games):
        dice = RecordingDice(seed)
        engine_game(rng, dice)
        found.append((seed, dice.requests))
    return found


def dice_seconds_per_game(games: list[tuple[int, list[DiceRequest]]]) -> float:
    """What arena's dice alone cost a game: every roll of ``games`` rolled again."""
    started = time.perf_counter()
    for seed, requests in games:
        roll = DiceStream(seed).roll
        for request in requests:
            roll(request)
    return (time.perf_counter() - started) / len(games)


def rate(play: Callable[[int], object], seconds: float) -> float:
    """Games per second of ``play(index)`` over about ``seconds``."""
    games, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        play(games)
        games += 1
    return games / (time.perf_counter() - started)


def best_rates(plays: dict[str, Callable[[int], object]], seconds: float,
               rounds: int = 5) -> dict[str, float]:
    """Each play's best rate over ``rounds`` interleaved rounds of ``seconds / rounds``."""
    best = dict.fromkeys(plays, 0.0)
    for _ in range(rounds):
        for name, play in plays.items():
            best[name] = max(best[name], rate(play, seconds / rounds))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0,
                        help="time for each of the three loops, in 5 interleaved rounds")
    args = parser.parse_args()
    rng = random.Random(1)
    random_bot = str(ROOT / "bots/seasons/random_bot.py")
    players = [load_bot(random_bot).player, load_bot(random_bot).player]
    game = find_game("seasons")
    rates = best_rates({
        "bare": lambda i: bare_game(rng),
        "engine": lambda i: engine_game(rng, DiceStream(i)),
        "arena": lambda i: play_game(game, players, i),
    }, args.seconds)
    bare, engine, arena = rates["bare"], rates["engine"], rates["arena"]
    ratio = arena / bare
    sample = dice_requests(200)
    dice = min(dice_seconds_per_game(sample) for _ in range(5))
    rolls = sum(len(requests) for _seed, requests in sample) / len(sample)
    print(f"bare loop:                {bare:9.1f} games/s  {1e6 / bare:6.0f} µs/game")
    print(f"arena engine + dice only: {engine:9.1f} games/s  {1e6 / engine:6.0f} µs/game")
    print(f"arena referee:            {arena:9.1f} games/s  {1e6 / arena:6.0f} µs/game")
    print(f"the referee's share of arena's time: {1 - arena / engine:.0%}")
    print(f"arena's dice alone:       {1e6 * dice:6.0f} µs/game ({rolls:.0f} rolls of "
          f"{1e6 * dice / rolls:.1f} µs); with them the ratio cannot exceed "
          f"{1 / (dice * bare):.2f}")
    print(f"ratio: {ratio:.2f} (goal >= 0.4: {'met' if ratio >= 0.4 else 'NOT met'})")


if __name__ == "__main__":
    main()
