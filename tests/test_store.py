"""The results database: one runner per tournament, secret seeds, old files, damaged rows."""

import json
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from arena.results.store import SCHEMA, SCHEMA_VERSION, Store, StoreError
from arena.tournaments.config import parse_config
from arena.tournaments.runner import open_run, run_tournament

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


def test_a_tournament_run_by_another_process_is_refused_with_who_runs_it(tmp_path, root):
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
        with Store(cfg.db) as store, pytest.raises(StoreError) as refused:
            run_tournament(cfg, store)
        assert f"being run already, by process {holder.pid}" in str(refused.value)
    finally:
        holder.kill()
        holder.wait()
    with Store(cfg.db) as store:  # the claim went with the process, even killed
        assert run_tournament(cfg, store).complete


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


# Schema 1 is today's without the columns that schema 2 added.
SCHEMA_V1 = SCHEMA.replace(",\n    seed_secret INTEGER NOT NULL DEFAULT 0", "").replace(
    ",\n    isolations TEXT NOT NULL DEFAULT '[]'", "")
