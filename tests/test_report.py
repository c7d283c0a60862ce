"""Reports: the CSV files and the self-contained HTML page (no browser needed)."""

from __future__ import annotations

import csv
import dataclasses
import itertools
import json
import math
import os
import re
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from report_scenarios import built

from arena.games import find_game
from arena.games.base import ArenaError
from arena.games.sonnentau import default_board
from arena.games.sonnentau.svg import draw_board
from arena.referee.record import game_log, replay, write_records
from arena.reports import seasons_board, write_reports
from arena.reports.boards import draw
from arena.reports.charts import HIGHLIGHTED, spread
from arena.reports.csv_export import PAIR_COLUMNS, RATING_COLUMNS
from arena.reports.html import heat, percent, render_html, script_json
from arena.reports.model import build_model, failure_groups, pair_results, stored_config
from arena.reports.viewer import (
    SNAPSHOTS,
    game_view,
    parts,
    position_after,
    shown_rows,
)
from arena.results.ratings import RatedGame, RatingSettings, RatingTable, make_rater
from arena.results.stats import (
    mean_likelihood_of_superiority,
    mean_score_interval,
    score_interval,
    set_units,
)
from arena.results.store import GameRow, Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament, standings

ROOT = Path(__file__).resolve().parent.parent
"""The repository (conftest's ``root`` fixture is function-scoped; these games are built once)."""
EVIL = "<script>alert(1)<script>"
SETTINGS = {"draw_probability": 0.2, "beta": 3.0}
SEASONS = {
    "name": "report-seasons", "game": "seasons", "seed": 5, "workers": 1,
    "games_per_pairing": 2, "ratings": SETTINGS,
    "bots": ["bots/seasons/greedy.py", "bots/seasons/random_bot.py",
             {"spec": "bots/seasons/random_bot.py", "name": EVIL, "version": "1&2"}],
}
SONNENTAU = {
    "name": "report-sonnentau", "game": "sonnentau", "seed": 9, "workers": 1, "seats": 3,
    "options": {"turn_limit": 40},
    "bots": ["bots/sonnentau/heuristic.py", "bots/sonnentau/random_bot.py",
             {"spec": "bots/sonnentau/random_bot.py", "name": "random-b"}],
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    """Both tournaments in one database, their reports written; from the repository root."""
    base = tmp_path_factory.mktemp("reports")
    db = base / "arena.db"
    out = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        for data in (SEASONS, SONNENTAU):
            with Store(db) as store:
                run_tournament(parse_config({**data, "db": str(db)}), store)
                row = store.find_tournament(data["name"])
                out[data["game"]] = (row, write_reports(store, row, base / data["game"]))
    return db, out


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as lines:
        return list(csv.DictReader(lines))


def header(path: Path) -> list[str]:
    with path.open(encoding="utf-8", newline="") as lines:
        return next(csv.reader(lines))


def files(reports, game: str) -> dict[str, Path]:
    return {path.name: path for path in reports[1][game][1]}


def html_of(reports, game: str) -> str:
    return files(reports, game)["report.html"].read_text(encoding="utf-8")


def viewer_data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html,
                      re.S)
    assert found
    return json.loads(found[1])


# -- CSV ------------------------------------------------------------------------------------


def test_write_reports_returns_every_file_it_wrote(reports):
    paths = reports[1]["seasons"][1]
    assert [p.name for p in paths] == ["standings.csv", "ratings.csv", "pairs.csv", "games.csv",
                                       "report.html"]
    assert all(p.is_file() and p.stat().st_size > 0 for p in paths)


def test_standings_and_games_csv_keep_their_columns(reports):
    paths = files(reports, "seasons")
    assert header(paths["standings.csv"])[:12] == [
        "place", "bot", "version", "games", "wins", "draws", "losses", "points", "byes",
        "score", "mean_score", "mean_rank"]
    standings = read_csv(paths["standings.csv"])
    assert [row["place"] for row in standings] == ["1", "2", "3"]
    assert len(read_csv(paths["games.csv"])) == 12  # 3 pairs x 2 sets x 2 rotations
    assert {row["bot"] for row in standings} == {"greedy", "random", EVIL}


def test_ratings_csv_equals_a_direct_computation_with_the_stored_settings(reports):
    db, out = reports
    row, paths = out["seasons"]
    table = RatingTable(make_rater(RatingSettings(**SETTINGS)))
    with Store(db) as store:
        names = {bot.id: bot.identity.name for bot in store.bots("seasons")}
        entrants = store.entrants(row.id)
        for game in store.games(row.id):
            table.add(RatedGame(tuple(entrants[s] for s in game.seats), game.ranks))
    ratings = read_csv(paths[1])
    assert header(paths[1]) == RATING_COLUMNS
    assert len(ratings) == 3
    for line in ratings:
        bot_id = next(i for i, name in names.items() if name == line["bot"])
        expected = table.ratings[bot_id]
        assert float(line["mu"]) == pytest.approx(expected.mu, abs=1e-5)
        assert float(line["sigma"]) == pytest.approx(expected.sigma, abs=1e-5)
        assert float(line["mu_minus_3sigma"]) == pytest.approx(expected.conservative, abs=1e-5)
        assert int(line["games"]) == table.games[bot_id]
        assert line["system"] == "trueskill"
    conservative = [float(line["mu_minus_3sigma"]) for line in ratings]
    assert conservative == sorted(conservative, reverse=True)


