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

A position already decided (one seat holds more than half the points in sectors
where both fields are full, which no roll can undo) is worth exactly 1 to that seat
and 0 to the other: no table is searched for it, and its rolls carry no luck.

The solitaire programme over the subsets of a player's empty fields is the
bot's, computed with NumPy (:class:`ArrayEvaluation`): the same values up to
rounding, for many positions at once (:meth:`SeasonsValues.prepare`), and each set
of fields once (:class:`Solitaire`), since positions share most of theirs.

Each value is the same to the bit however it is reached: alone or with others,
before or after other games (a matrix product's rounding depends on how many
columns it multiplies, so none is used), so that a game's luck does not depend on
which process accounted for it, or what that process did before.
"""

from __future__ import annotations

import itertools
import math
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
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
    decided_points,
)
from arena.games.seasons.rules import PLACE, REROLL, REROLL_ROLL, ROLL, SECTOR_VALUES, SeasonsState
from arena.results.standings import game_points

NAME = "seasons-expectimax/4"


class SeasonsValues:
    """V for Seasons: the expectimax bot's evaluation of the position and the dice."""

    name = NAME

    ENDGAME_NODES = 300
    """The bot's exact endgame search where it expands at most this many positions (the
    bot's own limit is 700): a little less exact at five or six empty fields, and the
    accounting then costs less than an expectimax game's play."""

    TABLES_KEPT = 32_768
    """Positions whose turns are kept (about a kilobyte each); all are forgotten at once
    beyond this."""

    def __init__(self) -> None:
        self._evaluation = ArrayEvaluation()
        self._planner = Planner(self.ENDGAME_NODES)
        self._planner.evaluation = self._planner.endgame.evaluation = self._evaluation
        self._turns: dict[Position, Turn] = {}

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
        turn = self.turn_of(state)
        if state.phase == PLACE:
            return turn.table[state.total]
        if state.phase == REROLL:
            a, b, c = state.dice
            e = turn.expectations
            return max(e[a + b + c], e[19 + a + b], e[19 + a + c], e[19 + b + c], e[32 + a],
                       e[32 + b], e[32 + c], e[39])
        if state.phase == REROLL_ROLL:
            kept = sum(d for slot, d in enumerate(state.dice) if slot not in state.pending)
            return turn.expectations[_FIRST_OF[len(state.pending)] + kept]
        if state.phase == ROLL:
            return turn.value
        raise ValueError(f"no value for a state in phase {state.phase}")

    def table_of(self, state: SeasonsState) -> Sequence[float]:
        """What each final total is worth to the seat to move, by total (0..18)."""
        return self.turn_of(state).table

    def turn_of(self, state: SeasonsState) -> Turn:
        """The table of the position of the seat to move, with what it makes of the dice."""
        position = _position(state)
        turn = self._turns.get(position)
        if turn is None:
            winner = decided_winner(*position)
            if winner is not None:
                return self._settle([position], winner)
            turn = self._keep([position], [self._planner.decide(*position)[0]])[0]
        return turn

    def turn_value(self, table: Sequence[float]) -> float:
        """The chance a table by total is worth before the roll, with the best re-roll."""
        return float(turn_values(np.asarray(table, dtype=float)[:19, None])[0])

    def prepare(self, states: Iterable[State]) -> None:
        """The turns of these states' positions, ahead, computed together: the solitaire
        tables in one programme (:meth:`ArrayEvaluation.placement_tables`), the endgames
        in one search (:meth:`Planner.search_ahead`), then every table's expectations and
        value before the roll; the same values as one at a time."""
        wanted = [position for position in dict.fromkeys(
            _position(seasons) for seasons in map(_seasons, states) if not seasons.is_terminal)
            if position not in self._turns]
        winners = {position: decided_winner(*position) for position in wanted}
        settled = [position for position in wanted if winners[position] is not None]
        open_ = [position for position in wanted if winners[position] is None]
        searched = {position: self._planner.uses_endgame(*position) for position in open_}
        solitaire = [position for position in open_ if not searched[position]]
        endgame = [position for position in open_ if searched[position]]
        tables = [values for values, _ in self._evaluation.placement_tables(solitaire)]
        self._planner.search_ahead(endgame)
        tables += [self._planner.decide(*position)[0] for position in endgame]
        self._keep(solitaire + endgame, tables)
        for won in (True, False):
            self._settle([position for position in settled if winners[position] is won], won)

    def _settle(self, positions: Sequence[Position], winner: bool) -> Turn:
        """Keep these decided positions, won by the seat to move or not; their turn."""
        turn = _SETTLED[winner]
        self._remember(dict.fromkeys(positions, turn))
        return turn

    def _keep(self, positions: Sequence[Position], tables: Sequence[Sequence[float]]
              ) -> list[Turn]:
        """Keep these positions' turns, made from their tables together."""
        if not positions:
            return []
        by_total = np.array(tables, dtype=float)[:, :19].T
        expectations = rerolled_expectations(by_total)
        values = turn_values_of(expectations).tolist()
        turns = [Turn(tuple(table), array("d", column), value) for table, column, value in
                 zip(tables, expectations.T.tolist(), values, strict=True)]
        self._remember(dict(zip(positions, turns, strict=True)))
        return turns

    def _remember(self, turns: Mapping[Position, Turn]) -> None:
        if len(self._turns) + len(turns) > self.TABLES_KEPT:
            self._turns.clear()
        self._turns.update(turns)


