"""Sonnentau boards as SVG: tracks, fields, entries, start, goal, and pieces.

``draw_board(board)`` draws an empty board, ``draw_board(board, state)`` adds
the pieces of a position (balls coloured by seat; pieces on the start and home
as counted rows beside the start and the goal) and a line about the dice.
The drawing uses the board file's coordinates (y up, one unit = one circle
radius on the default board); no dependency beyond the standard library.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from xml.sax.saxutils import escape

from arena.games.sonnentau.board import Board, Track
from arena.games.sonnentau.rules import HIT, HOME, PIECES, START, SonnentauState

SCALE = 130.0
"""Pixels per board unit."""
MARGIN = 0.12
PANEL = 3.1
FIELD_R = 0.072
PIECE_R = 0.085
GOAL_R = 0.11
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"

TRACK_COLOURS = ("#2f7fbf", "#3f9a4a", "#8e63b5", "#8e63b5", "#d0453c", "#c98a1c", "#3aa3a3")
FINAL_COLOUR = "#d0453c"
SEAT_COLOURS = ("#f4c20d", "#d8432f", "#2f6fd0", "#2e9a48")
SEAT_NAMES = ("yellow", "red", "blue", "green")
PAPER = "#fbf6ec"
LEATHER = "#f1e2c6"
LEATHER_EDGE = "#8a5a2b"
INK = "#2b2118"
ENTRY_FILL = "#ffd21f"
CROSSING_FILL = "#4a4a4a"


@dataclass(frozen=True)
class _Frame:
    """Maps board coordinates (y up) to SVG pixels (y down)."""

    left: float
    top: float

    def x(self, x: float) -> float:
        return round((x - self.left) * SCALE, 1)

    def y(self, y: float) -> float:
        return round((self.top - y) * SCALE, 1)

    def px(self, length: float) -> float:
        return round(length * SCALE, 1)


def draw_board(board: Board, state: SonnentauState | None = None) -> str:
    """An SVG document of ``board``, with the pieces of ``state`` if given."""
    (cx, cy), radius = _disc(board)
    frame = _Frame(cx - radius - MARGIN, cy + radius + MARGIN)
    board_width = (2 * radius + 2 * MARGIN) * SCALE
    width = board_width + PANEL * SCALE
    height = (2 * radius + 2 * MARGIN) * SCALE
    parts = [_header(width, height), _defs(), _background(board, frame, width, height)]
    parts += _tracks(board, frame)
    parts += _fields(board, frame)
    parts += _start(board, frame)
    if state is not None:
        parts += _pieces(state, frame)
    parts += _legend(board, state, board_width - 10)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


# -- geometry ---------------------------------------------------------------------


def _bounds(board: Board) -> tuple[float, float, float, float]:
    xs = [x for x, _ in board.coordinates] + [board.start_position[0]]
    ys = [y for _, y in board.coordinates] + [board.start_position[1]]
    for track in board.tracks:
        if track.centre is not None and track.radius is not None:
            (cx, cy), r = track.centre, track.radius
            xs += [cx - r, cx + r]
            ys += [cy - r, cy + r]
    return min(xs), max(xs), min(ys), max(ys)


def _track_centre(board: Board, track: Track) -> tuple[float, float]:
    if track.centre is not None:
        return track.centre
    points = [board.coordinates[f] for f in track.fields]
    return (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))


def _outward(board: Board, field: int) -> tuple[float, float]:
    """A unit vector pointing away from the centres of the circles through ``field``."""
    x, y = board.coordinates[field]
    dx = dy = 0.0
    for track_id in board.tracks_at[field]:
        track = board.track(track_id)
        if not track.closed:
            continue
        cx, cy = _track_centre(board, track)
        dx, dy = dx + x - cx, dy + y - cy
    norm = math.hypot(dx, dy)
    return (1.0, 0.0) if norm < 1e-9 else (dx / norm, dy / norm)


def _track_colour(board: Board, index: int, track: Track) -> str:
    if track.id == board.final_circle or not track.closed:
        return FINAL_COLOUR
    return TRACK_COLOURS[index % len(TRACK_COLOURS)]


# -- pieces of the document --------------------------------------------------------


def _header(width: float, height: float) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
            f'font-family="{FONT}">')


def _defs() -> str:
    gradients = "".join(
        f'<radialGradient id="ball{seat}" cx="35%" cy="30%" r="70%">'
        f'<stop offset="0%" stop-color="#ffffff" stop-opacity="0.95"/>'
        f'<stop offset="35%" stop-color="{colour}"/>'
        f'<stop offset="100%" stop-color="{_darker(colour)}"/></radialGradient>'
        for seat, colour in enumerate(SEAT_COLOURS))
    return f"<defs>{gradients}</defs>"


def _darker(colour: str, factor: float = 0.55) -> str:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#{:02x}{:02x}{:02x}".format(*(int(v * factor) for v in (r, g, b)))


def _disc(board: Board) -> tuple[tuple[float, float], float]:
    """The round leather board: a disc around every field, circle and the start."""
    left, right, bottom, top = _bounds(board)
    cx, cy = (left + right) / 2, (bottom + top) / 2
    points = [*board.coordinates, board.start_position]
    radius = max(math.hypot(x - cx, y - cy) for x, y in points)
    for track in board.tracks:
        if track.centre is not None and track.radius is not None:
            tx, ty = track.centre
            radius = max(radius, math.hypot(tx - cx, ty - cy) + track.radius)
    return (cx, cy), radius + 0.3


def _background(board: Board, frame: _Frame, width: float, height: float) -> str:
    (cx, cy), radius = _disc(board)
    return (f'<rect width="{width:.0f}" height="{height:.0f}" fill="{PAPER}"/>'
            f'<title>{escape(board.title)}</title>'
            f'<circle cx="{frame.x(cx)}" cy="{frame.y(cy)}" r="{frame.px(radius)}" '
            f'fill="{LEATHER}" stroke="{LEATHER_EDGE}" stroke-width="6"/>'
            f'<circle cx="{frame.x(cx)}" cy="{frame.y(cy)}" r="{frame.px(radius) - 9}" '
            f'fill="none" stroke="{LEATHER_EDGE}" stroke-width="1" stroke-opacity="0.5" '
            f'stroke-dasharray="3 4"/>')


def _tracks(board: Board, frame: _Frame) -> list[str]:
    out = []
    for index, track in enumerate(board.tracks):
        colour = _track_colour(board, index, track)
        if track.closed and track.centre is not None and track.radius is not None:
            cx, cy = track.centre
            out.append(f'<circle cx="{frame.x(cx)}" cy="{frame.y(cy)}" '
                       f'r="{frame.px(track.radius)}" fill="none" stroke="{colour}" '
                       f'stroke-width="4"/>')
        else:
            points = " ".join(f"{frame.x(x)},{frame.y(y)}"
                              for x, y in (board.coordinates[f] for f in track.fields))
            tag = "polygon" if track.closed else "polyline"
            out.append(f'<{tag} points="{points}" fill="none" stroke="{colour}" '
                       f'stroke-width="4" stroke-linejoin="round"/>')
        if track.closed:
            out.append(_track_label(board, frame, track, colour))
    return out


def _track_label(board: Board, frame: _Frame, track: Track, colour: str) -> str:
    cx, cy = _track_centre(board, track)
    sx, sy = board.start_position
    if math.hypot(cx - sx, cy - sy) < 0.35:
        cy = sy - 0.52  # the start sits in this circle's middle: label below it
    name = escape(track.name if track.name != track.id else "")
    return (f'<text x="{frame.x(cx)}" y="{frame.y(cy)}" text-anchor="middle" '
            f'font-size="17" font-weight="bold" fill="{colour}">{escape(track.id)}'
            f'<tspan x="{frame.x(cx)}" dy="16" font-size="10.5" font-weight="normal">'
            f'{name}</tspan></text>')


def _fields(board: Board, frame: _Frame) -> list[str]:
    out = []
    entries = set(board.entries)
    for field, (x, y) in enumerate(board.coordinates):
        fill, radius, stroke = "#ffffff", FIELD_R, INK
        if field == board.goal:
            fill, radius = "#f2592a", GOAL_R
        elif field in entries:
            fill = ENTRY_FILL
        elif board.is_intersection(field):
            fill = CROSSING_FILL
        out.append(f'<circle cx="{frame.x(x)}" cy="{frame.y(y)}" r="{frame.px(radius)}" '
                   f'fill="{fill}" stroke="{stroke}" stroke-width="1.3"/>')
        out.append(_field_label(board, frame, field))
    return out


def _field_label(board: Board, frame: _Frame, field: int) -> str:
    x, y, size, important = _label_spots(board)[field]
    weight = ' font-weight="bold"' if important else ""
    return (f'<text x="{frame.x(x)}" y="{frame.y(y) + frame.px(size) * 0.36:.1f}" '
            f'text-anchor="middle" font-size="{frame.px(size):.1f}"{weight} fill="{INK}" '
            f'fill-opacity="{1.0 if important else 0.72}">'
            f'{escape(board.field_ids[field])}</text>')


LABEL_DIRECTIONS = tuple((math.cos(math.radians(a)), math.sin(math.radians(a)))
                         for a in range(0, 360, 15))


@functools.lru_cache(maxsize=16)
def _label_spots(board: Board) -> tuple[tuple[float, float, float, bool], ...]:
    """Where each field's label goes: the free-most spot around the field (centre, size)."""
    entries = set(board.entries)
    important = [board.is_intersection(f) or f in entries or f == board.goal
                 for f in range(board.n_fields)]
    order = sorted(range(board.n_fields), key=lambda f: not important[f])
    placed: list[tuple[float, float, float, float]] = []
    spots: dict[int, tuple[float, float, float, bool]] = {}
    for field in order:
        size = LABEL_BIG if important[field] else LABEL_SMALL
        box = _best_label_box(board, field, size, placed)
        placed.append(box)
        spots[field] = (box[0], box[1], size, important[field])
    return tuple(spots[f] for f in range(board.n_fields))