def test_ratings_and_pairs_agree_with_the_standings(reports):
    paths = files(reports, "seasons")
    standings = {row["bot"]: row for row in read_csv(paths["standings.csv"])}
    for line in read_csv(paths["ratings.csv"]):
        assert line["games"] == standings[line["bot"]]["games"]
    pairs = read_csv(paths["pairs.csv"])
    assert header(paths["pairs.csv"]) == PAIR_COLUMNS
    assert len(pairs) == 6  # every ordered pair of three bots met
    for bot, row in standings.items():
        mine = [p for p in pairs if p["bot"] == bot]
        for what in ("wins", "draws", "losses", "games"):
            assert sum(int(p[what]) for p in mine) == int(row[what])


def test_pairs_csv_is_antisymmetric_with_scores_elo_and_los(reports):
    pairs = read_csv(files(reports, "seasons")["pairs.csv"])
    by_pair = {(p["bot"], p["opponent"]): p for p in pairs}
    for (bot, opponent), p in by_pair.items():
        other = by_pair[opponent, bot]
        assert (p["wins"], p["draws"], p["losses"]) == (other["losses"], other["draws"],
                                                        other["wins"])
        wins, draws, games = int(p["wins"]), int(p["draws"]), int(p["games"])
        assert float(p["score"]) == pytest.approx((wins + draws / 2) / games, abs=1e-4)
        assert float(p["los"]) + float(other["los"]) == pytest.approx(1.0, abs=1e-3)
        if p["elo"]:  # empty where there is no finite Elo (a clean sweep)
            assert float(p["elo"]) == pytest.approx(-float(other["elo"]), abs=0.11)
        else:
            assert other["elo"] == "" and (p["elo_low"] or p["elo_high"])


def test_pairs_at_three_player_tables_are_counted_from_the_ranks(reports):
    db, out = reports
    row, paths = out["sonnentau"]
    with Store(db) as store:
        games = list(store.games(row.id))
    assert len(games) == 3 and all(len(g.seats) == 3 for g in games)
    pairs = read_csv(paths[2])
    assert len(pairs) == 6
    assert all(int(p["games"]) == 3 for p in pairs)
    direct = pair_results(games)
    assert sum(p.wins for p in direct.values()) == sum(p.losses for p in direct.values())
    seat_ranks = {(g.seats[a], g.seats[b]): 0 for g in games for a in range(3) for b in range(3)}
    assert set(direct) == {pair for pair in seat_ranks if pair[0] != pair[1]}


def test_pair_results_score_each_pair_by_rank():
    row = GameRow("g", 0, 0, 0, 0, 1, seats=(2, 0, 1), ranks=(0, 1, 0), scores=(3, 1, 3),
                  statuses=("ok",) * 3, termination="normal", moves=1, duration=0.0)
    pairs = pair_results([row])
    assert (pairs[2, 0].wins, pairs[2, 1].draws, pairs[0, 1].losses) == (1, 1, 1)
    assert pairs[1, 2].draws == 1 and pairs[0, 2].losses == 1


def test_the_stored_config_comes_back_with_its_rating_settings(reports):
    row, _paths = reports[1]["seasons"]
    config = stored_config(row)
    assert config.ratings == RatingSettings(**SETTINGS)
    assert (config.name, config.seats, config.games_per_pairing, config.seed) == (
        "report-seasons", 2, 2, 5)
    assert config.bots[2].name == EVIL


def test_reports_can_be_written_from_any_directory(reports, tmp_path, monkeypatch):
    db, out = reports
    monkeypatch.chdir(tmp_path)  # the bot files are not reachable from here
    with Store(db) as store:
        paths = write_reports(store, out["sonnentau"][0], tmp_path / "again")
    assert (tmp_path / "again" / "report.html").is_file() and len(paths) == 5


# -- HTML ------------------------------------------------------------------------------------


def test_the_page_shows_header_leaderboard_matrix_and_charts(reports):
    html = html_of(reports, "seasons")
    assert "<h1>report-seasons</h1>" in html
    assert "Seasons of the Sun" in html and "round-robin" in html and "trueskill" in html
    assert "12 of 12" in html
    leaderboard = html.split('id="leaderboard-table"')[1].split("</table>")[0]
    assert leaderboard.count("<tr data-bot=") == 3
    assert all(name in leaderboard for name in ("greedy", "random", "&lt;script&gt;"))
    matrix = html.split('id="pair-matrix"')[1].split("</table>")[0]
    assert matrix.count('class="pair"') == 6 and matrix.count('class="self"') == 3
    assert "Elo " in matrix and "LOS " in matrix
    charts = re.findall(r'<svg [^>]*class="chart chart-(progress|versions)(-narrow)? '
                        r'(wide|narrow)"', html)
    assert sorted(charts) == [("progress", "", "wide"), ("progress", "-narrow", "narrow"),
                              ("versions", "", "wide"), ("versions", "-narrow", "narrow")]
    assert 'id="endings-table"' in html and "placement-limit" in html


def test_the_page_needs_no_network(reports):
    for game in ("seasons", "sonnentau"):
        html = html_of(reports, game)
        for match in re.finditer(r"https?://", html):
            before = html[max(0, match.start() - 20):match.start()]
            assert re.search(r'xmlns(:\w+)?="$', before), html[match.start() - 40:match.end() + 40]
        assert "<link" not in html and not re.search(r"<(script|img|iframe)[^>]*\ssrc=", html)
        assert "@import" not in html and "url(http" not in html


