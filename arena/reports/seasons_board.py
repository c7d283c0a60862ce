"""The Seasons of the Sun board as the original draws it: two circles of eleven sectors.

Seat 0 owns the outer circle, seat 1 the inner one (docs/rules.md). The six Max
sectors form one half of the circle (drawn on top), the five min sectors the half
opposite, each in the canonical order clockwise. This module computes the
geometry; ``templates/seasons_board.svg.j2`` writes it as SVG, and the report's
script fills the fields of each position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from arena.games.seasons.rules import IS_MAX, SECTOR_VALUES, SECTORS, display_sector

SIZE = 440
CENTRE = SIZE / 2
SPAN = 360 / len(SECTORS)
GAP = 0.9
"""Degrees left between neighbouring fields."""
FIRST = -90 - SPAN * sum(IS_MAX) / 2
"""Where the first Max sector starts (SVG angles: clockwise from 3 o'clock), so that the
Max half is centred on the top."""
RINGS = ((140.0, 184.0), (94.0, 136.0))
"""Inner and outer radius of each seat's circle: seat 0 outside, seat 1 inside."""
LABEL_RADIUS = 202.0
SUN_RADIUS = 84.0


@dataclass(frozen=True)
class Field:
    seat: int
    sector: int
    path: str
    x: float
    y: float


@dataclass(frozen=True)
class Sector:
    index: int
    id: str
    name: str
    value: int
    is_max: bool
    band: str
    """The sector's part of the label ring, as an SVG path."""
    x: float
    y: float
    rotation: float
    """Degrees that turn the label along the circle, upright on either half."""


def point(radius: float, degrees: float) -> tuple[float, float]:
    angle = math.radians(degrees)
    return (round(CENTRE + radius * math.cos(angle), 2),
            round(CENTRE + radius * math.sin(angle), 2))


def annulus_sector(inner: float, outer: float, start: float, end: float) -> str:
    """The SVG path of the part of a ring between two angles (clockwise)."""
    (x1, y1), (x2, y2) = point(outer, start), point(outer, end)
    (x3, y3), (x4, y4) = point(inner, end), point(inner, start)
    return (f"M{x1} {y1}A{outer} {outer} 0 0 1 {x2} {y2}"
            f"L{x3} {y3}A{inner} {inner} 0 0 0 {x4} {y4}Z")


def _middle(index: int) -> float:
    return FIRST + (index + 0.5) * SPAN


def fields() -> list[Field]:
    """Every field: seat 0's eleven on the outer circle, then seat 1's."""
    out = []
    for seat, (inner, outer) in enumerate(RINGS):
        for index in range(len(SECTORS)):
            start = FIRST + index * SPAN + GAP / 2
            x, y = point((inner + outer) / 2, _middle(index))
            out.append(Field(seat, index, annulus_sector(inner, outer, start,
                                                         start + SPAN - GAP), x, y))
    return out


def sectors() -> list[Sector]:
    """Each sector's label (name and value) and its part of the ring around the circles."""
    outer = RINGS[0][1]
    out = []
    for index, sector in enumerate(SECTORS):
        start = FIRST + index * SPAN
        middle = _middle(index)
        x, y = point(LABEL_RADIUS, middle)
        out.append(Sector(index, sector, display_sector(sector), SECTOR_VALUES[index],
                          IS_MAX[index], annulus_sector(outer + 2, SIZE / 2 - 2, start,
                                                        start + SPAN), x, y,
                          upright_tangent(middle)))
    return out


def upright_tangent(degrees: float) -> float:
    """The rotation of text written along the circle at ``degrees``, never upside down."""
    turned = (degrees + 90) % 360
    return round(turned - 180 if 90 < turned < 270 else turned, 2)


def board() -> dict[str, object]:
    """Everything the template draws."""
    return {"size": SIZE, "centre": CENTRE, "sun": SUN_RADIUS, "fields": fields(),
            "sectors": sectors()}
