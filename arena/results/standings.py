"""Standings: wins, draws, losses, points and scores per bot and per seat.

A game gives each seat *points* = (opponents beaten + ½ opponents tied) / (k - 1)
for ``k`` seats: 1 for a two-player win, ½ for a draw. A seat ranked first
alone has a *win*, first with others a *draw*, anything else a *loss*.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena.referee.record import OK


def game_points(ranks: Sequence[int]) -> tuple[float, ...]:
    """Points of each seat in one game: (opponents beaten + ½ tied) / (k - 1)."""
    k = len(ranks)
    return tuple(
        (sum(other > mine for other in ranks) + 0.5 * (sum(other == mine for other in ranks) - 1))
        / (k - 1)
        for mine in ranks
    )


@dataclass
class Tally:
    """Results of one bot, overall or in one seat."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    score_sum: float = 0.0
    rank_sum: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    stopped: int = 0
    """Games at tables of more than two that another seat's failure stopped: this bot's
    place there is its standing when the game stopped."""

    def add(self, seat: int, ranks: Sequence[int], scores: Sequence[float],
            status: str = OK, statuses: Sequence[str] = ()) -> None:
        """Count the game in which this bot sat in ``seat`` (``statuses``: every seat's)."""
        rank = ranks[seat]
        self.games += 1
        self.points += game_points(ranks)[seat]
        self.score_sum += scores[seat]
        self.rank_sum += rank
        if rank == 0 and list(ranks).count(0) == 1:
            self.wins += 1
        elif rank == 0:
            self.draws += 1
        else:
            self.losses += 1
        if status != OK:
            self.failures[status] += 1
        elif len(ranks) > 2 and any(other != OK for other in statuses):
            self.stopped += 1

    @property
    def score(self) -> float:
        """Points per game: the fraction of the points available."""
        return self.points / self.games if self.games else 0.0

    @property
    def mean_score(self) -> float:
        """Mean game score (Seasons: sector points; Sonnentau: pieces home)."""
        return self.score_sum / self.games if self.games else 0.0

    @property
    def mean_rank(self) -> float:
        """Mean finishing place, 1 = first."""
        return 1 + self.rank_sum / self.games if self.games else 0.0


@dataclass
class BotResults:
    """A bot's overall tally and its tally in each seat."""

    index: int
    label: str
    overall: Tally
    by_seat: list[Tally]
    byes: int = 0
    bye_points: float = 0.0
    buchholz: float | None = None

    @property
    def total_points(self) -> float:
        return self.overall.points + self.bye_points


def tally_games(labels: Sequence[str], seats: int,
                games: Iterable[tuple[Sequence[int], Sequence[int], Sequence[float],
                                      Sequence[str]]]) -> list[BotResults]:
    """Results per bot from (bot of each seat, ranks, scores, statuses) tuples."""
    results = [BotResults(i, label, Tally(), [Tally() for _ in range(seats)])
               for i, label in enumerate(labels)]
    for order, ranks, scores, statuses in games:
        for seat, bot in enumerate(order):
            results[bot].overall.add(seat, ranks, scores, statuses[seat], statuses)
            results[bot].by_seat[seat].add(seat, ranks, scores, statuses[seat], statuses)
    return results


TABLE_WIDTH = 80
"""Columns a standings table fits when nothing else is said (a terminal's width)."""


@dataclass(frozen=True)
class _Column:
    head: tuple[str, str]  # two header lines: "mean" over "score"
    cells: list[str]

    @property
    def width(self) -> int:
        return max(len(text) for text in (*self.head, *self.cells))


def _tally_columns(rows: Sequence[tuple[Tally, float]]) -> list[_Column]:
    # halves show exactly with one decimal; a larger table's quarters and sixths need two,
    # else a total of 5.25 reads 5.2 beside its seats' 1.75 read 1.8 each
    digits = 1 if all(abs(2 * p - round(2 * p)) < 1e-9 for _, p in rows) else 2
    return [
        _Column(("", "games"), [str(t.games) for t, _ in rows]),
        _Column(("", "wins"), [str(t.wins) for t, _ in rows]),
        _Column(("", "draws"), [str(t.draws) for t, _ in rows]),
        _Column(("", "losses"), [str(t.losses) for t, _ in rows]),
        _Column(("", "points"), [f"{points:.{digits}f}" for _, points in rows]),
        _Column(("", "score"), [_played(t, f"{100 * t.score:.1f}%") for t, _ in rows]),
        _Column(("mean", "score"), [_played(t, f"{t.mean_score:.2f}") for t, _ in rows]),
        _Column(("mean", "rank"), [_played(t, f"{t.mean_rank:.2f}") for t, _ in rows]),
    ]


