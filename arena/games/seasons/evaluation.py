"""Seasons of the Sun: what each total is worth, by exact re-roll arithmetic and search.

The evaluation behind the shipped ``expectimax`` bot (``bots/seasons/expectimax.py``
explains the method) and behind the game's value model for luck accounting
(:mod:`arena.results.values.seasons`). No randomness and no clock: a position
always gets the same values (a deadline, where one is set, only makes a search
give up with :class:`OutOfTime`).
"""

from __future__ import annotations

import gc
import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache, lru_cache
from itertools import combinations, product
from operator import itemgetter
from typing import Union

from arena.games.seasons.rules import IS_MAX, SECTOR_VALUES, SECTORS

Fields = Sequence[int]
"""One player's 11 fields by sector, 0 for an empty one."""
TotalValues = Union[Sequence[float], Mapping[int, float]]  # noqa: UP007 - a runtime alias
"""What each final total 3..18 is worth, indexed by total."""
Table = tuple[list[float], list[int]]
"""(value by total, sector by total) of a player's best placements."""
RowKey = tuple[int, int, int]
OpenSectors = tuple[tuple[int, int, int], ...]
"""The undecided sectors as (sector, my total, their total), 0 for empty."""

N_SECTORS = len(SECTORS)
TOTALS = range(3, 19)
_ALL_POINTS = sum(SECTOR_VALUES)
HALF_POINTS = _ALL_POINTS / 2  # 60: more wins, exactly 60 is a draw
SLOT_SUBSETS: tuple[tuple[int, ...], ...] = tuple(
    slots for k in range(4) for slots in combinations(range(3), k))

# -- dice ------------------------------------------------------------------


def _sum_distribution(n_dice: int) -> tuple[tuple[int, float], ...]:
    counts = Counter(sum(faces) for faces in product(range(1, 7), repeat=n_dice))
    return tuple((total, count / 6 ** n_dice) for total, count in sorted(counts.items()))


SUM_DISTRIBUTION = tuple(_sum_distribution(n) for n in range(4))
"""``SUM_DISTRIBUTION[n]``: (sum, probability) of ``n`` dice; ``n = 0`` gives ``((0, 1.0),)``."""

ROLLS: tuple[tuple[tuple[int, ...], float], ...] = tuple(
    (roll, count / 216) for roll, count in sorted(
        Counter(tuple(sorted(r)) for r in product(range(1, 7), repeat=3)).items()))
"""The 56 distinct first rolls (sorted dice) with their probabilities."""


def reroll_values(dice: Sequence[int], value_of_total: TotalValues
                  ) -> dict[tuple[int, ...], float]:
    """Exact expected value of each re-roll choice: ``{slots: E[value of final total]}``.

    ``value_of_total[t]`` is what a final total ``t`` is worth (a list indexed by
    total, or a dict). For each subset of die slots the kept dice are summed and
    every outcome of the re-rolled dice is weighed by its probability.
    """
    values = {}
    for slots in SLOT_SUBSETS:
        kept = sum(d for slot, d in enumerate(dice) if slot not in slots)
        values[slots] = sum(p * value_of_total[kept + s]
                            for s, p in SUM_DISTRIBUTION[len(slots)])
    return values


def best_reroll(dice: Sequence[int], value_of_total: TotalValues) -> tuple[int, ...]:
    """The re-roll choice with the highest expectation; on ties the fewest dice, then keep."""
    values = reroll_values(dice, value_of_total)
    best = max(values.values())
    return next(slots for slots in SLOT_SUBSETS if values[slots] >= best - 1e-12)


# Indices into [value(19), one die re-rolled (13), two dice (7), three dice (1)]
# of the eight choices of each first roll, for turn_value.
_CHOICES = tuple(
    (p, itemgetter(*sorted({a + b + c, 19 + a + b, 19 + a + c, 19 + b + c,
                            32 + a, 32 + b, 32 + c, 39})))
    for (a, b, c), p in ROLLS)