def test_user_text_is_escaped_everywhere(reports):
    html = html_of(reports, "seasons")
    assert "&lt;script&gt;alert(1)&lt;script&gt;" in html
    assert "<script>alert(1)" not in html
    assert html.count("<script") == 3  # the dialog guard, the data and the viewer
    assert "1&amp;2" in html
    data = viewer_data(html)
    assert EVIL in [bot["label"].split("@")[0] for bot in data["bots"]]


def test_json_in_a_script_element_cannot_close_it():
    text = str(script_json({"name": "</script><script>alert(1)</script> & \u2028"}))
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"name": "</script><script>alert(1)</script> & \u2028"}


def test_heat_runs_from_red_through_white_to_green():
    assert heat(0.5) == "rgb(255, 255, 255)"
    red, green = heat(0.0), heat(1.0)
    r, g, _b = map(int, re.findall(r"\d+", red))
    assert r > g
    r, g, _b = map(int, re.findall(r"\d+", green))
    assert g > r


# -- the game viewer ---------------------------------------------------------------------------


def test_the_viewer_holds_every_game_numbered_from_one_with_a_move_per_log_line(reports):
    db, out = reports
    row, paths = out["seasons"]
    html = paths[4].read_text(encoding="utf-8")
    data = viewer_data(html)
    assert data["game"] == "seasons" and len(data["games"]) == 12
    with Store(db) as store:
        keys = [g.key for g in store.games(row.id)]
        record = store.record(row.id, keys[0])
        labels = [store.bot(bot).label for bot in store.entrants(row.id)]
        seated = [labels[bot] for bot in next(store.games(row.id)).seats]
    assert [g["k"] for g in data["games"]] == keys
    assert [g["no"] for g in data["games"]] == list(range(1, 13))
    first = data["games"][0]
    log = game_log(record, seated)  # the seats by their labels
    assert first["n"] == log and log[-1].startswith("Result: ") and "@" in log[-1]
    # one move per log line: its seat, its actions and its position's delta
    assert len(first["a"]) == len(first["z"]) == len(first["d"]) == len(log) - 1
    assert " ".join(first["a"]).split(" ") == [m.action for m in record.moves]
    seats = [line.split(" ")[2] for line in log[:-1]]
    assert seats == [f"{seat}:" for seat in first["z"]]
    assert data["layout"]["initial"]["s"] == [0, 0]
    options = re.findall(r'<option value="(\d+)">([^<]*)</option>', html)
    assert [int(number) for number, _ in options] == list(range(1, 13))
    assert options[0][1].startswith("Game 1: ") and options[11][1].startswith("Game 12: ")


@pytest.mark.parametrize("game", ["seasons", "sonnentau"])
def test_applying_the_deltas_gives_the_position_after_each_log_line(reports, game):
    db, out = reports
    row, _paths = out[game]
    with Store(db) as store:
        rows = list(store.games(row.id))
        record = store.record(row.id, rows[-1].key)
    view = game_view(record, rows[-1], len(rows))
    state = find_game(game).initial_state(record.options)
    position = SNAPSHOTS[game](state)
    for move, change in enumerate(view["d"], 1):
        position.update(change)
        assert position == SNAPSHOTS[game](position_after(record, move))
    assert position == SNAPSHOTS[game](replay(record))


def test_arena_board_draws_the_viewers_move(reports, tmp_path):
    """`arena board --game N --move M` and the viewer's game N, move M are one position."""
    db, out = reports
    row, _paths = out["sonnentau"]
    with Store(db) as store:
        rows = list(store.games(row.id))
        records = [store.record(row.id, r.key) for r in rows]
    path = tmp_path / "games.jsonl"
    write_records(str(path), records)
    number = 2
    view = game_view(records[number - 1], rows[number - 1], number)
    board = default_board()
    position = SNAPSHOTS["sonnentau"](find_game("sonnentau").initial_state(records[1].options))
    for move, change in enumerate(view["d"], 1):
        position.update(change)
        if move in (1, 7, len(view["d"])):
            drawn = draw(None, str(path), number, move)
            assert drawn == draw_board(board, position_after(records[number - 1], move))
            assert SNAPSHOTS["sonnentau"](position_after(records[number - 1], move)) == position
    with pytest.raises(ArenaError, match=f"has {len(view['d'])} moves"):
        draw(None, str(path), number, len(view["d"]) + 1)


def test_the_sonnentau_viewer_draws_the_board_once_and_places_pieces(reports):
    html = html_of(reports, "sonnentau")
    assert html.count('class="board-svg"') == 1
    layout = viewer_data(html)["layout"]
    board = default_board()
    assert len(layout["fields"]) == board.n_fields and layout["pieces"] == 5
    assert "svg" not in layout  # the drawing is in the page once, not in the data
    game = viewer_data(html)["games"][0]
    assert any(key.isdigit() for change in game["d"] for key in change)
    assert "turn-limit" in html


def part_data(path: Path) -> tuple[int, dict]:
    """The part number and data of a viewer's part file (``arenaReportPart(N, {...});``)."""
    found = re.fullmatch(r"/\* arena report: games \d+-\d+ \*/\narenaReportPart\((\d+), (.*)\);\n",
                         path.read_text(encoding="utf-8"), re.S)
    assert found, path
    return int(found[1]), json.loads(found[2])


