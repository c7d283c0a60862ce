"""The protocol every game implements, and the values that cross its boundary.

A game is pure rules: no I/O, no ``random``. Dice are *chance nodes*: when
``state.current_seat`` is ``CHANCE_SEAT`` the referee asks
``state.chance_request()`` which dice to roll, draws them from the seeded dice
stream and applies them with ``state.apply_roll(values)``, which returns the
chance action (for example ``dice:3,5,6``); ``chance_action(values)`` gives the
same action without applying it. Players only ever see decision nodes.

States are mutable (``apply`` changes them in place, ``copy`` is for search);
everything that leaves a state — actions, observations, outcomes — is a
frozen value with a JSON form.
"""

from __future__ import annotations

import difflib
import functools
import math
import numbers
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol, runtime_checkable

CHANCE_SEAT = -1
"""The value of ``State.current_seat`` at a chance node (OpenSpiel's convention)."""

TERMINAL_SEAT = -2
"""The value of ``State.current_seat`` once the game is over."""

NORMAL = "normal"
"""Termination reason of a game that ended by its rules."""


class ArenaError(Exception):
    """Base of every error arena reports to the user as one line."""


class InvalidActionError(ArenaError, ValueError):
    """An action string is malformed: it does not name any action of the game."""


class IllegalActionError(ArenaError, ValueError):
    """A well-formed action that the rules do not allow in this state."""


class UnknownGameError(ArenaError, LookupError):
    """No game is registered under the requested name."""


class GameOptionError(ArenaError, ValueError):
    """A game option is unknown or has a value of the wrong type."""


class Action(Protocol):
    """An action: a frozen value whose ``str()`` is its canonical wire form."""

    def __str__(self) -> str: ...


class DiceRequest(NamedTuple):
    """What the referee must roll at a chance node.

    ``slots`` are the die slots to roll and ``faces[i]`` the faces of the die in
    ``slots[i]``. ``(seat, turn, roll)`` place the roll in the seat-bound dice
    stream: the ``turn``-th turn of ``seat`` and the ``roll``-th roll within it.
    """

    seat: int
    turn: int
    roll: int
    slots: tuple[int, ...]
    faces: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class Dice:
    """A chance outcome, in any game: the values of all dice of a roll, by slot."""

    values: tuple[int, ...]
    text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", "dice:" + ",".join(map(str, self.values)))

    def __str__(self) -> str:
        return self.text


