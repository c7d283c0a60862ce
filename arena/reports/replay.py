"""Replays others can read: one game as versioned JSON (``docs/replays.md``), files of them,
and the game viewer's data for any such file.

A replay is a plain JSON object: the format's name and version, the game and its
options, the seed (``null`` while a secret seed is kept), the seats with each bot's
identity and how its game ended, every roll and decision in order (a decision with
its time), the outcome, and where the game stands in its tournament::

    >>> import arena
    >>> bots = [arena.load_bot(f"bots/seasons/{name}.py").player
    ...         for name in ("greedy", "random_bot")]
    >>> record = arena.play_game("seasons", bots, seed=7)
    >>> data = to_replay(record)
    >>> data["format"], data["version"], data["seed"], data["moves"][0]
    ('arena-replay', 1, 7, {'roll': 'dice:2,1,3'})
    >>> again = from_replay(data)
    >>> again.ranks == record.ranks, to_replay(again) == data
    (True, True)

:func:`from_replay` checks a replay first (:func:`check_replay`): a malformed one raises
ReplayError naming where it is and what is wrong. What a game record does not hold
(revisions, tournament, times) travels in its ``meta`` under ``"replay"``, so a replay
read and written again is the same. Files are JSON Lines (``.jsonl``, one replay a line),
a ``.json`` file of one replay or a list of them, or a folder of ``.json`` files;
:func:`read_replays` streams them, :func:`write_replay_lines` and
:func:`write_replay_folder` write them as they come. :func:`replay_view` has a
file's games ready for the report's game viewer (``arena view`` renders them; the
positions are computed here, by the rules: the page runs none).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import math
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from arena.bots.identity import BotIdentity, revision_labels
from arena.games import MODULES, find_game
from arena.games.base import CHANCE_SEAT, ArenaError, State
from arena.referee.dice import DiceStream
from arena.referee.match import SEATS_OPTION, SeatCountError, check_seat_count, forfeit_outcome
from arena.referee.record import (
    SEAT_STATUSES,
    GameRecord,
    Move,
    SeatRecord,
    failed_seats,
    replay,
)
from arena.reports import viewer
from arena.reports.model import Bot, bot_colour
from arena.reports.written import own_folder, write_text
from arena.results.store import GameRow, Store, TournamentRow


def _arena_version() -> str:
    """arena's version, as installed (the package itself is the facade: not imported here)."""
    try:
        return importlib.metadata.version("arena")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


FORMAT = "arena-replay"
VERSION = 1
"""The replay format's version: readers refuse a newer one (a change that would mislead
an older reader bumps it; new keys that readers may ignore do not)."""
META_KEY = "replay"
"""Where a record read from a replay keeps what only the replay holds."""
ARENA_VERSION = _arena_version()
SECONDS_DIGITS = 6
"""Decision times are written to the microsecond."""
ISOLATIONS = ("sandbox", "process", "none")


class ReplayError(ArenaError, ValueError):
    """Data or a file that is not a replay of this format; the message says where and why."""


@dataclass(frozen=True)
class StoredPlace:
    """Where a stored game stands: its tournament, key, number (from 1, schedule order, as in
    ``games.csv`` and the report's viewer) and schedule slot, and when it finished."""

    tournament: str
    key: str
    number: int
    round: int
    table: int
    set: int
    rotation: int
    finished: str | None = None
    """ISO 8601 time in UTC, to the second."""
    duration: float | None = None
    """Seconds the game took to play."""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.tournament, "key": self.key, "number": self.number,
                "round": self.round, "table": self.table, "set": self.set,
                "rotation": self.rotation}


# -- record -> replay ------------------------------------------------------------------


