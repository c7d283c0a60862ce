"""Tournament configuration: a YAML file, validated into a frozen value.

Every problem is reported as ``FILE: KEY: what is wrong``, with a did-you-mean
for misspelt keys. Command-line options override the file's values. A config
may come from someone else, so nothing in it is trusted: the file is plain
UTF-8 YAML of bounded size without anchors or aliases (no "billion laughs"),
numbers are finite and in range, names cannot be paths, and a schedule too big
to play is refused with its size.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.bots.identity import BotEntry
from arena.bots.isolation import ISOLATIONS
from arena.bots.loading import split_spec
from arena.bots.names import name_problem, version_problem
from arena.bots.process import COMMAND_PREFIX
from arena.games import find_game
from arena.games.base import ArenaError, UnknownGameError, unknown_name_message
from arena.games.datafile import DataFileError, read_yaml
from arena.referee.match import SEATS_OPTION
from arena.results.ratings import RatingSettings, RatingSettingsError
from arena.results.store import fingerprint_of
from arena.tournaments.schedule import ROTATIONS, SEAT_ORDERS, games_in

FORMATS = ("round-robin", "swiss")
STOP, FORFEIT = "stop", "forfeit"
BROKEN_BOTS = (STOP, FORFEIT)
"""What a bot that cannot play does to its tournament: stop it before the first game, or
have its games forfeited (for competitions that must go on)."""
EXECUTORS = ("local", "dask")
DEFAULT_DB = "results/arena.db"
DEFAULT_OUTPUT_ROOT = "results"
DEFAULT_TIME_LIMIT = 5.0
"""Seconds per decision when a config says nothing (``time_limit: null`` turns it off)."""
SECRET = "secret"
SEED_MIN, SEED_MAX = -(2**63), 2**63 - 1
MAX_GAMES = 10_000_000
MAX_WORKERS = 256
MAX_NAME = 128


class ConfigError(ArenaError, ValueError):
    """A tournament config that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class TournamentConfig:
    """Everything that defines a tournament."""

    name: str
    game: str
    bots: tuple[BotEntry, ...]
    format: str = "round-robin"
    options: Mapping[str, Any] = field(default_factory=dict)
    seats: int = 2
    rounds: int = 1
    games_per_pairing: int = 1
    seat_orders: str = ROTATIONS
    """The seat orders of a duplicate set (:data:`~arena.tournaments.schedule.SEAT_ORDERS`):
    ``rotations``, or ``balanced`` (every bot also has every other bot in the seat before it
    equally often). A stored config without the key was played in rotations."""
    seed: int = 0
    secret_seed: bool = False
    """``seed: secret``: the seed is drawn when the tournament is created, and shown only
    once it is finished (``seed`` is then the drawn one)."""
    workers: int = 0
    time_limit: float | None = DEFAULT_TIME_LIMIT
    time_bank: float = 0.0
    memory_limit: int | None = 1024
    cpu_limit: float | None = 120.0
    isolation: str | None = None
    broken_bots: str = STOP
    executor: str = "local"
    scheduler: str | None = None
    output: str = ""
    db: str = DEFAULT_DB
    ratings: RatingSettings = field(default_factory=RatingSettings)
    source: str = "<config>"

    @property
    def worker_count(self) -> int:
        return self.workers or os.cpu_count() or 1

    @property
    def output_dir(self) -> Path:
        return Path(self.output or Path(DEFAULT_OUTPUT_ROOT) / self.name)

    def defining(self) -> dict[str, Any]:
        """The settings that decide the results (not where they go, how fast, or how the
        bots are contained); a secret seed counts as ``"secret"``. ``seat_orders`` is left
        out when it is ``rotations``: tournaments stored before the setting existed have no
        such key and were played in rotations, so they keep their settings and resume."""
        data = asdict(self)
        for key in ("workers", "output", "db", "source", "ratings", "executor", "scheduler",
                    "isolation", "secret_seed", "broken_bots"):
            data.pop(key)
        if self.seat_orders == ROTATIONS:
            data.pop("seat_orders")
        data["bots"] = [without_isolation(bot.to_json()) for bot in self.bots]
        if self.secret_seed:
            data["seed"] = SECRET
        return data

    def to_json(self) -> dict[str, Any]:
        """The defining settings plus the rating settings (stored with the tournament)."""
        return {**self.defining(), "ratings": asdict(self.ratings)}

    def fingerprint(self) -> str:
        """A hash of the settings a stored tournament must share with this config to be
        resumed or grown by it (the bots are compared by their revisions instead)."""
        return fingerprint_of(self.to_json())


