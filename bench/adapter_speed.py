"""Steps per second: arena's engine alone, through the PettingZoo adapter, through OpenSpiel.

Each runner plays random legal actions (``random.Random`` with a fixed seed)
for the same number of decisions, game after game, and rolls every die from
arena's seat-bound dice streams (game seeds 0, 1, 2, …), so chance nodes cost
the same hash in all three:

- engine: ``state.legal_actions()``, a choice, ``state.apply``; at a chance node
  ``state.apply_roll(stream.roll(state.chance_request()))``;
- pettingzoo: ``env.last()`` (the observation vector and the action mask), a
  choice among the mask's legal ids, ``env.step(id)``; the environment rolls;
- openspiel: ``state.legal_actions()``, a choice, ``state.apply_action(id)``; at
  a chance node ``state.apply_action(dice_stream_action(state, stream))``.
  OpenSpiel builds no observation unless asked, so none is asked for.

Each runner builds its game or environment before its clock starts (the engine
runner has nothing to build). A step is one decision; the chance nodes before
it are resolved within it but not counted. The clock is this process's CPU time
(``time.process_time``): the machine is shared, and wall time would also count
the waits for a core. The runners take turns in rounds within this one run and
each keeps its best round. The figure that matters is engine-steps/adapter-steps
(how many times slower the adapter is); goal: the adapters cost at most 1.5×
the engine's own steps.

    .venv/bin/python bench/adapter_speed.py [--steps 30000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from arena.env import make_env
from arena.env.openspiel import dice_stream_action, load
from arena.games import find_game
from arena.referee.dice import DiceStream

GOAL = 1.5
GAMES = ("seasons", "sonnentau")
Play = Callable[[int], int]
"""Plays ``steps`` random decisions, game after game; returns the games started."""


def engine_runner(game: str) -> Play:
    """Random decisions on the bare engine."""
    rules = find_game(game)

    def play(steps: int) -> int:
        rng, done, games = random.Random(1), 0, 0
        while done < steps:
            state, roll = rules.initial_state(), DiceStream(games).roll
            games += 1
            while done < steps and not state.is_terminal:
                if state.is_chance_node():
                    state.apply_roll(roll(state.chance_request()))
                else:
                    legal = state.legal_actions()
                    state.apply(legal[rng.randrange(len(legal))])
                    done += 1
        return games

    return play


def pettingzoo_runner(game: str) -> Play:
    """The same through the PettingZoo AEC environment."""
    env = make_env(game)

    def play(steps: int) -> int:
        rng, done, games = random.Random(1), 0, 0
        while done < steps:
            env.reset(seed=games)
            games += 1
            while done < steps:
                observation, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    break
                legal = observation["action_mask"].nonzero()[0]
                env.step(legal[rng.randrange(len(legal))])
                done += 1
        return games

    return play


def openspiel_runner(game: str) -> Play:
    """The same through the OpenSpiel Python game."""
    spiel = load(game)

    def play(steps: int) -> int:
        rng, done, games = random.Random(1), 0, 0
        while done < steps:
            state, stream = spiel.new_initial_state(), DiceStream(games)
            games += 1
            while done < steps and not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(dice_stream_action(state, stream))
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.randrange(len(legal))])
                    done += 1
        return games

    return play


RUNNERS: dict[str, Callable[[str], Play]] = {
    "engine": engine_runner, "pettingzoo": pettingzoo_runner, "openspiel": openspiel_runner}


def measure(game: str, steps: int, rounds: int) -> dict[str, float]:
    """Best steps per CPU second of each runner over interleaved rounds."""
    plays = {name: runner(game) for name, runner in RUNNERS.items()}
    best = dict.fromkeys(plays, 0.0)
    for _ in range(rounds):
        for name, play in plays.items():
            started = time.process_time()
            play(steps)
            best[name] = max(best[name], steps / (time.process_time() - started))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30_000, help="decisions per runner and round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (best kept)")
    args = parser.parse_args()
    results = {game: measure(game, args.steps, args.rounds) for game in GAMES}
    for game, speeds in results.items():
        for name, speed in speeds.items():
            print(f"{game:9s} {name:10s} {speed:10,.0f} steps/s (CPU time)")
    print(f"goal: the adapters cost at most {GOAL}× the engine's own steps")
    for game, speeds in results.items():
        for name in ("pettingzoo", "openspiel"):
            ratio = speeds["engine"] / speeds[name]
            verdict = "met" if ratio <= GOAL else "missed"
            print(f"{game} {name}: engine-steps/adapter-steps ratio {ratio:.2f} "
                  f"(goal ≤ {GOAL}, {verdict})")


if __name__ == "__main__":
    main()