LABEL_BIG = 0.085
LABEL_SMALL = 0.062


def _best_label_box(board: Board, field: int, size: float,
                    placed: list[tuple[float, float, float, float]],
                    ) -> tuple[float, float, float, float]:
    x, y = board.coordinates[field]
    half_w = len(board.field_ids[field]) * size * 0.31
    half_h = size * 0.45
    ox, oy = _outward(board, field)
    near = [p for f, p in enumerate(board.coordinates)
            if f != field and abs(p[0] - x) < 0.8 and abs(p[1] - y) < 0.8]
    best, best_score = (x, y, half_w, half_h), -math.inf
    for ux, uy in LABEL_DIRECTIONS:
        gap = FIELD_R + 0.025
        cx = x + ux * (gap + half_w)
        cy = y + uy * (gap + half_h)
        score = _clearance(board, near, placed, cx, cy, half_w, half_h)
        score += 0.01 * (ux * ox + uy * oy)
        if score > best_score:
            best, best_score = (cx, cy, half_w, half_h), score
    return best


def _clearance(board: Board, near: list[tuple[float, float]],
               placed: list[tuple[float, float, float, float]],
               cx: float, cy: float, half_w: float, half_h: float) -> float:
    """How far the label box keeps from fields, track lines and other labels (min distance)."""
    samples = [(cx + dx * half_w, cy + dy * half_h) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    clear = math.inf
    for sx, sy in samples:
        for px, py in near:
            clear = min(clear, math.hypot(sx - px, sy - py) - FIELD_R)
        clear = min(clear, _line_distance(board, sx, sy))
    for bx, by, bw, bh in placed:
        if abs(bx - cx) < bw + half_w + 0.01 and abs(by - cy) < bh + half_h + 0.01:
            clear -= 1.0
    return clear


def _line_distance(board: Board, x: float, y: float) -> float:
    best = math.inf
    for track in board.tracks:
        if track.closed and track.centre is not None and track.radius is not None:
            cx, cy = track.centre
            best = min(best, abs(math.hypot(x - cx, y - cy) - track.radius))
        else:
            points = [board.coordinates[f] for f in track.fields]
            if track.closed:
                points.append(points[0])
            for a, b in itertools.pairwise(points):
                best = min(best, _segment_distance(x, y, a, b))
    return best


def _segment_distance(x: float, y: float, a: tuple[float, float],
                      b: tuple[float, float]) -> float:
    (ax, ay), (bx, by) = a, b
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0.0 if length == 0 else max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / length))
    return math.hypot(x - ax - t * dx, y - ay - t * dy)


