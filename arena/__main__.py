"""``python -m arena`` is the ``arena`` command (its entry point too: a Ctrl-C while the
command line loads ends it quietly, with status 130)."""

from __future__ import annotations

import sys


def main() -> None:
    """Load the command line, then run it."""
    try:
        from arena.cli import main as command
    except KeyboardInterrupt:
        sys.exit(130)
    command()


if __name__ == "__main__":
    main()