LEFT_OUT_FIRST = (("mean", "rank"), ("mean", "score"), ("", "draws"), ("", "byes"),
                  ("", "score"))
"""The columns a table too wide for its width leaves out, in this order."""


def _fitting(columns: list[_Column], width: int, dropped: Sequence[str] = ()
             ) -> tuple[list[_Column], list[str]]:
    """``columns`` without those named in ``dropped`` and those (:data:`LEFT_OUT_FIRST`)
    that keep the numbers from fitting ``width`` beside a label of at least three
    characters; the names left out."""
    names = list(dropped)
    for head in LEFT_OUT_FIRST:
        name = " ".join(head).strip()
        if name not in names and 3 + sum(1 + column.width for column in columns) <= width:
            break
        if any(column.head == head for column in columns):
            columns = [column for column in columns if column.head != head]
            if name not in names:
                names.append(name)
    return columns, names


def _played(tally: Tally, text: str) -> str:
    """``text``, or a dash for a bot without games (a bye alone): no score, no mean."""
    return text if tally.games else "—"


def _layout(first: str, labels: Sequence[str], columns: Sequence[_Column],
            width: int) -> list[str]:
    """Header lines and one line per label, within ``width`` where the labels allow: two
    spaces between columns, one where two do not fit; a label still too long for its column
    is wrapped in it (at its ``@`` and ``+``), its pieces beside its rows (a bot's seats)
    and on lines below; where the column would be narrower than :data:`LEAST_LABEL`, the
    label has a line of its own, its numbers (and those of the rows after it with the same
    label) on the lines below."""
    longest = max(len(first), *(display_width(label) for label in labels))
    gap = "  "
    if longest + sum(len(gap) + column.width for column in columns) > width:
        gap = " "
    numbers = sum(len(gap) + column.width for column in columns)
    label_width = max(len(first), min(longest, width - numbers))

    def line(label: str, cells: Sequence[str]) -> str:
        return (label + " " * (label_width - display_width(label)) + "".join(
            f"{gap}{cell:>{column.width}}" for cell, column in zip(cells, columns, strict=True))
                ).rstrip()

    lines = [line("", [c.head[0] for c in columns])] if any(c.head[0] for c in columns) else []
    lines.append(line(first, [c.head[1] for c in columns]))
    wrapped = label_width >= LEAST_LABEL
    pieces: list[str] = []
    for index, label in enumerate(labels):
        cells = [column.cells[index] for column in columns]
        if display_width(label) <= label_width:
            lines.append(line(label, cells))
            continue
        new = index == 0 or labels[index - 1] != label
        if wrapped:
            pieces = _wrap_label(label, label_width) if new else pieces
            lines.append(line(pieces.pop(0) if pieces else "", cells))
            last = index + 1 == len(labels) or labels[index + 1] != label
            lines += pieces if last else []
            pieces = [] if last else pieces
            continue
        if new:
            lines.append(label)
        lines.append(line("", cells))
    return lines


LEAST_LABEL = 12
"""Columns below which a label is not wrapped in its column (it takes a line of its own)."""


