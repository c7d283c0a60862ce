"""What isolation costs: a sandboxed bot against the same bot in a plain process, and a real
tournament with isolated bots against one with the bots inside arena.

1. Per decision and at start-up, the random bot sandboxed (bubblewrap) against the same bot
   as a plain process: the same observations, interleaved rounds (each side first in every
   other round), each side's best.
   Goals: a decision <= 1.1x, a start-up (process start to handshake done) <= 1.5x.
2. Random against random, ``--games`` games of Seasons on one worker: with both bots
   isolated (sandbox, and plain processes) and with both inside arena. Isolation's cost per
   decision, (isolated time - in-process time) / decisions, is set against a raw pipe round
   trip of the same observations in the same run: their JSON sent down an OS pipe to a
   process that reads a line and answers one. Goal: <= 2x.
3. The rule that no bot process plays two games on the same dice: the default tournament
   (`configs/seasons-round-robin.yaml`: the shipped Seasons bots, 300 games, sandboxed) on
   two workers, each game of a duplicate set seated with an instance that has not played
   its dice, against the same tournament with one instance of each bot per worker for all
   its games (as before the rule). Runs alternate, ``--runs`` of each; the ratio of the
   medians. Goal: <= 1.15x.

    .venv/bin/python bench/isolation_cost.py [--games 2000] [--decisions 6000] [--starts 20]
                                             [--runs 3] [--part 1|2|3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from arena.bots.instances import InstancePool
from arena.bots.isolation import bot_process
from arena.bots.sandbox import sandbox_problem
from arena.games import find_game
from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

ROOT = Path(__file__).resolve().parents[1]
RANDOM = str(ROOT / "bots/seasons/random_bot.py")
ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(b'keep\\n')\n" \
       "    sys.stdout.buffer.flush()\n"


def observations(count: int) -> list:
    """``count`` real Seasons observations, from random games."""
    game = find_game("seasons")
    found, seed = [], 0
    while len(found) < count:
        state, seed = game.initial_state(), seed + 1
        rolls = iter(range(1, 10**6))
        while not state.is_terminal and len(found) < count:
            if state.is_chance_node():
                request = state.chance_request()
                state.apply_roll([1 + (next(rolls) * 7 + i) % 6
                                  for i in range(len(request.slots))])
            else:
                found.append(state.observation(state.current_seat).to_json())
                actions = state.legal_actions()
                state.apply(actions[seed % len(actions)])
    return found


def best_per_decision(players: dict, observations_json: list, rounds: int) -> dict:
    from arena.games.base import Observation

    game = find_game("seasons")
    objects = [Observation(o["game"], o["seat"], o["state"],
                           tuple(game.parse_action(a) for a in o["legal_actions"]), 10.0)
               for o in observations_json]
    best = dict.fromkeys(players, float("inf"))
    per_round = max(1, len(objects) // rounds)
    for round_index in range(rounds):
        chunk = objects[round_index * per_round:(round_index + 1) * per_round] or objects
        order = list(players.items())
        for name, player in order if round_index % 2 == 0 else order[::-1]:
            started = time.perf_counter()
            for observation in chunk:
                player.act(observation)
            best[name] = min(best[name], (time.perf_counter() - started) / len(chunk))
    return best


def start_up(isolation: str, starts: int) -> float:
    """The best time from nothing to a finished handshake, over ``starts`` starts."""
    best = float("inf")
    for _ in range(starts):
        player = bot_process(RANDOM, {}, isolation)
        started = time.perf_counter()
        player.ensure_running()
        best = min(best, time.perf_counter() - started)
        player.close()
    return best


def tournament(folder: Path, name: str, isolation: str, games: int
               ) -> tuple[float, list[dict]]:
    """Seconds of random against random, ``games`` games, one worker, and the observations
    of its decisions (replayed from the stored records)."""
    config = parse_config({
        "name": name, "game": "seasons", "seed": 3, "workers": 1, "isolation": isolation,
        "games_per_pairing": games // 2, "db": str(folder / f"{name}.db"),
        "bots": [RANDOM, {"spec": RANDOM, "name": "random-b"}]})
    with Store(config.db) as store:
        started = time.perf_counter()
        report = run_tournament(config, store)
        seconds = time.perf_counter() - started
        records = [store.record(report.tournament_id, g.key)
                   for g in store.games(report.tournament_id)]
    assert report.complete
    return seconds, [seen for record in records for seen in decisions_of(record)]


def decisions_of(record) -> list[dict]:
    """The observation of every decision of a recorded game, as the bot process gets it."""
    game = find_game(record.game)
    state = game.initial_state(record.options)
    seen = []
    for move in record.moves:
        if move.seat >= 0:
            seen.append(state.observation(move.seat).to_json())
        state.apply(game.parse_action(move.action))
    return seen


def raw_round_trip(messages: list[bytes]) -> float:
    """Seconds per round trip of ``messages`` down an OS pipe to a reading process."""
    echo = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert echo.stdin is not None and echo.stdout is not None
    write, read = echo.stdin.fileno(), echo.stdout.fileno()
    started = time.perf_counter()
    for message in messages:
        os.write(write, message)
        os.read(read, 64)
    seconds = (time.perf_counter() - started) / len(messages)
    echo.stdin.close()
    echo.wait()
    return seconds


def default_tournament(folder: Path, name: str) -> float:
    """Seconds to play the default tournament on two workers, in the sandbox."""
    config = parse_config({
        **yaml.safe_load((ROOT / "configs/seasons-round-robin.yaml").read_text()),
        "name": name, "workers": 2, "isolation": "sandbox", "db": str(folder / f"{name}.db"),
        "output": str(folder / name)})
    with Store(config.db) as store:
        started = time.perf_counter()
        report = run_tournament(config, store)
        seconds = time.perf_counter() - started
    assert report.complete
    return seconds


def one_instance_for_every_game(pool: InstancePool, seed: int) -> object:
    """Before the rule: each bot's first instance plays all its games."""
    return pool.sample


