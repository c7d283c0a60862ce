"""Fit the coefficients of Sonnentau's race model (arena/results/values/sonnentau.py).

Two stages, for every dice variant:

1. **Outcomes.** Plays seeded self-play games of the shipped bots (heuristic
   against heuristic, search against search) for every seat count, records the
   model's pairwise features right after every roll, and fits "seat finishes
   ahead of the other" (½ for a tie) by logistic regression (scipy's L-BFGS on
   the cross-entropy, a light ridge penalty).
2. **Luck (two seats).** What luck accounting needs is not the best prediction
   of the outcome but luck that moves with it: the points of a duplicate set
   minus its luck should vary as little as possible. So the two-seat
   coefficients are tuned further, from stage 1's, on duplicate sets of pairs of
   the shipped bots (:data:`LUCK_PAIRS`, seeds from :data:`LUCK_SEED`, none of
   them the bench's): each chance node's every roll is played greedily once, and
   Nelder-Mead minimises the pairs' mean share of the variance left after
   taking out the luck with its least-squares factor (as ``arena compare``
   fits it from 40 sets on). The mean factor becomes the model's luck scale
   (the share of each roll's change of value that arena counts as luck), so
   that below 40 sets, where all of the luck is taken out, it is on the
   outcome's scale. A forfeited roll stands for
   its chance node's value under the stage-1 model.

The result is written to arena/results/values/sonnentau_race.json.

Run from the repository root::

    .venv/bin/python tools/fit_sonnentau_values.py               # about 20 minutes
    .venv/bin/python tools/fit_sonnentau_values.py --games 0.1   # a quick look, 2 minutes

Seeds start at ``--seed`` (default 1) and are the same for every run, so the
file is reproduced exactly. The time is one core's (``--workers`` plays stage 2's
sets in parallel); most of it is the bots.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.bots.loading import load_bot  # noqa: E402
from arena.games.base import CHANCE_SEAT, Dice, State  # noqa: E402
from arena.games.sonnentau.rules import SonnentauState  # noqa: E402
from arena.referee.match import play_game  # noqa: E402
from arena.referee.record import Move  # noqa: E402
from arena.results.values.sonnentau import (  # noqa: E402
    DATA_PATH,
    FEATURES,
    NAME,
    SonnentauRaceModel,
    _rolls,
    pair_features,
    places_of,
)

BOTS = ("bots/sonnentau/heuristic.py", "bots/sonnentau/search.py")
GAMES = {2: 240, 3: 90, 4: 50}
"""Games per bot, dice variant and seat count at ``--games`` scale 1 (a 2-seat
game gives about 25 rolls, a 4-seat game about 70)."""
RIDGE = 1e-3
LUCK_PAIRS: tuple[tuple[str, dict[str, Any], str, dict[str, Any]], ...] = (
    ("heuristic.py", {}, "search.py", {}),
    ("heuristic.py", {"lookahead": False}, "heuristic.py", {}),
    ("heuristic.py", {"leader_weight": 0}, "search.py", {}),
    ("heuristic.py", {"leader_weight": 0}, "heuristic.py", {}))
"""Stage 2's pairs of bots (file in bots/sonnentau, parameters)."""
LUCK_SETS = 250
"""Duplicate sets per pair and dice variant at ``--games`` scale 1."""
LUCK_SEED = 50_000
"""The first seed of stage 2's sets (each pair's sets follow the last pair's)."""
LUCK_RIDGE = 1e-3
"""Stage 2's penalty on the squared distance from stage 1's coefficients: with few sets
the least-squares factor would let them grow without bound, fitting the noise."""


def collect(dice: str, seats: int, bot: str, games: int,
            seed: int) -> tuple[list[tuple[float, ...]], list[float]]:
    """Pairwise features after every roll of ``games`` self-play games, and targets."""
    probe = SonnentauRaceModel(dice, seats, [0.0] * len(FEATURES))
    rows: list[tuple[float, ...]] = []
    targets: list[float] = []
    for game in range(games):
        seen: list[list[tuple[float, ...]]] = []

        def after(state: State, move: Move, seen: list[list[tuple[float, ...]]] = seen) -> None:
            if move.seat == CHANCE_SEAT and isinstance(state, SonnentauState) \
                    and not state.is_terminal and not state.is_chance_node():
                seen.append(features(probe, state))

        players = [load_bot(bot).player for _ in range(seats)]
        record = play_game("sonnentau", players, seed=seed + game,
                           options={"dice": dice}, on_move=after)
        wins = pair_targets(record.ranks)
        for found in seen:
            rows.extend(found)
            targets.extend(wins)
    return rows, targets


def features(model: SonnentauRaceModel, state: SonnentauState) -> list[tuple[float, ...]]:
    """The features of every pair of seats (lower seat first) just after a roll."""
    played = model.player(state, places_of(state), state.seat).play(state.dice_left())
    seats = state.n_seats
    return [pair_features(played, state.seat, state.is_doubles(), s, o)
            for s in range(seats) for o in range(s + 1, seats)]


