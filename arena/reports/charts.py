"""Charts for the HTML report: matplotlib figures as small inline SVG.

No pyplot and no global backend: each chart is a :class:`matplotlib.figure.Figure`
saved as SVG with text kept as text (``svg.fonttype: none``), then trimmed for
inlining (no XML prolog, no metadata, no fixed size, ids unique per chart).

Lines are named at their ends, right of the plot, not in a legend: the names are
spread apart so that none overlaps another (:func:`spread`), and with many bots
only the best are bold and named, the others faint (their names show on hover).

Each chart is drawn twice: wide, for a window, and narrow (:data:`NARROW`), for a
phone, where the page shows it at its own size: text at 13 px, fewer ticks, and the
names in a list below the plot instead of beside it.
"""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import matplotlib
from markupsafe import escape
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

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
HIGHLIGHTED = 5
"""Bots drawn bold and named in the progression chart (the best by μ − 3σ)."""
HIGHLIGHTED_VERSIONS = 8
"""Versions drawn bold and named in the versions chart at most (the best by their last value)."""
BANDS_UP_TO = 3
"""The ±σ bands are drawn for this many bots at most: more would hide each other."""
LABEL_SIZE = 8.5


@dataclass(frozen=True)
class Size:
    """How big a chart is drawn: in inches (96 CSS px each, as the page shows it at most)
    and points (4/3 px)."""

    width: float
    height: float
    font: float
    label: float
    ticks: int
    """Ticks of an axis at most."""
    suffix: str = ""
    """Added to the chart's name (its SVG ids and class)."""

    @property
    def narrow(self) -> bool:
        return bool(self.suffix)


WIDE = Size(11.0, 3.8, 9.0, LABEL_SIZE, MAX_TICKS)
NARROW = Size(3.5, 2.7, 10.0, 10.0, 4, "-narrow")
"""336 px wide: a card's content on a 390 px phone holds it unscaled, its text at 13.3 px
(12.4 px on a 360 px phone). ``height`` is the plot's; the list of names adds to it."""
NARROW_NAMED = 6
"""Lines named below a narrow chart at most."""
NARROW_CHARS = 38
"""Characters of a name in a narrow chart's list at most (its width after the swatch)."""
WIDE_CHARS = 48
"""Characters of a name beside a wide chart at most (a longer one is cut in its middle)."""


def text(label: str) -> str:
    """A label as matplotlib shows it literally: ``$`` is not maths, ``_x`` not hidden."""
    label = label.replace("$", r"\$")
    return "\u200b" + label if label.startswith("_") else label


def _style(name: str) -> Any:
    return {**STYLE, "svg.hashsalt": f"arena-{name}"}


@contextmanager
def chart(name: str, width: float = 11.0, height: float = 3.8, font: float = 9.0
          ) -> Iterator[tuple[Figure, Axes]]:
    """A figure and its axes in the report's style; ``name`` keeps its SVG ids apart."""
    with matplotlib.rc_context({**_style(name), "font.size": font}), warnings.catch_warnings():
        # Text stays text in the SVG, drawn by the browser's fonts: a glyph (CJK, emoji) that
        # matplotlib's own font lacks only makes its measure of the text approximate.
        warnings.filterwarnings("ignore", "Glyph .* missing from", UserWarning)
        figure = Figure(figsize=(width, height), layout="constrained")
        yield figure, figure.add_subplot()


def to_svg(figure: Figure, name: str, title: str,
           tooltips: Mapping[str, str] | None = None, *, narrow: bool = False) -> str:
    """The figure as an inline ``<svg>`` element that scales to its container."""
    with matplotlib.rc_context(_style(name)), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Glyph .* missing from", UserWarning)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", transparent=True,
                       metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    return inline_svg(buffer.getvalue(), name, title, tooltips, narrow=narrow)


_ROOT_SIZE = re.compile(r'<svg ([^>]*?)width="([\d.]+)pt" height="[\d.]+pt"')
_STYLE = re.compile(r"<style[^>]*>.*?</style>", re.S)
_PROLOG = re.compile(r"\A.*?(?=<svg[\s>])", re.S)


