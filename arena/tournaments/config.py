"""Tournament configuration: a YAML file, validated into a frozen value.

Every problem is reported as ``FILE: KEY: what is wrong``, with a did-you-mean
for misspelt keys, all of a file's problems at once (one a line). Command-line
options override the file's values. A config may come from someone else, so
nothing in it is trusted: the file is plain UTF-8 YAML of bounded size without
anchors or aliases (no "billion laughs"), numbers are finite and in range, names
cannot be paths, and a schedule too big to play is refused with its size.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import shutil
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.bots.identity import BotEntry
from arena.bots.isolation import ISOLATIONS
from arena.bots.loading import split_spec
from arena.bots.names import name_problem, version_problem
from arena.bots.process import COMMAND_PREFIX
from arena.bots.shipped import shipped_spec, unknown_name
from arena.games import MODULES, find_game
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


def db_option(db: str) -> str:
    """`` --db PATH`` for a command that should read ``db``; empty for the default."""
    return "" if db == DEFAULT_DB else f" --db {shlex.quote(db)}"


def report_command(name: str, db: str, out: str | Path) -> str:
    """``arena report NAME`` with the ``--db`` and ``--out`` that write the report of
    tournament ``name`` of ``db`` into the folder ``out``."""
    command = f"arena report {shlex.quote(name)}{db_option(db)}"
    if Path(out) != Path(DEFAULT_OUTPUT_ROOT) / name:
        command += f" --out {shlex.quote(str(out))}"
    return command


class ConfigError(ArenaError, ValueError):
    """A config that cannot be used: each of its problems (``FILE: KEY: what is wrong``) on
    a line of its own, all of them at once."""

    def __init__(self, *problems: str) -> None:
        super().__init__("\n".join(problems))
        self.problems: tuple[str, ...] = problems


class Problems:
    """The problems of one config, gathered so that one run reports them all: each
    ``FILE: KEY: what is wrong``, in the order of the file's keys (then those of keys it
    does not have, then those of the whole config)."""

    def __init__(self, source: str, keys: Sequence[Any] = (),
                 command_line: Collection[str] = ()) -> None:
        self.source = source
        self.keys = [str(key) for key in keys]
        self.command_line = frozenset(command_line)
        """The keys the command line gave (``--workers``): their problems are not the file's."""
        self.found: list[tuple[str, str]] = []

    def add(self, key: str, message: str, *, place: str | None = None) -> None:
        """A problem of ``key`` (``bots[1].spec``; "" for the config as a whole), listed at
        the place of key ``place`` (default: ``key``) in the file."""
        if _top_key(key) in self.command_line:
            text = f"{key} (given on the command line): {message}"
        else:
            text = f"{self.source}: {key}: {message}" if key else f"{self.source}: {message}"
        self.found.append((key if place is None else place, text))

    def about(self, *keys: str) -> bool:
        """Whether one of ``keys`` (top-level keys such as ``bots``) has a problem."""
        return any(_top_key(key) in keys for key, _ in self.found)

    def __bool__(self) -> bool:
        return bool(self.found)

    def raise_any(self) -> None:
        """ConfigError with every problem found, if there is one."""
        if self.found:
            def place(found: tuple[str, str]) -> int:
                top = _top_key(found[0])
                if not top:
                    return len(self.keys) + 1
                return self.keys.index(top) if top in self.keys else len(self.keys)

            raise ConfigError(*(text for _, text in sorted(self.found, key=place)))


def _top_key(key: str) -> str:
    """``bots`` for ``bots[1].spec``, ``ladder`` for ``ladder.exploration``."""
    return key.split(".")[0].split("[")[0]


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
    seed_given: bool = True
    """Whether the config gave a seed (without one it is 0, and the run says so)."""
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
                    "isolation", "secret_seed", "seed_given", "broken_bots"):
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
_WANTED = {
    "seed": f"an integer or {SECRET!r}",
    "workers": "a whole number",
    "time_limit": "a number of seconds, or null for no limit",
    "time_bank": "a number of seconds",
    "memory_limit": "a whole number of MB, or null for no limit",
    "cpu_limit": "a number of seconds, or null for no limit",
    "version": "a string or a number",
}
"""What a key takes, said for a person (instead of the names of its types)."""


