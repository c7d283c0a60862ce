"""Seasons of the Sun in text: the game log notation and the board for humans.

One line per turn, in the spirit of the author's sample game::

    6. seat 1: 4,4,5 keep -> 13 on Max-8, sector won (0-8)
    9. seat 1: 2,5,5 reroll slot 0 -> 6,5,5 = 16 on Max-13, neutralised
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import NORMAL, Dice, Outcome
from arena.games.seasons.rules import (
    ROLL,
    SECTOR_INDEX,
    SECTORS,
    Place,
    Reroll,
    SeasonsState,
    display_sector,
    parse_action,
)


def _dice_text(values: tuple[int, ...]) -> str:
    return ",".join(map(str, values))


def _reroll_text(action: Reroll) -> str:
    if not action.slots:
        return "keep"
    noun = "slot" if len(action.slots) == 1 else "slots"
    return f"reroll {noun} {_dice_text(action.slots)}"


def _placement_result(before: SeasonsState, after: SeasonsState, sector: str) -> str:
    i = SECTOR_INDEX[sector]
    if after.fields[before.seat][i] == 0:
        return ", neutralised"
    winner = after.winner_of(i)
    if winner is None:
        return ""
    return ", sector won" if winner == before.seat else ", sector lost"


def describe_game(options: Mapping[str, Any], actions: Sequence[str], outcome: Outcome,
                  names: Sequence[str]) -> list[str]:
    """The game log of ``actions`` (every action string, the dice included) played with
    ``options``: one line per turn, then the result with the seats' ``names``."""
    state = SeasonsState(int(options.get("placement_limit", 1000)))
    lines: list[str] = []
    turn_text = ""
    for text in actions:
        action = parse_action(text)
        before = state.copy()
        state.apply(action)
        if isinstance(action, Dice):
            if before.phase == ROLL:
                turn_text = _dice_text(action.values)
            else:
                turn_text += f" -> {_dice_text(action.values)} = {sum(action.values)}"
        elif isinstance(action, Reroll):
            turn_text += " " + _reroll_text(action)
            if not action.slots:
                turn_text += f" -> {before.total}"
        elif isinstance(action, Place):
            score = "" if state.scores() == before.scores() else " ({}-{})".format(*state.scores())
            result = _placement_result(before, state, action.sector)
            lines.append(f"{len(lines) + 1}. seat {before.seat}: {turn_text} on "
                         f"{display_sector(action.sector)}{result}{score}")
            turn_text = ""
    if turn_text:  # the game stopped during a turn (a forfeit)
        lines.append(f"{len(lines) + 1}. seat {state.seat}: {turn_text} (unfinished)")
    lines.append(result_line(outcome, names))
    return lines


def result_line(outcome: Outcome, names: Sequence[str]) -> str:
    """``Result: 66-54, seat 0 (greedy) wins`` and the like."""
    scores = "-".join(f"{s:g}" for s in outcome.scores)
    if outcome.ranks[0] == outcome.ranks[1]:
        verdict = "draw"
    else:
        winner = outcome.ranks.index(0)
        verdict = f"seat {winner} ({names[winner]}) wins"
    note = f" [{outcome.termination}]" if outcome.termination != NORMAL else ""
    return f"Result: {scores}, {verdict}{note}"


CIRCLES = ("outer", "inner")
"""Seat 0 owns the outer circle, seat 1 the inner one."""
CELL = 5
LABEL = 16
N_MAX = sum(s.startswith("max") for s in SECTORS)
N_MIN = len(SECTORS) - N_MAX
GAP = "  "


def render(state: SeasonsState) -> str:
    """Both circles by sector, who won each, the interim score, whose turn it is and the dice,
    in at most 80 columns::

                               Max: higher wins              min: lower wins
                            5    8    9   10   13   15      9   10   11   13   17
        seat 0 (outer)      .   16    .    .    .    .      .    .    .    .    .
        seat 1 (inner)      .    9    .    .    .    .      .    .    .    .    .
        won by              -   s0    -    -    -    -      -    -    -    -    -
        score 8-0   seat 0 to move   dice 4,4,6 = 14
    """
    title = " " * LABEL + "Max: higher wins".center(CELL * N_MAX) + GAP
    rows = [(title + "min: lower wins".center(CELL * N_MIN)).rstrip(),
            _sector_row("", [s.split("-")[1] for s in SECTORS])]
    for seat, circle in enumerate(CIRCLES):
        rows.append(_sector_row(f"seat {seat} ({circle})",
                                [str(v) if v else "." for v in state.fields[seat]]))
    rows.append(_sector_row("won by", [_owner_mark(state, i) for i in range(len(SECTORS))]))
    score = "{}-{}".format(*state.scores())
    status = f"score {score}   seat {state.seat} to move"
    if state.is_terminal:
        status = f"score {score}   game over"
    elif state.dice:
        status += f"   dice {_dice_text(state.dice)} = {state.total}"
    rows.append(status)
    return "\n".join(rows)


def _sector_row(label: str, cells: Sequence[str]) -> str:
    """A label, the Max sectors' cells, a gap, the min sectors' (SECTORS lists Max first)."""
    shown = [c.rjust(CELL) for c in cells]
    return f"{label:<{LABEL}}{''.join(shown[:N_MAX])}{GAP}{''.join(shown[N_MAX:])}".rstrip()


def _owner_mark(state: SeasonsState, sector: int) -> str:
    winner = state.winner_of(sector)
    if winner is None:
        return "-"
    return f"s{winner}"


def describe_action(state: SeasonsState, action: Reroll | Place) -> str:
    """A human-friendly label for a choice: what it re-rolls (the dice by value, and which
    they are, counted from 1 as the board lists them) or where it places: ``re-roll the 5
    (die 1), keep 4,6``, ``re-roll the 4 and 6 (dice 2, 3), keep 5``, ``keep 5,4,6 =
    15``, ``15 on Max-15 against 9``."""
    if isinstance(action, Reroll):
        if not action.slots:
            return f"keep {_dice_text(state.dice)} = {state.total}"
        if len(action.slots) == len(state.dice):
            return "re-roll all three dice"
        rolled = " and ".join(str(state.dice[i]) for i in action.slots)
        which = ", ".join(str(i + 1) for i in action.slots)
        noun = "die" if len(action.slots) == 1 else "dice"
        kept = [v for i, v in enumerate(state.dice) if i not in action.slots]
        return f"re-roll the {rolled} ({noun} {which}), keep {_dice_text(tuple(kept))}"
    i = SECTOR_INDEX[action.sector]
    opponent = state.fields[1 - state.seat][i]
    against = f" against {opponent}" if opponent else ""
    return f"{state.total} on {display_sector(action.sector)}{against}"
