"""Sonnentau boards: the YAML board file, its validation, and the precomputed graph.

A board file describes the tracks (closed circles, fields counterclockwise, and
one open goal straight from Z to the goal), the entry fields, the start, and a
drawing position for every field; ``board.yaml`` beside this module is the
default board and documents the format. :func:`load_board` validates a file
and returns a frozen :class:`Board` with everything the rules engine needs
precomputed: the tracks through each field, the fields a piece passes along
each track and direction, the relocation targets after a hit on each field,
and each field's shortest distance to the goal.

Directions: on a circle ``ccw`` follows the listed (counterclockwise) order and
``cw`` runs against it; on the goal straight ``in`` runs towards the goal and
``out`` back towards Z.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import re
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games.base import ArenaError
from arena.games.datafile import DataFileError, read_yaml

DEFAULT_BOARD_PATH = Path(__file__).resolve().with_name("board.yaml")
MAX_STEPS = 9
MAX_FIELDS = 2000
"""A board may have at most this many fields (its paths are computed for every one)."""
MAX_COORDINATE = 1e6
"""The largest die face of any dice variant (Miwin's dice show 9): paths are this long."""

CW, CCW, IN, OUT = "cw", "ccw", "in", "out"
CIRCLE_DIRECTIONS: tuple[tuple[str, int], ...] = ((CW, -1), (CCW, +1))
STRAIGHT_DIRECTIONS: tuple[tuple[str, int], ...] = ((IN, +1), (OUT, -1))
DIRECTIONS: tuple[str, ...] = (CW, CCW, IN, OUT)
RESERVED_IDS = frozenset({"start", "goal"})
ID_PATTERN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*\Z")
REQUIRED_KEYS = ("circles", "final_circle", "goal_straight", "z", "goal", "entries", "start",
                 "coordinates")
MIN_CIRCLE_FIELDS = 3


class BoardError(ArenaError, ValueError):
    """A board file is missing, unreadable or breaks a rule of the board format."""


@dataclass(frozen=True)
class Track:
    """A circle (closed, fields counterclockwise) or the goal straight (open, Z first).

    ``fields`` are field indices into :attr:`Board.field_ids`; ``centre`` and
    ``radius`` are optional drawing hints of a circle.
    """

    id: str
    name: str
    fields: tuple[int, ...]
    closed: bool
    centre: tuple[float, float] | None = None
    radius: float | None = None


@dataclass(frozen=True)
class Step:
    """One way to move from a field: a track, a direction and the fields passed, in order.

    ``path[k - 1]`` is where a move of ``k`` steps ends; moves longer than the path
    (beyond the end of the goal straight) are impossible.
    """

    track: str
    direction: str
    path: tuple[int, ...]
    passed: tuple[int, ...] = dataclasses.field(init=False, repr=False, compare=False)
    """``passed[k]``: the fields a move of ``k + 1`` steps passes over, as a bit mask."""

    def __post_init__(self) -> None:
        masks, mask = [], 0
        for cell in self.path:
            masks.append(mask)
            mask |= 1 << cell
        object.__setattr__(self, "passed", tuple(masks))


@dataclass(frozen=True)
class Relocation:
    """Where a piece hit on a field may be put: fields (if empty), and start or goal."""

    fields: tuple[int, ...]
    to_start: bool
    to_goal: bool


@dataclass(frozen=True, eq=False)
class Board:
    """A validated Sonnentau board with its precomputed graph. Fields are indices."""

    path: str
    name: str
    title: str
    field_ids: tuple[str, ...]
    index: Mapping[str, int]
    coordinates: tuple[tuple[float, float], ...]
    tracks: tuple[Track, ...]
    track_index: Mapping[str, int]
    final_circle: str
    goal_straight: str
    z: int
    goal: int
    entries: tuple[int, ...]
    start_id: str
    start_position: tuple[float, float]
    tracks_at: tuple[tuple[str, ...], ...]
    steps: tuple[tuple[Step, ...], ...]
    step_by_key: Mapping[tuple[int, str, str], Step]
    relocation: tuple[Relocation, ...]
    neighbours: tuple[tuple[int, ...], ...]
    goal_distance: tuple[int, ...]
    start_distance: int

    @property
    def n_fields(self) -> int:
        return len(self.field_ids)

    def field_id(self, field: int) -> str:
        return self.field_ids[field]

    def track(self, track_id: str) -> Track:
        return self.tracks[self.track_index[track_id]]

    def is_intersection(self, field: int) -> bool:
        return len(self.tracks_at[field]) > 1

    def step(self, field: int, track: str, direction: str) -> Step | None:
        """The path from ``field`` along ``track`` in ``direction``; None if there is none."""
        return self.step_by_key.get((field, track, direction))

    def __repr__(self) -> str:
        return f"Board({self.name!r}, {self.path!r}, {self.n_fields} fields)"


# -- loading ---------------------------------------------------------------


def load_board(path: str | Path) -> Board:
    """Read, validate and precompute the board in ``path``; raise BoardError naming the problem."""
    path = Path(path)
    where = str(path)
    try:
        data = read_yaml(path)
    except FileNotFoundError:
        raise BoardError(f"board file {where!r} not found") from None
    except OSError as exc:
        raise BoardError(f"board file {where!r} cannot be read: {exc.strerror}") from None
    except DataFileError as exc:
        raise BoardError(f"board file {where!r}: {exc}") from None
    return build_board(data, where)


@functools.lru_cache(maxsize=32)
def _cached_board(resolved: str) -> Board:
    return load_board(resolved)


def board_for_option(option: str) -> Board:
    """The board named by the game option ``board``: "" is the default board. Cached."""
    if not option:
        if not DEFAULT_BOARD_PATH.is_file():
            raise BoardError(
                f"the default Sonnentau board {str(DEFAULT_BOARD_PATH)!r} is missing; "
                "pass a board file with the game option board=PATH")
        return _cached_board(str(DEFAULT_BOARD_PATH))
    return _cached_board(str(Path(option).resolve()))


def default_board() -> Board:
    return board_for_option("")


def build_board(data: Any, where: str = "<board>") -> Board:
    """Validate parsed board data (a mapping as in the YAML file) and build the Board."""
    check = _Checker(where)
    if not isinstance(data, Mapping):
        check.fail("the top level must be a mapping of the board's parts")
    for key in REQUIRED_KEYS:
        if key not in data:
            check.fail(f"missing {key!r}")
    circles = _read_circles(check, data["circles"])
    listed = sum(len(circle.fields) for circle in circles)
    if listed > MAX_FIELDS:
        check.fail(f"the circles list {listed} fields; at most {MAX_FIELDS} are accepted")
    straight_id, straight = _read_straight(check, data["goal_straight"], circles)
    final = check.text(data["final_circle"], "final_circle")
    z, goal = check.text(data["z"], "z"), check.text(data["goal"], "goal")
    _check_tracks(check, circles, straight_id, straight, final, z, goal)
    field_ids = _field_order(circles, straight)
    entries = _read_entries(check, data["entries"], circles, field_ids)
    start_id, start_position = _read_start(check, data["start"], field_ids)
    coordinates = _read_coordinates(check, data["coordinates"], field_ids)
    index = {fid: i for i, fid in enumerate(field_ids)}
    straight_track = Track(straight_id, "goal straight", tuple(index[f] for f in straight),
                           closed=False)
    tracks = (*(_make_track(c, index, closed=True) for c in circles), straight_track)
    _check_reachable(check, tracks, [index[e] for e in entries], field_ids)
    return _assemble(where, data, field_ids, index, coordinates, tracks, final, straight_id,
                     index[z], index[goal], tuple(index[e] for e in entries), start_id,
                     start_position)


class _Checker:
    """Raises BoardError with the file name in front of every message."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, message: str) -> Any:
        raise BoardError(f"board file {self.where!r}: {message}")

    def text(self, value: Any, what: str) -> str:
        if not isinstance(value, (str, int)) or isinstance(value, bool):
            self.fail(f"{what} must be an id, got {value!r}")
        return str(value)

    def field_id(self, value: Any, what: str) -> str:
        fid = self.text(value, what)
        if not ID_PATTERN.match(fid):
            self.fail(f"{what}: {fid!r} is not a valid id (letters, digits, '_', '.', '-')")
        if fid in RESERVED_IDS:
            self.fail(f"{what}: the id {fid!r} is reserved (relocate:{fid} names the {fid})")
        return fid

    def point(self, value: Any, what: str) -> tuple[float, float]:
        if (not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2
                or not all(_is_number(v) for v in value)):
            self.fail(f"{what} must be two numbers [x, y], got {value!r}")
        return float(value[0]), float(value[1])

    def id_list(self, value: Any, what: str) -> list[str]:
        if not isinstance(value, list) or not value:
            self.fail(f"{what} must be a non-empty list of field ids")
        ids = [self.field_id(v, what) for v in value]
        seen: set[str] = set()
        for fid in ids:
            if fid in seen:
                self.fail(f"{what} lists the id {fid!r} twice")
            seen.add(fid)
        return ids


def _is_number(value: Any) -> bool:
    """A finite number (not a bool, NaN or infinity) of a sane size for a drawing."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and abs(value) <= MAX_COORDINATE)


@dataclass(frozen=True)
class _Circle:
    id: str
    name: str
    fields: tuple[str, ...]
    centre: tuple[float, float] | None
    radius: float | None


def _read_circles(check: _Checker, raw: Any) -> list[_Circle]:
    if not isinstance(raw, list) or not raw:
        check.fail("'circles' must be a non-empty list of circles")
    circles: list[_Circle] = []
    for number, item in enumerate(raw):
        if not isinstance(item, Mapping) or "id" not in item or "fields" not in item:
            check.fail(f"circle number {number + 1} needs an 'id' and 'fields'")
        cid = check.field_id(item["id"], "circle id")
        if any(c.id == cid for c in circles):
            check.fail(f"two circles have the id {cid!r}")
        fields = check.id_list(item["fields"], f"circle {cid!r}")
        if len(fields) < MIN_CIRCLE_FIELDS:
            check.fail(f"circle {cid!r} has {len(fields)} fields; a circle needs at least "
                       f"{MIN_CIRCLE_FIELDS}")
        centre = check.point(item["centre"], f"centre of circle {cid!r}") \
            if "centre" in item else None
        radius = item.get("radius")
        if radius is not None and (not _is_number(radius) or radius <= 0):
            check.fail(f"radius of circle {cid!r} must be a positive number, got {radius!r}")
        circles.append(_Circle(cid, str(item.get("name", cid)), tuple(fields), centre,
                               None if radius is None else float(radius)))
    return circles


def _read_straight(check: _Checker, raw: Any, circles: list[_Circle]) -> tuple[str, list[str]]:
    if isinstance(raw, Mapping):
        sid = check.field_id(raw.get("id", "G"), "goal straight id")
        fields = raw.get("fields")
    else:
        sid, fields = "G", raw
    if any(c.id == sid for c in circles):
        check.fail(f"the goal straight's id {sid!r} is also a circle's id")
    ids = check.id_list(fields, "goal_straight")
    if len(ids) < 2:
        check.fail("the goal straight needs at least Z and the goal field")
    return sid, ids


def _check_tracks(check: _Checker, circles: list[_Circle], straight_id: str,
                  straight: list[str], final: str, z: str, goal: str) -> None:
    by_id = {c.id: c for c in circles}
    if final not in by_id:
        check.fail(f"final_circle {final!r} is not one of the circles "
                   f"({', '.join(by_id)})")
    count: dict[str, list[str]] = {}
    for track_id, fields in [(c.id, c.fields) for c in circles] + [(straight_id, straight)]:
        for fid in fields:
            count.setdefault(fid, []).append(track_id)
    for fid, on in count.items():
        if len(on) > 2:
            check.fail(f"the field {fid!r} lies on three tracks ({', '.join(on)}); "
                       "at most two tracks may cross in a field")
    if straight[0] != z:
        check.fail(f"the goal straight starts on {straight[0]!r}, not on Z ({z!r})")
    if z not in by_id[final].fields:
        check.fail(f"the goal straight starts on {z!r}, which is not a field of the final "
                   f"circle {final!r}")
    if straight[-1] != goal:
        check.fail(f"the goal straight ends on {straight[-1]!r}, not on the goal ({goal!r})")
    for fid in straight[1:]:
        if len(count[fid]) > 1:
            check.fail(f"the goal straight's field {fid!r} also lies on "
                       f"{next(t for t in count[fid] if t != straight_id)!r}; only Z may")


def _field_order(circles: list[_Circle], straight: list[str]) -> tuple[str, ...]:
    order: dict[str, None] = {}
    for circle in circles:
        order.update(dict.fromkeys(circle.fields))
    order.update(dict.fromkeys(straight))
    return tuple(order)


def _read_entries(check: _Checker, raw: Any, circles: list[_Circle],
                  field_ids: tuple[str, ...]) -> list[str]:
    entries = check.id_list(raw, "entries")
    on_circle = {fid for c in circles for fid in c.fields}
    for fid in entries:
        if fid not in field_ids:
            check.fail(f"the entry {fid!r} is not a field of any track")
        if fid not in on_circle:
            check.fail(f"the entry {fid!r} is not on a circle")
    return entries


def _read_start(check: _Checker, raw: Any,
                field_ids: tuple[str, ...]) -> tuple[str, tuple[float, float]]:
    if not isinstance(raw, Mapping) or "position" not in raw:
        check.fail("'start' must be a mapping with a 'position' [x, y] (and an optional 'id')")
    start_id = check.text(raw.get("id", "START"), "start id")
    if start_id in field_ids:
        check.fail(f"the start's id {start_id!r} is also a field id")
    return start_id, check.point(raw["position"], "start position")


def _read_coordinates(check: _Checker, raw: Any,
                      field_ids: tuple[str, ...]) -> tuple[tuple[float, float], ...]:
    if not isinstance(raw, Mapping):
        check.fail("'coordinates' must map every field id to [x, y]")
    keys = {str(k): v for k, v in raw.items()}
    for fid in field_ids:
        if fid not in keys:
            check.fail(f"the field {fid!r} has no coordinates")
    for fid in keys:
        if fid not in field_ids:
            check.fail(f"coordinates are given for {fid!r}, which is on no track")
    return tuple(check.point(keys[fid], f"coordinates of {fid!r}") for fid in field_ids)


def _make_track(circle: _Circle, index: Mapping[str, int], *, closed: bool) -> Track:
    return Track(circle.id, circle.name, tuple(index[f] for f in circle.fields), closed,
                 circle.centre, circle.radius)


def _adjacency(tracks: Sequence[Track], n_fields: int) -> tuple[tuple[int, ...], ...]:
    near: list[dict[int, None]] = [{} for _ in range(n_fields)]
    for track in tracks:
        fields = track.fields
        pairs = list(itertools.pairwise(fields))
        if track.closed:
            pairs.append((fields[-1], fields[0]))
        for a, b in pairs:
            near[a][b] = None
            near[b][a] = None
    return tuple(tuple(n) for n in near)


def _distances(neighbours: Sequence[Sequence[int]], sources: Sequence[int]) -> list[int]:
    """Breadth-first distances from ``sources``; -1 where unreachable."""
    dist = [-1] * len(neighbours)
    queue = deque(sources)
    for s in sources:
        dist[s] = 0
    while queue:
        f = queue.popleft()
        for g in neighbours[f]:
            if dist[g] < 0:
                dist[g] = dist[f] + 1
                queue.append(g)
    return dist


def _check_reachable(check: _Checker, tracks: Sequence[Track], entries: Sequence[int],
                     field_ids: tuple[str, ...]) -> None:
    dist = _distances(_adjacency(tracks, len(field_ids)), entries)
    for f, d in enumerate(dist):
        if d < 0:
            check.fail(f"the field {field_ids[f]!r} cannot be reached from the entries")


# -- precomputation ----------------------------------------------------------


def _steps_along(track: Track, position: int) -> list[Step]:
    fields, n = track.fields, len(track.fields)
    directions = CIRCLE_DIRECTIONS if track.closed else STRAIGHT_DIRECTIONS
    steps = []
    for name, sign in directions:
        if track.closed:
            path = tuple(fields[(position + sign * k) % n] for k in range(1, MAX_STEPS + 1))
        else:
            ahead = range(position + sign, n if sign > 0 else -1, sign)
            path = tuple(fields[i] for i in ahead)[:MAX_STEPS]
        if path:
            steps.append(Step(track.id, name, path))
    return steps


def _relocation(field: int, tracks_at: Sequence[tuple[str, ...]], tracks: Mapping[str, Track],
                final: str, straight: str, z: int, goal: int) -> Relocation:
    on = tracks_at[field]
    candidates: dict[int, None] = {}
    for track_id in on:
        candidates.update(dict.fromkeys(tracks[track_id].fields))
    candidates.pop(goal, None)
    candidates.pop(field, None)
    special = final in on or straight in on
    return Relocation(tuple(candidates), to_start=special, to_goal=field == z)


def _assemble(where: str, data: Mapping[str, Any], field_ids: tuple[str, ...],
              index: dict[str, int], coordinates: tuple[tuple[float, float], ...],
              tracks: tuple[Track, ...], final: str, straight: str, z: int, goal: int,
              entries: tuple[int, ...], start_id: str,
              start_position: tuple[float, float]) -> Board:
    n = len(field_ids)
    tracks_at_lists: list[list[str]] = [[] for _ in range(n)]
    steps_lists: list[list[Step]] = [[] for _ in range(n)]
    for track in tracks:
        for position, f in enumerate(track.fields):
            tracks_at_lists[f].append(track.id)
            steps_lists[f].extend(_steps_along(track, position))
    tracks_at = tuple(tuple(t) for t in tracks_at_lists)
    steps = tuple(tuple(s) for s in steps_lists)
    by_id = {t.id: t for t in tracks}
    relocation = tuple(_relocation(f, tracks_at, by_id, final, straight, z, goal)
                       for f in range(n))
    neighbours = _adjacency(tracks, n)
    goal_distance = tuple(_distances(neighbours, [goal]))
    start_distance = 1 + min(goal_distance[e] for e in entries)
    return Board(
        path=where, name=str(data.get("name", Path(where).stem)),
        title=str(data.get("title", data.get("name", "Sonnentau board"))),
        field_ids=field_ids, index=index, coordinates=coordinates, tracks=tracks,
        track_index={t.id: i for i, t in enumerate(tracks)}, final_circle=final,
        goal_straight=straight, z=z, goal=goal, entries=entries, start_id=start_id,
        start_position=start_position, tracks_at=tracks_at, steps=steps,
        step_by_key={(f, s.track, s.direction): s for f in range(n) for s in steps[f]},
        relocation=relocation, neighbours=neighbours, goal_distance=goal_distance,
        start_distance=start_distance)