def wanted(types: tuple[type, ...]) -> str:
    """``a number, or null`` for (int, float, NoneType): what a value of ``types`` is."""
    names = [_TYPE_NAMES[t] for t in types if t is not NULL and not (
        t is int and float in types)]
    text = " or ".join(names)
    return f"{text}, or null" if NULL in types else text


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
    """Validate parsed YAML (plus overrides) into a TournamentConfig; ConfigError names
    every problem of it at once, one a line."""
    problems = Problems(source, list(data) if isinstance(data, dict) else (), overrides or ())
    config = collect_config(data, problems, overrides)
    problems.raise_any()
    assert config is not None
    return config


def collect_config(data: Any, problems: Problems,
                   overrides: Mapping[str, Any] | None = None) -> TournamentConfig | None:
    """The config of parsed YAML (plus overrides), every problem found added to
    ``problems``; None where the data is no config at all. Values with a problem are left
    at their defaults, so that the checks after them still find their own problems."""
    if not isinstance(data, dict):
        problems.add("", "the config must be a mapping of keys to values")
        return None
    data = {**data, **(overrides or {})}
    if "ladder" in data:
        problems.add("", "a ladder's config (it has a ladder: section); run it with "
                     "`arena ladder run`")
        return None
    bad = key_problems(data, _TOP_KEYS, problems, "", _WANTED)
    good = {key: value for key, value in data.items() if key in _TOP_KEYS and key not in bad}
    if isinstance(good.get("seed"), str) and good["seed"] != SECRET:
        problems.add("seed", f"must be {_WANTED['seed']}, got {good['seed']!r}")
        del good["seed"]
    secret = good.get("seed") == SECRET
    given_bots = good.get("bots")
    bots = [(index, entry) for index, item in enumerate(given_bots or [])
            if (entry := _parse_bot(item, problems, index, good.get("isolation"),
                                    good.get("game"))) is not None]
    config = TournamentConfig(
        name=good.get("name", ""), game=good.get("game", ""),
        bots=tuple(entry for _, entry in bots),
        **{k: good[k] for k in _TOP_KEYS
           if k in good and k not in ("name", "game", "bots", "ratings", "seed")},
        seed=0 if secret else good.get("seed", 0), secret_seed=secret,
        seed_given="seed" in good,
        ratings=_parse_ratings(good.get("ratings", {}), problems),
        source=problems.source)
    if config.time_limit is not None:
        config = replace(config, time_limit=float(config.time_limit))
    config = replace(config, time_bank=float(config.time_bank))
    _check_semantics(config, problems, None if given_bots is None else len(given_bots), bots)
    return config


def check_keys(data: Mapping[str, Any], schema: Mapping[str, tuple[tuple[type, ...], bool]],
               source: str, prefix: str) -> None:
    """ConfigError naming every unknown, missing or mistyped key of ``data``."""
    problems = Problems(source, list(data))
    key_problems(data, schema, problems, prefix)
    problems.raise_any()


def key_problems(data: Mapping[str, Any], schema: Mapping[str, tuple[tuple[type, ...], bool]],
                 problems: Problems, prefix: str,
                 described: Mapping[str, str] | None = None) -> set[str]:
    """Add the unknown keys of ``data`` (with a did-you-mean), the missing required ones and
    those of another type to ``problems``; the keys that have a problem."""
    bad: set[str] = set()
    for key in data:
        if key not in schema:
            bad.add(str(key))
            problems.add(prefix.rstrip("."), unknown_name_message("key", str(key), schema),
                         place=prefix + str(key))
    for key, (types, required) in schema.items():
        if key not in data:
            if required:
                bad.add(key)
                problems.add(prefix + key, "missing (required)")
            continue
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, types):
            bad.add(key)
            text = (described or {}).get(key) or wanted(types)
            problems.add(prefix + key, f"must be {text}, got {value!r}"
                         + yaml_number_hint(value, types))
    return bad


def yaml_number_hint(value: Any, types: tuple[type, ...]) -> str:
    """Why a number a person wrote is text: YAML reads ``1e9`` and ``1.0e9`` as strings
    (its numbers with an exponent need a dot and a sign, ``1.0e+9``)."""
    if float not in types or not isinstance(value, str):
        return ""
    try:
        number = float(value)
    except ValueError:
        return ""
    if not math.isfinite(number) or not any(c in value for c in "eE"):
        return ""
    mantissa, _, exponent = value.lower().partition("e")
    sign = "" if exponent[:1] in "+-" else "+"
    fixed = f"{mantissa if '.' in mantissa else mantissa + '.0'}e{sign}{exponent}"
    return f" (YAML reads {value} as text: write {fixed})"


