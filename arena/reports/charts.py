"""Charts for the HTML report: matplotlib figures as small inline SVG.

No pyplot and no global backend: each chart is a :class:`matplotlib.figure.Figure`
saved as SVG with text kept as text (``svg.fonttype: none``), then trimmed for
inlining (no XML prolog, no metadata, no fixed size, ids unique per chart).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from arena.reports.model import Bot, ProgressPoint, VersionHistory
from arena.results.ratings import Rating

FONTS = ["system-ui", "-apple-system", "Segoe UI", "Roboto", "Helvetica Neue", "Arial",
         "DejaVu Sans"]
INK = "#1f2937"
MUTED = "#6b7280"
GRID = "#e5e7eb"
STYLE: dict[str, Any] = {
    "svg.fonttype": "none",
    "font.family": "sans-serif",
    "font.sans-serif": FONTS,
    "font.size": 9,
    "text.color": INK,
    "axes.labelcolor": INK,
    "axes.edgecolor": "#9ca3af",
    "axes.linewidth": 0.8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.axisbelow": True,
    "grid.color": GRID,
    "grid.linewidth": 0.7,
    "xtick.color": MUTED,
    "ytick.color": MUTED,
    "legend.frameon": False,
    "legend.fontsize": 8.5,
}
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
MAX_TICKS = 14


def text(label: str) -> str:
    """A label as matplotlib shows it literally: ``$`` is not maths, ``_x`` not hidden."""
    label = label.replace("$", r"\$")
    return "\u200b" + label if label.startswith("_") else label


def _style(name: str) -> Any:
    return {**STYLE, "svg.hashsalt": f"arena-{name}"}


@contextmanager
def chart(name: str, width: float = 7.2, height: float = 3.4) -> Iterator[tuple[Figure, Axes]]:
    """A figure and its axes in the report's style; ``name`` keeps its SVG ids apart."""
    with matplotlib.rc_context(_style(name)):
        figure = Figure(figsize=(width, height), layout="constrained")
        yield figure, figure.add_subplot()


def to_svg(figure: Figure, name: str, title: str) -> str:
    """The figure as an inline ``<svg>`` element that scales to its container."""
    with matplotlib.rc_context(_style(name)):
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", transparent=True,
                       metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    return inline_svg(buffer.getvalue(), name, title)


_ROOT_SIZE = re.compile(r'<svg ([^>]*?)width="[\d.]+pt" height="[\d.]+pt"')
_STYLE = re.compile(r"<style[^>]*>.*?</style>", re.S)
_PROLOG = re.compile(r"\A.*?(?=<svg[\s>])", re.S)


def inline_svg(svg: str, name: str, title: str) -> str:
    """Trim matplotlib's SVG document for inlining into HTML."""
    svg = _PROLOG.sub("", svg, count=1)
    svg = _STYLE.sub("", svg, count=1)
    label = (title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
             .replace('"', "&quot;"))
    return _ROOT_SIZE.sub(lambda m: f'<svg {m[1]}class="chart chart-{name}" role="img" '
                          f'aria-label="{label}"', svg, count=1).strip()


def progression_chart(bots: Sequence[Bot], progress: Mapping[int, Sequence[ProgressPoint]],
                      initial: Rating, system: str) -> str:
    """Each bot's μ after each of its games (from the initial rating), with a ±σ band."""
    with chart("progress") as (figure, ax):
        for bot in bots:
            points = [ProgressPoint(0, initial.mu, initial.sigma),
                      *progress.get(bot.index, ())]
            games = [p.games for p in points]
            ax.fill_between(games, [p.mu - p.sigma for p in points],
                            [p.mu + p.sigma for p in points],
                            color=bot.colour, alpha=0.12, linewidth=0)
            ax.plot(games, [p.mu for p in points], color=bot.colour, linewidth=1.8,
                    label=text(bot.label))
        ax.set_xlabel("games played by the bot")
        ax.set_ylabel(f"{system} μ  (band: ±σ)")
        ax.set_xlim(left=0)
        _legend(ax, len(bots))
        return to_svg(figure, "progress", "Rating progression: μ per bot against games played")


def _legend(ax: Axes, entries: int) -> None:
    if entries == 0:
        return
    if entries <= 8:
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=min(entries, 4),
                  handlelength=1.6, columnspacing=1.4)
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), handlelength=1.6)


def versions_chart(history: VersionHistory, colours: Mapping[str, str]) -> str:
    """All-time μ − 3σ of each version of each bot after every tournament it played."""
    with chart("versions") as (figure, ax):
        versions_seen: dict[str, int] = {}
        for (name, version), points in sorted(history.series.items(), key=lambda s: s[0][0]):
            order = versions_seen.setdefault(name, 0)
            versions_seen[name] = order + 1
            xs = [p.tournament for p in points]
            ys = [p.rating.conservative for p in points]
            colour = colours.get(name, MUTED)
            ax.plot(xs, ys, color=colour, marker=MARKERS[order % len(MARKERS)],
                    markersize=6, linewidth=1.6, linestyle="-" if order % 2 == 0 else "--",
                    label=text(f"{name}@{version}"))
            ax.annotate(f"{ys[-1]:.1f}", (xs[-1], ys[-1]), xytext=(7, 0),
                        textcoords="offset points", va="center", fontsize=8, color=colour)
        _tournament_axis(ax, history)
        ax.set_ylabel("all-time μ − 3σ")
        _legend(ax, len(history.series))
        return to_svg(figure, "versions",
                      "Rating across versions: all-time μ − 3σ after each tournament")


def _tournament_axis(ax: Axes, history: VersionHistory) -> None:
    count = len(history.tournaments)
    step = max(1, -(-count // MAX_TICKS))
    ticks = sorted({*range(0, count, step), history.current})
    ax.set_xticks(ticks, [text(_short(history.tournaments[t])) for t in ticks],
                  rotation=25 if count > 3 else 0, ha="right" if count > 3 else "center")
    ax.set_xlim(-0.5, count - 0.5)
    half = 0.4 if count > 1 else 0.12
    ax.axvspan(history.current - half, history.current + half, color="#fde68a", alpha=0.5,
               linewidth=0, zorder=0)
    ax.grid(axis="x", visible=False)
    ax.set_xlabel("tournaments of this game, oldest first (this one highlighted)")


def _short(name: str, limit: int = 22) -> str:
    return name if len(name) <= limit else name[:limit - 1] + "…"
