"""Luck accounting: how much of a game's result the dice gave, and the result without it.

For a value model *V* (a state's expected game points for each seat), the luck
of a chance node is ``V(state after the roll) − Σ p(roll) · V(state after that
roll)``. Whatever *V* is, its expectation given everything before the roll is
zero, so a seat's points minus the luck of all the game's rolls is an unbiased
estimate of its expected points; the better *V*, the less noise is left. The
seats' decisions are never judged: only the dice are accounted for.

Accounting replays a stored record through the rules engine; the bots are not
asked again. A value model is any object with ``name`` and ``values(state)``
(see :class:`ValueModel`); ``arena.results.values`` holds the shipped ones.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from arena.games import find_game
from arena.games.base import ArenaError, State
from arena.referee.record import GameRecord
from arena.results.standings import game_points


class LuckError(ArenaError):
    """A record cannot be accounted for (a damaged record, a model for another game)."""


@runtime_checkable
class ValueModel(Protocol):
    """*V*: each seat's expected game points (1 a win, ½ a draw; see ``game_points``).

    ``values`` is asked for the state after every roll of a game (a decision
    node, a chance node or the end). ``name`` identifies the model and its
    version in the store's cache: change it whenever the values change.

    A model may also define ``expected_values(state)`` at a chance node: the
    exact ``Σ p · values(after)`` over ``state.chance_outcomes()``, computed
    faster than by enumerating the rolls. An inexact one biases every adjusted
    result, so the shipped models are tested against the enumeration.

    Or ``estimated_values(state, rng)``: an unbiased estimate of that expectation drawn
    with ``rng``, a :class:`random.Random` seeded from the game's seed and the roll's
    move, so that accounting is the same every time and unknown to the bots while they
    play (they never learn the game's seed). An estimate costs a little variance where
    an exact expectation costs too much time; it is used where a model has both.

    And it may define ``luck_scale``: the share of each roll's change of value that
    counts as luck (1 when absent). Any constant keeps the luck's expectation zero; a
    model whose changes overstate how far a roll moves the outcome takes less of them.

    And ``prepare(states)``: told, before a batch of games is accounted for, every state
    whose values will be asked for, so that it can compute them together (the values
    must be the same as those asked for one at a time).
    """

    name: str

    def values(self, state: State) -> Sequence[float]: ...


@dataclass(frozen=True)
class ChanceLuck:
    """The luck of one roll: the move's index in the record and each seat's share."""

    move: int
    luck: tuple[float, ...]


@dataclass(frozen=True)
class LuckAccount:
    """One game's luck per seat and its points with the luck taken out."""

    model: str
    points: tuple[float, ...]
    luck: tuple[float, ...]
    rolls: tuple[ChanceLuck, ...] = ()

    @property
    def adjusted(self) -> tuple[float, ...]:
        return tuple(p - luck for p, luck in zip(self.points, self.luck, strict=True))


def expected_values(model: ValueModel, state: State,
                    rng: random.Random | None = None) -> tuple[float, ...]:
    """``Σ p · V(after)`` over the rolls of a chance node: given ``rng``, the model's
    unbiased estimate where it has one; else its own exact expectation where it has
    one, else by enumeration."""
    estimate = getattr(model, "estimated_values", None) if rng is not None else None
    if estimate is not None:
        return tuple(estimate(state, rng))
    own = getattr(model, "expected_values", None)
    if own is not None:
        return tuple(own(state))
    return enumerated_expectation(model, state)


def enumerated_expectation(model: ValueModel, state: State) -> tuple[float, ...]:
    """``Σ p · V(after)`` computed the slow, sure way: every roll applied to a copy."""
    total: list[float] | None = None
    for action, p in state.chance_outcomes():
        after = state.copy()
        after.apply(action)
        values = model.values(after)
        if total is None:
            total = [0.0] * len(values)
        for seat, value in enumerate(values):
            total[seat] += p * value
    if total is None:
        raise LuckError("a chance node without outcomes")
    return tuple(total)


def roll_rng(seed: int, move: int) -> random.Random:
    """The random draws of a model's estimate at the roll of move index ``move`` of the
    game of ``seed`` (a string seed: the same draws in every process and Python run)."""
    return random.Random(f"luck:{seed}:{move}")


def luck_scale(model: ValueModel) -> float:
    """The share of each roll's change of value that ``model`` counts as luck."""
    scale = getattr(model, "luck_scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) \
            or not 0.0 < scale < math.inf:
        raise LuckError(f"value model {model.name!r}: luck_scale must be a number above 0, "
                        f"not {scale!r}")
    return float(scale)


def account(record: GameRecord, model: ValueModel, *, keep_rolls: bool = False) -> LuckAccount:
    """The luck of every roll of ``record`` under ``model``, summed per seat.

    ``keep_rolls`` also keeps each roll's luck (for a replay's annotations).
    """
    return account_games([record], model, keep_rolls=keep_rolls)[0]


def account_games(records: Sequence[GameRecord], model: ValueModel, *,
                  keep_rolls: bool = False) -> list[LuckAccount]:
    """:func:`account` of each record; a model with ``prepare`` is first told every
    chance node's states of them all."""
    prepare = getattr(model, "prepare", None)
    if prepare is None:
        return [_account(record, _chance_nodes(record), model, keep_rolls)
                for record in records]
    replayed = [[(index, before, after.copy()) for index, before, after in
                 _chance_nodes(record)] for record in records]
    try:
        prepare([state for nodes in replayed for _, before, after in nodes
                 for state in (before, after)])
    except Exception as exc:  # a user's model failed: one line that names it
        raise LuckError(f"value model {model.name!r} failed to prepare: "
                        f"{type(exc).__name__}: {exc}") from None
    return [_account(record, iter(nodes), model, keep_rolls)
            for record, nodes in zip(records, replayed, strict=True)]


Node = tuple[int, State, State]
"""A chance node of a record: the move's index, the state before the roll, after it."""


def _chance_nodes(record: GameRecord) -> Iterator[Node]:
    """Each chance node of ``record`` as it is replayed (the state after it is the
    replay's own, changed by the next move); LuckError if the record does not replay."""
    game = find_game(record.game)
    state = game.initial_state(record.options)
    for index, move in enumerate(record.moves):
        try:
            action = game.parse_action(move.action)
            if not state.is_chance_node():
                state.apply(action)
                continue
            before = state.copy()
            state.apply(action)
        except ValueError as exc:
            raise LuckError(f"game {record.seed}: cannot account for its luck ({exc})") \
                from None
        yield index, before, state


def _account(record: GameRecord, nodes: Iterator[Node], model: ValueModel,
             keep_rolls: bool) -> LuckAccount:
    scale = luck_scale(model)
    luck = [0.0] * len(record.seats)
    rolls: list[ChanceLuck] = []
    index = 0
    try:
        for index, before, after in nodes:
            expected = expected_values(model, before, roll_rng(record.seed, index))
            actual = model.values(after)
            shares = tuple(scale * (a - e) for a, e in zip(actual, expected, strict=True))
            if not all(math.isfinite(share) for share in shares):
                raise LuckError(f"game {record.seed}: value model {model.name!r} gave a value "
                                f"that is not a finite number at move {index + 1}")
            for seat, share in enumerate(shares):
                luck[seat] += share
            if keep_rolls:
                rolls.append(ChanceLuck(index, shares))
    except LuckError:
        raise
    except ValueError as exc:  # the model's seats are off
        raise LuckError(f"game {record.seed}: cannot account for its luck ({exc})") from None
    except Exception as exc:  # a user's model failed: one line that names it
        raise LuckError(f"game {record.seed}: value model {model.name!r} failed at move "
                        f"{index + 1}: {type(exc).__name__}: {exc}") from None
    return LuckAccount(model.name, game_points(record.ranks), tuple(luck), tuple(rolls))
