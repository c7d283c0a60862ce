"""Versions across tournaments: arena ratings, history and compare."""

import itertools
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
            "games_per_pairing": 6, "isolation": "none",
            "bots": [{"spec": GREEDY, "name": "greedy", "version": version, "params": params},
                     RANDOM]})
        with Store(path) as store:
            run_tournament(config, store)
    return str(path)


def run(*args):
    return CliRunner().invoke(cli, list(args))


def label(db, text, game="seasons"):
    """The label the database gives the bot named ``text`` (``greedy@1`` is
    ``greedy@1+`` and the start of its code hash)."""
    with Store(db) as store:
        return store.find_bot(game, text).label


def rows_of(output):
    """The cells of each row of every table in ``output`` (the lines after a rule)."""
    rows, inside = [], False
    for line in output.splitlines():
        if set(line.strip()) <= {"-", " "} and line.strip():
            inside = True
        elif not line.startswith("  "):
            inside = False
        elif inside:
            rows.append(line.split())
    return rows


def test_both_versions_side_by_side_in_the_leaderboard(db):
    result = run("ratings", "--db", db)
    assert result.exit_code == 0, result.output
    assert "seasons, 2 players (trueskill, 3 bots)" in result.output
    lines = rows_of(result.output)
    assert {row[1] for row in lines} == {label(db, text) for text in ("greedy@1", "greedy@2",
                                                                      "random")}
    assert all(row[1].startswith(("greedy@1+", "greedy@2+", "random@1.0+")) for row in lines)
    greedy_rows = [row for row in lines if row[1].startswith("greedy")]
    assert all(row[5] == "12" for row in greedy_rows)  # games


def test_columns_stay_aligned_with_long_names(tmp_path):
    path, long_name = tmp_path / "a.db", "a-bot-with-a-name-far-longer-than-twenty"
    config = parse_config({"name": "long", "game": "seasons", "seed": 3, "workers": 1,
                           "db": str(path), "bots": [{"spec": GREEDY, "name": long_name},
                                                     RANDOM]})
    with Store(path) as store:
        run_tournament(config, store)
    import re

    for output in (run("ratings", "--db", str(path)).output,
                   run("history", long_name, "--db", str(path)).output):
        lines = output.splitlines()
        rules = [i for i, line in enumerate(lines)
                 if line.strip() and set(line.strip()) <= {"-", " "}]
        if rules[1:2] == [rules[0] + 1]:  # too wide for 80 columns: numbers below each name
            parts = [(lines[rules[0]], [lines[rules[0] - 2], *lines[rules[1] + 1::2]]),
                     (lines[rules[1]], [lines[rules[0] - 1], *lines[rules[1] + 2::2]])]
        else:
            parts = [(lines[rules[0]], [lines[rules[0] - 1], *lines[rules[0] + 1:]])]
        for rule, rows in parts:  # every cell within its column
            spans = [m.span() for m in re.finditer("-+", rule)]
            for line in rows:
                cells = [line[start:end].strip() for start, end in spans]
                assert " ".join(cells).split() == line.split(), (rule, line)
                assert all(cells) or not cells[0], line  # or a name's second line
        assert max(map(len, lines)) <= 80
    shown = run("ratings", "--db", str(path)).output  # the name whole, over two lines
    pieces = [line.split()[1] if line.split()[0] == "1" else line.strip()
              for line in shown.splitlines()[3:6]]
    assert "".join(pieces).startswith(long_name + "@1.0+"), shown  # whole, over its lines