def _rerolled_expectations(value: Sequence[float]) -> list[float]:
    """E[value] with kept sum ``k`` and 1, 2 or 3 dice re-rolled, as one list (see _CHOICES)."""
    one = [0.0] * 13
    window = value[3] + value[4] + value[5] + value[6] + value[7] + value[8]
    one[2] = window / 6
    for k in range(3, 13):
        window += value[k + 6] - value[k]
        one[k] = window / 6
    two = [0.0] * 7
    for k in range(1, 7):  # re-rolling two dice = adding one die, then re-rolling one
        two[k] = (one[k + 1] + one[k + 2] + one[k + 3] + one[k + 4] + one[k + 5]
                  + one[k + 6]) / 6
    three = (two[1] + two[2] + two[3] + two[4] + two[5] + two[6]) / 6
    return [*value[:19], *one, *two, three]


def turn_value(value: Sequence[float]) -> float:
    """Expected value of a whole turn (roll, best re-roll) when total ``t`` is worth ``value[t]``.

    ``value`` is a list of 19 numbers indexed by total (entries 0..2 unused).
    """
    table = _rerolled_expectations(value)
    return float(sum(p * max(choices(table)) for p, choices in _CHOICES))


@lru_cache(maxsize=4096)
def optimal_distribution(value: tuple[float, ...]) -> tuple[float, ...]:
    """Distribution of the final total (a 19-tuple) when re-rolling to maximise ``value``.

    ``value`` is a tuple of 19 numbers indexed by total. On ties the choice
    re-rolling fewer dice is taken.
    """
    table = _rerolled_expectations(value)
    dist = [0.0] * 19
    for (a, b, c), p in ROLLS:
        # (expected value, kept sum, dice re-rolled), fewest dice first
        choices = ((table[a + b + c], a + b + c, 0),
                   (table[19 + a + b], a + b, 1), (table[19 + a + c], a + c, 1),
                   (table[19 + b + c], b + c, 1),
                   (table[32 + a], a, 2), (table[32 + b], b, 2), (table[32 + c], c, 2),
                   (table[39], 0, 3))
        best = max(choice[0] for choice in choices)
        _, kept, n_dice = next(choice for choice in choices if choice[0] >= best - 1e-12)
        for s, q in SUM_DISTRIBUTION[n_dice]:
            dist[kept + s] += p * q
    return tuple(dist)


def beats(sector: int, total: int, other: int) -> bool:
    """Whether ``total`` wins ``sector`` against a different total ``other``."""
    return (total > other) == IS_MAX[sector]


def _outcomes(sector: int, other: int) -> tuple[tuple[bool, ...], bool, bool]:
    wins = tuple(beats(sector, t, other) for t in TOTALS)
    others = [won for t, won in zip(TOTALS, wins, strict=True) if t != other]
    return wins, any(others), not all(others)


def _not_needed(_: list[float]) -> float:
    """The chance of an outcome no total leads to (never read)."""
    return 0.0


_OUTCOMES = tuple(tuple(_outcomes(sector, other) for other in range(19))
                  for sector in range(N_SECTORS))
"""Per sector and the opponent's total there: whether each total 3..18 beats it (the one
equal to it neutralises instead), whether some total beats it and whether some loses."""


@cache
def response_chances(is_max: bool, target: int) -> tuple[float, float]:
    """(P(win), P(tie)) of a player who re-rolls optimally to beat ``target`` (a tie worth 1/2)."""
    goal = [0.0] * 19
    for t in TOTALS:
        goal[t] = 0.5 if t == target else float((t > target) == is_max)
    dist = optimal_distribution(tuple(goal))
    win = sum(dist[t] for t in TOTALS if t != target and (t > target) == is_max)
    return win, dist[target]


# Computed once at import (a tenth of a second), so that no decision pays for it.
for _is_max in (True, False):
    for _target in TOTALS:
        response_chances(_is_max, _target)


def normal_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


class OutOfTime(Exception):
    """Raised inside a search when its deadline has passed."""


# -- evaluation --------------------------------------------------------------


