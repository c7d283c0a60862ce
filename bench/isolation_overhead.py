"""Per-decision cost of a process-isolated bot against a raw multiprocessing pipe.

Both sides carry the same message — the JSON of a real Seasons observation — to
another process and get a short answer back. The isolated bot goes through
arena's protocol (ProcessPlayer, arena.bots.runner, the random bot's act); the raw
side is a bare `multiprocessing.Pipe` echo. Goal: isolated <= 2x raw.

With ``--busy`` a spinning process keeps another core busy meanwhile, as the
other workers of a running tournament do; on an idle machine every round trip
also pays for waking sleeping cores, which weighs more on the side that does
more work per message.

    .venv/bin/python bench/isolation_overhead.py [--decisions 3000] [--rounds 5] [--busy]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from pathlib import Path

from arena.bots.process import ProcessPlayer, bot_command
from arena.games import find_game

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


def spin() -> None:
    while True:
        pass


def timed(step, count: int) -> float:
    """Seconds per call of ``step`` over ``count`` calls."""
    started = time.perf_counter()
    for _ in range(count):
        step()
    return (time.perf_counter() - started) / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5,
                        help="interleaved rounds; each side keeps its best")
    parser.add_argument("--busy", action="store_true",
                        help="keep another core busy meanwhile, as a tournament does")
    args = parser.parse_args()
    spinner = multiprocessing.get_context("fork").Process(target=spin, daemon=True)
    if args.busy:
        spinner.start()
    observation = an_observation()
    message = json.dumps({"type": "act", "observation": observation.to_json()})
    parent, child = multiprocessing.Pipe()
    worker = multiprocessing.get_context("fork").Process(target=echo, args=(child,))
    worker.start()
    player = ProcessPlayer(bot_command(str(ROOT / "bots/seasons/random_bot.py"), {}))
    player.ensure_running()

    def raw_step() -> None:
        parent.send(message)
        parent.recv()

    try:
        per_round = max(1, args.decisions // args.rounds)
        raw = isolated = float("inf")
        for _ in range(args.rounds):
            raw = min(raw, timed(raw_step, per_round))
            isolated = min(isolated, timed(lambda: player.act(observation), per_round))
    finally:
        parent.send(None)
        worker.join()
        player.close()
        if args.busy:
            spinner.terminate()
    ratio = isolated / raw
    print(f"message: {len(message)} bytes, {args.decisions} decisions each, "
          f"best of {args.rounds} interleaved rounds"
          + (", another core kept busy" if args.busy else ", machine otherwise idle"))
    print(f"raw multiprocessing pipe round trip: {1e6 * raw:8.1f} us")
    print(f"process-isolated bot decision:       {1e6 * isolated:8.1f} us")
    print(f"ratio: {ratio:.2f} (goal <= 2: {'met' if ratio <= 2 else 'NOT met'})")


if __name__ == "__main__":
    main()