def table_lines(results: Sequence[BotResults], *, seats: bool = True,
                width: int = TABLE_WIDTH, file: str | None = "standings.csv") -> list[str]:
    """A text table within ``width`` columns: one row per bot (best first as given), then
    (``seats``) one per bot and seat. Columns are as wide as their contents; a bot's label
    too long to share a line with its numbers has a line of its own. Columns left out for
    the width are named, and the ``file`` that has them (None: none is written)."""
    overall = _tally_columns([(r.overall, r.total_points) for r in results])
    if any(r.buchholz is not None for r in results):
        overall += [_Column(("", "byes"), [str(r.byes) for r in results]),
                    _Column(("", "buchholz"), [f"{r.buchholz or 0.0:.1f}" for r in results])]
    by_seat = [(r.label, seat, tally) for r in results for seat, tally in enumerate(r.by_seat)]
    columns = [_Column(("", "seat"), [str(seat) for _, seat, _ in by_seat]),
               *_tally_columns([(tally, tally.points) for _, _, tally in by_seat])]
    overall, dropped = _fitting(overall, width)
    if seats:  # the wider table decides, so that both tables show the same columns
        columns, dropped = _fitting(columns, width, dropped)
        overall, dropped = _fitting(overall, width, dropped)
    rows = _layout("bot", [r.label for r in results], overall, width)
    if seats:
        rows += ["", *_layout("bot", [label for label, _, _ in by_seat], columns, width)]
    if dropped:
        has = "a wider terminal" + (f" or {file}" if file else "")
        rows += wrap(f"(left out at {width} columns: {', '.join(dropped)}; {has} has them)",
                     width)
    failures = [f"{r.label}: " + ", ".join(f"{k} {v}" for k, v in sorted(
        r.overall.failures.items())) for r in results if r.overall.failures]
    if failures:
        rows += ["", *wrap("failures: " + "; ".join(failures), width)]
    stopped = [f"{r.label} {r.overall.stopped}" for r in results if r.overall.stopped]
    if stopped:
        rows += ["", *wrap("stopped by another seat's failure (places there are the standing "
                           "when it stopped; ratings and pairs count only the failed seat's "
                           "losses): " + ", ".join(stopped), width)]
    return rows


