"""Seasons of the Sun's value model: the expectimax evaluation, with the exact re-roll.

For the seat about to play, the position's table (:class:`~arena.games.seasons.
evaluation.Planner`: the exact endgame when few fields are left, see
:attr:`SeasonsValues.ENDGAME_NODES`, else the solitaire evaluation) says what
each final total 3..18 is worth as a chance of winning the game (a draw counts
½). The fields do not change within a turn, so one table values every state of
the turn exactly as the rules go on:

* with the dice placed-to-be (``place``): the table at their total;
* after the first roll (``reroll``): the best re-roll's expectation of the table;
* before a re-roll's dice (``reroll-roll``): the expectation over the re-rolled dice;
* before the first roll (``roll``): the expectation over all 216 rolls of the best
  re-roll, which is what the roll's luck is measured against.

The other seat gets the rest of the point. Tables are cached by position.

The solitaire programme over the subsets of a player's empty fields is the
bot's, computed for all subsets at once with NumPy (:class:`ArrayEvaluation`):
the same values up to rounding, some twenty times faster, which makes
accounting a game cheaper than playing it with the expectimax bot.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.games.base import State
from arena.games.seasons.evaluation import (
    HALF_POINTS,
    N_SECTORS,
    ROLLS,
    TOTALS,
    Evaluation,
    Fields,
    Planner,
    Table,
    beats,
)
from arena.games.seasons.rules import PLACE, REROLL, REROLL_ROLL, ROLL, SECTOR_VALUES, SeasonsState
from arena.results.standings import game_points

NAME = "seasons-expectimax/3"


class SeasonsValues:
    """V for Seasons: the expectimax bot's evaluation of the position and the dice."""

    name = NAME

    ENDGAME_NODES = 300
    """The bot's exact endgame search where it expands at most this many positions (the
    bot's own limit is 700): a little less exact at five or six empty fields, and the
    accounting then costs less than an expectimax game's play."""

    def __init__(self) -> None:
        self._planner = Planner(self.ENDGAME_NODES)
        self._planner.evaluation = ArrayEvaluation()
        self._planner.endgame.evaluation = self._planner.evaluation
        self._table = lru_cache(maxsize=65_536)(self._fresh_table)
        self._turn_value = lru_cache(maxsize=4096)(self._planner.evaluation.turn_value)
        self._expectations = lru_cache(maxsize=256)(_expectations)

    def values(self, state: State) -> tuple[float, float]:
        seasons = _seasons(state)
        if seasons.is_terminal:
            first, second = game_points(seasons.outcome().ranks)
            return first, second
        mover = self._mover_value(seasons)
        return (mover, 1.0 - mover) if seasons.seat == 0 else (1.0 - mover, mover)

    def expected_values(self, state: State) -> tuple[float, float]:
        """At a chance node, V itself is the exact expectation over the roll."""
        return self.values(state)

    def _mover_value(self, state: SeasonsState) -> float:
        table = self.table_of(state)
        if state.phase == PLACE:
            return table[state.total]
        if state.phase == REROLL:
            a, b, c = state.dice
            e = self._expectations(table)
            return max(e[a + b + c], e[19 + a + b], e[19 + a + c], e[19 + b + c], e[32 + a],
                       e[32 + b], e[32 + c], e[39])
        if state.phase == REROLL_ROLL:
            kept = sum(d for slot, d in enumerate(state.dice) if slot not in state.pending)
            return self._expectations(table)[_FIRST_OF[len(state.pending)] + kept]
        if state.phase == ROLL:
            return self._turn_value(table)
        raise ValueError(f"no value for a state in phase {state.phase}")

    def table_of(self, state: SeasonsState) -> Sequence[float]:
        """What each final total is worth to the seat to move, by total (0..18)."""
        seat = state.seat
        return self._table(tuple(state.fields[seat]), tuple(state.fields[1 - seat]))

    def _fresh_table(self, mine: tuple[int, ...], theirs: tuple[int, ...]) -> tuple[float, ...]:
        values, _ = self._planner.decide(mine, theirs)
        return tuple(values)


Array = npt.NDArray[np.float64]


def _expectations(table: tuple[float, ...]) -> list[float]:
    """The 40 expectations of :func:`rerolled_expectations` of a table, as
    :func:`turn_values` computes them: the table's totals, then a kept sum with one, two or
    three dice re-rolled."""
    return (_REROLLED_BY_ROW @ np.asarray(table, dtype=float)[:19]).tolist()  # type: ignore[no-any-return]


_FIRST_OF = (0, 19, 32, 39)
"""Where the expectations with 0, 1, 2 or 3 dice re-rolled start (indexed by kept sum)."""

_VALUES = np.array(SECTOR_VALUES, dtype=float)
_COLUMNS = np.arange(16)
_WINS = np.array([[[float(other and other != t and beats(s, t, other)) for t in TOTALS]
                   for other in range(19)] for s in range(N_SECTORS)])
"""Per sector and their total, whether each total 3..18 wins it outright (a tempo)."""

_CHOICE_INDEX = np.array([
    (ids := sorted({a + b + c, 19 + a + b, 19 + a + c, 19 + b + c, 32 + a, 32 + b, 32 + c, 39}))
    + [ids[0]] * (8 - len(ids)) for (a, b, c), _ in ROLLS])
"""Per distinct first roll, the entries of :func:`rerolled_expectations` its eight re-roll
choices reach (repeated to eight where choices coincide)."""
_ROLL_P = np.array([p for _, p in ROLLS])