@functools.lru_cache(maxsize=65_536)
def dice_action(values: tuple[int, ...]) -> Dice:
    """The :class:`Dice` action for ``values``, one shared object per outcome.

    A game draws dice tens of times per game; sharing the few hundred possible
    outcomes saves building the object and its text every time.
    """
    return Dice(values)


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ranks (0 = best, equal ranks are draws), scores, reason."""

    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    termination: str = NORMAL

    def to_json(self) -> dict[str, Any]:
        return {"ranks": list(self.ranks), "scores": list(self.scores),
                "termination": self.termination}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        return cls(tuple(data["ranks"]), tuple(data["scores"]), data["termination"])


class LazyState(Mapping[str, Any]):
    """A state's JSON form, built on first use.

    Most decisions of fast bots never look at the whole position; building the
    JSON only when it is read keeps the referee fast. ``source`` may be the live
    state: whoever changes it next must call :meth:`freeze` first if the view may
    still be read.
    """

    __slots__ = ("_data", "_source")

    def __init__(self, source: Any) -> None:
        self._source = source
        self._data: dict[str, Any] | None = None

    def freeze(self) -> None:
        """Fix the data as the source is now, and let go of the source."""
        self._json()

    def data(self) -> dict[str, Any]:
        """The JSON form itself (built if need be), not a copy: do not change it."""
        return self._json()

    @property
    def built(self) -> bool:
        """Whether the data has been built (read or frozen)."""
        return self._data is not None

    def _json(self) -> dict[str, Any]:
        if self._data is None:
            self._data = self._source.to_json()
            self._source = None
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._json()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._json())

    def __len__(self) -> int:
        return len(self._json())

    def __repr__(self) -> str:
        return f"LazyState({self._json()!r})"


class Observation(NamedTuple):
    """What a player sees when it must decide (an immutable record).

    ``state`` is the game's public state as JSON-ready data (both games have no
    hidden information); ``find_game(game).state_from_json(state)`` rebuilds a
    full state for search. ``legal_actions`` lists every allowed action;
    ``time_left`` is the seconds left for this decision, ``None`` if unlimited.
    """

    game: str
    seat: int
    state: Mapping[str, Any]
    legal_actions: tuple[Action, ...]
    time_left: float | None = None

    def to_json(self) -> dict[str, Any]:
        state = self.state
        return {
            "game": self.game,
            "seat": self.seat,
            "state": state.data() if type(state) is LazyState else dict(state),
            "legal_actions": [str(a) for a in self.legal_actions],
            "time_left": self.time_left,
        }


@dataclass(frozen=True)
class GameOption:
    """One option a game accepts, with its type, default and help text."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    normalize: Callable[[Any], Any] | None = None
    """Applied to a valid value (a file name made absolute, say)."""
    is_file: bool = False
    """The value names a file the game reads (a sandboxed bot must be able to see it)."""

    def check(self, value: Any) -> Any:
        """Return ``value`` if it is valid for this option, else raise GameOptionError."""
        if self.type is int:  # NumPy's integers too, as Python's
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise GameOptionError(f"option {self.name!r} must be an integer, got {value!r}")
            value = int(value)
        if not isinstance(value, self.type):
            raise GameOptionError(
                f"option {self.name!r} must be of type {self.type.__name__}, got {value!r}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(map(str, self.choices))
            raise GameOptionError(f"option {self.name!r} must be one of {allowed}, got {value!r}")
        if self.minimum is not None and isinstance(value, int) and value < self.minimum:
            raise GameOptionError(f"option {self.name!r} must be at least {self.minimum}")
        return self.normalize(value) if self.normalize is not None else value


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game."""

    name: str
    title: str
    min_seats: int
    max_seats: int
    options: tuple[GameOption, ...] = field(default=())

    def resolve_options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Complete ``given`` with defaults, rejecting unknown names and bad values (the
        first of :meth:`option_problems`)."""
        given = dict(given or {})
        problems = self.option_problems(given)
        if problems:
            raise GameOptionError(problems[0])
        return {o.name: o.check(given.get(o.name, o.default)) for o in self.options}

    def option_problems(self, given: Mapping[str, Any]) -> list[str]:
        """What is wrong with ``given``, all of it: its unknown names, then its bad values."""
        known = {o.name: o for o in self.options}
        problems = [unknown_name_message("option", name, known, self.name)
                    for name in given if name not in known]
        for name, option in known.items():
            if name in given:
                try:
                    option.check(given[name])
                except GameOptionError as exc:
                    problems.append(str(exc))
        return problems


def absolute_path(value: str) -> str:
    """A file option's value as an absolute path (empty stays empty: the default)."""
    return str(Path(value).resolve()) if value else value


def ranks_from_scores(scores: Sequence[float]) -> tuple[int, ...]:
    """Competition ranks, higher score first: ``(5, 9, 5)`` → ``(1, 0, 1)``."""
    return tuple(sum(other > mine for other in scores) for mine in scores)


def unknown_name_message(kind: str, name: str, known: Sequence[str] | Mapping[str, Any],
                         where: str | None = None) -> str:
    """``unknown option 'x' for seasons (did you mean 'y'?); known: a, b``."""
    names = sorted(known)
    text = (f"unknown {kind} {shortened(name)!r}" + (f" for {where}" if where else "")
            + nearest(name, names))
    return text + "; known: " + (", ".join(names) if names else "none")


def whole_number(value: Any, what: str) -> int:
    """``value`` as an int if it is an integer (Python's or NumPy's, not a bool), else
    ArenaError ``WHAT, not VALUE``."""
    if not isinstance(value, bool) and type(value).__name__ != "bool_":
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise ArenaError(f"{what}, not {value!r}")


def check_limits(time_limit: Any, time_bank: Any = 0.0) -> None:
    """ArenaError unless ``time_limit`` is None or a number of seconds above 0, and
    ``time_bank`` a number of seconds, 0 or more (``nan`` and ``inf`` are none)."""
    if time_limit is not None and not _seconds(time_limit, positive=True):
        raise ArenaError(f"time_limit: a number of seconds above 0, or None for no limit; "
                         f"not {time_limit!r}")
    if not _seconds(time_bank, positive=False):
        raise ArenaError(f"time_bank: a number of seconds, 0 or more; not {time_bank!r}")


def _seconds(value: Any, *, positive: bool) -> bool:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    seconds = float(value)
    return math.isfinite(seconds) and (seconds > 0 if positive else seconds >= 0)


NAME_SHOWN = 40
"""Characters of a name from outside (a bot's, a file's) that a message shows."""


def shortened(text: str, limit: int = NAME_SHOWN) -> str:
    """``text`` cut to ``limit`` characters, the cut marked by an ellipsis."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def nearest(name: str, known: Iterable[str]) -> str:
    """`` (did you mean 'greedy'?)`` for the known name nearest ``name``; empty if none is
    near."""
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


@runtime_checkable
class State(Protocol):
    """A game position. Mutable; ``copy()`` gives an independent one."""

    @property
    def current_seat(self) -> int:
        """The seat to decide, ``CHANCE_SEAT`` at a chance node, ``TERMINAL_SEAT`` at the end."""
        ...

    @property
    def is_terminal(self) -> bool: ...

    def is_chance_node(self) -> bool: ...

    def chance_request(self) -> DiceRequest: ...

    def chance_outcomes(self) -> Sequence[tuple[Action, float]]: ...

    def chance_action(self, values: Sequence[int]) -> Action: ...

    def apply_roll(self, values: Sequence[int]) -> Action:
        """``apply(chance_action(values))`` in one step; returns the chance action."""
        ...

    def legal_actions(self) -> Sequence[Action]: ...

    def apply(self, action: Any) -> None:
        """Play an action of this game in place; IllegalActionError if the rules forbid it."""
        ...

    def copy(self) -> State: ...

    def outcome(self) -> Outcome: ...

    def scores(self) -> Sequence[float]:
        """Each seat's standing now (points, pieces home): ranks a game cut short."""
        ...

    def observation(self, seat: int) -> Observation: ...

    def to_json(self) -> dict[str, Any]: ...


class Game(Protocol):
    """A registered game: its static facts and the entry points to its rules."""

    info: GameInfo

    def initial_state(self, options: Mapping[str, Any] | None = None) -> State: ...

    def parse_action(self, text: str) -> Action: ...

    def state_from_json(self, data: Mapping[str, Any]) -> State: ...

    def describe_game(self, options: Mapping[str, Any], actions: Sequence[str],
                      outcome: Outcome, names: Sequence[str]) -> list[str]:
        """The readable log of a game played with ``options``: every action string in
        order (the dice included), then a ``Result:`` line naming the seats by ``names``."""
        ...

    def render(self, state: Any) -> str:
        """The position as text for a person at the terminal."""
        ...

    def describe_action(self, state: Any, action: Any) -> str:
        """A person's label for one of the legal actions in ``state``."""
        ...
