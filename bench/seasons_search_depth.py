"""Benchmark: does searching deeper with expectimax's evaluation beat expectimax?

The challenger, :class:`ThreePly`, re-rolls as expectimax does, but chooses its
placement by looking one whole turn further: for each placement, the opponent's turn
as the opponent's own table plays it (its re-rolls to the exact distribution of its
final total, :func:`~arena.games.seasons.evaluation.optimal_distribution`, and its
placement of each total), then the value of the position for the challenger's next
turn (:class:`~arena.results.values.seasons.SeasonsValues`, with the bot's endgame
limit of 700). Where the endgame search is exact this is expectimax's own decision
(the quick test checks it). Optional challengers are expectimax with other
evaluation parameters (``--params '{"flexibility": 0.4}'``, repeatable).

Each challenger plays ``--sets`` duplicate sets (one seed, both seat orders) against
``bots/seasons/expectimax.py`` in this process's workers, as trusted bots. It prints
the challenger's raw score and its luck-adjusted score with the 95 % interval
``arena compare`` gives (:func:`~arena.results.stats.luck_adjusted`,
:func:`~arena.results.stats.adjusted_interval`; the close expectimax pair needs about a
tenth of the games with it), and its CPU seconds a set. The goal of a bot that beats
expectimax is ≥ 55 %.

Run from the repository root (about 30 s a challenger at 40 sets on 2 cores)::

    .venv/bin/python bench/seasons_search_depth.py [--sets 40] [--seed 50000] [--workers 2]
        [--params JSON ...] [--no-three-ply]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from arena.bots.loading import load_bot
from arena.games.seasons.evaluation import Planner, best_reroll, optimal_distribution
from arena.games.seasons.rules import PLACE, SECTOR_INDEX, SeasonsState
from arena.referee.match import play_game
from arena.results.luck import account
from arena.results.stats import adjusted_interval, luck_adjusted
from arena.results.values import model_for
from arena.results.values.seasons import SeasonsValues

ROOT = Path(__file__).resolve().parent.parent
EXPECTIMAX = ROOT / "bots" / "seasons" / "expectimax.py"
GOAL = 0.55


def dice_summing_to(total: int) -> tuple[int, int, int]:
    first = min(6, total - 2)
    second = min(6, total - first - 1)
    return first, second, total - first - second


class BotValues(SeasonsValues):
    """The value model with the bot's own endgame limit."""

    ENDGAME_NODES = 700


class ThreePly:
    """Expectimax's re-roll; a placement judged after the opponent's whole next turn."""

    name = "three-ply"
    version = "bench"

    def __init__(self) -> None:
        self.model = BotValues()
        self.plans = lru_cache(maxsize=65_536)(self._plan)

    def _plan(self, mine: tuple[int, ...], theirs: tuple[int, ...]) -> Any:
        planner: Planner = self.model._planner
        return planner.decide(mine, theirs)

    def start(self, info: Any) -> None:
        """The bot uses no randomness."""

    def act(self, observation: Any) -> str:
        state = SeasonsState.from_json(observation.state)
        if observation.state["phase"] == "reroll":
            slots = best_reroll(state.dice, self.model.table_of(state))
            return "reroll:" + ",".join(map(str, slots)) if slots else "keep"
        legal = state.legal_actions()
        best = max(legal, key=lambda action: self.placement_value(state, action))
        return f"place:{best.sector}"

    def placement_value(self, state: SeasonsState, action: Any) -> float:
        """The mover's chance of winning after ``action`` and the opponent's next turn."""
        me = state.seat
        after = state.copy()
        after.apply(action)
        if after.is_terminal or after.seat == me:
            return self.model.values(after)[me]
        opponent = after.seat
        values, where = self.plans(tuple(after.fields[opponent]), tuple(after.fields[me]))
        chances = optimal_distribution(tuple(values))
        value = 0.0
        for total in range(3, 19):
            if not chances[total]:
                continue
            placed = after.copy()
            placed.phase, placed.dice, placed.pending = PLACE, dice_summing_to(total), ()
            placed.apply(next(a for a in placed.legal_actions()
                              if SECTOR_INDEX[a.sector] == where[total]))
            value += chances[total] * self.model.values(placed)[me]
        return value


_PLAYERS: dict[str, Any] = {}


def challenger(spec: str) -> Any:
    if spec not in _PLAYERS:
        _PLAYERS[spec] = (ThreePly() if spec == "three-ply"
                          else load_bot(str(EXPECTIMAX), json.loads(spec)).player)
    return _PLAYERS[spec]


def play_set(task: tuple[str, int]) -> tuple[float, float, float]:
    """Both seat orders on one seed: (the challenger's mean points, its mean luck, CPU s)."""
    spec, seed = task
    mine, rival = challenger(spec), challenger("{}")
    model = model_for("seasons", {})
    started = time.process_time()
    points, luck = 0.0, 0.0
    for seat, players in ((0, [mine, rival]), (1, [rival, mine])):
        result = account(play_game("seasons", players, seed=seed), model)
        points += result.points[seat] / 2
        luck += result.luck[seat] / 2
    return points, luck, time.process_time() - started


def measure(spec: str, sets: int, seed: int, workers: int) -> str:
    tasks = [(spec, seed + n) for n in range(sets)]
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        rows = pool.map(play_set, tasks, chunksize=2)
    points = [row[0] for row in rows]
    adjusted = luck_adjusted(points, [row[1] for row in rows])
    low, high = adjusted_interval(adjusted)
    mean = adjusted.mean
    cpu = sum(row[2] for row in rows) / sets
    return (f"{spec:>28} vs expectimax, {sets} sets: raw {100 * sum(points) / sets:.1f}%, "
            f"luck-adjusted {100 * mean:.1f}% (95% {100 * low:.1f}-{100 * high:.1f}), "
            f"ratio to the goal of {100 * GOAL:.0f}% {mean / GOAL:.2f}; {cpu:.2f} CPU s a set")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=40)
    parser.add_argument("--seed", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--params", action="append", default=[],
                        help="expectimax's parameters as JSON, a challenger each")
    parser.add_argument("--no-three-ply", action="store_true")
    args = parser.parse_args()
    specs = ([] if args.no_three_ply else ["three-ply"]) + [
        json.dumps(json.loads(text), sort_keys=True) for text in args.params]
    for spec in specs:
        print(measure(spec, args.sets, args.seed, args.workers), flush=True)


if __name__ == "__main__":
    main()
