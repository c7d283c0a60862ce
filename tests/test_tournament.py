"""Running tournaments: storage, resume, reproducibility across workers and kills."""

import contextlib
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.identity import BotIdentity, identity_hash, source_hash
from arena.cli import cli
from arena.results.store import Store, StoreError
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

GREEDY = "bots/seasons/greedy.py"
RANDOM = "bots/seasons/random_bot.py"
KEEP = {"spec": GREEDY, "name": "greedy-keep", "params": {"rerolls": False}}


def label(name_and_version, spec):
    """The label of a bot's revision (parameters none), as every database shows it."""
    return f"{name_and_version}+{identity_hash(source_hash(str(spec)), {})[:6]}"


GREEDY_LABEL, RANDOM_LABEL = label("greedy@1.0", GREEDY), label("random@1.0", RANDOM)


@pytest.fixture(autouse=True)
def at_root(root, monkeypatch):
    monkeypatch.chdir(root)


def config(tmp_path, **changes):
    data = {"name": "t", "game": "seasons", "bots": [GREEDY, KEEP, RANDOM],
            "games_per_pairing": 4, "seed": 11, "workers": 1,
            "db": str(tmp_path / "arena.db"), "output": str(tmp_path / "out")}
    data.update(changes)
    return parse_config(data, "test.yaml")


def results(db_path, name="t"):
    """Every stored game, without timings, in schedule order."""
    with Store(db_path) as store:
        tid = store.db.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()[0]
        return [(g.key, g.seed, g.seats, g.ranks, g.scores, g.statuses, g.termination, g.moves)
                for g in store.games(tid)]


def test_a_round_robin_stores_every_game_and_a_second_run_plays_none(tmp_path):
    cfg = config(tmp_path)
    with Store(cfg.db) as store:
        report = run_tournament(cfg, store)
        assert (report.total, report.played, report.already_done) == (24, 24, 0)
        assert report.complete and store.status(report.tournament_id) == "complete"
        assert report.standings[0].label == GREEDY_LABEL
        assert sum(r.overall.games for r in report.standings) == 48
        again = run_tournament(cfg, store)
        assert (again.played, again.already_done) == (0, 24)
    rows = results(cfg.db)
    assert len(rows) == 24 and len({r[0] for r in rows}) == 24


EXITER = """
import os


class Exiter:
    name, version = "exiter", "1"

    def __init__(self):
        self.decisions = 0

    def act(self, observation):
        self.decisions += 1
        if self.decisions > 200:
            os._exit(3)
        return observation.legal_actions[0]
"""


def test_a_worker_taken_down_by_an_unisolated_bot_is_replaced_and_the_bot_loses(tmp_path):
    bot = tmp_path / "exiter.py"
    bot.write_text(EXITER)
    cfg = config(tmp_path, bots=[str(bot), GREEDY], workers=2, isolation="none",
                 games_per_pairing=40)
    with Store(cfg.db) as store:
        report = run_tournament(cfg, store)
        records = [store.record(report.tournament_id, key)
                   for key in store.finished_keys(report.tournament_id)]
    assert report.complete and len(records) == 80
    lost = [r for r in records if r.termination == "crash"]
    assert 0 < len(lost) < 80
    for record in lost:
        loser = next(seat for seat in record.seats if seat.status == "crash")
        assert loser.name == "exiter" and "the worker process died, exit code 3" in loser.detail
        assert record.ranks[record.seats.index(loser)] == 1
    cfg = config(tmp_path, name="isolated", bots=[str(bot), GREEDY], workers=2,
                 games_per_pairing=40)
    with Store(cfg.db) as store:  # isolated, the same bot only loses the games it breaks
        report = run_tournament(cfg, store)
    statuses = [row[5] for row in results(cfg.db, "isolated")]
    assert report.complete and len(statuses) == 80
    assert ("crash", "ok") in statuses or ("ok", "crash") in statuses


def test_two_workers_give_the_same_results_as_one(tmp_path):
    one = config(tmp_path / "a", workers=1)
    two = config(tmp_path / "b", workers=2)
    for cfg in (one, two):
        with Store(cfg.db) as store:
            run_tournament(cfg, store)
    assert results(one.db) == results(two.db)


