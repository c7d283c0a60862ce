"""A ladder's configuration: a tournament config's keys, plus a ``ladder:`` section.

The game, its options, seats and seat orders, the first bots, limits, isolation,
executor, database and rating system are given and checked exactly as for a tournament
(:mod:`arena.tournaments.config`); ``format``, ``rounds`` and
``games_per_pairing`` have no meaning for a ladder and are refused. The
``ladder:`` section says how it runs (see :class:`LadderSettings`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from arena.results.ratings import RatingSettings
from arena.results.store import fingerprint_of
from arena.tournaments.config import (
    Problems,
    TournamentConfig,
    collect_config,
    key_problems,
    read_config_data,
)
from arena.tournaments.schedule import games_per_set

LADDER_FORMAT = "ladder"
NOT_FOR_LADDERS = ("format", "rounds", "games_per_pairing", "broken_bots")
MAX_ACTIVE_VERSIONS = 100
MAX_TABLES = 10_000
MAX_ROUND_GAMES = 100_000


@dataclass(frozen=True)
class LadderSettings:
    """How a ladder runs (the ``ladder:`` section)."""

    submissions: str | None = None
    """A folder watched for bot files (``*.py``) to submit; None: only ``arena submit``."""
    active_versions: int = 1
    """How many of each bot's newest versions stay active; older ones retire."""
    tables_per_round: int = 0
    """Tables chosen per round; 0: one per active bot (at least 2)."""
    sets_per_meeting: int = 1
    """Duplicate sets per table: each is every seat order (``seat_orders``) on one game
    seed."""
    exploration: float = 0.1
    """The chance that a table goes to coverage (the least-met pairs) instead of to the
    largest ranking gain."""
    validation_games: int = 2
    """Seat-swapped games a submission plays against the random bot before it enters
    (and one against itself)."""
    final_games: int = 200
    """Games the frozen ladder plays among its active bots before its final standing."""


_WANTED = {"submissions": "a folder's path, or null for none"}
_LADDER_KEYS: dict[str, tuple[tuple[type, ...], bool]] = {
    "submissions": ((str, type(None)), False),
    "active_versions": ((int,), False),
    "tables_per_round": ((int,), False),
    "sets_per_meeting": ((int,), False),
    "exploration": ((int, float), False),
    "validation_games": ((int,), False),
    "final_games": ((int,), False),
}


@dataclass(frozen=True)
class LadderConfig:
    """Everything that defines a ladder: what its games share (``play``, a tournament
    config of one round-robin round whose bots are the ladder's first entrants) and how
    it runs."""

    play: TournamentConfig
    settings: LadderSettings = field(default_factory=LadderSettings)

    @property
    def name(self) -> str:
        return self.play.name

    @property
    def game(self) -> str:
        return self.play.game

    @property
    def seed(self) -> int:
        return self.play.seed

    @property
    def secret_seed(self) -> bool:
        return self.play.secret_seed

    @property
    def ratings(self) -> RatingSettings:
        return self.play.ratings

    @property
    def submissions_folder(self) -> Path | None:
        folder = self.settings.submissions
        return None if folder is None else Path(folder)

    @property
    def tables_per_round(self) -> int:
        return self.settings.tables_per_round

    def to_json(self) -> dict[str, Any]:
        """What is stored with the ladder: the shared settings (no bots: entrants come and
        go) and the ladder's own."""
        data = {key: value for key, value in self.play.to_json().items()
                if key not in ("bots", "rounds", "games_per_pairing")}
        return {**data, "format": LADDER_FORMAT, "ladder": asdict(self.settings)}

    def fingerprint(self) -> str:
        return fingerprint_of(self.to_json())

    def defining(self) -> dict[str, Any]:
        """The settings a ladder keeps for life: how its games are played (its ladder
        settings may change between runs)."""
        return {key: value for key, value in self.to_json().items()
                if key not in ("ladder", "ratings")}


def load_ladder_config(path: str | Path, **overrides: Any) -> LadderConfig:
    source = str(path)
    given = {k: v for k, v in overrides.items() if v is not None}
    return parse_ladder_config(read_config_data(path), source, given)


def parse_ladder_config(data: Any, source: str = "<ladder config>",
                        overrides: Mapping[str, Any] | None = None) -> LadderConfig:
    """Validate parsed YAML (plus overrides) into a LadderConfig; ConfigError names every
    problem of it at once, one a line."""
    problems = Problems(source, list(data) if isinstance(data, dict) else ())
    if not isinstance(data, dict):
        problems.add("", "the config must be a mapping of keys to values")
        problems.raise_any()
    for key in NOT_FOR_LADDERS:
        if key in data:
            problems.add(key, f"a ladder has no {key} (it plays until stopped; see the "
                         "ladder: section)")
    section = data.get("ladder", {})
    if not isinstance(section, dict):
        problems.add("ladder", "must be a mapping")
        section = {}
    play = collect_config({k: v for k, v in data.items()
                           if k != "ladder" and k not in NOT_FOR_LADDERS}, problems, overrides)
    settings = collect_settings(section, problems)
    if play is not None and not problems:
        per_round = (settings.tables_per_round * settings.sets_per_meeting
                     * games_per_set(play.seats, play.seat_orders))
        if per_round > MAX_ROUND_GAMES:
            problems.add("ladder", f"a round of {settings.tables_per_round} tables of "
                         f"{settings.sets_per_meeting} sets has {per_round:,} games, more than "
                         f"the {MAX_ROUND_GAMES:,} a round may have; choose fewer "
                         "tables_per_round or sets_per_meeting")
    problems.raise_any()
    assert play is not None
    return LadderConfig(play, settings)


def parse_settings(section: Mapping[str, Any], source: str) -> LadderSettings:
    """The ``ladder:`` section's settings; ConfigError names every problem of it."""
    problems = Problems(source, ["ladder"])
    settings = collect_settings(section, problems)
    problems.raise_any()
    return settings


def collect_settings(section: Mapping[str, Any], problems: Problems) -> LadderSettings:
    """The ``ladder:`` section's settings, every problem found added to ``problems`` (a
    value with a problem is left at its default)."""
    bad = key_problems(section, _LADDER_KEYS, problems, "ladder.", _WANTED)
    settings = LadderSettings(**{key: value for key, value in section.items()
                                 if key in _LADDER_KEYS and key not in bad})
    settings = dataclasses.replace(settings, exploration=float(settings.exploration))
    checks = [
        (1 <= settings.active_versions <= MAX_ACTIVE_VERSIONS, "active_versions",
         f"must be from 1 to {MAX_ACTIVE_VERSIONS}"),
        (0 <= settings.tables_per_round <= MAX_TABLES, "tables_per_round",
         f"must be from 0 (one per active bot) to {MAX_TABLES}"),
        (1 <= settings.sets_per_meeting <= 100, "sets_per_meeting", "must be from 1 to 100"),
        (math.isfinite(settings.exploration) and 0 <= settings.exploration <= 1,
         "exploration", "must be from 0 to 1"),
        (0 <= settings.validation_games <= 100, "validation_games", "must be from 0 to 100"),
        (0 <= settings.final_games <= 10_000_000, "final_games",
         "must be from 0 to 10000000"),
    ]
    for ok, key, message in checks:
        if not ok:
            problems.add(f"ladder.{key}", f"{message}, got {getattr(settings, key)!r}")
    return settings
