"""What the server's pages and its JSON API show, read from the store.

Nothing here computes a rating: the ladder keeps its entrants' current ratings,
their history after each round and the head-to-head results in the store as it
plays (:mod:`arena.results.ladder_book`), so a page is a few indexed reads
whatever the number of games.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

from arena.reports.html import breakable
from arena.results.ladder_book import ACTIVE, LadderBook, RatingLine, Submission
from arena.results.store import Store, StoredBot, TournamentRow

RECENT_GAMES = 20
"""A bot page's games a page (newest first), and the failures its owner sees."""
OPPONENTS_PAGE = 50
"""A bot page's opponents a page (most games first)."""
HISTORY_POINTS = 150
"""A bot page's rating history holds at most about this many ratings of each version,
spread evenly over the rounds from its first to its last."""
SUBMISSIONS_PAGE = 100
"""The organizer page's submissions a page, per ladder (newest first)."""


@dataclass(frozen=True)
class BoardLine:
    place: int
    label: str
    name: str
    status: str
    mu: float
    sigma: float
    games: int
    change: float
    round: int
    position: int = -1
    """The entrant's position (-1: not read)."""

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {"place": self.place, "bot": self.label, "name": self.name,
                "status": self.status, "mu": self.mu, "sigma": self.sigma,
                "conservative": self.conservative, "games": self.games,
                "last_change": self.change, "round": self.round}


def leaderboard(store: Store, row: TournamentRow, *, everyone: bool = False,
                limit: int | None = None) -> list[BoardLine]:
    """The active entrants (with ``everyone``, the retired ones too) best first by μ − 3σ,
    from the ratings the ladder keeps (the first ``limit`` of them)."""
    rows = store.db.execute(
        "SELECT b.label, b.name, s.status, c.mu, c.sigma, c.games, c.change, c.round"
        " FROM ladder_current c JOIN submissions s ON s.tournament_id = c.tournament_id"
        " AND s.position = c.position JOIN bots b ON b.id = s.bot_id"
        " WHERE c.tournament_id = ? AND (? OR s.status = ?)"
        " ORDER BY c.mu - 3 * c.sigma DESC, b.label LIMIT ?",
        (row.id, int(everyone), ACTIVE, -1 if limit is None else limit))
    return [BoardLine(place, *line) for place, line in enumerate(rows, 1)]


class Boards:
    """Each ladder's leaderboard, kept in memory for the server's threads and brought up to
    date on each request from what changed in the store since (the ladder's change counts,
    :meth:`LadderBook.changes`, written by the store's triggers): only the rating lines that
    changed are read (all of them again, and the entrants' labels and statuses, only when an
    entrant changed), and each line's HTML and JSON is made once per change. The lines are
    those :func:`leaderboard` reads, in its order."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.kept: dict[int, _Board] = {}

    def lines(self, store: Store, row: TournamentRow, *, everyone: bool = False,
              limit: int | None = None) -> list[BoardLine]:
        with self.lock:
            return [BoardLine(place, line.label, line.name, line.status, line.rating.mu,
                              line.rating.sigma, line.rating.games, line.rating.change,
                              line.rating.round, line.position)
                    for place, line in self._fresh(store, row).shown(everyone, limit)]

    def html(self, store: Store, row: TournamentRow, *, everyone: bool = False,
             limit: int | None = None) -> tuple[Markup, int, int]:
        """The board's table rows, how many they are, and how many entrants are active."""
        with self.lock:
            board = self._fresh(store, row)
            rows = [f"<tr><td>{place}</td>{line.html(row.name)}"
                    for place, line in board.shown(everyone, limit)]
            return Markup("\n".join(rows)), len(rows), board.active

    def json(self, store: Store, row: TournamentRow) -> str:
        """The JSON API's leaderboard (every active line), as its text."""
        with self.lock:
            parts = [f'{{"place":{place},{line.json()}'
                     for place, line in self._fresh(store, row).shown(False, None)]
        head = _json({"ladder": row.name, "game": row.game, "status": row.status})
        return f'{head[:-1]},"bots":[{",".join(parts)}]}}'

    def _fresh(self, store: Store, row: TournamentRow) -> _Board:
        book = LadderBook(store, row.id)
        board = self.kept.get(row.id)
        with store.snapshot():
            entrants, ratings = book.changes()
            if board is None or board.entrants_seen != entrants:
                board = self.kept[row.id] = _Board(book.entrant_lines(), entrants)
                board.change([line for line, _ in book.ratings_changed(-1)])
            elif board.ratings_seen != ratings:
                board.change([line for line, _ in book.ratings_changed(board.ratings_seen)])
            board.ratings_seen = ratings
        return board


