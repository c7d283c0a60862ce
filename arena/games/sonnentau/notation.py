"""Sonnentau in text: the game log, the position for the terminal, action labels.

The log has one line per roll; each die reads ``value: what moved``, a hit
adds where the hit piece went::

    1. seat 0 rolls 2,6: 6: p0 in at OL, M cw -> X, hits own p3 -> UR07;
       2: p3 UR07 UR cw -> Y, hits own p1 -> Z
    2. seat 1 rolls 4,4 (doubles): 4: p0 in at MR, B ccw -> B07; 4: p0 B07 B ccw -> B11
    3. seat 1 rolls again 1,5: 1: p1 in at OR; 5 forfeited
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import NORMAL, Dice, Outcome
from arena.games.sonnentau.board import IN
from arena.games.sonnentau.rules import (
    MOVE,
    OVER,
    RELOCATE,
    ROLL,
    START,
    TURN_LIMIT,
    Enter,
    Move,
    Relocate,
    SonnentauAction,
    SonnentauState,
    new_state,
    parse_action,
)
from arena.games.sonnentau.text import board_rows, piece_token, seat_colour, seat_rows

ORDINALS = ("1st", "2nd", "3rd", "4th")


def _values(values: tuple[int, ...] | list[int]) -> str:
    return ",".join(map(str, values))


def _where(state: SonnentauState, field: int) -> str:
    return "home" if field == state.board.goal else state.board.field_ids[field]


def _whose(state: SonnentauState, seat: int, piece: int) -> str:
    return f"own p{piece}" if seat == state.seat else f"seat {seat} p{piece}"


# -- the game log ---------------------------------------------------------------


def describe_game(options: Mapping[str, Any], actions: Sequence[str], outcome: Outcome,
                  names: Sequence[str]) -> list[str]:
    """The log of ``actions`` (every action string, the dice included) played with
    ``options``: one line per roll, then the result with the seats' ``names``."""
    return [*describe_moves(new_state(options), actions), result_line(outcome, names)]


def describe_moves(start: SonnentauState, moves: Sequence[str]) -> list[str]:
    """One log line per roll for ``moves`` (action strings) played from ``start``."""
    state = start.copy()
    lines: list[str] = []
    line: _RollLine | None = None
    for text in moves:
        action = parse_action(text)
        before = state.copy()
        state.apply(action)
        if isinstance(action, Dice):
            line = _RollLine(len(lines) + 1, before, action)
        elif line is not None:
            line.add(before, state, action)
        if line is not None and state.phase in (ROLL, OVER):
            lines.append(line.finish(state))
            line = None
    if line is not None:
        lines.append(line.finish(state))
    return lines


class _RollLine:
    """Collects the plays of one roll into one log line."""

    def __init__(self, number: int, before: SonnentauState, roll: Dice) -> None:
        again = " again" if before.roll > 0 else ""
        self.head = f"{number}. seat {before.seat} rolls{again} {_values(roll.values)}"
        self.values = roll.values
        self.unplayed = set(range(len(roll.values)))
        self.plays: list[str] = []

    def add(self, before: SonnentauState, after: SonnentauState,
            action: SonnentauAction) -> None:
        if isinstance(action, Relocate):
            self.plays[-1] += " -> " + _target_text(action)
            return
        assert isinstance(action, (Move, Enter))
        self.unplayed.discard(action.slot)
        text = f"{before.dice[action.slot]}: {_play_text(before, action)}"
        hit = _hit_of(before, action)
        if hit is not None:
            text += f", hits {_whose(before, *hit)}"
            if after.phase not in (RELOCATE, OVER) and _went_to_start(after, hit):
                text += " -> start"
        self.plays.append(text)

    def finish(self, state: SonnentauState) -> str:
        text = self.head
        if len(set(self.values)) < len(self.values):
            text += " (doubles)"
        parts = list(self.plays)
        forfeited = [self.values[slot] for slot in sorted(self.unplayed)]
        if forfeited and not (state.phase == OVER and state.termination != TURN_LIMIT):
            parts.append("no move" if not self.plays else f"{_values(forfeited)} forfeited")
        text += ": " + "; ".join(parts)
        if state.phase == OVER and state.winner() is not None:
            text += f" - seat {state.winner()} wins with {state.home[state.winner() or 0]} home"
        return text


def _went_to_start(after: SonnentauState, hit: tuple[int, int]) -> bool:
    return after.pieces[hit[0]][hit[1]] == START


def _play_text(state: SonnentauState, action: Move | Enter) -> str:
    dest = _where(state, state.destination(action))
    if isinstance(action, Enter):
        if action.track is None:
            return f"p{action.piece} in at {action.entry}"
        return f"p{action.piece} in at {action.entry}, {action.track} {action.direction} -> {dest}"
    origin = state.place_name(state.pieces[state.seat][action.piece])
    return f"p{action.piece} {origin} {action.track} {action.direction} -> {dest}"


