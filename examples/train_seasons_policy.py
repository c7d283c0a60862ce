"""Train a Seasons of the Sun policy through arena's PettingZoo adapter, then ship it as a bot.

    .venv/bin/python examples/train_seasons_policy.py            # about two minutes, one core
    .venv/bin/python examples/train_seasons_policy.py --episodes 200 --out /tmp/policy

The policy is the one of ``bots/seasons/trained``: two tables of preferences
(logits), one over (sector, total, what the placement does there) and one over
(open fields, sum of the dice kept, dice re-rolled); that bot's module says
what the entries mean, and this script uses its functions to read the
adapter's observations, so what is trained here is exactly what plays there.

Training is REINFORCE (Monte-Carlo policy gradient) on a softmax over the
legal actions' preferences, by self-play: both seats of each game sample from
the current policy and both learn from it. An episode's return is the final
score difference (my points minus the opponent's, over 120), available in
the adapter's last ``infos``, less a baseline, the batch's mean return (0 in
self-play, where a game's two returns cancel: each seat learns from how much
it beat its opponent by). Every ``--batch`` games the summed update
is applied, and the step size decays linearly to zero.

Everything is seeded (``--seed``): the game seeds of ``env.reset`` and the
sampling generator, so the same command writes the same ``policy.json``. At
the end, the greedy policy (the highest preference) plays the uniform random
policy on seat-swapped pairs of games with the same dice, through the adapter
too, and the script prints its score. Then check the bot and rate it in arena
like any other (README: "Train a bot with PettingZoo, then rate it in arena")::

    .venv/bin/arena bots validate bots/seasons/trained/__init__.py
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import math
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np

from arena.env import make_env

BOT_FOLDER = Path(__file__).resolve().parents[1] / "bots" / "seasons" / "trained"

Chooser = Callable[[list[int], list[int]], int]
"""A policy as the adapter meets it: (observation vector, legal action ids) -> action id."""
Trace = list[tuple[list[int], list[float], int]]
"""One seat's sampled decisions in a game: (table entries of the legal actions, their
probabilities, the position picked)."""


def load_bot_module(folder: Path = BOT_FOLDER) -> ModuleType:
    """The bot's module (its tables' layout and the functions that read observations)."""
    spec = importlib.util.spec_from_file_location("trained_seasons_bot", folder / "__init__.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"no bot module in {folder}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Learner:
    """A softmax policy over table preferences, with the REINFORCE update."""

    def __init__(self, bot: ModuleType, rng: np.random.Generator) -> None:
        self.bot = bot
        self.rng = rng
        self.weights = np.zeros(bot.SIZE)
        self.gradient = np.zeros(bot.SIZE)

    def sample(self, vector: list[int], legal: list[int], trace: Trace) -> int:
        """Draw one legal action from the softmax; note what the update needs in ``trace``."""
        keys = self.bot.vector_keys(vector, legal)
        if len(keys) == 1:
            return legal[0]
        logits = [self.weights[k] for k in keys]
        top = max(logits)
        exps = [math.exp(x - top) for x in logits]
        total = sum(exps)
        probs = [e / total for e in exps]
        pick = _draw(probs, self.rng.random())
        trace.append((keys, probs, pick))
        return legal[pick]

    def greedy(self, vector: list[int], legal: list[int]) -> int:
        """The legal action with the highest preference, as the bot plays."""
        keys = self.bot.vector_keys(vector, legal)
        return legal[self.bot.best_action(self.weights, keys)]

    def accumulate(self, trace: Trace, advantage: float) -> None:
        """Add the policy gradient of one episode's decisions, weighted by ``advantage``."""
        gradient = self.gradient
        for keys, probs, pick in trace:
            for key, p in zip(keys, probs, strict=True):
                gradient[key] -= advantage * p
            gradient[keys[pick]] += advantage

    def apply(self, step: float) -> None:
        """Move the preferences ``step`` times the accumulated gradient, and start anew."""
        self.weights += step * self.gradient
        self.gradient[:] = 0.0


def _draw(probs: list[float], u: float) -> int:
    """The index that the uniform number ``u`` picks from the distribution ``probs``."""
    for index, p in enumerate(probs):
        u -= p
        if u < 0:
            return index
    return len(probs) - 1


