"""Sonnentau's value model: a race model that knows what the dice in hand can do.

**The race.** A piece's *cost* is the expected number of dice it needs to get
home on its own along the board graph (solved by value iteration for the board
and dice variant: each die moves the piece to the best field it reaches, or is
left to other pieces). A seat's *race* is the sum of the costs of its best
``3 - home`` pieces plus a tenth of the spare ones' (the helpers for shortcuts).

**The roll.** Right after a roll the mover holds dice, and the value of the
position is the value of what the mover can make of them: the model plays the
roll greedily and values the position reached. Each die makes the single move
that gains most (the mover's race, its pieces' *exposure* included, against
the others' mean race; a hit piece is relocated as suits the mover: an own
piece to its cheapest empty field or into the goal, another seat's to the
start or its dearest empty field). Two dice are tried in both orders; of three,
the die with the best single move goes first, the other two in both orders.
Moves obey the engine's rules on passing and landing, so a roll the engine
forfeits is recognised as such. A piece's exposure is the chance that another
seat can land on it with its next roll (from where the others stood before the
roll) times what the worst relocation would cost it.

**The value.** Each pair of seats (*s*, *o*) gets the logistic chance that *s*
finishes ahead of *o* from the features :data:`FEATURES`: the race difference,
the same scaled by the square root of the pair's total race (a lead counts
more late), the mover's re-roll after doubles, how soon each of the two rolls
next, the mover's exposure, and the differences in pieces home, pieces off the
start and pieces on the final circle or goal straight. A seat's value is the
mean of its pairwise chances, which sums to what ``game_points`` sums to.
The coefficients, per dice variant and seat count, were fitted by logistic
regression on seeded self-play of the shipped bots on the default board
(``tools/fit_sonnentau_values.py``) and are shipped in ``sonnentau_race.json``.
Those for two seats were then tuned for what luck accounting needs: luck that
moves with the outcome, so that a duplicate set's points minus its luck vary as
little as possible (on duplicate sets of pairs of the shipped bots, other games
than any the benchmarks measure).
The model accepts any board (the race is measured in dice, so it carries
over), but only the default board's fit has been measured.

**Chance nodes.** The value of a chance node is the exact expectation over
``chance_outcomes()`` (``expected_values``). A roll with no legal move ends the
turn at once; its value is that of the chance node that follows: the same
seat's after doubles, else the next seat's, or the end at the turn limit. That
chain over one unchanged position is solved exactly (the model ignores the
turn count except for the limit). Terminal states are worth their game points.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from arena.games.base import State, ranks_from_scores
from arena.games.sonnentau.board import Board, board_for_option
from arena.games.sonnentau.race import dice_to_home, extend_mask, hit_chances
from arena.games.sonnentau.rules import (
    DICE_VARIANTS,
    HOME,
    PIECES_TO_WIN,
    SonnentauState,
)
from arena.results.standings import game_points

VERSION = 4
NAME = f"sonnentau-race/{VERSION}"
DATA_PATH = Path(__file__).with_name("sonnentau_race.json")
SPARE = 0.1
"""The weight of a piece beyond the ``3 - home`` a seat still needs."""
EXPOSURE = 0.75
"""How much of a piece's exposure (chance of a hit times its cost) the greedy play counts."""
FEATURES = ("race", "scaled_race", "doubles", "tempo", "exposure", "home", "started",
            "final")
"""The pairwise features, in the order of the shipped coefficients."""
WIN = math.inf
"""The greedy play's score of a move that wins the game."""
TIE = 1e-9
"""Moves whose scores differ by less are equally good: the first in the board's order is
played (rounding does not choose)."""
CONTEXTS_KEPT = 64
"""Positions whose per-roll work is kept between calls (a game's last few chance nodes)."""
SEATS_KEPT = 100_000
"""Seats' pieces whose race and counts are kept (a few megabytes)."""
SAMPLED_ROLLS = 24
"""Rolls of three dice whose whole greedy play :meth:`SonnentauRaceModel.estimated_values`
draws at a chance node (the first move of every roll is played)."""

Places = tuple[tuple[int, ...], ...]
"""Piece places per seat, each sorted: a field index, ``start`` (= the board's field
count) or HOME."""
Values = tuple[float, ...]
RollSums = Callable[[SonnentauState, Places, int], tuple[Values, float, float]]
"""A mover's ``Σ p · value`` over the rolls it can play and its chances of a forfeited
roll with and without doubles, at a position."""


