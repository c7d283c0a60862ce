"""Sonnentau (Michael Winkelmann): the rules engine.

Normative reading: ``shared/rules/sonnentau.md``; the board is data
(:mod:`arena.games.sonnentau.board`). 2 to 4 players with five pieces each race
along crossing circles to the goal; the first to bring three pieces home wins.

A turn is a chance node (the roll), then one decision per die (a move) and one
per hit (where the hit piece goes), until the dice are played or none can be.

Action strings (the wire format, parsed back by :func:`parse_action`)::

    dice:2,6                 the roll (a chance action): die slot 0 shows 2, slot 1 shows 6
    move:d0:p3:M:cw          die slot 0 moves the mover's piece 3 along track M clockwise
    enter:d1:p0:OL:M:ccw     die slot 1 enters piece 0 at OL, then along M counterclockwise
    enter:d0:p0:OL           a die of 1 enters piece 0 onto OL (no track: it stops there)
    relocate:UR07            the hit piece goes to field UR07
    relocate:start           ... back to the start
    relocate:goal            ... into the goal (only after a hit on Z)

Decisions taken where the rules page is silent (each is this engine's reading):

1. Directions. On a circle ``ccw`` follows the board file's counterclockwise
   field order and ``cw`` runs against it. On the goal straight ``in`` runs
   towards the goal and ``out`` back towards Z; a piece on the goal straight may
   move ``out``, but not beyond Z (the straight does not wrap), and it leaves
   the straight only by standing on Z and then moving along the final circle.
2. A move may not go beyond the goal: it must end exactly on the goal field,
   and the goal field is never passed or occupied.
3. A move may not end on the field it started from (a full lap on a circle
   shorter than the die); a piece passing its own starting field passes an
   empty field.
4. Entering: the piece comes from the start, entry field E is step 1, the
   remaining steps follow one track through E in one direction. A die of 1
   stops on E, so that action names no track and no direction
   (``enter:d0:p0:OL``). Entering always uses the lowest-numbered piece on the
   start (all pieces on the start are alike); the action names it.
5. Equal dice: when two unplayed dice show the same value, only the lower
   slot is offered (the moves would be identical).
6. A relocation names only the target field, never a track: a piece on an
   intersection may later move along either of its tracks anyway, so the
   circle chosen under rule 3 of "Hitting" is implied by the field. Targets
   are the empty fields of the allowed track(s), never the goal field itself
   (only a hit on Z may send a piece ``relocate:goal``). Z counts as a field
   of the final circle, so a piece hit on the final circle may be put on Z.
7. During a relocation the hit piece is off the board (its place is ``hit``
   in the JSON state) until the mover puts it somewhere.
8. When a hit piece has no target but the start (no empty field and no goal),
   the engine puts it on the start itself: no decision is asked for.
9. No ``pass`` action: when no remaining die has a legal move the engine ends
   the turn itself (forfeiting those dice). It also rolls again by itself
   after doubles (a chance node for the same seat).
10. Turns and the dice stream: a turn is one seat's possession of the dice,
    from its first roll until the next seat is due. A doubles re-roll is the
    next *roll* of the same turn (``DiceRequest.roll`` = 0, 1, 2, ...), and
    ``DiceRequest.turn`` counts the turns of that seat from 0. The turn limit
    counts the turns of all seats together; the game stops with ``turn-limit``
    when a turn ends and that many turns have been played.
11. A piece relocated into the goal is home for its owner; if that gives its
    owner three pieces home, its owner wins at once, whoever moved.
12. Miwin dice: slot 0 is die III, slot 1 die IV, slot 2 die V.
13. Forced play does not ask for the most dice to be used: any remaining die
    with a legal move may be played, even if that leaves the other dice
    without one (they are then forfeited).
14. A die of 1 always lets a piece enter (it lands on the entry and hits
    whatever stands there, own or other colour).
15. The JSON state names its board by the game option (``board``: "" for the
    default board, else the path as given); ``from_json`` loads that file.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
    ranks_from_scores,
)
from arena.games.sonnentau.board import DIRECTIONS, Board, Step, board_for_option

GAME_NAME = "sonnentau"
PIECES = 5
PIECES_TO_WIN = 3
DEFAULT_TURN_LIMIT = 1000
MAX_ROLLS_PER_TURN = 50
"""Doubles roll again, but not for ever: the 50th roll of a turn ends it whatever it shows
(a termination guard, as the turn limit; reached by chance about once in 10²⁹ turns with
Miwin's dice, and never by real play), so that every game is finite, even one whose chance
outcomes a program picks (always the same double, say)."""
TURN_LIMIT = "turn-limit"

STANDARD_DIE: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
MIWIN_III: tuple[int, ...] = (1, 2, 5, 6, 7, 9)
MIWIN_IV: tuple[int, ...] = (1, 3, 4, 5, 8, 9)
MIWIN_V: tuple[int, ...] = (2, 3, 4, 6, 7, 8)
DICE_VARIANTS: dict[str, tuple[tuple[int, ...], ...]] = {
    "standard": (STANDARD_DIE, STANDARD_DIE),
    "miwin": (MIWIN_III, MIWIN_IV, MIWIN_V),
}

START, HOME, HIT = -1, -2, -3
"""Piece places other than a field index."""
EMPTY = -1
"""An empty field in the occupancy table (else ``seat * PIECES + piece``)."""
ROLL, MOVE, RELOCATE, OVER = range(4)
PHASE_NAMES = ("roll", "move", "relocate", "over")
PLACE_NAMES = {START: "start", HOME: "home", HIT: "hit"}


# -- actions -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Move:
    """Die ``slot`` moves the mover's piece ``piece`` along ``track`` in ``direction``."""

    slot: int
    piece: int
    track: str
    direction: str

    def __str__(self) -> str:
        return f"move:d{self.slot}:p{self.piece}:{self.track}:{self.direction}"


@dataclass(frozen=True, slots=True)
class Enter:
    """Die ``slot`` brings ``piece`` from the start in at ``entry``, then along a track.

    A die of 1 stops on the entry field: ``track`` and ``direction`` are None.
    """

    slot: int
    piece: int
    entry: str
    track: str | None = None
    direction: str | None = None

    def __str__(self) -> str:
        text = f"enter:d{self.slot}:p{self.piece}:{self.entry}"
        return text if self.track is None else f"{text}:{self.track}:{self.direction}"


@dataclass(frozen=True, slots=True)
class Relocate:
    """Put the piece just hit on ``target``: a field id, ``start`` or ``goal``."""

    target: str

    def __str__(self) -> str:
        return f"relocate:{self.target}"


SonnentauAction = Union[Move, Enter, Relocate, Dice]  # noqa: UP007 - runtime alias

# Legal actions are built again and again: one shared object per value.
_move = functools.lru_cache(maxsize=100_000)(Move)
_enter = functools.lru_cache(maxsize=100_000)(Enter)
_relocate = functools.lru_cache(maxsize=100_000)(Relocate)

def _walks(step: Step, n: int, origin: int, others: int) -> bool:
    """Whether ``n`` steps along ``step`` end elsewhere than ``origin`` and pass none of
    the fields in the bit mask ``others``."""
    path = step.path
    return n <= len(path) and path[n - 1] != origin and not step.passed[n - 1] & others


TO_START = _relocate("start")
TO_GOAL = _relocate("goal")
_ID = r"[A-Za-z0-9_][A-Za-z0-9_.\-]*"
_DIR = "|".join(DIRECTIONS)
_MOVE_RE = re.compile(rf"move:d(\d):p([0-4]):({_ID}):({_DIR})\Z")
_ENTER_RE = re.compile(rf"enter:d(\d):p([0-4]):({_ID})(?::({_ID}):({_DIR}))?\Z")
_RELOCATE_RE = re.compile(rf"relocate:({_ID})\Z")
_DICE_RE = re.compile(r"dice:([1-9](?:,[1-9]){1,2})\Z")
_SYNTAX = ("expected 'dice:<v>,<v>[,<v>]', 'move:d<slot>:p<piece>:<track>:<direction>', "
           "'enter:d<slot>:p<piece>:<entry>[:<track>:<direction>]' or 'relocate:<target>' "
           f"(directions: {', '.join(DIRECTIONS)}; pieces 0-4)")


def parse_action(text: str) -> SonnentauAction:
    """Parse a canonical action string; raise InvalidActionError naming it if malformed."""
    if not isinstance(text, str):
        raise InvalidActionError(f"malformed sonnentau action {text!r}: not a string")
    if m := _MOVE_RE.match(text):
        return Move(int(m[1]), int(m[2]), m[3], m[4])
    if m := _ENTER_RE.match(text):
        return Enter(int(m[1]), int(m[2]), m[3], m[4], m[5])
    if m := _RELOCATE_RE.match(text):
        return Relocate(m[1])
    if m := _DICE_RE.match(text):
        return Dice(tuple(int(v) for v in m[1].split(",")))
    raise InvalidActionError(f"malformed sonnentau action {text!r}: {_SYNTAX}")


# -- the state -------------------------------------------------------------------


class SonnentauState:
    """A Sonnentau position: every piece's place, the dice, whose turn, a pending hit.

    ``pieces[seat][piece]`` is a field index, or START, HOME or HIT.
    """

    __slots__ = ("_legal", "board", "board_option", "dice", "faces", "hit", "home", "left",
                 "n_seats", "occupant", "phase", "pieces", "roll", "seat", "termination",
                 "turn_limit", "turns", "variant")

    def __init__(self, board: Board, *, seats: int = 2, dice: str = "standard",
                 turn_limit: int = DEFAULT_TURN_LIMIT, board_option: str = "") -> None:
        if dice not in DICE_VARIANTS:
            raise ValueError(f"unknown dice variant {dice!r}; known: {', '.join(DICE_VARIANTS)}")
        self.board = board
        self.board_option = board_option
        self.variant = dice
        self.faces = DICE_VARIANTS[dice]
        self.n_seats = seats
        self.turn_limit = turn_limit
        self.pieces: list[list[int]] = [[START] * PIECES for _ in range(seats)]
        self.occupant: list[int] = [EMPTY] * board.n_fields
        self.home: list[int] = [0] * seats
        self.phase = ROLL
        self.seat = 0
        self.dice: tuple[int, ...] = ()
        self.left: tuple[int, ...] = ()
        self.roll = 0
        self.turns: list[int] = [1] + [0] * (seats - 1)
        self.hit: tuple[int, int, int] | None = None
        self.termination: str | None = None
        self._legal: tuple[SonnentauAction, ...] | None = None

    # -- queries ---------------------------------------------------------------

    @property
    def current_seat(self) -> int:
        if self.phase == ROLL:
            return CHANCE_SEAT
        return TERMINAL_SEAT if self.phase == OVER else self.seat

    @property
    def is_terminal(self) -> bool:
        return self.phase == OVER

    @property
    def turns_played(self) -> int:
        """Turns started so far, all seats together (the current one included)."""
        return sum(self.turns)

    def is_chance_node(self) -> bool:
        return self.phase == ROLL

    def is_doubles(self) -> bool:
        """Whether the current roll shows two equal values (it earns another roll)."""
        return len(set(self.dice)) < len(self.dice)

    def dice_left(self) -> tuple[int, ...]:
        """The values of the dice still to be played, by slot."""
        return tuple(self.dice[slot] for slot in self.left)

    def piece_at(self, field: int) -> tuple[int, int] | None:
        """(seat, piece) on ``field``, or None if it is empty."""
        code = self.occupant[field]
        return None if code == EMPTY else divmod(code, PIECES)

    def place_name(self, place: int) -> str:
        """A piece place as text: a field id, ``start``, ``home`` or ``hit``."""
        return PLACE_NAMES[place] if place < 0 else self.board.field_ids[place]

    def scores(self) -> tuple[int, ...]:
        """Pieces home per seat."""
        return tuple(self.home)

    def destination(self, action: Move | Enter) -> int:
        """The field where a die move ends (the goal field for a piece going home)."""
        n = self.dice[action.slot]
        if isinstance(action, Enter):
            entry = self.board.index[action.entry]
            if action.track is None:
                return entry
            return self.board.step_by_key[(entry, action.track, action.direction or "")].path[n - 2]
        origin = self.pieces[self.seat][action.piece]
        return self.board.step_by_key[(origin, action.track, action.direction)].path[n - 1]

    # -- chance ----------------------------------------------------------------

    def chance_request(self) -> DiceRequest:
        if self.phase != ROLL:
            raise IllegalActionError("not a chance node: no dice are to be rolled")
        return DiceRequest(self.seat, self.turns[self.seat] - 1, self.roll,
                           tuple(range(len(self.faces))), self.faces)

    def chance_action(self, values: Sequence[int]) -> Dice:
        return dice_action(tuple(int(v) for v in values))

    def apply_roll(self, values: Sequence[int]) -> Dice:
        """Apply the roll ``values``; return its chance action."""
        action = self.chance_action(values)
        self._apply_dice(action)
        return action

    def chance_outcomes(self) -> list[tuple[Dice, float]]:
        """Every roll of the variant's dice with its probability."""
        p = 1.0 / math.prod(len(f) for f in self.faces)
        return [(Dice(values), p) for values in itertools.product(*self.faces)]

    # -- legal actions -----------------------------------------------------------

    def legal_actions(self) -> tuple[SonnentauAction, ...]:
        if self._legal is None:
            if self.phase == MOVE:
                self._legal = tuple(self._die_actions())
            elif self.phase == RELOCATE:
                self._legal = tuple(self._relocations())
            else:
                self._legal = ()
        return self._legal

    def _die_actions(self) -> list[SonnentauAction]:
        actions: list[SonnentauAction] = []
        seen: set[int] = set()
        for slot in self.left:
            value = self.dice[slot]
            if value not in seen:
                seen.add(value)
                actions.extend(self._moves_for_die(slot, value))
        return actions

    def _moves_for_die(self, slot: int, n: int) -> list[SonnentauAction]:
        actions: list[SonnentauAction] = []
        seat = self.seat
        others = self._others_mask(seat)
        for piece, origin in enumerate(self.pieces[seat]):
            if origin >= 0:
                for step in self.board.steps[origin]:
                    if _walks(step, n, origin, others):
                        actions.append(_move(slot, piece, step.track, step.direction))
        first = self._first_on_start(seat)
        if first is not None:
            actions.extend(self._entries(slot, first, n, others))
        return actions

    def can_walk(self, step: Step, n: int, seat: int, origin: int) -> bool:
        """Whether ``n`` steps along ``step`` are free of other colours and end elsewhere."""
        return _walks(step, n, origin, self._others_mask(seat))

    def _others_mask(self, seat: int) -> int:
        """The fields other seats' pieces stand on, as a bit mask."""
        mask = 0
        for other, pieces in enumerate(self.pieces):
            if other != seat:
                for place in pieces:
                    if place >= 0:
                        mask |= 1 << place
        return mask

    def _first_on_start(self, seat: int) -> int | None:
        pieces = self.pieces[seat]
        return pieces.index(START) if START in pieces else None

    def _entries(self, slot: int, piece: int, n: int, others: int) -> list[SonnentauAction]:
        board = self.board
        actions: list[SonnentauAction] = []
        for entry in board.entries:
            entry_id = board.field_ids[entry]
            if n == 1:
                actions.append(_enter(slot, piece, entry_id, None, None))
                continue
            if others >> entry & 1:
                continue
            for step in board.steps[entry]:  # the entry field is step 1
                if _walks(step, n - 1, START, others):
                    actions.append(_enter(slot, piece, entry_id, step.track, step.direction))
        return actions

    def _relocations(self) -> list[Relocate]:
        assert self.hit is not None
        board = self.board
        rule = board.relocation[self.hit[2]]
        actions = [_relocate(board.field_ids[f]) for f in rule.fields
                   if self.occupant[f] == EMPTY]
        if rule.to_start:
            actions.append(TO_START)
        if rule.to_goal:
            actions.append(TO_GOAL)
        return actions

    # -- applying actions ----------------------------------------------------------

    def apply(self, action: SonnentauAction) -> None:
        """Play ``action`` in place; raise IllegalActionError if the rules forbid it."""
        if self.phase == OVER:
            raise IllegalActionError(f"{action}: the game is over")
        if isinstance(action, Dice):
            self._apply_dice(action)
            return
        if action not in self.legal_actions():
            raise IllegalActionError(f"{action} is not a legal action here "
                                     f"({PHASE_NAMES[self.phase]} phase, seat {self.seat})")
        self._legal = None
        if isinstance(action, Relocate):
            self._apply_relocate(action)
        else:
            self._apply_die(action)

    def _apply_dice(self, action: Dice) -> None:
        if self.phase != ROLL:
            raise IllegalActionError(f"{action} played when no dice are to be rolled")
        values = action.values
        if len(values) != len(self.faces) or any(
                v not in faces for v, faces in zip(values, self.faces, strict=True)):
            raise IllegalActionError(f"{action} is not a roll of the {self.variant} dice")
        self._legal = None
        self.dice, self.left, self.phase = values, tuple(range(len(values))), MOVE
        self._continue_turn()

    def _apply_die(self, action: Move | Enter) -> None:
        target = self.destination(action)
        self.left = tuple(s for s in self.left if s != action.slot)
        self._arrive(self.seat, action.piece, target)

    def _arrive(self, seat: int, piece: int, target: int) -> None:
        """Move a piece of ``seat`` onto ``target``, hitting whatever stands there."""
        origin = self.pieces[seat][piece]
        if origin >= 0:
            self.occupant[origin] = EMPTY
        if target == self.board.goal:
            self._go_home(seat, piece)
        else:
            hit = self.occupant[target]
            self._put(seat, piece, target)
            if hit != EMPTY:
                self._start_relocation(*divmod(hit, PIECES), target)
                return
        self._continue_turn()

    def _put(self, seat: int, piece: int, field: int) -> None:
        self.pieces[seat][piece] = field
        self.occupant[field] = seat * PIECES + piece

    def _go_home(self, seat: int, piece: int) -> None:
        self.pieces[seat][piece] = HOME
        self.home[seat] += 1
        if self.home[seat] >= PIECES_TO_WIN:
            self._finish(NORMAL)

    def _start_relocation(self, seat: int, piece: int, field: int) -> None:
        self.pieces[seat][piece] = HIT
        self.hit = (seat, piece, field)
        self.phase = RELOCATE
        self._legal = None
        if all(target == TO_START for target in self.legal_actions()):
            self._apply_relocate(TO_START)  # decision 8: nothing but the start remains

    def _apply_relocate(self, action: Relocate) -> None:
        assert self.hit is not None
        seat, piece, _field = self.hit
        self.hit = None
        self.phase = MOVE
        self._legal = None
        if action.target == "start":
            self.pieces[seat][piece] = START
        elif action.target == "goal":
            self._go_home(seat, piece)
        else:
            self._put(seat, piece, self.board.index[action.target])
        self._continue_turn()

    def _continue_turn(self) -> None:
        """After a die or a relocation: ask for the next die, or end the turn."""
        if self.phase == OVER:
            return
        self.phase = MOVE
        self._legal = None
        if not self.left or not self.legal_actions():
            self._end_turn()

    def _end_turn(self) -> None:
        self._legal = None
        doubles = self.is_doubles()
        self.dice, self.left, self.phase = (), (), ROLL
        if doubles and self.roll + 1 < MAX_ROLLS_PER_TURN:
            self.roll += 1
        elif self.turns_played >= self.turn_limit:
            self._finish(TURN_LIMIT)
        else:
            self.seat = (self.seat + 1) % self.n_seats
            self.turns[self.seat] += 1
            self.roll = 0

    def _finish(self, reason: str) -> None:
        self.phase, self.termination, self._legal = OVER, reason, None
        self.hit = None

    # -- results -------------------------------------------------------------

    def outcome(self) -> Outcome:
        if self.phase != OVER:
            raise IllegalActionError("the game is not over")
        scores = self.scores()
        return Outcome(ranks_from_scores(scores), tuple(float(s) for s in scores),
                       self.termination or NORMAL)

    def winner(self) -> int | None:
        """The seat with three pieces home, if any."""
        return next((s for s, h in enumerate(self.home) if h >= PIECES_TO_WIN), None)

    def copy(self) -> SonnentauState:
        other = SonnentauState.__new__(SonnentauState)
        other.board, other.board_option = self.board, self.board_option
        other.variant, other.faces = self.variant, self.faces
        other.n_seats, other.turn_limit = self.n_seats, self.turn_limit
        other.pieces = [p[:] for p in self.pieces]
        other.occupant = self.occupant[:]
        other.home = self.home[:]
        other.phase, other.seat = self.phase, self.seat
        other.dice, other.left = self.dice, self.left
        other.roll, other.turns, other.hit = self.roll, self.turns[:], self.hit
        other.termination, other._legal = self.termination, self._legal
        return other

    def observation(self, seat: int) -> Observation:
        actions = self.legal_actions() if seat == self.current_seat else ()
        return Observation(GAME_NAME, seat, self.to_json(), actions)

    # -- JSON ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        hit = None
        if self.hit is not None:
            seat, piece, field = self.hit
            hit = {"seat": seat, "piece": piece, "field": self.board.field_ids[field]}
        return {
            "board": self.board_option,
            "dice_variant": self.variant,
            "seats": self.n_seats,
            "turn_limit": self.turn_limit,
            "phase": PHASE_NAMES[self.phase],
            "seat_to_move": self.seat,
            "turns": list(self.turns),
            "roll": self.roll,
            "dice": list(self.dice),
            "dice_left": list(self.left),
            "pieces": [[self.place_name(p) for p in pieces] for pieces in self.pieces],
            "home": list(self.home),
            "hit": hit,
            "termination": self.termination,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], board: Board | None = None) -> SonnentauState:
        """Rebuild a state from :meth:`to_json` (loading the board it names unless given)."""
        option = str(data.get("board", ""))
        board = board or board_for_option(option)
        state = cls(board, seats=int(data["seats"]), dice=str(data["dice_variant"]),
                    turn_limit=int(data["turn_limit"]), board_option=option)
        state.phase = PHASE_NAMES.index(data["phase"])
        state.seat = int(data["seat_to_move"])
        state.turns = [int(t) for t in data["turns"]]
        state.roll = int(data["roll"])
        state.dice = tuple(int(v) for v in data["dice"])
        state.left = tuple(int(v) for v in data["dice_left"])
        for seat, places in enumerate(data["pieces"]):
            for piece, place in enumerate(places):
                state.set_place(seat, piece, place)
        hit = data.get("hit")
        if hit:
            state.hit = (int(hit["seat"]), int(hit["piece"]), board.index[hit["field"]])
        state.termination = data.get("termination")
        return state

    def set_place(self, seat: int, piece: int, place: str) -> None:
        """Put a piece on a field id, ``start`` or ``home`` (for setting up positions).

        Whatever stood on the field is not moved: callers build consistent positions.
        """
        old = self.pieces[seat][piece]
        if old >= 0 and self.occupant[old] == seat * PIECES + piece:
            self.occupant[old] = EMPTY
        if old == HOME:
            self.home[seat] -= 1
        self._legal = None
        named = {name: code for code, name in PLACE_NAMES.items()}
        if place in named:
            self.pieces[seat][piece] = named[place]
            self.home[seat] += place == "home"
        else:
            self._put(seat, piece, self.board.index[place])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SonnentauState) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"SonnentauState({self.to_json()!r})"


def new_state(options: Mapping[str, Any]) -> SonnentauState:
    """A fresh game from resolved game options (``board``, ``dice``, ``seats``, ``turn_limit``)."""
    option = str(options.get("board", ""))
    return SonnentauState(board_for_option(option), seats=int(options.get("seats", 2)),
                          dice=str(options.get("dice", "standard")),
                          turn_limit=int(options.get("turn_limit", DEFAULT_TURN_LIMIT)),
                          board_option=option)