@dataclass(frozen=True, slots=True)
class Turn:
    """A position's table for the seat to move (the chance of winning by final total),
    its 40 expectations (:func:`rerolled_expectations`) and its value before the roll."""

    table: tuple[float, ...]
    expectations: array[float]
    value: float


_SETTLED = {won: Turn((0.0,) * 3 + (float(won),) * 16, array("d", [float(won)] * 40),
                      float(won)) for won in (True, False)}
"""The turn of a decided position, by whether the seat to move has won it: every total,
every re-roll and the roll itself are worth exactly that."""


Position = tuple[tuple[int, ...], tuple[int, ...]]
"""The fields of the seat to move, then the other seat's."""


def decided_winner(mine: Fields, theirs: Fields) -> bool | None:
    """Whether I have won already (True), or they have (False), by holding more than half
    the points in the sectors where both fields are full; None while it is open."""
    given_out = sum(SECTOR_VALUES[s] for s in range(N_SECTORS) if mine[s] and theirs[s])
    points = decided_points(mine, theirs)
    if points > HALF_POINTS:
        return True
    if given_out - points > HALF_POINTS:
        return False
    return None


def _position(state: SeasonsState) -> Position:
    seat = state.seat
    return tuple(state.fields[seat]), tuple(state.fields[1 - seat])


Array = npt.NDArray[np.float64]


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


def rerolled_expectations(by_total: Array) -> Array:
    """Per column of 19 values by total, the 40 expectations of the bot's
    ``_rerolled_expectations`` (rows): the totals, then a kept sum with one, two or three
    dice re-rolled. Each column's arithmetic is its own (running sums down the columns, no
    matrix product or reduction, whose rounding depends on how many columns come along)."""
    width = by_total.shape[1]
    expectations = np.zeros((40, width))
    expectations[:19] = by_total
    windows = np.zeros((20, width))
    np.cumsum(by_total, axis=0, out=windows[1:])
    np.subtract(windows[9:20], windows[3:14], out=expectations[21:32])  # totals k+1..k+6
    expectations[21:32] /= 6
    np.cumsum(expectations[19:32], axis=0, out=windows[1:14])
    np.subtract(windows[8:14], windows[2:8], out=expectations[33:39])
    expectations[33:39] /= 6
    expectations[39] = np.cumsum(expectations[33:39], axis=0)[-1] / 6
    return expectations


_CHOICE_ROWS_64 = np.pad(_CHOICE_INDEX.T, ((0, 0), (0, 64 - len(ROLLS))))
_ROLL_P_64 = np.pad(_ROLL_P, (0, 64 - len(ROLLS)))[:, None]
TURNS_AT_ONCE = 256
"""Columns :func:`turn_values` takes at a time: its arrays then stay in the cache."""


