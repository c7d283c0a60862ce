"""``arena board``: a board, or a recorded Sonnentau position, drawn as SVG.

Games and moves are counted as in the report's viewer: game 1 is a record file's
first game, and move ``m`` is the position after line ``m`` of the game's log (one
roll and what was played with it; move 0 is the start).
"""

from __future__ import annotations

from arena.games.base import ArenaError
from arena.games.sonnentau.board import board_for_option, load_board
from arena.games.sonnentau.rules import SonnentauState
from arena.games.sonnentau.svg import draw_board
from arena.referee.record import read_records, replay
from arena.reports.viewer import log_lines, position_after


def draw(board_path: str | None, record_path: str | None, game_index: int = 1,
         move: int | None = None) -> str:
    """The SVG of the board, with the position after ``move`` moves of a record if given."""
    if record_path is None:
        if move is not None:
            raise ArenaError("--move needs --record")
        return draw_board(load_board(board_path) if board_path else board_for_option(""))
    records = read_records(record_path)
    if not 1 <= game_index <= len(records):
        raise ArenaError(f"{record_path} holds {len(records)} games, not {game_index}")
    record = records[game_index - 1]
    if record.game != "sonnentau":
        raise ArenaError(f"{record_path}: game {game_index} is {record.game}, not sonnentau")
    moves = len(log_lines(record))
    if move is not None and move > moves:
        raise ArenaError(f"game {game_index} has {moves} moves, not {move} (a move is one "
                         "line of its log)")
    state = replay(record) if move is None else position_after(record, move)
    assert isinstance(state, SonnentauState)
    board = load_board(board_path) if board_path else state.board
    return draw_board(board, state)