def _parse_ratings(data: Mapping[str, Any], problems: Problems) -> RatingSettings:
    try:
        return RatingSettings.from_mapping(data)
    except (RatingSettingsError, ValueError, TypeError) as exc:
        problems.add("ratings", str(exc))
        return RatingSettings()


def _parse_bot(item: Any, problems: Problems, index: int, isolation: str | None,
               game: Any = None) -> BotEntry | None:
    """The entry of ``bots[index]``, or None after adding its problems; the bare name of a
    bot shipped for ``game`` (``greedy``) is its file, as on the command line."""
    prefix = f"bots[{index}]"
    if isinstance(item, str):
        item = {"spec": item}
    if isinstance(item, dict) and isinstance(item.get("spec"), str) and isinstance(game, str):
        unknown = unknown_name(item["spec"], [game]) if game in MODULES else None
        if unknown is not None:
            problems.add(prefix, unknown)
            return None
        item = {**item, "spec": shipped_spec(item["spec"], game)}
    if not isinstance(item, dict):
        problems.add(prefix, "must be a bot spec or a mapping with 'spec'")
        return None
    before = len(problems.found)
    bad = key_problems(item, _BOT_KEYS, problems, prefix + ".", _WANTED)
    if "spec" in bad:
        return None
    version = item.get("version") if "version" not in bad else None
    entry = BotEntry(item["spec"], item.get("name") if "name" not in bad else None,
                     None if version is None else str(version),
                     dict(item.get("params", {})) if "params" not in bad else {},
                     item.get("isolation", isolation) if "isolation" not in bad else isolation)
    own = item.get("isolation") if "isolation" not in bad else None  # not the config's
    if own is not None and own not in ISOLATIONS:
        problems.add(f"{prefix}.isolation", f"must be one of {', '.join(ISOLATIONS)}, got "
                     f"{own!r}")
    for key, problem in (("name", entry.name and name_problem(entry.name)),
                         ("version", entry.version and version_problem(entry.version))):
        if problem:
            problems.add(f"{prefix}.{key}", problem)
    if entry.spec.startswith(COMMAND_PREFIX):
        _check_command(entry.spec, problems, prefix)
    else:
        target, _attr = split_spec(entry.spec)
        if target.endswith(".py") and not Path(target).is_file():
            problems.add(f"{prefix}.spec", f"no such bot file {target!r} (paths are relative "
                         f"to the current directory, {Path.cwd()})")
    return entry if len(problems.found) == before else None


def _check_command(spec: str, problems: Problems, prefix: str) -> None:
    words = shlex.split(spec[len(COMMAND_PREFIX):])
    if not words:
        problems.add(f"{prefix}.spec", "'command:' needs a program to run")
    elif shutil.which(words[0]) is None:
        problems.add(f"{prefix}.spec", f"no program {words[0]!r} to run (not found, or not "
                     "executable)")