def inline_svg(svg: str, name: str, title: str, tooltips: Mapping[str, str] | None = None,
               *, narrow: bool = False) -> str:
    """Trim matplotlib's SVG document for inlining into HTML; ``tooltips`` maps an
    artist's gid to the text shown when the pointer rests on it. The page shows a
    ``narrow`` chart (class ``narrow``) on a phone, the other one elsewhere."""
    svg = _PROLOG.sub("", svg, count=1)
    svg = _STYLE.sub("", svg, count=1)
    for gid, tip in (tooltips or {}).items():
        svg = svg.replace(f'<g id="{gid}">', f'<g id="{gid}"><title>{escape(tip)}</title>', 1)
    kind = "narrow" if narrow else "wide"
    # as wide as the card allows, up to its own size (a narrow chart is not blown up)
    return _ROOT_SIZE.sub(lambda m: f'<svg {m[1]}class="chart chart-{name} {kind}" role="img" '
                          f'style="max-width: {float(m[2]) * 4 / 3:.0f}px" '
                          f'aria-label="{escape(title)}"', svg, count=1).strip()


# -- labels at the end of the lines ---------------------------------------------------


@dataclass(frozen=True)
class EndLabel:
    """A line's name, written right of the plot at the height where the line ends."""

    y: float
    text: str
    colour: str
    gid: str


def spread(values: Sequence[float], gap: float, low: float, high: float) -> list[float]:
    """Positions near ``values`` (in their order) at least ``gap`` apart, within
    [low, high] where they fit: labels that do not overlap. Labels that would overlap
    are stacked, centred on their values' mean."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    stacks: list[tuple[float, list[float]]] = []  # (lowest position, the values stacked)
    for i in order:
        stacked, start = [values[i]], values[i]
        while stacks and stacks[-1][0] + len(stacks[-1][1]) * gap > start:
            stacked = stacks.pop()[1] + stacked
            start = sum(stacked) / len(stacked) - (len(stacked) - 1) * gap / 2
        stacks.append((start, stacked))
    placed = [start + k * gap for start, stacked in stacks for k in range(len(stacked))]
    for k in range(len(placed)):  # within the bounds, still apart
        placed[k] = max(placed[k], low, placed[k - 1] + gap if k else low)
    for k in range(len(placed) - 1, -1, -1):
        ceiling = high if k == len(placed) - 1 else placed[k + 1] - gap
        placed[k] = max(min(placed[k], ceiling), low + k * gap)
    result = [0.0] * len(values)
    for k, i in enumerate(order):
        result[i] = placed[k]
    return result


def label_gap(figure: Figure, ax: Axes, fontsize: float) -> float:
    """The height of one label line in data units of ``ax``'s y axis, as laid out now."""
    figure.draw_without_rendering()
    height = ax.get_window_extent().height
    low, high = ax.get_ylim()
    line = fontsize * 1.45 * figure.dpi / 72
    return line / max(height, 1.0) * (high - low)


def fitting_labels(figure: Figure, ax: Axes) -> int:
    """How many end labels fit beside the plot's height."""
    low, high = ax.get_ylim()
    return max(1, int((high - low) / label_gap(figure, ax, LABEL_SIZE)) + 1)


def name_lines(figure: Figure, ax: Axes, lines: Sequence[Any],
               ends: Sequence[tuple[float, float]], labels: Sequence[EndLabel],
               size: Size) -> None:
    """Name ``lines``: at their ends beside the plot (:func:`end_labels`), or in a narrow
    chart in a list below it, best (highest) first, each after its line's look."""
    if not size.narrow:
        end_labels(figure, ax, ends, labels)
        return
    order = sorted(range(len(labels)), key=lambda i: -labels[i].y)
    legend = figure.legend([lines[i] for i in order],
                           [text(_middle_cut(labels[i].text, NARROW_CHARS)) for i in order],
                           loc="outside lower left", ncols=1, fontsize=size.label,
                           handlelength=1.6, borderaxespad=0.2, labelspacing=0.3)
    entries = legend.get_texts()
    for entry, i in zip(entries, order, strict=True):
        entry.set_gid(labels[i].gid)
    _fit_width(figure, entries, [labels[i].text for i in order])


def _fit_width(figure: Figure, entries: Sequence[Any], names: Sequence[str]) -> None:
    """Cut each name of a narrow chart's list in its middle until it ends inside the
    figure: wide letters (W, CJK) run out at fewer characters than :data:`NARROW_CHARS`."""
    limits = [NARROW_CHARS] * len(entries)
    for _ in range(8):
        figure.draw_without_rendering()
        right = figure.bbox.width - 2
        wide = [k for k, entry in enumerate(entries)
                if entry.get_window_extent().x1 > right and limits[k] > 12]
        if not wide:
            return
        for k in wide:
            limits[k] -= 4
            entries[k].set_text(text(_middle_cut(names[k], limits[k])))


