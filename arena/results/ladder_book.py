"""A ladder's own records in the results database: its submissions and its rounds.

A ladder is a tournament whose entrants grow: each submission that passes
validation becomes the next entrant position, and its games are stored like
any tournament's (so ratings, history, compare and reports see them). Each
round's tables are written before its games are played, so a ladder that
stops half way through a round plays the same tables' missing games when it
resumes. Any process may add a submission or retire an entrant while the
ladder runs: the ladder reads them at its next round.
"""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from arena.bots.names import looks_alike
from arena.results.store import Store, StoredBot, StoreError, _stored_bot

QUEUED, VALIDATING, VALIDATED = "queued", "validating", "validated"
ACTIVE, RETIRED, ERROR = "active", "retired", "error"
STATUSES = (QUEUED, VALIDATING, VALIDATED, ACTIVE, RETIRED, ERROR)
"""A submission's life: queued, validating, validated (it joins at the next round), then
active and perhaps retired; or error, with its log, never having played."""
OPEN, FROZEN, COMPLETE = "running", "frozen", "complete"
"""A ladder's phase (its tournament's status): taking submissions, playing its final
games, done."""
FINAL = "final"
REGULAR = "regular"


@dataclass(frozen=True)
class Submission:
    id: int
    source: str
    """Where it came from: ``arena submit``, a file of the submissions folder, the config."""
    spec: str
    """The bot as the ladder runs it (a copy of its file the submitter cannot change)."""
    status: str
    log: str
    bot_id: int | None
    position: int | None
    joined_round: int | None
    created: float
    changed: float


@dataclass(frozen=True)
class RatingLine:
    """A ladder entrant's rating after a round: kept as the ladder plays, so that pages
    read it instead of computing it."""

    position: int
    round: int
    mu: float
    sigma: float
    games: int
    change: float = 0.0
    """How much μ moved in the entrant's last rated round."""


_SPREAD_HISTORY = """
WITH RECURSIVE span(first, last) AS (SELECT min(round), max(round) FROM ladder_ratings
                                     WHERE tournament_id = ?1 AND position = ?2),
step(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM step WHERE i < ?3),
wanted(round) AS (SELECT (SELECT min(round) FROM ladder_ratings WHERE tournament_id = ?1
                          AND position = ?2 AND round >= first + (last - first) * i / ?3)
                  FROM step, span)
SELECT position, round, mu, sigma, games FROM ladder_ratings WHERE tournament_id = ?1
AND position = ?2 AND round IN wanted ORDER BY round"""
"""One entrant's ratings after the first round it played at or after each of ``?3 + 1``
evenly spaced rounds from its first to its last: a few index searches each."""


@dataclass(frozen=True)
class LadderRound:
    round: int
    phase: str
    tables: tuple[tuple[int, ...], ...]
    """Each table's entrant positions."""


_COLUMNS = ("id, source, spec, status, log, bot_id, position, joined_round, created, changed")


ORGANIZER = 0
"""The owner of the names a submission without a sender brought in (no participant's id)."""


def _owner(participant: int | None, organizer: int | None) -> int:
    """A sender as an owner of names: the participant, or :data:`ORGANIZER` for no sender
    or an organizer's account."""
    return ORGANIZER if participant is None or organizer else int(participant)


