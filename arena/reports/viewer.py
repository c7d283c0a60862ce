"""The game viewer's data: each game replayed once in Python, stored as compact deltas.

The viewer steps through a game by *moves*, and a move is one line of the game's
log (:func:`arena.referee.record.game_log`, as ``arena play`` prints it): a Seasons
turn (roll, re-roll, placement), a Sonnentau roll and what was played with it.
Move 0 is the start; move ``m`` is the position after log line ``m``, the same
position as ``arena board --move m`` (:func:`position_after`).

A position is a *snapshot*: a flat mapping of short keys to small values (a
Seasons field, a Sonnentau piece's place). Per move the viewer keeps only the keys
that changed, so the browser rebuilds any position by applying the deltas from
the start; no rules run in JavaScript. The Sonnentau board is drawn once
(:func:`arena.games.sonnentau.svg.draw_board` without pieces) and the pieces are
placed over it from the field coordinates given here; the Seasons board is the
two circles of :mod:`arena.reports.seasons_board`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games import find_game
from arena.games.base import ArenaError, Dice, State
from arena.games.seasons.rules import SECTOR_VALUES, SECTORS, SeasonsState, display_sector
from arena.games.sonnentau import svg as sonnentau_svg
from arena.games.sonnentau.board import Board
from arena.games.sonnentau.rules import HIT, HOME, PIECES, START, SonnentauState
from arena.referee.record import GameRecord, game_log, replay
from arena.results.store import GameRow

PART_GAMES = 300
"""Games in one part of the viewer's data at most: the page holds the first part, and each
later part is a script file beside the page, loaded when one of its games is opened."""
PART_MOVES = 40_000
"""Record moves (every action and roll) in one part at most: long games (four-player
Sonnentau runs to hundreds of moves) end a part earlier, which keeps the page and each
file to a few MB and the first part's making to seconds."""
MAX_MOVES = 1_000_000
"""Record moves the viewer holds in all its parts at most (about 16,000 Seasons games):
the games after them are in ``games.csv`` and ``arena export``, not in the viewer."""

Snapshot = dict[str, Any]


# -- snapshots -----------------------------------------------------------------------


_SEASONS_KEYS = tuple((f"a{i}", f"b{i}", f"w{i}") for i in range(len(SECTORS)))


def seasons_snapshot(state: SeasonsState) -> Snapshot:
    """Both circles (``a``: seat 0, ``b``: seat 1; 0 is empty), sector winners (``w``, -1
    while open) and the interim score ``s``. Dice are read from the moves themselves."""
    snap: Snapshot = {"s": list(state.scores())}
    for i, (a_key, b_key, w_key) in enumerate(_SEASONS_KEYS):
        winner = state.winner_of(i)
        snap[a_key], snap[b_key] = state.fields[0][i], state.fields[1][i]
        snap[w_key] = -1 if winner is None else winner
    return snap


def sonnentau_snapshot(state: SonnentauState) -> Snapshot:
    """Each piece's place (key: seat and piece, e.g. ``"13"``; a field index, or START,
    HOME or HIT) and a pending hit ``x`` (seat, piece, field) or None."""
    snap: Snapshot = {"x": list(state.hit) if state.hit is not None else None}
    for seat, places in enumerate(state.pieces):
        for piece, place in enumerate(places):
            snap[f"{seat}{piece}"] = place
    return snap


def _seasons_turn_starts(state: Any, action: Any) -> bool:
    """A Seasons turn (one notation line) starts with its first roll."""
    return isinstance(action, Dice) and not state.dice


def _sonnentau_turn_starts(state: Any, action: Any) -> bool:
    """A Sonnentau notation line is one roll (a doubles re-roll starts a new line)."""
    return isinstance(action, Dice)


SNAPSHOTS: dict[str, Callable[[Any], Snapshot]] = {
    "seasons": seasons_snapshot, "sonnentau": sonnentau_snapshot}
TURN_STARTS: dict[str, Callable[[Any, Any], bool]] = {
    "seasons": _seasons_turn_starts, "sonnentau": _sonnentau_turn_starts}


def delta(before: Mapping[str, Any], after: Mapping[str, Any]) -> Snapshot:
    """The keys of ``after`` whose values differ from ``before``."""
    return {key: value for key, value in after.items() if before.get(key) != value}


# -- one game ------------------------------------------------------------------------


