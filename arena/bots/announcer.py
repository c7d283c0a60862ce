"""A game's moves told as they are played, in the game's log notation.

Both games log one line per turn (Seasons) or per roll (Sonnentau), and each
such line begins with a roll. So the line of a turn is complete when the next
roll comes, or the game ends: :meth:`MoveLog.add` returns the lines completed by
a move, numbered as in the game's log.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games.base import CHANCE_SEAT, Game, Outcome, State, ranks_from_scores
from arena.games.sonnentau.notation import describe_moves
from arena.games.sonnentau.rules import SonnentauState, parse_action
from arena.referee.record import Move


class MoveLog:
    """The log lines of a game in play, from the game's own ``describe_game``."""

    def __init__(self, game: Game, options: Mapping[str, Any]) -> None:
        self.game = game
        self.options = dict(options)
        self.actions: list[str] = []
        self.moves = 0
        self.told = 0

    def add(self, state: State, move: Move) -> list[str]:
        """Take the move just played (``state`` is the position after it); return the lines
        it completed."""
        self.moves += 1
        return self._completed(state, move)

    def _completed(self, state: State, move: Move) -> list[str]:
        self.actions.append(move.action)
        if state.is_terminal:
            return self._new_lines(self._lines(state))
        if move.seat != CHANCE_SEAT:
            return []
        return self._new_lines(self._lines(state)[:-1])  # the last line is this roll's

    def _lines(self, state: State) -> list[str]:
        scores = tuple(float(s) for s in state.scores())
        placeholder = Outcome(ranks_from_scores(scores), scores)
        names = [""] * len(scores)
        return self.game.describe_game(self.options, self.actions, placeholder, names)[:-1]

    def _new_lines(self, lines: list[str]) -> list[str]:
        new = lines[self.told:]
        self.told = max(self.told, len(lines))
        return new


class SonnentauMoveLog(MoveLog):
    """Sonnentau games run to thousands of moves: each roll's line is written from the
    position before that roll, not from the whole game again."""

    def __init__(self, game: Game, options: Mapping[str, Any]) -> None:
        super().__init__(game, options)
        start = game.initial_state(options)
        assert isinstance(start, SonnentauState)
        self.line_start = start
        self.pending: list[str] = []

    def _completed(self, state: State, move: Move) -> list[str]:
        lines = []
        if move.seat == CHANCE_SEAT and self.pending:
            lines.append(self._finish_line())
        self.pending.append(move.action)
        if state.is_terminal:
            lines.append(self._finish_line())
        return lines

    def _finish_line(self) -> str:
        (line,) = describe_moves(self.line_start, self.pending)
        for action in self.pending:
            self.line_start.apply(parse_action(action))
        self.pending = []
        self.told += 1
        # describe_moves numbers from its own start: give the line its number in the game.
        return f"{self.told}. {line.partition('. ')[2]}"


def move_log(game: Game, options: Mapping[str, Any]) -> MoveLog:
    """The move log that suits ``game``."""
    if game.info.name == "sonnentau":
        return SonnentauMoveLog(game, options)
    return MoveLog(game, options)
