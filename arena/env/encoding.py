"""Positions as flat vectors of small integers (uint8), from one seat's point of view.

Both games have no hidden information, so every seat sees the whole position;
the vector is arranged relative to the observer (its own pieces or fields
first), so one policy can play any seat. Each entry is a count, a value or a
0/1 flag whose largest value is ``*_high(...)``; divide by it for inputs in
[0, 1]. The PettingZoo and the OpenSpiel adapters share these encodings.

Seasons of the Sun (28 entries)::

    0-10    the observer's fields, sector order (max-5 … min-17): the total placed, 0 = empty
    11-21   the opponent's fields, same order
    22-24   the dice by slot, 1-6 (0 = not rolled)
    25, 26  phase: 1 at the re-roll decision, 1 at the placement decision
    27      1 if the observer is to decide

Sonnentau (for ``k`` seats and a board of ``F`` fields; ``P = F + 3`` places)::

    k × 5 × P   each seat's pieces, the observer first, then the next seats in turn
                order; per piece a one-hot place: field 0 … F-1 (board order),
                then start, home, hit
    3           the dice by slot, 1-9 (0 = no such die or not rolled)
    3           1 for each slot still to be played
    2           phase: 1 at a die decision, 1 at a relocation decision
    k           one-hot: who is to decide, relative to the observer (all 0 at the end)
    F           one-hot: the field of a pending hit
    1           turns left before the turn limit, at most 255
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.games.seasons.rules import N_SECTORS, PLACE, REROLL, SeasonsState
from arena.games.sonnentau.rules import (
    HIT,
    HOME,
    MOVE,
    OVER,
    PIECES,
    RELOCATE,
    START,
    SonnentauState,
)

Vector = npt.NDArray[np.uint8]
Encoder = Callable[[Any, int], Vector]
FloatEncoder = Callable[[Any, int], list[float]]

SEASONS_SIZE = 2 * N_SECTORS + 3 + 2 + 1
if (START, HOME, HIT) != (-1, -2, -3):
    raise ImportError("arena.env.encoding places START, HOME, HIT (-1, -2, -3) after the fields")
SONNENTAU_SLOTS = 3
# The last entries of a Seasons vector, by phase, "the observer is the seat to
# decide" and the number of dice shown: the dice's padding, then the flags.
_SEASONS_TAIL = tuple(tuple(tuple(
    bytes(3 - n_dice) + bytes((phase == REROLL, phase == PLACE, seat_to_decide and phase in (
        REROLL, PLACE))) for n_dice in range(4)) for seat_to_decide in (False, True))
    for phase in range(5))


U8 = np.dtype(np.uint8)
"""The vectors' dtype, made once: ``np.frombuffer`` is quicker given a dtype than a type."""


def seasons_vector(state: SeasonsState, seat: int) -> Vector:
    """The Seasons position as seen from ``seat`` (layout in the module docstring)."""
    fields, dice = state.fields, state.dice
    tail = _SEASONS_TAIL[state.phase][state.seat == seat][len(dice)]
    return np.frombuffer(bytes([*fields[seat], *fields[1 - seat], *dice]) + tail, U8)


def seasons_high() -> Vector:
    """The largest value of each Seasons entry."""
    return np.array([18] * 2 * N_SECTORS + [6] * 3 + [1] * 3, np.uint8)


def sonnentau_size(seats: int, n_fields: int) -> int:
    """Length of the Sonnentau vector for ``seats`` seats on a board of ``n_fields`` fields."""
    return seats * PIECES * (n_fields + 3) + 2 * SONNENTAU_SLOTS + 2 + seats + n_fields + 1


def sonnentau_high(seats: int, n_fields: int) -> Vector:
    """The largest value of each Sonnentau entry."""
    high = np.ones(sonnentau_size(seats, n_fields), np.uint8)
    dice = seats * PIECES * (n_fields + 3)
    high[dice:dice + SONNENTAU_SLOTS] = 9
    high[-1] = 255
    return high