def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path):
    full = config(tmp_path / "full", isolation="none")
    partial = config(tmp_path / "partial", workers=2, isolation="none")
    for cfg in (full, partial):
        with Store(cfg.db) as store:
            run_tournament(cfg, store)
    db = sqlite3.connect(partial.db)
    db.execute("DELETE FROM games WHERE id % 3 = 0")
    db.commit()
    db.close()
    with Store(partial.db) as store:
        report = run_tournament(partial, store)
    assert report.played == 8 and report.already_done == 16
    assert results(partial.db) == results(full.db)


def test_the_same_name_and_version_with_other_code_is_a_new_revision(tmp_path):
    with Store(tmp_path / "x.db") as store:
        first = store.register_bot("seasons", BotIdentity("b", "1", "aaa111222", "b.py"))
        assert store.register_bot("seasons", BotIdentity("b", "1", "aaa111222", "x.py")) == first
        second = store.register_bot("seasons", BotIdentity("b", "1", "bbb333444", "b.py"))
        twin = store.register_bot("seasons", BotIdentity("b", "1", "bbb333555", "b.py"))
        other_game = store.register_bot("sonnentau", BotIdentity("b", "1", "bbb333444", "b.py"))
        labels = {bot.id: bot.label for bot in store.bots()}
        assert [labels[i] for i in (first, second, twin, other_game)] == [
            "b@1+aaa111", "b@1+bbb333", "b@1+bbb3335", "b@1+bbb333"]
        assert store.find_bot("seasons", "b@1+bbb333").id == second  # its label, exactly
        assert store.find_bot("seasons", "b@1+bbb3335").id == twin
        assert store.find_bot("seasons", "b@1+a").id == first
        assert store.find_bot("sonnentau", "b").id == other_game
        with pytest.raises(StoreError, match=r"ambiguous.*b@1[+]aaa111, b@1[+]bbb333, "
                           r"b@1[+]bbb3335"):
            store.find_bot("seasons", "b@1")
        with pytest.raises(StoreError, match="no seasons bot c@1"):
            store.find_bot("seasons", "c@1")
        store.register_bot("seasons", BotIdentity("cautious", "1", "ccc", "c.py"))
        with pytest.raises(StoreError, match=r"no seasons bot cautous in .* \(did you mean "
                           r"'cautious'\?\)$"):  # as compare and status suggest it
            store.find_bot("seasons", "cautous")


def test_a_version_that_looks_like_a_revision_cannot_take_another_bots_label(tmp_path):
    with Store(tmp_path / "x.db") as store:
        store.register_bot("seasons", BotIdentity("b", "1", "a" * 64, "b.py"))
        mimic = store.register_bot("seasons", BotIdentity("b", "1+bbbbbb", "c" * 64, "evil.py"))
        real = store.register_bot("seasons", BotIdentity("b", "1", "b" * 64, "b.py"))
        store.register_bot("seasons", BotIdentity("b", "1", "d" * 64, "b.py"))
        late = store.register_bot("seasons", BotIdentity("b", "1+dddddd", "e" * 64, "evil.py"))
        labels = {bot.id: bot.label for bot in store.bots()}
    assert labels[mimic] == "b@1+bbbbbb+cccccc" and labels[real] == "b@1+bbbbbb"
    assert labels[late] == "b@1+dddddd+eeeeee" and len(set(labels.values())) == 5


def test_a_changed_tournament_under_the_same_name_is_refused(tmp_path):
    with Store(tmp_path / "arena.db") as store:
        run_tournament(config(tmp_path, isolation="none"), store)
        with pytest.raises(StoreError, match="other settings"):
            run_tournament(config(tmp_path, seed=12, isolation="none"), store)


