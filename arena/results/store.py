"""The results database (SQLite, WAL): tournaments, bots, games and their records.

Only the parent process writes. Each game is committed as soon as it is
reported, in its own transaction, keyed by (tournament, game key): a kill at any
moment loses at most the games still being played and never duplicates one.
One process at a time runs a tournament (:meth:`Store.claim`). A database of an
older schema is brought up to date when it is opened; a damaged row is
reported with its tournament and game.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import shlex
import sqlite3
import stat
import sys
import tempfile
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.bots.bundles import Bundle
from arena.bots.identity import REVISION_DIGITS, BotIdentity, revision_labels
from arena.games.base import ArenaError, nearest
from arena.referee.record import OK, GameRecord, failed_seats

SCHEMA_VERSION = 9
_CODE_V9 = """
CREATE TABLE IF NOT EXISTS bundles (
    digest TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS bot_code (
    bot_id INTEGER PRIMARY KEY REFERENCES bots(id),
    bundle TEXT NOT NULL REFERENCES bundles(digest)
);
"""
"""Each bot revision's kept code: its bundle (:mod:`arena.bots.bundles`), by its digest."""
SCHEMA = _CODE_V9 + """
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
    label TEXT NOT NULL,
    UNIQUE (game, name, version, code_hash),
    UNIQUE (game, label)
);
CREATE TABLE IF NOT EXISTS entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    position INTEGER NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots(id),
    problem TEXT,
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
    details TEXT NOT NULL DEFAULT '[]',
    UNIQUE (tournament_id, key)
);
CREATE INDEX IF NOT EXISTS games_by_round ON games (tournament_id, round);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    source TEXT NOT NULL,
    spec TEXT NOT NULL,
    status TEXT NOT NULL,
    log TEXT NOT NULL DEFAULT '',
    bot_id INTEGER REFERENCES bots(id),
    position INTEGER,
    joined_round INTEGER,
    created REAL NOT NULL,
    changed REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS ladder_rounds (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    round INTEGER NOT NULL,
    phase TEXT NOT NULL,
    tables TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (tournament_id, round)
);
CREATE TABLE IF NOT EXISTS participants (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL,
    salt TEXT NOT NULL,
    organizer INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    sessions INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS submitters (
    submission_id INTEGER PRIMARY KEY REFERENCES submissions(id),
    participant_id INTEGER NOT NULL REFERENCES participants(id)
);
CREATE TABLE IF NOT EXISTS ladder_ratings (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    position INTEGER NOT NULL,
    round INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, position, round)
);
CREATE TABLE IF NOT EXISTS ladder_pairs (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    a INTEGER NOT NULL,
    b INTEGER NOT NULL,
    round INTEGER NOT NULL,
    games INTEGER NOT NULL,
    points REAL NOT NULL,
    PRIMARY KEY (tournament_id, a, b, round)
);
CREATE INDEX IF NOT EXISTS games_by_finished ON games (tournament_id, finished);
CREATE TABLE IF NOT EXISTS ladder_current (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    position INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    change REAL NOT NULL,
    round INTEGER NOT NULL,
    seq INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tournament_id, position)
);
CREATE TABLE IF NOT EXISTS luck (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    key TEXT NOT NULL,
    model TEXT NOT NULL,
    luck TEXT NOT NULL,
    PRIMARY KEY (tournament_id, key, model)
);
CREATE TABLE IF NOT EXISTS ratings (
    system TEXT NOT NULL,
    game TEXT NOT NULL,
    variant TEXT NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots(id),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    computed REAL NOT NULL,
    PRIMARY KEY (system, game, variant, bot_id)
);
CREATE TABLE IF NOT EXISTS game_seats (
    tournament_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    game_id INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    status TEXT NOT NULL,
    detail TEXT NOT NULL,
    key TEXT NOT NULL,
    seats TEXT NOT NULL,
    ranks TEXT NOT NULL,
    statuses TEXT NOT NULL,
    termination TEXT NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (tournament_id, position, game_id, seat)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS game_seats_failed ON game_seats (tournament_id, position, game_id)
    WHERE status != 'ok';
CREATE INDEX IF NOT EXISTS submissions_by_bot ON submissions (bot_id);
CREATE INDEX IF NOT EXISTS submissions_by_position ON submissions (tournament_id, position);
CREATE INDEX IF NOT EXISTS ladder_current_by_seq ON ladder_current (tournament_id, seq);
CREATE INDEX IF NOT EXISTS ladder_pairs_totals ON ladder_pairs (tournament_id, a, b, games,
    points);
CREATE INDEX IF NOT EXISTS ladder_ratings_lines ON ladder_ratings (tournament_id, position,
    round, mu, sigma, games);
CREATE TABLE IF NOT EXISTS ladder_changes (
    tournament_id INTEGER PRIMARY KEY,
    entrants INTEGER NOT NULL DEFAULT 0,
    ratings INTEGER NOT NULL DEFAULT 0
);
"""
_ARRAY = ("CASE WHEN json_valid({row}.{column}) AND json_type({row}.{column}) = 'array'"
          " THEN {row}.{column} ELSE '[]' END")
_SEATS_OF = (
    "SELECT {row}.tournament_id, s.value, {row}.id, s.key, coalesce(t.value, 'ok'),"
    " CASE WHEN coalesce(t.value, 'ok') != 'ok' THEN coalesce(d.value, '') ELSE '' END,"
    " {row}.key, {row}.seats, {row}.ranks, {row}.statuses, {row}.termination, {row}.finished"
    " FROM {source}json_each(" + _ARRAY.replace("{column}", "seats") + ") s"
    " LEFT JOIN json_each(" + _ARRAY.replace("{column}", "statuses") + ") t ON t.key = s.key"
    " LEFT JOIN json_each(" + _ARRAY.replace("{column}", "details") + ") d ON d.key = s.key")
_SEATS_GONE = (
    "DELETE FROM game_seats WHERE tournament_id = OLD.tournament_id AND game_id = OLD.id"
    " AND position IN (SELECT value FROM json_each("
    + _ARRAY.format(row="OLD", column="seats") + "))")
_SEATS_COLUMNS = ("INSERT OR REPLACE INTO game_seats (tournament_id, position, game_id, seat,"
                  " status, detail, key, seats, ranks, statuses, termination, finished)")
_SEATS_NEW = _SEATS_OF.format(row="NEW", source="")
_COUNTED = ("INSERT INTO ladder_changes (tournament_id, {counter}) VALUES ({row}.tournament_id,"
            " 1) ON CONFLICT (tournament_id) DO UPDATE SET {counter} = {counter} + 1")
TRIGGERS = [
    f"CREATE TRIGGER IF NOT EXISTS game_seats_added AFTER INSERT ON games BEGIN"
    f" {_SEATS_COLUMNS} {_SEATS_NEW}; END",
    "CREATE TRIGGER IF NOT EXISTS game_seats_changed AFTER UPDATE OF tournament_id, key,"
    " seats, ranks, statuses, termination, finished, details ON games BEGIN"
    f" {_SEATS_GONE}; {_SEATS_COLUMNS} {_SEATS_NEW}; END",
    f"CREATE TRIGGER IF NOT EXISTS game_seats_removed AFTER DELETE ON games BEGIN"
    f" {_SEATS_GONE}; END",
    *(f"CREATE TRIGGER IF NOT EXISTS submissions_{name} AFTER {event} ON submissions BEGIN"
      f" {_COUNTED.format(row=row, counter='entrants')}; END"
      for name, event, row in (("added", "INSERT", "NEW"), ("changed", "UPDATE", "NEW"),
                               ("moved", "UPDATE OF tournament_id", "OLD"),
                               ("removed", "DELETE", "OLD"))),
    "CREATE TRIGGER IF NOT EXISTS ladder_current_removed AFTER DELETE ON ladder_current BEGIN"
    f" {_COUNTED.format(row='OLD', counter='entrants')}; END",
    *(f"CREATE TRIGGER IF NOT EXISTS ladder_current_{name} AFTER {event} ON ladder_current"
      f" BEGIN {_COUNTED.format(row='NEW', counter='ratings')}; UPDATE ladder_current SET seq ="
      " (SELECT ratings FROM ladder_changes WHERE tournament_id = NEW.tournament_id) WHERE"
      " tournament_id = NEW.tournament_id AND position = NEW.position; END"
      for name, event in (("added", "INSERT"), ("changed", "UPDATE OF tournament_id, position,"
                                                " mu, sigma, games, change, round"))),
]
"""The ``game_seats`` table follows the games table whoever writes it (the store, a
migration, a test, a bench writing rows straight): a row per entrant and game it sat in, with
its seat, its status and (a failed seat's) detail, and what a list of games shows of the game
(key, seats, ranks, statuses, how it ended, when). It is kept in entrant order, so that one
entrant's games, newest first, and its failed seats are read together, a page with LIMIT,
never by decoding every game's seats nor by reading the games' rows (and their records)
spread over the whole table. A game whose seats are not a JSON array has none.

``ladder_changes`` counts, per ladder, the changes to its entrants (its submissions, and a
current rating line removed) and to its current rating lines, and each ``ladder_current`` row
keeps the ratings' count (``seq``) as of its last change: a page can keep a leaderboard in
memory and read only the lines that changed since."""
_BOTS_V3 = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS bots"):
                  SCHEMA.index("CREATE TABLE IF NOT EXISTS entrants")]