def end_labels(figure: Figure, ax: Axes, ends: Sequence[tuple[float, float]],
               labels: Sequence[EndLabel]) -> None:
    """Write ``labels`` right of the axes, spread apart, each after a swatch of its line's
    colour and joined to its line's end ``ends[i]`` (x, y in data) when it had to move."""
    ax.set_ylim(*ax.get_ylim())  # fixed from here on: the spread depends on it
    gap = label_gap(figure, ax, LABEL_SIZE)
    low, high = ax.get_ylim()
    heights = spread([label.y for label in labels], gap, low, high)
    beside = ax.get_yaxis_transform()  # x in axes fractions, y in data
    for (x, y), label, height in zip(ends, labels, heights, strict=True):
        if abs(height - y) > gap / 4:
            ax.annotate("", xy=(x, y), xycoords="data", xytext=(1.005, height),
                        textcoords=beside, annotation_clip=False,
                        arrowprops={"arrowstyle": "-", "color": label.colour,
                                    "linewidth": 0.8, "shrinkA": 0, "shrinkB": 0})
        ax.plot([1.005, 1.025], [height, height], transform=beside, color=label.colour,
                linewidth=3, clip_on=False, solid_capstyle="butt")
        ax.text(1.03, height, text(_middle_cut(label.text, WIDE_CHARS)), transform=beside,
                va="center", ha="left",
                fontsize=LABEL_SIZE, color=INK, clip_on=False, gid=label.gid)


# -- the charts -------------------------------------------------------------------------


def progression_chart(bots: Sequence[Bot], progress: Mapping[int, Sequence[ProgressPoint]],
                      initial: Rating, system: str, size: Size = WIDE) -> str:
    """Each bot's μ after each of its games (from the initial rating). The best
    :data:`HIGHLIGHTED` (``bots`` come best first) are bold and named beside the plot,
    with a ±σ band when there are few; the others are faint lines in their colours."""
    name = f"progress{size.suffix}"
    shown = bots[:HIGHLIGHTED]
    tooltips = {}
    named = len(shown) * 0.24 if size.narrow else 0.0
    with chart(name, size.width, size.height + named, size.font) as (figure, ax):
        ends, labels, bold_lines = [], [], []
        for bot in reversed(bots):
            points = [ProgressPoint(0, initial.mu, initial.sigma),
                      *progress.get(bot.index, ())]
            games, mus = [p.games for p in points], [p.mu for p in points]
            bold = bot in shown
            gid = f"{name}-line-{bot.index}"
            tooltips[gid] = f"{bot.label}: μ {mus[-1]:.2f} after {games[-1]} games"
            if bold and len(bots) <= BANDS_UP_TO:
                ax.fill_between(games, [p.mu - p.sigma for p in points],
                                [p.mu + p.sigma for p in points],
                                color=bot.colour, alpha=0.12, linewidth=0)
            line, = ax.plot(games, mus, color=bot.colour, linewidth=2.1 if bold else 0.9,
                            alpha=1.0 if bold else 0.45, zorder=3 if bold else 2, gid=gid)
            if bold:
                ends.append((games[-1], mus[-1]))
                bold_lines.append(line)
                labels.append(EndLabel(mus[-1], f"{bot.label}  {mus[-1]:.1f}", bot.colour,
                                       f"{name}-label-{bot.index}"))
        ax.set_xlabel("games played by the bot")
        band = "  (band: ±σ)" if len(bots) <= BANDS_UP_TO else ""
        ax.set_ylabel(f"{system} μ{band}")
        ax.set_xlim(0, max([1, *(x for x, _ in ends)]))
        _few_ticks(ax, size)
        name_lines(figure, ax, bold_lines, ends, labels, size)
        return to_svg(figure, name, "Rating progression: μ per bot against games played",
                      tooltips, narrow=size.narrow)


