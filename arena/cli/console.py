"""Terminal front end of long runs: logging to the output folder, a progress bar."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import multiprocessing_logging
from tqdm import tqdm

from arena.bots.names import printable
from arena.cli.common import echo
from arena.tournaments.runner import Progress, TournamentRun, header_lines
from arena.tournaments.tasks import GameResult

LOG_FORMAT = "%(asctime)s %(processName)s %(name)s %(levelname)s %(message)s"


class PrintableFormatter(logging.Formatter):
    """Log lines whose bot-supplied text cannot act on a terminal showing the log."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


def setup_logging(log_file: Path, *, verbose: bool) -> None:
    """All processes log into ``log_file``; ``verbose`` echoes to stderr too."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    file_handler = logging.FileHandler(log_file, encoding="utf-8")
    file_handler.setFormatter(PrintableFormatter(LOG_FORMAT))
    root.addHandler(file_handler)
    if verbose:
        console = logging.StreamHandler(sys.stderr)
        console.setFormatter(PrintableFormatter("%(processName)s %(levelname)s %(message)s"))
        root.addHandler(console)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    multiprocessing_logging.install_mp_handler()


def close_logging() -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        handler.close()
        root.removeHandler(handler)


class ProgressBar(Progress):
    """Games done / total, games per second and ETA on stderr."""

    def __init__(self, *, enabled: bool = True) -> None:
        super().__init__()
        self.enabled = enabled
        self.bar: tqdm[Any] | None = None
        self.started = self._start
        self.game_done = self._advance
        self.opened = self._header

    @staticmethod
    def _header(run: TournamentRun) -> None:
        for line in header_lines(run):
            echo(line)

    def _start(self, total: int, done: int) -> None:
        if self.enabled:
            self.bar = tqdm(total=total, initial=done, unit="game", file=sys.stderr,
                            dynamic_ncols=True, smoothing=0.1)

    def _advance(self, result: GameResult) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