class _Line:
    """A line of a kept board: its entrant, rating, and (once asked for) its HTML cells after
    the place and its JSON after the place."""

    __slots__ = ("_html", "_json", "label", "name", "order", "position", "rating", "status")

    def __init__(self, position: int, entrant: tuple[str, str, str], rating: RatingLine):
        self.position, self.rating = position, rating
        self.label, self.name, self.status = entrant
        self.order = (-(rating.mu - 3 * rating.sigma), self.label)
        self._html: str | None = None
        self._json: str | None = None

    def html(self, ladder: str) -> str:
        if self._html is None:
            r = self.rating
            change = f"{r.change:+.2f}".replace("-", "−")
            self._html = (
                f'<td><a href="/ladders/{quote(ladder, safe="")}/bots/'
                f'{quote(self.name, safe="")}">'
                f"{breakable(self.label)}</a></td>\n"
                f'<td class="num wide-only">{r.mu:.2f}</td><td class="num wide-only">'
                f'{r.sigma:.2f}</td>\n'
                f'<td class="num rank-key"><strong>{r.mu - 3 * r.sigma:.2f}</strong></td>'
                f'<td class="num">{r.games}</td>\n<td class="num">{change} <span'
                f' class="muted wide-only">(round {r.round + 1})</span></td></tr>')
        return self._html

    def json(self) -> str:
        if self._json is None:
            r = self.rating
            data = BoardLine(0, self.label, self.name, self.status, r.mu, r.sigma, r.games,
                             r.change, r.round).to_json()
            del data["place"]
            self._json = _json(data)[1:]
        return self._json


class _Board:
    def __init__(self, entrants: dict[int, tuple[str, str, str]], seen: int) -> None:
        self.entrants, self.entrants_seen, self.ratings_seen = entrants, seen, -1
        self.lines: dict[int, _Line] = {}
        self.order: list[_Line] = []
        self.active = sum(status == ACTIVE for _, _, status in entrants.values())

    def change(self, ratings: list[RatingLine]) -> None:
        for rating in ratings:
            if rating.position in self.entrants:
                self.lines[rating.position] = _Line(rating.position,
                                                    self.entrants[rating.position], rating)
        if ratings:
            self.order = sorted(self.lines.values(), key=lambda line: line.order)

    def shown(self, everyone: bool, limit: int | None) -> list[tuple[int, _Line]]:
        """The lines shown, with their places: the active ones (``everyone``: all), the first
        ``limit``."""
        lines = self.order if everyone else [
            line for line in self.order if line.status == ACTIVE]
        return list(enumerate(lines[:limit], 1))