def test_the_games_after_the_first_part_are_in_files_beside_the_page(reports, tmp_path,
                                                                    monkeypatch):
    from arena.reports import viewer

    monkeypatch.setattr(viewer, "PART_GAMES", 5)
    db, out = reports
    row = out["seasons"][0]
    with Store(db) as store:
        paths = write_reports(store, row, tmp_path)
        records = [store.record(row.id, game.key) for game in store.games(row.id)]
        games = list(store.games(row.id))
        labels = [store.bot(bot).label for bot in store.entrants(row.id)]
    folder = tmp_path / "report-games"
    assert paths[4:] == [folder, tmp_path / "report.html"]
    assert sorted(folder.iterdir()) == [folder / "part-2.js", folder / "part-3.js"]
    html = paths[-1].read_text(encoding="utf-8")
    data = viewer_data(html)
    assert [game["no"] for game in data["games"]] == [1, 2, 3, 4, 5]
    assert data["parts"] == [[1, 5], [6, 10], [11, 12]] and data["folder"] == "report-games"
    assert "The page holds games 1 to 5; the viewer reads the others from the folder" in html
    dash = "\N{EN DASH}"
    assert re.findall(rf'<option value="(\d)">(\d+{dash}\d+)</option>', html) == [
        ("1", f"1{dash}5"), ("2", f"6{dash}10"), ("3", f"11{dash}12")]
    for path, numbers in ((folder / "part-2.js", range(6, 11)),
                          (folder / "part-3.js", range(11, 13))):
        number, part = part_data(path)
        assert number == int(path.stem.split("-")[1])
        assert part["games"] == [game_view(records[n - 1], games[n - 1], n, labels)
                                 for n in numbers]
        assert [label.split(":")[0] for label in part["labels"]] == [f"Game {n}" for n in numbers]
    matrix = between(html, 'id="pair-matrix"', "</table>")
    first = {}
    for number, game in enumerate(games, 1):
        first.setdefault(frozenset(game.seats), number)
    linked = re.findall(r'<td class="pair"[^>]*><a href="#game=(\d+)">', matrix)
    assert sorted(map(int, linked)) == sorted(2 * list(first.values()))  # a cell each way
    assert max(map(int, linked)) > 5  # a pair's game in a later part is a link too
    monkeypatch.setattr(viewer, "PART_GAMES", 6)
    with Store(db) as store:
        assert write_reports(store, row, tmp_path)[4:] == [folder, tmp_path / "report.html"]
    assert sorted(folder.iterdir()) == [folder / "part-2.js"]  # the stale part-3 is gone
    monkeypatch.setattr(viewer, "PART_GAMES", 300)
    with Store(db) as store:
        assert write_reports(store, row, tmp_path)[4:] == [tmp_path / "report.html"]
    assert not folder.exists()  # the page holds every game again: no folder left over


def test_a_report_that_holds_every_game_writes_no_parts(reports):
    paths = reports[1]["seasons"][1]
    assert not (paths[-1].parent / "report-games").exists()
    assert "parts" not in viewer_data(html_of(reports, "seasons"))


def rows_of_moves(count: int, moves: int) -> list[GameRow]:
    return [GameRow(f"g{i}", 0, 0, 0, i, 1, (0, 1), (0, 1), (1, 0), ("ok", "ok"), "normal",
                    moves, 0.0) for i in range(count)]


def test_a_pairs_interval_and_los_count_each_duplicate_set_once():
    """Half the sets won twice, half lost twice: 40 observations of 0 or 1, not 80
    independent games (their interval covered 0.83-0.87 of the time in a reviewer's
    simulation of such pairs)."""
    rows = []
    for number in range(40):
        won = number % 2 == 0
        for rotation in range(2):
            seats = (0, 1) if rotation == 0 else (1, 0)
            first_won = won
            ranks = (0, 1) if (seats[0] == 0) == first_won else (1, 0)
            rows.append(GameRow(f"r0-t0-s{number}-o{rotation}", 0, 0, number, rotation, number,
                                seats, ranks, (1, 0), ("ok", "ok"), "normal", 10, 0.0))
    pair = pair_results(rows)[0, 1]
    assert (pair.wins, pair.draws, pair.losses) == (40, 0, 40)
    assert pair.sets == (1.0, 0.0) * 20
    assert pair.interval == mean_score_interval(pair.sets)
    games_low, games_high = score_interval(pair.match)
    assert pair.interval[0] < games_low - 0.03 and pair.interval[1] > games_high + 0.03
    assert pair.los == mean_likelihood_of_superiority(pair.sets) == 0.5


def test_at_a_table_of_three_a_pairs_sets_are_its_rotations_on_one_seed():
    rows = [GameRow(f"r0-t0-s{number}-o{rotation}", 0, 0, number, rotation, number,
                    tuple((seat + rotation) % 3 for seat in range(3)),
                    tuple(0 if (seat + rotation) % 3 == number % 3 else 1 for seat in range(3)),
                    (1, 0, 0), ("ok",) * 3, "normal", 10, 0.0)
            for number in range(6) for rotation in range(3)]
    pair = pair_results(rows)[0, 1]
    assert pair.games == 18 and len(pair.sets) == 6
    assert sorted(pair.sets) == [0.0, 0.0, 0.5, 0.5, 1.0, 1.0]