def to_replay(record: GameRecord, *, seed_shown: bool | None = None,
              bots: Sequence[BotIdentity | None] | None = None,
              labels: Sequence[str | None] | None = None, place: StoredPlace | None = None,
              details: bool = True) -> dict[str, Any]:
    """The replay of ``record`` as a JSON-ready dict.

    ``seed_shown=False`` writes the seed as ``null`` (a secret seed still kept); ``bots``
    gives each seat's stored identity (its code hash is the seat's ``revision``) and
    ``labels`` each seat's stored label; ``place`` where the game stands in its tournament.
    What is not given comes from a record read from a replay (its ``meta``), else is
    ``null``. ``details=False`` leaves out the failed seats' tracebacks and stderr.
    """
    kept: Mapping[str, Any] = record.meta.get(META_KEY, {})
    seats = len(record.seats)
    revisions = ([bot.code_hash if bot else None for bot in bots] if bots is not None
                 else list(kept.get("revisions", [None] * seats)))
    shown_labels = list(labels) if labels is not None else list(
        kept.get("labels", [None] * seats))
    shown = seed_shown if seed_shown is not None else kept.get("seed_shown", True)
    return {
        "format": FORMAT, "version": VERSION, "arena": kept.get("arena", ARENA_VERSION),
        "game": record.game, "options": dict(record.options),
        "seed": record.seed if shown else None,
        "seats": [_seat_json(seat, revisions[i], shown_labels[i], details)
                  for i, seat in enumerate(record.seats)],
        "moves": [_move_json(move) for move in record.moves],
        "outcome": {"ranks": list(record.ranks), "scores": list(record.scores),
                    "termination": record.termination},
        "tournament": place.to_json() if place else kept.get("tournament"),
        "finished": place.finished if place else kept.get("finished"),
        "duration": place.duration if place else kept.get("duration"),
    }


def _seat_json(seat: SeatRecord, revision: str | None, label: str | None,
               details: bool) -> dict[str, Any]:
    return {"name": seat.name, "version": seat.version, "revision": revision or None,
            "label": label or None, "isolation": seat.isolation or None,
            "status": seat.status, "detail": seat.detail if details else ""}


def _move_json(move: Move) -> dict[str, Any]:
    if move.seat == CHANCE_SEAT:
        return {"roll": move.action}
    return {"seat": move.seat, "action": move.action,
            "seconds": round(move.seconds, SECONDS_DIGITS)}


# -- checking ---------------------------------------------------------------------------


def check_replay(data: Any) -> None:
    """Raise ReplayError (``seats[1].status: ...``) unless ``data`` is a replay of this
    format (docs/replay.schema.json says the same; this check needs no library), its
    moves legal by the game's rules (replayed through the engine, as :func:`arena.replay`
    would: ``moves[12].action: 'place:max-99' is not legal here ...``)."""
    obj = _object(data, "the replay")
    if "format" not in obj and {"game", "seats", "moves"} <= obj.keys():
        raise ReplayError("a game record as `arena play --json` writes it, not a replay: "
                          "`arena export` writes a tournament's games as replays")
    if obj.get("format") != FORMAT:
        shown = repr(obj["format"]) if "format" in obj else "missing"
        raise ReplayError(f"format: {shown}, not {FORMAT!r} (not an arena replay)")
    version = obj.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ReplayError(f"version: {version!r} is not a version number")
    if version > VERSION:
        raise ReplayError(f"version: {version} is newer than this arena reads ({VERSION}); "
                          "update arena")
    if not isinstance(obj.get("game"), str) or obj["game"] not in MODULES:
        raise ReplayError(f"game: {obj.get('game')!r} is not one of {', '.join(MODULES)}")
    if "arena" in obj:
        _text(obj["arena"], "arena")
    _object(obj.get("options"), "options")
    if "seed" not in obj:
        raise ReplayError("seed: missing (the game seed, or null where it is kept secret)")
    seed = obj["seed"]
    if seed is not None and not _is_int(seed):
        raise ReplayError(f"seed: {seed!r} is neither an integer nor null")
    seats = _list(obj.get("seats"), "seats")
    if not seats:
        raise ReplayError("seats: there are none")
    for index, seat in enumerate(seats):
        _check_seat(seat, f"seats[{index}]")
    try:
        check_seat_count(find_game(obj["game"]), len(seats))
    except SeatCountError as exc:
        raise ReplayError(f"seats: {len(seats)}, but {exc}") from None
    moves = _list(obj.get("moves"), "moves")
    for index, move in enumerate(moves):
        _check_move(move, f"moves[{index}]", len(seats))
    _check_outcome(obj.get("outcome"), len(seats))
    _check_optional(obj)
    state = _check_play(obj["game"], obj["options"], moves, len(seats), seed)
    _check_end(state, seats, obj["outcome"], bool(moves))


