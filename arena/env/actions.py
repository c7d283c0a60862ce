"""The fixed action index of each game: every action the engine can produce, numbered.

Learning code and search libraries want actions as integers ``0 .. n - 1`` whose
meaning never changes; arena's engines speak in action objects with canonical
strings. An :class:`ActionIndex` maps one to the other, both ways, and numbers
the chance outcomes (the dice) after the decisions, so that no id means two
things.

Seasons of the Sun (19 decisions, then 216 rolls)::

    0       keep               (re-roll nothing)
    1-3     reroll:0  reroll:1  reroll:2
    4-6     reroll:0,1  reroll:0,2  reroll:1,2
    7       reroll:0,1,2
    8-18    place:max-5 place:max-8 place:max-9 place:max-10 place:max-13 place:max-15
            place:min-9 place:min-10 place:min-11 place:min-13 place:min-17
    19-234  dice:1,1,1  dice:1,1,2  ...  dice:6,6,6   (the dice after the roll, all three)

Sonnentau (for a board, in blocks; the default board gives 564 decisions)::

    moves        slot 0-2 × piece 0-4 × (track, direction) for every track of the
                 board in file order (circles: cw, ccw; the goal straight: in, out)
                 -> move:d<slot>:p<piece>:<track>:<direction>
    entries      slot 0-2 × piece 0-4 × entry field (board order) × (no track, then
                 every (track, direction) through that entry)
                 -> enter:d<slot>:p<piece>:<entry>[:<track>:<direction>]
    relocations  every field but the goal (board order), then start, then goal
                 -> relocate:<field> | relocate:start | relocate:goal
    chance       every roll of the variant's dice, slot 0 slowest
                 -> dice:<v>,<v>[,<v>]

Inside a block the order is the nesting above, the leftmost factor slowest. The
slots run 0-2 whichever dice are used, so a policy's action ids mean the same
with standard dice (slots 0 and 1) and with Miwin's three dice. On the default
board: 180 moves (ids 0-179), 300 entries (180-479), 84 relocations (480-563),
then 36 standard rolls or 216 Miwin rolls from id 564.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from arena.games import find_game
from arena.games.base import Action, ArenaError, dice_action
from arena.games.seasons.rules import ALL_REROLLS, DIE_FACES, N_DICE, PLACES
from arena.games.sonnentau.board import Board, board_for_option
from arena.games.sonnentau.rules import DICE_VARIANTS, PIECES
from arena.games.sonnentau.rules import _enter as shared_enter
from arena.games.sonnentau.rules import _move as shared_move
from arena.games.sonnentau.rules import _relocate as shared_relocate

SONNENTAU_SLOTS = max(len(faces) for faces in DICE_VARIANTS.values())
"""Die slots numbered in Sonnentau's index, for every dice variant (Miwin's three)."""


class UnknownActionError(ArenaError, LookupError):
    """An action id or action object is not in the game's action index."""


@dataclass(frozen=True, eq=False)
class ActionIndex:
    """Decisions numbered ``0 .. n_decisions - 1``, chance outcomes right after them.

    ``decisions[i]`` is the engine's action object with id ``i`` (equal to the
    object the engine offers: ``state.apply(index.decisions[i])`` plays it);
    ``rolls[k]`` the dice values of chance id ``n_decisions + k`` and
    ``roll_actions[k]`` its dice action, one shared object per chance id.
    """

    game: str
    decisions: tuple[Action, ...]
    rolls: tuple[tuple[int, ...], ...]
    ids: Mapping[Hashable, int] = field(init=False, repr=False)
    roll_ids: Mapping[tuple[int, ...], int] = field(init=False, repr=False)
    roll_actions: tuple[Action, ...] = field(init=False, repr=False)
    by_identity: Mapping[int, int] = field(init=False, repr=False)
    """Ids by ``id()`` of the index's own objects: the engine offers most of them itself,
    and an ``id()`` is far quicker to look up than an action's hash."""
    by_name: Mapping[str, int] = field(init=False, repr=False)
    """Ids by canonical string, for equal actions that are not the index's own objects
    (parsed from text, say)."""
    made_by: tuple[Callable[..., ActionIndex], tuple[str, ...]] | None = field(
        init=False, default=None, repr=False)
    """The factory and arguments that made this index (``None``: built directly)."""

    def __post_init__(self) -> None:
        ids = {action: i for i, action in enumerate(self.decisions)}
        if len(ids) != len(self.decisions):
            raise ValueError("an action index must not number one action twice")
        base = len(self.decisions)
        object.__setattr__(self, "ids", ids)
        object.__setattr__(self, "by_identity", {id(a): i for i, a in enumerate(self.decisions)})
        object.__setattr__(self, "by_name", {str(a): i for i, a in enumerate(self.decisions)})
        object.__setattr__(self, "roll_ids", {v: base + k for k, v in enumerate(self.rolls)})
        object.__setattr__(self, "roll_actions", tuple(map(dice_action, self.rolls)))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as the call that makes it, so that an unpickled index is made in the
        loading process, its :attr:`by_identity` keyed by that process's objects."""
        if self.made_by is not None:
            return self.made_by
        return type(self), (self.game, self.decisions, self.rolls)

    @property
    def n_decisions(self) -> int:
        return len(self.decisions)

    @property
    def size(self) -> int:
        """Decisions and chance outcomes together: every id is below this."""
        return len(self.decisions) + len(self.rolls)

    def id_of(self, action: Any) -> int:
        """The id of a decision or of a dice action (``Dice``)."""
        found = self.ids.get(action)
        if found is not None:
            return found
        values = getattr(action, "values", None)
        if isinstance(values, tuple) and values in self.roll_ids:
            return self.roll_ids[values]
        raise UnknownActionError(f"{action} is not in the {self.game} action index")

    def ids_of(self, actions: Iterable[Any]) -> list[int]:
        """The ids of decisions, in the order given."""
        if not isinstance(actions, (tuple, list)):
            actions = tuple(actions)
        found = list(map(self.by_identity.get, map(id, actions), itertools.repeat(-1)))
        if found and min(found) < 0:
            found = [self._id_by_value(action) if number < 0 else number
                     for number, action in zip(found, actions, strict=True)]
        return found

    def _id_by_value(self, action: Any) -> int:
        number = self.by_name.get(str(action))
        if number is None:
            raise UnknownActionError(f"{action} is not in the {self.game} action index")
        return number

    def decision(self, action_id: int) -> Action:
        """The decision with id ``action_id``."""
        if not 0 <= action_id < len(self.decisions):
            raise UnknownActionError(
                f"{action_id} is not a decision id of {self.game} "
                f"(0 to {len(self.decisions) - 1})")
        return self.decisions[action_id]

    def roll(self, action_id: int) -> Action:
        """The dice action (``dice:…``) with chance id ``action_id`` (a shared object)."""
        k = action_id - len(self.decisions)
        if not 0 <= k < len(self.rolls):
            raise UnknownActionError(f"{action_id} is not a chance id of {self.game}")
        return self.roll_actions[k]

    def name(self, action_id: int) -> str:
        """The canonical string of the action with this id (decision or roll)."""
        if action_id < len(self.decisions):
            return str(self.decision(action_id))
        return str(self.roll(action_id))