_RATINGS_V3 = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS ratings"):
                     SCHEMA.index("CREATE TABLE IF NOT EXISTS game_seats")]
_SEATS_V8 = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS game_seats"):]
_LADDERS_V4 = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS submissions"):
                     SCHEMA.index("CREATE TABLE IF NOT EXISTS participants")]
_SESSIONS_V7 = ",\n    sessions INTEGER NOT NULL DEFAULT 0"
_SEQ_V8 = "\n    seq INTEGER NOT NULL DEFAULT 0,"
_SERVER_V5 = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS participants"):
                    SCHEMA.index("CREATE TABLE IF NOT EXISTS luck")].replace(
                        _SESSIONS_V7, "").replace(_SEQ_V8, "")
_LUCK_V6 = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS luck"):
                  SCHEMA.index("CREATE TABLE IF NOT EXISTS ratings")]
MIGRATIONS: dict[int, list[str]] = {
    1: ["ALTER TABLE tournaments ADD COLUMN seed_secret INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN isolations TEXT NOT NULL DEFAULT '[]'"],
    2: ["ALTER TABLE bots RENAME TO bots_v2",
        _BOTS_V3,
        "INSERT INTO bots (id, game, name, version, code_hash, spec, params, created, label)"
        " SELECT id, game, name, version, code_hash, spec, params, created,"
        " name || '@' || version FROM bots_v2",
        "DROP TABLE bots_v2",
        "ALTER TABLE entrants ADD COLUMN problem TEXT",
        "UPDATE entrants SET problem = 'it could not play' WHERE bot_id IN (SELECT id FROM bots"
        " WHERE version = 'unloadable' OR version LIKE 'refused-%')",
        "ALTER TABLE games ADD COLUMN details TEXT NOT NULL DEFAULT '[]'",
        "DROP TABLE ratings",
        _RATINGS_V3],
    3: [statement for statement in _LADDERS_V4.split(";") if statement.strip()],
    4: [statement for statement in _SERVER_V5.split(";") if statement.strip()],
    5: [_LUCK_V6],
    6: ["ALTER TABLE participants ADD COLUMN sessions INTEGER NOT NULL DEFAULT 0"],
    7: ["ALTER TABLE ladder_current ADD COLUMN seq INTEGER NOT NULL DEFAULT 0",
        *(statement for statement in _SEATS_V8.split(";") if statement.strip()), *TRIGGERS,
        f"{_SEATS_COLUMNS} {_SEATS_OF.format(row='g', source='games g, ')}"],
    8: [statement for statement in _CODE_V9.split(";") if statement.strip()],
}
"""From each schema version to the next: statements, then :func:`_refingerprint` and
:func:`_fill_details`. Ratings are recomputed from the games whenever they are asked for:
the table is a cache, dropped when its shape changes."""
NOT_DEFINING = ("ratings", "isolation", "bots")
"""Config keys that are never part of a tournament's defining settings (the bots are
compared by their stored revisions instead)."""
_CLAIMED: dict[Path, Any] = {}
"""Lock files of the tournaments this process runs, with their open handles (a claim is
per process)."""