def _check_play(name: str, options: Mapping[str, Any], moves: Sequence[Mapping[str, Any]],
                seats: int, seed: int | None) -> State:
    """Replay the moves through the game's rules: each one legal where it stands (a roll at
    a chance node, one of its outcomes, the one the dice stream of ``seed`` rolls where
    the seed is given; a decision by the seat to act, one of its legal actions), none
    after the end; the state they reach."""
    game = find_game(name)
    try:
        state = game.initial_state(options)
    except (ArenaError, ValueError, TypeError, KeyError) as exc:
        raise ReplayError(f"options: {exc}") from None
    if len(state.scores()) != seats:
        said = ("" if SEATS_OPTION in options else
                f" (options.{SEATS_OPTION} is missing: {len(state.scores())} is its default)")
        raise ReplayError(f"seats: {seats} seats, but this {name} game has "
                          f"{len(state.scores())}{said}")
    roll = None if seed is None else DiceStream(seed).roll
    for index, move in enumerate(moves):
        where = f"moves[{index}]"
        if state.is_terminal:
            raise ReplayError(f"{where}: the game is over after {index} moves")
        if "roll" in move:
            text = move["roll"]
            if not state.is_chance_node():
                raise ReplayError(f"{where}.roll: {text!r}, but seat {state.current_seat} "
                                  "is to decide, not the dice")
            legal = {str(dice): dice for dice, _ in state.chance_outcomes()}
            kind = "roll"
        else:
            text = move["action"]
            if state.is_chance_node():
                raise ReplayError(f"{where}.action: {text!r}, but the dice are to roll")
            if move["seat"] != state.current_seat:
                raise ReplayError(f"{where}.seat: {move['seat']}, but seat "
                                  f"{state.current_seat} is to act")
            legal = {str(action): action for action in state.legal_actions()}
            kind = "action"
        if text not in legal:
            shown = ", ".join(sorted(legal)[:12]) + (", ..." if len(legal) > 12 else "")
            raise ReplayError(f"{where}.{kind}: {text!r} is not legal here (legal: {shown})")
        if kind == "roll" and roll is not None:
            rolled = str(state.chance_action(roll(state.chance_request())))
            if text != rolled:
                raise ReplayError(f"{where}.roll: {text!r}, but the dice of seed {seed} roll "
                                  f"{rolled!r} here")
        state.apply(legal[text])
    return state