def _start(board: Board, frame: _Frame) -> list[str]:
    x, y = board.start_position
    return [f'<polygon points="{_star_points(frame.x(x), frame.y(y), 17, 7)}" '
            f'fill="#f39c1f" stroke="{INK}" stroke-width="1.2"/>',
            f'<text x="{frame.x(x)}" y="{frame.y(y) + 31}" text-anchor="middle" '
            f'font-size="12" font-weight="bold" fill="{INK}">{escape(board.start_id)}</text>']


def _star_points(cx: float, cy: float, outer: float, inner: float) -> str:
    points = []
    for k in range(10):
        r = outer if k % 2 == 0 else inner
        angle = math.pi / 2 + k * math.pi / 5
        points.append(f"{cx + r * math.cos(angle):.1f},{cy - r * math.sin(angle):.1f}")
    return " ".join(points)


def _ball(cx: float, cy: float, seat: int, label: str, radius: float) -> str:
    """A piece: a shaded ball with a soft shadow and, if given, its number."""
    colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    text_colour = INK if seat % len(SEAT_COLOURS) == 0 else "#ffffff"
    shadow = round(radius * 0.18, 1)
    text = "" if not label else (
        f'<text x="{cx}" y="{cy + radius * 0.38:.1f}" text-anchor="middle" '
        f'font-size="{radius * 1.05:.1f}" font-weight="bold" fill="{text_colour}">'
        f'{escape(label)}</text>')
    return (f'<circle cx="{cx + shadow}" cy="{cy + shadow}" r="{radius}" fill="#000000" '
            f'fill-opacity="0.25"/>'
            f'<circle cx="{cx}" cy="{cy}" r="{radius}" fill="url(#ball{seat % 4})" '
            f'stroke="{_darker(colour, 0.4)}" stroke-width="1"/>{text}')


