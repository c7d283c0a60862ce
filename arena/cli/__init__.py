"""The ``arena`` command line: thin commands over the library, one module per group.

Errors are one clear line on stderr and a non-zero exit: 1 for a failure
(a bot that does not load, an unknown game), 2 for a usage mistake; output into
a pipe whose reader has gone (``arena … | head``) ends quietly with status 141.
Commands import the heavier parts of the library (schedules, reports, progress
bars) when they run, so that ``arena --help`` and quick commands start fast.
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

import click

from arena.bots.interrupts import answer_signals_once, interrupt_status
from arena.cli import bots, export, ladder, play, results, run, serve
from arena.cli.common import output_gone, reader_left


class ArenaGroup(click.Group):
    """The command group; output to a reader that left (``arena … | head``) ends the
    command quietly (:func:`~arena.cli.common.reader_left`), not with "Broken pipe"."""

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        try:  # ``arena --help`` prints while the arguments are parsed
            return super().make_context(info_name, args, parent, **extra)
        except BrokenPipeError:
            if not output_gone():
                raise
            reader_left()
        except KeyboardInterrupt as stop:
            interrupted(stop)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        """An unknown command that is a ``bots`` one (``arena new``) says where it is."""
        name = args[0] if args else ""
        if args and self.get_command(ctx, name) is None and name in BOTS_COMMANDS:
            ctx.fail(f"No such command {name!r}: it is `arena bots {name}`.")
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            if not output_gone():  # a connection that broke: an error like any other
                raise click.ClickException(str(exc)) from None
            reader_left()
        except KeyboardInterrupt as stop:  # before a command's own answer, or it has none
            interrupted(stop)


BOTS_COMMANDS = ("new", "validate")
"""The ``arena bots`` commands a new user may type without ``bots``."""


def interrupted(stop: KeyboardInterrupt) -> NoReturn:
    """A Ctrl-C (or SIGTERM) that no command answered: one line, and the signal's status."""
    sys.stderr.write("\ninterrupted\n")
    raise SystemExit(interrupt_status(stop))


@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="arena")
def cli() -> None:
    """Tournaments, ratings and reports for bots playing dice games."""


for command in (play.games, play.play, play.board, run.run, results.ratings, results.history,
                results.compare, results.report, bots.bots, bots.submit, ladder.ladder,
                serve.serve, export.export, export.view):
    cli.add_command(command)


def standard_files_open() -> None:
    """Started with stdin, stdout or stderr closed (``arena … >&-``), arena puts /dev/null
    there: else the next file it opens takes that number, and a child handed a file by
    number gets another (the sandbox read its system-call filter from fd 1 and failed, so
    the bots ran unsandboxed)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            opened = os.open(os.devnull, os.O_RDWR)
            if opened != fd:
                os.dup2(opened, fd)
                os.close(opened)


def main() -> None:
    """The ``arena`` command. Output still buffered at exit is written before Python's own
    last flush, so that a reader gone by then ends it quietly too."""
    standard_files_open()
    answer_signals_once()
    try:
        cli(prog_name="arena")
    except SystemExit as done:
        status = done.code
    else:
        status = 0
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader of stdout left before its last lines
        try:
            reader_left()
        except SystemExit as left:
            status = left.code
    except (AttributeError, OSError, ValueError):  # stdout closed (None when started so)
        pass
    sys.exit(status)