@dataclass(frozen=True)
class LogLine:
    """One line of a game's log as record moves: who plays it and its action strings."""

    seat: int
    """The seat whose turn the line is."""
    actions: tuple[str, ...]
    """The record's action strings of the line, the dice included."""
    end: int
    """How many record moves have been played once the line is over."""


def log_lines(record: GameRecord, *, snapshots: list[Snapshot] | None = None,
              ) -> list[LogLine]:
    """The record's moves cut into its log lines; with ``snapshots``, the position at the
    start and after each line is appended to it."""
    game = find_game(record.game)
    snapshot, starts = SNAPSHOTS[record.game], TURN_STARTS[record.game]
    state: Any = game.initial_state(record.options)
    lines: list[LogLine] = []
    seat, actions = -1, list[str]()

    def close_line(end: int) -> None:
        lines.append(LogLine(seat, tuple(actions), end))
        if snapshots is not None:
            snapshots.append(snapshot(state))

    if snapshots is not None:
        snapshots.append(snapshot(state))
    for index, move in enumerate(record.moves):
        action = game.parse_action(move.action)
        if starts(state, action) or not actions:
            if actions:
                close_line(index)
            seat, actions = int(state.seat), []
        actions.append(move.action)
        state.apply(action)
    if actions:
        close_line(len(record.moves))
    return lines


def position_after(record: GameRecord, move: int) -> State:
    """The state after ``move`` moves (log lines) of ``record``, the viewer's move ``move``."""
    lines = log_lines(record)
    if not 0 <= move <= len(lines):
        raise ArenaError(f"the game has {len(lines)} moves, not {move}")
    return replay(record, upto=lines[move - 1].end if move else 0)


Labels = Sequence[str] | Mapping[int, str]
"""Each entrant's label, by its position in the tournament."""


def game_view(record: GameRecord, row: GameRow, number: int,
              labels: Labels | None = None) -> dict[str, Any]:
    """Game ``number`` (1-based, schedule order) for the viewer, one entry per move.

    Keys: ``no`` the game's number, ``k`` its key, ``s`` entrant of each seat, ``r`` ranks,
    ``sc`` scores, ``st`` seat statuses, ``t`` termination, ``n`` the log (one line per
    move, then the result), and per move: ``z`` the seat playing it (one character
    each), ``a`` its action strings joined by spaces and ``d`` the delta of the position
    from the one before (the first from the layout's ``initial``: every game of a
    tournament starts from the same position). The log names the seats by their
    entrants' ``labels`` (by their names without them).
    """
    snapshots: list[Snapshot] = []
    lines = log_lines(record, snapshots=snapshots)
    names = None if labels is None else [labels[bot] for bot in row.seats]
    return {**_summary(row, number), "n": game_log(record, names),
            "z": "".join(str(line.seat) for line in lines),
            "a": [" ".join(line.actions) for line in lines],
            "d": [delta(before, after) for before, after in itertools.pairwise(snapshots)]}


def _summary(row: GameRow, number: int) -> dict[str, Any]:
    return {"no": number, "k": row.key, "s": list(row.seats), "r": list(row.ranks),
            "sc": list(row.scores), "st": list(row.statuses), "t": row.termination}


def parts(rows: Sequence[GameRow], *, games: int | None = None, moves: int | None = None,
          total_moves: int | None = None) -> list[range]:
    """The viewer's parts: runs of consecutive game numbers (from 1, schedule order), each
    within ``games`` games and ``moves`` record moves (always one game at least), all of
    them within ``total_moves`` (the first part whatever its moves). The limits default to
    :data:`PART_GAMES`, :data:`PART_MOVES` and :data:`MAX_MOVES`."""
    games = PART_GAMES if games is None else games
    moves = PART_MOVES if moves is None else moves
    total_moves = MAX_MOVES if total_moves is None else total_moves
    found: list[range] = []
    start, in_part, held = 0, 0, 0
    for index, row in enumerate(rows):
        if index > start and (index - start >= games or in_part + row.moves > moves):
            found.append(range(start + 1, index + 1))
            start, in_part = index, 0
        if found and held + row.moves > total_moves:
            return [*found, range(start + 1, index + 1)] if index > start else found
        in_part += row.moves
        held += row.moves
    if start < len(rows):
        found.append(range(start + 1, len(rows) + 1))
    return found