def turn_values(by_total: Array) -> Array:
    """:func:`~arena.games.seasons.evaluation.turn_value` of each column of 19 values by
    total, each column's the same to the bit whatever columns come along (see
    :func:`turn_values_of`)."""
    found = np.empty(by_total.shape[1])
    for start in range(0, by_total.shape[1], TURNS_AT_ONCE):
        found[start:start + TURNS_AT_ONCE] = turn_values_of(
            rerolled_expectations(by_total[:, start:start + TURNS_AT_ONCE]))
    return found


def turn_values_of(expectations: Array) -> Array:
    """The value before the roll of each column of 40 expectations
    (:func:`rerolled_expectations`): each roll's best re-roll, and the rolls' weighted
    values added in halves (64 rows, the last eight of no weight)."""
    found = np.empty(expectations.shape[1])
    for start in range(0, expectations.shape[1], TURNS_AT_ONCE):
        best = expectations[:, start:start + TURNS_AT_ONCE][_CHOICE_ROWS_64].max(axis=0)
        best *= _ROLL_P_64
        while len(best) > 1:
            half = len(best) // 2
            best = best[:half] + best[half:]
        found[start:start + TURNS_AT_ONCE] = best[0]
    return found


class ArrayEvaluation(Evaluation):
    """The bot's evaluation with its solitaire programme run over all subsets at once, and
    each total's placements weighed at once."""

    def __init__(self, **parameters: float) -> None:
        super().__init__(**parameters)
        self.solitaire = Solitaire(self)

    def turn_value(self, value: Sequence[float]) -> float:
        return float(turn_values(np.asarray(value, dtype=float)[:19, None])[0])

    def turn_values(self, values: Sequence[Sequence[float]]) -> list[float]:
        """:meth:`turn_value` of each row, each the same to the bit as alone (which rows
        the endgame search values together depends on what it has met before)."""
        by_total = np.array(values, dtype=float)[:, :19].T
        return turn_values(by_total).tolist()  # type: ignore[no-any-return]

    def placement_table(self, mine: Fields, theirs: Fields) -> Table:
        """:meth:`Evaluation.placement_table`, every total and open sector in a few array
        operations."""
        return self.placement_tables([(mine, theirs)])[0]

    def placement_tables(self, positions: Sequence[tuple[Fields, Fields]]) -> list[Table]:
        """:meth:`placement_table` of each ``(mine, theirs)``, the solitaire programmes of
        those with as many empty fields run together; a table is the same to the bit
        whatever positions it comes with."""
        placements = [self._placement(mine, theirs) for mine, theirs in positions]
        futures = self.solitaire.without_each([placement.codes for placement in placements])
        return [self._placement_scores(placement, rest)
                for placement, rest in zip(placements, futures, strict=True)]

    def _placement(self, mine: Fields, theirs: Fields) -> Placement:
        n_mine, n_theirs = mine.count(0), theirs.count(0)
        chances = [self.sector_chance(s, mine, theirs, n_mine, n_theirs)
                   for s in range(N_SECTORS)]
        fields = [s for s in range(N_SECTORS) if not mine[s]]
        fixed_points = variance = 0.0
        for sector, p in enumerate(chances):
            value = SECTOR_VALUES[sector]
            if mine[sector]:
                fixed_points += value * p
            variance += value * value * p * (1.0 - p)
        return Placement(
            rows=np.array([self.gain_row(s, theirs[s], n_theirs)[1] for s in fields]),
            codes=np.array([field_code(s, theirs[s], n_theirs) for s in fields],
                           dtype=np.int64),
            fields=fields, theirs=[theirs[s] for s in fields],
            chances=[chances[s] for s in fields], fixed_points=fixed_points,
            variance=variance)

    def _placement_scores(self, placement: Placement, rest: Array) -> Table:
        """The table from the placement's rows and its fields' futures without each."""
        fields, others = placement.fields, placement.theirs
        gains = placement.rows[:, 3:19]
        values = _VALUES[fields][:, None]
        chance = np.array(placement.chances)[:, None]
        points = gains + (rest + placement.fixed_points)[:, None]
        lead_penalty = [self.lead_penalty * SECTOR_VALUES[s] if not other else 0.0
                        for s, other in zip(fields, others, strict=True)]
        points -= np.array(lead_penalty)[:, None]
        if self.tempo:
            points = points + self.tempo * _WINS[fields, others]
        after = gains / values
        spread = (placement.variance + self.variance_floor) - values * values * (
            chance * (1.0 - chance) - after * (1.0 - after))
        z = (points - HALF_POINTS) / np.sqrt(spread) / math.sqrt(2.0)
        erf = np.array(list(map(math.erf, z.ravel().tolist()))).reshape(z.shape)
        scores = 0.5 * (1.0 + erf) + points * 1e-4  # normal_cdf's arithmetic, row at once
        best = scores.argmax(axis=0)
        table = [0.0] * 3 + scores[best, _COLUMNS].tolist()
        where = [0] * 3 + [fields[k] for k in best.tolist()]
        return table, where