def test_variants_are_rated_apart_unless_pooled(tmp_path):
    path = tmp_path / "v.db"
    bots = ["bots/sonnentau/random_bot.py", "bots/sonnentau/heuristic.py"]
    four = [*bots, {"spec": bots[0], "name": "random2"}, {"spec": bots[1], "name": "heuristic2"}]
    for name, seats, dice, entrants in (("duel", 2, "miwin", bots),
                                        ("four", 4, "standard", four)):
        config = parse_config({"name": name, "game": "sonnentau", "seed": 1, "workers": 1,
                               "isolation": "none", "db": str(path), "seats": seats,
                               "options": {"dice": dice}, "bots": entrants})
        with Store(path) as store:
            run_tournament(config, store)
    apart = run("ratings", "--db", str(path)).output
    assert "sonnentau, 2 players, dice miwin (trueskill, 2 bots)" in apart
    assert "sonnentau, 4 players, dice standard (trueskill, 4 bots)" in apart
    duel_games = 2  # one set of two seat rotations per pairing
    assert [row[5] for row in rows_of(apart)][:2] == [str(duel_games)] * 2
    pooled = run("ratings", "--db", str(path), "--pool").output
    assert "sonnentau, all variants pooled (trueskill, 4 bots)" in pooled
    random_row = next(row for row in rows_of(pooled)
                      if row[1] == label(path, "random", "sonnentau"))
    assert int(random_row[5]) > duel_games
    with Store(path) as store:
        assert {row[0] for row in store.db.execute("SELECT variant FROM ratings")} >= {"all"}


def test_ratings_are_stored_with_the_system_that_made_them(db):
    run("ratings", "--db", db, "--system", "openskill", "--game", "seasons")
    rows = sqlite3.connect(db).execute("SELECT DISTINCT system, game FROM ratings").fetchall()
    assert rows == [("openskill", "seasons")]


def test_history_shows_each_version_after_each_tournament(db):
    result = run("history", "greedy", "--db", db)
    assert result.exit_code == 0, result.output
    assert "greedy in seasons, 2 players (trueskill)" in result.output
    rows = rows_of(result.output)
    assert [(r[0], r[1]) for r in rows] == [
        (label(db, f"greedy@{v}").partition("@")[2], f"v{v}-vs-random") for v in (1, 2)]
    random_rows = rows_of(run("history", "random", "--db", db).output)
    assert len(random_rows) == 2  # random played both tournaments
    assert run("history", "nobody", "--db", db).exit_code == 1


def test_leaderboard_does_not_depend_on_worker_count(tmp_path):
    boards = []
    for workers in (1, 2):
        path = tmp_path / f"w{workers}.db"
        config = parse_config({"name": "t", "game": "seasons", "workers": workers,
                               "isolation": "none", "db": str(path), "games_per_pairing": 5,
                               "bots": [GREEDY, RANDOM,
                                        {"spec": GREEDY, "name": "keep",
                                         "params": {"rerolls": False}}]})
        with Store(path) as store:
            run_tournament(config, store)
            boards.append([(row.bot.identity.label, row.rating)
                           for row in leaderboard(store, "seasons")])
    assert boards[0] == boards[1]


def test_compare_says_why_versions_on_other_dice_cannot_be_paired_and_plays_pairs(db):
    """Two versions get other dice (the version keys the seeds): nothing to pair through
    their common opponent until they play each other."""
    first, second = label(db, "greedy@1"), label(db, "greedy@2")
    unmet = run("compare", "greedy@1", "greedy@2", "--db", db)
    assert unmet.exit_code == 1
    said = " ".join(unmet.output.split())
    assert f"{first} and {second} have not met in {db}" in said
    assert f"though both played {label(db, 'random')}" in said and "--games N" in said
    played = run("compare", "greedy@1", "greedy@2", "--db", db, "--games", "6",
                 "--workers", "1", "--no-progress")
    assert played.exit_code == 0, played.output
    assert f"{first} vs {second}: 12 games" in played.output
    assert "Elo" in played.output and "LOS" in played.output
    assert "6 seat-swapped pairs" in played.output
    stored = run("compare", "greedy@1", "greedy@2", "--db", db)
    assert stored.output.splitlines()[0] == played.output.splitlines()[0]
    assert "through common opponents" not in stored.output
    greedy_games = [row[5] for row in rows_of(run("ratings", "--db", db).output)
                    if row[1].startswith("greedy")]
    assert greedy_games == ["24", "24"]  # the compare games count in the ratings
    fewer = run("compare", "greedy@1", "greedy@2", "--db", db, "--games", "3",
                "--workers", "1", "--no-progress")  # was refused: 6 pairs were stored
    assert fewer.exit_code == 0, fewer.output
    assert f"{first} vs {second}: 6 games" in fewer.output and "3 seat-swapped pairs" in \
        fewer.output
    assert [row[5] for row in rows_of(run("ratings", "--db", db).output)
            if row[1].startswith("greedy")] == ["24", "24"]  # nothing more was played
    more = run("compare", "greedy@1", "greedy@2", "--db", db, "--games", "8",
               "--workers", "1", "--no-progress")
    assert f"{first} vs {second}: 16 games" in more.output
    assert [row[5] for row in rows_of(run("ratings", "--db", db).output)
            if row[1].startswith("greedy")] == ["28", "28"]  # the 2 pairs not stored yet