def play_episode(env, seed: int, choosers: list[Chooser]) -> list[float]:
    """One game through the adapter, seat ``i`` choosing with ``choosers[i]``; return each
    seat's final score difference over 120."""
    env.reset(seed=seed)
    scores = (0, 0)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        if terminated or truncated:
            scores = info["scores"]
            env.step(None)
            continue
        legal = observation["action_mask"].nonzero()[0].tolist()
        vector = observation["observation"].tolist()
        env.step(choosers[int(agent.rsplit("_", 1)[1])](vector, legal))
    return [(scores[0] - scores[1]) / 120, (scores[1] - scores[0]) / 120]


def random_chooser(rng: np.random.Generator) -> Chooser:
    """The uniform random policy over the legal actions."""
    return lambda vector, legal: legal[int(rng.integers(len(legal)))]


def train(env, learner: Learner, episodes: int, batch: int, step: float, seed: int,
          report: Callable[[int], None]) -> None:
    """REINFORCE by self-play over ``episodes`` games (game seeds from ``seed``)."""
    traces: list[Trace] = []
    returns: list[float] = []
    for episode in range(episodes):
        seat_traces: list[Trace] = [[], []]
        choosers: list[Chooser] = [functools.partial(learner.sample, trace=trace)
                                   for trace in seat_traces]
        outcome = play_episode(env, seed + episode, choosers)
        traces += seat_traces
        returns += outcome
        if len(traces) >= 2 * batch or episode == episodes - 1:
            baseline = sum(returns) / len(returns)
            for trace, value in zip(traces, returns, strict=True):
                learner.accumulate(trace, value - baseline)
            learner.apply(step * (1 - episode / episodes) / len(traces))
            traces, returns = [], []
        report(episode + 1)


def evaluate(env, learner: Learner, pairs: int, seed: int) -> tuple[float, int, int, int]:
    """The greedy policy against the random one over seat-swapped pairs of games on the same
    dice: (score, wins, draws, losses) of the greedy policy."""
    rng = np.random.default_rng(seed)
    wins = draws = losses = 0
    for pair in range(pairs):
        for seat in (0, 1):
            choosers = [random_chooser(rng), random_chooser(rng)]
            choosers[seat] = learner.greedy
            margin = play_episode(env, seed + pair, choosers)[seat]
            wins += margin > 0
            draws += margin == 0
            losses += margin < 0
    games = 2 * pairs
    return (wins + draws / 2) / games, wins, draws, losses


def write_parameters(out: Path, bot: ModuleType, weights: np.ndarray, meta: dict) -> Path:
    """Write the tables as ``policy.json`` in ``out`` (rounded: a small file to commit); a
    folder other than the shipped bot's gets the bot's ``__init__.py`` too, so that it is
    a bot of its own that plays them (``arena bots validate OUT``)."""
    out.mkdir(parents=True, exist_ok=True)
    if out.resolve() != BOT_FOLDER:
        shutil.copyfile(BOT_FOLDER / "__init__.py", out / "__init__.py")
    rounded = [round(float(w), 3) + 0.0 for w in weights]
    data = {"format": "arena-seasons-tabular-1", **meta,
            "placement": rounded[:bot.PLACE_SIZE], "reroll": rounded[bot.PLACE_SIZE:]}
    path = out / "policy.json"
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    return path


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=40_000, help="self-play games")
    parser.add_argument("--batch", type=int, default=50, help="games per update")
    parser.add_argument("--step", type=float, default=20.0, help="initial step size")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--eval-pairs", type=int, default=500,
                        help="seat-swapped pairs against random at the end")
    parser.add_argument("--out", type=Path, default=BOT_FOLDER,
                        help="folder for policy.json (default: the shipped bot's folder); "
                        "another folder becomes a bot of its own")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    bot = load_bot_module()
    env = make_env("seasons")
    learner = Learner(bot, np.random.default_rng(args.seed))
    started = time.perf_counter()
    every = max(1, args.episodes // 10)

    def report(done: int) -> None:
        if done % every == 0:
            print(f"{done:>7} games  {time.perf_counter() - started:6.1f} s", flush=True)

    train(env, learner, args.episodes, args.batch, args.step, args.seed, report)
    trained_in = time.perf_counter() - started
    score, wins, draws, losses = evaluate(env, learner, args.eval_pairs, args.seed + 10**6)
    meta = {"episodes": args.episodes, "seed": args.seed, "batch": args.batch,
            "step": args.step}
    path = write_parameters(args.out, bot, learner.weights, meta)
    print(f"trained on {args.episodes} self-play games in {trained_in:.1f} s")
    print(f"against random ({2 * args.eval_pairs} games): score {score:.1%} "
          f"(+{wins} ={draws} -{losses})")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