def _claims_folder() -> Path | None:
    """This user's folder of claims by a database file's identity: ``arena-claims`` in
    the user's runtime folder (``$XDG_RUNTIME_DIR``, where it is this user's own), else
    ``arena-claims-UID`` in the temporary folder. None, and a warning on stderr, where that
    one is not this user's alone (another user made it first) or cannot be made: then a
    run reaching its database by a hard link is not told apart."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and _own_private_folder(Path(runtime)):
        folder, chosen = Path(runtime) / "arena-claims", "XDG_RUNTIME_DIR"
    else:
        folder, chosen = Path(tempfile.gettempdir()) / f"arena-claims-{os.getuid()}", "TMPDIR"
    try:
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        ours = _own_private_folder(folder)
    except OSError:
        ours = False
    if not ours:
        if folder not in _WARNED:
            _WARNED.add(folder)
            print(f"arena: {folder} is not this user's own folder, so a run that reaches "
                  f"its database by a hard link is not refused; remove it, or set {chosen} "
                  "to a folder of your own", file=sys.stderr)
        return None
    return folder


def _own_private_folder(folder: Path) -> bool:
    """Whether ``folder`` is a folder (no link) of this user's that no other may open."""
    try:
        found = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid() and \
        not stat.S_IMODE(found.st_mode) & 0o077


_WARNED: set[Path] = set()


def _leave_claims_to_the_parent() -> None:
    # A forked child (a run's worker) gets copies of the claims' handles: were it to outlive
    # the run, stuck or killed late, its copy would hold the lock. Closing a copy lets go of
    # nothing the parent holds; the lock goes with the last handle, the parent's.
    for handle in _CLAIMED.values():
        with contextlib.suppress(OSError):
            handle.close()
    _CLAIMED.clear()


os.register_at_fork(after_in_child=_leave_claims_to_the_parent)


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
    details: tuple[str, ...] = ()
    """Per seat: why it lost by a failure (traceback or stderr tail), or empty."""

    @classmethod
    def of(cls, record: GameRecord) -> FinishedGame:
        return cls(tuple(record.ranks), tuple(record.scores),
                   tuple(seat.status for seat in record.seats), record.termination,
                   len(record.moves), json.dumps(record.to_json(), separators=(",", ":")),
                   tuple(seat.isolation for seat in record.seats),
                   tuple(seat.detail if seat.status != OK else "" for seat in record.seats))


class StoreError(ArenaError):
    """The database refuses an operation (a changed config, a bot identity clash)."""


class DatabaseGone(StoreError):
    """The database's file was deleted or replaced while arena wrote to it."""


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
    """A bot revision as stored: ``label`` (``greedy@1.0+3f2a9c``, its name, version and
    the start of its code hash) names it in every database, report and ladder."""

    id: int
    game: str
    identity: BotIdentity
    created: float
    label: str = ""


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
    details: tuple[str, ...] = ()
    """Per seat: why it lost by a failure, or empty."""
    finished: float | None = None
    """When the game was stored (seconds since the epoch)."""


@dataclass(frozen=True)
class EntrantGame:
    """A game as a list of one entrant's games shows it (``seats``: entrant positions)."""

    key: str
    seats: tuple[int, ...]
    ranks: tuple[int, ...]
    statuses: tuple[str, ...]
    termination: str
    finished: float


@dataclass(frozen=True)
class SeatFailure:
    """An entrant's seat that failed in a game: how, and its detail (traceback, stderr)."""

    key: str
    position: int
    seat: int
    status: str
    detail: str


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
    key: str = ""
    seed: int = 0
    """The game's seed: games on one seed in one variant had the same dice."""
    failed: tuple[int, ...] = ()
    """The seats whose failure ended the game early (a forfeit), if any did."""


