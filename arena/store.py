"""The results database (SQLite, WAL): tournaments, bots, games and their records.

Only the parent process writes. Each game is committed as soon as it is
reported, in its own transaction, keyed by (tournament, game key): a kill at any
moment loses at most the games still being played and never duplicates one.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.config import TournamentConfig
from arena.games.base import ArenaError
from arena.record import GameRecord
from arena.schedule import GameTask

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
    finished REAL
);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    spec TEXT NOT NULL,
    created REAL NOT NULL,
    UNIQUE (name, version)
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
    UNIQUE (tournament_id, key)
);
CREATE INDEX IF NOT EXISTS games_by_round ON games (tournament_id, round);
"""


class StoreError(ArenaError):
    """The database refuses an operation (a changed config, a bot identity clash)."""


@dataclass(frozen=True)
class BotIdentity:
    name: str
    version: str
    code_hash: str
    spec: str


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


class Store:
    """A connection to the results database."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(str(self.path), isolation_level=None, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable results database ({exc})") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- bots ----------------------------------------------------------------

    def register_bot(self, bot: BotIdentity) -> int:
        """The bot's id; the same name and version with other code is refused."""
        row = self.db.execute("SELECT id, code_hash FROM bots WHERE name = ? AND version = ?",
                              (bot.name, bot.version)).fetchone()
        if row is None:
            cursor = self.db.execute(
                "INSERT INTO bots (name, version, code_hash, spec, created) VALUES (?,?,?,?,?)",
                (bot.name, bot.version, bot.code_hash, bot.spec, time.time()))
            return int(cursor.lastrowid or 0)
        if row[1] != bot.code_hash:
            raise StoreError(
                f"bot {bot.name} version {bot.version} is already in {self.path} with different "
                f"code or parameters; give the changed bot a new version")
        return int(row[0])

    # -- tournaments -----------------------------------------------------------

    def open_tournament(self, config: TournamentConfig, bot_ids: Sequence[int]) -> int:
        """The tournament's id: created, or found with the same defining settings."""
        row = self.db.execute("SELECT id, fingerprint FROM tournaments WHERE name = ?",
                              (config.name,)).fetchone()
        if row is not None:
            if row[1] != config.fingerprint():
                raise StoreError(
                    f"tournament {config.name!r} in {self.path} was run with other settings "
                    "(bots, seed, format, options, …); give this one another name")
            return int(row[0])
        with self.transaction():
            cursor = self.db.execute(
                "INSERT INTO tournaments (name, game, seed, fingerprint, config, status, created)"
                " VALUES (?,?,?,?,?,?,?)",
                (config.name, config.game, config.seed, config.fingerprint(),
                 json.dumps(config.defining()), "running", time.time()))
            tid = int(cursor.lastrowid or 0)
            self.db.executemany(
                "INSERT INTO entrants (tournament_id, position, bot_id) VALUES (?,?,?)",
                [(tid, i, bot_id) for i, bot_id in enumerate(bot_ids)])
        return tid

    def set_status(self, tournament: int, status: str) -> None:
        finished = time.time() if status == "complete" else None
        self.db.execute("UPDATE tournaments SET status = ?, finished = ? WHERE id = ?",
                        (status, finished, tournament))

    def status(self, tournament: int) -> str:
        row = self.db.execute("SELECT status FROM tournaments WHERE id = ?",
                              (tournament,)).fetchone()
        return str(row[0])

    # -- games -------------------------------------------------------------------

    def save_game(self, tournament: int, task: GameTask, record: GameRecord,
                  duration: float) -> None:
        """Commit one finished game (a second report of the same game is ignored)."""
        self.db.execute(
            "INSERT OR IGNORE INTO games (tournament_id, key, round, table_no, set_no, rotation,"
            " seed, seats, ranks, scores, statuses, termination, moves, duration, record,"
            " finished) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (tournament, task.key, task.round, task.table, task.set, task.rotation, task.seed,
             json.dumps(task.seats), json.dumps(record.ranks), json.dumps(record.scores),
             json.dumps([s.status for s in record.seats]), record.termination,
             len(record.moves), duration, json.dumps(record.to_json(), separators=(",", ":")),
             time.time()))

    def finished_keys(self, tournament: int) -> set[str]:
        rows = self.db.execute("SELECT key FROM games WHERE tournament_id = ?", (tournament,))
        return {row[0] for row in rows}

    def games(self, tournament: int, *, round_index: int | None = None) -> Iterator[GameRow]:
        """Finished games in schedule order (round, table, set, rotation)."""
        query = ("SELECT key, round, table_no, set_no, rotation, seed, seats, ranks, scores,"
                 " statuses, termination, moves, duration FROM games WHERE tournament_id = ?")
        args: list[Any] = [tournament]
        if round_index is not None:
            query += " AND round = ?"
            args.append(round_index)
        query += " ORDER BY round, table_no, set_no, rotation"
        for row in self.db.execute(query, args):
            yield GameRow(row[0], row[1], row[2], row[3], row[4], row[5],
                          tuple(json.loads(row[6])), tuple(json.loads(row[7])),
                          tuple(json.loads(row[8])), tuple(json.loads(row[9])), row[10],
                          row[11], row[12])

    def record(self, tournament: int, key: str) -> GameRecord:
        row = self.db.execute("SELECT record FROM games WHERE tournament_id = ? AND key = ?",
                              (tournament, key)).fetchone()
        if row is None:
            raise StoreError(f"no game {key!r} in tournament {tournament}")
        return GameRecord.from_json(json.loads(row[0]))

    def transaction(self) -> _Transaction:
        return _Transaction(self.db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")
