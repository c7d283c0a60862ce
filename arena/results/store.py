"""The results database (SQLite, WAL): tournaments, bots, games and their records.

Only the parent process writes. Each game is committed as soon as it is
reported, in its own transaction, keyed by (tournament, game key): a kill at any
moment loses at most the games still being played and never duplicates one.
One process at a time runs a tournament (:meth:`Store.claim`). A database of an
older schema is brought up to date when it is opened; a damaged row is
reported with its tournament and game.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
import sqlite3
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.bots.identity import BotIdentity
from arena.games.base import ArenaError
from arena.referee.record import GameRecord

SCHEMA_VERSION = 2
SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    seed INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    seed_secret INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    spec TEXT NOT NULL,
    params TEXT NOT NULL DEFAULT '{}',
    created REAL NOT NULL,
    UNIQUE (game, name, version)
);
CREATE TABLE IF NOT EXISTS entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    position INTEGER NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots(id),
    PRIMARY KEY (tournament_id, position)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    key TEXT NOT NULL,
    round INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    set_no INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    ranks TEXT NOT NULL,
    scores TEXT NOT NULL,
    statuses TEXT NOT NULL,
    termination TEXT NOT NULL,
    moves INTEGER NOT NULL,
    duration REAL NOT NULL,
    record TEXT NOT NULL,
    finished REAL NOT NULL,
    isolations TEXT NOT NULL DEFAULT '[]',
    UNIQUE (tournament_id, key)
);
CREATE INDEX IF NOT EXISTS games_by_round ON games (tournament_id, round);
CREATE TABLE IF NOT EXISTS ratings (
    system TEXT NOT NULL,
    game TEXT NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots(id),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    computed REAL NOT NULL,
    PRIMARY KEY (system, game, bot_id)
);
"""
MIGRATIONS = {
    1: ["ALTER TABLE tournaments ADD COLUMN seed_secret INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN isolations TEXT NOT NULL DEFAULT '[]'"],
}
"""From each schema version to the next: statements, then :func:`_refingerprint`."""
_CLAIMED: set[Path] = set()
"""Lock files of the tournaments this process runs (a claim is per process)."""


@dataclass(frozen=True)
class FinishedGame:
    """A played game in the form the store writes it.

    Built where the game was played, so that a worker process, not the parent that
    alone writes the database, pays for encoding the record.
    """

    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    statuses: tuple[str, ...]
    termination: str
    moves: int
    record_json: str
    isolations: tuple[str, ...] = ()

    @classmethod
    def of(cls, record: GameRecord) -> FinishedGame:
        return cls(tuple(record.ranks), tuple(record.scores),
                   tuple(seat.status for seat in record.seats), record.termination,
                   len(record.moves), json.dumps(record.to_json(), separators=(",", ":")),
                   tuple(seat.isolation for seat in record.seats))


class StoreError(ArenaError):
    """The database refuses an operation (a changed config, a bot identity clash)."""


class TournamentSettings(Protocol):
    """What the store keeps of a tournament's config (a TournamentConfig is one)."""

    @property
    def name(self) -> str: ...

    @property
    def game(self) -> str: ...

    @property
    def seed(self) -> int: ...

    @property
    def secret_seed(self) -> bool:
        """Whether the store draws the seed (and keeps it from view until the end)."""
        ...

    def fingerprint(self) -> str:
        """A hash of the settings that decide the results."""
        ...

    def to_json(self) -> dict[str, Any]: ...


class GameSlot(Protocol):
    """Where a game stands in its tournament's schedule (a GameTask is one)."""

    @property
    def key(self) -> str: ...

    @property
    def round(self) -> int: ...

    @property
    def table(self) -> int: ...

    @property
    def set(self) -> int: ...

    @property
    def rotation(self) -> int: ...

    @property
    def seats(self) -> tuple[int, ...]: ...

    @property
    def seed(self) -> int: ...


@dataclass(frozen=True)
class StoredBot:
    id: int
    game: str
    identity: BotIdentity
    created: float


@dataclass(frozen=True)
class TournamentRow:
    id: int
    name: str
    game: str
    seed: int
    status: str
    created: float
    finished: float | None
    config: Mapping[str, Any]
    secret: bool = False

    @property
    def shown_seed(self) -> str:
        """The seed as anyone may see it: a secret seed only once the tournament is done."""
        return "secret" if self.secret and self.status != "complete" else str(self.seed)