def _json(data: Any) -> str:
    """JSON text as the API's answers write it (Starlette's JSONResponse)."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False, indent=None,
                      separators=(",", ":"))


class RecentGames:
    """Each ladder's games stored in the last hour, counted incrementally: the count of those
    stored before :data:`SETTLED` seconds ago is kept and moved on by the two small spans of
    time that came in and went out since, and the last SETTLED seconds are counted anew (a
    game is stored as it finishes, stamped with that moment, so a span that old no longer
    changes)."""

    SETTLED = 60.0
    HOUR = 3600.0

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.kept: dict[int, tuple[float, float, int]] = {}
        """Per ladder: from, up to (before) and how many games were stored then."""

    def count(self, book: LadderBook, now: float) -> int:
        start, settled = now - self.HOUR, now - self.SETTLED
        with self.lock:
            kept = self.kept.get(book.tid)
        if kept is None or not (kept[0] <= start and kept[1] <= settled < kept[1] + self.HOUR):
            counted, latest = book.games_between((start, settled), (settled, math.inf))
        else:
            gone, came, latest = book.games_between((kept[0], start), (kept[1], settled),
                                                    (settled, math.inf))
            counted = kept[2] - gone + came
        with self.lock:
            self.kept[book.tid] = (start, settled, counted)
        return counted + latest


def submission_count(store: Store, row: TournamentRow) -> int:
    found = store.db.execute("SELECT count(*) FROM submissions WHERE tournament_id = ?",
                             (row.id,)).fetchone()
    return int(found[0])


def active_count(store: Store, row: TournamentRow) -> int:
    found = store.db.execute("SELECT count(*) FROM submissions WHERE tournament_id = ? AND"
                             " status = ?", (row.id, ACTIVE)).fetchone()
    return int(found[0])


@dataclass(frozen=True)
class Version:
    submission: Submission
    bot: StoredBot
    rating: RatingLine | None


@dataclass(frozen=True)
class BotPage:
    name: str
    versions: list[Version]
    history: list[RatingLine]
    """Each version's rating after rounds it played, in round order: at most about
    :data:`HISTORY_POINTS` of each, spread evenly over its rounds, its first and its last
    among them."""
    head_to_head: list[tuple[str, int, float]]
    """Per opponent label, most games first (a page of :data:`OPPONENTS_PAGE`): games, and
    this bot's (all versions') score."""
    recent: list[dict[str, Any]]
    """A page of :data:`RECENT_GAMES` of its games, newest first."""
    owner: int | None
    games_page: int = 1
    more_games: bool = False
    """Older games than this page's are stored."""
    opponents: int = 0
    """How many opponents it has played in all."""
    opponents_page: int = 1

    @property
    def positions(self) -> set[int]:
        """The entrant positions of its versions."""
        return {v.submission.position for v in self.versions
                if v.submission.position is not None}

    @property
    def opponent_pages(self) -> int:
        return max(1, -(-self.opponents // OPPONENTS_PAGE))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name,
                "versions": [{"bot": v.bot.label, "status": v.submission.status,
                              "submission": v.submission.id,
                              "mu": v.rating.mu if v.rating else None,
                              "sigma": v.rating.sigma if v.rating else None,
                              "games": v.rating.games if v.rating else 0}
                             for v in self.versions],
                "history": [{"round": h.round, "position": h.position, "mu": h.mu,
                             "sigma": h.sigma, "games": h.games} for h in self.history],
                "head_to_head": [{"opponent": o, "games": n, "score": s}
                                 for o, n, s in self.head_to_head],
                "opponents": self.opponents, "opponents_page": self.opponents_page,
                "recent_games": self.recent, "games_page": self.games_page,
                "more_games": self.more_games}


def bot_page(store: Store, row: TournamentRow, name: str, *, games_page: int = 1,
             opponents_page: int = 1) -> BotPage | None:
    """Every version of the bot called ``name`` in the ladder, or None: its kept ratings
    and their history, a page of its opponents (from the kept head-to-head results) and a
    page of its games (read from the store's index of each entrant's games): a few indexed
    reads, decoding no more games than the page shows, however many it played."""
    book = LadderBook(store, row.id)
    found, owner = book.versions_of(row.game, name)
    versions = [Version(submission, bot, rating) for submission, bot, rating in found]
    if not versions:
        return None
    positions = [v.submission.position for v in versions if v.submission.position is not None]
    games_page, opponents_page = max(1, games_page), max(1, opponents_page)
    pairs, opponents = book.opponents(positions, limit=OPPONENTS_PAGE,
                                      offset=(opponents_page - 1) * OPPONENTS_PAGE)
    games = store.entrant_games(row.id, positions, limit=RECENT_GAMES + 1,
                                offset=(games_page - 1) * RECENT_GAMES)
    labels = labels_of(store, row, {seat for game in games for seat in game.seats})
    head = [(label, n, points / n if n else 0.0) for _, n, points, label in pairs]
    recent = [{"key": game.key, "bots": [labels.get(s, "?") for s in game.seats],
               "ranks": list(game.ranks), "statuses": list(game.statuses),
               "termination": game.termination, "finished": game.finished}
              for game in games[:RECENT_GAMES]]
    return BotPage(name, versions, book.rating_history(positions, most=HISTORY_POINTS),
                   head, recent, owner, games_page, len(games) > RECENT_GAMES,
                   opponents, opponents_page)


def won_by(game: dict[str, Any]) -> str:
    """Who won a game of a bot page's list (its bots placed first), or "a draw"."""
    first = [bot for bot, rank in zip(game["bots"], game["ranks"], strict=False) if rank == 0]
    return "a draw" if len(first) == len(game["bots"]) else ", ".join(first)


def ending(game: dict[str, Any]) -> str:
    """How a game of a bot page's list ended, and each failed seat (numbered from 1)."""
    return str(game["termination"]) + "".join(
        f" · seat {seat} {status}" for seat, status in enumerate(game["statuses"], 1)
        if status != "ok")


def _labels(store: Store, row: TournamentRow) -> dict[int, str]:
    rows = store.db.execute("SELECT e.position, b.label FROM entrants e JOIN bots b ON"
                            " b.id = e.bot_id WHERE e.tournament_id = ?", (row.id,))
    return {int(position): str(label) for position, label in rows}


def labels_of(store: Store, row: TournamentRow, positions: Collection[int]) -> dict[int, str]:
    """The labels of the entrants at ``positions``."""
    found: dict[int, str] = {}
    ordered = sorted(positions)
    for start in range(0, len(ordered), 500):
        chunk = ordered[start:start + 500]
        found.update((int(position), str(label)) for position, label in store.db.execute(
            "SELECT e.position, b.label FROM entrants e JOIN bots b ON b.id = e.bot_id WHERE"
            f" e.tournament_id = ? AND e.position IN ({','.join('?' * len(chunk))})",
            (row.id, *chunk)))
    return found


def own_positions(book: LadderBook, participant: int) -> set[int]:
    """The entrant positions of the bots ``participant`` submitted to the ladder."""
    return {s.position for s in book.submitted_by(participant) if s.position is not None}


def failures(store: Store, row: TournamentRow, positions: set[int]) -> list[dict[str, Any]]:
    """The failures of the entrants at ``positions`` (one bot's versions) in the games they
    most recently lost by one (:data:`RECENT_GAMES` of them, read from the index of failed
    seats), with each failure's detail (its traceback or stderr tail): for its owner's eyes
    only."""
    failed = store.entrant_failures(row.id, positions, limit=RECENT_GAMES)
    labels = labels_of(store, row, {failure.position for failure in failed})
    return [{"key": failure.key, "bot": labels.get(failure.position, "?"),
             "status": failure.status, "detail": failure.detail} for failure in failed]


def submission_view(store: Store, row: TournamentRow, submission: Submission
                    ) -> dict[str, Any]:
    bot = store.bot(submission.bot_id) if submission.bot_id else None
    return {"id": submission.id, "ladder": row.name, "status": submission.status,
            "bot": bot.label if bot else None, "bot_name": bot.identity.name if bot else None,
            "log": submission.log, "created": submission.created,
            "changed": submission.changed}


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    ratings: tuple[RatingLine | None, RatingLine | None]
    games: int
    score: float
    """a's points per game against b, in their games."""
    elo: float | None
    better: float | None
    """The chance that a's skill is above b's, by the ratings (TrueSkill's model)."""


def entrant_labels(store: Store, row: TournamentRow) -> list[str]:
    return sorted(_labels(store, row).values())


class EntrantOptions:
    """Each ladder's entrants' labels as the options of a ``<select>`` (sorted), made once
    and again only when its entrants changed (their count, or the ladder's count of changes
    to its entrants)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.kept: dict[int, tuple[tuple[int, int], str]] = {}

    def options(self, store: Store, row: TournamentRow, chosen: str) -> Markup:
        """The options, the label ``chosen`` selected."""
        found = store.db.execute(
            "SELECT (SELECT entrants FROM ladder_changes WHERE tournament_id = ?1),"
            " (SELECT count(*) FROM entrants WHERE tournament_id = ?1)", (row.id,)).fetchone()
        stamp = (int(found[0] or 0), int(found[1]))
        with self.lock:
            kept = self.kept.get(row.id)
        if kept is None or kept[0] != stamp:
            kept = (stamp, "".join(f"<option>{escape(label)}</option>"
                                   for label in entrant_labels(store, row)))
            with self.lock:
                self.kept[row.id] = kept
        plain = f"<option>{escape(chosen)}</option>"
        return Markup(kept[1].replace(plain, f"<option selected>{escape(chosen)}</option>", 1)
                      if chosen else kept[1])


def positions_of(store: Store, row: TournamentRow, labels: Collection[str]) -> dict[str, int]:
    """The entrant positions of the bots with these labels (those that are entrants)."""
    marks = ",".join("?" * len(labels))
    return {str(label): int(position) for label, position in store.db.execute(
        "SELECT b.label, e.position FROM entrants e JOIN bots b ON b.id = e.bot_id WHERE"
        f" e.tournament_id = ? AND b.label IN ({marks})", (row.id, *labels))}


def compare_versions(store: Store, row: TournamentRow, a: str, b: str,
                     beta: float) -> Comparison | None:
    """Two entrants of the ladder head to head (None if either is not one)."""
    import math

    from arena.results.stats import elo_difference

    positions = positions_of(store, row, (a, b))
    if a not in positions or b not in positions or a == b:
        return None
    book = LadderBook(store, row.id)
    games, points = book.pair_results(positions[a]).get(positions[b], (0, 0.0))
    first, second = book.current_rating(positions[a]), book.current_rating(positions[b])
    score = points / games if games else 0.5
    better = None
    if first and second:
        spread = math.sqrt(first.sigma ** 2 + second.sigma ** 2 + 2 * beta * beta)
        better = 0.5 * (1 + math.erf((first.mu - second.mu) / spread / math.sqrt(2)))
    elo = elo_difference(score) if games and 0 < score < 1 else None
    return Comparison(a, b, (first, second), games, score, elo, better)


def organizer_submissions(store: Store, row: TournamentRow, names: dict[int, str], *,
                          limit: int = -1, offset: int = 0) -> list[dict[str, Any]]:
    """The submissions of the ladder, newest first, for the organizer (``limit`` of them
    after the first ``offset``): its number, where it came from, who sent it, its status and
    its bot (an active one can be retired); read in one query."""
    found = []
    for submission_id, source, status, submitter, label in store.db.execute(
            "SELECT s.id, s.source, s.status, w.participant_id, b.label FROM submissions s"
            " LEFT JOIN submitters w ON w.submission_id = s.id LEFT JOIN bots b ON"
            " b.id = s.bot_id WHERE s.tournament_id = ? ORDER BY s.id DESC LIMIT ? OFFSET ?",
            (row.id, limit, max(0, offset))):
        found.append({"id": submission_id, "source": source, "status": status,
                      "by": names.get(submitter, "?") if submitter is not None else "config",
                      "bot": label})
    return found
