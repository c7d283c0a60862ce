"""Versions across tournaments: arena ratings, history and compare."""

import sqlite3

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.results.store import Store
from arena.results.versions import leaderboard
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

GREEDY = "bots/seasons/greedy.py"
RANDOM = "bots/seasons/random_bot.py"


@pytest.fixture(autouse=True)
def at_root(root, monkeypatch):
    monkeypatch.chdir(root)


@pytest.fixture
def db(tmp_path):
    """Two tournaments: greedy version 1 (rerolls) and version 2 (keeps), each vs random."""
    path = tmp_path / "arena.db"
    versions = [("v1-vs-random", "1", {}), ("v2-vs-random", "2", {"rerolls": False})]
    for name, version, params in versions:
        config = parse_config({
            "name": name, "game": "seasons", "seed": 3, "workers": 1, "db": str(path),
            "games_per_pairing": 6,
            "bots": [{"spec": GREEDY, "name": "greedy", "version": version, "params": params},
                     RANDOM]})
        with Store(path) as store:
            run_tournament(config, store)
    return str(path)


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_both_versions_side_by_side_in_the_leaderboard(db):
    result = run("ratings", "--db", db)
    assert result.exit_code == 0, result.output
    assert "seasons (trueskill, 3 versions)" in result.output
    lines = [line.split() for line in result.output.splitlines()[2:]]
    assert {(row[1], row[2]) for row in lines} == {("greedy", "1"), ("greedy", "2"),
                                                   ("random", "1.0")}
    greedy_rows = [row for row in lines if row[1] == "greedy"]
    assert all(row[6] == "12" for row in greedy_rows)  # games


def test_ratings_are_stored_with_the_system_that_made_them(db):
    run("ratings", "--db", db, "--system", "openskill", "--game", "seasons")
    rows = sqlite3.connect(db).execute("SELECT DISTINCT system, game FROM ratings").fetchall()
    assert rows == [("openskill", "seasons")]


def test_history_shows_each_version_after_each_tournament(db):
    result = run("history", "greedy", "--db", db)
    assert result.exit_code == 0, result.output
    assert "greedy in seasons (trueskill)" in result.output
    rows = [line.split() for line in result.output.splitlines()[2:]]
    assert [(r[0], r[1]) for r in rows] == [("1", "v1-vs-random"), ("2", "v2-vs-random")]
    random_rows = run("history", "random", "--db", db).output.splitlines()[2:]
    assert len(random_rows) == 2  # random played both tournaments
    assert run("history", "nobody", "--db", db).exit_code == 1


def test_leaderboard_does_not_depend_on_worker_count(tmp_path):
    boards = []
    for workers in (1, 2):
        path = tmp_path / f"w{workers}.db"
        config = parse_config({"name": "t", "game": "seasons", "workers": workers,
                               "db": str(path), "games_per_pairing": 5,
                               "bots": [GREEDY, RANDOM,
                                        {"spec": GREEDY, "name": "keep",
                                         "params": {"rerolls": False}}]})
        with Store(path) as store:
            run_tournament(config, store)
            boards.append([(row.bot.identity.label, row.rating)
                           for row in leaderboard(store, "seasons")])
    assert boards[0] == boards[1]


def test_compare_needs_meetings_or_plays_pairs(db):
    unmet = run("compare", "greedy@1", "greedy@2", "--db", db)
    assert unmet.exit_code == 1 and "have not met" in unmet.output
    played = run("compare", "greedy@1", "greedy@2", "--db", db, "--games", "6",
                 "--workers", "1", "--no-progress")
    assert played.exit_code == 0, played.output
    assert "greedy@1 vs greedy@2: 12 games" in played.output
    assert "Elo" in played.output and "LOS" in played.output
    assert "6 seat-swapped pairs" in played.output
    stored = run("compare", "greedy@1", "greedy@2", "--db", db)
    assert stored.output.splitlines()[0] == played.output.splitlines()[0]
    greedy_games = [line.split()[6] for line in run("ratings", "--db", db).output.splitlines()
                    if " greedy " in line]
    assert greedy_games == ["24", "24"]  # the compare games count in the ratings


def test_compare_with_sprt_stops_at_a_bound(db):
    result = run("compare", "greedy@1", "random@1.0", "--db", db, "--sprt", "--elo1", "200",
                 "--workers", "1", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "SPRT: LLR" in result.output and "H1 accepted" in result.output
    games = int(result.output.split(": ")[1].split()[0])
    assert games < 2 * 5000


def test_compare_errors(db):
    assert "NAME@VERSION" in run("compare", "greedy", "greedy@2", "--db", db).output
    missing = run("compare", "greedy@9", "greedy@2", "--db", db)
    assert missing.exit_code == 1 and "known versions: 1, 2" in missing.output
    assert "no results database" in run("ratings", "--db", "/nonexistent/x.db").output