def _private(path: Path) -> None:
    """Make the database at ``path`` its owner's alone (created so, or its group's and
    others' rights taken away): it holds secret seeds, bots' code, failure details and
    token hashes. SQLite gives its -wal and -shm files the database's rights."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    except FileExistsError:
        if path.is_symlink() and not path.exists():  # a link to a database yet to be: made
            with contextlib.suppress(OSError):  # its owner's alone at its target
                os.close(os.open(os.path.realpath(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL
                                 | os.O_CLOEXEC, 0o600))
            return
        with contextlib.suppress(OSError):  # another user's file, or read-only: as it is
            mode = path.lstat().st_mode  # a link (a config's `db:`) is not followed: its
            if mode & 0o077 and stat.S_ISREG(mode):  # target is no database of arena's
                os.chmod(path, mode & 0o700)
    except OSError:
        pass  # sqlite says what is wrong with the path


SHOWN_NAMES = 5
"""Tournament names an error lists (the latest)."""


def _file_identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


class Store:
    """A connection to the results database."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._claims: list[tuple[Path, Any]] = []
        _private(self.path)
        try:
            self.db = sqlite3.connect(str(self.path), isolation_level=None, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._check_schema()
            self._file = _file_identity(self.path)
        except sqlite3.DatabaseError as exc:
            if not all(os.access(place, os.W_OK) for place in (self.path, self.path.parent)
                       if place.exists()):
                raise StoreError(
                    f"{self.path}: arena cannot write there (a read-only disk or folder), and "
                    "SQLite needs to, even to read: its write-ahead log lies beside the file; "
                    "copy the database to a folder you may write to") from None
            raise StoreError(f"{self.path}: not a usable results database ({exc})") from None

    def check_file(self) -> None:
        """A StoreError if the file at the database's path is no longer the one this
        connection writes (deleted, or replaced by another): what it wrote since is in a
        file nobody will read, and a run must not end as if its games were kept."""
        now = _file_identity(self.path)
        if now != self._file:
            what = "deleted" if now is None else "replaced by another file"
            raise DatabaseGone(f"the results database {self.path} was {what} while arena wrote "
                             "to it: the games since then are not in it; put the database "
                             "back (or use a new --db) and run the same command again")

    def _check_schema(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        tables = self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if version == 0 and tables == 0:
            self.db.executescript(SCHEMA)
            for trigger in TRIGGERS:
                self.db.execute(trigger)
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif version in MIGRATIONS:
            self._migrate(version)
        elif version != SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by another version of arena (schema "
                             f"{version}, this one reads {SCHEMA_VERSION}); use a new --db")
        if self.db.execute(_UNLIKE_ITS_REVISION + " LIMIT 1").fetchone() is not None:
            with self.transaction():
                _relabel_revisions(self.db)

    def _migrate(self, version: int) -> None:
        with self.transaction():
            while version in MIGRATIONS:
                for statement in MIGRATIONS[version]:
                    self.db.execute(statement)
                version += 1
            _refingerprint(self.db)
            _fill_details(self.db)
            self.db.execute(f"PRAGMA user_version = {version}")

    def close(self) -> None:
        self.db.close()
        for path, handle in self._claims:
            _CLAIMED.pop(path, None)
            handle.close()
        self._claims.clear()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- bots ----------------------------------------------------------------

    def register_bot(self, game: str, bot: BotIdentity, bundle: Bundle | None = None) -> int:
        """The id of the bot's revision: found by its name, version and code hash, or added.

        The same name and version with other code (or other parameters) is a new revision,
        labelled with its code hash. Bots are told apart per game: a Seasons bot and a
        Sonnentau bot may share a name. The revision's code is kept: ``bundle``, the bundle
        its identity names (:meth:`bundle`).
        """
        with self.transaction():
            row = self.db.execute(
                "SELECT id FROM bots WHERE game = ? AND name = ? AND version = ?"
                " AND code_hash = ?", (game, bot.name, bot.version, bot.code_hash)).fetchone()
            if row is None:
                row = (self.db.execute(
                    "INSERT INTO bots (game, name, version, code_hash, spec, params, created,"
                    " label) VALUES (?,?,?,?,?,?,?,?)",
                    (game, bot.name, bot.version, bot.code_hash, bot.spec,
                     json.dumps(dict(bot.params), sort_keys=True), time.time(),
                     self._new_label(game, bot))).lastrowid,)
            if bundle is not None and bot.bundle == bundle.digest:
                self.db.execute("INSERT OR IGNORE INTO bundles (digest, data) VALUES (?, ?)",
                                (bundle.digest, bundle.data))
                self.db.execute("INSERT OR IGNORE INTO bot_code (bot_id, bundle) VALUES (?, ?)",
                                (row[0], bundle.digest))
        return int(row[0] or 0)

    def bundle(self, digest: str) -> Bundle | None:
        """A kept bundle by its digest (None: not kept here)."""
        row = self.db.execute("SELECT data FROM bundles WHERE digest = ?", (digest,)).fetchone()
        return None if row is None else Bundle(digest, bytes(row[0]))

    def _new_label(self, game: str, bot: BotIdentity) -> str:
        """The first of the revision's labels (``name@version+3f2a9c``) that no other bot
        of the game has: the same as in any other database, but where two revisions of a
        version share the first digits of their code hash
        (:func:`arena.bots.identity.revision_labels`)."""
        for label in revision_labels(bot.name, bot.version, bot.code_hash):
            if self.db.execute("SELECT 1 FROM bots WHERE game = ? AND label = ?",
                               (game, label)).fetchone() is None:
                return label
        raise StoreError(f"{game} bot {bot.label}: no label left for its revision")

    _BOT_COLUMNS = ("id, game, name, version, code_hash, spec, params, created, label, bundle"
                    " FROM bots LEFT JOIN bot_code ON bot_id = id")

    def bots(self, game: str | None = None) -> list[StoredBot]:
        rows = self.db.execute(
            f"SELECT {self._BOT_COLUMNS} WHERE ? IS NULL OR game = ?"
            " ORDER BY game, name, created, version, id", (game, game))
        return [_stored_bot(row) for row in rows]

    def bot(self, bot_id: int) -> StoredBot:
        row = self.db.execute(f"SELECT {self._BOT_COLUMNS} WHERE id = ?",
                              (bot_id,)).fetchone()
        if row is None:
            raise StoreError(f"no bot with id {bot_id} in {self.path}")
        return _stored_bot(row)

    def find_bot(self, game: str, text: str) -> StoredBot:
        """A bot revision by its label (``greedy@1.0+3f2a9c``), its name and version when
        it has one revision (``greedy@1.0``), or its name when it has one version and
        revision (``greedy``); StoreError lists the candidates otherwise."""
        bots = self.bots(game)
        name, at, rest = text.partition("@")
        exact = [b for b in bots if b.label == text]
        found = exact or [b for b in bots if b.identity.name == name and (
            not at or names_revision(rest, b.identity))]
        if len(found) == 1:
            return found[0]
        same_name = [b.label for b in bots if b.identity.name == name]
        if not found:
            known = f"; known: {', '.join(same_name)}" if same_name else ""
            guess = "" if same_name else nearest(name, sorted({b.identity.name for b in bots}))
            raise StoreError(f"no {game} bot {text} in {self.path}{guess}{known}")
        raise StoreError(f"{text} is ambiguous in {game}: {', '.join(b.label for b in found)};"
                         " name one of them")

    # -- tournaments -----------------------------------------------------------

    def tournaments(self, game: str | None = None, *, name: str | None = None
                    ) -> list[TournamentRow]:
        """The tournaments (of ``game``, or the one called ``name``), the oldest first."""
        rows = self.db.execute(
            "SELECT id, name, game, seed, status, created, finished, config, seed_secret"
            " FROM tournaments WHERE (? IS NULL OR game = ?) AND (? IS NULL OR name = ?)"
            " ORDER BY id", (game, game, name, name))
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
        """A tournament by id or name; a StoreError naming the nearest name and the
        latest tournaments where there is none."""
        rows = self.tournaments()
        for row in rows:
            if str(row.id) == str(key) or row.name == key:
                return row
        names = [row.name for row in reversed(rows)]
        message = f"no tournament {key!r} in {self.path}" + nearest(str(key), names)
        if names:
            shown = ", ".join(repr(name) for name in names[:SHOWN_NAMES])
            more = f" and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else ""
            message += (f"; it has, latest first: {shown}{more} (`arena report --list --db "
                        f"{shlex.quote(str(self.path))}` lists them all)")
        raise StoreError(message)

    def tournament_named(self, name: str) -> TournamentRow | None:
        return next(iter(self.tournaments(name=name)), None)

    def entrants(self, tournament: int) -> list[int]:
        """Bot ids of the tournament's entrants, by position."""
        rows = self.db.execute("SELECT bot_id FROM entrants WHERE tournament_id = ?"
                               " ORDER BY position", (tournament,))
        return [r[0] for r in rows]

    def create_tournament(self, config: TournamentSettings, bot_ids: Sequence[int],
                          problems: Sequence[str | None] = ()) -> int:
        """Store a new tournament with its entrants (bot revision ids, in entry order, each
        with why it cannot play, if it cannot); return its id.

        A secret seed is drawn here, from the system's randomness; :meth:`seed_of` gives it
        back to the process that runs the tournament.
        """
        seed = secrets.randbits(63) if config.secret_seed else config.seed
        problems = list(problems) or [None] * len(bot_ids)
        with self.transaction():
            if self.db.execute("SELECT 1 FROM tournaments WHERE name = ?",
                               (config.name,)).fetchone():
                raise StoreError(f"tournament {config.name!r} is in {self.path} already")
            cursor = self.db.execute(
                "INSERT INTO tournaments (name, game, seed, fingerprint, config, status, created,"
                " seed_secret) VALUES (?,?,?,?,?,?,?,?)",
                (config.name, config.game, seed, config.fingerprint(),
                 json.dumps(config.to_json()), "running", time.time(), int(config.secret_seed)))
            tid = int(cursor.lastrowid or 0)
            self.db.executemany(
                "INSERT INTO entrants (tournament_id, position, bot_id, problem)"
                " VALUES (?,?,?,?)",
                [(tid, i, bot_id, problem)
                 for i, (bot_id, problem) in enumerate(zip(bot_ids, problems, strict=True))])
        return tid

    def update_config(self, tournament: int, config: TournamentSettings, *,
                      reopen: bool = True) -> None:
        """Keep ``config`` as the tournament's settings (it grew: more rounds or games per
        pairing); with ``reopen`` it is running again until its new games are played."""
        self.db.execute("UPDATE tournaments SET config = ?, fingerprint = ? WHERE id = ?",
                        (json.dumps(config.to_json()), config.fingerprint(), tournament))
        if reopen:
            self.set_status(tournament, "running")

    def fingerprint(self, tournament: int) -> str:
        row = self.db.execute("SELECT fingerprint FROM tournaments WHERE id = ?",
                              (tournament,)).fetchone()
        return str(row[0])

    def entrant_problems(self, tournament: int) -> list[str | None]:
        """Per entrant position: why it could not play (its games were forfeited), or None."""
        rows = self.db.execute("SELECT problem FROM entrants WHERE tournament_id = ?"
                               " ORDER BY position", (tournament,))
        return [r[0] for r in rows]

    def seed_of(self, tournament: int) -> int:
        """The tournament's seed (a secret one too: for the process that runs it)."""
        row = self.db.execute("SELECT seed FROM tournaments WHERE id = ?",
                              (tournament,)).fetchone()
        return int(row[0])

    def claim(self, tournament: int) -> None:
        """Make this process the only one running ``tournament`` until the store is closed;
        StoreError says which process runs it already. The operating system lets go of
        the claim when this process ends, even by ``kill -9``. The claim lies beside the
        database file itself, where a link to it leads, and (for this user) under the
        file's device and inode, which a hard link or a bind mount shares: two processes
        reaching one file by two paths claim the same tournament."""
        real = self.path.resolve()
        folder = real.with_name(real.name + ".runs")
        folder.mkdir(exist_ok=True)
        self._hold(folder.resolve() / f"{tournament}.lock", tournament)
        by_inode = _claims_folder()
        if by_inode is not None:
            found = os.stat(real)
            self._hold(by_inode / f"{found.st_dev}-{found.st_ino}-{tournament}.lock",
                       tournament)

    def _hold(self, path: Path, tournament: int) -> None:
        """Lock ``path`` for this process, or StoreError naming who holds it."""
        if path in _CLAIMED:  # this process runs it already (another Store of the same file)
            return
        if path.is_symlink():  # a link there is replaced: what it points at is not written
            path.unlink()
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        handle = open(os.open(path, flags, 0o644), "a+", encoding="utf-8")  # noqa: SIM115 - held
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
        _CLAIMED[path] = handle
        self._claims.append((path, handle))

    def set_status(self, tournament: int, status: str) -> None:
        """Mark the tournament; it finished when it first became complete, not when it was
        last found complete again."""
        if status == "complete":
            self.db.execute("UPDATE tournaments SET status = ?, finished = coalesce(finished, ?)"
                            " WHERE id = ?", (status, time.time(), tournament))
        else:
            self.db.execute("UPDATE tournaments SET status = ?, finished = NULL WHERE id = ?",
                            (status, tournament))

    def status(self, tournament: int) -> str:
        row = self.db.execute("SELECT status FROM tournaments WHERE id = ?",
                              (tournament,)).fetchone()
        return str(row[0])

    # -- games -------------------------------------------------------------------

    def save_game(self, tournament: int, task: GameSlot, game: FinishedGame,
                  duration: float) -> None:
        """Commit one finished game (a second report of the same game is ignored). A
        StoreError if the database's file was deleted or replaced since it was opened."""
        self.check_file()
        self.db.execute(
            "INSERT OR IGNORE INTO games (tournament_id, key, round, table_no, set_no, rotation,"
            " seed, seats, ranks, scores, statuses, termination, moves, duration, record,"
            " finished, isolations, details) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (tournament, task.key, task.round, task.table, task.set, task.rotation, task.seed,
             json.dumps(task.seats), json.dumps(game.ranks), json.dumps(game.scores),
             json.dumps(game.statuses), game.termination, game.moves, duration,
             game.record_json, time.time(), json.dumps(game.isolations),
             json.dumps(game.details or [""] * len(game.statuses))))

    def finished_count(self, name: str) -> int:
        """How many games of the tournament called ``name`` are stored (0 if there is none)."""
        row = self.db.execute("SELECT count(*) FROM games g JOIN tournaments t"
                              " ON t.id = g.tournament_id WHERE t.name = ?", (name,)).fetchone()
        return int(row[0])

    def finished_keys(self, tournament: int) -> set[str]:
        rows = self.db.execute("SELECT key FROM games WHERE tournament_id = ?", (tournament,))
        return {row[0] for row in rows}

    _GAME_COLUMNS = ("key, round, table_no, set_no, rotation, seed, seats, ranks, scores,"
                     " statuses, termination, moves, duration, isolations, details, finished")

    def game(self, tournament: int, key: str) -> GameRow | None:
        """The stored row of game ``key`` (by its unique key), or None."""
        row = self.db.execute(f"SELECT {self._GAME_COLUMNS} FROM games WHERE tournament_id = ?"
                              " AND key = ?", (tournament, key)).fetchone()
        return None if row is None else self._game_row(tournament, row)

    def entrant_games(self, tournament: int, positions: Collection[int], *, limit: int,
                      offset: int = 0) -> list[EntrantGame]:
        """The games in which any of the entrant ``positions`` sat, newest stored first,
        ``limit`` of them after the first ``offset``: read from ``game_seats``, where each
        position's games lie together, so a page reads only its own rows, however many
        games the entrants played (and never a game's record)."""
        if not positions or limit <= 0:
            return []
        offset = max(0, offset)
        each = ("SELECT * FROM (SELECT DISTINCT game_id, key, seats, ranks, statuses,"
                " termination, finished FROM game_seats WHERE tournament_id = ? AND"
                " position = ? ORDER BY game_id DESC LIMIT ?)")
        args: list[Any] = []
        for position in sorted(positions):  # each position's newest, from its own range
            args += [tournament, position, offset + limit]
        rows = self.db.execute(f"{' UNION '.join([each] * len(positions))} ORDER BY game_id"
                               " DESC LIMIT ? OFFSET ?", (*args, limit, offset)).fetchall()
        return [self._entrant_game(tournament, row) for row in rows]

    def _entrant_game(self, tournament: int, row: Sequence[Any]) -> EntrantGame:
        try:
            seats, ranks, statuses = (json.loads(text) for text in row[2:5])
            return EntrantGame(str(row[1]), tuple(int(s) for s in seats),
                               tuple(int(r) for r in ranks), tuple(str(s) for s in statuses),
                               str(row[5]), float(row[6]))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{self.path}: tournament {tournament}, game {row[1]!r}: the row "
                             f"is damaged ({exc}); restore the database from a copy, or "
                             "start a new one with --db") from None

    def entrant_failures(self, tournament: int, positions: Collection[int], *, limit: int
                         ) -> list[SeatFailure]:
        """The seats of the entrant ``positions`` that failed, in their newest games first
        (``limit`` of them), each with its detail: from the index of failed seats."""
        if not positions or limit <= 0:
            return []
        marks = ",".join("?" * len(positions))
        rows = self.db.execute(
            "SELECT key, position, seat, status, detail FROM game_seats INDEXED BY"
            f" game_seats_failed WHERE tournament_id = ? AND position IN ({marks}) AND"
            " status != 'ok' ORDER BY game_id DESC, seat LIMIT ?",
            (tournament, *sorted(positions), limit))
        return [SeatFailure(str(key), int(position), int(seat), str(status), str(detail))
                for key, position, seat, status, detail in rows]

    def games(self, tournament: int, *, round_index: int | None = None) -> Iterator[GameRow]:
        """Finished games in schedule order (round, table, set, rotation)."""
        query = (f"SELECT {self._GAME_COLUMNS} FROM games WHERE tournament_id = ?")
        args: list[Any] = [tournament]
        if round_index is not None:
            query += " AND round = ?"
            args.append(round_index)
        query += " ORDER BY round, table_no, set_no, rotation"
        for row in self.db.execute(query, args):
            yield self._game_row(tournament, row)

    def _game_row(self, tournament: int, row: Sequence[Any]) -> GameRow:
        try:
            seats, ranks, scores, statuses, isolations, details = (
                tuple(json.loads(text))
                for text in (row[6], row[7], row[8], row[9], row[13], row[14]))
            if not len(seats) == len(ranks) == len(scores) == len(statuses):
                raise ValueError("seats, ranks, scores and statuses differ in length")
            return GameRow(row[0], int(row[1]), int(row[2]), int(row[3]), int(row[4]),
                           int(row[5]), tuple(int(s) for s in seats),
                           tuple(int(r) for r in ranks), tuple(float(s) for s in scores),
                           tuple(str(s) for s in statuses), str(row[10]), int(row[11]),
                           float(row[12]), tuple(str(i) for i in isolations),
                           tuple(str(d) for d in details) or ("",) * len(seats),
                           float(row[15]))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{self.path}: tournament {tournament}, game {row[0]!r}: the row "
                             f"is damaged ({exc}); restore the database from a copy, or "
                             "start a new one with --db") from None

    def played_games(self, game: str) -> Iterator[PlayedGame]:
        """Every stored game of ``game`` with bot ids, in canonical order: tournament
        (oldest first), round, table, set, rotation. Games forfeited because a bot could not
        play are left out."""
        query = ("SELECT g.tournament_id, g.round, g.table_no, g.set_no, g.rotation, g.seats,"
                 " g.ranks, g.scores, g.key, g.seed, g.statuses FROM games g"
                 " JOIN tournaments t ON t.id = g.tournament_id"
                 " WHERE t.game = ?"
                 " ORDER BY g.tournament_id, g.round, g.table_no, g.set_no, g.rotation")
        entrants: dict[int, list[int]] = {}
        unable: dict[int, set[int]] = {}
        for tid, round_no, table, game_set, rotation, seats, ranks, scores, key, seed, \
                statuses in self.db.execute(query, (game,)).fetchall():
            if tid not in entrants:
                entrants[tid] = self.entrants(tid)
                unable[tid] = {position for position, problem in enumerate(
                    self.entrant_problems(tid)) if problem is not None}
            try:
                positions = [int(position) for position in json.loads(seats)]
                if unable[tid].intersection(positions):
                    continue  # a forfeit tells nothing of the bots' strength
                bots = tuple(entrants[tid][position] for position in positions)
                played = PlayedGame(tid, round_no, table, game_set, rotation, bots,
                                    tuple(int(r) for r in json.loads(ranks)),
                                    tuple(float(s) for s in json.loads(scores)), key,
                                    int(seed), failed_seats(json.loads(statuses)))
            except (TypeError, ValueError, IndexError) as exc:
                raise StoreError(f"{self.path}: tournament {tid}, round {round_no}, table "
                                 f"{table}, set {game_set}, rotation {rotation}: the row is "
                                 f"damaged ({exc})") from None
            yield played

    def save_ratings(self, system: str, game: str, variant: str,
                     ratings: Mapping[int, tuple[float, float, int]]) -> None:
        """Replace the stored ratings of ``game``'s ``variant`` (``all`` when pooled) by
        ``system``: bot id -> (μ, σ, games)."""
        now = time.time()
        with self.transaction():
            self.db.execute("DELETE FROM ratings WHERE system = ? AND game = ? AND variant = ?",
                            (system, game, variant))
            self.db.executemany(
                "INSERT INTO ratings (system, game, variant, bot_id, mu, sigma, games, computed)"
                " VALUES (?,?,?,?,?,?,?,?)",
                [(system, game, variant, bot, mu, sigma, n, now)
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

    def records(self, tournament: int, keys: Sequence[str]) -> Iterator[tuple[str, str]]:
        """(key, record JSON text) of the tournament's games with these keys."""
        for start in range(0, len(keys), 500):
            chunk = list(keys[start:start + 500])
            marks = ",".join("?" * len(chunk))
            yield from self.db.execute(
                f"SELECT key, record FROM games WHERE tournament_id = ? AND key IN ({marks})",
                [tournament, *chunk]).fetchall()

    # -- luck ----------------------------------------------------------------

    def luck(self, tournament: int, model: str) -> dict[str, tuple[float, ...]]:
        """The luck per seat of the tournament's games accounted for under ``model``."""
        rows = self.db.execute("SELECT key, luck FROM luck WHERE tournament_id = ? AND model = ?",
                               (tournament, model))
        found = {}
        for key, text in rows:
            try:
                found[key] = tuple(float(x) for x in json.loads(text))
            except (TypeError, ValueError):
                continue  # a damaged cache row: accounted for again
        return found

    def save_luck(self, tournament: int, model: str,
                  luck: Mapping[str, Sequence[float]]) -> None:
        """Keep the luck of games (by key) under ``model``: a cache, recomputable from the
        records."""
        with self.transaction():
            self.db.executemany(
                "INSERT OR REPLACE INTO luck (tournament_id, key, model, luck) VALUES (?,?,?,?)",
                [(tournament, key, model, json.dumps(list(values)))
                 for key, values in luck.items()])

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads that see the database as of one moment (a read transaction: it takes no
        lock a writer waits for)."""
        self.db.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            self.db.execute("COMMIT")

    def transaction(self) -> _Transaction:
        return _Transaction(self.db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")


def _stored_bot(row: Sequence[Any]) -> StoredBot:
    """A bot from its columns (:attr:`Store._BOT_COLUMNS`; its bundle's digest may be left
    out)."""
    bundle = (row[9] if len(row) > 9 else None) or ""
    return StoredBot(row[0], row[1], BotIdentity(row[2], row[3], row[4], row[5],
                                                 json.loads(row[6]), bundle), row[7], row[8])


def growable_settings(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The settings a stored tournament can grow by, more of them playing only the new
    games: rounds, and for a round-robin games per pairing (a Swiss round's pairings
    depend on the games per pairing of the rounds before it)."""
    return ("rounds",) if config.get("format") == "swiss" else ("rounds", "games_per_pairing")


def names_revision(text: str, bot: BotIdentity) -> bool:
    """Whether ``text`` (what follows the ``@``) names a revision of ``bot``: its version,
    or its version, ``+`` and the start of its hash; a version may hold ``+`` itself
    (``1.0+local``)."""
    if text == bot.version:
        return True
    version, plus, revision = text.rpartition("+")
    return bool(plus) and version == bot.version and bool(revision) and \
        bot.code_hash.startswith(revision)


def defining_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """What a stored tournament and a config that runs it again must share: a config (as
    stored) without the bots (told apart by their stored revisions), their isolation, the
    rating settings and the settings the tournament can grow by."""
    left_out = (*NOT_DEFINING, *growable_settings(config))
    found = {key: value for key, value in config.items() if key not in left_out}
    if isinstance(found.get("options"), dict):
        found["options"] = without_defaults(str(config.get("game")), found["options"])
    return found


def without_defaults(game: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The game options given, but those set to their default: the same game either way."""
    from arena.games import MODULES, find_game

    if game not in MODULES:
        return dict(options)
    defaults = {option.name: option for option in find_game(game).info.options}
    kept = {}
    for name, value in options.items():
        option = defaults.get(name)
        try:
            default = option is not None and option.check(value) == option.check(option.default)
        except ArenaError:
            default = False
        if not default:
            kept[name] = value
    return kept


def fingerprint_of(config: Mapping[str, Any]) -> str:
    """A hash of a stored config's :func:`defining_settings`."""
    text = json.dumps(defining_settings(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _refingerprint(db: sqlite3.Connection) -> None:
    """Fingerprints as this version computes them."""
    for tid, text in db.execute("SELECT id, config FROM tournaments").fetchall():
        db.execute("UPDATE tournaments SET fingerprint = ? WHERE id = ?",
                   (fingerprint_of(json.loads(text)), tid))


_UNLIKE_ITS_REVISION = (
    "SELECT id, game, name, version, code_hash, label FROM bots WHERE code_hash != '' AND"
    f" substr(label, 1, length(name) + length(version) + {2 + REVISION_DIGITS}) !="
    f" name || '@' || version || '+' || substr(code_hash, 1, {REVISION_DIGITS})")
"""The bots whose label is not one of their revision's: stored when a version's first
revision in each database was labelled ``name@version``."""


def _relabel_revisions(db: sqlite3.Connection) -> None:
    """Give every bot one of its revision's labels (:func:`revision_labels`), the first
    that no other bot of its game has, so that the same code has the same label here as
    in every other database."""
    taken = set(db.execute("SELECT game, label FROM bots").fetchall())
    for bot_id, game, name, version, code_hash, label in db.execute(
            _UNLIKE_ITS_REVISION + " ORDER BY id").fetchall():
        taken.discard((game, label))
        new = next(candidate for candidate in revision_labels(name, version, code_hash)
                   if (game, candidate) not in taken)
        taken.add((game, new))
        db.execute("UPDATE bots SET label = ? WHERE id = ?", (new, bot_id))


def _fill_details(db: sqlite3.Connection) -> None:
    """Each seat's failure detail of the games a bot lost by a failure, from their records
    (databases written before details had a column of their own)."""
    rows = db.execute("SELECT id, record FROM games WHERE details = '[]' AND (statuses"
                      " LIKE '%crash%' OR statuses LIKE '%timeout%' OR statuses"
                      " LIKE '%illegal-action%')").fetchall()
    for game_id, text in rows:
        try:
            seats = json.loads(text)["seats"]
            details = [seat.get("detail", "") if seat.get("status", OK) != OK else ""
                       for seat in seats]
        except (TypeError, ValueError, KeyError):
            continue  # a damaged record is reported when it is read
        db.execute("UPDATE games SET details = ? WHERE id = ?", (json.dumps(details), game_id))