class Context(NamedTuple):
    """What :meth:`RollPlayer._best_step` needs of a position, whatever the die."""

    occupant: dict[int, int]
    """The seat on each occupied field."""
    others: int
    races: list[float]
    total: float
    home: int
    costs: list[float]
    """The exposed costs of the mover's pieces not home, sorted."""
    sums: list[float]
    """Their running sums from 0."""
    movers: list[tuple[int, float, int]]
    """Per piece that can move (one per field): its field, its exposed cost and where
    that cost is in ``costs``."""


# -- tables per board and dice variant ---------------------------------------------------------


class RaceTables:
    """Costs, single-die moves and relocation orders of one board and dice variant.

    Index ``n`` (the number of fields) stands for the start.
    """

    def __init__(self, board: Board, variant: str) -> None:
        self.board = board
        self.n = board.n_fields
        self.start = self.n
        self.goal = board.goal
        self.faces = DICE_VARIANTS[variant]
        self.values = sorted({v for die in self.faces for v in die})
        self.hops = [self._hops_from(f) for f in range(self.n + 1)]
        self.cost = self._solve_cost()
        self.own_order = [self._targets(f, own=True) for f in range(self.n)]
        self.other_order = [self._targets(f, own=False) for f in range(self.n)]
        self.loss = [max(0.0, self.cost[order[0]] - self.cost[f]) if f != self.goal else 0.0
                     for f, order in enumerate(self.other_order)] + [0.0]
        self.reach = [{v: _mask(dest for dest, _ in hops[v]) for v in self.values}
                      for hops in self.hops]
        self.rolls = self._roll_distribution()
        self.final = frozenset(f for f in range(self.n)
                               if {board.final_circle, board.goal_straight} & set(
                                   board.tracks_at[f]))
        self._hits: dict[int, list[float]] = {}
        self._seats: dict[tuple[int, ...], tuple[float, tuple[float, float, float]]] = {}

    def seat(self, own: tuple[int, ...]) -> tuple[float, tuple[float, float, float]]:
        """A seat's race and its counts (pieces home, off the start, on the final circle
        or the goal straight), kept for the next positions with the same pieces."""
        known = self._seats.get(own)
        if known is None:
            if len(self._seats) > SEATS_KEPT:
                self._seats.clear()
            home = own.count(HOME)
            known = self._seats[own] = (
                _race([self.cost[f] for f in own if f != HOME], home),
                (float(home), float(sum(f != self.start for f in own)),
                 float(sum(f in self.final for f in own))))
        return known

    def _hops_from(self, field: int) -> dict[int, tuple[tuple[int, int], ...]]:
        """``hops[v]``: (destination, mask of fields passed) of every move of ``v``
        steps from ``field``, as the engine allows them on an empty board."""
        board = self.board
        moves: dict[int, list[tuple[int, int]]] = {v: [] for v in self.values}
        if field == self.start:
            for entry in board.entries:
                for v in self.values:
                    if v == 1:
                        moves[v].append((entry, 0))
                        continue
                    for step in board.steps[entry]:
                        if v - 1 <= len(step.path):
                            moves[v].append((step.path[v - 2],
                                             1 << entry | step.passed[v - 2]))
        elif field != self.goal:
            for step in board.steps[field]:
                for v in self.values:
                    if v <= len(step.path) and step.path[v - 1] != field:
                        moves[v].append((step.path[v - 1], step.passed[v - 1]))
        return {v: tuple(dict.fromkeys(hops)) for v, hops in moves.items()}

    def _die_distribution(self) -> dict[int, float]:
        """The value of one die picked at random among the variant's dice."""
        counts = Counter(v for die in self.faces for v in die)
        total = sum(counts.values())
        return {v: c / total for v, c in sorted(counts.items())}

    def _solve_cost(self) -> list[float]:
        """Expected dice a lone piece needs to get home from each field and the start.

        With ``m_v`` the best cost one die of ``v`` reaches, the rule "move when
        ``m_v`` beats staying" gives ``V = (1 + sum p_v m_v) / sum p_v`` over the
        values that move, minimised over the thresholds; Gauss-Seidel sweeps repeat
        that until nothing changes.
        """
        die = self._die_distribution()
        reach = [{v: {dest for dest, _ in hops[v]} for v in die} for hops in self.hops]
        return dice_to_home(reach, die, self.goal)

    def _targets(self, field: int, *, own: bool) -> tuple[int, ...]:
        """Where a piece hit on ``field`` may go, best first for the mover: for an own
        piece the goal, then the cheapest fields; for another seat's piece the dearest
        fields and the start (these by cost). The start closes both lists: it is where
        the engine puts a piece that has nowhere else to go."""
        rule = self.board.relocation[field]
        cost = self.cost
        if own:
            fields = sorted(rule.fields, key=lambda f: (cost[f], f))
            return (HOME, *fields, self.start) if rule.to_goal else (*fields, self.start)
        candidates = [*rule.fields, *([self.start] if rule.to_start else [])]
        return (*sorted(candidates, key=lambda f: (-cost[f], f)), self.start)


    def _roll_distribution(self) -> list[tuple[tuple[int, ...], float]]:
        """Every roll as (sorted values, probability), equal multisets merged."""
        counts = Counter(tuple(sorted(r)) for r in itertools.product(*self.faces))
        total = sum(counts.values())
        return [(values, c / total) for values, c in sorted(counts.items())]

    def hit_probability(self, source: int) -> list[float]:
        """``p[f]``: the chance that a piece on ``source`` can end a die on field ``f``
        in one roll, chaining any of the roll's dice in any order (blocking ignored)."""
        probs = self._hits.get(source)
        if probs is None:
            probs = self._hits[source] = hit_chances(
                functools.partial(extend_mask, self.reach), self.rolls, source, self.n + 1)
        return probs