class Evaluation:
    """The midgame evaluation, from the side of the player to decide ("me").

    A position is two tuples of 11 totals, ``mine`` and ``theirs`` (0 = empty).
    The parameters were tuned in seat-balanced games against ``greedy``:

    * ``flexibility``: how much an answering player gains from each further
      empty field of its own (see :meth:`response`);
    * ``tie_value``: the share of a neutralised sector counted for the player
      who answered (the sector opens again, a coin flip);
    * ``neutralise_value``: what neutralising the opponent's total is worth to
      me, as a share of the sector; more than a half, because my field stays
      open for a better total while the solitaire programme counts it as used;
    * ``lead_penalty``: the share of a sector's value given up by leading in an
      empty sector, which forgoes the chance that the opponent leads there
      first (in play the answering player wins about 70% of the sectors);
    * ``tempo``: points for a placement that wins a sector and so moves again;
    * ``variance_floor``: added to the variance of the points, which keeps the
      chance of winning smooth near the end.
    """

    CACHE_LIMIT = 200_000

    def __init__(self, flexibility: float = 0.3, tie_value: float = 0.5,
                 neutralise_value: float = 0.7, lead_penalty: float = 0.05, tempo: float = 0.0,
                 variance_floor: float = 4.0) -> None:
        self.flexibility = flexibility
        self.tie_value = tie_value
        self.neutralise_value = neutralise_value
        self.lead_penalty = lead_penalty
        self.tempo = tempo
        self.variance_floor = variance_floor
        self.deadline: float | None = None
        """perf_counter() time after which future_points gives up."""
        self._rows: dict[RowKey, list[float]] = {}
        """Gain rows by (sector, their total, their empty fields)."""
        self._future: dict[tuple[RowKey, ...], float] = {}
        """Solitaire values by the tuple of gain-row keys."""

    def response(self, sector: int, target: int, n_open: int) -> float:
        """Chance that a player with ``n_open`` empty fields beats ``target`` in ``sector``.

        One optimally re-rolled try wins with ``r`` (a tie counts ``tie_value``);
        more open fields mean more turns in which to wait for a good roll,
        ``1 + flexibility * (n_open - 1)`` tries in all.
        """
        win, tie = response_chances(IS_MAX[sector], target)
        single = win + self.tie_value * tie
        tries = 1.0 + self.flexibility * max(0, n_open - 1)
        return float(1.0 - (1.0 - single) ** tries)

    def sector_chance(self, sector: int, mine: Fields, theirs: Fields, n_mine: int,
                      n_theirs: int) -> float:
        """My chance to win one sector judged alone; an empty sector is a coin flip."""
        m, o = mine[sector], theirs[sector]
        if m and o:
            return float(beats(sector, m, o))
        if m:
            return 1.0 - self.response(sector, m, n_theirs)
        if o:
            return self.response(sector, o, n_mine)
        return 0.5

    def gain_row(self, sector: int, other: int, n_theirs: int) -> tuple[RowKey, list[float]]:
        """(key, row): my expected points in ``sector`` if I place ``t`` there now, by ``t``.

        Against the opponent's total ``other`` the sector is decided (or
        neutralised); in an empty sector I lead and win unless the opponent,
        with ``n_theirs`` empty fields, answers.
        """
        key = (sector, other, 0 if other else n_theirs)
        row = self._rows.get(key)
        if row is None:
            value = SECTOR_VALUES[sector]
            row = [0.0] * 19
            for t in TOTALS:
                if other == t:
                    row[t] = value * self.neutralise_value
                elif other:
                    row[t] = value * beats(sector, t, other)
                else:
                    row[t] = value * (1.0 - self.response(sector, t, n_theirs))
            self._rows[key] = row
        return key, row

    def future_points(self, keys: tuple[RowKey, ...]) -> float:
        """Expected points my empty fields, given by their gain-row keys, will still bring.

        The solitaire programme: I roll, re-roll and place, turn after turn, as
        if the opponent's fields stood still. A turn is worth the expectation
        over the roll and the best re-roll (:func:`turn_value`) of the best
        placement, which earns the field's gain row and leaves the other fields
        to later turns. 2**n subsets for n fields, each one cached.
        """
        if not keys:
            return 0.0
        known = self._future.get(keys)
        if known is not None:
            return known
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime
        rest = [self.future_points(keys[:j] + keys[j + 1:]) for j in range(len(keys))]
        shifted = [[x + r for x in self._rows[key]] for key, r in zip(keys, rest, strict=True)]
        best = shifted[0] if len(keys) == 1 else list(map(max, *shifted))
        value = turn_value(best)
        if len(self._future) > self.CACHE_LIMIT:
            self._future.clear()
        self._future[keys] = value
        return value

    def future_without_each(self, keys: tuple[RowKey, ...]) -> list[float]:
        """The future points of the fields ``keys`` without each one of them in turn."""
        return [self.future_points(keys[:j] + keys[j + 1:]) for j in range(len(keys))]

    def turn_value(self, value: Sequence[float]) -> float:
        """:func:`turn_value`, the one the searches call (a subclass may compute it faster)."""
        return turn_value(value)

    def turn_values(self, values: Sequence[Sequence[float]]) -> list[float]:
        """:meth:`turn_value` of each row (a subclass may compute them together)."""
        return [self.turn_value(value) for value in values]

    def win_chance(self, mean: float, variance: float) -> float:
        """Chance of more than 60 points (60 counts half), plus a tie-breaking nudge by points."""
        z = (mean - HALF_POINTS) / math.sqrt(variance + self.variance_floor)
        return normal_cdf(z) + mean * 1e-4

    def placement_table(self, mine: Fields, theirs: Fields) -> Table:
        """(value by total, sector by total) of my best placements, by the solitaire programme.

        A placement of ``t`` in my empty field ``j`` is worth the points already
        certain or expected in sectors where my field is full, plus the gain row
        of ``j`` at ``t``, plus the future points of my other empty fields;
        turned into a chance of winning with the variance of the open sectors.
        """
        n_mine, n_theirs = mine.count(0), theirs.count(0)
        fixed_points = variance = 0.0
        chances = [self.sector_chance(s, mine, theirs, n_mine, n_theirs)
                   for s in range(N_SECTORS)]
        for sector, p in enumerate(chances):
            value = SECTOR_VALUES[sector]
            if mine[sector]:
                fixed_points += value * p
            variance += value * value * p * (1.0 - p)
        open_sectors = [s for s in range(N_SECTORS) if not mine[s]]
        keys, rows = zip(*(self.gain_row(s, theirs[s], n_theirs) for s in open_sectors),
                         strict=True)
        rest = self.future_without_each(keys)
        values, where = [0.0] * 19, [0] * 19
        for t in TOTALS:
            best = None
            for j, sector in enumerate(open_sectors):
                value, other = SECTOR_VALUES[sector], theirs[sector]
                points = fixed_points + rows[j][t] + rest[j]
                if not other:
                    points -= self.lead_penalty * value
                elif other != t and beats(sector, t, other):
                    points += self.tempo
                before, after = chances[sector], rows[j][t] / value
                spread = variance - value * value * (before * (1 - before) - after * (1 - after))
                score = self.win_chance(points, spread)
                if best is None or score > best:
                    best, values[t], where[t] = score, score, sector
        return values, where

    def quick_table(self, mine: Fields, theirs: Fields) -> Table:
        """Like :meth:`placement_table` with every sector judged alone: fast, no programme."""
        values, where = [0.0] * 19, [0] * 19
        for t in TOTALS:
            best = None
            for sector in range(N_SECTORS):
                if mine[sector]:
                    continue
                after: tuple[Fields, Fields]
                if theirs[sector] == t:  # neutralised
                    after = mine, (*theirs[:sector], 0, *theirs[sector + 1:])
                else:
                    after = (*mine[:sector], t, *mine[sector + 1:]), theirs
                score = self.quick_win_chance(*after)
                if best is None or score > best:
                    best, values[t], where[t] = score, score, sector
        return values, where

    def quick_win_chance(self, mine: Fields, theirs: Fields) -> float:
        """Chance of winning with every sector judged alone."""
        n_mine, n_theirs = mine.count(0), theirs.count(0)
        mean = variance = 0.0
        for sector in range(N_SECTORS):
            value = SECTOR_VALUES[sector]
            p = self.sector_chance(sector, mine, theirs, n_mine, n_theirs)
            mean += value * p
            variance += value * value * p * (1 - p)
        return self.win_chance(mean, variance)


