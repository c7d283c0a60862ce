"""Reports over stored results: CSV files and one self-contained HTML page.

    >>> paths = write_reports(store, store.find_tournament("seasons-round-robin"),
    ...                       Path("results/seasons-round-robin"))  # doctest: +SKIP

writes ``standings.csv``, ``ratings.csv``, ``pairs.csv``, ``games.csv`` and
``report.html`` (and, for more games than the page holds, the files of the viewer's later
games in the folder ``report-games/``) and returns their paths (the folder's, not each
file's). Given ``luck=LuckSource()``, the games'
luck is accounted for with the game's value model and the pairs show their
luck-adjusted scores beside the raw ones.
"""

from __future__ import annotations

from pathlib import Path

from arena.games.base import ArenaError
from arena.reports.csv_export import write_games, write_pairs, write_ratings, write_standings
from arena.reports.model import ReportModel, build_model
from arena.results.luck_book import LuckSource, Progress
from arena.results.store import Store, TournamentRow

__all__ = ["write_csv_reports", "write_reports"]


def write_reports(store: Store, tournament: TournamentRow, out_dir: Path, *,
                  luck: LuckSource | None = None, workers: int = 0,
                  progress: Progress | None = None) -> list[Path]:
    """Write the tournament's CSV files and ``report.html`` into ``out_dir`` (with the files
    of its viewer's later games in ``report-games/``, :func:`~arena.reports.html.write_html`);
    with ``luck`` the pair scores are shown luck-adjusted too (see :func:`build_model`).
    Returns the paths written, ``report.html`` last."""
    from arena.reports.html import write_html  # Jinja2 and matplotlib load only when needed
    from arena.tournaments.config import report_command

    out_dir = Path(out_dir)
    model = build_model(store, tournament, luck=luck, workers=workers, progress=progress)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        paths = write_csv_reports(model, out_dir)
        return [*paths, *write_html(out_dir / "report.html", store, model)]
    except OSError as exc:  # a full disk, a folder arena may not write to
        raise ReportNotWritten(
            f"cannot write the report into {out_dir}: {exc.strerror or exc}"
            f"{f' ({exc.filename})' if exc.filename else ''}; the games are kept in the "
            f"database, and `{report_command(tournament.name, str(store.path), out_dir)}` "
            "writes the report once the folder can take it") from None


class ReportNotWritten(ArenaError):
    """The report's folder could not take its files (a full disk, no right to write)."""


def write_csv_reports(model: ReportModel, out_dir: Path) -> list[Path]:
    """standings.csv, ratings.csv, pairs.csv and games.csv of the model's tournament."""
    identities, seats = model.identities, model.config.seats
    paths = [out_dir / name for name in ("standings.csv", "ratings.csv", "pairs.csv",
                                         "games.csv")]
    write_standings(paths[0], model.standings, identities, seats)
    write_ratings(paths[1], ((bot.identity, model.rating(bot.index),
                              model.rated_games(bot.index)) for bot in model.rating_order()),
                  model.settings.system)
    order = model.standings_order()
    write_pairs(paths[2], ((bot.identity, other.identity, model.pairs[bot.index, other.index])
                           for bot in order for other in order
                           if (bot.index, other.index) in model.pairs))
    write_games(paths[3], model.rows, identities, seats,
                hide_seeds=model.tournament.shown_seed != str(model.tournament.seed))
    return paths
