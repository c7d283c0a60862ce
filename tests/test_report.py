"""Reports: the CSV files and the self-contained HTML page (no browser needed)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from arena.games import find_game
from arena.games.sonnentau import default_board
from arena.referee.record import replay
from arena.reports import write_reports
from arena.reports.csv_export import PAIR_COLUMNS, RATING_COLUMNS
from arena.reports.html import heat, script_json
from arena.reports.model import pair_results, stored_config
from arena.reports.viewer import SNAPSHOTS, game_view, shown_rows
from arena.results.ratings import RatedGame, RatingSettings, RatingTable, make_rater
from arena.results.store import GameRow, Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

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
        if p["elo"] not in ("inf", "-inf"):
            assert float(p["elo"]) == pytest.approx(-float(other["elo"]), abs=0.11)


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
    assert len(re.findall(r"<svg [^>]*class=\"chart chart-(progress|versions)\"", html)) == 2
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


def test_the_viewer_holds_every_game_with_moves_deltas_and_notation(reports):
    db, out = reports
    row, paths = out["seasons"]
    data = viewer_data(paths[4].read_text(encoding="utf-8"))
    assert data["game"] == "seasons" and len(data["games"]) == 12
    with Store(db) as store:
        keys = [g.key for g in store.games(row.id)]
    assert [g["k"] for g in data["games"]] == keys
    first = data["games"][0]
    moves = first["a"].split(" ")
    assert len(moves) == len(first["d"]) == len(first["z"])
    assert first["n"][-1].startswith("Result: ")
    assert len(first["ts"]) == len(first["n"]) - 1
    assert data["layout"]["initial"]["s"] == [0, 0]
    options = re.findall(r'<option value="\d+">([^<]*)</option>', paths[4].read_text("utf-8"))
    assert len(options) == 12 and options[0].startswith(keys[0] + ": ")


@pytest.mark.parametrize("game", ["seasons", "sonnentau"])
def test_applying_the_deltas_gives_the_replayed_position(reports, game):
    db, out = reports
    row, _paths = out[game]
    with Store(db) as store:
        rows = list(store.games(row.id))
        record = store.record(row.id, rows[-1].key)
    view = game_view(record, rows[-1])
    state = find_game(game).initial_state(record.options)
    position = SNAPSHOTS[game](state)
    for number, change in enumerate(view["d"], 1):
        position.update(change)
        if number in (1, len(view["d"]) // 2):
            assert position == SNAPSHOTS[game](replay(record, upto=number))
    assert position == SNAPSHOTS[game](replay(record))


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


def test_the_viewer_is_capped_and_says_so(reports, tmp_path, monkeypatch):
    from arena.reports import viewer

    monkeypatch.setattr(viewer, "MAX_GAMES", 5)
    db, out = reports
    with Store(db) as store:
        paths = write_reports(store, out["seasons"][0], tmp_path)
    html = paths[-1].read_text(encoding="utf-8")
    assert len(viewer_data(html)["games"]) == 5
    assert "This tournament has 12 games; the viewer holds the first 5" in html


def test_long_games_stop_the_viewer_earlier_but_never_before_one_game():
    rows = [GameRow(f"g{i}", 0, 0, 0, i, 1, (0, 1), (0, 1), (1, 0), ("ok", "ok"), "normal",
                    100, 0.0) for i in range(10)]
    assert len(shown_rows(rows, max_games=4)) == 4
    assert len(shown_rows(rows, max_games=300, max_moves=350)) == 3
    assert len(shown_rows(rows, max_games=300, max_moves=10)) == 1
    assert shown_rows([], max_games=3) == []


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
