"""Per-decision cost of a process-isolated bot against a raw multiprocessing pipe.

Both sides carry the same message — the JSON of a real Seasons observation — to
another process and get a short answer back. The isolated bot goes through
arena's protocol (ProcessPlayer, arena.botproc, the random bot's act); the raw
side is a bare `multiprocessing.Pipe` echo. Goal: isolated <= 2x raw.

    .venv/bin/python bench/isolation_overhead.py [--decisions 3000]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path

from arena.games import find_game
from arena.sandbox import ProcessPlayer, bot_command

ROOT = Path(__file__).resolve().parents[1]


def an_observation():
    game = find_game("seasons")
    state = game.initial_state()
    state.apply(game.parse_action("dice:3,4,5"))
    return state.observation(0)


def echo(connection) -> None:
    while True:
        message = connection.recv()
        if message is None:
            return
        json.loads(message)
        connection.send("keep")


def raw_round_trips(message: str, count: int) -> float:
    parent, child = multiprocessing.Pipe()
    worker = multiprocessing.get_context("fork").Process(target=echo, args=(child,))
    worker.start()
    started = time.perf_counter()
    for _ in range(count):
        parent.send(message)
        parent.recv()
    seconds = (time.perf_counter() - started) / count
    parent.send(None)
    worker.join()
    return seconds


def isolated_decisions(observation, count: int) -> float:
    player = ProcessPlayer(bot_command(str(ROOT / "bots/seasons/random_bot.py"), {}))
    player.ensure_running()
    try:
        started = time.perf_counter()
        for _ in range(count):
            player.act(observation)
        return (time.perf_counter() - started) / count
    finally:
        player.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=3000)
    args = parser.parse_args()
    observation = an_observation()
    message = json.dumps({"type": "act", "observation": observation.to_json()})
    raw = raw_round_trips(message, args.decisions)
    isolated = isolated_decisions(observation, args.decisions)
    ratio = isolated / raw
    print(f"message: {len(message)} bytes, {args.decisions} decisions each")
    print(f"raw multiprocessing pipe round trip: {1e6 * raw:8.1f} us")
    print(f"process-isolated bot decision:       {1e6 * isolated:8.1f} us")
    print(f"ratio: {ratio:.2f} (goal <= 2: {'met' if ratio <= 2 else 'NOT met'})")


if __name__ == "__main__":
    main()