def _check_semantics(config: TournamentConfig, problems: Problems, given_bots: int | None,
                     bots: Sequence[tuple[int, BotEntry]]) -> None:
    """Add the problems of the values themselves (and of their combinations), leaving out
    keys that already have one: ``given_bots`` entries were given (None: no list of bots),
    ``bots`` are the usable ones with their index."""
    game: Any = None
    if not problems.about("game"):
        try:
            game = find_game(config.game)
        except UnknownGameError as exc:
            problems.add("game", str(exc))
    checks: list[tuple[bool, str, str]] = [
        (name_problem(config.name, what="tournament name", limit=MAX_NAME) is None, "name",
         str(name_problem(config.name, what="tournament name", limit=MAX_NAME))),
        (SEED_MIN <= config.seed <= SEED_MAX, "seed",
         f"must be from -2**63 to 2**63 - 1, or {SECRET!r}; got {config.seed}"),
        (config.format in FORMATS, "format",
         f"must be one of {', '.join(FORMATS)}, got {config.format!r}"),
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
    if game is not None:
        info = game.info
        seats = (f"{info.min_seats}" if info.min_seats == info.max_seats
                 else f"{info.min_seats} to {info.max_seats}")
        checks.insert(3, (info.min_seats <= config.seats <= info.max_seats, "seats",
                          f"{info.name} tables have {seats} seats, not {config.seats}"))
    for ok, key, message in checks:
        if not ok and not problems.about(key):
            problems.add(key, message)
    fills = given_bots is not None and given_bots >= config.seats
    if given_bots is not None and not fills and not problems.about("seats"):
        problems.add("bots", f"{given_bots} {'bot' if given_bots == 1 else 'bots'} cannot "
                     f"fill a table of {config.seats} seats")
    shape = ("format", "seats", "rounds", "games_per_pairing", "seat_orders")
    if given_bots is not None and fills and not problems.about(*shape):
        _check_size(config, given_bots, problems)
    _check_plain_data(config, bots, problems)
    _check_identities(bots, problems)
    if game is not None and not problems.about("options"):
        _check_game_options(config, game, problems)
    if (config.format == "swiss" and given_bots is not None and fills
            and not problems.about("seats", "rounds")):
        _check_swiss(config, given_bots, problems)


def seat_orders_problem(config: TournamentConfig) -> str:
    """What is wrong with an unknown ``seat_orders`` (with a did-you-mean)."""
    return (unknown_name_message("design", config.seat_orders, SEAT_ORDERS)
            + " (rotations: the k cyclic seat rotations; balanced: every bot also follows "
            "every other bot equally often)")


def _check_size(config: TournamentConfig, bots: int, problems: Problems) -> None:
    games = games_in(config.format, bots, config.seats, config.rounds,
                     config.games_per_pairing, config.seat_orders)
    if games > MAX_GAMES:
        problems.add("", f"the schedule has {games:,} games, more than the {MAX_GAMES:,} a "
                     "tournament may have; play fewer games_per_pairing or rounds, or split "
                     "it into several tournaments")


def _check_plain_data(config: TournamentConfig, bots: Sequence[tuple[int, BotEntry]],
                      problems: Problems) -> None:
    """Options and parameters go to bot processes and into the database as JSON."""
    for key, value in [("options", config.options),
                       *((f"bots[{i}].params", bot.params) for i, bot in bots)]:
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            problems.add(key, "only strings, numbers, true/false, null, lists and mappings "
                         f"are accepted ({exc})")


def _check_identities(bots: Sequence[tuple[int, BotEntry]], problems: Problems) -> None:
    seen: dict[tuple[str, str | None, str], int] = {}
    for index, bot in bots:
        try:
            key = (bot.spec, bot.name, json.dumps(bot.params, sort_keys=True))
        except (TypeError, ValueError):  # parameters that are not plain data: said already
            continue
        if key in seen:
            problems.add(f"bots[{index}]", f"the same bot as bots[{seen[key]}]; give it "
                         "another name or parameters")
        seen.setdefault(key, index)


def _check_game_options(config: TournamentConfig, game: Any, problems: Problems) -> None:
    """The options' own problems; with a seat count the game does not have (a problem of
    its own), they are checked at the game's fewest seats."""
    options = dict(config.options)
    info = game.info
    said = options.get(SEATS_OPTION, config.seats)
    if said != config.seats or isinstance(said, bool):
        whole = isinstance(said, int) and not isinstance(said, bool)
        problems.add("options", f"seats: {said!r} here, but the tables seat {config.seats} ("
                     + (f"write `seats: {said}` beside `game:`" if whole else
                        "the number of players is `seats:` beside `game:`")
                     + ", not among the options)")
    if any(o.name == SEATS_OPTION for o in info.options):
        options[SEATS_OPTION] = (config.seats if info.min_seats <= config.seats <= info.max_seats
                                 else info.min_seats)
    said = info.option_problems(options)  # each option's own problem, all at once
    for problem in said:
        problems.add("options", problem)
    if said:
        return
    try:
        game.initial_state(game.info.resolve_options(options))  # loads a board file, say
    except ArenaError as exc:
        problems.add("options", str(exc))


def _check_swiss(config: TournamentConfig, bots: int, problems: Problems) -> None:
    from arena.tournaments.swiss import validate_swiss

    try:
        validate_swiss(bots, config.seats, config.rounds)
    except ValueError as exc:
        problems.add("rounds", str(exc))