def _pieces(state: SonnentauState, frame: _Frame) -> list[str]:
    board = state.board
    out = []
    for seat, places in enumerate(state.pieces):
        for piece, place in enumerate(places):
            if place >= 0:
                x, y = board.coordinates[place]
                out.append(_ball(frame.x(x), frame.y(y), seat, str(piece), frame.px(PIECE_R)))
    out += _stacks(state, frame, START, board.start_position, dx=0.25, caption="")
    out += _stacks(state, frame, HOME, board.coordinates[board.goal], dx=0.42, caption="home")
    if state.hit is not None:
        out += _hit_marker(state, frame)
    return out


def _stacks(state: SonnentauState, frame: _Frame, place: int, at: tuple[float, float],
            dx: float, caption: str) -> list[str]:
    """Rows of small balls with a count (one row per seat that has any), right of ``at``."""
    x0, y0 = at
    small = frame.px(PIECE_R * 0.72)
    rows = [(seat, places.count(place)) for seat, places in enumerate(state.pieces)
            if place in places]
    if not rows:
        return []
    step = small * 2.3
    left = frame.x(x0 + dx)
    top = frame.y(y0) - (len(rows) - 1) * step / 2
    out = []
    if caption:
        out.append(f'<text x="{left - small:.1f}" y="{top - small - 6:.1f}" font-size="10" '
                   f'font-style="italic" fill="{INK}">{escape(caption)}</text>')
    for row, (seat, count) in enumerate(rows):
        y = round(top + row * step, 1)
        out += [_ball(round(left + k * small * 1.6, 1), y, seat, "", small) for k in range(count)]
        out.append(f'<text x="{left + (count - 0.2) * small * 1.6 + 4:.1f}" y="{y + 4:.1f}" '
                   f'font-size="11" fill="{INK}">{count}</text>')
    return out


def _hit_marker(state: SonnentauState, frame: _Frame) -> list[str]:
    assert state.hit is not None
    seat, piece, field = state.hit
    x, y = state.board.coordinates[field]
    cx, cy = frame.x(x) + frame.px(0.16), frame.y(y) - frame.px(0.16)
    return [f'<circle cx="{frame.x(x)}" cy="{frame.y(y)}" r="{frame.px(PIECE_R * 1.6)}" '
            f'fill="none" stroke="#e01010" stroke-width="2" stroke-dasharray="4 3"/>',
            _ball(cx, cy, seat, str(piece), frame.px(PIECE_R * 0.8))]