def _mask(fields: Iterable[int]) -> int:
    mask = 0
    for f in fields:
        mask |= 1 << f
    return mask


_TABLES: dict[tuple[str, str], RaceTables] = {}


def tables_for(board: Board, variant: str) -> RaceTables:
    """The tables of a board and dice variant, built on first use and kept."""
    key = (board.path, variant)
    tables = _TABLES.get(key)
    if tables is None or tables.board is not board:
        tables = _TABLES[key] = RaceTables(board, variant)
    return tables


# -- one position, one mover: the greedy play of any roll ---------------------------------------


class Played(NamedTuple):
    """Where the greedy play of a roll ends: the places, each seat's race, what the
    mover's exposure adds to its race, and whether the roll was forfeited (no die
    could move) or won the game for the mover."""

    places: Places
    races: tuple[float, ...]
    exposure: float
    forfeited: bool
    won: bool
    counts: tuple[tuple[float, float, float], ...]
    """Per seat: pieces home, pieces off the start, pieces on the final circle or the
    goal straight."""


class RollPlayer:
    """Plays rolls greedily from one position for one mover, remembering every step
    (the same first dice recur across the rolls of a chance node).

    The mover's pieces are valued with their *exposure* added: the chance that
    another seat lands on them on its next roll (from where the others stand
    before the roll) times what the worst relocation would cost.
    """

    def __init__(self, tables: RaceTables, places: Places, mover: int) -> None:
        self.t = tables
        self.places = places
        self.mover = mover
        self.seats = len(places)
        self.exposed = self._exposed_costs()
        self._steps: dict[tuple[Places, int], tuple[float, Places] | None] = {}
        self._contexts: dict[Places, Context] = {}
        self._plays: dict[tuple[Places, tuple[int, ...]], tuple[float, Places]] = {}

    def _exposed_costs(self) -> list[float]:
        """Per field, the mover's cost of a piece there, its exposure included."""
        t = self.t
        sources = {f for seat, own in enumerate(self.places) if seat != self.mover
                   for f in own if f != HOME}
        miss = [1.0] * (t.n + 1)
        for source in sorted(sources):
            for f, p in enumerate(t.hit_probability(source)):
                miss[f] *= 1.0 - p
        return [c + EXPOSURE * (1.0 - m) * loss
                for c, m, loss in zip(t.cost, miss, t.loss, strict=True)]

    def play(self, dice: tuple[int, ...]) -> Played:
        """The greedy play of ``dice`` (values in any order) from this position."""
        left = tuple(sorted(dice))
        if all(self.step(self.places, v) is None for v in set(left)):
            return self._played(self.places, forfeited=True)
        return self._played(self._play(self.places, left)[1], forfeited=False)

    def stopped_at(self, places: Places) -> Played:
        """The end of a play stopped at ``places`` (a roll's first move: see
        :meth:`SonnentauRaceModel.estimated_values`)."""
        return self._played(places, forfeited=False)

    def _played(self, places: Places, *, forfeited: bool) -> Played:
        seats = [self.t.seat(own) for own in places]
        races = tuple(race for race, _ in seats)
        mine = places[self.mover]
        home = mine.count(HOME)
        exposure = _race([self.exposed[f] for f in mine if f != HOME], home) \
            - races[self.mover]
        return Played(places, races, exposure, forfeited, home >= PIECES_TO_WIN,
                      tuple(counts for _, counts in seats))

    def _play(self, places: Places, left: tuple[int, ...]) -> tuple[float, Places]:
        """The best score and end of the dice ``left``: every order of the first die
        when two dice remain, the best single move first with more."""
        if len(left) == 1:
            return self.step(places, left[0]) or (self.score(places), places)
        key = (places, left)
        done = self._plays.get(key)
        if done is None:
            done = (-WIN, places)
            first = self.best_first(places, left) if len(left) > 2 else None
            for i, v in enumerate(left):
                if v in left[:i] or first not in (None, i):
                    continue
                step = self.step(places, v)
                if step is None:
                    continue
                rest = left[:i] + left[i + 1:]
                if step[0] != WIN and rest:
                    step = self._play(step[1], rest)
                if step[0] > done[0] + TIE:
                    done = step
            if done[0] == -WIN:
                done = (self.score(places), places)
            self._plays[key] = done
        return done

    def best_first(self, places: Places, left: tuple[int, ...]) -> int:
        """The index of the die whose single best move scores most."""
        best, index = -WIN, 0
        for i, v in enumerate(left):
            step = self.step(places, v)
            if step is not None and step[0] > best + TIE:
                best, index = step[0], i
        return index

    def score(self, places: Places) -> float:
        """The mover's exposed race against the others' mean race (higher is better)."""
        cost, me = self.t.cost, self.mover
        total = sum(_race([cost[f] for f in own if f != HOME], own.count(HOME))
                    for seat, own in enumerate(places) if seat != me)
        mine = places[me]
        return total / (self.seats - 1) - _race([self.exposed[f] for f in mine if f != HOME],
                                                 mine.count(HOME))

    def step(self, places: Places, v: int) -> tuple[float, Places] | None:
        """The best single move of a die of ``v`` (its score and the places it leaves),
        or None when no piece can move ``v``."""
        key = (places, v)
        if key not in self._steps:
            self._steps[key] = self._best_step(places, v)
        return self._steps[key]

    def _context(self, places: Places) -> Context:
        """Of a position, kept for each die value: who occupies each field, the fields of
        the other seats as a bit mask, each seat's race, the others' races together, the
        mover's pieces home, and each of its pieces that can move with the exposed costs
        of the others (sorted, with their running sums)."""
        context = self._contexts.get(places)
        if context is None:
            t, me = self.t, self.mover
            occupant = {f: seat for seat, own in enumerate(places) for f in own
                        if 0 <= f < t.n}
            others = 0
            for f, seat in occupant.items():
                if seat != me:
                    others |= 1 << f
            races = [t.seat(own)[0] for own in places]
            mine = places[me]
            exposed = self.exposed
            costs = sorted(exposed[f] for f in mine if f != HOME)
            movers = [(origin, exposed[origin], bisect.bisect_left(costs, exposed[origin]))
                      for i, origin in enumerate(mine)
                      if origin != HOME and origin not in mine[:i]]
            context = self._contexts[places] = Context(
                occupant, others, races, sum(races) - races[me], mine.count(HOME), costs,
                list(itertools.accumulate(costs, initial=0.0)), movers)
        return context

    def _best_step(self, places: Places, v: int) -> tuple[float, Places] | None:
        context = self._context(places)
        occupant, others, _, total, home, costs, sums, movers = context
        base = total * (1.0 / (self.seats - 1))
        need = PIECES_TO_WIN - home
        goal, hops, exposed = self.t.goal, self.t.hops, self.exposed
        count = len(costs) - 1
        best: tuple[float, int, int, int] | None = None
        for origin, own, at in movers:
            # the race of the other pieces once one of exposed cost c joins them: their
            # best ``need`` count fully, the others by SPARE (as _race counts them)
            spread = sums[-1] - own
            kept = _sum_without(sums, at, own, min(need, count))
            kept_less = _sum_without(sums, at, own, min(need - 1, count))
            bar = WIN if need > count else costs[need - 1] if need - 1 < at else costs[need]
            for dest, passed in hops[origin][v]:
                if passed & others:
                    continue
                if dest != goal and dest not in occupant:
                    c = exposed[dest]
                    part = kept_less + c if c < bar else kept
                    score, target = base - part - SPARE * (spread + c - part), -1
                else:
                    score, target = self._score_otherwise(places, context, origin, at, dest)
                if best is None or score > best[0] + TIE:
                    best = (score, origin, dest, target)
                    if score == WIN:
                        break
        if best is None:
            return None
        score, origin, dest, target = best
        return score, self._move(places, occupant, origin, dest, target)

    def _score_otherwise(self, places: Places, context: Context, origin: int, at: int,
                         dest: int) -> tuple[float, int]:
        """:meth:`_best_step`'s score of a move into the goal or onto a piece, and where the
        hit piece goes (-1: none)."""
        t, me, exposed = self.t, self.mover, self.exposed
        occupant, _, races, total, home, costs, _, _ = context
        scale = 1.0 / (self.seats - 1)
        rest = costs[:at] + costs[at + 1:]
        if dest == t.goal:
            return (total * scale - _race(rest, home + 1) if home + 1 < PIECES_TO_WIN
                    else WIN), -1
        hit = occupant[dest]
        if hit == me:
            target = _first_free(t.own_order[dest], occupant, origin, t.n)
            if target == HOME:
                return (WIN if home + 1 >= PIECES_TO_WIN
                        else total * scale - _race([*rest, exposed[dest]], home + 1)), target
            return total * scale - _race([*rest, exposed[dest], exposed[target]], home), target
        target = _first_free(t.other_order[dest], occupant, origin, t.n)
        theirs = places[hit]
        hurt = _race([t.cost[target if f == dest else f] for f in theirs if f != HOME],
                     theirs.count(HOME))
        return ((total + hurt - races[hit]) * scale - _race([*rest, exposed[dest]], home),
                target)

    def _move(self, places: Places, occupant: dict[int, int], origin: int, dest: int,
              target: int) -> Places:
        """The places after moving ``origin`` to ``dest``, a hit piece put on ``target``."""
        me = self.mover
        seats = list(places)
        seats[me] = _replaced(places[me], origin, HOME if dest == self.t.goal else dest)
        hit = occupant.get(dest, -1) if dest != self.t.goal else -1
        if hit != -1:
            seats[hit] = _replaced(seats[hit], dest, target)
        return tuple(seats)