def without_isolation(bot: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in bot.items() if key != "isolation"}


NULL = type(None)
# name: (accepted types, required)
_TOP_KEYS: dict[str, tuple[tuple[type, ...], bool]] = {
    "name": ((str,), True),
    "game": ((str,), True),
    "bots": ((list,), True),
    "format": ((str,), False),
    "options": ((dict,), False),
    "seats": ((int,), False),
    "rounds": ((int,), False),
    "games_per_pairing": ((int,), False),
    "seat_orders": ((str,), False),
    "seed": ((int, str), False),
    "workers": ((int,), False),
    "time_limit": ((int, float, NULL), False),
    "time_bank": ((int, float), False),
    "memory_limit": ((int, NULL), False),
    "cpu_limit": ((int, float, NULL), False),
    "isolation": ((str,), False),
    "broken_bots": ((str,), False),
    "executor": ((str,), False),
    "scheduler": ((str,), False),
    "output": ((str,), False),
    "db": ((str,), False),
    "ratings": ((dict,), False),
}
_BOT_KEYS: dict[str, tuple[tuple[type, ...], bool]] = {
    "spec": ((str,), True),
    "name": ((str,), False),
    "version": ((str, int, float), False),
    "params": ((dict,), False),
    "isolation": ((str,), False),
}
_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", list: "a list",
               dict: "a mapping", NULL: "null"}


def load_config(path: str | Path, **overrides: Any) -> TournamentConfig:
    """Read and validate a config file; ``overrides`` (not None) replace its values."""
    source = str(path)
    given = {k: v for k, v in overrides.items() if v is not None}
    return parse_config(read_config_data(path), source, given)


def read_config_data(path: str | Path) -> Any:
    """A config file's data: plain UTF-8 YAML of bounded size (:mod:`arena.games.datafile`)."""
    source = str(path)
    try:
        return read_yaml(path)
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read the config: {exc.strerror}") from None
    except DataFileError as exc:
        raise ConfigError(f"{source}: {exc}") from None


