"""Terminal front end of long runs: logging to the output folder, a progress bar."""

from __future__ import annotations

import logging
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.cli.common import BarLines, echo, echo_wrapped, progress_bar, terminal_width
from arena.games.base import ArenaError
from arena.referee.protocol import failure_excerpt, failure_shape, printable
from arena.referee.record import OK
from arena.results.luck_book import LuckSource, unaccounted
from arena.results.standings import BotResults, game_points, wrap
from arena.results.store import Store
from arena.tournaments.runner import Progress, TournamentRun, header_lines
from arena.tournaments.tasks import GameResult

LOG_FORMAT = "%(asctime)s %(processName)s %(name)s %(levelname)s %(message)s"
INTERIM_ROWS = 10
"""Bots an interim table shows, the best (the standings at the end show every one)."""


class LogFile(logging.FileHandler):
    """A log file that replaces a symbolic link at its place instead of writing through it
    (an output folder prepared by someone else could point it at any file)."""

    def _open(self) -> Any:
        path = Path(self.baseFilename)
        if path.is_symlink():
            path.unlink()
        handle = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
                         | os.O_CLOEXEC, 0o666)
        return open(handle, "a", encoding=self.encoding, errors=self.errors)


class PrintableFormatter(logging.Formatter):
    """Log lines whose bot-supplied text cannot act on a terminal showing the log."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


def setup_logging(log_file: Path, *, verbose: bool) -> None:
    """All processes log into ``log_file``; ``verbose`` echoes warnings to stderr too.

    The worker processes forked later write their lines themselves, each line one append
    to the file, shared with no lock: a worker killed at any moment (as a hung one is)
    leaves nothing held that the others would wait for. An ArenaError naming the
    ``output`` folder where it cannot be made or written."""
    try:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        file_handler = LogFile(log_file, encoding="utf-8")
    except OSError as exc:
        raise ArenaError(f"the output folder {str(log_file.parent)!r} (the config's `output`, "
                         f"or --output) cannot take arena.log: {exc.strerror or exc}; choose "
                         "a folder arena may write to") from None
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    file_handler.setFormatter(PrintableFormatter(LOG_FORMAT))
    root.addHandler(file_handler)
    if verbose:
        console = logging.StreamHandler(sys.stderr)
        console.setLevel(logging.WARNING)  # the games have lines of their own (ProgressBar)
        console.setFormatter(PrintableFormatter("%(processName)s %(levelname)s %(message)s"))
        root.addHandler(console)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)


def close_logging() -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        handler.close()
        root.removeHandler(handler)


class ProgressBar(Progress, BarLines):
    """Games done / total, games per second and ETA on stderr; with ``verbose`` a line per
    finished game; every bot's failure once (its traceback's end), as it happens; with
    ``standings_every`` the standings every that many games."""

    def __init__(self, *, enabled: bool = True, unbounded: bool = False,
                 verbose: bool = False, standings_every: int = 0) -> None:
        super().__init__()
        self.enabled, self.unbounded, self.verbose = enabled, unbounded, verbose
        self.standings_every = standings_every
        self.bar: Any = None
        self.run: TournamentRun | None = None
        self.finished = 0
        self.failures = FailureLog()
        self.started = self._start
        self.game_done = self._advance
        self.opened = self._header
        self.status = self._status

    def _header(self, run: TournamentRun) -> None:
        self.run = run
        for note in run.notes:
            for line in wrap(note, terminal_width()):
                echo(line)
        for line in header_lines(run):
            echo_wrapped(line, indent="  ")

    def _start(self, total: int, done: int) -> None:
        self.finished = done
        if self.enabled:
            self.bar = progress_bar(None if self.unbounded else total, initial=done)

    def _advance(self, result: GameResult) -> None:
        self.finished += 1
        labels = self.run.entrants.labels if self.run else []
        names = [labels[bot] if bot < len(labels) else f"bot {bot}" for bot in result.task.seats]
        if self.verbose:
            self.write_wrapped(result_line(names, result))
        for line in self.failures.new_failures(names, result):
            self.write_wrapped(line)
        if self.bar is not None:
            self.bar.update(1)
        if self.standings_every and self.run and self.finished % self.standings_every == 0:
            self._show_standings()

    def _show_standings(self) -> None:
        from arena.tournaments.runner import standings

        assert self.run is not None
        results = standings(self.run.store, self.run.tid, self.run.entrants.labels,
                            self.run.config)
        self.write_standings(f"standings after {self.finished} games:", results)

    def write_standings(self, title: str, results: Sequence[BotResults]) -> None:
        """Interim standings: the best :data:`INTERIM_ROWS` bots, without the seats."""
        from arena.results.standings import table_lines

        more = len(results) - INTERIM_ROWS
        if more > 0:
            title = f"{title.rstrip(':')} (the best {INTERIM_ROWS} of {len(results)} bots):"
        self.write(title)
        for line in table_lines(results[:INTERIM_ROWS], seats=False,
                                width=terminal_width(err=True)):
            self.write(line)
        if more > 0:
            self.write(f"... and {more} more bots: every bot in the standings at the end")

    def _status(self, text: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(printable(text), refresh=True)
        elif self.verbose:
            self.write(text)


def result_line(names: list[str], result: GameResult) -> str:
    """``Finished game r0-t1-s0-o0 (greedy@1.0 vs random@1.0): 1-0 {normal}``, as
    cutechess-cli says it, the game named by its key (``games.csv``'s, and
    ``report.html#game=KEY``: games finish in another order than the file numbers them);
    at tables of more than two the places in seat order (``places 1-3-2``); a failure
    names the seat that failed."""
    game = result.game
    if len(game.ranks) == 2:
        points = game_points(game.ranks)
        outcome = "-".join("1/2" if p == 0.5 else str(int(p)) for p in points)
    else:
        outcome = "places " + "-".join(str(rank + 1) for rank in game.ranks)
    reason = game.termination
    failed = [f"{names[seat]} {status}" for seat, status in enumerate(game.statuses)
              if status != OK]
    if failed:
        reason = "; ".join(failed)
    return (f"Finished game {result.task.key} ({' vs '.join(names)}): {outcome} "
            f"{{{reason}}}")


class FailureLog:
    """Which failures were shown: each distinct one (bot, status and its first line with
    the numbers left out) once, with the end of its traceback."""

    EXCERPT_LINES = 8

    def __init__(self) -> None:
        self.seen: Counter[tuple[str, str, str]] = Counter()

    def new_failures(self, names: list[str], result: GameResult) -> list[str]:
        lines: list[str] = []
        details = result.game.details or ("",) * len(result.game.statuses)
        for seat, (status, detail) in enumerate(zip(result.game.statuses, details,
                                                    strict=True)):
            if status == OK:
                continue
            excerpt = failure_excerpt(detail, self.EXCERPT_LINES) or ["(no detail)"]
            key = (names[seat], status, failure_shape(excerpt[0]))
            self.seen[key] += 1
            if self.seen[key] > 1:
                continue
            lines.append(f"{names[seat]} lost game {result.task.key} by {status}: {excerpt[0]}")
            lines += [f"    {line}" for line in excerpt[1:]]
        return lines


class LuckBar:
    """A progress bar for the luck accounting of many games (shown from the first update
    that leaves work to do; nothing for a few games)."""

    SHOWN_FROM = 50

    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._bar: Any = None

    def update(self, done: int, total: int) -> None:
        if not self.enabled or total < self.SHOWN_FROM:
            return
        if self._bar is None:  # from the games done before (while playing): a true rate
            self._bar = progress_bar(total, initial=done, desc="luck accounting", leave=False)
        self._bar.update(done - self._bar.n)
        if done >= total:
            self._bar.refresh()  # the last update may fall within tqdm's redraw interval

    def __enter__(self) -> LuckBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.close()


AUTO_LUCK_LIMIT = 5_000
"""Games a report accounts for the luck of unasked (more could take many minutes)."""


def report_luck(store: Store, tournament: int, asked: bool | None,
                source: LuckSource) -> LuckSource | None:
    """The luck source for a report: as asked, or by default unless more than
    ``AUTO_LUCK_LIMIT`` games wait to be accounted for (then a note says how to ask)."""
    if asked is False:
        return None
    if asked is None:
        waiting = unaccounted(store, tournament, source)
        if waiting > AUTO_LUCK_LIMIT:
            echo_wrapped(f"luck accounting skipped: {waiting:,} games wait for it (more than "
                         f"{AUTO_LUCK_LIMIT:,}); `arena report NAME --luck` does it once and "
                         "keeps it", err=True)
            return None
    return source
