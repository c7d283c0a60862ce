"""The results database: one runner per tournament, secret seeds, old files, damaged rows."""

import json
import multiprocessing
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from arena.bots.identity import BotIdentity
from arena.results.ladder_book import LadderBook, RatingLine
from arena.results.store import SCHEMA_VERSION, EntrantGame, SeatFailure, Store, StoreError
from arena.tournaments.config import parse_config
from arena.tournaments.runner import Progress, open_run, run_tournament

GREEDY = "bots/seasons/greedy.py"
RANDOM = "bots/seasons/random_bot.py"


@pytest.fixture(autouse=True)
def at_root(root, monkeypatch):
    monkeypatch.chdir(root)


def config(tmp_path, **changes):
    data = {"name": "t", "game": "seasons", "bots": [GREEDY, RANDOM], "seed": 5,
            "games_per_pairing": 2, "workers": 1, "db": str(tmp_path / "a.db"),
            "isolation": "none", **changes}
    return parse_config(data)


@pytest.mark.parametrize("by_link", [None, "symbolic", "hard"])
def test_a_tournament_run_by_another_process_is_refused_with_who_runs_it(tmp_path, root,
                                                                        by_link):
    """``by_link``: the second process reaches the database by a symbolic or a hard link,
    which had a claim folder of its own, so that both played every game."""
    cfg = config(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(root / 'tests')!r})
        from arena.results.store import Store
        from arena.tournaments.runner import open_run
        from test_store import config
        from pathlib import Path
        store = Store({cfg.db!r})
        open_run(config(Path({str(tmp_path)!r})), store)
        print("holding", flush=True)
        time.sleep(60)
        """)], cwd=root, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        reached = cfg.db
        if by_link:
            (tmp_path / "elsewhere").mkdir()
            reached = str(tmp_path / "elsewhere" / "link.db")
            (os.symlink if by_link == "symbolic" else os.link)(cfg.db, reached)
        with Store(reached) as store, pytest.raises(StoreError) as refused:
            run_tournament(cfg, store)
        assert f"being run already, by process {holder.pid}" in str(refused.value)
    finally:
        holder.kill()
        holder.wait()
    with Store(cfg.db) as store:  # the claim went with the process, even killed
        assert run_tournament(cfg, store).complete


def test_a_process_forked_by_the_claimant_does_not_keep_its_claim(tmp_path):
    # A run's worker processes are forked from it: one that outlives a killed run (stuck
    # on its way out) must not keep the tournament from being resumed.
    cfg = config(tmp_path)
    with Store(cfg.db) as store:
        open_run(cfg, store)
        ready, child_end = multiprocessing.get_context("fork").Pipe()
        child = multiprocessing.get_context("fork").Process(target=_wait_on, args=(child_end,))
        child.start()
        try:
            assert ready.recv() == "forked"
            store.close()  # the claimant is done with it, its fork lives on
            with Store(cfg.db) as again:
                assert run_tournament(cfg, again).complete
        finally:
            child.kill()
            child.join()


def _wait_on(connection):
    connection.send("forked")
    time.sleep(60)


def test_a_secret_seed_is_drawn_once_kept_and_shown_only_when_complete(tmp_path):
    cfg = config(tmp_path, seed="secret")
    with Store(cfg.db) as store:
        run = open_run(cfg, store)
        drawn = run.config.seed
        row = store.find_tournament("t")
        assert row.secret and row.shown_seed == "secret" and row.seed == drawn
        assert json.loads(store.db.execute("SELECT config FROM tournaments").fetchone()[0])[
            "seed"] == "secret"
    with Store(cfg.db) as store:
        report = run_tournament(cfg, store)
        row = store.find_tournament("t")
        assert report.complete and row.seed == drawn and row.shown_seed == str(drawn)
        seeds = {game.seed for game in store.games(report.tournament_id)}
    plain = config(tmp_path, name="same", seed=drawn)
    with Store(cfg.db) as store:  # the secret seed plays exactly as that seed in the open
        report = run_tournament(plain, store)
        assert {game.seed for game in store.games(report.tournament_id)} == seeds


def test_a_database_of_the_previous_schema_is_brought_up_to_date(tmp_path, root):
    path = tmp_path / "old.db"
    old = sqlite3.connect(path)
    assert "seed_secret" not in SCHEMA_V1 and "isolations" not in SCHEMA_V1
    old.executescript(SCHEMA_V1)
    cfg = config(tmp_path)
    stored = {**cfg.to_json(), "isolation": "process",
              "bots": [{**bot, "isolation": "process"} for bot in cfg.to_json()["bots"]]}
    old.execute("INSERT INTO tournaments (name, game, seed, fingerprint, config, status, created)"
                " VALUES ('t', 'seasons', 5, 'old', ?, 'running', 0)", (json.dumps(stored),))
    old.execute("PRAGMA user_version = 1")
    old.commit()
    old.close()
    with Store(path) as store:
        version = store.db.execute("PRAGMA user_version").fetchone()[0]
        fingerprint = store.db.execute("SELECT fingerprint FROM tournaments").fetchone()[0]
    assert version == SCHEMA_VERSION and fingerprint == cfg.fingerprint()


def test_a_schema_2_database_gets_revisions_failure_details_and_forfeit_marks(tmp_path):
    path = tmp_path / "v2.db"
    old = sqlite3.connect(path)
    old.executescript(SCHEMA_V2)
    cfg = config(tmp_path, bots=[GREEDY, RANDOM, {"spec": RANDOM, "name": "copy"}])
    old.execute("INSERT INTO tournaments (name, game, seed, fingerprint, config, status, created)"
                " VALUES ('t', 'seasons', 5, 'old', ?, 'complete', 0)",
                (json.dumps(cfg.to_json()),))
    old.executemany("INSERT INTO bots (game, name, version, code_hash, spec, params, created)"
                    " VALUES ('seasons', ?, ?, ?, 'x.py', '{}', 0)",
                    [("greedy", "1.0", "a" * 64), ("random", "1.0", "b" * 64),
                     ("random", "refused-cccccccccccc", "c" * 64)])
    old.executemany("INSERT INTO entrants VALUES (1, ?, ?)", [(0, 1), (1, 2), (2, 3)])
    record = {"game": "seasons", "options": {}, "seed": 1, "moves": [], "ranks": [1, 0],
              "scores": [0, 0], "termination": "crash", "meta": {},
              "seats": [{"name": "greedy", "version": "1.0", "status": "crash",
                         "detail": "act() raised KeyError: 'x'"},
                        {"name": "random", "version": "1.0", "status": "ok", "detail": ""}]}
    old.execute("INSERT INTO games (tournament_id, key, round, table_no, set_no, rotation, seed,"
                " seats, ranks, scores, statuses, termination, moves, duration, record,"
                " finished) VALUES (1, 'r0-t0-s0-o0', 0, 0, 0, 0, 1, '[0, 1]', '[1, 0]',"
                " '[0, 0]', '[\"crash\", \"ok\"]', 'crash', 0, 0.1, ?, 0)",
                (json.dumps(record),))
    old.execute("PRAGMA user_version = 2")
    old.commit()
    old.close()
    with Store(path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        assert store.entrant_failures(1, {0}, limit=5)[0].detail == (
            "act() raised KeyError: 'x'")  # its seats indexed by the migration, with details
        assert [b.label for b in store.bots("seasons")] == [
            "greedy@1.0+aaaaaa", "random@1.0+bbbbbb",
            "random@refused-cccccccccccc+cccccc"]  # relabelled: one label everywhere
        [game] = store.games(1)
        assert game.details == ("act() raised KeyError: 'x'", "")
        assert store.entrant_problems(1) == [None, None, "it could not play"]
        assert store.fingerprint(1) == cfg.fingerprint()
        store.register_bot("seasons", BotIdentity("greedy", "1.0", "d" * 64, "y.py"))
        assert store.bots("seasons")[1].label == "greedy@1.0+dddddd"  # a second revision


def test_a_damaged_row_names_its_tournament_and_game(tmp_path):
    cfg = config(tmp_path)
    with Store(cfg.db) as store:
        tid = run_tournament(cfg, store).tournament_id
        store.db.execute("UPDATE games SET ranks = '[0, ' WHERE key = 'r0-t0-s1-o0'")
        with pytest.raises(StoreError, match=r"tournament \d+, game 'r0-t0-s1-o0': the row "
                                             "is damaged"):
            list(store.games(tid))
        store.db.execute("UPDATE games SET record = 'x' WHERE key = 'r0-t0-s0-o0'")
        with pytest.raises(StoreError, match="game 'r0-t0-s0-o0': its record is damaged"):
            store.record(tid, "r0-t0-s0-o0")


# The schema of databases written before revisions and failure details had columns.
SCHEMA_V2 = """
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    seed INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    config TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    seed_secret INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS bots (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    code_hash TEXT NOT NULL,
    spec TEXT NOT NULL,
    params TEXT NOT NULL DEFAULT '{}',
    created REAL NOT NULL,
    UNIQUE (game, name, version)
);
CREATE TABLE IF NOT EXISTS entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    position INTEGER NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots(id),
    PRIMARY KEY (tournament_id, position)
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    key TEXT NOT NULL,
    round INTEGER NOT NULL,
    table_no INTEGER NOT NULL,
    set_no INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    ranks TEXT NOT NULL,
    scores TEXT NOT NULL,
    statuses TEXT NOT NULL,
    termination TEXT NOT NULL,
    moves INTEGER NOT NULL,
    duration REAL NOT NULL,
    record TEXT NOT NULL,
    finished REAL NOT NULL,
    isolations TEXT NOT NULL DEFAULT '[]',
    UNIQUE (tournament_id, key)
);
CREATE INDEX IF NOT EXISTS games_by_round ON games (tournament_id, round);
CREATE TABLE IF NOT EXISTS ratings (
    system TEXT NOT NULL,
    game TEXT NOT NULL,
    bot_id INTEGER NOT NULL REFERENCES bots(id),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    computed REAL NOT NULL,
    PRIMARY KEY (system, game, bot_id)
);
"""
# Schema 1 is schema 2 without the columns that schema 2 added.
SCHEMA_V1 = SCHEMA_V2.replace(",\n    seed_secret INTEGER NOT NULL DEFAULT 0", "").replace(
    ",\n    isolations TEXT NOT NULL DEFAULT '[]'", "")


def as_schema_7(store: Store) -> None:
    """Take out of a new store what schema 8 added."""
    for kind in ("trigger", "index"):
        for (name,) in store.db.execute("SELECT name FROM sqlite_master WHERE type = ? AND"
                                        " sql IS NOT NULL", (kind,)).fetchall():
            if kind == "trigger" or name in ("game_seats_failed", "submissions_by_bot",
                                             "submissions_by_position", "ladder_current_by_seq",
                                             "ladder_pairs_totals", "ladder_ratings_lines"):
                store.db.execute(f"DROP {kind} {name}")
    store.db.execute("DROP TABLE game_seats")
    store.db.execute("DROP TABLE ladder_changes")
    store.db.execute("ALTER TABLE ladder_current DROP COLUMN seq")
    store.db.execute("PRAGMA user_version = 7")


def test_a_schema_6_database_gets_session_generations(tmp_path):
    path = tmp_path / "v6.db"
    with Store(path) as store:
        store.db.execute("INSERT INTO participants (name, token_hash, salt, organizer, created)"
                         " VALUES ('ann', 'h', 's', 0, 0)")
        as_schema_7(store)
        store.db.execute("ALTER TABLE participants DROP COLUMN sessions")
        store.db.execute("PRAGMA user_version = 6")
    with Store(path) as store:
        assert store.db.execute("SELECT name, sessions FROM participants").fetchall() == [
            ("ann", 0)]
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_the_index_of_each_entrants_games_follows_the_games_table(tmp_path):
    """However a game row is written, changed or removed, ``game_seats`` follows it: one
    entrant's games and its failed ones are read from it, newest first, a page at a time."""
    insert = ("INSERT INTO games (tournament_id, key, round, table_no, set_no, rotation, seed,"
              " seats, ranks, scores, statuses, termination, moves, duration, record, finished)"
              " VALUES (1, ?, 0, ?, 0, 0, 1, ?, '[0, 1]', '[0, 0]', ?, 'normal', 0, 0, '{}', 0)")
    with Store(tmp_path / "seats.db") as store:
        for table in range(30):
            store.db.execute(insert, (f"r0-t{table}-s0-o0", table, json.dumps([table % 3, 3]),
                                      '["crash", "ok"]' if table % 5 == 0 else '["ok", "ok"]'))
        store.db.execute(insert, ("damaged", 99, "not json", "[]"))  # no seats, no error

        def keys(positions, failed=False, **page):
            found = (store.entrant_failures(1, positions, **page) if failed else
                     store.entrant_games(1, positions, **page))
            return [int(row.key.split("-")[1][1:]) for row in found]

        assert keys({0}, limit=4) == [27, 24, 21, 18]
        assert keys({0}, limit=4, offset=4) == [15, 12, 9, 6]
        assert keys({0, 1}, limit=5, offset=1) == [27, 25, 24, 22, 21]
        assert keys({3}, limit=100) == list(range(29, -1, -1))
        assert store.entrant_games(1, {0}, limit=1)[0] == EntrantGame(
            "r0-t27-s0-o0", (0, 3), (0, 1), ("ok", "ok"), "normal", 0.0)
        assert keys({0}, limit=10, failed=True) == [15, 0]  # of the crashes at 0, 5, 10, …
        assert keys({3}, limit=10, failed=True) == []
        store.db.execute("UPDATE games SET statuses = '[\"ok\", \"timeout\"]' WHERE"
                         " key = 'r0-t27-s0-o0'")
        assert keys({0}, limit=10, failed=True) == [15, 0]
        assert keys({3}, limit=10, failed=True) == [27]
        store.db.execute("UPDATE games SET details = '[\"\", \"late\"]' WHERE"
                         " key = 'r0-t27-s0-o0'")
        assert store.entrant_failures(1, {3}, limit=1) == [
            SeatFailure("r0-t27-s0-o0", 3, 1, "timeout", "late")]
        store.db.execute("UPDATE games SET seats = '[4, 3]' WHERE key = 'r0-t27-s0-o0'")
        store.db.execute("DELETE FROM games WHERE key = 'r0-t24-s0-o0'")
        assert keys({0}, limit=3) == [21, 18, 15] and keys({4}, limit=3) == [27]
        assert keys(set(), limit=3) == [] and keys({0}, limit=0) == []
        assert keys(set(), limit=3, failed=True) == []
        count = store.db.execute("SELECT count(*) FROM game_seats").fetchone()[0]
        assert count == 2 * 29