def test_arena_run_shows_standings_writes_csv_and_resumes(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(f"name: cli\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\n"
                    "games_per_pairing: 3\nworkers: 1\n")
    args = ["run", str(path), "--db", str(tmp_path / "a.db"), "--output", str(tmp_path / "o"),
            "--no-progress"]
    first = CliRunner().invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert "played 6 games" in first.output and "greedy@1.0" in first.output
    standings = (tmp_path / "o" / "standings.csv").read_text().splitlines()
    assert standings[0].startswith("place,bot,version,games,wins,draws,losses,points")
    assert standings[1].startswith(f"1,greedy,{GREEDY_LABEL.partition('@')[2]},6,")
    assert len((tmp_path / "o" / "games.csv").read_text().splitlines()) == 7
    logged = (tmp_path / "o" / "arena.log").read_text()
    assert f"({GREEDY_LABEL} vs random@1.0+" in logged or f"vs {GREEDY_LABEL})" in logged
    assert "greedy@1.0 vs" not in logged and "vs greedy@1.0)" not in logged  # one label
    second = CliRunner().invoke(cli, args)
    said = " ".join(second.output.split())  # its lines wrapped at 80 columns
    assert "is complete (6 games" in said and "nothing to play" in said
    assert all(len(line) <= 80 or " " not in line.strip()  # a long path has its own line
               for line in second.output.splitlines()), second.output


def test_dry_run_plays_nothing(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(f"name: dry\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\n"
                    f"db: {tmp_path / 'a.db'}\n")
    result = CliRunner().invoke(cli, ["run", str(path), "--dry-run", "--games-per-pairing", "5"])
    assert result.exit_code == 0
    assert "10 games: 1 tables of 10 games" in result.output
    assert f"{GREEDY_LABEL} vs {RANDOM_LABEL}" in result.output
    assert not (tmp_path / "a.db").exists()


def test_a_dry_run_names_the_tournament_a_run_would_play(tmp_path):
    """After a bot changed, a run plays NAME-2; the dry run described NAME as if it were to
    be played again."""
    bot = tmp_path / "mine.py"
    bot.write_text(Path(GREEDY).read_text())
    path = tmp_path / "t.yaml"
    path.write_text(f"name: dry\ngame: seasons\nbots: [{bot}, {RANDOM}]\nseed: 1\n"
                    f"isolation: none\ndb: {tmp_path / 'a.db'}\n")

    def arena(*args):
        result = CliRunner().invoke(cli, ["run", str(path), *args])
        assert result.exit_code == 0, result.output
        return " ".join(result.output.split())

    arena("--no-progress")
    assert "differ" not in arena("--dry-run")
    bot.write_text(bot.read_text() + "# changed\n")
    assert arena("--dry-run").startswith(
        f"the bots differ from those of tournament 'dry' in {tmp_path / 'a.db'}: a run plays "
        "them as a new tournament 'dry-2' (2 games)")
    arena("--no-progress")
    assert arena("--dry-run").startswith(
        f"the bots differ from those of tournament 'dry' in {tmp_path / 'a.db'}; 'dry-2' has "
        "these bots: a run resumes it (2 of 2 games played)")


def test_config_errors_are_one_line(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("name: x\ngame: seasons\nbots: [a.py, b.py]\n")
    result = CliRunner().invoke(cli, ["run", str(path)])
    assert result.exit_code == 1 and "bots[0].spec: no such bot file 'a.py'" in result.output


def count_games(db_path):
    try:
        db = sqlite3.connect(db_path, timeout=5)
        try:
            return db.execute("SELECT count(*) FROM games").fetchone()[0]
        finally:
            db.close()
    except sqlite3.OperationalError:
        return 0


def descendants(pid):
    """The processes below ``pid`` (Linux)."""
    found, todo = [], [pid]
    while todo:
        for task in Path(f"/proc/{todo.pop()}/task").glob("*"):
            with contextlib.suppress(OSError):
                children = [int(child) for child in (task / "children").read_text().split()]
                found += children
                todo += children
    return found


def command_line(pid):
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    return b""


def alive(pid):
    """Whether ``pid`` runs (a zombie does not; one of ours is reaped)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.stress
def test_a_killed_run_resumes_to_the_same_results(tmp_path, root, request):
    path = tmp_path / "t.yaml"
    path.write_text(f"name: killed\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\n"
                    "games_per_pairing: 50\nworkers: 2\nseed: 4\n")
    killed_db, clean_db = tmp_path / "killed.db", tmp_path / "clean.db"
    command = [sys.executable, "-m", "arena", "run", str(path), "--no-progress", "--no-luck",
               "--output", str(tmp_path / "out")]
    # the runs' temporary folders (bots', bundles'), where the sandbox can reach them
    scratch = Path(tempfile.mkdtemp(prefix="killed-run-"))
    request.addfinalizer(lambda: shutil.rmtree(scratch, ignore_errors=True))
    scratch.chmod(0o755)
    env = {**os.environ, "TMPDIR": str(scratch)}
    process = subprocess.Popen([*command, "--db", str(killed_db)], cwd=root, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while count_games(killed_db) < 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    family = descendants(process.pid)
    lines = {pid: command_line(pid) for pid in family}
    guards = [pid for pid in family if b"arena/bots/guard.py" in lines[pid]]
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    stored = count_games(killed_db)
    assert 20 <= stored < 100, "the run should be killed part of the way"
    if sys.platform.startswith("linux"):  # the workers and their bots die with the run
        # 2 workers, each with 2 bots or more (no bot process plays two games on the same
        # dice); a sandboxed bot is its bwrap process and the bot; a worker whose bots are
        # in cgroups has a guard that releases them should it be killed
        played = [pid for pid in family if pid not in guards and lines[pid]]  # no zombie
        assert len(played) >= 2 + 2 * 2 * 2 and len(played) % 2 == 0, family
        deadline = time.monotonic() + 10
        while any(map(alive, family)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(alive, family))
    claims = f"arena-claims-{os.getuid()}"  # the user's claims by inode: kept, not a leftover
    left = [entry for entry in scratch.iterdir()
            if entry.name.startswith("arena-") and entry.name != claims]
    assert left  # the killed run's unpacked bundles at least
    old = time.time() - 3600  # past the grace that a folder just made is given
    for entry in left:
        os.utime(entry, (old, old))
    subprocess.run([*command, "--db", str(killed_db)], cwd=root, check=True, env=env,
                   capture_output=True)
    assert not [entry.name for entry in scratch.iterdir()
                if entry.name.startswith("arena-") and entry.name != claims]
    subprocess.run([*command, "--db", str(clean_db)], cwd=root, check=True,
                   capture_output=True)
    assert len(results(killed_db, "killed")) == 100
    assert results(killed_db, "killed") == results(clean_db, "killed")


def long_run(tmp_path, root, name, *, own_session=False):
    """(``arena run`` of 600 games started as a subprocess, its database)."""
    path = tmp_path / "t.yaml"
    path.write_text(f"name: {name}\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\n"
                    "games_per_pairing: 300\nworkers: 2\n")
    db = tmp_path / f"{name}.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "run", str(path), "--no-progress", "--db", str(db),
         "--output", str(tmp_path / "out")], cwd=root, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=own_session)
    return process, db


def test_ctrl_c_stops_cleanly_and_keeps_finished_games(tmp_path, root):
    process, db = long_run(tmp_path, root, "interrupted")
    deadline = time.monotonic() + 60
    while count_games(db) < 50 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "interrupted" in err and "run the same command again to resume" in err
    assert "Traceback" not in err
    kept = count_games(db)
    assert 50 <= kept < 600
    assert len(results(db, "interrupted")) == kept


SWISS_BOTS = [GREEDY, KEEP, RANDOM, {"spec": RANDOM, "name": "random-b"},
              {"spec": RANDOM, "name": "random-c"}]


def test_a_swiss_gives_byes_to_different_bots_and_resumes_to_the_same_results(tmp_path):
    full = config(tmp_path / "full", format="swiss", rounds=3, bots=SWISS_BOTS,
                  games_per_pairing=2, isolation="none")
    partial = config(tmp_path / "partial", format="swiss", rounds=3, bots=SWISS_BOTS,
                     games_per_pairing=2, workers=2, isolation="none")
    with Store(full.db) as store:
        report = run_tournament(full, store)
    assert report.total == 3 * 2 * 2 * 2 and report.complete
    assert sorted(r.byes for r in report.standings) == [0, 0, 1, 1, 1]
    assert all(r.buchholz is not None for r in report.standings)
    assert report.standings[0].label == GREEDY_LABEL
    with Store(partial.db) as store:
        run_tournament(partial, store)
    db = sqlite3.connect(partial.db)
    db.execute("DELETE FROM games WHERE round >= 1 AND id % 2 = 0")
    db.commit()
    db.close()
    with Store(partial.db) as store:
        assert run_tournament(partial, store).played > 0
    assert results(partial.db) == results(full.db)


def test_swiss_rounds_avoid_rematches(tmp_path):
    bots = [*SWISS_BOTS, {"spec": GREEDY, "name": "greedy-b"}]
    cfg = config(tmp_path, format="swiss", rounds=3, bots=bots, games_per_pairing=1,
                 isolation="none")
    with Store(cfg.db) as store:
        run_tournament(cfg, store)
    meetings = [tuple(sorted(row[2])) for row in results(cfg.db) if row[0].endswith("-o0")]
    assert len(meetings) == 9 and len(set(meetings)) == 9


def test_running_a_finished_tournament_again_keeps_its_finish_time(tmp_path):
    cfg = config(tmp_path, isolation="none")
    with Store(cfg.db) as store:
        run_tournament(cfg, store)
        first = store.find_tournament("t").finished
        time.sleep(0.05)
        again = run_tournament(cfg, store)
        assert again.played == 0 and store.find_tournament("t").finished == first


def test_swiss_points_equal_to_nine_decimals_are_tied_and_buchholz_decides():
    from arena.results.standings import BotResults, Tally
    from arena.tournaments.runner import ranked

    ahead_by_rounding = BotResults(0, "a@1", Tally(points=9.166666666666668), [], buchholz=10.0)
    more_buchholz = BotResults(1, "b@1", Tally(points=9.166666666666666), [], buchholz=12.0)
    assert [r.label for r in ranked([ahead_by_rounding, more_buchholz])] == ["b@1", "a@1"]


# -- a broken entry, a bot for another game -------------------------------------------------


def test_a_broken_entry_stops_the_tournament_before_its_first_game(tmp_path):
    from arena.tournaments.runner import BrokenBotError

    broken = tmp_path / "broken.py"
    broken.write_text("class Broken:\n    name = 'broken'\n    version = '1'\n    def act(self\n")
    cfg = config(tmp_path, bots=[{"spec": GREEDY, "params": {"rerols": False}}, RANDOM,
                                 str(broken)])
    with Store(cfg.db) as store, pytest.raises(BrokenBotError) as stopped:
        run_tournament(cfg, store)
    message = str(stopped.value)
    assert message.startswith("test.yaml: the tournament cannot start:")
    assert f"bots[0] ({GREEDY}): it cannot be loaded: bot '{GREEDY}' failed" in message
    assert "unexpected keyword argument 'rerols'" in message
    assert f"bots[2] ({broken}): it cannot be loaded" in message and "SyntaxError" in message
    assert "bots[1]" not in message and "/bot/" not in message
    with Store(cfg.db) as store:
        assert store.tournaments() == []  # nothing played, nothing stored
    fixed = config(tmp_path, bots=[{"spec": GREEDY, "params": {"rerolls": False}}, RANDOM])
    with Store(cfg.db) as store:  # fixing the typo is all it takes
        assert run_tournament(fixed, store).complete


def test_a_bot_that_plays_other_games_is_refused_up_front(tmp_path):
    from arena.tournaments.runner import BrokenBotError

    cfg = config(tmp_path, game="sonnentau", bots=["bots/sonnentau/random_bot.py", GREEDY])
    with Store(cfg.db) as store, pytest.raises(BrokenBotError) as refused:
        run_tournament(cfg, store)
    assert f"bots[1] ({GREEDY}): it plays seasons (its `games`), not sonnentau" in str(
        refused.value)
    result = CliRunner().invoke(cli, ["run", str(_yaml(tmp_path, cfg)), "--no-progress"])
    assert result.exit_code == 1 and "not sonnentau" in result.output


def _yaml(tmp_path, cfg):
    import yaml

    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump({
        "name": cfg.name, "game": cfg.game, "seed": cfg.seed, "workers": 1, "db": cfg.db,
        "output": cfg.output, "games_per_pairing": cfg.games_per_pairing,
        "bots": [{"spec": b.spec, "params": dict(b.params)} for b in cfg.bots]}))
    return path


def test_with_broken_bots_forfeit_it_plays_on_and_the_forfeits_stay_out_of_all_time_ratings(
        tmp_path):
    from arena.results.versions import leaderboard

    cfg = config(tmp_path, broken_bots="forfeit",
                 bots=[GREEDY, RANDOM, {"spec": GREEDY, "params": {"rerols": False}}])
    with Store(cfg.db) as store:
        report = run_tournament(cfg, store)
        assert report.complete and report.played == 24
        assert any("unexpected keyword argument 'rerols'" in p for p in report.problems)
        problems = store.entrant_problems(report.tournament_id)
        assert problems[:2] == [None, None] and "rerols" in problems[2]
        statuses = [(g.seats, g.statuses) for g in store.games(report.tournament_id)]
        assert all(s[g.index(2)] == "crash" for g, s in statuses if 2 in g)
        rated = {row.bot.label: row.tally.games for row in leaderboard(store, "seasons")}
    assert rated[GREEDY_LABEL] == rated[RANDOM_LABEL] == 8  # only their games with each other


# -- running a config again ----------------------------------------------------------------


def test_a_changed_bot_plays_a_new_tournament_named_after_it_and_meets_the_same_dice(tmp_path):
    bot = tmp_path / "mine.py"
    bot.write_text(Path(GREEDY).read_text())
    cfg = config(tmp_path, bots=[str(bot), RANDOM], output="")
    with Store(cfg.db) as store:
        first = run_tournament(cfg, store)
    bot.write_text(bot.read_text() + "\n# a comment: another revision\n")
    with Store(cfg.db) as store:
        second = run_tournament(cfg, store)
        again = run_tournament(cfg, store)
        labels = [b.label for b in store.bots("seasons") if b.identity.name == "greedy"]
        assert store.find_tournament("t").status == "complete"
    assert second.name == "t-2" and second.played == 8 and first.name == "t"
    revision = labels[1]
    assert labels[0] == GREEDY_LABEL and revision.startswith("greedy@1.0+")  # the same code
    assert second.notes == [f"the bots differ from those of tournament 't' ({labels[0]} is now "
                            f"{revision}): playing them as a new tournament 't-2'; 't' is "
                            f"kept as it was; then `arena compare {labels[0]} {revision} --db "
                            f"{cfg.db}` compares the revisions of 't' with these through their "
                            "games on the same dice"]
    assert next(r.label for r in second.standings) == revision
    assert (again.name, again.played) == ("t-2", 0) and "running that one" in again.notes[0]
    assert [row[1] for row in results(cfg.db, "t")] == [row[1] for row in results(cfg.db, "t-2")]
    bot.write_text(Path(GREEDY).read_text())
    with Store(cfg.db) as store:  # the first revision again: its tournament, complete
        back = run_tournament(cfg, store)
    assert (back.name, back.played, back.notes) == ("t", 0, [])
    bot.write_text(Path(GREEDY).read_text() + "\n# a third revision\n")
    with Store(cfg.db) as store:  # compared with the revision last played (t-2's), not t's
        third = run_tournament(cfg, store)
        newest = store.bot(store.entrants(third.tournament_id)[0]).label
    assert third.name == "t-3"
    assert third.notes[0].endswith(f"then `arena compare {revision} {newest} --db {cfg.db}` "
                                   "compares the revisions of 't-2' with these through their "
                                   "games on the same dice")


def test_more_games_per_pairing_or_rounds_grow_a_tournament_and_play_only_the_new_games(
        tmp_path):
    small = config(tmp_path, games_per_pairing=2, isolation="none")
    grown = config(tmp_path, games_per_pairing=4, rounds=2, isolation="none")
    fresh = config(tmp_path / "fresh", games_per_pairing=4, rounds=2, isolation="none")
    with Store(small.db) as store:
        run_tournament(small, store)
        report = run_tournament(grown, store)
        assert report.notes == ["tournament 't' grows (rounds 1 → 2, games_per_pairing 2 → 4): "
                                "only the new games are played"]
        assert (report.played, report.already_done) == (48 - 12, 12) and report.complete
        with pytest.raises(StoreError, match="has games_per_pairing 4 already; the config asks "
                                             "for 2, and played games are never dropped"):
            run_tournament(config(tmp_path, games_per_pairing=2, rounds=2, isolation="none"),
                           store)
    with Store(fresh.db) as store:
        run_tournament(fresh, store)
    assert results(grown.db) == results(fresh.db)  # as if it had been asked for at once


def test_more_swiss_rounds_grow_it_but_other_games_per_pairing_are_another_swiss(tmp_path):
    bots = [GREEDY, KEEP, RANDOM, {"spec": RANDOM, "name": "random2"}]
    short = config(tmp_path, format="swiss", rounds=2, games_per_pairing=1, bots=bots,
                   isolation="none")
    long = config(tmp_path, format="swiss", rounds=3, games_per_pairing=1, bots=bots,
                  isolation="none")
    fresh = config(tmp_path / "fresh", format="swiss", rounds=3, games_per_pairing=1, bots=bots,
                   isolation="none")
    with Store(short.db) as store:
        run_tournament(short, store)
        assert run_tournament(long, store).played == 4
        with pytest.raises(StoreError, match="games_per_pairing: 1 → 2"):
            run_tournament(config(tmp_path, format="swiss", rounds=3, games_per_pairing=2,
                                  bots=bots), store)
    with Store(fresh.db) as store:
        run_tournament(fresh, store)
    assert results(long.db) == results(fresh.db)


def test_other_settings_are_refused_saying_what_changed(tmp_path):
    with Store(tmp_path / "arena.db") as store:
        run_tournament(config(tmp_path, isolation="none"), store)
        with pytest.raises(StoreError) as refused:
            run_tournament(config(tmp_path, seed=12, time_limit=2.0, isolation="none"), store)
    assert "was run with other settings (seed: 11 → 12; time_limit: 5.0 → 2.0)" in str(
        refused.value)


def test_a_game_option_written_at_its_default_is_the_same_tournament(tmp_path):
    """Writing ``placement_limit: 1000``, the default, was refused as other settings."""
    from arena.games import find_game

    [limit] = [o for o in find_game("seasons").info.options if o.name == "placement_limit"]
    with Store(tmp_path / "arena.db") as store:
        first = run_tournament(config(tmp_path, isolation="none"), store)
        again = run_tournament(config(tmp_path, isolation="none",
                                      options={"placement_limit": limit.default}), store)
        assert again.played == 0 and store.tournament_named("t-2") is None, first
        with pytest.raises(StoreError, match=r"options: \{\} → \{\"placement_limit\": 7\}"):
            run_tournament(config(tmp_path, isolation="none", options={"placement_limit": 7}),
                           store)


# -- what the terminal shows -----------------------------------------------------------------


def test_a_crash_shows_its_traceback_once_and_every_game_shows_its_detail_in_games_csv(
        tmp_path):
    raiser = tmp_path / "raiser.py"
    raiser.write_text("class Raiser:\n    name, version = 'raiser', '1'\n\n"
                      "    def act(self, observation):\n        return {}['x']\n")
    path = tmp_path / "t.yaml"
    path.write_text(f"name: crash\ngame: seasons\nworkers: 1\ngames_per_pairing: 3\n"
                    f"bots: [{GREEDY}, {RANDOM}, {raiser}]\n")
    args = ["run", str(path), "--db", str(tmp_path / "a.db"), "--output", str(tmp_path / "o"),
            "--no-progress", "-v", "--standings-every", "6"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    out = result.output
    raiser_label = label("raiser@1", raiser)
    assert out.count(f"{raiser_label} lost game") == 1  # once per distinct failure, not per game
    assert "by crash: act() raised KeyError: 'x'" in out
    assert f'File "{raiser}", line 5, in act' in out and "    KeyError: 'x'" in out
    assert f"Finished game r0-t0-s0-o0 ({GREEDY_LABEL} vs {RANDOM_LABEL}): " in out
    assert (f"Finished game r0-t1-s0-o0 ({GREEDY_LABEL} vs {raiser_label}): 1-0 "
            f"{{{raiser_label} crash}}") in out
    assert f"Finished game r0-t0-s1-o0 ({GREEDY_LABEL} vs {RANDOM_LABEL}): " in out
    assert "Finished game 7" not in out  # the order games finished in is no game's number
    assert [line for line in out.splitlines() if line.startswith("standings after")] == [
        "standings after 6 games:", "standings after 12 games:", "standings after 18 games:"]
    assert "win: the better result; draw: an equal one" in out
    import csv

    rows = list(csv.DictReader((tmp_path / "o" / "games.csv").open()))
    crashed = [row for row in rows if "crash" in (row["seat0_status"], row["seat1_status"])]
    assert len(crashed) == 12
    assert all(row["detail"].startswith(("seat 0: act() raised KeyError: 'x'",
                                         "seat 1: act() raised KeyError: 'x'"))
               and f'File "{raiser}", line 5' in row["detail"] for row in crashed)
    assert all(row["detail"] == "" for row in rows if row not in crashed)


def test_copies_of_one_bot_under_other_names_are_started_once_to_be_named(tmp_path,
                                                                            monkeypatch):
    """A config of 400 copies took 72 s to start, each copy's bot in turn."""
    from arena.bots import identity
    from arena.tournaments.runner import load_entrants

    started = []
    real = identity._handshake
    monkeypatch.setattr(identity, "_handshake",
                        lambda entry, limits: started.append(entry.spec) or real(entry, limits))
    cfg = config(tmp_path, isolation="process", bots=[
        *({"spec": RANDOM, "name": f"copy-{n}"} for n in range(5)),
        {"spec": GREEDY, "name": "kept-apart", "params": {"rerolls": False}}, GREEDY])
    entrants = load_entrants(cfg)
    assert len(started) == 3  # random once, greedy with other parameters, greedy
    assert [label.split("@")[0] for label in entrants.labels] == [
        *(f"copy-{n}" for n in range(5)), "kept-apart", "greedy"]


def test_the_same_bots_in_another_order_are_said_so_not_as_changed_revisions(tmp_path):
    """Reordering `bots:` read "greedy@1.0+f00438 is now keep@…; random@… is now greedy@…"."""
    with Store(tmp_path / "arena.db") as store:
        run_tournament(config(tmp_path, isolation="none"), store)
        moved = run_tournament(config(tmp_path, isolation="none", bots=[RANDOM, GREEDY, KEEP]),
                               store)
        fewer = run_tournament(config(tmp_path, isolation="none", bots=[GREEDY, RANDOM]), store)
    assert moved.notes[0].startswith("the bots differ from those of tournament 't' (the same "
                                     "bots in another order): playing them as a new tournament")
    assert " is now " not in moved.notes[0]
    assert "(greedy-keep@1.0+" in fewer.notes[0] and " left out)" in fewer.notes[0]
    assert " is now " not in fewer.notes[0]


def test_the_compare_hint_offers_the_same_dice_only_where_the_bots_keep_their_places(
        tmp_path):
    """The hint paired bots by name in any order, but a table's dice follow its places: for
    a reordered list it printed a compare that found no common dice. And with the order
    put back, the run it compared with had the bots in another order, and it said nothing."""
    bot = tmp_path / "mine.py"
    bot.write_text(Path(GREEDY).read_text())
    with Store(tmp_path / "arena.db") as store:
        run_tournament(config(tmp_path, bots=[str(bot), RANDOM], output=""), store)
        bot.write_text(bot.read_text() + "\n# another revision\n")
        moved = run_tournament(config(tmp_path, bots=[RANDOM, str(bot)], output=""), store)
        back = run_tournament(config(tmp_path, bots=[str(bot), RANDOM], output=""), store)
    assert " is now greedy@1.0+" in moved.notes[0]
    assert re.search(r"in another order the bots meet other dice, so `arena compare "
                     r"greedy@1\.0\+\w+ greedy@1\.0\+\w+ --games 100 --db \S+` plays the "
                     r"revisions against each other", moved.notes[0]), moved.notes
    assert re.search(r"then `arena compare greedy@1\.0\+\w+ greedy@1\.0\+\w+ --db \S+` compares "
                     r"the revisions of 't' with these through their games on the same dice",
                     back.notes[0]), back.notes
    first, second = re.search(r"`arena compare (\S+) (\S+) --db", back.notes[0]).groups()
    compared = CliRunner().invoke(cli, ["compare", first, second, "--db",
                                        str(tmp_path / "arena.db")])
    assert compared.exit_code == 0 and "through common opponents" in compared.output, \
        compared.output