def pair_targets(ranks: Sequence[int]) -> list[float]:
    """1 where the lower seat finished ahead, ½ for a tie, 0 behind, pair by pair."""
    seats = len(ranks)
    return [1.0 if ranks[s] < ranks[o] else 0.5 if ranks[s] == ranks[o] else 0.0
            for s in range(seats) for o in range(s + 1, seats)]


def fit(rows: list[tuple[float, ...]], targets: list[float]) -> tuple[list[float], float]:
    """Logistic regression with soft targets; the coefficients and the mean log loss."""
    x = np.asarray(rows, dtype=float)
    y = np.asarray(targets, dtype=float)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ w
        value = np.logaddexp(0.0, z) - y * z
        p = 1.0 / (1.0 + np.exp(-z))
        grad = x.T @ (p - y) / len(y) + RIDGE * w
        return float(value.mean() + 0.5 * RIDGE * w @ w), grad

    result = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B")
    return [round(float(w), 6) for w in result.x], float(result.fun)


# -- stage 2: luck that moves with the outcome ------------------------------------------------

Node = tuple[np.ndarray, np.ndarray, np.ndarray, int]
"""One chance node: every distinct roll's pair features (seat 0 against seat 1), its
probability, a fixed value for seat 0 where the roll is forfeited or wins (NaN where the
features decide), and which roll came."""


def duplicate_set(task: tuple[str, int, int]) -> tuple[float, list[list[Node]]]:
    """One seed of a pair, both seat orders: the first bot's mean points and each game's
    chance nodes."""
    dice, pair, seed = task
    first_file, first_params, second_file, second_params = LUCK_PAIRS[pair]
    first = load_bot(str(ROOT / "bots" / "sonnentau" / first_file), first_params).player
    second = load_bot(str(ROOT / "bots" / "sonnentau" / second_file), second_params).player
    stage1 = SonnentauRaceModel(dice, 2, _STAGE1[dice])
    points, games = 0.0, []
    for seat, players in ((0, [first, second]), (1, [second, first])):
        record = play_game("sonnentau", players, seed=seed, options={"dice": dice})
        points += pair_targets(record.ranks)[0] if seat == 0 else 1 - pair_targets(
            record.ranks)[0]
        games.append(chance_nodes(record, stage1))
    return points / 2, games


_STAGE1: dict[str, list[float]] = {}
"""Stage 1's two-seat coefficients by dice variant (set before stage 2's workers start)."""


def chance_nodes(record: Any, model: SonnentauRaceModel) -> list[Node]:
    """Every chance node of a game with what stage 2 needs of it (see :data:`Node`)."""
    from arena.games import find_game

    game = find_game("sonnentau")
    state = game.initial_state(record.options)
    nodes: list[Node] = []
    for move in record.moves:
        action = game.parse_action(move.action)
        if state.is_chance_node():
            assert isinstance(state, SonnentauState) and isinstance(action, Dice)
            nodes.append(_node(model, state, tuple(sorted(action.values))))
        state.apply(action)
    return nodes


def _node(model: SonnentauRaceModel, state: SonnentauState, came: tuple[int, ...]) -> Node:
    mover = state.seat
    player = model.player(state, places_of(state), mover)
    standing = model.expected_values(state)[0]
    rows: list[tuple[float, ...]] = []
    chances: list[float] = []
    fixed: list[float] = []
    seen: dict[tuple[int, ...], int] = {}
    for dice, sorted_dice, p in _rolls(state.faces):
        if sorted_dice in seen:
            chances[seen[sorted_dice]] += p
            continue
        seen[sorted_dice] = len(chances)
        played = player.play(dice)
        chances.append(p)
        if played.forfeited or played.won:
            rows.append((0.0,) * len(FEATURES))
            fixed.append(standing if played.forfeited else float(mover == 0))
        else:
            rows.append(pair_features(played, mover, len(set(dice)) < len(dice), 0, 1))
            fixed.append(math.nan)
    return np.array(rows), np.array(chances), np.array(fixed), seen[came]


