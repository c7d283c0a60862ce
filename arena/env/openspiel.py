"""arena's games as OpenSpiel Python games: ``arena_seasons`` and ``arena_sonnentau``.

    >>> import pyspiel                                    # doctest: +SKIP
    >>> from arena.env.openspiel import register          # doctest: +SKIP
    >>> register()                                        # doctest: +SKIP
    >>> params = {"players": 3, "dice": "miwin"}            # doctest: +SKIP
    >>> game = pyspiel.load_game("arena_sonnentau", params)  # doctest: +SKIP

Both are sequential, perfect-information games with explicit chance nodes: a
chance node lists every roll with its exact probability (the engine's
``chance_outcomes``; a Seasons re-roll of two dice has 36 outcomes, the first
roll 216). Action ids are the fixed index of :mod:`arena.env.actions`: the
decisions first (``num_distinct_actions`` of them), then the rolls, so no id is
both a decision and a chance outcome (``max_chance_outcomes`` counts all ids).
A roll's id names the dice *after* it, all of them (a Seasons re-roll keeping
slot 0 at 4 and rolling 5, 6 is ``dice:4,5,6``).

Returns are arena's game points, paid at the end only: 1 for a two-seat win, ½
for a draw, 0 for a loss; with ``k`` seats (beaten + ½ tied) / (k - 1). The
games are therefore constant-sum (the points add up to ``k / 2``), not zero-sum;
``2 * points - 1`` gives the zero-sum ±1 form for two seats.

Parameters: ``arena_seasons`` takes ``placement_limit``; ``arena_sonnentau``
takes ``players`` (2-4), ``dice`` (``standard`` or ``miwin``), ``turn_limit``
and ``board`` (a board file, "" for the default board).

Observation tensors are :mod:`arena.env.encoding`'s vectors as floats (from the
observing player's point of view), ``game.observation_tensor_shape()`` long:
``[28]`` for Seasons, ``[92 + 431 * players]`` for Sonnentau on the default
board (``[954]`` for two players). The
information-state tensor is the same vector (the game has perfect information:
the position is all a player needs), with the same shape
(``information_state_tensor_shape()``). The observation string is the
position's JSON (``str(state)`` too; ``state.render()`` draws it), the
information-state string the history of action ids.

States pickle (as their game's parameters and their history, replayed when
loaded) and so do games; ``state.undo_action(player, action)`` takes back the
last action, from a copy of the position kept every :data:`CHECKPOINT_EVERY`
actions and a replay of the rest. ``history()``, ``history_str()`` and
``move_number()`` answer from Python and follow undo; pyspiel's C++ history
(``full_history()``, ``serialize()``) does not.

:func:`dice_stream_action` picks the chance outcome arena's own dice stream
gives a game seed, so a loop over OpenSpiel states can play exactly the dice of
``arena.play_game``; :class:`OpenSpielPlayer` turns an OpenSpiel bot (MCTS,
say) into an arena player for the referee and tournaments.
"""

from __future__ import annotations

import functools
import json
import numbers
import operator
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel

from arena.env.actions import ActionIndex, ByIdentity, UnknownActionError, action_index
from arena.env.encoding import encoder, float_encoder, vector_high
from arena.games import find_game
from arena.games.base import (
    CHANCE_SEAT,
    TERMINAL_SEAT,
    Action,
    ArenaError,
    Game,
    Observation,
    State,
)
from arena.games.sonnentau.rules import MAX_ROLLS_PER_TURN, ROLL, SonnentauState
from arena.referee.dice import DiceStream
from arena.referee.match import resolve_game_options
from arena.referee.protocol import PlayerInfo
from arena.results.standings import game_points

SHORT_NAMES = {"seasons": "arena_seasons", "sonnentau": "arena_sonnentau"}
LONG_NAMES = {"seasons": "Seasons of the Sun (arena)", "sonnentau": "Sonnentau (arena)"}
_PARAMETERS: dict[str, dict[str, Any]] = {
    "seasons": {"placement_limit": 1000},
    "sonnentau": {"players": 2, "dice": "standard", "turn_limit": 1000, "board": ""},
}
_MAX_SEATS = {"seasons": 2, "sonnentau": 4}
_CACHE_SIZE = 4096