def instance_rule_cost(runs: int) -> None:
    fresh_for_dice = InstancePool.for_seed
    taken: dict[str, list[float]] = {"one per set game": [], "one for all games": []}
    with tempfile.TemporaryDirectory() as folder:
        for run in range(runs):
            for label in (list(taken) if run % 2 == 0 else list(taken)[::-1]):
                InstancePool.for_seed = (  # type: ignore[method-assign]
                    fresh_for_dice if label == "one per set game"
                    else one_instance_for_every_game)
                taken[label].append(default_tournament(Path(folder), f"{label.split()[1]}-{run}"))
    InstancePool.for_seed = fresh_for_dice  # type: ignore[method-assign]
    median = {label: sorted(times)[len(times) // 2] for label, times in taken.items()}
    print(f"3. the default tournament (300 games), two workers, sandboxed, {runs} runs each")
    for label, times in taken.items():
        print(f"   {label:18} " + "  ".join(f"{t:6.2f} s" for t in times)
              + f"   median {median[label]:6.2f} s")
    ratio = median["one per set game"] / median["one for all games"]
    print(f"   no process plays two games on the same dice: {ratio:.2f}x the wall time of "
          f"one instance for all games (goal <= 1.15: {'met' if ratio <= 1.15 else 'NOT met'})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--decisions", type=int, default=6000)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--part", type=int, choices=(1, 2, 3))
    args = parser.parse_args()
    problem = sandbox_problem()
    if problem is not None:
        sys.exit(f"the sandbox cannot run here: {problem}")
    os.chdir(ROOT)
    if args.part in (None, 1):
        decisions_and_starts(args)
    if args.part in (None, 2):
        tournament_overhead(args)
    if args.part in (None, 3):
        instance_rule_cost(args.runs)


def decisions_and_starts(args: argparse.Namespace) -> None:
    sample = observations(args.decisions)
    players = {level: bot_process(RANDOM, {}, level) for level in ("process", "sandbox")}
    for player in players.values():
        player.ensure_running()
    try:
        decision = best_per_decision(players, sample, args.rounds)
    finally:
        for player in players.values():
            player.close()
    starts = {level: start_up(level, args.starts) for level in ("process", "sandbox")}
    print(f"1. the random bot, {args.decisions} decisions (best of {args.rounds} interleaved "
          f"rounds), {args.starts} starts (best)")
    for level in ("process", "sandbox"):
        print(f"   {level:8} decision {1e6 * decision[level]:7.1f} us   start-up "
              f"{1e3 * starts[level]:6.1f} ms")
    ratio = decision["sandbox"] / decision["process"]
    print(f"   decision: sandbox / process = {ratio:.2f} (goal <= 1.1: "
          f"{'met' if ratio <= 1.1 else 'NOT met'})")
    ratio = starts["sandbox"] / starts["process"]
    print(f"   start-up: sandbox / process = {ratio:.2f} (goal <= 1.5: "
          f"{'met' if ratio <= 1.5 else 'NOT met'})")


def tournament_overhead(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        runs = {level: tournament(Path(folder), level, level, args.games)
                for level in ("none", "process", "sandbox")}
    seconds, seen = runs["none"]
    decisions = len(seen)
    raw = raw_round_trip([(json.dumps({"type": "act", "observation": o}) + "\n").encode()
                          for o in seen])
    print(f"2. random vs random, {args.games} games, one worker, {decisions} decisions")
    print(f"   in-process {seconds:6.2f} s; raw pipe round trip of the same observations "
          f"{1e6 * raw:5.1f} us")
    for level in ("process", "sandbox"):
        taken, _ = runs[level]
        overhead = (taken - seconds) / decisions
        print(f"   {level:8} {taken:6.2f} s: {1e6 * overhead:6.1f} us a decision over "
              f"in-process, {overhead / raw:.2f}x the raw round trip (goal <= 2: "
              f"{'met' if overhead / raw <= 2 else 'NOT met'})")


if __name__ == "__main__":
    main()