def test_sets_that_kept_fewer_games_weigh_less_so_score_interval_and_los_agree():
    """A set that kept one game (a loss: the others were stopped by a third seat's failure)
    weighed as much as a set of three, and a pair shown ahead by its score had a LOS of
    40 %."""
    rows = []
    for number in range(8):
        stopped = number == 0
        for rotation in range(3):
            seats = tuple((seat + rotation) % 3 for seat in range(3))
            if stopped and rotation > 0:  # bot 2 failed: 0 and 1 not compared there
                ranks = tuple(2 if bot == 2 else 0 for bot in seats)
                statuses = tuple("crash" if bot == 2 else "ok" for bot in seats)
            else:
                winner = 1 if stopped or number % 4 == 1 else 0 if number % 2 == 0 else 2
                ranks = tuple(0 if bot == winner else 1 for bot in seats)
                statuses = ("ok",) * 3
            rows.append(GameRow(f"r0-t0-s{number}-o{rotation}", 0, 0, number, rotation, number,
                                seats, ranks, (1, 0, 0), statuses, "normal", 10, 0.0))
    pair = pair_results(rows)[0, 1]
    assert pair.set_sizes[0] == 1 and set(pair.set_sizes[1:]) == {3}
    units = set_units(pair.sets, pair.set_sizes)
    assert sum(units) / len(units) == pytest.approx(pair.score)
    low, high = pair.interval
    assert low < pair.score < high
    assert (pair.los > 0.5) == (pair.score > 0.5)
    assert set_units((0.25, 1.0), (4, 4)) == [0.25, 1.0]  # sets of one size: their means


def test_long_games_stop_the_viewer_earlier_but_never_before_one_game():
    rows = rows_of_moves(10, 100)
    assert len(shown_rows(rows, max_games=4)) == 4
    assert len(shown_rows(rows, max_games=300, max_moves=350)) == 3
    assert len(shown_rows(rows, max_games=300, max_moves=10)) == 1
    assert shown_rows([], max_games=3) == []


def test_the_viewer_s_parts_hold_every_game_in_order_within_their_limits():
    rows = rows_of_moves(10, 100)
    assert parts(rows, games=4) == [range(1, 5), range(5, 9), range(9, 11)]
    assert parts(rows, games=300, moves=350) == [range(1, 4), range(4, 7), range(7, 10),
                                                 range(10, 11)]
    assert parts(rows, games=300, moves=10) == [range(n, n + 1) for n in range(1, 11)]
    assert parts([], games=3) == []


def test_the_viewer_holds_games_up_to_its_total_of_moves_the_first_part_always():
    rows = rows_of_moves(10, 100)
    assert parts(rows, games=3, total_moves=750) == [range(1, 4), range(4, 7), range(7, 8)]
    assert parts(rows, games=3, total_moves=50) == [range(1, 4)]