def game_type(game: str) -> pyspiel.GameType:
    """The OpenSpiel facts of ``game``: sequential, explicit chance, perfect information."""
    return pyspiel.GameType(
        short_name=SHORT_NAMES[game],
        long_name=LONG_NAMES[game],
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=_MAX_SEATS[game],
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_PARAMETERS[game],
    )


def _arena_options(game: str, params: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
    """(seats, arena game options) from OpenSpiel parameters."""
    given = {**_PARAMETERS[game], **params}
    seats = int(given.pop("players", 2))
    return seats, given


LARGEST_INT = 2**31 - 1
"""OpenSpiel's parameters and game lengths are C++ ints."""


def _max_length(game: str, options: Mapping[str, Any], index: ActionIndex) -> int:
    """The most actions, chance outcomes included, that a game can take."""
    if game == "seasons":  # a placement: its roll, keep or re-roll, the re-roll, itself
        length = 4 * int(options["placement_limit"])
    else:  # a turn: at most 50 rolls, each with a move per die and a relocation after each
        dice = len(index.rolls[0])
        length = int(options["turn_limit"]) * MAX_ROLLS_PER_TURN * (1 + 2 * dice)
    if length > LARGEST_INT:
        limit = "placement_limit" if game == "seasons" else "turn_limit"
        raise pyspiel.SpielError(
            f"{limit} {options[limit]} is too large for OpenSpiel: a game could take "
            f"{length:,} actions, more than its largest game length ({LARGEST_INT:,})")
    return length


class ArenaSpielGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel ships no type information
    """An arena game as an OpenSpiel game (one class serves both; see the module docstring)."""

    arena_name = "seasons"

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        name = self.arena_name
        seats, given = _arena_options(name, dict(params or {}))
        self.arena_game: Game = find_game(name)
        self.arena_options = resolve_game_options(self.arena_game, given, seats)
        self.index = action_index(name, self.arena_options)
        self.seats = seats
        info = pyspiel.GameInfo(
            num_distinct_actions=self.index.n_decisions,
            max_chance_outcomes=self.index.size,
            num_players=seats,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=seats / 2,
            max_game_length=_max_length(name, self.arena_options, self.index))
        self._params = dict(params or {})
        super().__init__(game_type(name), info, dict(params or {}))
        initial = self.arena_game.initial_state(self.arena_options)
        self.encode = encoder(name, initial)
        self.encode_floats = float_encoder(name, initial)
        self.high = vector_high(name, initial)
        self.legal_ids = ByIdentity(functools.partial(_sorted_ids, self.index), _CACHE_SIZE)
        """The sorted ids of a tuple of legal actions (remembered: do not change the list)."""
        self._outcomes: dict[Hashable, list[tuple[int, float]]] = {}
        self._all_slots = tuple(range(len(self.index.rolls[0])))
        self.roll_actions = dict(enumerate(self.index.roll_actions, self.index.n_decisions))
        """The dice action of each chance id."""
        self._full_roll: tuple[Any, list[tuple[int, float]]] = (None, [])
        """The faces of a roll of every die and its outcomes, once met (the same at every one)."""

    def __deepcopy__(self, memo: Any) -> ArenaSpielGame:
        """The game itself: it never changes, and OpenSpiel deep-copies what a state holds."""
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its class and parameters (pyspiel's own pickling skips ``__init__``),
        a board file by the path it was found at, so that it loads from any folder."""
        params = dict(self._params)
        if "board" in params and isinstance(self.arena_options.get("board"), str):
            params["board"] = self.arena_options["board"]
        return type(self), (params,)

    def new_initial_state(self) -> ArenaSpielState:
        return ArenaSpielState(self, self.arena_game.initial_state(self.arena_options))

    def state_for(self, arena_state: State) -> ArenaSpielState:
        """An OpenSpiel state over (a copy of) an arena state of this game, for search.

        Its history starts there (empty): it can be undone back to ``arena_state``.
        """
        return ArenaSpielState(self, arena_state.copy(), start=arena_state.copy())

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Mapping[str, Any] | None = None) -> ArenaObserver:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return ArenaObserver(self, perfect_recall=recall)

    def new_legal_ids(self, legal: Sequence[Action]) -> list[int]:
        """A new list of the sorted ids of ``legal``; once :attr:`legal_ids` has found that
        the engine builds its tuples anew (Sonnentau), built without asking it."""
        if self.legal_ids.remembering:
            return self.legal_ids(legal)[:]
        return _sorted_ids(self.index, legal)

    def chance_outcomes(self, state: State) -> list[tuple[int, float]]:
        """The chance ids and probabilities of the engine's ``chance_outcomes()`` at ``state``.

        Remembered by what determines them: the dice to roll, their faces, and
        when only some dice are rolled, the outcome of the lowest faces (which
        shows the dice that stay as they are).
        """
        request = state.chance_request()
        every_die = request.slots == self._all_slots
        if every_die and request.faces == self._full_roll[0]:
            return self._full_roll[1]
        key: Hashable = (request.slots, request.faces)
        if not every_die:
            probe = state.chance_action([faces[0] for faces in request.faces])
            key = (request.slots, request.faces, str(probe))
        found = self._outcomes.get(key)
        if found is None:
            id_of = self.index.id_of
            found = [(id_of(dice), p) for dice, p in state.chance_outcomes()]
            if len(self._outcomes) < _CACHE_SIZE:
                self._outcomes[key] = found
        if every_die:
            self._full_roll = (request.faces, found)
        return found

    def roll_id(self, state: State, slots: Sequence[int], values: Sequence[int]) -> int:
        """The chance id of the roll giving ``values`` to the requested ``slots`` at ``state``."""
        if slots == self._all_slots:  # every die is rolled: the values are the dice
            found = self.index.roll_ids.get(tuple(values))
            if found is not None:
                return found
        return self.index.id_of(state.chance_action(values))


def _sorted_ids(index: ActionIndex, legal: Sequence[Action]) -> list[int]:
    try:
        return sorted(map(index.by_identity.__getitem__, map(id, legal)))
    except KeyError:  # an equal action, not the index's own: look it up by value
        return sorted(index.ids_of(legal))


class SeasonsSpielGame(ArenaSpielGame):
    """``arena_seasons``."""

    arena_name = "seasons"


class SonnentauSpielGame(ArenaSpielGame):
    """``arena_sonnentau``."""

    arena_name = "sonnentau"

    def chance_outcomes(self, state: State) -> list[tuple[int, float]]:
        """Every Sonnentau roll throws all the dice, so once met, the outcomes are known
        without building the engine's dice request."""
        faces, outcomes = self._full_roll
        if isinstance(state, SonnentauState) and state.phase == ROLL and state.faces == faces:
            return outcomes
        return super().chance_outcomes(state)


class Position:
    """What an OpenSpiel state holds: the arena state, its history and undo checkpoints.

    OpenSpiel clones a Python state by deep-copying each of its attributes; this
    holder makes that copy the engine's own fast one (``State.copy()``), copies
    the history's list and shares the checkpoints, which are never changed.
    ``start`` is the arena state the history starts from (``None``: the game's
    initial state); ``checkpoints`` maps a history length (a multiple of
    :data:`CHECKPOINT_EVERY`) to a copy of the arena state there.
    """

    __slots__ = ("checkpoints", "history", "start", "state")

    def __init__(self, state: State, history: list[int], start: State | None,
                 checkpoints: dict[int, State]) -> None:
        self.state = state
        self.history = history
        self.start = start
        self.checkpoints = checkpoints

    def __deepcopy__(self, memo: Any) -> Position:
        return Position(self.state.copy(), self.history[:], self.start, dict(self.checkpoints))


CHECKPOINT_EVERY = 32
"""An OpenSpiel state keeps a copy of its arena state every this many actions, for undo."""


class ArenaSpielState(pyspiel.State):  # type: ignore[misc]  # pyspiel ships no type information
    """An OpenSpiel state over an arena state (:attr:`arena`, played in place)."""

    def __init__(self, game: ArenaSpielGame, arena_state: State, *,
                 start: State | None = None) -> None:
        super().__init__(game)
        self.spiel_game = game
        self.position = Position(arena_state, [], start, {})
        self._player = _player(arena_state)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its game, its starting position and its history (replayed on loading)."""
        start = self.position.start
        return _restore_state, (self.spiel_game, None if start is None else start.to_json(),
                                tuple(self.position.history))

    @property
    def arena(self) -> State:
        """The arena state this OpenSpiel state plays on."""
        return self.position.state

    def current_player(self) -> int:
        return self._player

    # Called from Python, pyspiel's ``is_chance_node`` and ``legal_actions`` would go
    # through C++ and back into Python up to four times each; these answer at once
    # (C++ callers still reach ``current_player`` and ``_legal_actions``).

    def is_chance_node(self) -> bool:
        return self._player == _CHANCE

    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal actions' ids (sorted), as pyspiel's ``legal_actions`` gives them."""
        current = self._player
        if current >= 0 and (player is None or player == current):
            return self.spiel_game.new_legal_ids(self.position.state.legal_actions())
        if player is None:  # a chance node or the end
            legal: list[int] = pyspiel.State.legal_actions(self)
        else:
            legal = pyspiel.State.legal_actions(self, player)
        return legal

    def _legal_actions(self, player: int) -> list[int]:
        return self.spiel_game.legal_ids(self.position.state.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """A new list: the caller's to change (the game keeps its own)."""
        if self._player != _CHANCE:
            raise pyspiel.SpielError("chance_outcomes: not a chance node")
        return self.spiel_game.chance_outcomes(self.position.state)[:]

    def _apply_action(self, action: int) -> None:
        position, game = self.position, self.spiel_game
        state, history = position.state, position.history
        try:
            if self._player == _TERMINAL:
                raise ArenaError("the game is over: no action is legal")
            if self._player == _CHANCE:
                roll = game.roll_actions.get(action)
                state.apply(game.index.roll(action) if roll is None else roll)  # unknown: raises
            elif 0 <= action < game.index.n_decisions:
                state.apply(game.index.decisions[action])
            else:
                raise UnknownActionError(f"{action} is not a decision id of {game.arena_name} "
                                         f"(0 to {game.index.n_decisions - 1})")
        except (ArenaError, ValueError) as exc:  # an unknown id, or one not legal here
            raise pyspiel.SpielError(f"apply_action({action}): {exc}") from None
        history.append(action)
        if not len(history) % CHECKPOINT_EVERY:
            position.checkpoints[len(history)] = state.copy()
        seat = state.current_seat
        self._player = seat if seat >= 0 else _PLAYERS[seat]

    def undo_action(self, player: int, action: int) -> None:
        """Take back the last action, ``action`` by ``player`` (a chance outcome too).

        The state becomes the one before it: position, current player, legal
        actions, tensors and :meth:`history`. (The history pyspiel's C++ side keeps,
        seen by C++ code such as ``serialize`` and ``full_history``, still holds
        the action: read the history through :meth:`history`.)
        """
        position = self.position
        history = position.history
        if not history:
            raise pyspiel.SpielError("undo_action: there is no action to undo")
        if history[-1] != action:
            raise pyspiel.SpielError(f"undo_action: the last action is {history[-1]}, "
                                     f"not {action}")
        state = self._state_before_last()
        if _player(state) != player:
            raise pyspiel.SpielError(f"undo_action: action {action} was made by player "
                                     f"{_player(state)}, not {player}")
        del history[-1]
        for stale in [n for n in position.checkpoints if n > len(history)]:
            del position.checkpoints[stale]
        position.state = state
        self._player = _player(state)

    def _state_before_last(self) -> State:
        """A new arena state: the position before the last action of the history."""
        position = self.position
        history = position.history
        game, index = self.spiel_game, self.spiel_game.index
        length, n = len(history) - 1, index.n_decisions
        base = length - length % CHECKPOINT_EVERY
        if base:
            state = position.checkpoints[base].copy()
        elif position.start is not None:
            state = position.start.copy()
        else:
            state = game.arena_game.initial_state(game.arena_options)
        for number in history[base:length]:
            state.apply(index.roll(number) if number >= n else index.decisions[number])
        return state

    def history(self) -> list[int]:
        """The ids of the actions applied so far (chance outcomes too), undone ones excepted."""
        return self.position.history[:]

    def history_str(self) -> str:
        return ", ".join(map(str, self.position.history))

    def move_number(self) -> int:
        return len(self.position.history)

    def is_initial_state(self) -> bool:
        """True at the game's start only (a :meth:`ArenaSpielGame.state_for` state starts
        later)."""
        return not self.position.history and self.position.start is None

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """The observation as floats: :mod:`arena.env.encoding`'s vector from ``player``'s view.

        ``player`` defaults to the current player (seat 0 at a chance node or the end).
        """
        game = self.spiel_game
        if type(player) is not int or not 0 <= player < game.seats:
            player = self.viewer(player)
        return game.encode_floats(self.position.state, player)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """The observation tensor: with perfect information, the position is all there is."""
        return self.observation_tensor(player)

    def viewer(self, player: Any) -> int:
        """``player`` (an integer, NumPy's too) as a seat; None: the current player (seat 0
        at a chance node or the end); SpielError for anything else."""
        if player is None:
            return self._player if self._player >= 0 else 0
        seats = self.spiel_game.seats
        number = _integer(player)
        if number is None:
            raise pyspiel.SpielError(f"player {player!r} is not a player of this game "
                                     f"(0 to {seats - 1})")
        if not 0 <= number < seats:
            raise pyspiel.SpielError(f"player {number} is not a player of this game "
                                     f"(0 to {seats - 1})")
        return number

    def _action_to_string(self, player: int, action: int) -> str:
        try:
            return self.spiel_game.index.name(action)
        except ArenaError as exc:
            raise pyspiel.SpielError(f"action_to_string({action}): {exc}") from None

    def is_terminal(self) -> bool:
        return self._player == _TERMINAL

    def returns(self) -> list[float]:
        state = self.position.state
        if not state.is_terminal:
            return [0.0] * self.spiel_game.seats
        return list(game_points(state.outcome().ranks))

    def __str__(self) -> str:
        """The position's JSON (exact and cheap; :meth:`render` draws it for people)."""
        return json.dumps(self.position.state.to_json(), sort_keys=True)

    def render(self) -> str:
        """The position as the game draws it for the terminal."""
        return self.spiel_game.arena_game.render(self.position.state)


_CHANCE = int(pyspiel.PlayerId.CHANCE)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_PLAYERS = {CHANCE_SEAT: _CHANCE, TERMINAL_SEAT: _TERMINAL}
"""OpenSpiel's players for arena's ``current_seat`` at a chance node and at the end."""


def _restore_state(game: ArenaSpielGame, start: Mapping[str, Any] | None,
                   history: Sequence[int]) -> ArenaSpielState:
    """An unpickled state: ``history`` replayed from ``start`` (``None``: the initial state)."""
    if start is None:
        state = game.new_initial_state()
    else:
        state = game.state_for(game.arena_game.state_from_json(start))
    for action in history:
        state.apply_action(action)
    return state


def _player(state: State) -> int:
    """OpenSpiel's current player of an arena state."""
    seat = state.current_seat
    return seat if seat >= 0 else _PLAYERS[seat]


class ArenaObserver:
    """OpenSpiel's Python observer: the encoding as a float tensor, strings for both kinds."""

    def __init__(self, game: ArenaSpielGame, *, perfect_recall: bool) -> None:
        self.game = game
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(len(game.high), np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ArenaSpielState, player: int) -> None:
        """Both tensors are the position (the game has perfect information)."""
        self.tensor[:] = self.game.encode(state.arena, state.viewer(player))

    def string_from(self, state: ArenaSpielState, player: int) -> str:
        if self.perfect_recall:
            history: str = state.history_str()
            start = state.position.start
            if start is None:
                return history
            return f"from {json.dumps(start.to_json(), sort_keys=True)}: {history}"
        return str(state)


def dice_stream_action(state: ArenaSpielState, stream: DiceStream) -> int:
    """The chance id arena's dice stream ``stream`` rolls at the chance node ``state``."""
    arena = state.position.state
    request = arena.chance_request()
    return state.spiel_game.roll_id(arena, request.slots, stream.roll(request))


class OpenSpielPlayer:
    """An OpenSpiel bot (anything with ``step(state) -> action``) as an arena player.

    ``make_bot(game, info)`` builds the bot when a game starts, from the OpenSpiel
    game and the referee's :class:`~arena.referee.protocol.PlayerInfo` (its seat,
    and its ``seed`` for the bot's randomness); each decision rebuilds the
    position from the observation, lets the bot choose an id and answers with the
    engine's action.
    """

    version = "1.0"

    def __init__(self, make_bot: Callable[[ArenaSpielGame, PlayerInfo], Any],
                 name: str = "openspiel") -> None:
        self.make_bot = make_bot
        self.name = name
        self._bot: Any = None
        self._game: ArenaSpielGame | None = None

    def start(self, info: PlayerInfo) -> None:
        params = {k: v for k, v in info.options.items() if k != "seats"}
        if info.game == "sonnentau":
            params["players"] = info.seats
        self._game = load(info.game, params)
        self._bot = self.make_bot(self._game, info)

    def act(self, observation: Observation) -> Action:
        if self._game is None:
            raise RuntimeError("act() before start(): the referee always calls start() first")
        game = self._game
        state = game.state_for(game.arena_game.state_from_json(observation.state))
        chosen = self._bot.step(state)
        decision = _decision_of(game.index, chosen)
        # anything else goes to the referee as it came, which refuses it as illegal
        return chosen if decision is None else decision


def _decision_of(index: ActionIndex, chosen: Any) -> Action | None:
    """The decision an OpenSpiel bot's id names; None for anything but an integer id of a
    decision (``INVALID_ACTION``, -1, a chance id, ``3.9``, ``True``)."""
    number = _integer(chosen)
    return index.decisions[number] if number is not None and 0 <= number < index.n_decisions \
        else None


def _integer(value: Any) -> int | None:
    """``value`` as an int if it is an integer (Python's or NumPy's, not a bool); else None."""
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


_CLASSES: dict[str, type[ArenaSpielGame]] = {
    "seasons": SeasonsSpielGame, "sonnentau": SonnentauSpielGame}


def register() -> None:
    """Register both games with OpenSpiel; harmless when they already are."""
    registered = set(pyspiel.registered_names())
    for game, cls in _CLASSES.items():
        if SHORT_NAMES[game] not in registered:
            pyspiel.register_game(game_type(game), cls)


def load(game: str, params: Mapping[str, Any] | None = None) -> ArenaSpielGame:
    """The OpenSpiel game of arena game ``game`` (``seasons``, ``sonnentau``) with ``params``."""
    register()
    given = {key: int(value) if isinstance(value, numbers.Integral)  # NumPy's too
             and not isinstance(value, bool) else value for key, value in (params or {}).items()}
    for key, value in given.items():
        if isinstance(value, int) and not -LARGEST_INT - 1 <= value <= LARGEST_INT:
            raise pyspiel.SpielError(f"{key} {value} is too large for OpenSpiel, whose "
                                     f"parameters are C++ ints (at most {LARGEST_INT:,})")
    loaded: ArenaSpielGame = pyspiel.load_game(SHORT_NAMES[game], given)
    return loaded

