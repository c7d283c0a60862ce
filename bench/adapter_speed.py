"""Decisions per CPU second through the PettingZoo and OpenSpiel adapters vs arena's engine.

Each adapter loop is the loop researchers write. The goal is each of them at
most 1.5× the engine's step cost: the same random play through ``arena.games``
directly, the referee's way (``state.legal_actions()``, a choice,
``state.apply``, the dice from arena's dice stream:
``state.apply_roll(stream.roll(state.chance_request()))``). Decisions are chosen
with ``random.Random(1)`` among the legal ones; every loop plays whole games
(game seeds 0, 1, 2, …) until it has made ``--steps`` decisions. A step is one
decision; the chance nodes before it are part of its cost.

- ``pettingzoo``: PettingZoo's ``agent_iter`` loop: ``env.last()``, ``env.step(None)``
  for each finished agent, the legal ids from ``observation["action_mask"].nonzero()``,
  ``env.step(id)``; the environment rolls arena's dice.
- ``openspiel-choices``: ``state.legal_actions()``, a choice, ``state.apply_action``;
  at a chance node ``random.choices`` over ``state.chance_outcomes()``.
- ``openspiel-np``: the same with ``np.random.choice(actions, p=probs)``, as
  OpenSpiel's own examples sample.
- ``openspiel-tensor``: ``openspiel-choices`` plus ``state.observation_tensor(player)``
  at every decision.

For the OpenSpiel loops, two more figures say where the time goes: the *floor*,
the engine with its dice sampled the OpenSpiel loop's way from the adapter's
remembered outcome lists (the cost of the researcher's own sampling line, which
no adapter can remove), and the engine sampling its own ``chance_outcomes()``
the same way (what the same loop costs without the adapter).

Environments and games are built before the clock starts. The clock is this
process's CPU time (``time.process_time``): the machine is shared, and wall
time would also count the waits for a core. The loops take turns in rounds
within this one run, and each keeps its best round.

    .venv/bin/python bench/adapter_speed.py [--steps 30000] [--rounds 5] [--games seasons]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arena.env import make_env
from arena.env.openspiel import load
from arena.games import find_game
from arena.referee.dice import DiceStream

GOAL = 1.5
GAMES = ("seasons", "sonnentau")
Play = Callable[[int], int]
"""Plays whole random games until ``steps`` decisions are made; returns the decisions."""
Sampler = Callable[[Sequence[tuple[Any, float]]], Any]
"""Picks a chance outcome from ``chance_outcomes()``."""


def choices_sampler() -> Sampler:
    rng = random.Random(2)

    def sample(outcomes: Sequence[tuple[Any, float]]) -> Any:
        actions, probs = zip(*outcomes, strict=True)
        return rng.choices(actions, probs)[0]

    return sample


def np_sampler_spiel() -> Sampler:
    rng = np.random.RandomState(2)

    def sample(outcomes: Sequence[tuple[Any, float]]) -> Any:
        action_list, prob_list = zip(*outcomes, strict=True)
        return rng.choice(action_list, p=prob_list)

    return sample


def np_sampler_engine() -> Sampler:
    rng = np.random.RandomState(2)

    def sample(outcomes: Sequence[tuple[Any, float]]) -> Any:
        actions, probs = zip(*outcomes, strict=True)
        return actions[rng.choice(len(actions), p=probs)]

    return sample


# The engine loops below differ only in how a chance node is resolved, and are written
# out each: a shared loop calling back for the roll would add a call to every chance
# node of the baseline they measure.
def engine_stream(game: str) -> Play:
    """The engine, its dice from arena's dice stream (the referee's way)."""
    rules = find_game(game)

    def play(steps: int) -> int:
        rng, done, seed = random.Random(1), 0, 0
        while done < steps:
            state, roll = rules.initial_state(), DiceStream(seed).roll
            seed += 1
            while not state.is_terminal:
                if state.is_chance_node():
                    state.apply_roll(roll(state.chance_request()))
                else:
                    legal = state.legal_actions()
                    state.apply(legal[rng.randrange(len(legal))])
                    done += 1
        return done

    return play


def engine_sampled(game: str, make_sampler: Callable[[], Sampler]) -> Play:
    """The engine, its dice sampled from ``chance_outcomes()``."""
    rules = find_game(game)

    def play(steps: int) -> int:
        rng, sample, done = random.Random(1), make_sampler(), 0
        while done < steps:
            state = rules.initial_state()
            while not state.is_terminal:
                if state.is_chance_node():
                    state.apply(sample(state.chance_outcomes()))
                else:
                    legal = state.legal_actions()
                    state.apply(legal[rng.randrange(len(legal))])
                    done += 1
        return done

    return play


def engine_floor(game: str, make_sampler: Callable[[], Sampler]) -> Play:
    """The engine, its dice sampled as the OpenSpiel loop samples them: from the
    adapter's (remembered) outcome lists of ids, each id then turned into the roll.
    What an OpenSpiel loop would cost if the adapter and pyspiel cost nothing."""
    rules, spiel = find_game(game), load(game)
    outcomes_at, roll_of = spiel.chance_outcomes, spiel.index.roll

    def play(steps: int) -> int:
        rng, sample, done = random.Random(1), make_sampler(), 0
        while done < steps:
            state = rules.initial_state()
            while not state.is_terminal:
                if state.is_chance_node():
                    state.apply(roll_of(int(sample(outcomes_at(state)))))
                else:
                    legal = state.legal_actions()
                    state.apply(legal[rng.randrange(len(legal))])
                    done += 1
        return done

    return play


def pettingzoo(game: str) -> Play:
    """PettingZoo's standard ``agent_iter`` loop."""
    env = make_env(game)

    def play(steps: int) -> int:
        rng, done, seed = random.Random(1), 0, 0
        while done < steps:
            env.reset(seed=seed)
            seed += 1
            for _agent in env.agent_iter():
                observation, _reward, terminated, truncated, _info = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = observation["action_mask"].nonzero()[0]
                env.step(legal[rng.randrange(len(legal))])
                done += 1
        return done

    return play