def _replaced(own: tuple[int, ...], old: int, new: int) -> tuple[int, ...]:
    """The sorted places ``own`` with one piece moved from ``old`` to ``new``."""
    pieces = list(own)
    pieces.remove(old)
    bisect.insort(pieces, new)
    return tuple(pieces)


def _sum_without(sums: list[float], at: int, cost: float, m: int) -> float:
    """The sum of the ``m`` smallest of sorted costs (``sums`` their running sums) once
    ``cost``, the one at ``at``, is taken out."""
    return sums[m] if m <= at else sums[m + 1] - cost


def _race(costs: list[float], home: int) -> float:
    """The dice a seat still needs: its best ``3 - home`` pieces' costs, the rest a little."""
    costs.sort()
    need = PIECES_TO_WIN - home
    return sum(costs[:need]) + SPARE * sum(costs[need:])


def _first_free(order: tuple[int, ...], occupant: dict[int, int], vacated: int, n: int) -> int:
    """The first target of ``order`` that is free once a piece has left ``vacated``."""
    for target in order:
        if target < 0 or target >= n or target == vacated or target not in occupant:
            return target
    return n


# -- the model ---------------------------------------------------------------------------------


def places_of(state: SonnentauState) -> Places:
    """Each seat's piece places, the start (and a piece waiting to be relocated) as ``n``."""
    n = state.board.n_fields
    return tuple(tuple(sorted(f if f >= 0 or f == HOME else n for f in own))
                 for own in state.pieces)


