"""Sonnentau as text for the terminal: the board in rows, pieces as tokens, short choices.

The board is drawn one track to a row, its fields in the board file's order
(counterclockwise), under a ruler of positions: ``ccw`` moves a piece to the
right along its row, ``cw`` to the left, and a circle's row wraps round at its
ends. A field shows the piece on it (``y0``…``y4`` are seat 0's pieces, yellow;
``r`` red is seat 1, ``b`` blue seat 2, ``g`` green seat 3), else its name if it
is a crossing or an entry, else a dot. A crossing is one field on two rows: its
piece is drawn once, in the upper row, and the lower row shows ``*`` and the
piece's colour (``*y``). Every cell of a board is as wide on every screen. On
the default board field ``UR07`` is in column ``07`` of row ``UR``; here a
yellow piece stands on X and a red one on UR07::

         00  01  02  03  04  05  06  07  08  09  10  11  12  13  14  15  16  17
     B    .   .  MR   .   .   .  ML   .   .   .   .   .   .   .   .   .   .   .
     M   OR   .   .  y0   .  XL   .   .  OL   .   .  ML   .   .   .  MR   .   .
     UL YLI   .   .  YL   .   .   .   .   .   .   .   .   .   .  OL   .   .  XL
     UR   .   .   .   .   .   Y   .  r3  YI  *y   .   .  OR   .   .   .   .   .
     F    .   .   .   .   Z   .   .   .   .  YL   .   . YLI   .  YI   .   .   Y
     G    Z   .   . GOAL    ccw: to the right, cw: to the left
     OL ML MR OR: entries. A name on two rows is one field (a crossing): its piece
     shows in the upper row, *y in the lower. Picture: arena board --svg board.svg
"""

from __future__ import annotations

import textwrap

from arena.games.base import Dice
from arena.games.sonnentau.board import Board, Track
from arena.games.sonnentau.rules import (
    HOME,
    START,
    Enter,
    Relocate,
    SonnentauAction,
    SonnentauState,
)
from arena.games.sonnentau.svg import SEAT_NAMES

WIDTH = 80
EMPTY_CELL = "."
LEGEND = "ccw: to the right, cw: to the left"
TAKEN = "*"
"""Marks a crossing whose piece is drawn in its other row: ``*r`` (a red piece)."""


def seat_colour(seat: int) -> str:
    """``yellow``, ``red``, ``blue``, ``green``: the seat's colour in drawings."""
    return SEAT_NAMES[seat % len(SEAT_NAMES)]


def piece_token(seat: int, piece: int) -> str:
    """``r3``: piece 3 of seat 1 (red), as the board drawing shows it."""
    return f"{seat_colour(seat)[0]}{piece}"


# -- the board ----------------------------------------------------------------------


