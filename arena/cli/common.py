"""What every command shares: one clear line for arena's errors, common options."""

from __future__ import annotations

import contextlib
import functools
import os
import select
import shutil
import sqlite3
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, NoReturn, TypeVar

import click
import yaml

from arena.bots.loading import BotLoadError, BotNotFoundError, split_spec
from arena.bots.process import is_command
from arena.games.base import ArenaError
from arena.referee.protocol import printable
from arena.results.ratings import SYSTEMS
from arena.results.store import Store
from arena.tournaments.config import DEFAULT_DB

F = TypeVar("F", bound=Callable[..., Any])


class ArenaException(click.ClickException):
    """An error shown as ``Error: …``; on a terminal in lines within its width, each line
    of the message wrapped between words and aligned under its start (a terminal would
    break words), elsewhere (a log, a pipe) a line each, as they are."""

    def format_message(self) -> str:
        if not is_terminal(sys.stderr):
            return self.message
        indent = " " * len("Error: ")
        width = terminal_width(err=True)
        lines = []
        for line in self.message.split("\n"):
            lines += textwrap.wrap(line, width, initial_indent=indent, subsequent_indent=indent,
                                   break_long_words=False, break_on_hyphens=False) or [indent]
        return "\n".join(lines)[len(indent):]


PLAYING = frozenset({"run", "play", "compare", "ladder_run", "serve_start"})
"""The commands that play games: a database error there keeps the finished ones."""


def reports_errors(command: F) -> F:
    """Turn arena's errors into one line and exit code 1 (a bot's traceback follows)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except BrokenPipeError as exc:
            if output_gone():  # the reader left (`| head`): not an error of arena's
                raise
            raise ArenaException(printable(str(exc))) from None  # a connection
        except BotLoadError as exc:
            if exc.details:
                echo(exc.details.rstrip(), err=True)
            raise ArenaException(printable(str(exc))) from None
        except ArenaError as exc:
            raise ArenaException(printable(str(exc))) from None
        except sqlite3.Error as exc:  # a full disk, a locked or damaged file
            advice = ("finished games are kept — fix this and run the same command again to "
                      "resume" if command.__name__ in PLAYING else
                      "fix this and run the command again")
            raise ArenaException(
                f"the results database: {printable(str(exc))}; {advice}") from None
        except OSError as exc:  # a full disk or a folder arena may not write to
            raise ArenaException(printable(str(exc))) from None

    return wrapper  # type: ignore[return-value]


def echo(text: str = "", *, err: bool = False) -> None:
    """Print a line; what bots and configs supplied in it (names, stderr, tracebacks) cannot
    act on the terminal: control characters show as escapes."""
    click.echo(printable(text), err=err)


TERMINAL_WIDTH = 80
"""The width text is laid out for when it does not go to a terminal (a file, a pipe)."""


def terminal_width(*, err: bool = False) -> int:
    """The columns of the terminal that stdout (``err``: stderr) shows on; at most
    :data:`TERMINAL_WIDTH` when it is not a terminal (``COLUMNS`` may make it narrower)."""
    columns = shutil.get_terminal_size((TERMINAL_WIDTH, 24)).columns
    return max(20, columns if is_terminal(sys.stderr if err else sys.stdout)
               else min(columns, TERMINAL_WIDTH))


def echo_wrapped(text: str, *, indent: str = "", err: bool = False) -> None:
    """Print ``text`` wrapped between words to the terminal's width (see
    :func:`arena.results.standings.wrap`)."""
    from arena.results.standings import wrap

    for line in wrap(text, terminal_width(err=err), indent) or [""]:
        echo(line, err=err)


def echo_notice(text: str, *, err: bool = True) -> None:
    """A message (an interruption, what to do next): wrapped between words on a terminal;
    in a file or a pipe one line, for grep, as errors are."""
    if is_terminal(sys.stderr if err else sys.stdout):
        echo_wrapped(text, err=err)
    else:
        echo(text, err=err)


def is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no such method, or a closed stream
        return False


def reader_gone(stream: Any) -> bool:
    """Whether ``stream`` is a pipe (or socket) whose reader has gone: writing to it fails
    with EPIPE. (A broken connection to a server is another matter, an error to report.)"""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    poll = select.poll()
    poll.register(fd, select.POLLOUT)  # a pipe without a reader says POLLERR
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))


def reader_left() -> NoReturn:
    """Stop quietly when the reader of stdout has gone (``arena … | head``), as Unix tools
    do: exit status 141 (128 + SIGPIPE), no message, and stdout (and stderr, if its reader
    went too) pointed at /dev/null, so that nothing still buffered fails again when Python
    flushes it at exit."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in (sys.stdout, *([sys.stderr] if reader_gone(sys.stderr) else [])):
            with contextlib.suppress(AttributeError, OSError, ValueError):
                os.dup2(devnull, stream.fileno())
    finally:
        os.close(devnull)
    raise SystemExit(141)


