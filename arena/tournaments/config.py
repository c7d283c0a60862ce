"""Tournament configuration: a YAML file, validated into a frozen value.

Every problem is reported as ``FILE: KEY: what is wrong``, with a did-you-mean
for misspelt keys. Command-line options override the file's values.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from arena.bots.identity import ISOLATIONS, PROCESS, BotEntry
from arena.bots.loading import split_spec
from arena.bots.process import COMMAND_PREFIX
from arena.games import find_game
from arena.games.base import ArenaError, GameOptionError, UnknownGameError, unknown_name_message
from arena.referee.match import SEATS_OPTION
from arena.results.ratings import RatingSettings, RatingSettingsError

FORMATS = ("round-robin", "swiss")
EXECUTORS = ("local", "dask")
DEFAULT_DB = "results/arena.db"
DEFAULT_OUTPUT_ROOT = "results"


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
    seed: int = 0
    workers: int = 0
    time_limit: float | None = None
    time_bank: float = 0.0
    memory_limit: int | None = 1024
    cpu_limit: float | None = 120.0
    isolation: str = PROCESS
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
        """The settings that decide the results (not where they go or how fast)."""
        data = asdict(self)
        for key in ("workers", "output", "db", "source", "ratings", "executor", "scheduler"):
            data.pop(key)
        data["bots"] = [bot.to_json() for bot in self.bots]
        return data

    def to_json(self) -> dict[str, Any]:
        """The defining settings plus the rating settings (stored with the tournament)."""
        return {**self.defining(), "ratings": asdict(self.ratings)}

    def fingerprint(self) -> str:
        text = json.dumps(self.defining(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


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
    "seed": ((int,), False),
    "workers": ((int,), False),
    "time_limit": ((int, float), False),
    "time_bank": ((int, float), False),
    "memory_limit": ((int,), False),
    "cpu_limit": ((int, float), False),
    "isolation": ((str,), False),
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
               dict: "a mapping"}


def load_config(path: str | Path, **overrides: Any) -> TournamentConfig:
    """Read and validate a config file; ``overrides`` (not None) replace its values."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read the config: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {exc}") from None
    given = {k: v for k, v in overrides.items() if v is not None}
    return parse_config(data, source, given)


def parse_config(data: Any, source: str = "<config>",
                 overrides: Mapping[str, Any] | None = None) -> TournamentConfig:
    """Validate parsed YAML (plus overrides) into a TournamentConfig."""
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: the config must be a mapping of keys to values")
    data = {**data, **(overrides or {})}
    _check_keys(data, _TOP_KEYS, source, "")
    isolation = data.get("isolation", PROCESS)
    bots = tuple(_parse_bot(item, source, i, isolation)
                 for i, item in enumerate(data["bots"]))
    config = TournamentConfig(
        name=data["name"], game=data["game"], bots=bots,
        **{k: data[k] for k in _TOP_KEYS
           if k in data and k not in ("name", "game", "bots", "ratings")},
        ratings=_parse_ratings(data.get("ratings", {}), source),
        source=source)
    if config.time_limit is not None:
        config = replace(config, time_limit=float(config.time_limit))
    config = replace(config, time_bank=float(config.time_bank))
    _check_semantics(config)
    return config


def _where(source: str, key: str) -> str:
    return f"{source}: {key}" if key else source


def _check_keys(data: Mapping[str, Any], schema: Mapping[str, tuple[tuple[type, ...], bool]],
                source: str, prefix: str) -> None:
    for key in data:
        if key not in schema:
            raise ConfigError(f"{_where(source, prefix)}: "
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


def _parse_bot(item: Any, source: str, index: int, isolation: str) -> BotEntry:
    prefix = f"bots[{index}]"
    if isinstance(item, str):
        item = {"spec": item}
    if not isinstance(item, dict):
        raise ConfigError(f"{source}: {prefix}: must be a bot spec or a mapping with 'spec'")
    _check_keys(item, _BOT_KEYS, source, prefix + ".")
    version = item.get("version")
    entry = BotEntry(item["spec"], item.get("name"),
                     None if version is None else str(version), dict(item.get("params", {})),
                     item.get("isolation", isolation))
    if entry.isolation not in ISOLATIONS:
        raise ConfigError(f"{source}: {prefix}.isolation: must be one of "
                          f"{', '.join(ISOLATIONS)}, got {entry.isolation!r}")
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
        (config.format in FORMATS, "format",
         f"must be one of {', '.join(FORMATS)}, got {config.format!r}"),
        (info.min_seats <= config.seats <= info.max_seats, "seats",
         f"{info.name} tables have {info.min_seats} to {info.max_seats} seats, "
         f"not {config.seats}"),
        (len(config.bots) >= config.seats, "bots",
         f"{len(config.bots)} bots cannot fill a table of {config.seats} seats"),
        (config.rounds >= 1, "rounds", "must be at least 1"),
        (config.games_per_pairing >= 1, "games_per_pairing", "must be at least 1"),
        (config.workers >= 0, "workers", "must be 0 (one per CPU) or more"),
        (config.time_limit is None or config.time_limit > 0, "time_limit",
         "must be a positive number of seconds"),
        (config.time_bank >= 0, "time_bank", "must be 0 or more seconds"),
        (config.memory_limit is None or config.memory_limit >= 64, "memory_limit",
         "must be at least 64 (MB)"),
        (config.cpu_limit is None or config.cpu_limit > 0, "cpu_limit",
         "must be a positive number of seconds"),
        (config.executor in EXECUTORS, "executor",
         f"must be one of {', '.join(EXECUTORS)}, got {config.executor!r}"),
        (config.executor != "dask" or bool(config.scheduler), "scheduler",
         "the dask executor needs the scheduler's address, e.g. tcp://host:8786"),
        (config.isolation in ISOLATIONS, "isolation",
         f"must be one of {', '.join(ISOLATIONS)}, got {config.isolation!r}"),
    ]
    for ok, key, message in checks:
        if not ok:
            raise ConfigError(f"{source}: {key}: {message}")
    _check_identities(config)
    _check_game_options(config, game)
    if config.format == "swiss":
        _check_swiss(config)


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
        game.info.resolve_options(options)
    except GameOptionError as exc:
        raise ConfigError(f"{config.source}: options: {exc}") from None


def _check_swiss(config: TournamentConfig) -> None:
    from arena.tournaments.swiss import validate_swiss

    try:
        validate_swiss(len(config.bots), config.seats, config.rounds)
    except ValueError as exc:
        raise ConfigError(f"{config.source}: rounds: {exc}") from None