# -- legend ---------------------------------------------------------------------------


def _legend(board: Board, state: SonnentauState | None, x: float) -> list[str]:
    out = [f'<g transform="translate({x:.0f},40)">',
           f'<text x="0" y="0" font-size="22" font-weight="bold" fill="{INK}">Sonnentau</text>',
           f'<text x="0" y="20" font-size="11.5" fill="{INK}">{escape(board.title)}</text>',
           f'<text x="0" y="58" font-size="15" font-weight="bold" fill="{INK}">Legend</text>']
    y = 84
    rows = [
        (ENTRY_FILL, "entry field (" + ", ".join(board.field_ids[e] for e in board.entries)
         + ")"),
        (CROSSING_FILL, "intersection of two tracks"),
        ("#ffffff", "field"),
        ("#f2592a", f"goal ({board.field_ids[board.goal]})"),
    ]
    for fill, text in rows:
        out.append(f'<circle cx="9" cy="{y - 4}" r="7" fill="{fill}" stroke="{INK}" '
                   f'stroke-width="1.2"/>'
                   f'<text x="24" y="{y}" font-size="12" fill="{INK}">{escape(text)}</text>')
        y += 22
    out.append(f'<polygon points="{_star_points(9, y - 4, 9, 4)}" fill="#f39c1f" '
               f'stroke="{INK}" stroke-width="1"/>'
               f'<text x="24" y="{y}" font-size="12" fill="{INK}">start ({board.start_id})'
               f'</text>')
    y += 22
    z_id = board.field_ids[board.z]
    out.append(f'<line x1="0" y1="{y - 4}" x2="18" y2="{y - 4}" stroke="{FINAL_COLOUR}" '
               f'stroke-width="4"/><text x="24" y="{y}" font-size="12" fill="{INK}">'
               f'final circle {escape(board.final_circle)} and goal straight from {z_id}'
               f'</text>')
    y += 22
    for line in ("directions: cw / ccw on a circle (ccw is the board file's",
                 "field order), in / out on the goal straight"):
        out.append(f'<text x="0" y="{y}" font-size="11" fill="{INK}" fill-opacity="0.8">'
                   f'{escape(line)}</text>')
        y += 15
    y += 20
    if state is not None:
        out += _legend_seats(state, y)
    out.append("</g>")
    return out


def _legend_seats(state: SonnentauState, y: float) -> list[str]:
    out = [f'<text x="0" y="{y}" font-size="14" font-weight="bold" fill="{INK}">Players</text>']
    y += 24
    for seat in range(state.n_seats):
        places = state.pieces[seat]
        text = (f"seat {seat} ({SEAT_NAMES[seat % 4]}): home {places.count(HOME)}, "
                f"start {places.count(START)}, board {sum(p >= 0 for p in places)}")
        if HIT in places:
            text += ", 1 hit"
        marker = " \u25c0" if seat == state.seat and not state.is_terminal else ""
        out.append(_ball(10, y - 4, seat, "", 8)
                   + f'<text x="24" y="{y}" font-size="12" fill="{INK}">{escape(text)}'
                   f'{marker}</text>')
        y += 22
    out.append(f'<text x="0" y="{y + 6}" font-size="12" fill="{INK}">'
               f'{escape(_status_text(state))}</text>')
    return out


def _status_text(state: SonnentauState) -> str:
    if state.is_terminal:
        winner = state.winner()
        return f"game over: seat {winner} wins" if winner is not None else \
            f"game over ({state.termination})"
    text = f"seat {state.seat} to {'roll' if state.is_chance_node() else 'move'}"
    if state.dice:
        left = ",".join(map(str, state.dice_left())) or "none"
        text += f"; dice {','.join(map(str, state.dice))}, to play {left}"
    if state.hit is not None:
        seat, piece, field = state.hit
        text += f"; seat {seat} p{piece} hit on {state.board.field_ids[field]}"
    return text


__all__ = ["PIECES", "draw_board"]