def _check_end(state: State, seats: Sequence[Mapping[str, Any]],
               outcome: Mapping[str, Any], moves: bool) -> None:
    """The outcome is the one the moves reach: the rules' at the end of the game; before it,
    a seat's failure, that seat's status, the failed seat last and the others by their
    standing (as the referee decides it), the failed seat the one to decide where the
    ``moves`` stop (a bot that fails to start fails before any)."""
    statuses = [seat["status"] for seat in seats]
    failed = failed_seats(statuses)
    termination = outcome["termination"]
    if state.is_terminal:
        if failed:
            raise ReplayError(f"seats[{failed[0]}].status: {statuses[failed[0]]!r}, but the "
                              "game was played to its end")
        expected = state.outcome()
    else:
        if not failed or (moves and len(failed) > 1):
            raise ReplayError("outcome: the moves stop before the end of the game, so one "
                              f"seat must have failed (statuses: {', '.join(statuses)}; "
                              "several only where no move was made: bots that could not "
                              "start)")
        loser = failed[0]
        if moves and (state.is_chance_node() or state.current_seat != loser):
            acting = ("the dice are to roll" if state.is_chance_node()
                      else f"seat {state.current_seat} is to act")
            raise ReplayError(f"seats[{loser}].status: {statuses[loser]!r}, but where the "
                              f"moves stop {acting}: a seat fails at its own decision (or "
                              "before the first move)")
        if termination != statuses[loser]:
            raise ReplayError(f"outcome.termination: {termination!r}, but seat {loser} ended "
                              f"with {statuses[loser]!r}")
        expected = forfeit_outcome(state, failed, termination)
    if termination != expected.termination:
        raise ReplayError(f"outcome.termination: {termination!r}, but the moves end the game "
                          f"with {expected.termination!r}")
    for key, given, found in (("ranks", outcome["ranks"], expected.ranks),
                              ("scores", outcome["scores"], expected.scores)):
        if list(given) != list(found):
            raise ReplayError(f"outcome.{key}: {list(given)}, but the moves give "
                              f"{list(found)}")


def _check_seat(data: Any, where: str) -> None:
    seat = _object(data, where)
    for key in ("name", "version"):
        _text(seat.get(key), f"{where}.{key}")
    for key in ("revision", "label"):
        if seat.get(key) is not None:
            _text(seat.get(key), f"{where}.{key}")
    if seat.get("isolation") not in (*ISOLATIONS, None):
        raise ReplayError(f"{where}.isolation: {seat.get('isolation')!r} is not one of "
                          f"{', '.join(ISOLATIONS)} or null")
    if seat.get("status") not in SEAT_STATUSES:
        raise ReplayError(f"{where}.status: {seat.get('status')!r} is not one of "
                          f"{', '.join(SEAT_STATUSES)}")
    if "detail" in seat:
        _text(seat["detail"], f"{where}.detail", empty=True)


def _check_move(data: Any, where: str, seats: int) -> None:
    move = _object(data, where)
    if "roll" in move:
        if "seat" in move:
            raise ReplayError(f"{where}: a roll has no seat (the dice are nobody's move)")
        if not _text(move["roll"], f"{where}.roll").startswith("dice:"):
            raise ReplayError(f"{where}.roll: {move['roll']!r} is not dice:…")
        return
    seat: Any = move.get("seat")
    if not _is_int(seat) or not 0 <= seat < seats:
        raise ReplayError(f"{where}.seat: {seat!r} is not a seat (0 to {seats - 1}); a move "
                          "is {\"roll\": ...} or {\"seat\": ..., \"action\": ..., "
                          "\"seconds\": ...}")
    _text(move.get("action"), f"{where}.action")
    _seconds(move.get("seconds", 0.0), f"{where}.seconds")


def _check_outcome(data: Any, seats: int) -> None:
    outcome = _object(data, "outcome")
    ranks, scores = _list(outcome.get("ranks"), "outcome.ranks"), _list(
        outcome.get("scores"), "outcome.scores")
    for key, values in (("ranks", ranks), ("scores", scores)):
        if len(values) != seats:
            raise ReplayError(f"outcome.{key}: {len(values)} values for {seats} seats")
    if not all(_is_int(rank) and 0 <= rank < seats for rank in ranks):
        raise ReplayError(f"outcome.ranks: {ranks!r} are not ranks (0 = best)")
    if not all(_is_number(score) for score in scores):
        raise ReplayError(f"outcome.scores: {scores!r} are not all numbers")
    _text(outcome.get("termination"), "outcome.termination")