def _few_ticks(ax: Axes, size: Size) -> None:
    """At most ``size.ticks`` ticks on each axis of a narrow chart (whole games on x)."""
    if size.narrow:
        ax.xaxis.set_major_locator(MaxNLocator(nbins=size.ticks, integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(nbins=size.ticks + 1))


def versions_chart(history: VersionHistory, colours: Mapping[str, str],
                   size: Size = WIDE) -> str:
    """All-time μ − 3σ of each version of each bot after every tournament it played. The
    versions with the best last value are bold and named, as many as fit beside the plot;
    the others are faint."""
    name = f"versions{size.suffix}"
    series = sorted(history.series.items(),
                    key=lambda s: -s[1][-1].rating.conservative if s[1] else 0.0)
    named = min(NARROW_NAMED, len(series)) if size.narrow else 0
    width = size.width if size.narrow else min(11.0, 6.0 + 0.45 * len(history.tournaments))
    with chart(name, width, size.height + 0.24 * named + (0.5 if size.narrow else 0.0),
               size.font) as (figure, ax):
        _tournament_axis(ax, history, size)
        ax.set_ylabel("all-time μ − 3σ")
        if size.narrow:
            ax.yaxis.set_major_locator(MaxNLocator(nbins=size.ticks + 1))
        tooltips, lines = {}, []
        markers: dict[str, int] = {}
        for rank, ((bot, version), points) in enumerate(series):
            order = markers[bot] = markers.get(bot, -1) + 1
            ys = [p.rating.conservative for p in points]
            gid = f"{name}-line-{rank}"
            tooltips[gid] = f"{bot}@{version}: all-time μ − 3σ {ys[-1]:.2f}"
            colour = colours.get(bot, MUTED)
            line, = ax.plot([p.tournament for p in points], ys, color=colour,
                            marker=MARKERS[order % len(MARKERS)], markersize=4, linewidth=0.9,
                            alpha=0.4, linestyle="-" if order % 2 == 0 else "--", zorder=2,
                            gid=gid)
            end = EndLabel(ys[-1], f"{bot}@{version}  {ys[-1]:.1f}", colour,
                           f"{name}-label-{rank}")
            lines.append((line, (float(points[-1].tournament), ys[-1]), end))
        limit = named if size.narrow else min(HIGHLIGHTED_VERSIONS, fitting_labels(figure, ax))
        for line, _point, _label in lines[:limit]:
            line.set(markersize=6, linewidth=1.7, alpha=1.0, zorder=3)
        shown = lines[:limit]
        name_lines(figure, ax, [line for line, _, _ in shown], [point for _, point, _ in shown],
                   [label for _, _, label in shown], size)
        return to_svg(figure, name,
                      "Rating across versions: all-time μ − 3σ after each tournament", tooltips,
                      narrow=size.narrow)


def _tournament_axis(ax: Axes, history: VersionHistory, size: Size) -> None:
    count = len(history.tournaments)
    step = max(1, -(-count // size.ticks))
    ticks = sorted({*range(0, count, step), history.current})
    turned = count > 3 or (size.narrow and count > 1)
    limit = 14 if size.narrow else 22
    ax.set_xticks(ticks, [text(_short(history.tournaments[t], limit)) for t in ticks],
                  rotation=30 if turned else 0, ha="right" if turned else "center",
                  rotation_mode="anchor")
    # the last tournament at the right edge, close to the names of the lines
    ax.set_xlim(-0.5 if count > 1 else -0.4, count - 1 + (0.25 if count > 1 else 0.2))
    half = 0.4 if count > 1 else 0.12
    ax.axvspan(history.current - half, history.current + half, color="#fde68a", alpha=0.5,
               linewidth=0, zorder=0)
    ax.grid(axis="x", visible=False)
    # from the plot's left edge: centred under a plot narrowed by long names beside it,
    # the label ran out of the chart on the left
    ax.set_xlabel("tournaments, oldest first\n(this one highlighted)" if size.narrow else
                  "tournaments of this game, oldest first (this one highlighted)", loc="left")


def _middle_cut(name: str, limit: int) -> str:
    """``name`` within ``limit`` characters, its middle cut out: the start and the end
    stay, where names that differ (a number, the revision, the value) tell them apart."""
    if len(name) <= limit:
        return name
    tail = (limit - 1) * 3 // 5
    return name[:limit - 1 - tail] + "…" + name[-tail:]


def _short(name: str, limit: int = 22) -> str:
    return name if len(name) <= limit else name[:limit - 1] + "…"
