"""Laying out what a person at the terminal reads: lines fitted to its width, and the
numbered choices packed in columns (as ``ls`` packs file names) and cut into pages that
fit the rows left under the position."""

from __future__ import annotations

import math
import shutil
import textwrap
from collections.abc import Sequence

SCREEN = (80, 24)
"""The terminal (columns, rows) the game's screens are made for."""
COLUMN_GAP = 3
MIN_COLUMN = 8
CONTINUATION = " " * 4


def terminal_size() -> tuple[int, int]:
    """(columns, rows) of the terminal; 80×24 where there is none."""
    size = shutil.get_terminal_size((80, 24))
    return max(20, size.columns), max(10, size.lines)


def fit(lines: Sequence[str], width: int) -> list[str]:
    """Every line at most ``width`` columns: a longer one wraps, its rest indented."""
    fitted: list[str] = []
    for line in lines:
        if len(line) <= width:
            fitted.append(line)
        else:
            fitted += textwrap.wrap(line, width, subsequent_indent=CONTINUATION)
    return fitted


def numbered(labels: Sequence[str]) -> list[str]:
    """``" 7. label"``, the numbers right-aligned to the widest."""
    digits = len(str(len(labels)))
    return [f"{n:>{digits}}. {label}" for n, label in enumerate(labels, 1)]


def grid(items: Sequence[str], width: int) -> list[str]:
    """``items`` in the most columns that fit ``width``, top to bottom, then left to right;
    an item wider than the screen is cut short."""
    items = [item if len(item) <= width else item[:width - 3] + "..." for item in items]
    most = min(len(items), width // MIN_COLUMN)
    for columns in range(most, 1, -1):
        height = math.ceil(len(items) / columns)
        cols = [items[i:i + height] for i in range(0, len(items), height)]
        widths = [max(map(len, col)) for col in cols]
        if sum(widths) + COLUMN_GAP * (len(cols) - 1) <= width:
            return [_grid_row(cols, widths, row) for row in range(height)]
    return list(items)


def _grid_row(cols: list[list[str]], widths: list[int], row: int) -> str:
    cells = [col[row].ljust(w) for col, w in zip(cols, widths, strict=True) if row < len(col)]
    return (" " * COLUMN_GAP).join(cells).rstrip()


def pages(items: Sequence[str], width: int, rows: int) -> list[range]:
    """Cut ``items`` into consecutive pages, each of as many items as fit ``rows`` rows of
    :func:`grid` (at least one a page)."""
    found: list[range] = []
    start = 0
    while start < len(items):
        end = start + 1
        while end < len(items) and len(grid(items[start:end + 1], width)) <= rows:
            end += 1
        found.append(range(start, end))
        start = end
    return found