@functools.lru_cache(maxsize=1)
def seasons_index() -> ActionIndex:
    """Seasons of the Sun: 8 re-roll choices, 11 placements, 216 rolls."""
    rolls = tuple(itertools.product(DIE_FACES, repeat=N_DICE))
    return _made_by(ActionIndex("seasons", (*ALL_REROLLS, *PLACES), rolls), seasons_index)


def _made_by(index: ActionIndex, factory: Callable[..., ActionIndex], *args: str) -> ActionIndex:
    object.__setattr__(index, "made_by", (factory, args))
    return index


def sonnentau_decisions(board: Board, slots: int = SONNENTAU_SLOTS) -> tuple[Action, ...]:
    """Every Sonnentau decision on ``board`` in the index's order (module docstring).

    They are the engine's own shared objects, the very ones its legal actions are
    made of, so that looking one up finds it by identity.
    """
    ways = [(track.id, direction) for track in board.tracks
            for direction in _directions(board, track.id)]
    moves = [shared_move(slot, piece, track, direction) for slot in range(slots)
             for piece in range(PIECES) for track, direction in ways]
    entries = [entry for slot in range(slots) for piece in range(PIECES)
               for entry in _entries(board, slot, piece)]
    targets = [shared_relocate(board.field_ids[f])
               for f in range(board.n_fields) if f != board.goal]
    return (*moves, *entries, *targets, shared_relocate("start"), shared_relocate("goal"))


def _directions(board: Board, track: str) -> list[str]:
    found = {step.direction for steps in board.steps for step in steps if step.track == track}
    order = ("cw", "ccw", "in", "out")
    return [d for d in order if d in found]


def _entries(board: Board, slot: int, piece: int) -> list[Action]:
    found: list[Action] = []
    for entry in board.entries:
        entry_id = board.field_ids[entry]
        found.append(shared_enter(slot, piece, entry_id, None, None))
        found += [shared_enter(slot, piece, entry_id, step.track, step.direction)
                  for step in board.steps[entry]]
    return found


@functools.lru_cache(maxsize=32)
def sonnentau_index(board: str = "", dice: str = "standard") -> ActionIndex:
    """Sonnentau on the board file ``board`` ("" for the default board) with ``dice``."""
    rolls = tuple(itertools.product(*DICE_VARIANTS[dice]))
    index = ActionIndex("sonnentau", sonnentau_decisions(board_for_option(board)), rolls)
    return _made_by(index, sonnentau_index, board, dice)


def action_index(game: str, options: Mapping[str, Any] | None = None) -> ActionIndex:
    """The action index of ``game`` played with ``options`` (resolved or not)."""
    resolved = find_game(game).info.resolve_options(options)
    if game == "seasons":
        return seasons_index()
    return sonnentau_index(str(resolved["board"]), str(resolved["dice"]))


def legal_ids(index: ActionIndex, legal: Sequence[Any]) -> list[int]:
    """The sorted ids of the legal actions ``legal``."""
    return sorted(index.ids_of(legal))


Value = TypeVar("Value")


class ByIdentity(Generic[Value]):
    """``build(legal)`` remembered by the identity of the engine's tuple ``legal``.

    Seasons offers one shared tuple per pattern of open sectors, so a value is
    built once per pattern. Sonnentau builds its tuples anew at every step, and
    remembering them would only keep garbage alive (which makes Python's garbage
    collector run more often). So once ``size`` tuples are remembered and fewer
    than half of the lookups since found one, the cache stops remembering.
    """

    def __init__(self, build: Callable[[Sequence[Any]], Value], size: int = 4096) -> None:
        self.build = build
        self.size = size
        self.entries: dict[int, tuple[Sequence[Any], Value]] = {}
        self.remembering = True
        self._hits = 0

    def __call__(self, legal: Sequence[Any]) -> Value:
        entry = self.entries.get(id(legal))
        if entry is not None and entry[0] is legal:  # the entry keeps its tuple, and so its id
            self._hits += 1
            return entry[1]
        value = self.build(legal)
        if self.remembering:
            if len(self.entries) >= self.size:
                self.remembering = self._hits >= self.size
                self.entries.clear()
                self._hits = 0
            if self.remembering:
                self.entries[id(legal)] = (legal, value)
        return value