class _SonnentauParts:
    """The pieces a Sonnentau vector is joined from, for ``seats`` seats and ``n_fields`` fields.

    ``place[p]`` is the one-hot block of a piece at place ``p`` (a field index, or
    START, HOME, HIT as -1, -2, -3, which index from the end); ``turn[phase][k]``
    the phase flags and the one-hot of the seat ``k`` places after the observer;
    ``hit[f]`` the one-hot of a pending hit on field ``f`` (``hit[-1]``: none);
    ``dice[dice, left]`` the dice part (made when first met: at most 9**3 * 8).
    Each piece is given by ``kind``: bytes for the uint8 vectors, lists of floats
    for the tensors, so a vector is one join and a tensor a few list extensions.
    """

    def __init__(self, seats: int, n_fields: int, kind: Callable[[bytes], Any]) -> None:
        places = n_fields + 3
        entry = [*range(n_fields), n_fields + 2, n_fields + 1, n_fields]
        self.kind = kind
        self.place = [kind(_one_hot(places, e)) for e in entry]
        self.turn = tuple(tuple(kind(bytes((phase == MOVE, phase == RELOCATE))
                                     + (bytes(seats) if phase == OVER else _one_hot(seats, k)))
                                for k in range(seats)) for phase in range(OVER + 1))
        self.hit = [kind(_one_hot(n_fields, f)) for f in range(n_fields)] + [
            kind(bytes(n_fields))]
        self.turns_left = [kind(bytes((min(value, 255),))) for value in range(256 + 1)]
        self.dice: dict[tuple[tuple[int, ...], tuple[int, ...]], Any] = {}
        self.order = [[(seat + k) % seats for k in range(seats)] for seat in range(seats)]
        """The seats in the order a seat sees them: itself first, then the next in turn."""

    def dice_part(self, dice: tuple[int, ...], left: tuple[int, ...]) -> Any:
        """The dice by slot, then the slots still to be played."""
        out = bytearray(2 * SONNENTAU_SLOTS)
        out[:len(dice)] = dice
        for slot in left:
            out[SONNENTAU_SLOTS + slot] = 1
        part = self.dice[dice, left] = self.kind(bytes(out))
        return part

    def places(self, state: SonnentauState, seat: int) -> list[int]:
        """The places of the pieces as ``seat`` sees them: its own first, then the next seats'."""
        pieces, places = state.pieces, []
        for other in self.order[seat]:
            places += pieces[other]
        return places

    def of(self, state: SonnentauState, seat: int) -> list[Any]:
        """The parts of ``state``'s vector as seen from ``seat``, in order."""
        parts: list[Any] = list(map(self.place.__getitem__, self.places(state, seat)))
        parts += self.tail(state, seat)
        return parts

    def tail(self, state: SonnentauState, seat: int) -> tuple[Any, Any, Any, Any]:
        """The parts after the pieces: the dice, the turn, the hit and the turns left."""
        dice, left, hit = state.dice, state.left, state.hit
        turns = state.turn_limit - sum(state.turns)
        return (self.dice.get((dice, left)) or self.dice_part(dice, left),
                self.turn[state.phase][(state.seat - seat) % state.n_seats],
                self.hit[-1 if hit is None else hit[2]],
                self.turns_left[turns if 0 <= turns <= 256 else (0 if turns < 0 else 256)])


class SonnentauEncoding:
    """Sonnentau's vectors for ``seats`` seats on a board of ``n_fields`` fields."""

    def __init__(self, seats: int, n_fields: int) -> None:
        self._bytes = _SonnentauParts(seats, n_fields, bytes)
        self._floats = _SonnentauParts(seats, n_fields, _floats)
        places = n_fields + 3
        entry = [*range(n_fields), n_fields + 2, n_fields + 1, n_fields]
        self._cells = [[start + at for at in entry]
                       for start in range(0, seats * PIECES * places, places)]
        """Per piece (the observer's first), the position of its one for each place
        (START, HOME, HIT index from the end)."""
        self._pieces_size = seats * PIECES * places

    def vector(self, state: SonnentauState, seat: int) -> Vector:
        """The position as seen from ``seat`` (layout in the module docstring)."""
        return np.frombuffer(b"".join(self._bytes.of(state, seat)), U8)

    def floats(self, state: SonnentauState, seat: int) -> list[float]:
        """:meth:`vector` as a new list of floats (OpenSpiel's tensors).

        The pieces' part is mostly zeros: zeros with a 1 set per piece cost less
        than joining the pieces' one-hot lists of floats.
        """
        tensor = [0.0] * self._pieces_size
        for at in map(list.__getitem__, self._cells, self._floats.places(state, seat)):
            tensor[at] = 1.0
        dice, turn, hit, turns_left = self._floats.tail(state, seat)
        tensor += dice
        tensor += turn
        tensor += hit
        tensor += turns_left
        return tensor


def _one_hot(size: int, at: int) -> bytes:
    return bytes(at) + b"\1" + bytes(size - at - 1)


_FLOATS = [float(value) for value in range(256)]


def _floats(data: bytes) -> list[float]:
    """``data``'s values as floats (shared float objects: a tensor costs no new floats)."""
    return list(map(_FLOATS.__getitem__, data))


@functools.cache
def sonnentau_encoding(seats: int, n_fields: int) -> SonnentauEncoding:
    """The (shared) Sonnentau encoding for ``seats`` seats and ``n_fields`` fields."""
    return SonnentauEncoding(seats, n_fields)


def sonnentau_vector(state: SonnentauState, seat: int) -> Vector:
    """The Sonnentau position as seen from ``seat`` (layout in the module docstring)."""
    return sonnentau_encoding(state.n_seats, state.board.n_fields).vector(state, seat)


def sonnentau_floats(state: SonnentauState, seat: int) -> list[float]:
    """:func:`sonnentau_vector` as a new list of floats (OpenSpiel's tensors)."""
    return sonnentau_encoding(state.n_seats, state.board.n_fields).floats(state, seat)


def seasons_floats(state: SeasonsState, seat: int) -> list[float]:
    """:func:`seasons_vector` as a new list of floats (OpenSpiel's tensors)."""
    fields, dice = state.fields, state.dice
    tail = _SEASONS_TAIL[state.phase][state.seat == seat][len(dice)]
    return _floats(bytes([*fields[seat], *fields[1 - seat], *dice]) + tail)


def encoder(game: str, state: Any) -> Encoder:
    """The vector function of ``game`` as played in ``state`` (seats, board)."""
    if game == "seasons":
        return seasons_vector
    return sonnentau_encoding(state.n_seats, state.board.n_fields).vector


def float_encoder(game: str, state: Any) -> FloatEncoder:
    """The function of ``game`` as played in ``state`` giving the vector as floats."""
    if game == "seasons":
        return seasons_floats
    return sonnentau_encoding(state.n_seats, state.board.n_fields).floats


def vector_high(game: str, state: Any) -> Vector:
    """The largest value of each entry for ``game`` as played in ``state`` (seats, board)."""
    if game == "seasons":
        return seasons_high()
    return sonnentau_high(state.n_seats, state.board.n_fields)