def test_arena_report_writes_the_latest_tournament(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.chdir(ROOT)
    config = tmp_path / "t.yaml"
    config.write_text("name: rep\ngame: seasons\nbots: [bots/seasons/greedy.py, "
                      "bots/seasons/random_bot.py]\ngames_per_pairing: 2\nworkers: 1\n")
    db = str(tmp_path / "a.db")
    ran = CliRunner().invoke(cli, ["run", str(config), "--db", db, "--output",
                                   str(tmp_path / "run"), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    assert (tmp_path / "run" / "report.html").exists()
    result = CliRunner().invoke(cli, ["report", "--db", db, "--out", str(tmp_path / "again")])
    assert result.exit_code == 0, result.output
    assert "report.html" in result.output and (tmp_path / "again" / "pairs.csv").exists()
    missing = CliRunner().invoke(cli, ["report", "nope", "--db", db])
    assert missing.exit_code == 1 and "no tournament 'nope'" in missing.output


def test_links_in_a_prepared_output_folder_are_replaced_never_written_through(
        tmp_path, monkeypatch):
    """A tournament kit whose output folder held links to the organizer's files had them
    overwritten by the standings and the log. Replays exported into a folder with links, and
    a viewer page written where a link is, replace them too."""
    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.chdir(ROOT)
    victim = tmp_path / "bashrc"
    victim.write_text("keep me\n")
    out = tmp_path / "kit" / "out"
    (out / "replays").mkdir(parents=True)
    names = ("standings.csv", "ratings.csv", "pairs.csv", "games.csv", "report.html",
             "arena.log", "replays/0001-r0-t0-s0-o0.json", "replays/replays.html")
    for name in names:
        (out / name).symlink_to(victim)
    (out / "report-games").symlink_to(tmp_path)
    config = tmp_path / "kit" / "t.yaml"
    config.write_text("name: kit\ngame: seasons\nbots: [bots/seasons/greedy.py, "
                      "bots/seasons/random_bot.py]\ngames_per_pairing: 2\nworkers: 1\n")
    db = str(tmp_path / "a.db")
    (tmp_path / "a.db.runs").mkdir()
    (tmp_path / "a.db.runs" / "1.lock").symlink_to(victim)  # the run's claim on its tournament
    ran = CliRunner().invoke(cli, ["run", str(config), "--db", db, "--output", str(out),
                                   "--no-progress"])
    assert ran.exit_code == 0, ran.output
    exported = CliRunner().invoke(cli, ["export", "--db", db, "--out", str(out / "replays")])
    assert exported.exit_code == 0, exported.output
    viewed = CliRunner().invoke(cli, ["view", str(out / "replays")])
    assert viewed.exit_code == 0, viewed.output
    assert victim.read_text() == "keep me\n"
    assert not any((out / name).is_symlink() for name in names)
    assert "place,bot" in (out / "standings.csv").read_text()
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE((out / "standings.csv").stat().st_mode) == 0o666 & ~umask
    assert not (out / "replays" / "replays.html").is_symlink()


# -- the reports of the scenarios: failures, Swiss, many bots ------------------------------


def report_html(tmp_path_factory, name: str) -> str:
    return built(tmp_path_factory, name)[1].read_text(encoding="utf-8")


def between(html: str, start: str, end: str) -> str:
    return html.split(start, 1)[1].split(end, 1)[0]


def visible_text(fragment: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment)).strip()


def test_swiss_standings_show_byes_and_buchholz(tmp_path_factory):
    db, page = built(tmp_path_factory, "swiss-5")
    html = page.read_text(encoding="utf-8")
    leaderboard = between(html, 'id="leaderboard-table"', "</table>")
    heads = [visible_text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", leaderboard)]
    assert "Byes" in heads and "Buchholz" in heads
    byes_at, buchholz_at = heads.index("Byes"), heads.index("Buchholz")
    with Store(db) as store:
        row = store.find_tournament("swiss-5")
        config = stored_config(row)
        labels = [bot.label for bot in build_model(store, row).bots]
        expected = standings(store, row.id, labels, config)
    assert sum(r.byes for r in expected) == 3 and any(r.buchholz for r in expected)
    rows = re.findall(r"<tr data-bot=.*?</tr>", leaderboard, re.S)
    assert len(rows) == 5
    for line, result in zip(rows, expected, strict=True):
        cells = [visible_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", line, re.S)]
        assert cells[byes_at] == str(result.byes)
        assert cells[buchholz_at] == f"{result.buchholz:.1f}"


def test_round_robin_standings_have_no_swiss_columns(reports):
    leaderboard = between(html_of(reports, "seasons"), 'id="leaderboard-table"', "</table>")
    assert "Buchholz" not in leaderboard and ">Byes<" not in leaderboard


def test_failures_are_listed_per_bot_with_their_escaped_detail_and_games(tmp_path_factory):
    db, page = built(tmp_path_factory, "seasons-2")
    html = page.read_text(encoding="utf-8")
    with Store(db) as store:
        rows = list(store.games(store.find_tournament("seasons-2").id))
    crashed = [n for n, row in enumerate(rows, 1) if "crash" in row.statuses]
    assert crashed and len(crashed) < len(rows)
    panel = between(html, 'id="failures-1"', "</article>")
    assert f"lost {len(crashed)} games: {len(crashed)} crash" in visible_text(panel)
    assert panel.count('class="failure"') == 1  # the same crash every time: one group
    summary = re.search(r'<code class="summary">(.*?)</code>', panel)
    assert summary and summary[1] == (
        "act() raised KeyError: &#34;&lt;script&gt;alert(&#39;crash&#39;)&lt;/script&gt;&#34;")
    assert re.findall(r'href="#game=(\d+)"', panel) == [str(n) for n in crashed]
    detail = between(panel, "<pre>", "</pre>")
    assert "--- stderr ---" in detail and "about to fail &lt;script&gt;" in detail
    assert "report_crasher.py&#34;, line" in detail and "raise KeyError(HOSTILE)" in detail
    assert "<script>alert" not in html and html.count("<script") == 3


def test_failures_of_several_kinds_are_grouped_by_kind(tmp_path_factory):
    html = report_html(tmp_path_factory, "seasons-8")
    crasher = visible_text(between(html, 'id="failures-1"', "</article>"))
    illegal = between(html, 'id="failures-3"', "</article>")
    assert "crash" in crasher and "illegal-action" not in crasher
    assert re.search(r'<span class="status status-illegal-action">illegal-action</span>'
                     r'<span class="times">(\d+) ×</span>', illegal)
    assert "is not a legal action" in visible_text(illegal)
    assert "and 12 more" in visible_text(illegal)  # 42 games, the first 30 listed
    assert len(re.findall(r'href="#game=\d+"', illegal)) == 30


def test_failure_groups_join_details_that_differ_only_in_numbers():
    def row(key: str, statuses: tuple[str, str], seats=(0, 1)) -> GameRow:
        return GameRow(key, 0, 0, 0, 0, 1, seats, (1, 0), (0, 1), statuses, "crash", 5, 0.0)

    rows = [row("a", ("timeout", "ok")), row("b", ("ok", "ok")), row("c", ("crash", "ok")),
            row("d", ("timeout", "ok")), row("e", ("crash", "ok"), seats=(1, 0))]
    details = {"a": ["took 5.310 s for a decision (limit 5.0 s)", ""], "b": ["", ""],
               "c": ["act() raised ValueError: no\nTraceback ...", ""],
               "d": ["took 7.002 s for a decision (limit 5.0 s)", ""],
               "e": ["act() raised ValueError: no\nTraceback ...", ""]}
    read: list[str] = []

    def seat_details(game: GameRow) -> list[str]:
        read.append(game.key)
        return details[game.key]

    groups = failure_groups(seat_details, rows)
    assert "b" not in read  # a game without a failure is not read
    timeouts, crashes = groups[0]
    assert (timeouts.status, timeouts.games, timeouts.same_text) == ("timeout", (1, 4), False)
    assert timeouts.summary == "took 5.310 s for a decision (limit 5.0 s)"
    assert (crashes.games, crashes.body) == ((3,), "Traceback ...")
    assert groups[1][0].games == (5,) and groups[1][0].same_text


def test_pair_matrix_headers_have_a_number_key_and_the_full_name(tmp_path_factory):
    html = report_html(tmp_path_factory, "seasons-8")
    matrix = between(html, 'id="pair-matrix"', "</table>")
    heads = re.findall(r'<th class="col" scope="col" title="([^"]*)"[^>]*>(.*?)</th>', matrix)
    rows = re.findall(r'<th class="row" scope="row" title="([^"]*)"', matrix)
    leaderboard = between(html, 'id="leaderboard-table"', "</table>")
    names = [name.replace("<wbr>", "") for name in re.findall(
        r'class="left bot pin-bot" title="[^"]*"><span class="dot"[^>]*></span>'
        r'((?:[^<]|<wbr>)+)', leaderboard)]
    assert len(heads) == len(rows) == len(names) == 8
    for place, ((title, inner), row_title) in enumerate(zip(heads, rows, strict=True), 1):
        assert title == row_title and title.startswith(f"{place}. {names[place - 1].strip()}@")
        name = re.search(r'<span class="col-name">([^<]*)</span>', inner)
        assert name and name[1] == title.split(". ", 1)[1]  # the full label, not cut
        assert visible_text(inner).endswith(str(place))
    assert len({visible_text(inner) for _, inner in heads}) == 8


def test_score_text_shows_every_score_above_zero():
    assert percent(0.517) == "51.7 %" and percent(0.01) == "1.0 %"
    assert percent(0.0001) == "< 0.1 %" and percent(0.0) == "0.0 %" and percent(1.0) == "100.0 %"


def test_score_bars_are_drawn_to_their_score_in_the_bots_colour(tmp_path_factory):
    html = report_html(tmp_path_factory, "seasons-8")
    leaderboard = between(html, 'id="leaderboard-table"', "</table>")
    rows = re.findall(r"<tr data-bot=.*?</tr>", leaderboard, re.S)
    for line in rows:
        dot = re.search(r'class="dot" style="background: (#[0-9a-f]{6})"', line)
        bar = re.search(r'<td data-sort="([\d.e-]+)" class="score-cell"><span class="score-bar"'
                        r'[^>]*><span class="score-fill( zero)?" style="width: ([\d.]+)%; '
                        r'background: (#[0-9a-f]{6})"></span></span>'
                        r'<span class="score-value">([^<]+)</span>', line)
        assert dot and bar, line
        score = float(bar[1])
        assert float(bar[3]) == pytest.approx(100 * score, abs=0.01)
        assert bar[4] == dot[1] and (bar[2] is not None) == (score == 0)
        assert bar[5] == percent(score)


def test_spread_labels_never_overlap_and_stay_near_their_lines():
    assert spread([37.2, 37.3, 37.4], 1.0, 0, 40) == pytest.approx([36.3, 37.3, 38.3])
    assert spread([5.0, 20.0], 1.0, 0, 40) == [5.0, 20.0]  # apart already: unmoved
    assert spread([40.0, 40.0], 1.0, 0, 40) == [39.0, 40.0]  # kept below the top
    assert spread([0.0, 0.0], 1.0, 0, 40) == [0.0, 1.0]


@given(st.lists(st.floats(0, 100), min_size=1, max_size=30), st.floats(0.1, 3))
def test_spread_keeps_every_two_labels_a_gap_apart_within_the_bounds(values, gap):
    placed = spread(values, gap, 0.0, 100.0)
    ordered = sorted(placed)
    assert all(b - a >= gap - 1e-9 for a, b in itertools.pairwise(ordered))
    if gap * (len(values) - 1) <= 100:
        assert ordered[0] >= -1e-9 and ordered[-1] <= 100.0 + 1e-9
    assert [placed[i] for i in sorted(range(len(values)), key=lambda i: values[i])] == ordered


def test_the_charts_name_the_best_bots_and_draw_all_in_their_colours(tmp_path_factory):
    db, page = built(tmp_path_factory, "seasons-32")
    html = page.read_text(encoding="utf-8")
    progress = re.search(r'<svg [^>]*class="chart chart-progress wide".*?</svg>', html, re.S)
    assert progress
    with Store(db) as store:
        model = build_model(store, store.find_tournament("seasons-32"))
    best = model.rating_order()
    named = re.findall(r'<g id="progress-label-(\d+)">', progress[0])
    assert sorted(map(int, named)) == sorted(bot.index for bot in best[:HIGHLIGHTED])
    for bot in best:  # every bot's line, in its colour, named on hover
        line = re.search(rf'<g id="progress-line-{bot.index}"><title>([^<]*)</title>'
                         rf'.*?stroke: {bot.colour}', progress[0], re.S)
        assert line and line[1].startswith(bot.label + ": μ ")
    assert "legend" not in progress[0]
    versions = re.search(r'<svg [^>]*class="chart chart-versions wide".*?</svg>', html, re.S)
    assert versions and 1 <= len(re.findall(r'<g id="versions-label-\d+">', versions[0])) <= 8


def test_the_seasons_viewer_draws_the_two_circles(reports):
    html = html_of(reports, "seasons")
    board = between(html, '<svg class="seasons-board"', "</svg>")
    fields = re.findall(r'<g class="field empty" data-seat="(\d)" data-sector="(\d+)">', board)
    assert sorted(fields) == sorted((str(seat), str(i)) for seat in "01" for i in range(11))
    names = re.findall(r'<text class="sector-name[^>]*><title>[^<]*</title>([^<]+)</text>', board)
    assert names == ["Max-5", "Max-8", "Max-9", "Max-10", "Max-13", "Max-15",
                     "min-9", "min-10", "min-11", "min-13", "min-17"]
    centre = seasons_board.CENTRE
    distance = {(f.seat, f.sector): math.hypot(f.x - centre, f.y - centre)
                for f in seasons_board.fields()}
    assert all(distance[0, i] > distance[1, i] + 30 for i in range(11))  # seat 0 outside
    assert 'class="circles"' not in html  # no table of the circles any more


def test_one_colour_per_bot_in_the_data_the_matrix_and_the_viewer(tmp_path_factory):
    html = report_html(tmp_path_factory, "sonnentau-4")
    data = viewer_data(html)
    assert "colours" not in data["layout"] and "names" not in data["layout"]
    leaderboard = between(html, 'id="leaderboard-table"', "</table>")
    dots = dict(re.findall(r'<tr data-bot="(\d+)">.*?class="dot" style="background: '
                           r'(#[0-9a-f]{6})"', leaderboard, re.S))
    assert {int(k): v for k, v in dots.items()} == {
        i: bot["colour"] for i, bot in enumerate(data["bots"])}
    assert len(set(dots.values())) == 4
    matrix = between(html, 'id="pair-matrix"', "</table>")
    heads = re.findall(r'<th class="(?:row|col)" scope="(?:row|col)" title="[^"]*" '
                       r'data-bot="(\d+)">.*?class="dot" style="background: (#[0-9a-f]{6})"',
                       matrix, re.S)
    assert len(heads) == 8 and all(dots[index] == colour for index, colour in heads)


def test_a_report_before_the_first_game_says_so(reports):
    db, out = reports
    with Store(db) as store:
        model = build_model(store, out["seasons"][0])
        html = render_html(store, dataclasses.replace(model, rows=(), failures={}))
    assert html.count("No games were played yet.") == 3  # two charts and the viewer
    assert 'id="game-viewer"' not in html and "<svg" not in html




def test_rating_across_versions_shows_only_the_tournaments_its_bots_played(tmp_path,
                                                                          monkeypatch):
    """A report of two bots, in a database of 32-bot round robins they were not in: its
    versions chart has its own tournaments on its axis, not the others'."""
    monkeypatch.chdir(ROOT)
    db = tmp_path / "arena.db"
    ours = ["bots/seasons/greedy.py", "bots/seasons/random_bot.py"]
    others = [{"spec": "bots/seasons/random_bot.py", "name": f"other-{i}"} for i in range(3)]
    with Store(db) as store:
        for seed, (name, bots) in enumerate((("ours-1", ours), ("others", others),
                                             ("ours-2", ours))):  # other seeds: no replays
            run_tournament(parse_config({"name": name, "game": "seasons", "seed": seed,
                                         "workers": 1, "isolation": "none", "bots": bots,
                                         "db": str(db)}), store)
        history = build_model(store, store.find_tournament("ours-2")).history
        alone = build_model(store, store.find_tournament("others")).history
    assert history.tournaments == ("ours-1", "ours-2") and history.current == 1
    assert {point.tournament for points in history.series.values() for point in points} == {0, 1}
    assert alone.tournaments == ("others",) and alone.current == 0


def test_a_name_in_letters_the_chart_font_lacks_draws_without_a_warning():
    """Bots named in CJK or emoji flooded `arena run`'s stderr with some 30 matplotlib
    warnings (\"Glyph 26085 missing from font(s) DejaVu Sans\"); the SVG keeps the text as
    text, which the browser draws with its own fonts."""
    import warnings

    from arena.reports.charts import chart, to_svg

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with chart("glyphs") as (figure, ax):
            ax.plot([0, 1], [0, 1])
            ax.set_title("Straße_日本語ボット_🎲🎲")
            svg = to_svg(figure, "glyphs", "a chart")
    assert "日本語ボット" in svg


def test_a_bot_with_a_bye_alone_shows_no_score_means_or_rating(tmp_path):
    """A Swiss of three bots for one round: one sits out with a bye. Its score, means and
    rating read ``—`` in the report, as in the standings, not 0.0 % and a mean rank of 0;
    it comes last in ratings.csv with empty rating cells, not above a rated bot."""
    from report_scenarios import play, seasons_bots

    page = play(tmp_path / "arena.db", tmp_path / "out", {
        "name": "bye", "game": "seasons", "format": "swiss", "rounds": 1,
        "games_per_pairing": 1, "bots": seasons_bots(3)})
    html = page.read_text(encoding="utf-8")
    leaderboard = between(html, 'id="leaderboard-table"', "</table>")
    heads = [visible_text(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", leaderboard)]
    rows = re.findall(r"<tr data-bot=.*?</tr>", leaderboard, re.S)
    cells = [[visible_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
             for row in rows]
    idle = [row for row in cells if row[heads.index("Games")] == "0"]
    assert len(idle) == 1
    shown = dict(zip(heads, idle[0], strict=True))
    assert shown["Byes"] == "1"
    assert [shown[h] for h in ("μ", "σ", "μ−3σ", "Score", "Mean score", "Mean rank")] == [
        "—"] * 6, shown
    ratings = list(csv.DictReader((page.parent / "ratings.csv").open(encoding="utf-8")))
    assert ratings[-1]["games"] == "0" and ratings[-1]["mu_minus_3sigma"] == ""
    assert all(row["mu_minus_3sigma"] for row in ratings[:-1])