def shown_rows(rows: Sequence[GameRow], *, max_games: int | None = None,
               max_moves: int | None = None) -> Sequence[GameRow]:
    """The games of the viewer's first part (:func:`parts`, within ``max_games`` games and
    ``max_moves`` record moves): those a page holds itself."""
    first = parts(rows, games=max_games, moves=max_moves)
    return rows[:len(first[0])] if first else rows[:0]


def viewer_games(records: Callable[[str], GameRecord], rows: Sequence[GameRow],
                 numbers: Iterable[int], first: int = 1,
                 labels: Labels | None = None) -> list[dict[str, Any]]:
    """The viewer's data of games ``numbers`` (``rows`` from game ``first`` on); a game that
    cannot be replayed carries ``e``."""
    views = []
    for number in numbers:
        row = rows[number - first]
        try:
            views.append(game_view(records(row.key), row, number, labels))
        except (ArenaError, OSError, ValueError, KeyError) as exc:
            views.append({**_summary(row, number), "e": f"cannot replay this game: {exc}"})
    return views


# -- the boards -------------------------------------------------------------------------


def seasons_layout() -> dict[str, Any]:
    return {"sectors": [display_sector(s) for s in SECTORS], "ids": list(SECTORS),
            "values": list(SECTOR_VALUES)}


def sonnentau_layout(board: Board) -> dict[str, Any]:
    """The empty board as SVG (cropped to the board) and where pieces go, in its pixels."""
    (cx, cy), radius = sonnentau_svg._disc(board)
    frame = sonnentau_svg._Frame(cx - radius - sonnentau_svg.MARGIN,
                                 cy + radius + sonnentau_svg.MARGIN)
    size = round((2 * radius + 2 * sonnentau_svg.MARGIN) * sonnentau_svg.SCALE)
    start, goal = board.start_position, board.coordinates[board.goal]
    return {
        "svg": _cropped(sonnentau_svg.draw_board(board), size),
        "fields": [[frame.x(x), frame.y(y)] for x, y in board.coordinates],
        "ids": list(board.field_ids),
        "start": [frame.x(start[0]), frame.y(start[1])],
        "goal": [frame.x(goal[0]), frame.y(goal[1])],
        "r": frame.px(sonnentau_svg.PIECE_R),
        "ratio": round((size - 2 * CROP) / size, 4),
        "pieces": PIECES, "places": {"start": START, "home": HOME, "hit": HIT},
    }


_SVG_SIZE = re.compile(r'<svg ([^>]*?)width="\d+" height="\d+" viewBox="0 0 \d+ (\d+)"')
CROP = 12
"""Pixels cut from each side of the board drawing: its legend panel starts just right of it."""


def _cropped(svg: str, width: int) -> str:
    """The board drawing without its legend panel, scaling to its container."""
    return _SVG_SIZE.sub(lambda m: f'<svg {m[1]}viewBox="{CROP} 0 {width - 2 * CROP} {m[2]}" '
                         'class="board-svg" role="img" aria-label="Sonnentau board"',
                         svg, count=1)


def layout(record: GameRecord | None) -> dict[str, Any]:
    """What the viewer draws once for the tournament's game (from one of its records)."""
    if record is None:
        return {}
    try:
        state = find_game(record.game).initial_state(record.options)
    except (ArenaError, OSError) as exc:
        return {"error": f"cannot set up the game: {exc}"}
    initial = SNAPSHOTS[record.game](state)
    if isinstance(state, SonnentauState):
        return {**sonnentau_layout(state.board), "initial": initial}
    return {**seasons_layout(), "initial": initial}


def viewer_data(records: Callable[[str], GameRecord], rows: Sequence[GameRow],
                labels: Labels | None = None) -> dict[str, Any]:
    """The viewer's first part of games (``games``), its board ``layout``, the number of
    games in all (``total``) and the viewer's ``parts`` (:func:`parts`, as ``[first, last]``
    game numbers) with the key of each one's first game (``part_keys``: a ``#game=KEY``
    link finds its part by them, the keys in schedule order): the later parts' games come
    from :func:`viewer_games` as they are written beside the page."""
    found = parts(rows)
    games = viewer_games(records, rows, found[0], labels=labels) if found else []
    record = records(rows[0].key) if rows else None
    return {"games": games, "layout": layout(record), "total": len(rows),
            "parts": [[part.start, part.stop - 1] for part in found],
            "part_keys": [rows[part.start - 1].key for part in found]}