@dataclass(frozen=True)
class GameRow:
    """A finished game as stored; ``seats`` are entrant positions in seat order."""

    key: str
    round: int
    table: int
    set: int
    rotation: int
    seed: int
    seats: tuple[int, ...]
    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    statuses: tuple[str, ...]
    termination: str
    moves: int
    duration: float
    isolations: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlayedGame:
    """A stored game with the bots' ids (across tournaments)."""

    tournament: int
    round: int
    table: int
    set: int
    rotation: int
    bots: tuple[int, ...]
    ranks: tuple[int, ...]
    scores: tuple[float, ...]


class Store:
    """A connection to the results database."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._claims: list[tuple[Path, Any]] = []
        try:
            self.db = sqlite3.connect(str(self.path), isolation_level=None, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._check_schema()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable results database ({exc})") from None

    def _check_schema(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        tables = self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if version == 0 and tables == 0:
            self.db.executescript(SCHEMA)
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif version in MIGRATIONS:
            self._migrate(version)
        elif version != SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by another version of arena (schema "
                             f"{version}, this one reads {SCHEMA_VERSION}); use a new --db")

    def _migrate(self, version: int) -> None:
        with self.transaction():
            while version in MIGRATIONS:
                for statement in MIGRATIONS[version]:
                    self.db.execute(statement)
                version += 1
            _refingerprint(self.db)
            self.db.execute(f"PRAGMA user_version = {version}")

    def close(self) -> None:
        self.db.close()
        for path, handle in self._claims:
            _CLAIMED.discard(path)
            handle.close()
        self._claims.clear()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- bots ----------------------------------------------------------------

    def register_bot(self, game: str, bot: BotIdentity) -> int:
        """The bot's id; the same name and version with other code is refused.

        Bots are told apart per game: a Seasons bot and a Sonnentau bot may share a name.
        """
        row = self.db.execute("SELECT id, code_hash FROM bots WHERE game = ? AND name = ?"
                              " AND version = ?", (game, bot.name, bot.version)).fetchone()
        if row is None:
            cursor = self.db.execute(
                "INSERT INTO bots (game, name, version, code_hash, spec, params, created)"
                " VALUES (?,?,?,?,?,?,?)",
                (game, bot.name, bot.version, bot.code_hash, bot.spec,
                 json.dumps(dict(bot.params), sort_keys=True), time.time()))
            return int(cursor.lastrowid or 0)
        if row[1] != bot.code_hash:
            raise StoreError(
                f"{game} bot {bot.name} version {bot.version} is already in {self.path} with "
                "different code or parameters; give the changed bot a new version")
        return int(row[0])

    def bots(self, game: str | None = None) -> list[StoredBot]:
        rows = self.db.execute(
            "SELECT id, game, name, version, code_hash, spec, params, created FROM bots"
            " WHERE ? IS NULL OR game = ? ORDER BY game, name, created, version", (game, game))
        return [StoredBot(r[0], r[1], BotIdentity(r[2], r[3], r[4], r[5], json.loads(r[6])),
                          r[7]) for r in rows]

    def find_bot(self, game: str, name: str, version: str) -> StoredBot:
        for bot in self.bots(game):
            if (bot.identity.name, bot.identity.version) == (name, version):
                return bot
        versions = [b.identity.version for b in self.bots(game) if b.identity.name == name]
        known = f"; known versions: {', '.join(versions)}" if versions else ""
        raise StoreError(f"no {game} bot {name}@{version} in {self.path}{known}")

    # -- tournaments -----------------------------------------------------------

    def tournaments(self, game: str | None = None) -> list[TournamentRow]:
        query = ("SELECT id, name, game, seed, status, created, finished, config, seed_secret"
                 " FROM tournaments")
        args: tuple[Any, ...] = ()
        if game is not None:
            query += " WHERE game = ?"
            args = (game,)
        rows = self.db.execute(query + " ORDER BY id", args)
        return [TournamentRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6],
                              self._decode(r[7], f"tournament {r[1]!r}", "its config"),
                              bool(r[8]))
                for r in rows]

    def _decode(self, text: str, where: str, what: str) -> Any:
        """A JSON column, or StoreError naming the damaged row."""
        try:
            return json.loads(text)
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{self.path}: {where}: {what} is damaged ({exc}); restore the "
                             "database from a copy, or start a new one with --db") from None

    def find_tournament(self, key: str | int) -> TournamentRow:
        """A tournament by id or name."""
        for row in self.tournaments():
            if str(row.id) == str(key) or row.name == key:
                return row
        raise StoreError(f"no tournament {key!r} in {self.path}")

    def entrants(self, tournament: int) -> list[int]:
        """Bot ids of the tournament's entrants, by position."""
        rows = self.db.execute("SELECT bot_id FROM entrants WHERE tournament_id = ?"
                               " ORDER BY position", (tournament,))
        return [r[0] for r in rows]

    def open_tournament(self, config: TournamentSettings, bot_ids: Sequence[int]) -> int:
        """The tournament's id: created, or found with the same defining settings.

        A secret seed is drawn here, from the system's randomness, when the tournament is
        created; :meth:`seed_of` gives it back to the process that runs the tournament.
        """
        row = self.db.execute("SELECT id, fingerprint FROM tournaments WHERE name = ?",
                              (config.name,)).fetchone()
        if row is not None:
            if row[1] != config.fingerprint():
                raise StoreError(
                    f"tournament {config.name!r} in {self.path} was run with other settings "
                    "(bots, seed, format, options, time limit, …); give this one another name")
            return int(row[0])
        seed = secrets.randbits(63) if config.secret_seed else config.seed
        with self.transaction():
            cursor = self.db.execute(
                "INSERT INTO tournaments (name, game, seed, fingerprint, config, status, created,"
                " seed_secret) VALUES (?,?,?,?,?,?,?,?)",
                (config.name, config.game, seed, config.fingerprint(),
                 json.dumps(config.to_json()), "running", time.time(), int(config.secret_seed)))
            tid = int(cursor.lastrowid or 0)
            self.db.executemany(
                "INSERT INTO entrants (tournament_id, position, bot_id) VALUES (?,?,?)",
                [(tid, i, bot_id) for i, bot_id in enumerate(bot_ids)])
        return tid

    def seed_of(self, tournament: int) -> int:
        """The tournament's seed (a secret one too: for the process that runs it)."""
        row = self.db.execute("SELECT seed FROM tournaments WHERE id = ?",
                              (tournament,)).fetchone()
        return int(row[0])

    def claim(self, tournament: int) -> None:
        """Make this process the only one running ``tournament`` until the store is closed;
        StoreError says which process runs it already. The operating system lets go of
        the claim when this process ends, even by ``kill -9``."""
        folder = self.path.with_name(self.path.name + ".runs")
        folder.mkdir(exist_ok=True)
        path = (folder / f"{tournament}.lock").resolve()
        if path in _CLAIMED:  # this process runs it already (another Store of the same file)
            return
        handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until close()
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            handle.close()
            name = self.find_tournament(tournament).name
            raise StoreError(f"tournament {name!r} is being run already, by {holder}; wait "
                             "for it to finish, or stop it, then run this again") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()} ({' '.join(sys.argv)[:200]})")
        handle.flush()
        _CLAIMED.add(path)
        self._claims.append((path, handle))

    def set_status(self, tournament: int, status: str) -> None:
        finished = time.time() if status == "complete" else None
        self.db.execute("UPDATE tournaments SET status = ?, finished = ? WHERE id = ?",
                        (status, finished, tournament))

    def status(self, tournament: int) -> str:
        row = self.db.execute("SELECT status FROM tournaments WHERE id = ?",
                              (tournament,)).fetchone()
        return str(row[0])

    # -- games -------------------------------------------------------------------

    def save_game(self, tournament: int, task: GameSlot, game: FinishedGame,
                  duration: float) -> None:
        """Commit one finished game (a second report of the same game is ignored)."""
        self.db.execute(
            "INSERT OR IGNORE INTO games (tournament_id, key, round, table_no, set_no, rotation,"
            " seed, seats, ranks, scores, statuses, termination, moves, duration, record,"
            " finished, isolations) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (tournament, task.key, task.round, task.table, task.set, task.rotation, task.seed,
             json.dumps(task.seats), json.dumps(game.ranks), json.dumps(game.scores),
             json.dumps(game.statuses), game.termination, game.moves, duration,
             game.record_json, time.time(), json.dumps(game.isolations)))

    def finished_count(self, name: str) -> int:
        """How many games of the tournament called ``name`` are stored (0 if there is none)."""
        row = self.db.execute("SELECT count(*) FROM games g JOIN tournaments t"
                              " ON t.id = g.tournament_id WHERE t.name = ?", (name,)).fetchone()
        return int(row[0])

    def finished_keys(self, tournament: int) -> set[str]:
        rows = self.db.execute("SELECT key FROM games WHERE tournament_id = ?", (tournament,))
        return {row[0] for row in rows}

    def games(self, tournament: int, *, round_index: int | None = None) -> Iterator[GameRow]:
        """Finished games in schedule order (round, table, set, rotation)."""
        query = ("SELECT key, round, table_no, set_no, rotation, seed, seats, ranks, scores,"
                 " statuses, termination, moves, duration, isolations FROM games"
                 " WHERE tournament_id = ?")
        args: list[Any] = [tournament]
        if round_index is not None:
            query += " AND round = ?"
            args.append(round_index)
        query += " ORDER BY round, table_no, set_no, rotation"
        for row in self.db.execute(query, args):
            yield self._game_row(tournament, row)

    def _game_row(self, tournament: int, row: Sequence[Any]) -> GameRow:
        try:
            seats, ranks, scores, statuses, isolations = (
                tuple(json.loads(text)) for text in (row[6], row[7], row[8], row[9], row[13]))
            if not len(seats) == len(ranks) == len(scores) == len(statuses):
                raise ValueError("seats, ranks, scores and statuses differ in length")
            return GameRow(row[0], int(row[1]), int(row[2]), int(row[3]), int(row[4]),
                           int(row[5]), tuple(int(s) for s in seats),
                           tuple(int(r) for r in ranks), tuple(float(s) for s in scores),
                           tuple(str(s) for s in statuses), str(row[10]), int(row[11]),
                           float(row[12]), tuple(str(i) for i in isolations))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{self.path}: tournament {tournament}, game {row[0]!r}: the row "
                             f"is damaged ({exc}); restore the database from a copy, or "
                             "start a new one with --db") from None

    def played_games(self, game: str) -> Iterator[PlayedGame]:
        """Every stored game of ``game`` with bot ids, in canonical order: tournament
        (oldest first), round, table, set, rotation."""
        query = ("SELECT g.tournament_id, g.round, g.table_no, g.set_no, g.rotation, g.seats,"
                 " g.ranks, g.scores FROM games g JOIN tournaments t ON t.id = g.tournament_id"
                 " WHERE t.game = ?"
                 " ORDER BY g.tournament_id, g.round, g.table_no, g.set_no, g.rotation")
        entrants: dict[int, list[int]] = {}
        for tid, round_no, table, game_set, rotation, seats, ranks, scores in self.db.execute(
                query, (game,)).fetchall():
            if tid not in entrants:
                entrants[tid] = self.entrants(tid)
            try:
                bots = tuple(entrants[tid][int(position)] for position in json.loads(seats))
                played = PlayedGame(tid, round_no, table, game_set, rotation, bots,
                                    tuple(int(r) for r in json.loads(ranks)),
                                    tuple(float(s) for s in json.loads(scores)))
            except (TypeError, ValueError, IndexError) as exc:
                raise StoreError(f"{self.path}: tournament {tid}, round {round_no}, table "
                                 f"{table}, set {game_set}, rotation {rotation}: the row is "
                                 f"damaged ({exc})") from None
            yield played

    def save_ratings(self, system: str, game: str,
                     ratings: Mapping[int, tuple[float, float, int]]) -> None:
        """Replace the stored ratings of ``game`` by ``system``: bot id -> (μ, σ, games)."""
        now = time.time()
        with self.transaction():
            self.db.execute("DELETE FROM ratings WHERE system = ? AND game = ?", (system, game))
            self.db.executemany(
                "INSERT INTO ratings (system, game, bot_id, mu, sigma, games, computed)"
                " VALUES (?,?,?,?,?,?,?)",
                [(system, game, bot, mu, sigma, n, now)
                 for bot, (mu, sigma, n) in ratings.items()])

    def record(self, tournament: int, key: str) -> GameRecord:
        row = self.db.execute("SELECT record FROM games WHERE tournament_id = ? AND key = ?",
                              (tournament, key)).fetchone()
        if row is None:
            raise StoreError(f"no game {key!r} in tournament {tournament}")
        try:
            return GameRecord.from_json(json.loads(row[0]))
        except (TypeError, ValueError, KeyError, IndexError) as exc:
            raise StoreError(f"{self.path}: tournament {tournament}, game {key!r}: its record "
                             f"is damaged ({exc})") from None

    def transaction(self) -> _Transaction:
        return _Transaction(self.db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")


def _refingerprint(db: sqlite3.Connection) -> None:
    """Fingerprints as this version computes them: without the isolation of the bots, which
    decides how bots are contained, not the results."""
    for tid, text in db.execute("SELECT id, config FROM tournaments").fetchall():
        config = json.loads(text)
        defining = {key: value for key, value in config.items()
                    if key not in ("ratings", "isolation")}
        defining["bots"] = [{k: v for k, v in bot.items() if k != "isolation"}
                            for bot in defining.get("bots", [])]
        fingerprint = hashlib.sha256(json.dumps(defining, sort_keys=True,
                                                separators=(",", ":")).encode()).hexdigest()
        db.execute("UPDATE tournaments SET fingerprint = ? WHERE id = ?", (fingerprint, tid))