class Sample:
    """One pair's duplicate sets, their chance nodes flattened into arrays."""

    def __init__(self, points: np.ndarray, games: list[list[Node]]) -> None:
        self.points = points
        self.games = len(games)
        self.rows = np.concatenate([rows for nodes in games for rows, _, _, _ in nodes])
        self.chances = np.concatenate([p for nodes in games for _, p, _, _ in nodes])
        self.fixed = np.concatenate([f for nodes in games for _, _, f, _ in nodes])
        self.game_of_row = np.concatenate([np.full(len(p), g) for g, nodes in enumerate(games)
                                           for _, p, _, _ in nodes])
        came, game_of_came, offset = [], [], 0
        for g, nodes in enumerate(games):
            for _, p, _, k in nodes:
                came.append(offset + k)
                game_of_came.append(g)
                offset += len(p)
        self.came = np.array(came)
        self.game_of_came = np.array(game_of_came)

    def luck(self, weights: np.ndarray, scale: float = 1.0) -> np.ndarray:
        """Seat 0's luck in each game under the coefficients ``weights``, ``scale`` of
        each change of value counted (as arena's luck accounting counts the model's
        ``luck_scale``)."""
        values = 1.0 / (1.0 + np.exp(-(self.rows @ weights)))
        values = np.where(np.isnan(self.fixed), values, self.fixed)
        return scale * (np.bincount(self.game_of_came, values[self.came], self.games)
                        - np.bincount(self.game_of_row, self.chances * values, self.games))

    def set_luck(self, weights: np.ndarray, scale: float = 1.0) -> np.ndarray:
        """The first bot's mean luck in each duplicate set (it sits in seat 0, then 1)."""
        luck = self.luck(weights, scale)
        return (luck[0::2] - luck[1::2]) / 2  # type: ignore[no-any-return]

    def factor(self, weights: np.ndarray) -> float:
        """The least-squares factor of the sets' luck under ``weights``."""
        luck = self.set_luck(weights)
        return float(np.cov(self.points, luck, bias=True)[0, 1] / luck.var()) \
            if luck.var() > 0.0 else 1.0

    def residual_share(self, weights: np.ndarray, scale: float = 1.0, *,
                       fitted: bool = False) -> float:
        """The share of the sets' variance left once their luck is taken out: all of it,
        or with its least-squares factor (``fitted``)."""
        luck = self.set_luck(weights, scale)
        factor = 1.0
        if fitted and luck.var() > 0.0:
            factor = np.cov(self.points, luck, bias=True)[0, 1] / luck.var()
        return float((self.points - factor * luck).var() / self.points.var())


def luck_fit(dice: str, start: list[float], sets: int, workers: int
             ) -> tuple[list[float], float, dict[str, Any]]:
    """Stage 2 for one dice variant: the tuned coefficients, the luck scale and what they
    were tuned on."""
    _STAGE1[dice] = start
    tasks = [(dice, pair, LUCK_SEED + pair * sets + k) for pair in range(len(LUCK_PAIRS))
             for k in range(sets)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        played = pool.map(duplicate_set, tasks, chunksize=4)
    samples = []
    for pair in range(len(LUCK_PAIRS)):
        rows = played[pair * sets:(pair + 1) * sets]
        samples.append(Sample(np.array([points for points, _ in rows]),
                              [nodes for _, games in rows for nodes in games]))

    def objective(weights: np.ndarray) -> float:
        shares = [sample.residual_share(weights, fitted=True) for sample in samples]
        return float(np.mean(shares) + LUCK_RIDGE * np.sum((weights - start_array) ** 2))

    start_array = np.array(start)
    result = minimize(objective, start_array, method="Nelder-Mead",
                      options={"maxiter": 4000, "xatol": 1e-4, "fatol": 1e-6})
    scale = min(1.0, float(np.mean([sample.factor(result.x) for sample in samples])))
    shares = {}
    for name, weights, luck_scale in (("residual_share_before", np.array(start), 1.0),
                                      ("residual_share", result.x, scale)):
        for fitted, key in ((False, name), (True, name.replace("share", "share_fitted"))):
            shares[key] = [round(sample.residual_share(weights, luck_scale, fitted=fitted), 4)
                           for sample in samples]
    return [round(float(w), 6) for w in result.x], round(scale, 6), {
        "pairs": [list(pair) for pair in LUCK_PAIRS], "sets": sets, "first_seed": LUCK_SEED,
        "outcome_weights": start, **shares}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=float, default=1.0,
                        help="scale of the default game counts (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="first game seed (default 1)")
    parser.add_argument("--out", type=Path, default=DATA_PATH, help="the JSON file to write")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes for stage 2's sets (default 1)")
    args = parser.parse_args(argv)
    models: dict[str, Any] = {}
    began = time.perf_counter()
    for dice in ("standard", "miwin"):
        for seats, count in GAMES.items():
            games = max(1, round(count * args.games))
            rows: list[tuple[float, ...]] = []
            targets: list[float] = []
            for bot in BOTS:
                more_rows, more_targets = collect(dice, seats, bot, games, args.seed)
                rows += more_rows
                targets += more_targets
            weights, log_loss = fit(rows, targets)
            models[f"{dice}/{seats}"] = {"weights": weights, "games": games * len(BOTS),
                                         "rows": len(rows), "log_loss": round(log_loss, 4)}
            print(f"{dice}/{seats}: {weights} from {len(rows)} rows, log loss {log_loss:.4f} "
                  f"({time.perf_counter() - began:.0f} s)", flush=True)
        entry = models[f"{dice}/2"]
        sets = max(2, round(LUCK_SETS * args.games))
        entry["weights"], entry["luck_scale"], entry["luck_fit"] = luck_fit(
            dice, entry["weights"], sets, args.workers)
        print(f"{dice}/2 tuned for luck: {entry['weights']}, luck scale {entry['luck_scale']}, "
              f"variance left (share fitted) {entry['luck_fit']['residual_share_fitted_before']} "
              f"-> {entry['luck_fit']['residual_share_fitted']} "
              f"({time.perf_counter() - began:.0f} s)", flush=True)
    data = {"model": NAME, "features": list(FEATURES), "bots": list(BOTS),
            "first_seed": args.seed, "models": models}
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