Codes = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Placement:
    """What a position's table needs, per empty field of mine: its gain row, its code
    (:func:`field_code`), its sector, their total there and my chance there; and my
    expected points elsewhere and the variance of all."""

    rows: Array
    codes: Codes
    fields: list[int]
    theirs: list[int]
    chances: list[float]
    fixed_points: float
    variance: float


class Solitaire:
    """The solitaire programme's future points of sets of my empty fields, kept by the set
    of their gain rows, which many positions share (the same fields, the same totals of
    theirs): a set's value is computed once, from those of the sets one field smaller,
    for all positions asked together and for those asked later.

    A set is coded as an integer, each field's gain-row key as 5 bits at 5 × its sector
    (:func:`field_code`): a set's code is the sum of its fields', and says its fields."""

    KEPT = 2_000_000
    """Sets kept (16 bytes each); all are forgotten at once beyond this."""

    def __init__(self, evaluation: Evaluation) -> None:
        self.rows = np.zeros((N_SECTORS * 32, 19))
        """Each field's gain row, at its code's 5 bits + 32 × its sector."""
        for sector in range(N_SECTORS):
            for other in range(3, 19):
                self.rows[_row_index(sector, other, 0)] = evaluation.gain_row(sector, other, 0)[1]
            for n_theirs in range(N_SECTORS + 1):
                self.rows[_row_index(sector, 0, n_theirs)] = evaluation.gain_row(
                    sector, 0, n_theirs)[1]
        self.known: dict[int, Kept] = {}
        """The sets kept, by their number of fields."""

    def without_each(self, positions: Sequence[Codes]) -> list[Array]:
        """For each position's field codes, the future points of its fields without each
        one of them."""
        by_size: dict[int, list[Codes]] = {}
        for codes in positions:
            if len(codes):
                by_size.setdefault(len(codes), []).append(codes)
        stacked = {n: np.stack(group) for n, group in by_size.items()}
        empty: tuple[Codes, Array] = (np.zeros(1, dtype=np.int64), np.zeros(1))  # worth 0
        levels = [empty]
        for size in range(1, max(stacked, default=1)):
            codes = np.unique(np.concatenate([
                fields[:, _subsets(n, size)].sum(axis=2).ravel()
                for n, fields in stacked.items() if n > size]))
            levels.append((codes, self._values(codes, size, *levels[-1])))
        found = []
        for codes in positions:
            smaller, values = levels[max(0, len(codes) - 1)]
            found.append(values[np.searchsorted(smaller, codes.sum() - codes)])
        return found

    def _values(self, codes: Codes, size: int, smaller: Codes, smaller_values: Array
                ) -> Array:
        """The future points of these sets (sorted codes) of ``size`` fields: those kept,
        and the others computed and kept."""
        kept = self.known.setdefault(size, Kept())
        values, new = kept.find(codes)
        if new.any():
            values[new] = self._computed(codes[new], size, smaller, smaller_values)
            if sum(map(len, self.known.values())) > self.KEPT:
                for each in self.known.values():
                    each.clear()
            kept.add(codes[new], values[new])
        return values

    def _computed(self, codes: Codes, size: int, smaller: Codes, smaller_values: Array
                  ) -> Array:
        """The future points of these sets of ``size`` fields, from those of the sets one
        field smaller (``smaller``, sorted, and their values)."""
        bits = (codes[:, None] >> _SHIFTS) & 31
        sectors = np.nonzero(bits)[1].reshape(-1, size)
        field = np.take_along_axis(bits, sectors, axis=1)
        rest = smaller_values[np.searchsorted(smaller, codes[:, None] - (field << 5 * sectors))]
        index = field + 32 * sectors
        best = self.rows[index[:, 0]] + rest[:, :1]
        for j in range(1, size):
            np.maximum(best, self.rows[index[:, j]] + rest[:, j:j + 1], out=best)
        return turn_values(np.ascontiguousarray(best.T))