def pair_features(played: Played, mover: int, doubles: bool, seat: int,
                  other: int) -> tuple[float, ...]:
    """The features of "``seat`` finishes ahead of ``other``" just after ``mover`` has
    played its roll (see :data:`FEATURES`)."""
    races = played.races
    seats = len(races)
    lead = races[other] - races[seat]
    scale = 1.0 / math.sqrt(races[other] + races[seat] + 1.0)
    again = float(doubles) * ((seat == mover) - (other == mover))
    tempo = _turns_to_roll(other, mover, seats) - _turns_to_roll(seat, mover, seats)
    exposure = played.exposure * ((other == mover) - (seat == mover))
    home, started, final = (a - b for a, b in zip(played.counts[seat], played.counts[other],
                                                  strict=True))
    return lead, lead * scale, again, float(tempo), exposure, home, started, final


def _turns_to_roll(seat: int, mover: int, seats: int) -> int:
    """Turns until ``seat`` rolls next once ``mover`` has played (the mover: all seats)."""
    return (seat - mover - 1) % seats + 1


def _outcome_points(home: Sequence[int]) -> Values:
    return game_points(ranks_from_scores(home))


class SonnentauRaceModel:
    """The race model for one dice variant and seat count (see the module docstring)."""

    def __init__(self, variant: str, seats: int, weights: Sequence[float],
                 luck_scale: float = 1.0) -> None:
        if len(weights) != len(FEATURES):
            raise ValueError(f"expected {len(FEATURES)} coefficients, got {len(weights)}")
        if not 0.0 < luck_scale <= 1.0:
            raise ValueError(f"luck_scale must be in (0, 1], not {luck_scale}")
        self.luck_scale = luck_scale
        """The share of each roll's change of value that luck accounting counts (see
        :class:`arena.results.luck.ValueModel`)."""
        self.name = NAME
        self.variant = variant
        self.seats = seats
        self.weights = tuple(float(w) for w in weights)
        self._players: dict[tuple[int, Places, int], RollPlayer] = {}
        self._chance: dict[tuple[Any, ...], Values] = {}

    # -- the interface --------------------------------------------------------------------

    def values(self, state: State) -> Values:
        """Each seat's expected game points at any state of a game."""
        sonnentau = self._check(state)
        if sonnentau.is_terminal:
            return game_points(sonnentau.outcome().ranks)
        if sonnentau.is_chance_node():
            return self.expected_values(sonnentau)
        return self.decision_values(sonnentau)

    def expected_values(self, state: State) -> Values:
        """The exact ``Σ p · values(after)`` over the rolls of a chance node."""
        sonnentau = self._check(state)
        key = (id(sonnentau.board), places_of(sonnentau), sonnentau.seat,
               sonnentau.turns_played, sonnentau.turn_limit)
        cached = self._chance.get(key)
        if cached is None:
            if len(self._chance) > CONTEXTS_KEPT:
                self._chance.clear()
            cached = self._chance[key] = self._chance_values(sonnentau, self._roll_sums)
        return cached

    def estimated_values(self, state: State, rng: random.Random) -> Values:
        """An unbiased estimate of :meth:`expected_values` for luck accounting, about four
        times cheaper with three dice (two dice: the exact expectation).

        Every roll's first move (the die whose single move scores most) is played and
        valued, and the expectation of those values is exact; the rest of the play is
        sampled: the whole greedy play of :data:`SAMPLED_ROLLS` of the rolls that can be
        played, drawn by ``rng`` by their chances (with replacement), corrects it by the
        mean of what the other dice add (a control variate: what the first move misses
        varies about a fourteenth as much as the values). Forfeited rolls are known from the first
        moves, so that the chain of forfeited turns is solved with exact chances and the
        estimate stays linear in the sample. ``rng`` must be unknown to the bots while
        they play (luck accounting seeds it from the game's seed and the roll's move).
        """
        sonnentau = self._check(state)
        if len(sonnentau.faces) < 3 or sonnentau.is_terminal \
                or not sonnentau.is_chance_node():
            return self.values(sonnentau)
        return self._chance_values(
            sonnentau, functools.partial(self._sampled_roll_sums, rng=rng))

    def decision_values(self, state: SonnentauState) -> Values:
        """At a decision node: the value of the greedy play of the dice still in hand."""
        player = self.player(state, places_of(state), state.seat)
        played = player.play(state.dice_left())
        return self.played_values(played, state.seat, state.is_doubles())

    def played_values(self, played: Played, mover: int, doubles: bool) -> Values:
        """Each seat's value once ``mover`` has played its roll as ``played`` says."""
        if played.won:
            return _outcome_points([own.count(HOME) for own in played.places])
        seats = self.seats
        points = [0.0] * seats
        for seat in range(seats):
            for other in range(seat + 1, seats):
                x = pair_features(played, mover, doubles, seat, other)
                p = _logistic(sum(w * f for w, f in zip(self.weights, x, strict=True)))
                points[seat] += p
                points[other] += 1.0 - p
        return tuple(p / (seats - 1) for p in points)

    # -- chance nodes --------------------------------------------------------------------------

    def _chance_values(self, state: SonnentauState, roll_sums: RollSums) -> Values:
        """Solve the chain of forfeited turns over the unchanged position (see the module
        docstring): ``V_j = (a_j + n_j V_{j+1}) / (1 - d_j)`` for the seats to roll, with
        ``roll_sums`` giving each seat's ``a``, ``d`` and ``n``."""
        places = places_of(state)
        first = roll_sums(state, places, state.seat)
        if first[2] == 0.0:
            return _scaled(first[0], 1.0 / (1.0 - first[1]))
        steps = max(0, state.turn_limit - state.turns_played) + 1
        chain = [first] + [roll_sums(state, places, (state.seat + j) % self.seats)
                           for j in range(1, min(steps, self.seats))]
        cut = next((j for j, sums in enumerate(chain) if sums[2] == 0.0), None)
        if cut is None:
            home = [own.count(HOME) for own in places]
            value = _outcome_points(home)
            start = steps - 1
        else:
            value = _scaled(chain[cut][0], 1.0 / (1.0 - chain[cut][1]))
            start = cut - 1
        for j in range(start, -1, -1):
            forward, doubles, passes = chain[j % len(chain)]
            value = _scaled(tuple(a + passes * v for a, v in zip(forward, value, strict=True)),
                            1.0 / (1.0 - doubles))
        return value

    def _roll_sums(self, state: SonnentauState, places: Places,
                   mover: int) -> tuple[Values, float, float]:
        """Over the rolls of ``mover``: ``Σ p · value`` of the rolls that can be played,
        and the chances of a forfeited roll with and without doubles."""
        player = self.player(state, places, mover)
        total = [0.0] * self.seats
        doubles_lost = passes = 0.0
        outcomes: dict[tuple[int, ...], Values | bool] = {}
        for dice, sorted_dice, p in _rolls(state.faces):
            outcome = outcomes.get(sorted_dice)
            if outcome is None:  # rolls of the same values in another order play alike
                outcome = outcomes[sorted_dice] = self._roll_outcome(player, dice, mover)
            if outcome is True:
                doubles_lost += p
            elif outcome is False:
                passes += p
            else:
                for seat, value in enumerate(outcome):
                    total[seat] += p * value
        return tuple(total), doubles_lost, passes

    def _sampled_roll_sums(self, state: SonnentauState, places: Places, mover: int, *,
                           rng: random.Random) -> tuple[Values, float, float]:
        """:meth:`_roll_sums` with the playable rolls' sum estimated (see
        :meth:`estimated_values`); the forfeit chances are exact."""
        player = self.player(state, places, mover)
        total = [0.0] * self.seats
        doubles_lost = passes = 0.0
        valued: dict[tuple[Places, bool], Values] = {}
        playable: list[tuple[tuple[int, ...], float, Values]] = []
        for left, p in _distinct_rolls(state.faces):
            first = self._first_move_outcome(player, left, mover, valued)
            if first is True:
                doubles_lost += p
            elif first is False:
                passes += p
            else:
                playable.append((left, p, first))
        if len(playable) <= SAMPLED_ROLLS:  # as cheap to play them all
            drawn = Counter(range(len(playable)))
            share = [p for _, p, _ in playable]
        else:
            mass = sum(p for _, p, _ in playable)
            drawn = Counter(rng.choices(range(len(playable)), [p for _, p, _ in playable],
                                        k=SAMPLED_ROLLS))
            share = [mass / SAMPLED_ROLLS] * len(playable)
        for _, p, first in playable:
            for seat, value in enumerate(first):
                total[seat] += p * value
        for index, times in sorted(drawn.items()):
            left, _, first = playable[index]
            whole = self._roll_outcome(player, left, mover)
            assert not isinstance(whole, bool)  # its first move can be played
            weight = times * share[index]
            for seat, (value, control) in enumerate(zip(whole, first, strict=True)):
                total[seat] += weight * (value - control)
        return tuple(total), doubles_lost, passes

    def _first_move_outcome(self, player: RollPlayer, left: tuple[int, ...], mover: int,
                            valued: dict[tuple[Places, bool], Values]) -> Values | bool:
        """The seats' values after only the first move of the greedy play of the sorted
        dice ``left`` (:meth:`RollPlayer.best_first`'s; the values are kept in ``valued`` by
        where the move ends), or for a forfeited roll whether it was doubles."""
        doubles = len(set(left)) < len(left)
        places = player.places
        if all(player.step(places, v) is None for v in set(left)):
            return doubles
        step = player.step(places, left[player.best_first(places, left)])
        assert step is not None  # the best first die moves when any die does
        key = (step[1], doubles)
        values = valued.get(key)
        if values is None:
            values = valued[key] = self.played_values(player.stopped_at(step[1]), mover,
                                                      doubles)
        return values

    def _roll_outcome(self, player: RollPlayer, dice: tuple[int, ...],
                      mover: int) -> Values | bool:
        """The seats' values after the greedy play of ``dice``, or for a forfeited roll
        whether it was doubles."""
        played = player.play(dice)
        doubles = len(set(dice)) < len(dice)
        if played.forfeited:
            return doubles
        return self.played_values(played, mover, doubles)

    # -- helpers -------------------------------------------------------------------------------

    def player(self, state: SonnentauState, places: Places, mover: int) -> RollPlayer:
        """The roll player of a position and mover, kept for the next calls."""
        key = (id(state.board), places, mover)
        player = self._players.get(key)
        if player is None:
            if len(self._players) > CONTEXTS_KEPT:
                self._players.clear()
            player = RollPlayer(tables_for(state.board, self.variant), places, mover)
            self._players[key] = player
        return player

    def _check(self, state: State) -> SonnentauState:
        if not isinstance(state, SonnentauState):
            raise ValueError(f"{self.name} values Sonnentau states, not {type(state).__name__}")
        if state.variant != self.variant or state.n_seats != self.seats:
            raise ValueError(f"{self.name} was made for {self.seats} seats with "
                             f"{self.variant} dice, not {state.n_seats} with {state.variant}")
        return state


