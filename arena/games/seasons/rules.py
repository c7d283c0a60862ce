"""Seasons of the Sun (Ingo Althöfer, 2007): the rules engine.

Normative reading: ``shared/rules/seasons-of-the-sun.md``. Two players, eleven
sectors, three dice. A turn is a roll (chance), a re-roll decision over die
slots, possibly a re-roll (chance), and a placement of the total.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

from arena.games.base import (
    CHANCE_SEAT,
    NORMAL,
    TERMINAL_SEAT,
    Dice,
    DiceRequest,
    IllegalActionError,
    InvalidActionError,
    Observation,
    Outcome,
    dice_action,
)

GAME_NAME = "seasons"
SECTORS: tuple[str, ...] = (
    "max-5", "max-8", "max-9", "max-10", "max-13", "max-15",
    "min-9", "min-10", "min-11", "min-13", "min-17",
)
SECTOR_VALUES: tuple[int, ...] = tuple(int(s.split("-")[1]) for s in SECTORS)
IS_MAX: tuple[bool, ...] = tuple(s.startswith("max") for s in SECTORS)
SECTOR_INDEX: dict[str, int] = {s: i for i, s in enumerate(SECTORS)}
N_SECTORS = len(SECTORS)
N_DICE = 3
DIE_FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
TOTAL_POINTS = sum(SECTOR_VALUES)  # 120
DEFAULT_PLACEMENT_LIMIT = 1000
PLACEMENT_LIMIT = "placement-limit"

EMPTY = 0
ROLL, REROLL, REROLL_ROLL, PLACE, OVER = range(5)
PHASE_NAMES = ("roll", "reroll", "reroll-roll", "place", "over")


def display_sector(sector: str) -> str:
    """``max-13`` → ``Max-13`` (the author's spelling); ``min-9`` stays."""
    return "Max" + sector[3:] if sector.startswith("max") else sector


@dataclass(frozen=True, slots=True)
class Reroll:
    """Re-roll the dice in ``slots`` (sorted, distinct, within 0..2); none is ``keep``."""

    slots: tuple[int, ...] = ()
    text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        text = "reroll:" + ",".join(map(str, self.slots)) if self.slots else "keep"
        object.__setattr__(self, "text", text)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Place:
    """Place the current total on ``sector`` (a canonical sector id)."""

    sector: str
    text: str = field(init=False, repr=False, compare=False)
    index: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.sector not in SECTOR_INDEX:
            raise InvalidActionError(f"unknown sector {self.sector!r}")
        object.__setattr__(self, "text", f"place:{self.sector}")
        object.__setattr__(self, "index", SECTOR_INDEX[self.sector])

    def __str__(self) -> str:
        return self.text


SeasonsAction = Union[Reroll, Place, Dice]  # noqa: UP007 - a runtime alias, usable in isinstance

ALL_REROLLS: tuple[Reroll, ...] = tuple(
    Reroll(slots) for k in range(N_DICE + 1) for slots in itertools.combinations(range(N_DICE), k)
)
PLACES: tuple[Place, ...] = tuple(Place(s) for s in SECTORS)
_REROLL_BY_SLOTS = {r.slots: r for r in ALL_REROLLS}
_KEPT_SLOTS = {r.slots: tuple(i for i in range(N_DICE) if i not in r.slots) for r in ALL_REROLLS}
_FACES = {n: (DIE_FACES,) * n for n in range(N_DICE + 1)}
_ALL_SLOTS = tuple(range(N_DICE))
_ROLLS = frozenset(itertools.product(DIE_FACES, repeat=N_DICE))
_new_tuple = tuple.__new__  # DiceRequest without its Python-level constructor
# An empty field is 0: translating a field row's bytes with this table gives its
# pattern of open sectors, the key of the legal placements.
_OPEN_PATTERN = bytes([1] + [0] * 255)
_PLACES_BY_PATTERN: dict[bytes, tuple[Place, ...]] = {}


def _check_roll(action: Dice) -> None:
    if action.values not in _ROLLS:
        raise IllegalActionError(f"{action} is not a roll of three dice from 1 to 6")


def _places_open(own: list[int]) -> tuple[Place, ...]:
    """The placements on the empty fields of ``own``, one shared tuple per pattern."""
    try:
        pattern = bytes(own).translate(_OPEN_PATTERN)
    except (TypeError, ValueError):  # a value outside 0..255: not a position of play
        return tuple([PLACES[i] for i in range(N_SECTORS) if own[i] == EMPTY])
    places = _PLACES_BY_PATTERN.get(pattern)
    if places is None:
        places = tuple([PLACES[i] for i in range(N_SECTORS) if own[i] == EMPTY])
        _PLACES_BY_PATTERN[pattern] = places  # at most 2**11 patterns
    return places


_ACTION_SYNTAX = "expected 'keep', 'reroll:<slots>', 'place:<sector>' or 'dice:<v>,<v>,<v>'"


def _malformed(text: str, why: str = _ACTION_SYNTAX) -> InvalidActionError:
    return InvalidActionError(f"malformed seasons action {text!r}: {why}")


def _parse_ints(text: str, body: str) -> tuple[int, ...]:
    parts = body.split(",")
    if not all(p.isdigit() and p.isascii() for p in parts):
        raise _malformed(text)
    return tuple(int(p) for p in parts)


def parse_action(text: str) -> SeasonsAction:
    """Parse a canonical action string; raise InvalidActionError naming it if malformed."""
    if not isinstance(text, str):
        raise InvalidActionError(f"malformed seasons action {text!r}: not a string")
    canonical = _CANONICAL.get(text)
    if canonical is not None:
        return canonical
    kind, sep, body = text.partition(":")
    if not sep or not body:
        raise _malformed(text)
    if kind == "place":
        if body not in SECTOR_INDEX:
            raise _malformed(text, "unknown sector; sectors are " + ", ".join(SECTORS))
        return PLACES[SECTOR_INDEX[body]]
    if kind == "reroll":
        slots = _parse_ints(text, body)
        key = tuple(sorted(slots))
        if len(set(slots)) != len(slots) or key not in _REROLL_BY_SLOTS:
            raise _malformed(text, "re-roll slots must be distinct values among 0, 1, 2")
        return _REROLL_BY_SLOTS[key]
    if kind == "dice":
        values = _parse_ints(text, body)
        if len(values) != N_DICE or not all(1 <= v <= 6 for v in values):
            raise _malformed(text, "dice need three values from 1 to 6")
        return Dice(values)
    raise _malformed(text)


_ACTIONS: tuple[SeasonsAction, ...] = (*ALL_REROLLS, *PLACES,
                                       *map(dice_action, sorted(_ROLLS)))
_CANONICAL: dict[str, SeasonsAction] = {str(action): action for action in _ACTIONS}
"""Every action in its canonical text (what records and bots send): parsed by one lookup."""


class SeasonsState:
    """A position of Seasons of the Sun. Seat 0 owns the outer circle, seat 1 the inner."""

    __slots__ = ("dice", "fields", "pending", "phase", "placement_limit", "placements",
                 "seat", "termination", "turns")

    def __init__(self, placement_limit: int = DEFAULT_PLACEMENT_LIMIT) -> None:
        self.fields: list[list[int]] = [[EMPTY] * N_SECTORS, [EMPTY] * N_SECTORS]
        self.seat = 0
        self.phase = ROLL
        self.dice: tuple[int, ...] = ()
        self.pending: tuple[int, ...] = ()
        self.turns = [1, 0]  # turns each seat has started; seat 0's first is under way
        self.placements = 0
        self.placement_limit = placement_limit
        self.termination: str | None = None

    # -- queries -----------------------------------------------------------

    @property
    def current_seat(self) -> int:
        if self.phase in (ROLL, REROLL_ROLL):
            return CHANCE_SEAT
        return TERMINAL_SEAT if self.phase == OVER else self.seat

    @property
    def is_terminal(self) -> bool:
        return self.phase == OVER

    @property
    def total(self) -> int:
        """The total of the current dice (0 before the roll)."""
        return sum(self.dice)

    def is_chance_node(self) -> bool:
        return self.phase in (ROLL, REROLL_ROLL)

    def is_full(self, seat: int) -> bool:
        return EMPTY not in self.fields[seat]

    def winner_of(self, sector: int) -> int | None:
        """The seat that currently holds a decided sector, or None if it is open."""
        a, b = self.fields[0][sector], self.fields[1][sector]
        if a == EMPTY or b == EMPTY:
            return None
        return 0 if (a > b) == IS_MAX[sector] else 1

    def scores(self) -> tuple[int, int]:
        """Points of the decided sectors (the interim score; the final score at the end)."""
        first = second = 0  # winner_of, inlined: it is asked for at every observation
        for a, b, value, is_max in zip(*self.fields, SECTOR_VALUES, IS_MAX, strict=True):
            if a != EMPTY and b != EMPTY:
                if (a > b) == is_max:
                    first += value
                else:
                    second += value
        return first, second

    def legal_actions(self) -> tuple[SeasonsAction, ...]:
        if self.phase == REROLL:
            return ALL_REROLLS
        if self.phase == PLACE:
            return _places_open(self.fields[self.seat])
        return ()

    def chance_request(self) -> DiceRequest:
        if self.phase == ROLL:
            slots, roll = _ALL_SLOTS, 0
        elif self.phase == REROLL_ROLL:
            slots, roll = self.pending, 1
        else:
            raise IllegalActionError("not a chance node")
        seat = self.seat
        return _new_tuple(DiceRequest, (seat, self.turns[seat] - 1, roll, slots,
                                        _FACES[len(slots)]))

    def chance_action(self, values: Sequence[int]) -> Dice:
        """The chance action that gives the requested slots ``values``."""
        if self.phase == ROLL:
            return dice_action(tuple(values))
        dice = list(self.dice)
        for slot, value in zip(self.pending, values, strict=True):
            dice[slot] = value
        return dice_action(tuple(dice))

    def apply_roll(self, values: Sequence[int]) -> Dice:
        """Apply the roll that gives the requested slots ``values``; return its action."""
        if self.phase not in (ROLL, REROLL_ROLL):
            raise IllegalActionError("no dice are to be rolled")
        if len(values) != (N_DICE if self.phase == ROLL else len(self.pending)):
            raise IllegalActionError(f"{len(values)} values for the dice to be rolled")
        action = self.chance_action(values)
        _check_roll(action)
        if self.phase == ROLL:
            self.dice, self.phase = action.values, REROLL
        else:
            self.dice, self.pending, self.phase = action.values, (), PLACE
        return action

    def chance_outcomes(self) -> list[tuple[Dice, float]]:
        """Every outcome of the pending roll with its probability."""
        slots = self.chance_request().slots
        p = 1.0 / 6 ** len(slots)
        return [(self.chance_action(vals), p)
                for vals in itertools.product(DIE_FACES, repeat=len(slots))]

    # -- moves -------------------------------------------------------------

    def apply(self, action: SeasonsAction) -> None:
        """Play ``action`` in place; raise IllegalActionError if the rules forbid it."""
        if isinstance(action, Place):
            self._apply_place(action)
        elif isinstance(action, Reroll):
            self._apply_reroll(action)
        elif isinstance(action, Dice):
            self._apply_dice(action)
        else:
            raise IllegalActionError(f"{action!r} is not a seasons action")

    def _apply_dice(self, action: Dice) -> None:
        _check_roll(action)
        if self.phase == ROLL:
            self.dice = action.values
            self.phase = REROLL
        elif self.phase == REROLL_ROLL:
            for i in _KEPT_SLOTS[self.pending]:
                if action.values[i] != self.dice[i]:
                    raise IllegalActionError(f"{action} changes a die that was not re-rolled")
            self.dice, self.pending, self.phase = action.values, (), PLACE
        else:
            raise IllegalActionError(f"{action} played when no dice are to be rolled")

    def _apply_reroll(self, action: Reroll) -> None:
        if self.phase != REROLL:
            raise IllegalActionError(f"{action} played outside the re-roll decision")
        if action.slots:
            self.pending, self.phase = action.slots, REROLL_ROLL
        else:
            self.phase = PLACE

    def _apply_place(self, action: Place) -> None:
        if self.phase != PLACE:
            raise IllegalActionError(f"{action} played outside the placement decision")
        i = action.index
        seat = self.seat
        own, theirs = self.fields[seat], self.fields[1 - seat]
        if own[i] != EMPTY:
            raise IllegalActionError(f"{action}: the field of seat {seat} there is full")
        total = sum(self.dice)
        other = theirs[i]
        won = False
        if other == total:
            theirs[i] = EMPTY
        else:
            own[i] = total
            won = other != EMPTY and (total > other) == IS_MAX[i]
        self.placements += 1
        self.dice = ()
        if EMPTY not in own and EMPTY not in theirs:
            self._finish(NORMAL)
        elif self.placements >= self.placement_limit:
            self._finish(PLACEMENT_LIMIT)
        else:
            self._start_turn(seat if won else 1 - seat)

    def _start_turn(self, seat: int) -> None:
        if EMPTY not in self.fields[seat]:
            seat = 1 - seat
        self.seat = seat
        self.turns[seat] += 1
        self.phase = ROLL

    def _finish(self, reason: str) -> None:
        self.phase, self.termination = OVER, reason

    # -- results -----------------------------------------------------------

    def outcome(self) -> Outcome:
        if self.phase != OVER:
            raise IllegalActionError("the game is not over")
        scores = self.scores()
        ranks = (0, 0) if scores[0] == scores[1] else (
            (0, 1) if scores[0] > scores[1] else (1, 0))
        return Outcome(ranks, (float(scores[0]), float(scores[1])), self.termination or NORMAL)

    def copy(self) -> SeasonsState:
        other = SeasonsState.__new__(SeasonsState)
        other.fields = [self.fields[0][:], self.fields[1][:]]
        other.seat, other.phase, other.dice = self.seat, self.phase, self.dice
        other.pending, other.turns = self.pending, self.turns[:]
        other.placements, other.placement_limit = self.placements, self.placement_limit
        other.termination = self.termination
        return other

    def observation(self, seat: int) -> Observation:
        actions = tuple(self.legal_actions()) if seat == self.current_seat else ()
        return Observation(GAME_NAME, seat, self.to_json(), actions)

    def to_json(self) -> dict[str, Any]:
        return {
            "phase": PHASE_NAMES[self.phase],
            "seat_to_move": self.seat,
            "dice": list(self.dice),
            "reroll_slots": list(self.pending),
            "fields": {s: [self.fields[0][i] or None, self.fields[1][i] or None]
                       for i, s in enumerate(SECTORS)},
            "turns": list(self.turns),
            "placements": self.placements,
            "placement_limit": self.placement_limit,
            "interim_score": list(self.scores()),
            "termination": self.termination,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeasonsState:
        state = cls(int(data["placement_limit"]))
        state.phase = PHASE_NAMES.index(data["phase"])
        state.seat = int(data["seat_to_move"])
        state.dice = tuple(int(v) for v in data["dice"])
        state.pending = tuple(int(v) for v in data["reroll_slots"])
        for i, sector in enumerate(SECTORS):
            for seat, value in enumerate(data["fields"][sector]):
                state.fields[seat][i] = int(value) if value else EMPTY
        state.turns = [int(t) for t in data["turns"]]
        state.placements = int(data["placements"])
        state.termination = data["termination"]
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SeasonsState) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"SeasonsState({self.to_json()!r})"