def parse_config(data: Any, source: str = "<config>",
                 overrides: Mapping[str, Any] | None = None) -> TournamentConfig:
    """Validate parsed YAML (plus overrides) into a TournamentConfig."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the config must be a mapping of keys to values")
    data = {**data, **(overrides or {})}
    if "ladder" in data:
        raise ConfigError(f"{source}: a ladder's config (it has a ladder: section); run it "
                          "with `arena ladder run`")
    check_keys(data, _TOP_KEYS, source, "")
    isolation = data.get("isolation")
    bots = tuple(_parse_bot(item, source, i, isolation)
                 for i, item in enumerate(data["bots"]))
    secret = data.get("seed") == SECRET
    if isinstance(data.get("seed"), str) and not secret:
        raise ConfigError(f"{source}: seed: must be an integer or {SECRET!r}, "
                          f"got {data['seed']!r}")
    config = TournamentConfig(
        name=data["name"], game=data["game"], bots=bots,
        **{k: data[k] for k in _TOP_KEYS
           if k in data and k not in ("name", "game", "bots", "ratings", "seed")},
        seed=0 if secret else data.get("seed", 0), secret_seed=secret,
        ratings=_parse_ratings(data.get("ratings", {}), source),
        source=source)
    if config.time_limit is not None:
        config = replace(config, time_limit=float(config.time_limit))
    config = replace(config, time_bank=float(config.time_bank))
    _check_semantics(config)
    return config


def _where(source: str, key: str) -> str:
    return f"{source}: {key}" if key else source


def check_keys(data: Mapping[str, Any], schema: Mapping[str, tuple[tuple[type, ...], bool]],
                source: str, prefix: str) -> None:
    for key in data:
        if key not in schema:
            raise ConfigError(f"{_where(source, prefix.rstrip('.'))}: "
                              + unknown_name_message("key", str(key), schema))
    for key, (types, required) in schema.items():
        if key not in data:
            if required:
                raise ConfigError(f"{_where(source, prefix + key)}: missing (required)")
            continue
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, types):
            wanted = " or ".join(_TYPE_NAMES[t] for t in types)
            raise ConfigError(f"{_where(source, prefix + key)}: must be {wanted}, "
                              f"got {value!r}")


def _parse_ratings(data: Mapping[str, Any], source: str) -> RatingSettings:
    try:
        return RatingSettings.from_mapping(data)
    except (RatingSettingsError, ValueError, TypeError) as exc:
        raise ConfigError(f"{source}: ratings: {exc}") from None


def _parse_bot(item: Any, source: str, index: int, isolation: str | None) -> BotEntry:
    prefix = f"bots[{index}]"
    if isinstance(item, str):
        item = {"spec": item}
    if not isinstance(item, dict):
        raise ConfigError(f"{source}: {prefix}: must be a bot spec or a mapping with 'spec'")
    check_keys(item, _BOT_KEYS, source, prefix + ".")
    version = item.get("version")
    entry = BotEntry(item["spec"], item.get("name"),
                     None if version is None else str(version), dict(item.get("params", {})),
                     item.get("isolation", isolation))
    if entry.isolation is not None and entry.isolation not in ISOLATIONS:
        raise ConfigError(f"{source}: {prefix}.isolation: must be one of "
                          f"{', '.join(ISOLATIONS)}, got {entry.isolation!r}")
    for key, problem in (("name", entry.name and name_problem(entry.name)),
                         ("version", entry.version and version_problem(entry.version))):
        if problem:
            raise ConfigError(f"{source}: {prefix}.{key}: {problem}")
    if entry.spec.startswith(COMMAND_PREFIX):
        _check_command(entry.spec, source, prefix)
        return entry
    target, _attr = split_spec(entry.spec)
    if target.endswith(".py") and not Path(target).is_file():
        raise ConfigError(f"{source}: {prefix}.spec: no such bot file {target!r} "
                          f"(paths are relative to the current directory, {Path.cwd()})")
    return entry


def _check_command(spec: str, source: str, prefix: str) -> None:
    words = shlex.split(spec[len(COMMAND_PREFIX):])
    if not words:
        raise ConfigError(f"{source}: {prefix}.spec: 'command:' needs a program to run")
    if shutil.which(words[0]) is None:
        raise ConfigError(f"{source}: {prefix}.spec: no program {words[0]!r} to run "
                          "(not found, or not executable)")


def _check_semantics(config: TournamentConfig) -> None:
    source = config.source
    try:
        game = find_game(config.game)
    except UnknownGameError as exc:
        raise ConfigError(f"{source}: game: {exc}") from None
    info = game.info
    checks = [
        (name_problem(config.name, what="tournament name", limit=MAX_NAME) is None, "name",
         str(name_problem(config.name, what="tournament name", limit=MAX_NAME))),
        (SEED_MIN <= config.seed <= SEED_MAX, "seed",
         f"must be from -2**63 to 2**63 - 1, or {SECRET!r}; got {config.seed}"),
        (config.format in FORMATS, "format",
         f"must be one of {', '.join(FORMATS)}, got {config.format!r}"),
        (info.min_seats <= config.seats <= info.max_seats, "seats",
         f"{info.name} tables have {info.min_seats} to {info.max_seats} seats, "
         f"not {config.seats}"),
        (len(config.bots) >= config.seats, "bots",
         f"{len(config.bots)} bots cannot fill a table of {config.seats} seats"),
        (config.rounds >= 1, "rounds", "must be at least 1"),
        (config.games_per_pairing >= 1, "games_per_pairing", "must be at least 1"),
        (config.seat_orders in SEAT_ORDERS, "seat_orders", seat_orders_problem(config)),
        (0 <= config.workers <= MAX_WORKERS, "workers",
         f"must be 0 (one per CPU) to {MAX_WORKERS}"),
        (config.time_limit is None or 0 < config.time_limit < math.inf, "time_limit",
         "must be a positive number of seconds, or null for no limit"),
        (0 <= config.time_bank < math.inf, "time_bank", "must be 0 or more seconds"),
        (config.memory_limit is None or 64 <= config.memory_limit <= 1 << 20, "memory_limit",
         "must be from 64 to 1048576 (MB), or null for no limit"),
        (config.cpu_limit is None or 0 < config.cpu_limit < math.inf, "cpu_limit",
         "must be a positive number of seconds, or null for no limit"),
        (config.executor in EXECUTORS, "executor",
         f"must be one of {', '.join(EXECUTORS)}, got {config.executor!r}"),
        (config.executor != "dask" or bool(config.scheduler), "scheduler",
         "the dask executor needs the scheduler's address, e.g. tcp://host:8786"),
        (config.isolation is None or config.isolation in ISOLATIONS, "isolation",
         f"must be one of {', '.join(ISOLATIONS)}, got {config.isolation!r}"),
        (config.broken_bots in BROKEN_BOTS, "broken_bots",
         f"must be one of {', '.join(BROKEN_BOTS)}, got {config.broken_bots!r}"),
    ]
    for ok, key, message in checks:
        if not ok:
            raise ConfigError(f"{source}: {key}: {message}")
    _check_size(config)
    _check_plain_data(config)
    _check_identities(config)
    _check_game_options(config, game)
    if config.format == "swiss":
        _check_swiss(config)


def seat_orders_problem(config: TournamentConfig) -> str:
    """What is wrong with an unknown ``seat_orders`` (with a did-you-mean)."""
    return (unknown_name_message("design", config.seat_orders, SEAT_ORDERS)
            + " (rotations: the k cyclic seat rotations; balanced: every bot also follows "
            "every other bot equally often)")


def _check_size(config: TournamentConfig) -> None:
    games = games_in(config.format, len(config.bots), config.seats, config.rounds,
                     config.games_per_pairing, config.seat_orders)
    if games > MAX_GAMES:
        raise ConfigError(f"{config.source}: the schedule has {games:,} games, more than the "
                          f"{MAX_GAMES:,} a tournament may have; play fewer games_per_pairing "
                          "or rounds, or split it into several tournaments")


def _check_plain_data(config: TournamentConfig) -> None:
    """Options and parameters go to bot processes and into the database as JSON."""
    for key, value in [("options", config.options),
                       *((f"bots[{i}].params", bot.params) for i, bot in enumerate(config.bots))]:
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{config.source}: {key}: only strings, numbers, true/false, "
                              f"null, lists and mappings are accepted ({exc})") from None


def _check_identities(config: TournamentConfig) -> None:
    seen: dict[tuple[str, str | None, str], int] = {}
    for index, bot in enumerate(config.bots):
        key = (bot.spec, bot.name, json.dumps(bot.params, sort_keys=True))
        if key in seen:
            raise ConfigError(f"{config.source}: bots[{index}]: the same bot as "
                              f"bots[{seen[key]}]; give it another name or parameters")
        seen[key] = index


def _check_game_options(config: TournamentConfig, game: Any) -> None:
    options = dict(config.options)
    if any(o.name == SEATS_OPTION for o in game.info.options):
        options[SEATS_OPTION] = config.seats
    try:
        game.initial_state(game.info.resolve_options(options))  # loads a board file, say
    except ArenaError as exc:
        raise ConfigError(f"{config.source}: options: {exc}") from None


def _check_swiss(config: TournamentConfig) -> None:
    from arena.tournaments.swiss import validate_swiss

    try:
        validate_swiss(len(config.bots), config.seats, config.rounds)
    except ValueError as exc:
        raise ConfigError(f"{config.source}: rounds: {exc}") from None
