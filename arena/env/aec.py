"""PettingZoo AEC environments for Seasons of the Sun and Sonnentau.

One agent per seat (``player_0``, ``player_1``, …). An agent acts with an
integer from the game's fixed action index (:mod:`arena.env.actions`) and
observes a dict: ``observation``, the position as a vector from its own point of
view, as small integers (uint8, :mod:`arena.env.encoding`), and
``action_mask``, an int8 vector over the action index that is 1 exactly for its
legal actions (all 0 when it is not its turn). Both arrays are read-only (masks
are shared between steps); copy one to change it.

Chance nodes never reach an agent: the environment rolls the dice itself from
arena's seat-bound dice streams (:class:`arena.referee.dice.DiceStream`), so
``reset(seed=s)`` starts exactly the game ``arena.play_game(game, players,
seed=s)`` plays, die for die, as long as the same actions are chosen. A reset
without a seed draws the game seed from the generator of the last seeded reset
(or from the operating system before the first). ``env.game_seed`` is the seed
of the episode, ``env.actions`` its actions (the engine's objects, the dice
included) and ``env.history`` their strings, as in a game record.

Rewards come only at the end, in arena's game points (1 for a two-seat win, ½
for a draw, 0 for a loss; with more seats (beaten + ½ tied) / (seats - 1)), or
with ``reward="zero-sum"`` as ``2 * points - 1``: +1 for a win, -1 for a loss,
0 for a draw, and for any number of seats a sum of 0. A game that ends by its
rules terminates the agents; one stopped by the placement or turn limit
truncates them. The last ``infos`` carry the ranks, the scores and the
termination reason.

``state()`` is the position as seat 0 sees it (``state_space``): with perfect
information, that is the whole position. Render modes: ``"ansi"`` returns the
game's text drawing from ``render()``; ``"human"`` prints it, after every step
too. The games are turn-based, so PettingZoo's ``aec_to_parallel`` refuses them
(``is_parallelizable`` is False); ``turn_based_aec_to_parallel`` (see
:func:`arena.env.parallel_env`) gives the parallel API, in which only the agent
to move acts.
"""

from __future__ import annotations

import functools
import hashlib
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from arena.env.actions import ActionIndex, ByIdentity, action_index
from arena.env.encoding import encoder, vector_high
from arena.games import find_game
from arena.games.base import NORMAL, Action, IllegalActionError, State, whole_number
from arena.referee.dice import DiceStream
from arena.referee.match import resolve_game_options
from arena.results.standings import game_points

Observation = dict[str, npt.NDArray[Any]]
Mask = tuple[npt.NDArray[np.int8], bytes]
"""An action mask (read-only) and its bytes."""
RENDER_MODES = ("ansi", "human")
REWARDS = ("points", "zero-sum")
_MASK_CACHE_SIZE = 4096
_I8 = np.dtype(np.int8)