class LadderBook:
    """The ladder ``tournament``'s records in ``store``."""

    def __init__(self, store: Store, tournament: int) -> None:
        self.store, self.tid = store, tournament

    # -- submissions ---------------------------------------------------------------

    def submit(self, source: str, spec: str, status: str = QUEUED, log: str = "") -> int:
        now = time.time()
        cursor = self.store.db.execute(
            "INSERT INTO submissions (tournament_id, source, spec, status, log, created, changed)"
            " VALUES (?,?,?,?,?,?,?)", (self.tid, source, spec, status, log, now, now))
        return int(cursor.lastrowid or 0)

    def submissions(self, status: str | None = None) -> list[Submission]:
        rows = self.store.db.execute(
            f"SELECT {_COLUMNS} FROM submissions WHERE tournament_id = ?"
            " AND (? IS NULL OR status = ?) ORDER BY id", (self.tid, status, status))
        return [Submission(*row) for row in rows]

    def submission(self, submission_id: int) -> Submission:
        row = self.store.db.execute(
            f"SELECT {_COLUMNS} FROM submissions WHERE tournament_id = ? AND id = ?",
            (self.tid, submission_id)).fetchone()
        if row is None:
            raise StoreError(f"no submission {submission_id} in this ladder")
        return Submission(*row)

    def set_status(self, submission_id: int, status: str, log: str | None = None) -> None:
        self.store.db.execute(
            "UPDATE submissions SET status = ?, log = coalesce(?, log), changed = ?"
            " WHERE id = ? AND tournament_id = ?",
            (status, log, time.time(), submission_id, self.tid))

    def set_spec(self, submission_id: int, spec: str) -> None:
        self.store.db.execute("UPDATE submissions SET spec = ? WHERE id = ?",
                              (spec, submission_id))

    def set_validated(self, submission_id: int, bot_id: int, log: str) -> None:
        self.store.db.execute(
            "UPDATE submissions SET status = ?, bot_id = ?, log = ?, changed = ? WHERE id = ?"
            " AND tournament_id = ?",
            (VALIDATED, bot_id, log, time.time(), submission_id, self.tid))

    def join(self, submission_id: int, bot_id: int, next_round: int) -> int:
        """Make the validated submission the ladder's next entrant; its position."""
        with self.store.transaction():
            row = self.store.db.execute(
                "SELECT coalesce(max(position), -1) + 1 FROM entrants WHERE tournament_id = ?",
                (self.tid,)).fetchone()
            position = int(row[0])
            self.store.db.execute(
                "INSERT INTO entrants (tournament_id, position, bot_id, problem)"
                " VALUES (?,?,?,NULL)", (self.tid, position, bot_id))
            self.store.db.execute(
                "UPDATE submissions SET status = ?, bot_id = ?, position = ?, joined_round = ?,"
                " changed = ? WHERE id = ?",
                (ACTIVE, bot_id, position, next_round, time.time(), submission_id))
        return position

    def entrant_of(self, bot_id: int) -> Submission | None:
        """The submission that brought bot revision ``bot_id`` into the ladder, if any."""
        row = self.store.db.execute(
            f"SELECT {_COLUMNS} FROM submissions WHERE tournament_id = ? AND bot_id = ?"
            " AND position IS NOT NULL", (self.tid, bot_id)).fetchone()
        return None if row is None else Submission(*row)

    def active_positions(self) -> list[int]:
        rows = self.store.db.execute(
            "SELECT position FROM submissions WHERE tournament_id = ? AND status = ?"
            " ORDER BY position", (self.tid, ACTIVE))
        return [int(row[0]) for row in rows]

    # -- rounds ----------------------------------------------------------------------

    def save_round(self, index: int, phase: str, tables: Sequence[Sequence[int]]) -> None:
        self.store.db.execute(
            "INSERT INTO ladder_rounds (tournament_id, round, phase, tables, created)"
            " VALUES (?,?,?,?,?)",
            (self.tid, index, phase, json.dumps([list(t) for t in tables]), time.time()))

    def rounds(self, *, last: bool = False) -> list[LadderRound]:
        """The rounds in order (only the last, with ``last``)."""
        rows = self.store.db.execute(
            "SELECT round, phase, tables FROM ladder_rounds WHERE tournament_id = ?"
            f" ORDER BY round {'DESC LIMIT 1' if last else ''}", (self.tid,))
        return [LadderRound(int(r), str(phase), tuple(tuple(int(b) for b in t)
                                                        for t in json.loads(tables)))
                for r, phase, tables in rows]

    def last_round(self) -> LadderRound | None:
        rounds = self.rounds(last=True)
        return rounds[0] if rounds else None

    def round_count(self) -> int:
        row = self.store.db.execute("SELECT count(*) FROM ladder_rounds WHERE tournament_id = ?",
                                    (self.tid,)).fetchone()
        return int(row[0])

    def games_in_phase(self, phase: str) -> int:
        row = self.store.db.execute(
            "SELECT count(*) FROM games g JOIN ladder_rounds r ON r.tournament_id ="
            " g.tournament_id AND r.round = g.round WHERE g.tournament_id = ? AND r.phase = ?",
            (self.tid, phase)).fetchone()
        return int(row[0])

    def games_since(self, moment: float) -> int:
        row = self.store.db.execute(
            "SELECT count(*) FROM games WHERE tournament_id = ? AND finished >= ?",
            (self.tid, moment)).fetchone()
        return int(row[0])

    def games_between(self, *spans: tuple[float, float]) -> list[int]:
        """How many of the ladder's games were stored in each span of time, from its start
        to before its end (in one query, by the index of when games finished)."""
        each = ("(SELECT count(*) FROM games WHERE tournament_id = ? AND finished >= ? AND"
                " finished < ?)")
        row = self.store.db.execute(f"SELECT {', '.join([each] * len(spans))}",
                                    [x for span in spans for x in (self.tid, *span)]
                                    ).fetchone()
        return [int(count) for count in row]

    def games_after(self, game_id: int) -> tuple[int, int]:
        """How many of the ladder's games have a row id above ``game_id``, and an id that
        no game counted is above (games are only ever added, so a running count needs only
        the new rows). From 0, all are counted from an index, not by reading every row."""
        if game_id <= 0:  # up to the newest row of all, in the same snapshot
            row = self.store.db.execute(
                "SELECT (SELECT count(*) FROM games WHERE tournament_id = ?),"
                " (SELECT coalesce(max(id), 0) FROM games)", (self.tid,)).fetchone()
            return int(row[0]), int(row[1])
        row = self.store.db.execute(  # '+': by the row id, not the round index
            "SELECT count(*), coalesce(max(id), ?) FROM games WHERE +tournament_id = ?"
            " AND id > ?", (game_id, self.tid, game_id)).fetchone()
        return int(row[0]), int(row[1])

    # -- ratings as the ladder keeps them ------------------------------------------------

    def save_ratings(self, round_index: int, lines: Sequence[RatingLine]) -> None:
        """The ratings of the entrants that played round ``round_index``: its history, and
        each one's current line."""
        with self.store.transaction():
            self.store.db.executemany(
                "INSERT OR REPLACE INTO ladder_ratings (tournament_id, position, round, mu,"
                " sigma, games) VALUES (?,?,?,?,?,?)",
                [(self.tid, line.position, round_index, line.mu, line.sigma, line.games)
                 for line in lines])
            self.store.db.executemany(
                "INSERT OR REPLACE INTO ladder_current (tournament_id, position, mu, sigma,"
                " games, change, round) VALUES (?,?,?,?,?,?,?)",
                [(self.tid, line.position, line.mu, line.sigma, line.games, line.change,
                  round_index) for line in lines])

    def add_pair_results(self, round_index: int,
                         results: Mapping[tuple[int, int], tuple[int, float]]) -> None:
        """Keep a round's head-to-head results: (a, b) -> (games, a's points against b)."""
        with self.store.transaction():
            self.store.db.executemany(
                "INSERT OR REPLACE INTO ladder_pairs (tournament_id, a, b, round, games, points)"
                " VALUES (?,?,?,?,?,?)",
                [(self.tid, a, b, round_index, n, points)
                 for (a, b), (n, points) in results.items()])

    def pair_results(self, position: int) -> dict[int, tuple[int, float]]:
        """Against each opponent: games, and ``position``'s points."""
        rows = self.store.db.execute(
            "SELECT b, sum(games), sum(points) FROM ladder_pairs WHERE tournament_id = ?"
            " AND a = ? GROUP BY b", (self.tid, position))
        return {int(b): (int(n), float(points)) for b, n, points in rows}

    def opponents(self, positions: Collection[int], *, limit: int, offset: int = 0
                  ) -> tuple[list[tuple[int, int, float, str]], int]:
        """The entrants ``positions`` (one bot's versions) played, most games first:
        ``limit`` of them after the first ``offset``, each as (opponent, games, the
        positions' points against it, its label), and how many opponents there are in
        all."""
        if not positions:
            return [], 0
        marks = ",".join("?" * len(positions))
        rows = self.store.db.execute(
            "SELECT t.b, t.n, t.points, t.opponents, bot.label FROM (SELECT b, sum(games) AS"
            " n, sum(points) AS points, count(*) OVER () AS opponents FROM ladder_pairs WHERE"
            f" tournament_id = ? AND a IN ({marks}) AND b NOT IN ({marks}) GROUP BY b ORDER"
            " BY n DESC, b LIMIT ? OFFSET ?) t LEFT JOIN entrants e ON e.tournament_id = ?"
            " AND e.position = t.b LEFT JOIN bots bot ON bot.id = e.bot_id ORDER BY t.n DESC,"
            " t.b", (self.tid, *positions, *positions, limit, max(0, offset), self.tid)
        ).fetchall()
        if not rows and offset > 0:
            return [], self.opponents(positions, limit=1)[1]
        return ([(int(b), int(n), float(points), "?" if label is None else str(label))
                 for b, n, points, _, label in rows], int(rows[0][3]) if rows else 0)

    def current_ratings(self) -> dict[int, RatingLine]:
        rows = self.store.db.execute(
            "SELECT position, round, mu, sigma, games, change FROM ladder_current"
            " WHERE tournament_id = ?", (self.tid,))
        return {int(row[0]): RatingLine(*row) for row in rows}

    def changes(self) -> tuple[int, int]:
        """How many times the ladder's entrants (its submissions, or a current rating line
        removed), and its current rating lines, have changed (counted by the store as they
        are written)."""
        row = self.store.db.execute("SELECT entrants, ratings FROM ladder_changes WHERE"
                                    " tournament_id = ?", (self.tid,)).fetchone()
        return (0, 0) if row is None else (int(row[0]), int(row[1]))

    def ratings_changed(self, after: int) -> list[tuple[RatingLine, int]]:
        """The current lines changed since the ratings' change count was ``after``, each with
        the count of its own last change."""
        rows = self.store.db.execute(
            "SELECT position, round, mu, sigma, games, change, seq FROM ladder_current"
            " WHERE tournament_id = ? AND seq > ?", (self.tid, after))
        return [(RatingLine(*row[:6]), int(row[6])) for row in rows]

    def entrant_lines(self) -> dict[int, tuple[str, str, str]]:
        """Each entrant's label, bot name and submission status, by position."""
        rows = self.store.db.execute(
            "SELECT s.position, b.label, b.name, s.status FROM submissions s JOIN bots b ON"
            " b.id = s.bot_id WHERE s.tournament_id = ? AND s.position IS NOT NULL",
            (self.tid,))
        return {int(position): (str(label), str(name), str(status))
                for position, label, name, status in rows}

    def current_rating(self, position: int) -> RatingLine | None:
        """The current line of the entrant at ``position`` (None before its first round)."""
        row = self.store.db.execute(
            "SELECT position, round, mu, sigma, games, change FROM ladder_current"
            " WHERE tournament_id = ? AND position = ?", (self.tid, position)).fetchone()
        return None if row is None else RatingLine(*row)

    def rated_through(self) -> int:
        """The last round the kept ratings include (-1: none)."""
        row = self.store.db.execute("SELECT max(round) FROM ladder_current WHERE"
                                    " tournament_id = ?", (self.tid,)).fetchone()
        return -1 if row[0] is None else int(row[0])

    def rating_history(self, positions: Sequence[int], *, most: int | None = None
                       ) -> list[RatingLine]:
        """The kept ratings of ``positions`` after each round they played, in round order;
        with ``most``, only about that many of each position's, spread evenly over the
        rounds it played (the first at or after each of ``most`` evenly spaced rounds from
        its first to its last, found by index: as quick however long its history)."""
        if most is None:
            marks = ",".join("?" * len(positions))
            rows = self.store.db.execute(
                "SELECT position, round, mu, sigma, games FROM ladder_ratings WHERE"
                f" tournament_id = ? AND position IN ({marks}) ORDER BY round, position",
                (self.tid, *positions)).fetchall()
        else:
            rows = []
            for position in sorted(set(positions)):
                rows += self.store.db.execute(_SPREAD_HISTORY,
                                              (self.tid, position, max(1, most))).fetchall()
            rows.sort(key=lambda row: (row[1], row[0]))
        return [RatingLine(*row) for row in rows]

    # -- who submitted what (participants of ``arena serve``) ------------------------------

    def record_submitter(self, submission_id: int, participant_id: int) -> None:
        self.store.db.execute("INSERT OR REPLACE INTO submitters (submission_id,"
                              " participant_id) VALUES (?,?)", (submission_id, participant_id))

    def submitted_by(self, participant_id: int) -> list[Submission]:
        """The submissions ``participant_id`` sent to this ladder, newest first."""
        columns = ", ".join(f"s.{c.strip()}" for c in _COLUMNS.split(","))
        rows = self.store.db.execute(
            f"SELECT {columns} FROM submissions s JOIN submitters w ON w.submission_id = s.id"
            " WHERE s.tournament_id = ? AND w.participant_id = ? ORDER BY s.id DESC",
            (self.tid, participant_id))
        return [Submission(*row) for row in rows]

    def submitter_of(self, submission_id: int) -> int | None:
        row = self.store.db.execute("SELECT participant_id FROM submitters WHERE"
                                    " submission_id = ?", (submission_id,)).fetchone()
        return None if row is None else int(row[0])

    def versions_of(self, game: str, bot_name: str) -> tuple[
            list[tuple[Submission, StoredBot, RatingLine | None]], int | None]:
        """The entrants that are versions of the bot called ``bot_name`` (their submission,
        bot and current rating line), oldest first, and its owner (:meth:`owner_of_name`):
        in one query."""
        columns = ", ".join(f"s.{c.strip()}" for c in _COLUMNS.split(","))
        rows = self.store.db.execute(
            f"SELECT {columns}, b.id, b.game, b.name, b.version, b.code_hash, b.spec, b.params,"
            " b.created, b.label, c.position, c.round, c.mu, c.sigma, c.games, c.change,"
            " (SELECT w.participant_id FROM submissions o JOIN submitters w ON"
            " w.submission_id = o.id JOIN bots n ON n.id = o.bot_id WHERE o.tournament_id ="
            " s.tournament_id AND n.name = b.name ORDER BY o.id LIMIT 1)"
            " FROM submissions s JOIN bots b ON b.id = s.bot_id LEFT JOIN ladder_current c ON"
            " c.tournament_id = s.tournament_id AND c.position = s.position WHERE"
            " s.tournament_id = ? AND b.game = ? AND b.name = ? AND s.position IS NOT NULL"
            " ORDER BY s.id", (self.tid, game, bot_name)).fetchall()
        width = len(_COLUMNS.split(","))
        found = [(Submission(*row[:width]), _stored_bot(row[width:width + 9]),
                  RatingLine(*row[width + 9:width + 15]) if row[width + 9] is not None
                  else None) for row in rows]
        return found, (None if not rows or rows[0][-1] is None else int(rows[0][-1]))

    def owner_of_name(self, bot_name: str) -> int | None:
        """Who first brought a bot called ``bot_name`` in: a participant's id, or
        :data:`ORGANIZER` where the organizer did (a submission without a sender: the
        submissions folder, ``arena submit --ladder``; or an organizer's account); None
        where none did."""
        row = self.store.db.execute(
            "SELECT w.participant_id, p.organizer FROM submissions s LEFT JOIN submitters w"
            " ON w.submission_id = s.id LEFT JOIN participants p ON p.id = w.participant_id"
            " JOIN bots b ON b.id = s.bot_id WHERE s.tournament_id = ? AND b.name = ?"
            " ORDER BY s.id LIMIT 1", (self.tid, bot_name)).fetchone()
        return None if row is None else _owner(*row)

    def sender_of(self, submission_id: int) -> int:
        """Who sent a submission, as :meth:`owner_of_name` counts owners: a participant's
        id, or :data:`ORGANIZER` (no sender, or an organizer's account)."""
        row = self.store.db.execute(
            "SELECT w.participant_id, p.organizer FROM submitters w LEFT JOIN participants p"
            " ON p.id = w.participant_id WHERE w.submission_id = ?", (submission_id,)
        ).fetchone()
        return _owner(*row) if row is not None else ORGANIZER

    def lookalike_of(self, bot_name: str) -> str | None:
        """A bot name of the ladder (an entrant's, the config's or a participant's) that
        looks like ``bot_name`` (:func:`~arena.bots.names.looks_alike`) but is
        another name; None if there is none. No submission may bring such a name in, so a
        look-alike is never a second owner's name."""
        rows = self.store.db.execute(
            "SELECT DISTINCT b.name FROM submissions s JOIN bots b ON b.id = s.bot_id WHERE"
            " s.tournament_id = ? AND b.name != ? ORDER BY s.id", (self.tid, bot_name))
        return next((str(name) for (name,) in rows if looks_alike(bot_name, str(name))), None)

    def submissions_since(self, participant_id: int, moment: float) -> int:
        row = self.store.db.execute(
            "SELECT count(*) FROM submissions s JOIN submitters w ON w.submission_id = s.id"
            " WHERE w.participant_id = ? AND s.created >= ?", (participant_id, moment)
        ).fetchone()
        return int(row[0])