def _check_optional(obj: Mapping[str, Any]) -> None:
    place = obj.get("tournament")
    if place is not None:
        where = "tournament"
        fields = _object(place, where)
        _text(fields.get("name"), f"{where}.name")
        _text(fields.get("key"), f"{where}.key")
        for key in ("number", "round", "table", "set", "rotation"):
            least = 1 if key == "number" else 0
            if not _is_int(fields.get(key)) or fields[key] < least:
                raise ReplayError(f"{where}.{key}: {fields.get(key)!r} is not an integer "
                                  f"from {least}")
        key = "r{round}-t{table}-s{set}-o{rotation}".format(**fields)
        if fields["key"] != key:
            raise ReplayError(f"{where}.key: {fields['key']!r}, but its round, table, set "
                              f"and rotation make {key!r}")
    finished = obj.get("finished")
    if finished is not None:
        if not _FINISHED.fullmatch(_text(finished, "finished")):
            raise ReplayError(f"finished: {finished!r} is not an ISO 8601 time with its date "
                              "and offset (2025-06-01T12:00:00Z)")
        try:
            datetime.datetime.fromisoformat(finished.replace("Z", "+00:00"))
        except ValueError:
            raise ReplayError(f"finished: {finished!r} is not an ISO 8601 time") from None
    if obj.get("duration") is not None:
        _seconds(obj["duration"], "duration")


_FINISHED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?"
                       r"(Z|[+-][0-9]{2}:[0-9]{2})")
"""The schema's pattern of ``finished``."""


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ReplayError(f"{where}: expected an object, found {_kind(value)}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ReplayError(f"{where}: expected a list, found {_kind(value)}")
    return value


def _text(value: Any, where: str, *, empty: bool = False) -> str:
    if not isinstance(value, str) or (not value and not empty):
        raise ReplayError(f"{where}: expected a{'' if empty else ' non-empty'} string, found "
                          f"{_kind(value)}")
    return value


def _seconds(value: Any, where: str) -> None:
    if not _is_number(value) or value < 0:
        raise ReplayError(f"{where}: {value!r} is not a number of seconds")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    """An integer or a float that is a finite float (10**400 is too large for one)."""
    if _is_int(value):
        return bool(abs(value) <= sys.float_info.max)  # compared exactly, without overflow
    return isinstance(value, float) and math.isfinite(value)


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "an integer", float: "a number", type(None): "null"}
    shown = repr(value) if isinstance(value, (str, int, float)) and len(repr(value)) < 40 \
        else ""
    return names.get(type(value), type(value).__name__) + (f" ({shown})" if shown else "")


# -- replay -> record ---------------------------------------------------------------------


def from_replay(data: Any) -> GameRecord:
    """The game record of a replay (checked first: ReplayError if it is not one). A ``null``
    seed reads as 0 (the record's ``meta`` says it was not shown)."""
    check_replay(data)
    outcome = data["outcome"]
    return GameRecord(
        game=data["game"], options=dict(data["options"]),
        seed=data["seed"] if data["seed"] is not None else 0,
        seats=tuple(SeatRecord(s["name"], s["version"], s["status"], s.get("detail", ""),
                               s.get("isolation") or "") for s in data["seats"]),
        moves=tuple(Move(CHANCE_SEAT, m["roll"]) if "roll" in m
                    else Move(m["seat"], m["action"], float(m.get("seconds", 0.0)))
                    for m in data["moves"]),
        ranks=tuple(outcome["ranks"]), scores=tuple(float(s) for s in outcome["scores"]),
        termination=outcome["termination"], meta={META_KEY: _kept(data)})


def _kept(data: Mapping[str, Any]) -> dict[str, Any]:
    """What only the replay holds, for :func:`to_replay` to write back."""
    return {"seed_shown": data["seed"] is not None, "arena": data.get("arena", ARENA_VERSION),
            "revisions": [s.get("revision") for s in data["seats"]],
            "labels": [s.get("label") for s in data["seats"]],
            "tournament": data.get("tournament"), "finished": data.get("finished"),
            "duration": data.get("duration")}


# -- the store ------------------------------------------------------------------------------