def wrap(text: str, width: int = TABLE_WIDTH, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken between words only (a
    word longer than a line, such as a long path, keeps a line of its own). Each of its
    lines (``\\n``) is wrapped alone, the lines after its first keeping its indentation
    plus ``indent``; an empty one stays an empty line. No text, no lines."""
    lines: list[str] = []
    for paragraph in text.split("\n") if text else []:
        lead = paragraph[:len(paragraph) - len(paragraph.lstrip(" "))]
        lines += textwrap.wrap(paragraph, max(20, width), subsequent_indent=lead + indent,
                               break_long_words=False, break_on_hyphens=False) or [""]
    return lines


def legend_lines(seats: int, width: int = TABLE_WIDTH, *, byes: bool = False) -> list[str]:
    """What the standings' columns mean, in lines of at most ``width`` characters (with
    ``byes``, what a Swiss bye counts in)."""
    if seats == 2:
        counted = ("win: the better result; draw: an equal one; points: 1 per win, 1/2 per "
                   "draw")
    else:
        counted = (f"win: first place alone; draw: first place shared; loss: any other place;"
                   f" points: per game, (players beaten + 1/2 tied) / {seats - 1}")
    return wrap(counted + "; score: points per game as a percentage; mean score: the game's "
                "own score (Seasons: points on the board; Sonnentau: pieces brought home); "
                "mean rank: 1 is first" + ("; a bye: a win's points, in points (and the "
                                           "order) only; games, wins and score are of games "
                                           "played" if byes else ""), width)


def text_table(headers: Sequence[str], rows: Sequence[Sequence[object]], text_columns: int,
               width: int = TABLE_WIDTH) -> list[str]:
    """A plain table, its columns as wide as their widest cell (long names fit); the
    first ``text_columns`` columns are text, left-aligned, the others numbers. A table
    wider than ``width`` wraps its widest text cells onto lines below, its numbers beside
    each row's first line; where even that does not fit, each row takes two lines: its
    text, then its numbers below, indented."""
    lines = _plain(headers, rows, text_columns, "  ")
    if max(map(display_width, lines)) <= width:
        return lines
    text_rows = [[str(cell) for cell in row[:text_columns]] for row in rows]
    beside = _beside_the_numbers(headers, rows, text_columns, text_rows, width)
    if beside:
        return beside
    pieces = _wrapped_widest(headers[:text_columns], text_rows, width)
    flat = [line for row in pieces for line in row]
    texts = _plain(headers[:text_columns], flat, text_columns, "  ")
    numbers = _plain(headers[text_columns:], [row[text_columns:] for row in rows], 0,
                     "      ")
    out = [texts[0], numbers[0], texts[1], numbers[1]]  # headers, then rules
    at = 2
    for row, number in zip(pieces, numbers[2:], strict=True):
        out += [*texts[at:at + len(row)], number]
        at += len(row)
    return [line for line in out if line.strip()]


def _beside_the_numbers(headers: Sequence[str], rows: Sequence[Sequence[object]],
                        text_columns: int, text_rows: Sequence[list[str]], width: int
                        ) -> list[str]:
    """The table in ``width`` with its numbers beside their row's text, the widest text
    cells wrapped onto lines of their own below (a label at its ``@`` and ``+``); none if
    that does not fit."""
    numbers = [[str(cell) for cell in row[text_columns:]] for row in rows]
    number_widths = [max(display_width(cell) for cell in column)
                     for column in zip(headers[text_columns:], *numbers, strict=True)]
    room = width - 2 - sum(w + 2 for w in number_widths)
    pieces = _wrapped_widest(headers[:text_columns], text_rows, room)
    flat = [[*line, *(numbers[index] if n == 0 else [""] * len(number_widths))]
            for index, row in enumerate(pieces) for n, line in enumerate(row)]
    lines = _plain(headers, flat, text_columns, "  ")
    return lines if max(map(display_width, lines)) <= width else []


def _wrapped_widest(headers: Sequence[str], rows: Sequence[list[str]], width: int
                    ) -> list[list[list[str]]]:
    """Each row's text cells as lines of cells: the widest columns' cells wrapped, widest
    first, until the text columns fit ``width`` (a long tournament name, a long bot label,
    a long file name beside it), the other cells on a row's first line. Wrapped between
    words, else after a hyphen, and a word longer than the room left (a name with no
    break) in pieces that fit; no column narrower than 12 or its header."""
    widths = [max(display_width(str(cell)) for cell in column)
              for column in zip(headers, *rows, strict=True)]
    least = [max(12, len(header)) for header in headers]
    rooms = list(widths)
    while sum(rooms) + 2 * len(rooms) > width:
        shrinkable = [i for i in range(len(rooms)) if rooms[i] > least[i]]
        if not shrinkable:
            break
        rooms[max(shrinkable, key=rooms.__getitem__)] -= 1  # the widest first, evenly
    if rooms == widths:
        return [[row] for row in rows]
    grouped = []
    for row in rows:
        parts = [_wrap_label(cell, room) if room < widths[i] else [cell]
                 for i, (cell, room) in enumerate(zip(row, rooms, strict=True))]
        grouped.append([[column[n] if n < len(column) else "" for column in parts]
                        for n in range(max(map(len, parts)))])
    return grouped


_BREAKS = re.compile(r"(?<=[\s/_-])|(?=[@+])")


def _wrap_label(text: str, room: int) -> list[str]:
    """``text`` in lines of at most ``room`` columns, broken between words, after ``-``,
    ``_`` and ``/``, before ``@`` and ``+`` (a label's version and revision), a piece
    longer than the room (a name with no break) in pieces that fit."""
    lines: list[str] = []
    line = ""
    for piece in (p for p in _BREAKS.split(text) if p):
        if display_width(line + piece) <= room:
            line += piece
            continue
        if line.strip():
            lines.append(line.rstrip())
        line = piece.lstrip()
        while display_width(line) > room:
            head = _fitting_prefix(line, room)
            lines.append(head)
            line = line[len(head):]
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return lines


def _fitting_prefix(text: str, room: int) -> str:
    """The longest start of ``text`` within ``room`` columns (wide letters take two) that
    keeps each letter with its combining marks; one letter at least."""
    end = 0
    for index in range(1, len(text) + 1):
        if index < len(text) and unicodedata.combining(text[index]):
            continue  # never between a letter and its marks
        if display_width(text[:index]) > room:
            break
        end = index
    return text[:end] if end else text[:1]


def display_width(text: str) -> int:
    """The columns ``text`` takes on a terminal: two for a wide letter (CJK, most emoji),
    none for a combining mark, one for the others."""
    if text.isascii():
        return len(text)
    return sum(0 if unicodedata.combining(char) else
               2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def _plain(headers: Sequence[str], rows: Sequence[Sequence[object]], text_columns: int,
           indent: str) -> list[str]:
    """Columns as wide as their widest cell and two spaces apart, under a rule of dashes
    (tabulate would pad each header by two more)."""
    cells = [[str(cell) for cell in row] for row in (headers, *rows)]
    widths = [max(display_width(row[column]) for row in cells)
              for column in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return indent + "  ".join(
            cell + " " * (width - display_width(cell)) if column < text_columns
            else " " * (width - display_width(cell)) + cell
            for column, (cell, width) in enumerate(zip(row, widths, strict=True))).rstrip()

    return [line(cells[0]), indent + "  ".join("-" * width for width in widths),
            *(line(row) for row in cells[1:])]