def test_an_sprt_stopped_by_the_games_cap_says_it_decided_nothing(db):
    """It ended on "continue", as if it went on."""
    result = run("compare", "greedy@1", "greedy@2", "--db", db, "--sprt", "--elo0", "-5",
                 "--elo1", "5", "--games", "2", "--workers", "1", "--no-progress")
    assert result.exit_code == 0, result.output
    shown = " ".join(result.output.split())
    assert ": continue" in shown
    assert "no decision within 2 pairs (--games): run again with a larger --games" in shown


def test_compare_with_sprt_stops_at_a_bound_and_says_where_it_stands(db):
    from arena.results.stats import SprtSettings
    from arena.tournaments.matches import play_comparison
    from arena.tournaments.runner import Progress

    result = run("compare", "greedy@1", "random", "--db", db, "--sprt", "--elo1", "200",
                 "--workers", "1", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "at most 5000 pairs" in result.output  # the cap is said, not hidden
    assert "SPRT: LLR" in result.output and "H1 accepted" in result.output
    games = int(result.output.split(f"{label(db, 'random')}: ")[1].split()[0])
    assert games < 2 * 5000
    seen = []
    progress = Progress(status=seen.append)
    with Store(db) as store:
        bots = [store.find_bot("seasons", text) for text in ("greedy@2", "random")]
        play_comparison(store, "seasons", *bots, pairs=40, seed=5, workers=1, db=db,
                        settings=SprtSettings(0, 200), progress=progress)
    assert seen and all(text.startswith("LLR ") and "(-2.94, 2.94)" in text for text in seen)
    llrs = [float(text.split()[1]) for text in seen]
    assert len(set(llrs)) == len(llrs)  # it moves as the pairs come in


def test_elo_of_a_clean_sweep_is_a_bound_not_infinity():
    from arena.results.comparison import Comparison
    from arena.results.stats import MatchScore, Pentanomial

    text = "\n".join(Comparison("a", "b", MatchScore(12, 0, 0), Pentanomial((0, 0, 0, 0, 6))
                                ).lines())
    assert "inf" not in text and "Elo above +" in text and "every game won" in text
    lost = "\n".join(Comparison("a", "b", MatchScore(0, 0, 12), Pentanomial((6, 0, 0, 0, 0))
                                ).lines())
    assert "Elo below -" in lost and "inf" not in lost


def test_compares_score_interval_and_los_count_each_duplicate_set_once():
    """Sets won twice and sets lost twice: the games are not independent, and the interval
    of the headline is the sets' (it was the games', as if 80 coins had been tossed)."""
    from arena.results.comparison import summarise
    from arena.results.stats import MatchScore, mean_score_interval, score_interval
    from arena.results.store import PlayedGame

    games = [PlayedGame(1, 0, 0, number, rotation, (7, 8) if rotation == 0 else (8, 7),
                        (0, 1) if (rotation == 0) == (number % 2 == 0) else (1, 0), (1.0, 0.0))
             for number in range(40) for rotation in range(2)]
    compared = summarise("a", "b", 7, games, None)
    assert compared.score == MatchScore(40, 0, 40) and compared.sets == (1.0, 0.0) * 20
    low, high = mean_score_interval(compared.sets)
    assert (low, high) == compared.interval and low < score_interval(compared.score)[0] - 0.03
    assert f"(95% interval {100 * low:.1f}% to {100 * high:.1f}% over 40 duplicate sets)" in \
        " ".join(compared.lines())


def test_compare_errors(db):
    ambiguous = run("compare", "greedy", "greedy@2", "--db", db)
    both = f"{label(db, 'greedy@1')}, {label(db, 'greedy@2')}"
    assert f"greedy is ambiguous in seasons: {both}" in ambiguous.output
    missing = run("compare", "greedy@9", "greedy@2", "--db", db)
    assert missing.exit_code == 1 and f"known: {both}" in missing.output
    helped = " ".join(run("compare", "--help").output.split())
    for words in ("--elo0 FLOAT SPRT: the Elo difference of the null",
                  "--alpha FLOAT SPRT: the false-positive rate", "--seed INTEGER Seed of",
                  "--progress / --no-progress Show a progress bar"):
        assert words in helped
    assert "no results database" in run("ratings", "--db", "/nonexistent/x.db").output


def test_report_lists_finds_and_defaults_to_a_configs_run_not_a_comparison(db, tmp_path,
                                                                          monkeypatch):
    """A new user found no way to list the tournaments, no hint for a misspelt one, the
    default report of a comparison's hidden tournament, and a folder with spaces."""
    played = run("compare", "greedy@1", "greedy@2", "--db", db, "--games", "2",
                 "--workers", "1", "--no-progress")
    assert played.exit_code == 0, played.output
    listed = run("report", "--list", "--db", db)
    assert listed.exit_code == 0
    shown = " ".join(listed.output.split())
    assert 0 < shown.index("v1-vs-random") < shown.index("v2-vs-random") < shown.index(
        "compare greedy@1+")  # oldest first
    wrong = run("report", "v2-vs-randon", "--db", db)
    assert wrong.exit_code == 1
    said = " ".join(wrong.output.split())
    assert f"no tournament 'v2-vs-randon' in {db} (did you mean 'v2-vs-random'?); it has, " \
           "latest first: 'compare greedy@1+" in said
    assert f"(`arena report --list --db {db}` lists them all)" in said  # the hint works
    monkeypatch.chdir(tmp_path)
    latest = run("report", "--db", db, "--no-luck")
    assert latest.exit_code == 0, latest.output
    assert "results/v2-vs-random/report.html" in " ".join(latest.output.split())
    compared = run("report", "3", "--db", db, "--no-luck")
    folders = [path.parent.name for path in (tmp_path / "results" / "compare").glob("*/*.csv")]
    assert compared.exit_code == 0 and folders and " " not in folders[0], compared.output


def test_history_of_a_misspelt_bot_names_the_nearest(db):
    """It said `bot 'gredy' has no rated games`, hiding that no bot has that name."""
    result = run("history", "gredy", "--db", db)
    assert result.exit_code == 1
    assert f"no bot named 'gredy' in {db} (did you mean 'greedy'?)" in " ".join(
        result.output.split())


def test_compare_keeps_within_a_narrow_terminal(db, monkeypatch):
    """Its lines were wrapped at 80 columns whatever the terminal's width."""
    monkeypatch.setenv("COLUMNS", "60")
    result = run("compare", "greedy@1", "greedy@2", "--db", db, "--games", "2",
                 "--workers", "1", "--no-progress")
    assert result.exit_code == 0, result.output
    assert max(map(len, result.output.splitlines())) <= 60, result.output
    monkeypatch.setenv("COLUMNS", "80")
    wide = run("compare", "greedy@1", "greedy@2", "--db", db, "--games", "2",
               "--workers", "1", "--no-progress")
    # wrapped once, at 60: no line of a word or two left over from a wrap at 80 first
    assert len(result.output.splitlines()) < 1.5 * len(wide.output.splitlines())
    assert " ".join(result.output.split()) == " ".join(wide.output.split())
    lines = result.output.splitlines()
    assert all(len(line) > 30 for line, after in itertools.pairwise(lines)
               if after.startswith(" " * (len(line) - len(line.lstrip()) + 2))), result.output
