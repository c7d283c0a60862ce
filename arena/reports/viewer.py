"""The game viewer's data: each game replayed once in Python, stored as compact deltas.

A position is a *snapshot*: a flat mapping of short keys to small values (a
Seasons field, a die, a Sonnentau piece's place). Per move the viewer keeps only
the keys that changed, so the browser rebuilds any position by applying the
deltas from the start; no rules run in JavaScript. The Sonnentau board is drawn
once (:func:`arena.games.sonnentau.svg.draw_board` without pieces) and the
pieces are placed over it from the field coordinates given here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.games import find_game
from arena.games.base import ArenaError, Dice
from arena.games.seasons.rules import SECTOR_VALUES, SECTORS, SeasonsState, display_sector
from arena.games.sonnentau import svg as sonnentau_svg
from arena.games.sonnentau.board import Board
from arena.games.sonnentau.rules import HIT, HOME, PIECES, START, SonnentauState
from arena.referee.record import GameRecord, game_log
from arena.results.store import GameRow

MAX_GAMES = 300
"""Games the viewer includes at most (the first ones in schedule order)."""
MAX_MOVES = 40_000
"""Moves the viewer includes at most: long games (four-player Sonnentau runs to hundreds
of moves) stop it earlier, which keeps the file to a few MB and its making to seconds."""

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


def game_view(record: GameRecord, row: GameRow) -> dict[str, Any]:
    """A game for the viewer: seats, result, moves, notation and per-move deltas.

    Keys: ``k`` game key, ``s`` entrant of each seat, ``r`` ranks, ``sc`` scores,
    ``st`` seat statuses, ``t`` termination, ``a`` the action strings joined by spaces,
    ``z`` the seat of each move as one character (``-`` for chance), ``n`` notation
    lines (the last is the result), ``ts`` the move that starts each notation line,
    and ``d`` one delta per move from the first snapshot (the layout's ``initial``:
    every game of a tournament starts from the same position).
    """
    game = find_game(record.game)
    snapshot, starts = SNAPSHOTS[record.game], TURN_STARTS[record.game]
    state = game.initial_state(record.options)
    previous = snapshot(state)
    deltas, line_starts = [], []
    for index, move in enumerate(record.moves):
        action = game.parse_action(move.action)
        if starts(state, action):
            line_starts.append(index)
        state.apply(action)
        current = snapshot(state)
        deltas.append(delta(previous, current))
        previous = current
    return {"k": row.key, "s": list(row.seats), "r": list(row.ranks), "sc": list(row.scores),
            "st": list(row.statuses), "t": row.termination,
            "a": " ".join(m.action for m in record.moves),
            "z": "".join("-" if m.seat < 0 else str(m.seat) for m in record.moves),
            "n": game_log(record), "ts": line_starts, "d": deltas}


def shown_rows(rows: Sequence[GameRow], *, max_games: int | None = None,
               max_moves: int | None = None) -> Sequence[GameRow]:
    """The first games in schedule order within both limits (always one, if any);
    the limits default to :data:`MAX_GAMES` and :data:`MAX_MOVES`."""
    max_games = MAX_GAMES if max_games is None else max_games
    max_moves = MAX_MOVES if max_moves is None else max_moves
    moves = 0
    for count, row in enumerate(rows[:max_games]):
        moves += row.moves
        if moves > max_moves and count > 0:
            return rows[:count]
    return rows[:max_games]


def viewer_games(records: Callable[[str], GameRecord],
                 rows: Sequence[GameRow]) -> list[dict[str, Any]]:
    """The viewer's data of ``rows``; a game that cannot be replayed carries ``e``."""
    views = []
    for row in rows:
        try:
            views.append(game_view(records(row.key), row))
        except (ArenaError, OSError, ValueError, KeyError) as exc:
            views.append({"k": row.key, "s": list(row.seats), "r": list(row.ranks),
                          "sc": list(row.scores), "st": list(row.statuses),
                          "t": row.termination, "e": f"cannot replay this game: {exc}"})
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
        "colours": list(sonnentau_svg.SEAT_COLOURS),
        "names": list(sonnentau_svg.SEAT_NAMES),
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
                ) -> dict[str, Any]:
    """The viewer's games (the first ones, see :func:`shown_rows`) and its board layout."""
    games = viewer_games(records, shown_rows(rows))
    first = records(rows[0].key) if rows else None
    return {"games": games, "layout": layout(first), "total": len(rows),
            "capped": len(games) < len(rows)}