def test_a_schema_7_database_gets_its_games_indexed_by_entrant(tmp_path):
    path = tmp_path / "v7.db"
    with Store(path) as store:
        store.db.execute("INSERT INTO games (tournament_id, key, round, table_no, set_no,"
                         " rotation, seed, seats, ranks, scores, statuses, termination, moves,"
                         " duration, record, finished) VALUES (1, 'r0-t0-s0-o0', 0, 0, 0, 0, 1,"
                         " '[2, 5]', '[0, 1]', '[0, 0]', '[\"ok\", \"crash\"]', 'crash', 0, 0,"
                         " '{}', 0)")
        store.db.execute("INSERT INTO ladder_current (tournament_id, position, mu, sigma, games,"
                         " change, round) VALUES (1, 0, 25, 8, 0, 0, 0)")
        as_schema_7(store)
    with Store(path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert [row.key for row in store.entrant_failures(1, {5}, limit=5)] == [
            "r0-t0-s0-o0"]
        assert store.entrant_failures(1, {2}, limit=5) == []
        assert [row.seats for row in store.entrant_games(1, {2}, limit=5)] == [(2, 5)]
        store.db.execute("DELETE FROM games")  # and it follows the table from then on
        assert store.db.execute("SELECT count(*) FROM game_seats").fetchone()[0] == 0
        book = LadderBook(store, 1)
        assert book.changes() == (0, 0) and [seq for _, seq in book.ratings_changed(-1)] == [0]
        book.save_ratings(1, [RatingLine(0, 1, 26.0, 7.0, 2), RatingLine(1, 1, 24.0, 7.0, 2)])
        assert book.changes() == (0, 2)
        assert [(line.position, seq) for line, seq in book.ratings_changed(0)] == [(0, 1),
                                                                                   (1, 2)]


def test_a_database_is_its_owners_alone(tmp_path):
    """It holds secret seeds, bots' code, failure details and token hashes: with umask 022
    it was readable by every user of the machine."""
    new = tmp_path / "new.db"
    with Store(new) as store:
        store.db.execute("CREATE TABLE t (x)")  # the WAL files exist while it is open
        for path in (new, tmp_path / "new.db-wal", tmp_path / "new.db-shm"):
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    old = tmp_path / "old.db"
    with Store(old):
        pass
    old.chmod(0o644)
    with Store(old):
        assert stat.S_IMODE(old.stat().st_mode) == 0o600
    victim = tmp_path / "victim.txt"  # a config's `db:` linking to another file
    victim.write_text("not a database\n")
    victim.chmod(0o644)
    (tmp_path / "link.db").symlink_to(victim)
    with pytest.raises(StoreError):
        Store(tmp_path / "link.db")
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644  # its rights as they were


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_run_whose_database_is_deleted_or_replaced_says_so_instead_of_ending_well(
        tmp_path, how):
    """The games went into a file nobody reads; the run ended as if they were kept."""
    cfg = config(tmp_path, games_per_pairing=20)
    db = tmp_path / "a.db"
    with Store(db) as store:
        done = []

        def take_it_away(result):  # after the first game, as a user's `rm` or `mv`
            done.append(result)
            if len(done) == 1:
                for part in ("", "-wal", "-shm"):
                    (tmp_path / f"a.db{part}").unlink(missing_ok=True)
                if how == "replaced":
                    Store(tmp_path / "a.db").close()

        progress = Progress()
        progress.game_done = take_it_away
        with pytest.raises(StoreError, match=rf"the results database {db} was "
                           rf"{'deleted' if how == 'deleted' else 'replaced by another file'} "
                           "while arena wrote to it"):
            run_tournament(cfg, store, progress)
        assert len(done) == 1


def test_a_database_made_through_a_link_to_nothing_yet_is_its_owners_alone(tmp_path):
    """Made at the link's target with the umask's rights (0644): secret seeds for anyone."""
    (tmp_path / "real").mkdir()
    link = tmp_path / "link.db"
    link.symlink_to(tmp_path / "real" / "s.db")
    with Store(link):
        pass
    assert stat.S_IMODE((tmp_path / "real" / "s.db").stat().st_mode) == 0o600


def test_a_claims_folder_another_user_made_first_is_said_so_and_not_used(tmp_path, monkeypatch,
                                                                          capsys):
    """A folder of the same name made first by someone else (here: open to others) turned
    the claim by inode off without a word."""
    import tempfile

    from arena.results import store as stores

    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(stores, "_WARNED", set())
    taken = tmp_path / f"arena-claims-{os.getuid()}"
    taken.mkdir(mode=0o777)
    taken.chmod(0o777)
    cfg = config(tmp_path)
    with Store(cfg.db) as store:
        assert run_tournament(cfg, store).complete
    said = capsys.readouterr().err
    assert f"arena: {taken} is not this user's own folder" in said
    assert "a run that reaches its database by a hard link is not refused" in said
    assert not list(taken.iterdir())  # nothing written into someone else's folder


def test_a_runtime_folder_that_is_not_the_users_own_is_passed_over(tmp_path, monkeypatch,
                                                                    capsys):
    """``su`` keeps the caller's XDG_RUNTIME_DIR: arena made its claims folder in another
    user's runtime folder, or failed with a raw Permission denied."""
    import tempfile

    from arena.results import store as stores

    elsewhere = tmp_path / "someone-elses-runtime"
    elsewhere.mkdir(mode=0o755)
    elsewhere.chmod(0o755)  # open to others: not a runtime folder of this user's
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(elsewhere))
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(stores, "_WARNED", set())
    cfg = config(tmp_path)
    with Store(cfg.db) as store:
        assert run_tournament(cfg, store).complete
    assert not (elsewhere / "arena-claims").exists()
    assert (tmp_path / f"arena-claims-{os.getuid()}").is_dir()
    assert "not this user's own folder" not in capsys.readouterr().err