def board_rows(state: SonnentauState, width: int = WIDTH) -> list[str]:
    """The ruler and one row per track (longer tracks wrap), then the legend. The cells
    are as wide on every screen of a board, whatever stands where."""
    board = state.board
    tracks = _drawn_tracks(board)
    label_width = max(len(t.id) for t in board.tracks) + 1
    cells = {t.id: [_cell(state, t, f) for f in _drawn_fields(board, t)] for t in tracks}
    cell_width = _cell_width(board)
    per_row = max(1, (width - label_width - 1) // (cell_width + 1))
    longest = max(len(row) for row in cells.values())
    ruler = [f"{i:02d}".rjust(cell_width) for i in range(min(per_row, longest))]
    rows = [" " * (label_width + 1) + " ".join(ruler)]
    for track in tracks[:-1]:
        rows += _track_rows(track.id, cells[track.id], label_width, cell_width, per_row)
    straight = tracks[-1]
    last = _track_rows(straight.id, cells[straight.id], label_width, cell_width, per_row)
    last[-1] += " " + board.field_ids[board.goal]
    if len(last[-1]) + 4 + len(LEGEND) <= width:
        last[-1] += " " * 4 + LEGEND
    else:
        last += textwrap.wrap(LEGEND, width)
    markers = [c for row in cells.values() for c in row if c.startswith(TAKEN)]
    return rows + last + legend_rows(board, state.board_option, width,
                                     markers[0] if markers else TAKEN + seat_colour(0)[0])


def legend_rows(board: Board, board_option: str = "", width: int = WIDTH,
                marker: str = "*y") -> list[str]:
    """What the names on the board are, what ``marker`` (a ``*`` and a colour's letter)
    stands for, and how to see the board as a picture (``board_option`` is the game's
    ``board`` option: "" for the default board)::

        OL ML MR OR: entries. A name on two rows is one field (a crossing): its piece
        shows in the upper row, *y in the lower. Picture: arena board --svg board.svg
    """
    entries = " ".join(board.field_ids[e] for e in board.entries)
    option = f" --board {board_option}" if board_option else ""
    text = (f"{entries}: entries. A name on two rows is one field (a crossing): its piece "
            f"shows in the upper row, {marker} in the lower. Picture: arena board{option} "
            "--svg board.svg")
    return textwrap.wrap(text, width, initial_indent=" ", subsequent_indent=" ",
                         break_on_hyphens=False, break_long_words=False)


def _drawn_tracks(board: Board) -> list[Track]:
    """The tracks top to bottom: the circles in the board file's order, the goal straight
    last."""
    return [*(t for t in board.tracks if t.id != board.goal_straight),
            board.track(board.goal_straight)]


def _drawn_fields(board: Board, track: Track) -> tuple[int, ...]:
    """The goal is never occupied: it is written after its row, not drawn as a cell."""
    return tuple(f for f in track.fields if f != board.goal)


def _named(board: Board, field: int) -> bool:
    """Crossings, entries and Z are drawn by name when empty; other fields as a dot."""
    return board.is_intersection(field) or field in board.entries or field == board.z


def _cell_width(board: Board) -> int:
    """Wide enough for every name the board shows and every piece (``y4``, ``*y``)."""
    names = [len(board.field_ids[f]) for f in range(board.n_fields)
             if f != board.goal and _named(board, f)]
    return max([2, *names])


def _cell(state: SonnentauState, track: Track, field: int) -> str:
    """A piece on a crossing is drawn once, in the upper of its rows; the other row shows
    ``*`` and its colour's letter (``*y``): the field is taken."""
    board = state.board
    occupant = state.piece_at(field)
    if occupant is not None:
        upper = next(t for t in _drawn_tracks(board) if field in t.fields)
        if upper.id == track.id:
            return piece_token(*occupant)
        return TAKEN + seat_colour(occupant[0])[0]
    if _named(board, field):
        return board.field_ids[field]
    return EMPTY_CELL


def _track_rows(track_id: str, cells: list[str], label_width: int, cell_width: int,
                per_row: int) -> list[str]:
    rows = []
    for start in range(0, len(cells), per_row):
        label = track_id if start == 0 else ""
        chunk = " ".join(c.rjust(cell_width) for c in cells[start:start + per_row])
        rows.append(f" {label.ljust(label_width)}{chunk}")
    return rows


# -- whose pieces are where ------------------------------------------------------------


def seat_rows(state: SonnentauState, width: int = WIDTH) -> list[str]:
    """A line per seat (wrapped if the board is narrow; on the default board even five
    pieces out fit 80 columns): colour, pieces home and on the start, the field of each
    piece on the board; ``*`` marks the seat to move::

        * seat 2 blue    home 0  start 0  p0 B16, p1 M16, p2 UR01, p3 B09, p4 UR04
    """
    rows = []
    for seat, pieces in enumerate(state.pieces):
        marker = "*" if seat == state.seat and not state.is_terminal else " "
        head = (f"{marker} seat {seat} {seat_colour(seat):<6}  home {pieces.count(HOME)}  "
                f"start {pieces.count(START)}")
        on_board = [f"p{i} {state.board.field_ids[f]}" for i, f in enumerate(pieces) if f >= 0]
        rows += _packed(head + (" " if on_board else ""), on_board, width)
    return rows


def _packed(head: str, items: list[str], width: int, indent: int = 10) -> list[str]:
    """``head`` and the comma-separated ``items``, wrapped between items, never inside one."""
    rows = [head]
    for n, item in enumerate(items):
        text = item + ("," if n < len(items) - 1 else "")
        if len(rows[-1]) + 1 + len(text) > width:
            rows.append(" " * indent + text)
        else:
            rows[-1] += " " + text
    return rows


# -- short labels of the legal actions --------------------------------------------------


def choice_label(state: SonnentauState, action: SonnentauAction) -> str:
    """A choice in a few words, in the spirit of the log notation, with the pieces as the
    board shows them: ``6: r0 in at OL, M cw -> X, hits y3``, ``y3 -> UR07, 10 to go``."""
    if isinstance(action, Dice):
        return f"roll {','.join(map(str, action.values))}"
    if isinstance(action, Relocate):
        return _relocation_label(state, action)
    token = piece_token(state.seat, action.piece)
    target = state.destination(action)
    dest = "home" if target == state.board.goal else state.board.field_ids[target]
    if isinstance(action, Enter):
        text = f"{token} in at {action.entry}"
        if action.track is not None:
            text += f", {action.track} {action.direction} -> {dest}"
    else:
        origin = state.place_name(state.pieces[state.seat][action.piece])
        text = f"{token} {origin} {action.track} {action.direction} -> {dest}"
    hit = state.piece_at(target) if target != state.board.goal else None
    if hit is not None:
        text += f", hits {piece_token(*hit)}"
    return f"{state.dice[action.slot]}: {text}"


def _relocation_label(state: SonnentauState, action: Relocate) -> str:
    if state.hit is None:
        return str(action)
    token = piece_token(state.hit[0], state.hit[1])
    if action.target == "start":
        return f"{token} -> start"
    if action.target == "goal":
        return f"{token} -> goal (home)"
    board = state.board
    steps = board.goal_distance[board.index[action.target]]
    return f"{token} -> {action.target}, {steps} to go"
