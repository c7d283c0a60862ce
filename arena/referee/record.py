"""Game records: a finished game as frozen, JSON-ready data that replays exactly."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import TYPE_CHECKING, Any, NamedTuple

from arena.games import find_game
from arena.games.base import ArenaError, Game, IllegalActionError, Outcome, State

if TYPE_CHECKING:
    from arena.games.base import State

OK = "ok"
CRASH = "crash"
TIMEOUT = "timeout"
ILLEGAL_ACTION = "illegal-action"
SEAT_STATUSES = (OK, CRASH, TIMEOUT, ILLEGAL_ACTION)


def failed_seats(statuses: Sequence[str]) -> tuple[int, ...]:
    """The seats whose failure ended a game early (a forfeit: its seats not ``ok``; more than
    one only where bots could not start)."""
    return tuple(seat for seat, status in enumerate(statuses) if status != OK)


@dataclass(frozen=True)
class SeatRecord:
    """Who sat in a seat, how their game ended (``ok`` unless they failed), and how the bot
    was isolated (``sandbox``, ``process``, ``none``; empty where nobody said)."""

    name: str
    version: str
    status: str = OK
    detail: str = ""
    isolation: str = ""

    def to_json(self) -> dict[str, Any]:
        data = {"name": self.name, "version": self.version, "status": self.status,
                "detail": self.detail}
        if self.isolation:
            data["isolation"] = self.isolation
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatRecord:
        return cls(data["name"], data["version"], data.get("status", OK), data.get("detail", ""),
                   data.get("isolation", ""))


class Move(NamedTuple):
    """One step of a game: a seat's decision (with its time) or a chance outcome (seat -1)."""

    seat: int
    action: str
    seconds: float = 0.0

    def to_json(self) -> list[Any]:
        return [self.seat, self.action, self.seconds]

    @classmethod
    def from_json(cls, data: list[Any]) -> Move:
        return cls(int(data[0]), str(data[1]), float(data[2]))


@dataclass(frozen=True)
class GameRecord:
    """Everything needed to replay and judge one game."""

    game: str
    options: Mapping[str, Any]
    seed: int
    seats: tuple[SeatRecord, ...]
    moves: tuple[Move, ...]
    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    termination: str
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def outcome(self) -> Outcome:
        return Outcome(self.ranks, self.scores, self.termination)

    def decision_times(self, seat: int) -> list[float]:
        return [m.seconds for m in self.moves if m.seat == seat]

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "options": dict(self.options),
            "seed": self.seed,
            "seats": [s.to_json() for s in self.seats],
            "moves": [m.to_json() for m in self.moves],
            "ranks": list(self.ranks),
            "scores": list(self.scores),
            "termination": self.termination,
            "meta": dict(self.meta),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameRecord:
        return cls(
            game=data["game"],
            options=dict(data["options"]),
            seed=int(data["seed"]),
            seats=tuple(SeatRecord.from_json(s) for s in data["seats"]),
            moves=tuple(Move.from_json(m) for m in data["moves"]),
            ranks=tuple(int(r) for r in data["ranks"]),
            scores=tuple(float(s) for s in data["scores"]),
            termination=data["termination"],
            meta=dict(data.get("meta", {})),
        )


def replay(record: GameRecord, *, upto: int | None = None) -> State:
    """The state after the first ``upto`` moves of ``record`` (all moves by default); an
    ``upto`` outside 0 to the number of moves is a ValueError. A move that is illegal, or
    that names another seat than the one to act (the dice's, -1, for a roll), is an
    IllegalActionError, as :func:`~arena.reports.replay.check_replay` refuses it."""
    if upto is not None and (isinstance(upto, bool) or not isinstance(upto, Integral)
                             or not 0 <= upto <= len(record.moves)):
        raise ValueError(f"upto: {upto} is not a number of moves of this game "
                         f"(0 to {len(record.moves)})")
    game = find_game(record.game)
    state = game.initial_state(record.options)
    for index, move in enumerate(record.moves[:upto]):
        apply_move(state, game, move, index)
    return state


def apply_move(state: State, game: Game, move: Move, index: int) -> None:
    """Play the record's move number ``index`` (from 0) in ``state``: an IllegalActionError
    if the rules forbid it or it names another seat than the one to act."""
    if state.is_terminal:
        raise IllegalActionError(f"moves[{index}]: the game is over after {index} moves")
    if move.seat != state.current_seat:
        acting = ("the dice are to roll" if state.is_chance_node()
                  else f"seat {state.current_seat} is to act")
        raise IllegalActionError(f"moves[{index}].seat: {move.seat} ({move.action}), but "
                                 f"{acting}")
    state.apply(game.parse_action(move.action))


def game_log(record: GameRecord, names: Sequence[str] | None = None) -> list[str]:
    """The record as its game's readable log, one line per turn, ending with the result;
    the seats named ``names`` (their labels, where revisions of one bot meet), else by
    their bots' names."""
    return find_game(record.game).describe_game(
        record.options, [move.action for move in record.moves], record.outcome,
        list(names) if names is not None else [seat.name for seat in record.seats])


def write_records(path: str, records: Iterable[GameRecord]) -> int:
    """Write records as JSON Lines (one game per line); return how many were written."""
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
            count += 1
    return count


class RecordError(ArenaError, ValueError):
    """A file that does not hold game records."""


def read_records(path: str) -> list[GameRecord]:
    """Read records written by :func:`write_records` (JSON Lines, one game per line)."""
    records = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            data: Any = None
            try:
                data = json.loads(line)
                records.append(GameRecord.from_json(data))
            except (ValueError, KeyError, TypeError, IndexError, OverflowError) as exc:
                if isinstance(data, dict) and "format" in data:
                    raise RecordError(f"{path}, line {number}: a replay as `arena export` "
                                      "writes it, not a game record: read it with "
                                      "arena.read_replays") from None
                raise RecordError(f"{path}, line {number}: not a game record ({exc})") from None
            except RecursionError:
                raise RecordError(f"{path}, line {number}: not a game record (nested too "
                                  "deeply)") from None
    return records