class WritesOn:
    """A text stream that, once its reader has gone (``arena run … | head``), sends the
    rest of its output to /dev/null instead of failing: for the commands whose work is
    their games and files, which go on (see :func:`carry_on_without_reader`)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError as exc:
            self._drop(exc)
            return len(text)

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError as exc:
            self._drop(exc)

    def _drop(self, exc: BrokenPipeError) -> None:
        if not reader_gone(self.stream):  # a connection that broke: an error like any other
            raise exc
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self.stream.fileno())
        finally:
            os.close(devnull)
        with contextlib.suppress(OSError, ValueError):
            self.stream.flush()  # what was buffered, now into /dev/null

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextlib.contextmanager
def carry_on_without_reader() -> Iterator[None]:
    """While inside, stdout and stderr write on into /dev/null once their reader has gone,
    rather than ending the command: a tournament piped into ``head`` or a pager left early
    still plays every game and writes its tables and report."""
    saved = sys.stdout, sys.stderr
    if sys.stdout is not None:  # None: started with stdout closed, which click allows for
        sys.stdout = WritesOn(sys.stdout)
    if sys.stderr is not None:
        sys.stderr = WritesOn(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def output_gone() -> bool:
    """Whether a BrokenPipeError came from arena's own output (stdout or stderr into a pipe
    whose reader has gone), not from a connection."""
    return reader_gone(sys.stdout) or reader_gone(sys.stderr)


class PlainProgress:
    """A progress bar for a stream that is not a terminal (a log file, a pipe): nothing is
    redrawn; every ``every`` seconds a plain line says how far it is (``luck accounting:
    1,200/3,000 games (40%), 51.3 games/s, 35 s left``), and a run shorter than that says
    nothing. It answers what arena asks of a tqdm bar."""

    EVERY = 60.0

    def __init__(self, total: int | None = None, *, initial: int = 0, desc: str = "",
                 unit: str = "game", file: IO[str] | None = None, every: float = EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.n, self.initial = total, initial, initial
        self.desc, self.unit, self.every, self.clock = desc, unit, every, clock
        self.file = file
        self.postfix = ""
        self.started = self.last = clock()

    def update(self, n: float = 1) -> None:
        self.n += int(n)
        now = self.clock()
        if now - self.last >= self.every:
            self.last = now
            self.write(self.line(now))

    def line(self, now: float) -> str:
        done = f"{self.n:,}/{self.total:,} {self.unit}s" if self.total else (
            f"{self.n:,} {self.unit}s")
        parts = [done + (f" ({100 * self.n / self.total:.0f}%)" if self.total else "")]
        rate = (self.n - self.initial) / max(now - self.started, 1e-9)
        parts.append(f"{rate:.1f} {self.unit}s/s")
        if self.total and rate > 0 and self.n < self.total:
            parts.append(f"{(self.total - self.n) / rate:.0f} s left")
        if self.postfix:
            parts.append(self.postfix)
        return (f"{self.desc}: " if self.desc else "") + ", ".join(parts)

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        self.postfix = text

    def refresh(self) -> None:
        """Nothing to redraw: the next line comes when it is due."""

    def write(self, line: str, file: IO[str] | None = None) -> None:
        stream = file or self.file or sys.stderr
        stream.write(line + "\n")
        stream.flush()

    def close(self) -> None:
        """Nothing to clear: no line was ever drawn over."""


def progress_bar(total: int | None = None, *, initial: int = 0, desc: str | None = None,
                 unit: str = "game", leave: bool = True) -> Any:
    """A progress bar on stderr: tqdm's on a terminal, :class:`PlainProgress` elsewhere (a
    log file never gets a bar redrawn with carriage returns)."""
    if not is_terminal(sys.stderr):
        return PlainProgress(total, initial=initial, desc=desc or "", unit=unit)
    from tqdm import tqdm

    if _terminal_rows(sys.stderr) <= 0:  # a pty that says no height (some CI, docker exec
        # -t): tqdm then hides every bar, so its size is fixed instead of followed
        return tqdm(total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr,
                    leave=leave, ncols=terminal_width(err=True), nrows=24, smoothing=0.1)
    return tqdm(total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr,
                leave=leave, dynamic_ncols=True, smoothing=0.1)


def _terminal_rows(stream: Any) -> int:
    """The height the terminal of ``stream`` reports (0 where it says none); 24 when it
    cannot be asked."""
    try:
        return os.get_terminal_size(stream.fileno()).lines
    except (AttributeError, ValueError, OSError):
        return 24


class BarLines:
    """Lines on stderr above a progress bar (a tqdm bar), when there is one."""

    bar: Any = None

    def write(self, line: str) -> None:
        """A line on stderr above the bar (what bots supplied in it made harmless)."""
        if self.bar is not None:
            self.bar.write(printable(line), file=sys.stderr)
        else:
            echo(line, err=True)

    def write_wrapped(self, line: str) -> None:
        """:meth:`write`, on a terminal broken between words at its width (the lines after
        the first indented); elsewhere one line, for grep."""
        from arena.results.standings import wrap

        if not is_terminal(sys.stderr):
            self.write(line)
            return
        for part in wrap(printable(line), terminal_width(err=True), "  "):
            self.write(part)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def parse_option(text: str) -> tuple[str, Any]:
    """``name=value`` with a YAML value (``limit=500`` gives the integer 500)."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise click.BadParameter(f"{text!r} is not NAME=VALUE", param_hint="--option")
    try:
        return name.strip(), yaml.safe_load(value)
    except yaml.YAMLError:
        return name.strip(), value


DB_OPTION = click.option("--db", default=DEFAULT_DB, show_default=True,
                         help="Results database.")
SYSTEM_OPTION = click.option("--system", type=click.Choice(SYSTEMS), default="trueskill",
                             show_default=True, help="Rating system.")


def open_store(db: str) -> Store:
    """The results database at ``db``, which must exist already."""
    if not Path(db).exists():
        raise ArenaError(f"no results database at {db}: arena reads the bots and games a "
                         "tournament stored (`arena run CONFIG`, or `arena submit BOT` to store "
                         "a bot alone, makes one), or name another with --db")
    return Store(db)


def check_bot_file(spec: str) -> None:
    """A bot file spec must name a file that exists."""
    target, _attr = split_spec(spec)
    if not is_command(spec) and target.endswith(".py") and not Path(target).is_file():
        raise BotNotFoundError(f"bot {spec!r}: no such file {target!r}")