def stored_replays(store: Store, tournament: TournamentRow, *, details: bool = True
                   ) -> Iterator[dict[str, Any]]:
    """The replays of the tournament's (or ladder's) games in schedule order, one at a time.
    The seed is ``null`` while the tournament keeps a secret seed (it is not complete)."""
    seed_shown = not tournament.secret or tournament.status == "complete"
    entrants: list[int] = []
    bots: dict[int, Any] = {}
    for number, row in enumerate(store.games(tournament.id), 1):
        if max(row.seats, default=-1) >= len(entrants):
            entrants = store.entrants(tournament.id)  # a ladder's entrants grow
        seated = [bots.setdefault(entrants[p], store.bot(entrants[p])) for p in row.seats]
        place = StoredPlace(tournament.name, row.key, number, row.round, row.table, row.set,
                            row.rotation, _iso_time(row.finished), round(row.duration, 3))
        record = _with_details(store.record(tournament.id, row.key), row)
        yield to_replay(record, seed_shown=seed_shown, bots=[b.identity for b in seated],
                        labels=[b.label for b in seated], place=place, details=details)


def _iso_time(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    when = datetime.datetime.fromtimestamp(timestamp, datetime.timezone.utc)
    return when.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _with_details(record: GameRecord, row: GameRow) -> GameRecord:
    """The record with each failed seat's detail (older records keep it in the row only)."""
    seats = tuple(
        SeatRecord(s.name, s.version, s.status, s.detail or (
            row.details[i] if i < len(row.details) else ""), s.isolation)
        for i, s in enumerate(record.seats))
    return GameRecord(record.game, record.options, record.seed, seats, record.moves,
                      record.ranks, record.scores, record.termination, record.meta)


# -- files ------------------------------------------------------------------------------------


def replay_line(data: Mapping[str, Any]) -> str:
    """One replay as a line of JSON Lines (compact, UTF-8 as it is, no trailing newline)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def write_replay_lines(out: IO[str], replays: Iterable[Mapping[str, Any]]) -> int:
    """Write replays to ``out`` as JSON Lines, each as it comes; return how many."""
    count = 0
    for data in replays:
        out.write(replay_line(data) + "\n")
        count += 1
    return count


def replay_file_name(data: Mapping[str, Any], index: int) -> str:
    """``0003-r0-t1-s0-o1.json``: the game's number and key, or its place in the stream."""
    place = data.get("tournament") or {}
    number = place.get("number", index)
    key = "".join(c if c.isalnum() or c in "-_" else "_" for c in str(place.get("key", "")))
    return f"{number:04d}-{key}.json" if key else f"{number:04d}.json"


def write_replay_folder(folder: Path, replays: Iterable[Mapping[str, Any]]) -> int:
    """Write each replay into ``folder`` as a file of its own (:func:`replay_file_name`,
    indented JSON); return how many."""
    own_folder(folder)
    count = 0
    for count, data in enumerate(replays, 1):
        text = json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False)
        write_text(folder / replay_file_name(data, count), text + "\n")
    return count


def read_replays(path: str | Path) -> Iterator[tuple[str, GameRecord]]:
    """(where, record) for each replay in ``path``, one at a time: a JSON Lines file
    (``.jsonl``), a ``.json`` file holding one replay or a list of them, or a folder of
    ``.json`` files (by name). ``where`` is ``file, line 3`` or ``file, replay 2``.
    ReplayError names the file, line (or replay) and problem of the first bad one."""
    path = Path(path)
    if path.is_dir():
        for item in sorted(path.glob("*.json")):
            yield from _read_json_file(item)
    elif not path.exists():
        raise ReplayError(f"{path}: no such file or folder")
    elif path.suffix == ".jsonl":
        yield from _read_lines(path)
    else:
        yield from _read_json_file(path)


def _read_lines(path: Path) -> Iterator[tuple[str, GameRecord]]:
    with open(path, encoding="utf-8") as lines:
        try:
            for number, line in enumerate(lines, 1):
                if line.strip():
                    where = f"{path}, line {number}"
                    yield where, _record(where, _json(where, line))
        except UnicodeDecodeError as exc:
            raise ReplayError(f"{path}: not UTF-8 text ({exc.reason})") from None