def rerolled_expectations(values: Array) -> Array:
    """Per row of 19 values by total, the 40 expectations of the bot's
    ``_rerolled_expectations``: the totals, then a kept sum with one, two or three dice
    re-rolled."""
    windows = np.cumsum(np.pad(values, ((0, 0), (1, 0))), axis=1)
    one = np.zeros((len(values), 13))
    one[:, 2:13] = (windows[:, 9:20] - windows[:, 3:14]) / 6  # totals k+1..k+6, k = 2..12
    two = np.zeros((len(values), 7))
    for k in range(1, 7):
        two[:, k] = one[:, k + 1:k + 7].sum(axis=1) / 6
    three = two[:, 1:7].sum(axis=1, keepdims=True) / 6
    return np.concatenate([values[:, :19], one, two, three], axis=1)


_REROLLED = rerolled_expectations(np.eye(19))
"""The linear map of :func:`rerolled_expectations`, as a 19 × 40 matrix."""


_REROLLED_BY_ROW = np.ascontiguousarray(_REROLLED.T)
_CHOICE_ROWS = np.ascontiguousarray(_CHOICE_INDEX.T)


def turn_values(values: Array) -> Array:
    """:func:`~arena.games.seasons.evaluation.turn_value` of every row at once (the
    expectations as one product with :data:`_REROLLED`: the same up to rounding as
    :func:`rerolled_expectations`, with a few NumPy calls instead of some thirty). The
    expectations are laid out one row per entry, so that picking each roll's choices
    copies whole rows."""
    expectations = _REROLLED_BY_ROW @ values.T
    return _ROLL_P @ expectations[_CHOICE_ROWS].max(axis=0)  # type: ignore[no-any-return]


class ArrayEvaluation(Evaluation):
    """The bot's evaluation with its solitaire programme run over all subsets at once, and
    each total's placements weighed at once."""

    def turn_value(self, value: Sequence[float]) -> float:
        return float(turn_values(np.asarray(value, dtype=float)[None, :19])[0])

    def turn_values(self, values: Sequence[Sequence[float]]) -> list[float]:
        return turn_values(np.array(values, dtype=float)[:, :19]).tolist()  # type: ignore[no-any-return]

    def placement_table(self, mine: Fields, theirs: Fields) -> Table:
        """:meth:`Evaluation.placement_table`, every total and open sector in a few array
        operations."""
        n_mine, n_theirs = mine.count(0), theirs.count(0)
        chances = [self.sector_chance(s, mine, theirs, n_mine, n_theirs)
                   for s in range(N_SECTORS)]
        open_list = [s for s in range(N_SECTORS) if not mine[s]]
        fixed_points = variance = 0.0
        for sector, p in enumerate(chances):
            value = SECTOR_VALUES[sector]
            if mine[sector]:
                fixed_points += value * p
            variance += value * value * p * (1.0 - p)
        keys = tuple(self.gain_row(s, theirs[s], n_theirs)[0] for s in open_list)
        rows = np.array([self._rows[key] for key in keys])
        rest = self._future_without_each(rows)
        gains = rows[:, 3:19]
        values = _VALUES[open_list][:, None]
        opened = np.array([chances[s] for s in open_list])[:, None]
        points = gains + (rest + fixed_points)[:, None]
        lead_penalty = [self.lead_penalty * SECTOR_VALUES[s] if not theirs[s] else 0.0
                        for s in open_list]
        points -= np.array(lead_penalty)[:, None]
        if self.tempo:
            points = points + self.tempo * _WINS[open_list, [theirs[s] for s in open_list]]
        after = gains / values
        spread = (variance + self.variance_floor) - values * values * (
            opened * (1.0 - opened) - after * (1.0 - after))
        z = (points - HALF_POINTS) / np.sqrt(spread) / math.sqrt(2.0)
        erf = np.array(list(map(math.erf, z.ravel().tolist()))).reshape(z.shape)
        scores = 0.5 * (1.0 + erf) + points * 1e-4  # normal_cdf's arithmetic, row at once
        best = scores.argmax(axis=0)
        table = [0.0] * 3 + scores[best, _COLUMNS].tolist()
        where = [0] * 3 + [open_list[k] for k in best.tolist()]
        return table, where

    @staticmethod
    def _future_without_each(rows: Array) -> Array:
        """Every proper subset's future points, level by level (subsets of one field, then
        two, ...), from the fields' gain rows; those of the fields without each one of them
        are returned."""
        n = len(rows)
        future = np.zeros(1 << n)
        for masks, members, without in _levels(n):
            shifted = rows[members]
            shifted += future[without][:, :, None]
            future[masks] = turn_values(shifted.max(axis=1))
        return future[_WITHOUT_EACH[n]]


Level = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]


@cache
def _levels(n: int) -> tuple[Level, ...]:
    """For the proper subsets of ``n`` fields by size: their bit masks, their members and
    the mask of each subset without each member."""
    levels = []
    for size in range(1, n):
        subsets = list(itertools.combinations(range(n), size))
        members = np.array(subsets, dtype=np.int64)
        masks = (1 << members).sum(axis=1)
        levels.append((masks, members, masks[:, None] ^ (1 << members)))
    return tuple(levels)


_WITHOUT_EACH = [np.array([((1 << n) - 1) ^ (1 << j) for j in range(n)], dtype=np.int64)
                 for n in range(N_SECTORS + 1)]
"""For ``n`` fields, the masks of the subsets without each one of them."""


def _seasons(state: State) -> SeasonsState:
    if not isinstance(state, SeasonsState):
        raise ValueError(f"the Seasons value model cannot value a {type(state).__name__}")
    return state


def model_for(options: Mapping[str, Any]) -> SeasonsValues:
    """The model fits every Seasons game (its one option, the placement limit, only
    stops a game that runs too long)."""
    return SeasonsValues()