class ArenaEnv(AECEnv):  # type: ignore[misc]  # pettingzoo ships no type information
    """One game of arena as a PettingZoo AEC environment (see the module docstring).

    ``options`` are the game's options (``arena games`` lists them); for
    Sonnentau, ``seats`` (2 to 4) is one of them. They are fixed for the life of
    the environment: ``reset``'s ``options`` argument is accepted and ignored.
    ``reward`` is ``"points"`` (arena's game points) or ``"zero-sum"`` (±1).
    """

    def __init__(self, game: str, options: Mapping[str, Any] | None = None,
                 render_mode: str | None = None, reward: str = "points") -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, "
                             f"not {render_mode!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, not {reward!r}")
        self.reward = reward
        self.game = find_game(game)
        given = dict(options or {})
        seats = whole_number(given.pop("seats", self.game.info.min_seats),
                             "seats: a number of players")
        self.options = resolve_game_options(self.game, given, seats)
        self.render_mode = render_mode
        self.metadata = {"render_modes": list(RENDER_MODES), "name": f"arena_{game}_v0",
                         "is_parallelizable": False}
        self.index: ActionIndex = action_index(game, self.options)
        self._encode = encoder(game, self.game.initial_state(self.options))
        self.possible_agents = [f"player_{seat}" for seat in range(seats)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        high = vector_high(game, self.game.initial_state(self.options))
        n = self.index.n_decisions
        self.state_space = spaces.Box(np.zeros_like(high), high, dtype=np.uint8)
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(np.zeros_like(high), high, dtype=np.uint8),
            "action_mask": spaces.Box(0, 1, (n,), np.int8)}) for agent in self.agents}
        self.action_spaces = {agent: spaces.Discrete(n) for agent in self.agents}
        self._n_decisions = n
        self._decisions = self.index.decisions
        self._no_actions = _frozen(np.zeros(n, dtype=np.int8))
        self._no_flags = bytes(n)
        self._masks = ByIdentity(functools.partial(_mask, n, self.index), _MASK_CACHE_SIZE)
        self._mask_of: Callable[[Sequence[Action]], Mask]
        self._views: dict[str, Observation] = {}
        self._np_random: np.random.Generator | None = None
        self._np_random_seed: np.random.SeedSequence | None = None
        self.reset()

    # -- the AEC interface ---------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            # The generator for the resets without a seed that may follow is made
            # only when one comes: making it costs more than a short game.
            self.game_seed = _whole_number(seed, "seed", ValueError)
            # NumPy's seeds are non-negative, and any other form of a negative one (its
            # size and sign as words, or a spawn key) is the words of some non-negative
            # one: the generator's seed is a hash of the seed's digits
            self._np_random = None
            digest = hashlib.sha256(f"arena reset {self.game_seed}".encode()).digest()
            self._np_random_seed = np.random.SeedSequence(int.from_bytes(digest, "big"))
        else:
            if self._np_random is None:
                self._np_random = np.random.default_rng(self._np_random_seed)
            self.game_seed = int(self._np_random.integers(2**63))
        self._roll = DiceStream(self.game_seed).roll
        # Once the cache of masks has found that the engine builds its tuples of legal
        # actions anew (Sonnentau), the masks are built without asking it.
        self._mask_of = self._masks if self._masks.remembering else self._masks.build
        self.arena_state: State = self.game.initial_state(self.options)
        self.actions: list[Action] = []
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._advance()

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[str]:
        """PettingZoo's ``agent_iter``: the agent to act, until none is left."""
        return _agent_iter(self, max_iter)

    def step(self, action: Any) -> None:
        if self._to_act < 0:  # the game is over: every agent is terminated or truncated
            self._was_dead_step(action)
            return
        # the ids a loop passes (Python's ints, an action mask's nonzero()) go straight on
        number = int(action) if type(action) in _PLAIN_IDS else _whole_number(action, "action")
        legal = 0 <= number < self._n_decisions and self._flags[number]
        if not legal:
            raise IllegalActionError(f"action {number} is not legal here; legal: "
                                     + ", ".join(f"{i} ({self.index.name(i)})"
                                                 for i in self.legal_actions()))
        decision = self._decisions[number]
        self.arena_state.apply(decision)
        self.actions.append(decision)
        self._advance()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Observation:
        """The agent's observation dict, built once per position and agent (and kept)."""
        view = self._views.get(agent)
        if view is None:
            seat = self._seat[agent]
            mask = self._legal if seat == self._to_act else self._no_actions
            view = self._views[agent] = {"observation": self._encode(self.arena_state, seat),
                                         "action_mask": mask}
        return view

    def last(self, observe: bool = True) -> tuple[Observation | None, float, bool, bool,
                                                   dict[str, Any]]:
        """PettingZoo's ``last``, with :meth:`observe` inlined for the agent to act."""
        agent = self.agent_selection
        view = None
        if observe:
            view = self._views.get(agent)
            if view is None:
                if self._seat[agent] == self._to_act:
                    view = self._views[agent] = {
                        "observation": self._encode(self.arena_state, self._to_act),
                        "action_mask": self._legal}
                else:
                    view = self.observe(agent)
        return (view, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def state(self) -> npt.NDArray[np.uint8]:
        """The whole position: the observation vector as seat 0 sees it (``state_space``)."""
        return self._encode(self.arena_state, 0)

    def render(self) -> str | None:
        """The game's text drawing: returned in ``"ansi"`` mode, printed in ``"human"``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode "
                                  "('ansi' returns the drawing, 'human' prints it)")
            return None
        text = self.game.render(self.arena_state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the environment holds no files or processes."""

    # -- arena's side ----------------------------------------------------------------

    @property
    def history(self) -> list[str]:
        """The episode's action strings so far, the dice included, as in a game record."""
        return [str(action) for action in self.actions]

    def legal_actions(self) -> list[int]:
        """The ids of the legal actions of the agent to act (sorted)."""
        return [int(i) for i in self._legal.nonzero()[0]]

    def action_name(self, action: int) -> str:
        """The canonical string of an action id, e.g. ``place:max-13``."""
        return self.index.name(int(action))

    def _advance(self) -> None:
        """Roll the dice of every chance node ahead, then seat the next agent or finish."""
        state, record, roll = self.arena_state, self.actions.append, self._roll
        self._views.clear()
        while state.is_chance_node():
            record(state.apply_roll(roll(state.chance_request())))
        seat = self._to_act = state.current_seat
        if seat < 0:
            self._legal, self._flags = self._no_actions, self._no_flags
            self._finish()
        else:
            self._legal, self._flags = self._mask_of(state.legal_actions())
            self.agent_selection = self.possible_agents[seat]

    def _finish(self) -> None:
        outcome = self.arena_state.outcome()
        points = game_points(outcome.ranks)
        ended = self.terminations if outcome.termination == NORMAL else self.truncations
        zero_sum = self.reward == "zero-sum"
        for seat, agent in enumerate(self.possible_agents):
            self.rewards[agent] = 2 * points[seat] - 1 if zero_sum else points[seat]
            ended[agent] = True
            self.infos[agent] = {"ranks": outcome.ranks, "scores": outcome.scores,
                                 "termination": outcome.termination}
        self._accumulate_rewards()


def _agent_iter(env: ArenaEnv, max_iter: int) -> Iterator[str]:
    for _ in range(max_iter):
        if not env.agents:
            return
        yield env.agent_selection


_PLAIN_IDS = frozenset({int, np.int64, np.intp, np.int32})


def _whole_number(value: Any, what: str, error: type[Exception] = IllegalActionError) -> int:
    """``value`` as an int if it is an integer (Python's or NumPy's), else ``error``:
    ``0.9``, ``"0"`` and ``True`` are not ids or seeds (``int()`` would take each as one)."""
    if isinstance(value, (bool, np.bool_)):
        raise error(f"{what} {value!r} is a boolean, not an integer")
    try:
        return operator.index(value)
    except TypeError:
        raise error(f"{what} {value!r} is not an integer") from None


def _mask(n: int, index: ActionIndex, legal: Sequence[Action]) -> Mask:
    """The mask of ``legal`` over ``index``'s ``n`` decisions (read-only) and its bytes."""
    flags = bytearray(n)
    by_identity = index.by_identity
    try:
        for action in legal:
            flags[by_identity[id(action)]] = 1
    except KeyError:  # an equal action, not the index's own: look it up by value
        for number in index.ids_of(legal):
            flags[number] = 1
    ready = bytes(flags)
    return np.frombuffer(ready, _I8), ready


def _frozen(array: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    array.flags.writeable = False
    return array