class Kept:
    """Values by integer codes, in sorted arrays: a large part, and a small one that the
    codes added go into until it is merged into the large one (so that adding a few
    codes does not copy all of them)."""

    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        self.parts: list[tuple[Codes, Array]] = [(np.zeros(0, dtype=np.int64), np.zeros(0))] * 2

    def __len__(self) -> int:
        return sum(len(codes) for codes, _ in self.parts)

    def find(self, codes: Codes) -> tuple[Array, npt.NDArray[np.bool_]]:
        """(values, which are missing) of these sorted codes (a missing one's value is 0)."""
        values, missing = np.zeros(len(codes)), np.ones(len(codes), dtype=bool)
        for kept, kept_values in self.parts:
            at = np.minimum(np.searchsorted(kept, codes), max(0, len(kept) - 1))
            found = kept[at] == codes if len(kept) else np.zeros(len(codes), dtype=bool)
            values[found] = kept_values[at[found]]
            missing &= ~found
        return values, missing

    def add(self, codes: Codes, values: Array) -> None:
        """Keep these sorted codes (none kept yet) and their values."""
        (large, large_values), (small, small_values) = self.parts
        at = np.searchsorted(small, codes)
        small, small_values = np.insert(small, at, codes), np.insert(small_values, at, values)
        if len(small) > max(4096, len(large) // 4):
            at = np.searchsorted(large, small)
            large, large_values = np.insert(large, at, small), np.insert(large_values, at,
                                                                          small_values)
            small, small_values = small[:0], small_values[:0]
        self.parts = [(large, large_values), (small, small_values)]


_SHIFTS = 5 * np.arange(N_SECTORS, dtype=np.int64)


def field_code(sector: int, other: int, n_theirs: int) -> int:
    """A field's gain-row key (:meth:`Evaluation.gain_row`) as 5 bits at 5 × its sector."""
    return _field_bits(other, n_theirs) << (5 * sector)


def _field_bits(other: int, n_theirs: int) -> int:
    """Their total there (3..18), or 19 + their empty fields (0..11) where they have none;
    plus one, so that no field is 0."""
    return (other or 19 + n_theirs) + 1


def _row_index(sector: int, other: int, n_theirs: int) -> int:
    return _field_bits(other, n_theirs) + 32 * sector


@cache
def _subsets(n: int, size: int) -> npt.NDArray[np.int64]:
    """The subsets of ``size`` of ``n`` fields, as rows of their members."""
    return np.array(list(itertools.combinations(range(n), size)), dtype=np.int64)


def _seasons(state: State) -> SeasonsState:
    if not isinstance(state, SeasonsState):
        raise ValueError(f"the Seasons value model cannot value a {type(state).__name__}")
    return state


def model_for(options: Mapping[str, Any]) -> SeasonsValues:
    """The model fits every Seasons game (its one option, the placement limit, only
    stops a game that runs too long)."""
    return SeasonsValues()