def _read_json_file(path: Path) -> Iterator[tuple[str, GameRecord]]:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{path}: not UTF-8 text ({exc.reason})") from None
    data = _json(str(path), text)
    if isinstance(data, list):
        for index, item in enumerate(data, 1):
            where = f"{path}, replay {index}"
            yield where, _record(where, item)
    else:
        yield str(path), _record(str(path), data)


def _json(where: str, text: str) -> Any:
    """``text`` as JSON; ReplayError names where and on which line it is not."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        place = f", line {exc.lineno}" if ", line" not in where else ""
        raise ReplayError(f"{where}{place}: not JSON ({exc.msg}, column {exc.colno})") \
            from None
    except RecursionError:
        raise ReplayError(f"{where}: nested too deeply to be a replay") from None
    except ValueError as exc:  # a number of more digits than Python converts
        raise ReplayError(f"{where}: not a replay ({exc})") from None


def _record(where: str, data: Any) -> GameRecord:
    """A replay's record; a game record as ``arena play --json`` writes it is taken once it
    passes a replay's checks (the rules replay its moves, its dice are its seed's, its
    outcome and statuses are its moves')."""
    try:
        if isinstance(data, dict) and "format" not in data and \
                {"game", "seats", "moves"} <= data.keys():
            return _played_record(data)
        return from_replay(data)
    except ReplayError as exc:
        raise ReplayError(f"{where}: {exc}") from None


def _played_record(data: dict[str, Any]) -> GameRecord:
    try:
        record = GameRecord.from_json(data)
        state = replay(record)
        seats = len(state.outcome().ranks) if state.is_terminal else 1 + max(
            [move.seat for move in record.moves] + [0])
        if (state.is_terminal and seats != len(record.seats)) or seats > len(record.seats):
            raise ReplayError(f"{len(record.seats)} seats for a game of {seats} players")
        if record.termination == "normal" and not state.is_terminal:
            raise ReplayError("its moves stop before the end, yet it says it ended normally")
        check_replay(to_replay(record))  # its outcome, statuses and dice as a replay's
    except (ArenaError, ValueError, KeyError, TypeError, IndexError,
            OverflowError) as exc:
        raise ReplayError(f"a game record as `arena play --json` writes it, but {exc}"
                          ) from None
    return record


# -- the viewer's games ---------------------------------------------------------------------


@dataclass
class ReplayView:
    """The games of a replay file as the report's game viewer takes them (what
    ``arena view`` renders): some of them, of one game and board."""

    game: str
    bots: tuple[Bot, ...]
    """Every bot identity (name, version, revision) met, as entrants by first appearance."""
    labels: list[str]
    """The bots' labels: each revision's (:func:`_bot_label`)."""
    layout: dict[str, Any]
    games: list[dict[str, Any]]
    """The viewer's data of each game (:func:`viewer.game_view`), numbered from 1."""
    rows: list[GameRow]
    seeds: list[str]
    """Each game's seed as shown: ``secret`` where the replay has none."""
    places: list[Mapping[str, Any]]
    """Each game's tournament place (empty where it has none)."""
    total: int
    """Games in the file (the view holds some of them, from game :attr:`first` on)."""
    first: int = 1


@dataclass
class _Games:
    rows: list[GameRow]
    records: dict[str, GameRecord]
    bots: list[tuple[str, str, str]]
    labels: list[str]
    seeds: list[str]
    total: int = 0