def openspiel(game: str, make_sampler: Callable[[], Sampler], *, tensor: bool = False) -> Play:
    """OpenSpiel's loop, sampling its own chance outcomes; ``tensor``: a tensor per decision."""
    spiel = load(game)

    def play(steps: int) -> int:
        rng, sample, done = random.Random(1), make_sampler(), 0
        while done < steps:
            state = spiel.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(sample(state.chance_outcomes()))
                else:
                    if tensor:
                        state.observation_tensor(state.current_player())
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.randrange(len(legal))])
                    done += 1
        return done

    return play


def runners(game: str) -> dict[str, Play]:
    return {
        "engine (dice stream)": engine_stream(game),
        "engine (random.choices)": engine_sampled(game, choices_sampler),
        "engine (np.random.choice)": engine_sampled(game, np_sampler_engine),
        "engine (floor, random.choices)": engine_floor(game, choices_sampler),
        "engine (floor, np.random.choice)": engine_floor(game, np_sampler_spiel),
        "pettingzoo": pettingzoo(game),
        "openspiel-choices": openspiel(game, choices_sampler),
        "openspiel-np": openspiel(game, np_sampler_spiel),
        "openspiel-tensor": openspiel(game, choices_sampler, tensor=True),
    }


ENGINE = "engine (dice stream)"
"""The engine's step cost: the goal is each adapter loop at most GOAL times this."""
SAME_SAMPLING = {
    "openspiel-choices": ("engine (random.choices)", "engine (floor, random.choices)"),
    "openspiel-np": ("engine (np.random.choice)", "engine (floor, np.random.choice)"),
    "openspiel-tensor": ("engine (random.choices)", "engine (floor, random.choices)"),
}
"""The OpenSpiel loops' figures for reference: the engine sampling its own
``chance_outcomes()`` the same way, and the floor (the sampling alone)."""
COMPARED = ("pettingzoo", *SAME_SAMPLING)


def measure(game: str, steps: int, rounds: int, loops: list[str]) -> dict[str, float]:
    """Best CPU seconds per decision of each loop over interleaved rounds."""
    wanted = {ENGINE, *loops, *(name for loop in loops for name in SAME_SAMPLING.get(loop, ()))}
    plays = {name: play for name, play in runners(game).items() if name in wanted}
    best = dict.fromkeys(plays, float("inf"))
    for _ in range(rounds):
        for name, play in plays.items():
            started = time.process_time()
            done = play(steps)
            best[name] = min(best[name], (time.process_time() - started) / done)
    return best


def report(game: str, costs: dict[str, float]) -> None:
    for name, cost in costs.items():
        print(f"{game:9s} {name:33s} {cost * 1e6:7.2f} µs a decision "
              f"({1 / cost:9,.0f} decisions/s, CPU time)")
    engine = costs[ENGINE]
    for name in COMPARED:
        if name not in costs:
            continue
        ratio = costs[name] / engine
        verdict = "met" if ratio <= GOAL else "missed"
        line = f"{game} {name}: ×{ratio:.2f} the engine's step (goal ≤ {GOAL}, {verdict})"
        if name in SAME_SAMPLING:
            sampled, floor = SAME_SAMPLING[name]
            line += (f"; the sampling alone makes the engine ×{costs[floor] / engine:.2f}"
                     f" (adapter ×{costs[name] / costs[floor]:.2f} the floor);"
                     f" ×{costs[name] / costs[sampled]:.2f} the engine sampling its own"
                     " chance_outcomes()")
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30_000, help="decisions per loop and round")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (best kept)")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES))
    parser.add_argument("--loops", nargs="+", choices=list(COMPARED), default=list(COMPARED),
                        help="the adapter loops to measure (with their baselines)")
    args = parser.parse_args()
    for game in args.games:
        report(game, measure(game, args.steps, args.rounds, args.loops))


if __name__ == "__main__":
    main()
