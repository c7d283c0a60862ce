"""The referee: plays one game between seated players and returns its record.

The referee never trusts a player. It resolves chance from the seeded dice
stream, hands each player a fresh observation, and checks every reply: a reply
that is not one of the legal actions (or not an action at all) loses the game
for that seat with ``illegal-action``; an exception loses it with ``crash``.
The other seats are ranked by their standing at that moment.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from arena.games import find_game
from arena.games.base import (
    CHANCE_SEAT,
    Action,
    ArenaError,
    Game,
    InvalidActionError,
    LazyState,
    Observation,
    Outcome,
    State,
    check_limits,
    ranks_from_scores,
)
from arena.referee.dice import DiceStream, derive_seed, game_seed
from arena.referee.protocol import (
    Player,
    PlayerFailure,
    PlayerInfo,
    call_hook,
    printable,
    raised_text,
)
from arena.referee.record import CRASH, ILLEGAL_ACTION, TIMEOUT, GameRecord, Move, SeatRecord

SEATS_OPTION = "seats"


class SeatCountError(ArenaError, ValueError):
    """A game was asked for with a number of players it does not allow."""


class Forfeit(Exception):
    """Raised inside the referee when a seat loses by failing; ``others``: the seats that
    failed too (as ``(seat, status, detail)``), where several bots could not start."""

    def __init__(self, seat: int, status: str, detail: str,
                 others: Sequence[tuple[int, str, str]] = ()) -> None:
        super().__init__(detail)
        self.seat, self.status, self.detail = seat, status, detail
        self.others = tuple(others)

    @property
    def failures(self) -> tuple[tuple[int, str, str], ...]:
        return ((self.seat, self.status, self.detail), *self.others)


def bot_seed(game_seed: int, seat: int, seat_order: int = 0) -> int:
    """The seed handed to the bot in ``seat`` in the game of seat order ``seat_order`` of
    its duplicate set: derived, never the dice seed itself, and its own: no other game of
    the set hands it to anyone (the seats' seeds do not move with the seats)."""
    if seat_order == 0:
        return derive_seed(game_seed, "bot", seat)
    return derive_seed(game_seed, "bot", seat, seat_order)


def play_game(
    game: Game | str,
    players: Sequence[Player],
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    time_limit: float | None = None,
    time_bank: float = 0.0,
    on_move: Callable[[State, Move], None] | None = None,
    seat_order: int = 0,
) -> GameRecord:
    """Play one game; ``players[i]`` sits in seat ``i``. Never raises for a player's fault.

    With a ``time_limit``, each decision may take that long plus what is left of the
    seat's ``time_bank`` for the game; more loses the game with ``timeout``.
    ``seat_order`` is the game's index in its duplicate set (the games on ``seed``): it
    gives each seat's bot a seed of its own (:func:`bot_seed`).
    """
    check_limits(time_limit, time_bank)
    seed = game_seed(seed)
    game = find_game(game) if isinstance(game, str) else game
    options = resolve_game_options(game, options, len(players))
    state = game.initial_state(options)
    moves: list[Move] = []
    failure: Forfeit | None = None
    try:
        _start_players(game, players, seed, options, time_limit, seat_order)
        clock = Clock(time_limit, [time_bank] * len(players))
        _play_out(game, state, players, seed, moves, clock, on_move)
        outcome = state.outcome()
    except Forfeit as forfeit:
        failure = forfeit
        outcome = forfeit_outcome(state, [seat for seat, _, _ in forfeit.failures],
                                  forfeit.status)
    # Names are read after start(): a bot process says who it is in its handshake.
    statuses = [SeatRecord(p.name, p.version) for p in players]
    for seat, status, detail in failure.failures if failure is not None else ():
        statuses[seat] = dataclasses.replace(  # escaped: it is shown on terminals
            statuses[seat], status=status, detail=printable(detail))
    for player in players:
        _end_quietly(player, outcome)
    return GameRecord(game.info.name, options, seed, tuple(statuses), tuple(moves),
                      outcome.ranks, outcome.scores, outcome.termination)


def resolve_game_options(game: Game, options: Mapping[str, Any] | None,
                         seats: int) -> dict[str, Any]:
    """Complete the options; a game with a ``seats`` option gets the number of players."""
    check_seat_count(game, seats)
    given = dict(options or {})
    said = given.get(SEATS_OPTION, seats)
    if said != seats or isinstance(said, bool):
        shown = "with no value" if said is None else f"{said}" if isinstance(
            said, int) else f"{str(said)!r}"
        raise SeatCountError(f"option seats {shown}, but {seats} players play: the players "
                             "are the bots seated (`seats:` in a tournament's config, as many "
                             "bots in `arena play`), not an option")
    if any(option.name == SEATS_OPTION for option in game.info.options):
        given[SEATS_OPTION] = seats
    return game.info.resolve_options(given)


def check_seat_count(game: Game, seats: int) -> None:
    info = game.info
    if not info.min_seats <= seats <= info.max_seats:
        allowed = (str(info.min_seats) if info.min_seats == info.max_seats
                   else f"{info.min_seats} to {info.max_seats}")
        raise SeatCountError(f"{info.name} is played by {allowed} players, not {seats}")


def _start_players(game: Game, players: Sequence[Player], seed: int,
                   options: Mapping[str, Any], time_limit: float | None,
                   seat_order: int) -> None:
    failed: list[tuple[int, str, str]] = []
    for seat, player in enumerate(players):  # every seat: each that cannot start loses
        info = PlayerInfo(game.info.name, dict(options), seat, len(players),
                          bot_seed(seed, seat, seat_order), time_limit)
        try:
            call_hook(player, "start", info)
        except PlayerFailure as failure:
            failed.append((seat, failure.status, failure.detail))
        except Exception as exc:
            failed.append((seat, CRASH, raised_text("start", exc)))
    if failed:
        raise Forfeit(*failed[0], others=failed[1:])


@dataclass
class Clock:
    """Per-decision limit plus a per-game bank for each seat (Kaggle's overage time)."""

    limit: float | None
    banks: list[float]

    def time_left(self, seat: int) -> float | None:
        return None if self.limit is None else self.limit + max(0.0, self.banks[seat])

    def charge(self, seat: int, seconds: float) -> None:
        """Take what a decision used beyond the limit from the bank; Forfeit when it is out."""
        if self.limit is None or seconds <= self.limit:
            return
        self.banks[seat] -= seconds - self.limit
        if self.banks[seat] < 0:
            raise Forfeit(seat, TIMEOUT, f"took {seconds:.3f} s for a decision "
                                         f"(limit {self.limit} s, time bank used up)")


def _play_out(game: Game, state: State, players: Sequence[Player], seed: int,
              moves: list[Move], clock: Clock,
              on_move: Callable[[State, Move], None] | None) -> None:
    # One flat loop: at tens of thousands of steps a second, a function call per
    # step is a noticeable share of the referee's time.
    roll = DiceStream(seed).roll
    record = moves.append
    name = game.info.name
    timed = clock.limit is not None
    view = LazyState(state)
    while True:
        seat = state.current_seat
        if seat == CHANCE_SEAT:
            action: Action = state.apply_roll(roll(state.chance_request()))
            move = _new_tuple(Move, (CHANCE_SEAT, str(action), 0.0))
        elif seat < 0:
            return
        else:
            legal = state.legal_actions()
            if type(legal) is not tuple:
                legal = tuple(legal)
            observation = _new_tuple(Observation, (
                name, seat, view, legal, clock.time_left(seat) if timed else None))
            unshared = (_refcount(observation), _refcount(view))
            started = perf_counter()
            try:
                reply = players[seat].act(observation)
            except PlayerFailure as failure:
                raise Forfeit(seat, failure.status, failure.detail) from None
            except Exception as exc:
                raise Forfeit(seat, CRASH, raised_text("act", exc)) from None
            seconds = perf_counter() - started
            if (_refcount(observation), _refcount(view)) != unshared:
                view.freeze()
                view = LazyState(state)
            elif view.built:
                view = LazyState(state)
            if timed:
                clock.charge(seat, seconds)
            for action in legal:  # the common case: one of the offered objects itself
                if action is reply:
                    break
            else:
                action = _legal_reply(game, legal, reply, seat)
            state.apply(action)
            move = _new_tuple(Move, (seat, str(action), seconds))
        record(move)
        if on_move is not None:
            on_move(state, move)


# The observation's state is a lazy view of the live state, not a copy (copying
# would cost the referee more than the whole rest of a step). A player that kept
# the observation or its state past act() holds a reference, which CPython's
# reference counts show: counted just before and just after act(), at the same
# place in the loop, they differ. The view is then frozen before the state moves
# on, and the next decision gets a new one; so does one after a decision that
# read it. Without reference counts, each call gives a new number, so every view
# is frozen.
_fresh_numbers = itertools.count()
_refcount: Callable[[object], int] = getattr(
    sys, "getrefcount", lambda obj: next(_fresh_numbers))
# Move and Observation are NamedTuples; tuple.__new__ skips their Python-level
# constructors on the hot path.
_new_tuple = tuple.__new__


def _legal_reply(game: Game, legal: Sequence[Action], reply: object, seat: int) -> Action:
    """The legal action ``reply`` names, or Forfeit with ``illegal-action``."""
    if isinstance(reply, str):  # a bot process answers with a string
        found = _named(legal, reply)
        if found is None:
            try:
                found = _named(legal, str(game.parse_action(reply)))
            except InvalidActionError as exc:
                raise Forfeit(seat, ILLEGAL_ACTION, str(exc)) from None
    else:
        found = next((a for a in legal if type(reply) is type(a) and reply == a), None)
    if found is None:
        raise Forfeit(seat, ILLEGAL_ACTION, f"{_safe_repr(reply)} is not a legal action here")
    return found


def _named(legal: Sequence[Action], text: str) -> Action | None:
    """The legal action whose canonical string is ``text``."""
    return next((action for action in legal if str(action) == text), None)


def _safe_repr(value: object) -> str:
    try:
        text = str(value) if isinstance(value, str) else repr(value)
    except Exception:
        text = f"<unprintable {type(value).__name__}>"
    return repr(text[:200]) if isinstance(value, str) else text[:200]


def forfeit_outcome(state: State, loser: int | Sequence[int], reason: str) -> Outcome:
    """``loser`` is ranked last (several losers, bots that could not start, share the last
    place); the others by their standing when the game stopped."""
    losers = {loser} if isinstance(loser, int) else set(loser)
    scores = tuple(float(s) for s in state.scores())
    others = [s for seat, s in enumerate(scores) if seat not in losers]
    other_ranks = iter(ranks_from_scores(others))
    ranks = tuple(len(scores) - len(losers) if seat in losers else next(other_ranks)
                  for seat in range(len(scores)))
    return Outcome(ranks, scores, reason)


def _end_quietly(player: Player, outcome: Outcome) -> None:
    # The game is decided; a failing end() hook cannot change it.
    with contextlib.suppress(Exception):
        call_hook(player, "end", outcome)