def replay_view(path: str | Path, *, max_games: int | None = None, start: int = 1
                ) -> ReplayView:
    """The viewer's data of the games of the replay file ``path`` (anything
    :func:`read_replays` reads): ``max_games`` (default :data:`viewer.PART_GAMES`, within
    :data:`viewer.PART_MOVES`) from its game number ``start`` on, replayed by the rules here,
    so the page runs none. ReplayError for a bad or empty file, one of mixed games (a page's
    board is drawn once), or a ``start`` past its end."""
    limit = viewer.PART_GAMES if max_games is None else max_games
    games = _collect(path, limit, start - 1)
    if not games.rows:
        raise ReplayError(f"{path}: holds no replays" if games.total == 0 else
                          f"{path}: holds {games.total} games, none from game {start} on")
    shown = list(viewer.shown_rows(games.rows, max_games=limit))
    first = games.records[shown[0].key]
    bots = tuple(Bot(i, i, BotIdentity(name, games.labels[i][len(name) + 1:], revision, ""),
                     bot_colour(i))  # shown as the report shows it: its version + revision
                 for i, (name, _version, revision) in enumerate(games.bots))
    views = viewer.viewer_games(games.records.__getitem__, shown,
                                range(start, start + len(shown)), start, labels=games.labels)
    places = [games.records[row.key].meta.get(META_KEY, {}).get("tournament") or {}
              for row in shown]
    return ReplayView(first.game, bots, games.labels, viewer.layout(first), views, shown,
                      games.seeds[:len(shown)], places, games.total, start)


def _collect(path: str | Path, limit: int, skip: int = 0) -> _Games:
    """Read the file, keeping ``limit`` games after the first ``skip`` and counting all."""
    games = _Games([], {}, [], [], [])
    kind: tuple[str, str] | None = None
    for where, record in read_replays(path):
        games.total += 1
        if games.total <= skip or len(games.rows) >= limit:
            continue
        this = (record.game, str(record.options.get("board", "")))
        if kind is not None and this != kind:
            raise ReplayError(f"{where}: a {_kind_text(this)} game after {_kind_text(kind)} "
                              "games; a page shows games of one game and board, so view them "
                              "in files of their own")
        kind = this
        _add_game(games, record)
    return games


def _kind_text(kind: tuple[str, str]) -> str:
    return f"{kind[0]} (board {kind[1]})" if kind[1] else kind[0]


def _add_game(games: _Games, record: GameRecord) -> None:
    kept: Mapping[str, Any] = record.meta.get(META_KEY, {})
    revisions = kept.get("revisions") or [None] * len(record.seats)
    seats = []
    for seat, revision in zip(record.seats, revisions, strict=False):
        identity = (seat.name, seat.version, revision or "")
        if identity not in games.bots:
            games.bots.append(identity)
            games.labels.append(_bot_label(games.labels, identity))
        seats.append(games.bots.index(identity))
    number = len(games.rows) + 1
    place = kept.get("tournament") or {}
    key = str(place.get("key") or f"game-{number}")
    key = key if key not in games.records else f"{key}#{number}"
    games.records[key] = record
    games.seeds.append(str(record.seed) if kept.get("seed_shown", True) else "secret")
    statuses = tuple(s.status for s in record.seats)
    games.rows.append(GameRow(key, int(place.get("round", 0)), int(place.get("table", 0)),
                              int(place.get("set", 0)), int(place.get("rotation", 0)),
                              record.seed, tuple(seats), record.ranks, record.scores, statuses,
                              record.termination, len(record.moves),
                              float(kept.get("duration") or 0.0)))


def _bot_label(labels: Sequence[str], identity: tuple[str, str, str]) -> str:
    """The revision's label, as everywhere (``name@version+3f2a9c``; ``name@version`` where
    the replay names no revision), made unique among ``labels``."""
    name, version, revision = identity
    for label in revision_labels(name, version, revision):
        if label not in labels:
            return label
    return f"{name}@{version} #{len(labels) + 1}"


__all__ = [
    "FORMAT", "VERSION", "ReplayError", "ReplayView", "StoredPlace", "check_replay",
    "from_replay", "read_replays", "replay_line", "replay_view", "stored_replays", "to_replay",
    "write_replay_folder", "write_replay_lines",
]
