"""The ``arena`` command line: thin commands over the library, one module per group.

Errors are one clear line on stderr and a non-zero exit: 1 for a failure
(a bot that does not load, an unknown game), 2 for a usage mistake. Commands
import the heavier parts of the library (schedules, reports, progress bars)
when they run, so that ``arena --help`` and quick commands start fast.
"""

from __future__ import annotations

import click

from arena.cli import bots, export, ladder, play, results, run, serve


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="arena")
def cli() -> None:
    """Tournaments, ratings and reports for bots playing dice games."""


for command in (play.games, play.play, play.board, run.run, results.ratings, results.history,
                results.compare, results.report, bots.bots, bots.submit, ladder.ladder,
                serve.serve, export.export, export.view):
    cli.add_command(command)


def main() -> None:
    cli(prog_name="arena")