def _hit_of(state: SonnentauState, action: Move | Enter) -> tuple[int, int] | None:
    target = state.destination(action)
    if target == state.board.goal:
        return None
    return state.piece_at(target)


def _target_text(action: Relocate) -> str:
    return "goal (home)" if action.target == "goal" else action.target


def result_line(outcome: Outcome, names: Sequence[str]) -> str:
    """``Result: seat 0 (heuristic) wins; home 3-1`` (places listed for 3 or 4 seats)."""
    home = "-".join(f"{s:g}" for s in outcome.scores)
    ranks = outcome.ranks
    winners = [seat for seat, rank in enumerate(ranks) if rank == 0]
    if len(winners) == 1:
        verdict = f"seat {winners[0]} ({names[winners[0]]}) wins"
    else:
        verdict = "draw between seats " + ", ".join(map(str, winners))
    text = f"Result: {verdict}; home {home}"
    if len(ranks) > 2:
        text += "; places " + ", ".join(
            f"seat {seat} {_ordinal(rank, ranks)}" for seat, rank in enumerate(ranks))
    if outcome.termination != NORMAL:
        text += f" [{outcome.termination}]"
    return text


def _ordinal(rank: int, ranks: tuple[int, ...]) -> str:
    shared = "=" if ranks.count(rank) > 1 else ""
    return shared + ORDINALS[rank]


# -- the position ------------------------------------------------------------------


def render(state: SonnentauState) -> str:
    """The position for the terminal, at most 80 columns: whose turn and the dice, the board
    drawn one track to a row (:mod:`arena.games.sonnentau.text`), every seat's pieces, and
    a pending hit."""
    rows = [_status_line(state), *board_rows(state), *seat_rows(state)]
    if state.hit is not None:
        seat, piece, field = state.hit
        rows.append(f"  {piece_token(seat, piece)} (seat {seat} p{piece}), hit on "
                    f"{state.board.field_ids[field]}, waits to be relocated by seat {state.seat}")
    return "\n".join(rows)


def _status_line(state: SonnentauState) -> str:
    head = "Sonnentau" + (f" ({state.variant})" if state.variant != "standard" else "")
    head += f", turn {state.turns_played}"
    if state.phase == OVER:
        winner = state.winner()
        end = (f"seat {winner} ({seat_colour(winner)}) won" if winner is not None
               else f"stopped ({state.termination})")
        return f"{head}: game over, {end}"
    to = {ROLL: "roll", RELOCATE: "relocate"}.get(state.phase, "move")
    text = f"{head}: seat {state.seat} ({seat_colour(state.seat)}) to {to}"
    if state.dice:
        text += f", dice {_values(state.dice)}"
        left = state.dice_left()
        if state.phase == RELOCATE:
            text += f", then {_values(left)}" if left else ", all played"
        elif state.phase == MOVE and len(left) < len(state.dice):
            text += f", to play {_values(left)}"
    return text


# -- action labels ---------------------------------------------------------------------


def describe_action(state: SonnentauState, action: SonnentauAction) -> str:
    """A human label: ``die 6: p0 enters at OL, along M clockwise to X, hitting own p3``."""
    if isinstance(action, Dice):
        return f"roll {_values(action.values)}"
    if isinstance(action, Relocate):
        return _relocate_label(state, action)
    n = state.dice[action.slot]
    dest = state.destination(action)
    to = "into the goal" if dest == state.board.goal else f"to {state.board.field_ids[dest]}"
    if isinstance(action, Enter):
        if action.track is None:
            text = f"die {n}: p{action.piece} enters onto {action.entry}"
        else:
            text = (f"die {n}: p{action.piece} enters at {action.entry}, along {action.track} "
                    f"{_direction_word(action.direction or '')} {to}")
    else:
        origin = state.place_name(state.pieces[state.seat][action.piece])
        text = (f"die {n}: p{action.piece} from {origin} along {action.track} "
                f"{_direction_word(action.direction)} {to}")
    hit = _hit_of(state, action)
    return text + (f", hitting {_whose(state, *hit)}" if hit is not None else "")


def _direction_word(direction: str) -> str:
    return {"cw": "clockwise", "ccw": "counterclockwise", IN: "towards the goal",
            "out": "back towards Z"}.get(direction, direction)


def _relocate_label(state: SonnentauState, action: Relocate) -> str:
    if state.hit is None:
        return str(action)
    seat, piece, _field = state.hit
    whose = _whose(state, seat, piece)
    if action.target == "start":
        return f"send {whose} back to the start"
    if action.target == "goal":
        return f"throw {whose} into the goal (home for seat {seat})"
    distance = state.board.goal_distance[state.board.index[action.target]]
    return f"put {whose} on {action.target} ({distance} steps from the goal)"
