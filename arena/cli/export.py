"""``arena export`` and ``arena view``: a tournament's games as replay JSON, and a viewer
page for any replay file (the format: docs/replays.md)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import click

from arena.cli.common import DB_OPTION, echo, open_store, reports_errors
from arena.games.base import ArenaError
from arena.reports.written import write_text

STDOUT = "-"
PAGE_TEMPLATE = "replay_page.html.j2"


@click.command(short_help="Write a tournament's games as replay JSON.")
@click.argument("tournament", required=False)
@DB_OPTION
@click.option("--out", default=STDOUT, show_default=True, metavar="FILE.jsonl|DIR",
              help="A JSON Lines file (one replay a line; '-' is standard output), or a "
              "folder that gets one .json file per game.")
@click.option("--details/--no-details", default=True, show_default=True,
              help="Keep each failed seat's traceback and stderr in the replays.")
@click.option("--overwrite", is_flag=True, help="Let --out replace a .jsonl file that exists.")
@reports_errors
def export(tournament: str | None, db: str, out: str, details: bool, overwrite: bool) -> None:
    """Write every game of TOURNAMENT (name or id; default: the latest), a tournament or a
    ladder, as replay JSON, in schedule order, each game as it is read."""
    from arena.reports.replay import stored_replays, write_replay_folder, write_replay_lines

    if out.endswith(".jsonl") and Path(out).exists() and not overwrite:
        raise ArenaError(f"{out} exists already; pass --overwrite to replace it, or name "
                         "another file")

    with open_store(db) as store:
        rows = store.tournaments()
        if not rows:
            raise ArenaError(f"no tournaments in {db}")
        row = store.find_tournament(tournament) if tournament else rows[-1]
        replays = stored_replays(store, row, details=details)
        if out == STDOUT:
            count = _to_stdout(replays)
            if count < 0:
                return
        elif out.endswith(".jsonl"):
            path = Path(out)
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                count = write_replay_lines(handle, replays)
        else:
            count = write_replay_folder(Path(out), replays)
    where = "standard output" if out == STDOUT else out
    echo(f"wrote {count} replays of {row.name!r} to {where}", err=out == STDOUT)


def _to_stdout(replays: Iterable[Mapping[str, Any]]) -> int:
    """Write the replays to standard output; -1 when its reader stopped reading (``| head``)."""
    from arena.reports.replay import write_replay_lines

    try:
        count = write_replay_lines(sys.stdout, replays)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return -1
    return count


@click.command(short_help="Write a page that replays the games of a file.")
@click.argument("replays", metavar="REPLAY_FILE", type=click.Path(exists=True))
@click.option("--out", type=click.Path(dir_okay=False),
              help="The page to write (default: the replay file's name with .html).")
@click.option("--title", help="The page's heading (default: the file's name).")
@click.option("--start", type=click.IntRange(min=1), default=1, show_default=True,
              help="The number of the first game to show (a page holds a few hundred).")
@click.option("--overwrite", is_flag=True,
              help="Replace a file that is no page of arena view (one is replaced anyway).")
@reports_errors
def view(replays: str, out: str | None, title: str | None, start: int,
         overwrite: bool) -> None:
    """Write a page that shows the games of REPLAY_FILE (.jsonl, .json, or a folder of .json
    files) in the report's game viewer; open it in any browser."""
    source = Path(replays)
    target = Path(out) if out else source.with_suffix(".html") if source.is_file() \
        else source / "replays.html"
    check_view_target(source, target, overwrite=overwrite)
    page = replay_page_html(source, title=title, start=start)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text(target, page)  # a link at the target (in a folder handed over) is replaced
    echo(f"wrote {target}")


VIEW_PAGE_MARK = b'<meta name="arena-page" content="replays">'
"""What an ``arena view`` page holds near its start (``replay_page.html.j2``)."""


def check_view_target(source: Path, target: Path, *, overwrite: bool) -> None:
    """ArenaError unless ``arena view`` may write its page at ``target``: never the replay
    file itself (through a link too), and an existing file only if it is such a page or
    ``overwrite`` says so (game records, a tournament's report); a link is replaced."""
    if target.exists() and target.resolve() == source.resolve():
        raise ArenaError(f"{target} is the replay file itself; name another page with --out")
    if source.is_dir() and target.resolve().parent == source.resolve() and \
            target.suffix in (".json", ".jsonl"):
        raise ArenaError(f"{target} is one of the replay files of {source}; name another "
                         "page with --out")
    if target.is_dir() and not target.is_symlink():
        raise ArenaError(f"{target} is a folder; name a page (a file) with --out")
    if overwrite or not target.exists() or target.is_symlink():
        return  # a link there is replaced: the file it leads to is not written
    try:
        with target.open("rb") as existing:
            ours = VIEW_PAGE_MARK in existing.read(2048)
    except OSError:
        ours = False
    if not ours:
        raise ArenaError(f"{target} exists already and is no page of arena view; pass "
                         "--overwrite to replace it, or name another page with --out")


def replay_page_html(source: Path, *, title: str | None = None,
                     max_games: int | None = None, start: int = 1) -> str:
    """A self-contained page (inline CSS, script and board; no network) with the games of
    the replay file ``source`` in the report's game viewer and a table of them."""
    from arena.games import find_game
    from arena.reports.html import environment, game_summary, page_assets, viewer_embed
    from arena.reports.replay import replay_view

    view = replay_view(source, max_games=max_games, start=start)
    env = environment()
    board_svg, data = viewer_embed(env, view.game, view.bots, view.layout, view.games)
    summaries = [game_summary(view.labels, game) for game in view.games]
    table = [{"number": game["no"], "tournament": place.get("name", ""),
              "key": place.get("key", ""), "summary": summary, "termination": row.termination,
              "moves": row.moves, "seed": seed, "error": game.get("e", "")}
             for game, place, summary, row, seed in zip(
                 view.games, view.places, summaries, view.rows, view.seeds, strict=True)]
    return env.get_template(PAGE_TEMPLATE).render(
        title=title or source.name, game_title=find_game(view.game).info.title,
        game=view.game, games=[(game["no"], f"Game {game['no']}: {summary}")
                               for game, summary in zip(view.games, summaries, strict=True)],
        board_svg=board_svg, data=data, viewer={"layout": view.layout},
        shown=len(view.games), total=view.total, first=view.first, table=table,
        **page_assets())