# -- endgame -----------------------------------------------------------------


def endgame_size(open_: OpenSectors) -> float:
    """A generous estimate of the positions the endgame search expands, fitted on real games.

    It grows about threefold with each empty field and again with each sector
    where both fields are empty (a lead there can be any of 16 totals).
    """
    empty = sum((not m) + (not o) for _, m, o in open_)
    both_empty = sum(1 for _, m, o in open_ if not m and not o)
    return float(7 * 3 ** max(0, empty - 2) * 3.2 ** both_empty)


class Endgame:
    """Exact expectimax over the dice to the end of the game, for few empty fields.

    A position is ``(open, points)`` from the side of the player about to roll:
    ``open`` lists ``(sector, my total, their total)`` of the undecided sectors
    (0 = empty), ``points`` are my points in the decided ones. Its value is my
    chance of winning (a draw counts 1/2). Values are exact (up to the
    evaluation after a neutralisation) and kept between decisions.
    """

    MEMO_LIMIT = 100_000

    def __init__(self, evaluation: Evaluation) -> None:
        self.evaluation = evaluation
        self.memo: dict[tuple[OpenSectors, int], float] = {}
        self.estimates: dict[tuple[OpenSectors, int], float] = {}
        self.deadline: float | None = None

    def turn(self, open_: OpenSectors, points: int) -> float:
        """My chance of winning when I am about to roll."""
        key = (open_, points)
        known = self.memo.get(key)
        if known is not None:
            return known
        self._check_deadline()
        value = self.evaluation.turn_value(self.best_by_total(open_, points)[0])
        self._remember(key, value)
        return value

    def turns(self, positions: list[tuple[OpenSectors, int]]) -> list[float]:
        """:meth:`turn` of each ``(open, points)``, the new ones' values computed together
        (:meth:`fill`)."""
        found = list(map(self.memo.get, positions))
        missing = [i for i, value in enumerate(found) if value is None]
        if missing:
            computed = self.fill([positions[i] for i in missing])
            for i in missing:
                found[i] = computed[positions[i]]
        return found  # type: ignore[return-value]  # every None was filled in

    def fill(self, positions: Iterable[tuple[OpenSectors, int]]
             ) -> dict[tuple[OpenSectors, int], float]:
        """The values of these positions and of every position the search meets below them
        that is not kept yet, returned by position (and kept, as far as the memo's limit
        allows).

        The search goes down level by level, then values each level's positions together
        (:meth:`Evaluation.turn_values`), those with the fewest empty fields first: every
        placement fills a field, so a position's followers are all valued before it. Many
        positions asked at once (a batch of games) make few large batches.
        """
        with _no_cycle_collection():
            return self._fill(positions)

    def _fill(self, positions: Iterable[tuple[OpenSectors, int]]
              ) -> dict[tuple[OpenSectors, int], float]:
        plans: dict[tuple[OpenSectors, int], tuple[list[Row], list[tuple[OpenSectors, int]]]] = {}
        level = [position for position in dict.fromkeys(positions)
                 if position not in self.memo]
        while level:
            below = []
            for position in level:
                if position in plans:
                    continue
                self._check_deadline()
                follow: list[tuple[OpenSectors, int]] = []
                plans[position] = (self._placements(*position, follow), follow)
                below += [after for after in follow
                          if after not in plans and after not in self.memo]
            level = below
        by_empty: dict[int, list[tuple[OpenSectors, int]]] = {}
        for position in plans:
            by_empty.setdefault(_empty_fields(position[0]), []).append(position)
        values: dict[tuple[OpenSectors, int], float] = {}
        kept = self.memo
        for empty in sorted(by_empty):
            group = by_empty[empty]
            rows = []
            for position in group:
                placements, follow = plans[position]
                chances = [values[after] if after in values else kept[after]
                           for after in follow]
                rows.append(self._combine(placements, chances)[0])
            values.update(zip(group, self.evaluation.turn_values(rows), strict=True))
        for position, value in values.items():
            self._remember(position, value)
        return values

    def _check_deadline(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfTime

    def _remember(self, key: tuple[OpenSectors, int], value: float) -> None:
        if len(self.memo) > self.MEMO_LIMIT:
            self.memo.clear()
        self.memo[key] = value

    def best(self, open_: OpenSectors, points: int, t: int) -> tuple[float, int]:
        """(my chance of winning, index into ``open_``) of the best placement of total ``t``."""
        best = (-1.0, 0)
        for k, (_, m, _) in enumerate(open_):
            if not m:
                v = self.after(open_, points, k, t)
                if v > best[0]:
                    best = (v, k)
        return best

    def best_by_total(self, open_: OpenSectors, points: int) -> tuple[list[float], list[int]]:
        """:meth:`best` for every total at once: (chance by total, index by total).

        A placement against the opponent's total has three outcomes whatever the
        total (won, lost, neutralised), so each is searched once, not once a total; the
        positions that follow the placements are valued together (:meth:`turns`).
        """
        follow: list[tuple[OpenSectors, int]] = []
        placements = self._placements(open_, points, follow)
        return self._combine(placements, self.turns(follow))

    def _placements(self, open_: OpenSectors, points: int,
                    follow: list[tuple[OpenSectors, int]]) -> list[Row]:
        """How to make each placement's row (by index into ``open_``) from the chances of
        the positions that follow, which are added to ``follow``."""
        rows: list[Row] = []
        given_out = _ALL_POINTS - sum(SECTOR_VALUES[s] for s, _, _ in open_)
        for k, (_, m, other) in enumerate(open_):
            if not m:
                make = (self._lead(open_, k, given_out - points, follow) if not other else
                        self._against(open_, points, k, given_out, follow))
                rows.append((k, make))
        return rows

    @staticmethod
    def _combine(placements: list[Row], chances: list[float]) -> tuple[list[float], list[int]]:
        """(chance by total, index by total) of the best placement of each total."""
        values, where = [0.0] * 3 + [-1.0] * 16, [0] * 19
        for k, make in placements:
            row = make(chances)
            for t in TOTALS:
                if row[t] > values[t]:
                    values[t], where[t] = row[t], k
        return values, where

    @staticmethod
    def _lead(open_: OpenSectors, k: int, theirs: int, follow: list[tuple[OpenSectors, int]]
              ) -> Callable[[list[float]], list[float]]:
        """Leading in the empty sector ``open_[k]`` with each total: the opponent rolls
        next (its ``theirs`` points). Adds the positions to ``follow``; returns how to make
        the row from their chances."""
        sector = open_[k][0]
        swapped = swap(open_)
        head, tail = swapped[:k], swapped[k + 1:]
        first = len(follow)
        follow += [((*head, (sector, 0, t), *tail), theirs) for t in TOTALS]
        return lambda chances: [0.0, 0.0, 0.0] + [1.0 - c for c in chances[first:first + 16]]

    def _against(self, open_: OpenSectors, points: int, k: int, given_out: int,
                 follow: list[tuple[OpenSectors, int]]) -> Callable[[list[float]], list[float]]:
        """Placing against the opponent's total in ``open_[k]``: won, lost or neutralised.
        Adds the positions that follow to ``follow``; returns how to make the row."""
        sector, _, other = open_[k]
        value = SECTOR_VALUES[sector]
        rest = open_[:k] + open_[k + 1:]
        wins, some_win, some_loss = _OUTCOMES[sector][other]
        movers = _movers(rest)
        won = self._decided(rest, points + value, given_out + value, True, follow, movers) \
            if some_win else _not_needed
        lost = self._decided(rest, points, given_out + value, False, follow, movers) \
            if some_loss else _not_needed
        neutral = self.estimate((*open_[:k], (sector, 0, 0), *open_[k + 1:]), points)

        def make(chances: list[float]) -> list[float]:
            if_won, if_lost = won(chances), lost(chances)
            row = [0.0, 0.0, 0.0] + [if_won if w else if_lost for w in wins]
            row[other] = neutral
            return row

        return make

    @staticmethod
    def _decided(rest: OpenSectors, points: int, given_out: int, won: bool,
                 follow: list[tuple[OpenSectors, int]], movers: tuple[bool, bool]
                 ) -> Callable[[list[float]], float]:
        """My chance once a sector is decided (``won`` by me or not): ``rest`` is still
        open (``movers``: whether I and they have an empty field in it, :func:`_movers`),
        ``given_out`` points are decided, ``points`` of them mine. The position that
        follows is added to ``follow``; the chance is read from the chances given back."""
        if not rest:
            final = 1.0 if points > HALF_POINTS else 0.5 if points == HALF_POINTS else 0.0
            return lambda _: final
        at = len(follow)
        i_can_move, they_can_move = movers
        if (won and i_can_move) or not they_can_move:
            follow.append((rest, points))
            return lambda chances: chances[at]
        follow.append((swap(rest), given_out - points))
        return lambda chances: 1.0 - chances[at]

    def after(self, open_: OpenSectors, points: int, k: int, t: int) -> float:
        """My chance of winning after placing ``t`` in ``open_[k]``."""
        sector, _, other = open_[k]
        decided = _ALL_POINTS - sum(SECTOR_VALUES[s] for s, _, _ in open_)
        if other == t:  # neutralised: the evaluation judges the re-opened position
            reopened = (*open_[:k], (sector, 0, 0), *open_[k + 1:])
            return self.estimate(reopened, points)
        if not other:  # I lead; the opponent answers some time
            rest = (*open_[:k], (sector, t, 0), *open_[k + 1:])
            return 1.0 - self.turn(swap(rest), decided - points)
        won = beats(sector, t, other)
        value = SECTOR_VALUES[sector]
        follow: list[tuple[OpenSectors, int]] = []
        rest = open_[:k] + open_[k + 1:]
        chance = self._decided(rest, points + value if won else points, decided + value, won,
                               follow, _movers(rest))
        return chance([self.turn(*position) for position in follow])

    def estimate(self, open_: OpenSectors, points: int) -> float:
        """The evaluation's chance of winning for an open position (after a neutralisation)."""
        key = (open_, points)
        known = self.estimates.get(key)
        if known is None:
            known = self._estimate(open_, points)
            if len(self.estimates) > self.MEMO_LIMIT:
                self.estimates.clear()
            self.estimates[key] = known
        return known

    def _estimate(self, open_: OpenSectors, points: int) -> float:
        mine = [1] * N_SECTORS
        theirs = [1] * N_SECTORS
        for sector, m, o in open_:
            mine[sector], theirs[sector] = m, o
        evaluation = self.evaluation
        n_mine, n_theirs = mine.count(0), theirs.count(0)
        mean, variance = float(points), 0.0
        for sector, _, _ in open_:
            value = SECTOR_VALUES[sector]
            p = evaluation.sector_chance(sector, mine, theirs, n_mine, n_theirs)
            mean += value * p
            variance += value * value * p * (1 - p)
        return evaluation.win_chance(mean, variance) - mean * 1e-4


Row = tuple[int, Callable[[list[float]], list[float]]]
"""A placement's index into the open sectors, and how to make its row of chances by total
from the chances of the positions that follow."""


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector off: a search's plans are many objects without cycles,
    which reference counting frees, and which the collector would walk again and again
    as they grow."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _movers(open_: OpenSectors) -> tuple[bool, bool]:
    """Whether I, and whether they, have an empty field in these sectors."""
    return any(not m for _, m, _ in open_), any(not o for _, _, o in open_)


def _empty_fields(open_: OpenSectors) -> int:
    return sum((not m) + (not o) for _, m, o in open_)


def swap(open_: OpenSectors) -> OpenSectors:
    """The same undecided sectors seen from the other player."""
    return tuple((sector, o, m) for sector, m, o in open_)


class Planner:
    """The table of a position: the exact endgame when it is small enough, else the
    solitaire evaluation, else (short of time) the quick one.

    ``endgame_nodes``: search to the end when :func:`endgame_size` estimates at most
    this many positions (0 switches the endgame search off); the other parameters are
    those of :class:`Evaluation`. ``SECONDS_PER_SUBSET`` and ``SECONDS_PER_NODE`` are
    generous costs (measured: about 70 and 100 us) for planning under a time budget.
    """

    SECONDS_PER_SUBSET = 120e-6
    SECONDS_PER_NODE = 150e-6

    def __init__(self, endgame_nodes: int = 700, **evaluation_parameters: float) -> None:
        self.endgame_nodes = endgame_nodes
        self.evaluation = Evaluation(**evaluation_parameters)
        self.endgame = Endgame(self.evaluation)

    def decide(self, mine: Fields, theirs: Fields, total: int | None = None,
               budget: float | None = None) -> Table:
        """(value by total, sector by total) of my best placements in this position.

        Given ``total`` (a placement decision), the endgame fills in that total alone.
        ``budget`` is the seconds the search may take (None: no limit); whether a
        search starts depends on the position and the budget only, never on the clock,
        so decisions stay reproducible.
        """
        deadline = None if budget is None else time.perf_counter() + budget
        open_ = undecided(mine, theirs)
        size = endgame_size(open_)
        try:
            if size <= self.endgame_nodes and _fits(budget, size * self.SECONDS_PER_NODE):
                self.endgame.deadline = deadline
                return self.endgame_table(mine, theirs, open_, total)
            if _fits(budget, 2 ** list(mine).count(0) * self.SECONDS_PER_SUBSET):
                self.evaluation.deadline = deadline
                return self.evaluation.placement_table(mine, theirs)
        except OutOfTime:
            pass  # a slow machine: the quick evaluation below never runs out of time
        finally:
            self.endgame.deadline = self.evaluation.deadline = None
        return self.evaluation.quick_table(mine, theirs)

    def uses_endgame(self, mine: Fields, theirs: Fields) -> bool:
        """Whether :meth:`decide` without a budget searches this position to the end."""
        return endgame_size(undecided(mine, theirs)) <= self.endgame_nodes

    def search_ahead(self, positions: Iterable[tuple[Fields, Fields]]) -> None:
        """Search the endgames of those of these positions that :meth:`decide` searches to
        the end, together (:meth:`Endgame.fill`): its values are kept for it."""
        self.endgame.fill((undecided(mine, theirs), decided_points(mine, theirs))
                          for mine, theirs in positions if self.uses_endgame(mine, theirs))

    def endgame_table(self, mine: Fields, theirs: Fields, open_: OpenSectors,
                      total: int | None = None) -> Table:
        """(value by total, sector by total) from the exact endgame search."""
        points = decided_points(mine, theirs)
        if total is None:
            values, indices = self.endgame.best_by_total(open_, points)
            return values, [open_[k][0] if t >= 3 else 0 for t, k in enumerate(indices)]
        values, where = [0.0] * 19, [0] * 19
        values[total], k = self.endgame.best(open_, points, total)
        where[total] = open_[k][0]
        return values, where


def decided_points(mine: Fields, theirs: Fields) -> int:
    """My points in the sectors where both fields are full."""
    return sum(SECTOR_VALUES[s] for s in range(N_SECTORS)
               if mine[s] and theirs[s] and beats(s, mine[s], theirs[s]))


def undecided(mine: Fields, theirs: Fields) -> OpenSectors:
    """``(sector, my total, their total)`` of each sector not yet decided."""
    return tuple((s, mine[s], theirs[s]) for s in range(N_SECTORS)
                 if not (mine[s] and theirs[s]))


def _fits(budget: float | None, cost: float) -> bool:
    return budget is None or cost <= budget
