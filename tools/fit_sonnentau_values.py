"""Fit the coefficients of Sonnentau's race model (arena/results/values/sonnentau.py).

Plays seeded self-play games of the shipped bots (heuristic against heuristic,
search against search) for every dice variant and seat count, records the
model's pairwise features right after every roll, and fits "seat finishes
ahead of the other" (½ for a tie) by logistic regression (scipy's L-BFGS on
the cross-entropy, a light ridge penalty). The result is written to
arena/results/values/sonnentau_race.json.

Run from the repository root::

    .venv/bin/python tools/fit_sonnentau_values.py               # about 9 minutes
    .venv/bin/python tools/fit_sonnentau_values.py --games 0.1   # a quick look, 1 minute

Seeds start at ``--seed`` (default 1) and are the same for every run, so the
file is reproduced exactly. The time is one core's; most of it is the bots.
"""

from __future__ import annotations

import argparse
import json
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
from arena.games.base import CHANCE_SEAT, State  # noqa: E402
from arena.games.sonnentau.rules import SonnentauState  # noqa: E402
from arena.referee.match import play_game  # noqa: E402
from arena.referee.record import Move  # noqa: E402
from arena.results.values.sonnentau import (  # noqa: E402
    DATA_PATH,
    FEATURES,
    NAME,
    SonnentauRaceModel,
    pair_features,
    places_of,
)

BOTS = ("bots/sonnentau/heuristic.py", "bots/sonnentau/search.py")
GAMES = {2: 240, 3: 90, 4: 50}
"""Games per bot, dice variant and seat count at ``--games`` scale 1 (a 2-seat
game gives about 25 rolls, a 4-seat game about 70)."""
RIDGE = 1e-3


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=float, default=1.0,
                        help="scale of the default game counts (default 1)")
    parser.add_argument("--seed", type=int, default=1, help="first game seed (default 1)")
    parser.add_argument("--out", type=Path, default=DATA_PATH, help="the JSON file to write")
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
    data = {"model": NAME, "features": list(FEATURES), "bots": list(BOTS),
            "first_seed": args.seed, "models": models}
    args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