@functools.cache
def _distinct_rolls(faces: tuple[tuple[int, ...], ...]
                    ) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every roll of these dice as (the values sorted, probability), equal multisets
    merged, in the order of their first roll in ``_rolls``."""
    merged: dict[tuple[int, ...], float] = {}
    for _, sorted_values, p in _rolls(faces):
        merged[sorted_values] = merged.get(sorted_values, 0.0) + p
    return tuple(merged.items())


@functools.cache
def _rolls(faces: tuple[tuple[int, ...], ...]
           ) -> tuple[tuple[tuple[int, ...], tuple[int, ...], float], ...]:
    """Every roll of these dice as (values by slot, the values sorted, probability), in
    the order and with the probabilities of ``SonnentauState.chance_outcomes``."""
    p = 1.0 / math.prod(len(f) for f in faces)
    return tuple((values, tuple(sorted(values)), p) for values in itertools.product(*faces))


def _scaled(values: Sequence[float], factor: float) -> Values:
    return tuple(v * factor for v in values)


def _logistic(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


# -- loading -----------------------------------------------------------------------------------


def load_weights(path: Path = DATA_PATH) -> dict[str, tuple[list[float], float]]:
    """The shipped fits: ``"<dice>/<seats>"`` → (one coefficient per feature, the luck
    scale)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("features") != list(FEATURES):
        raise ValueError(f"{path}: fitted for features {data.get('features')}, "
                         f"the model has {list(FEATURES)}")
    return {key: ([float(w) for w in fit["weights"]], float(fit.get("luck_scale", 1.0)))
            for key, fit in data["models"].items()}


def model_for(options: Mapping[str, Any]) -> SonnentauRaceModel | None:
    """The race model for these game options; None for dice or seat counts it has no
    coefficients for. Any board is accepted (a custom one is loaded to check it)."""
    variant = str(options.get("dice", "standard"))
    seats = int(options.get("seats", 2))
    fit = load_weights().get(f"{variant}/{seats}")
    if fit is None:
        return None
    board_for_option(str(options.get("board", "")))
    return SonnentauRaceModel(variant, seats, *fit)
