"""The command line, driven through click's CliRunner."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.sandbox import INSTALL_HINT
from arena.cli import cli
from arena.referee.record import read_records, replay

GREEDY = "bots/seasons/greedy.py"
RANDOM = "bots/seasons/random_bot.py"


@pytest.fixture
def run(root, monkeypatch):
    monkeypatch.chdir(root)

    def invoke(*args, input=None):
        return CliRunner().invoke(cli, list(args), input=input)

    return invoke


def test_games_lists_the_games_and_their_options(run):
    result = run("games")
    assert result.exit_code == 0
    assert "seasons: Seasons of the Sun (2 players)" in result.output
    assert "placement_limit" in result.output


def test_play_one_game_prints_the_log_identically_every_time(run):
    first = run("play", "seasons", GREEDY, RANDOM, "--seed", "7")
    second = run("play", "seasons", GREEDY, RANDOM, "--seed", "7")
    assert first.exit_code == 0, first.output
    assert first.output == second.output
    lines = first.output.splitlines()
    assert lines[0].startswith("Seasons of the Sun, seed ")
    first_turn = next(line for line in lines if line.startswith("1. seat 0: "))
    assert " on " in first_turn
    assert lines[-1].startswith("Result: ")
    assert run("play", "seasons", GREEDY, RANDOM, "--seed", "8").output != first.output


def test_play_many_games_prints_a_summary_and_writes_records(run, tmp_path):
    out = tmp_path / "games.jsonl"
    result = run("play", "seasons", GREEDY, RANDOM, "--seed", "1", "--games", "6",
                 "--json", str(out))
    assert result.exit_code == 0, result.output
    assert "6 games of Seasons of the Sun" in result.output
    assert "greedy@1.0" in result.output and "random@1.0" in result.output
    assert ["greedy@1.0", "1", "3"] in [[line.split()[0].partition("+")[0], *line.split()[1:3]]
                                        for line in result.output.splitlines() if line.split()]
    records = read_records(str(out))
    assert len(records) == 6
    assert records[0].seed == records[1].seed != records[2].seed
    assert [s.name for s in records[0].seats] == ["greedy", "random"]
    assert [s.name for s in records[1].seats] == ["random", "greedy"]
    assert replay(records[3]).is_terminal
    json.loads(out.read_text().splitlines()[0])
    # as cutechess ends a match: the score with its interval, Elo and LOS, over the 3 sets;
    # three sets won do not make a LOS of 100 % beside an interval from 20.6 %
    shown = " ".join(result.output.split())
    assert re.search(r"greedy@1\.0\+\w+ vs random@1\.0\+\w+: 6 games, \+6 =0 -0 .* score "
                     r"100\.0% \(95% interval 20\.6% to 100\.0% over 3 duplicate sets\), "
                     r"Elo above [+-]\d+ .* LOS 80\.9% 3 seat-swapped pairs", shown), shown


def played(record):
    """What a game was, leaving out how long each decision took."""
    return (record.game, record.seed, [(s.name, s.version, s.status) for s in record.seats],
            [(m.seat, m.action) for m in record.moves], record.ranks, record.scores,
            record.termination)


@pytest.mark.parametrize(("game", "bots", "names"), [
    ("seasons", [GREEDY, RANDOM], ["greedy", "random"]),
    ("sonnentau", ["bots/sonnentau/heuristic.py", "bots/sonnentau/random_bot.py"],
     ["heuristic", "random"])])
def test_a_seed_plays_the_same_game_on_the_command_line_and_in_python(run, tmp_path, game,
                                                                       bots, names):
    import arena
    from arena.referee.dice import derive_seed

    one, many = tmp_path / "one.jsonl", tmp_path / "many.jsonl"
    result = run("play", game, *bots, "--seed", "7", "--json", str(one))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith(("Seasons of the Sun, seed 7 (",
                                                     "Sonnentau, seed 7 ("))
    env = arena.make(game)
    [record] = read_records(str(one))
    assert played(record) == played(env.run(names, seed=7))
    assert run("play", game, *bots, "--seed", "7", "--games", "4", "--json",
               str(many)).exit_code == 0
    records = read_records(str(many))
    match = env.play_match(names, seed=7, games=4)
    assert [played(r) for r in records] == [played(r) for r in match.records]
    assert played(records[0]) == played(record)  # game 1 of N is the single game
    later = derive_seed(7, "match", 1)  # the second group's seed, as the README says
    assert [r.seed for r in records] == [7, 7, later, later]
    assert played(env.run(names, seed=records[2].seed)) == played(records[2])


def test_the_command_line_takes_the_shipped_bots_names_as_python_does(run, tmp_path):
    import arena

    out = tmp_path / "named.jsonl"
    result = run("play", "sonnentau", "heuristic", "random", "--seed", "7", "--json", str(out))
    assert result.exit_code == 0, result.output
    [record] = read_records(str(out))
    assert played(record) == played(arena.make("sonnentau").run(["heuristic", "random"],
                                                                seed=7))
    unknown = run("play", "seasons", "greedy", "greedie")
    assert unknown.exit_code != 0
    assert "'greedie' not found" in unknown.output
    assert "shipped for seasons: expectimax, greedy, random" in unknown.output


def test_workers_play_the_same_games_and_write_them_in_order(run, tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    alone = run("play", "seasons", GREEDY, RANDOM, "--games", "12", "--json", str(one))
    shared = run("play", "seasons", GREEDY, RANDOM, "--games", "12", "--workers", "2",
                 "--json", str(two))
    assert alone.exit_code == shared.exit_code == 0, shared.output
    assert alone.stdout == shared.stdout  # the same summary

    def played(path):
        return [(r.seed, r.ranks, [m[:2] for m in r.moves], [s.name for s in r.seats])
                for r in read_records(str(path))]

    assert played(one) == played(two) and len(played(two)) == 12
    assert run("play", "seasons", "human", RANDOM, "--workers", "2").exit_code == 1


def test_json_refuses_to_overwrite_a_file_unless_told(run, tmp_path):
    out = tmp_path / "kept.jsonl"
    out.write_text("precious\n")
    refused = run("play", "seasons", GREEDY, RANDOM, "--json", str(out))
    assert refused.exit_code == 1 and "exists already; pass --overwrite" in refused.output
    assert out.read_text() == "precious\n"
    assert run("play", "seasons", GREEDY, RANDOM, "--json", str(out), "--overwrite"
               ).exit_code == 0
    assert len(read_records(str(out))) == 1
    nowhere = tmp_path / "no" / "such" / "games.jsonl"  # said before any game: not a raw errno
    missing = run("play", "seasons", GREEDY, RANDOM, "--json", str(nowhere))
    assert missing.exit_code == 1 and missing.output.strip() == (
        f"Error: {nowhere}: no folder {nowhere.parent} to write it in; make it first, or "
        "name another file")


def test_a_bot_for_another_game_is_refused_before_it_plays(run):
    result = run("play", "sonnentau", GREEDY, "bots/sonnentau/random_bot.py")
    assert result.exit_code == 1
    assert "bot bots/seasons/greedy.py plays seasons (its `games`), not sonnentau" in result.output


def test_a_crashing_bot_shows_its_traceback_under_the_log_and_the_summary(run, tmp_path):
    bot = tmp_path / "raiser.py"
    bot.write_text("class R:\n    name, version = 'r', '1'\n\n"
                   "    def act(self, observation):\n        return {}['x']\n")
    one = run("play", "seasons", str(bot), RANDOM)
    assert re.search(r"seat 0 \(r@1\+[0-9a-f]{6}\) lost by crash: act\(\) raised KeyError: 'x'",
                     one.output), one.output
    assert f'File "{bot}", line 5, in act' in one.output
    many = run("play", "seasons", str(bot), RANDOM, "--games", "4")
    assert re.search(r"r@1\+[0-9a-f]{6} lost by crash 4 times: act\(\) raised KeyError: 'x'",
                     many.output)
    assert many.output.count(f'File "{bot}", line 5, in act') == 1


def test_the_same_bot_twice_is_told_apart(run):
    result = run("play", "seasons", GREEDY, GREEDY, "--games", "2")
    assert result.exit_code == 0
    assert re.search(r"greedy@1\.0\+[0-9a-f]{6} #1", result.output)
    assert re.search(r"greedy@1\.0\+[0-9a-f]{6} #2", result.output)


def test_game_options_on_the_command_line(run):
    result = run("play", "seasons", GREEDY, RANDOM, "-o", "placement_limit=4")
    assert result.exit_code == 0
    assert "[placement-limit]" in result.output
    bad = run("play", "seasons", GREEDY, RANDOM, "-o", "placement_limt=4")
    assert bad.exit_code == 1
    assert "did you mean 'placement_limit'" in bad.output
    wrong = run("play", "seasons", GREEDY, RANDOM, "-o", "placement_limit=many")
    assert wrong.exit_code == 1 and "must be an integer" in wrong.output
    assert run("play", "seasons", GREEDY, RANDOM, "-o", "oops").exit_code == 2
    assert run("play", "seasons", GREEDY, RANDOM, "--dice", "miwin").exit_code == 1


@pytest.mark.parametrize(("args", "message"), [
    (("play", "chess", GREEDY, RANDOM), "unknown game 'chess'"),
    (("play", "seasons", "bots/seasons/nope.py", RANDOM), "no such file"),
    (("play", "seasons", GREEDY), "2 players, not 1"),
    (("play", "seasons", GREEDY, RANDOM, RANDOM), "2 players, not 3"),
    (("play", "seasons", GREEDY + ":Nope", RANDOM), "no attribute 'Nope'"),
])
def test_errors_are_one_line_and_exit_1(run, args, message):
    result = run(*args)
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_broken_bot_shows_its_own_traceback_after_the_line(run, tmp_path):
    bot = tmp_path / "crashy.py"
    bot.write_text("def load():\n    raise ValueError('bad weights')\n\nload()\n")
    result = run("play", "seasons", str(bot), RANDOM)
    assert result.exit_code == 1
    assert "Error: bot" in result.output and "ValueError: bad weights" in result.output
    assert "crashy.py\", line 2" in result.output


def test_unknown_games_list_the_known_ones(run):
    result = run("play", "sesons", GREEDY, RANDOM)
    assert "did you mean 'seasons'" in result.output and "known: " in result.output


def test_a_person_can_play_in_the_terminal(run):
    answers = "nonsense\n0\n99\n" + "1\n" * 200
    result = run("play", "seasons", "human", RANDOM, "--seed", "3", input=answers)
    assert result.exit_code == 0, result.output
    assert "seat 0 (outer)" in result.output and "seat 1 (inner)" in result.output
    assert "1. keep" in result.output
    assert "'nonsense' is not a choice" in result.output
    assert "'99' is not a choice" in result.output
    assert "Result: " in result.output


def test_a_person_may_type_the_action_itself(run):
    answers = "reroll:0,1,2\n" + "place:max-15\n" + "1\n" * 200
    result = run("play", "seasons", "human", RANDOM, "--seed", "3", input=answers)
    assert result.exit_code == 0
    assert "1. seat 0: " in result.output and "reroll slots 0,1,2" in result.output
    assert "on Max-15" in result.output


HEURISTIC = "bots/sonnentau/heuristic.py"
ST_RANDOM = "bots/sonnentau/random_bot.py"


@pytest.mark.parametrize("dice", ["standard", "miwin"])
@pytest.mark.parametrize("bots", [(HEURISTIC, ST_RANDOM), (HEURISTIC, ST_RANDOM, ST_RANDOM,
                                                         HEURISTIC)])
def test_sonnentau_games_with_two_and_four_bots_are_identical_per_seed(run, dice, bots):
    args = ["play", "sonnentau", *bots, "--dice", dice, "--seed", "4"]
    first, second = run(*args), run(*args)
    assert first.exit_code == 0, first.output
    assert first.output == second.output
    lines = first.output.splitlines()
    result = max(i for i, line in enumerate(lines) if line.startswith("Result: "))
    assert all(line.startswith("    ") for line in lines[result + 1:])  # its wrapped rest
    assert max(map(len, lines)) <= 80
    if dice == "miwin":
        assert "rolls " in first.output


def test_sonnentau_summary_over_many_games(run):
    result = run("play", "sonnentau", HEURISTIC, ST_RANDOM, ST_RANDOM, "--games", "3")
    assert result.exit_code == 0, result.output
    assert "3 games of Sonnentau" in result.output
    header = result.output.splitlines().index(next(line for line in result.output.splitlines()
                                                    if line.startswith("bot ")))
    assert result.output.splitlines()[header - 1].split()[-2:] == ["mean", "mean"]
    assert result.output.splitlines()[header].split()[-2:] == ["score", "rank"]


def test_the_board_drawing_and_a_recorded_position(run, tmp_path):
    plain = tmp_path / "board.svg"
    assert run("board", "--svg", str(plain)).exit_code == 0
    assert plain.read_text().startswith("<svg") or "<svg" in plain.read_text()[:300]
    records = tmp_path / "games.jsonl"
    assert run("play", "sonnentau", HEURISTIC, ST_RANDOM, "--json", str(records)).exit_code == 0
    at_move = tmp_path / "move.svg"
    result = run("board", "--record", str(records), "--move", "10", "--svg", str(at_move))
    assert result.exit_code == 0, result.output
    assert at_move.read_text() != plain.read_text()
    too_far = run("board", "--record", str(records), "--move", "100000", "--svg", str(at_move))
    assert too_far.exit_code == 1 and "moves, not 100000" in too_far.output
    assert run("board", "--move", "3", "--svg", str(at_move)).exit_code == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    broken = run("board", "--record", str(bad), "--svg", str(at_move))
    assert broken.exit_code == 1 and "line 1: not a game record" in broken.output


def test_a_full_report_folder_names_the_folder_and_how_to_write_it_later(run, tmp_path,
                                                                       monkeypatch):
    """It said only "[Errno 28] No space left on device"."""
    import errno

    from arena.reports import written

    config = tmp_path / "t.yaml"
    config.write_text(f"name: roomless\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\nseed: 1\n"
                      "isolation: none\n")

    original = written.replaced

    def no_room(path, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(written, "replaced", no_room)
    monkeypatch.setattr("arena.reports.csv_export.replaced", no_room)
    out = tmp_path / "out"
    result = run("run", str(config), "--no-progress", "--db", str(tmp_path / "a.db"),
                 "--output", str(out))
    shown = " ".join(result.output.split())
    assert result.exit_code == 1
    assert f"cannot write the report into {out}: No space left on device ({out}/" in shown
    # the command as printed: it named neither the database nor the folder
    command = re.search(r"and `(arena report roomless[^`]*)` writes the report once the "
                        "folder can take it", shown)
    assert command is not None, shown
    assert command.group(1) == f"arena report roomless --db {tmp_path / 'a.db'} --out {out}"
    monkeypatch.setattr("arena.reports.csv_export.replaced", original)
    monkeypatch.setattr(written, "replaced", original)
    assert run(*shlex.split(command.group(1))[1:]).exit_code == 0
    assert (out / "report.html").exists()


def test_a_database_error_of_a_command_that_plays_nothing_speaks_of_no_resuming(
        run, tmp_path, monkeypatch):
    import sqlite3

    from arena.results.store import Store

    config = tmp_path / "t.yaml"
    config.write_text(f"name: locked\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\nseed: 1\n"
                      "isolation: none\n")
    db = str(tmp_path / "a.db")
    assert run("run", str(config), "--no-progress", "--db", db).exit_code == 0

    def locked(*args, **kwargs):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(Store, "games", locked)
    shown = " ".join(run("report", "locked", "--db", db).output.split())
    assert "the results database: database is locked; fix this and run the command again" \
        in shown and "resume" not in shown and "kept" not in shown


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a read-only bind mount needs root and unshare")
def test_a_database_on_a_read_only_disk_says_so_not_that_it_is_damaged(run, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(f"name: archived\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\nseed: 1\n"
                      "isolation: none\n")
    db = tmp_path / "a.db"
    assert run("run", str(config), "--no-progress", "--db", str(db)).exit_code == 0
    script = (f"mount --make-rprivate / && mount --bind {tmp_path} {tmp_path} && "
              f"mount -o remount,bind,ro {tmp_path} && "
              f"{sys.executable} -m arena ratings --db {db}")
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True,
                          text=True, timeout=120)
    if "mount:" in done.stderr:
        pytest.skip(f"no read-only bind mount here: {done.stderr.strip()}")
    assert done.returncode == 1
    said = " ".join(done.stderr.split())
    assert "arena cannot write there (a read-only disk or folder)" in said, said
    assert "not a usable results database" not in said


def test_a_full_disk_is_one_clear_line_and_keeps_what_was_stored(run, tmp_path, monkeypatch):
    import sqlite3

    from arena.results.store import Store

    config = tmp_path / "t.yaml"
    config.write_text(f"name: full\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\n"
                      "games_per_pairing: 20\nisolation: none\n")
    saved = []
    original = Store.save_game

    def save_until_full(self, *args):
        if len(saved) == 5:
            raise sqlite3.OperationalError("database or disk is full")
        saved.append(1)
        original(self, *args)

    monkeypatch.setattr(Store, "save_game", save_until_full)
    db = tmp_path / "full.db"
    result = run("run", str(config), "--no-progress", "--db", str(db),
                 "--output", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "database or disk is full" in result.output and "resume" in result.output
    assert "Traceback" not in result.output
    monkeypatch.setattr(Store, "save_game", original)
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT count(*) FROM games").fetchone()[0] == 5
    resumed = run("run", str(config), "--no-progress", "--db", str(db),
                  "--output", str(tmp_path / "out"))
    assert resumed.exit_code == 0, resumed.output


def test_text_a_bot_supplies_cannot_act_on_the_terminal(run, tmp_path):
    bot = tmp_path / "loud.py"
    bot.write_text("class Loud:\n    name, version = 'loud', '1'\n\n    def act(self, o):\n"
                   "        raise RuntimeError('\\x1b[2J\\x1b[31mred\\rgreedy@1.0 wins')\n")
    result = run("play", "seasons", str(bot), RANDOM, "--isolation", "none")
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\r" not in result.output
    assert "act() raised RuntimeError: \\x1b[2J\\x1b[31mred" in result.output


def test_arena_run_says_how_its_bots_are_isolated(run, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(f"name: iso\ngame: seasons\nbots: [{GREEDY}, {{spec: {RANDOM}, isolation: "
                      f"none}}]\ndb: {tmp_path / 'a.db'}\noutput: {tmp_path / 'out'}\n")
    result = run("run", str(config), "--no-progress")
    assert result.exit_code == 0, result.output
    assert re.search(r"bots run greedy@1\.0\+[0-9a-f]{6} sandboxed \(bubblewrap\); "
                     r"random@1\.0\+[0-9a-f]{6} inside arena \(trusted\)",
                     " ".join(result.output.split()))
    rows = list(__import__("csv").DictReader((tmp_path / "out/games.csv").open()))
    assert {(row["seat0_isolation"], row["seat1_isolation"]) for row in rows} == {
        ("sandbox", "none"), ("none", "sandbox")}


def test_without_the_sandbox_a_run_of_shipped_bots_says_so_once_and_plays_in_processes(
        run, tmp_path, monkeypatch):
    from arena.bots import isolation

    monkeypatch.setattr(isolation, "sandbox_problem", lambda: "bwrap is not installed")
    monkeypatch.setattr(isolation, "_announced", False)
    config = tmp_path / "c.yaml"
    config.write_text(f"name: fallback\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\n"
                      f"db: {tmp_path / 'a.db'}\noutput: {tmp_path / 'out'}\n")
    result = run("run", str(config), "--no-progress")
    assert result.exit_code == 0, result.output
    assert result.output.count("warning: no sandbox: bwrap is not installed") == 1
    assert "bots run in plain processes, not sandboxed" in result.output
    asked = config.read_text() + "isolation: sandbox\n"
    config.write_text(asked.replace("fallback", "asked"))
    refused = run("run", str(config), "--no-progress")
    assert refused.exit_code == 1 and "isolation 'sandbox' was asked for" in refused.output


def test_without_the_sandbox_anyone_elses_bot_stops_run_and_play_before_a_game(
        run, tmp_path, monkeypatch):
    from arena.bots import isolation

    monkeypatch.setattr(isolation, "sandbox_problem", lambda: (
        f"bubblewrap (bwrap) is not installed; install it with: {INSTALL_HINT}"))
    own = tmp_path / "mine.py"
    own.write_text(Path(RANDOM).read_text())
    config = tmp_path / "c.yaml"
    config.write_text(f"name: mine\ngame: seasons\nbots: [{own}, {RANDOM}]\n"
                      f"db: {tmp_path / 'a.db'}\noutput: {tmp_path / 'out'}\n")
    for result in (run("run", str(config), "--no-progress"),
                   run("play", "seasons", str(own), RANDOM, "--games", "2")):
        assert result.exit_code == 1, result.output
        assert "apt-get install bubblewrap" in result.output
        assert "isolation: process" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "a.db").exists() or "mine" not in run("ratings", "--db", str(
        tmp_path / "a.db")).output
    broken = "bubblewrap (bwrap) does not work here: No module named 'arena'"
    monkeypatch.setattr(isolation, "sandbox_problem", lambda: broken)
    result = run("run", str(config), "--no-progress")  # installed, but it fails: no advice
    assert result.exit_code == 1 and broken in " ".join(result.output.split()), result.output
    assert "apt-get" not in result.output, result.output  # said "install bubblewrap"
    config.write_text(config.read_text() + "isolation: process\n")
    played = run("run", str(config), "--no-progress")
    assert played.exit_code == 0, played.output
    assert "bots run in plain processes, not sandboxed" in played.output


def test_a_config_without_a_seed_is_told_its_dice_are_public(run, tmp_path):
    """No seed is seed 0: a bot could compute every die from it (a reviewer's bot predicted
    every re-roll), and nothing said so."""
    config = tmp_path / "c.yaml"
    base = (f"name: open\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\nisolation: none\n"
            f"db: {tmp_path / 'a.db'}\noutput: {tmp_path / 'out'}\n")
    config.write_text(base)
    shown = " ".join(run("run", str(config), "--no-progress").output.split())
    assert "seed 0 (the config gives none: every bot can compute the dice from it; write " \
           "`seed: secret` for bots you do not trust)" in shown
    config.write_text(base.replace("name: open", "name: given") + "seed: 0\n")
    given = " ".join(run("run", str(config), "--no-progress").output.split())
    assert "seed 0" in given and "gives none" not in given


def test_a_run_says_what_the_sandbox_cannot_bound_without_cgroups(run, tmp_path, monkeypatch):
    """Without a memory cgroup, memory outside each process's address space went uncounted,
    and nothing said so."""
    from arena.bots import cgroups
    from arena.tournaments.runner import without_groups

    monkeypatch.setattr(cgroups, "available", lambda controller="memory": False)
    said = " ".join(without_groups())
    assert said.startswith("no memory or cpuacct cgroup here (arena needs root and cgroup v1)")
    assert "each of a bot's processes has its own memory limit" in said
    monkeypatch.setattr(cgroups, "available", lambda controller="memory": True)
    assert without_groups() == []
    monkeypatch.setattr(cgroups, "available", lambda controller="memory": controller != "cpuacct")
    config = tmp_path / "c.yaml"
    config.write_text(f"name: bounded\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\nseed: 1\n"
                      f"isolation: process\ndb: {tmp_path / 'a.db'}\n")
    assert "cgroup" not in run("run", str(config), "--no-progress").output  # not sandboxed
    from arena.bots.sandbox import sandbox_problem

    if sandbox_problem() is None:
        config.write_text(config.read_text().replace("isolation: process\n", "")
                          .replace("bounded", "boxed"))
        shown = " ".join(run("run", str(config), "--no-progress").output.split())
        assert "bots run sandboxed (bubblewrap) no cpuacct cgroup here" in shown


def test_a_secret_seed_stays_secret_until_the_tournament_is_complete(run, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(f"name: hidden\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\nseed: secret\n"
                      f"games_per_pairing: 4\ndb: {tmp_path / 'a.db'}\n"
                      f"output: {tmp_path / 'out'}\n")
    result = run("run", str(config), "--no-progress")
    assert result.exit_code == 0, result.output
    assert "seed secret (shown once the tournament is complete)" in " ".join(
        result.output.split())  # the header wrapped between words
    seed = int(result.output.split("the secret seed was ")[1].split()[0])
    report = (tmp_path / "out/report.html").read_text()
    assert str(seed) in report


def test_a_long_round_robin_shows_its_standings_three_times_before_the_end():
    from arena.cli.run import interim_every
    from arena.tournaments.config import parse_config
    from arena.tournaments.runner import total_games

    for bots in (32, 33, 45):
        config = parse_config({"name": "many", "game": "seasons", "games_per_pairing": 1,
                               "bots": [{"spec": GREEDY, "name": f"b{i}"}
                                        for i in range(bots)]})
        total, every = total_games(config), interim_every(config, None)
        shown = [games for games in range(1, total + 1) if games % every == 0]
        assert len(shown) == 3 and shown[-1] < total, (bots, total, shown)
    assert interim_every(config, 7) == 7


@pytest.mark.parametrize("command", ["new", "validate"])
def test_a_bots_command_typed_without_bots_says_where_it_is(run, command):
    result = run(command, "x")
    assert result.exit_code == 2
    assert f"No such command '{command}': it is `arena bots {command}`." in result.output


@pytest.mark.parametrize(("args", "said"), [
    (("play", "seasons", "README.md", "random"),
     "bot 'README.md': README.md is a file but no Python bot"),
    (("play", "seasons", "bots/seasons", "random"),
     "bots/seasons is a folder without __init__.py: name one of its bot files"),
    (("play", "seasons", "heuristic", "random"),
     "bot 'heuristic' is shipped for sonnentau, not seasons; the bots shipped for seasons:"),
    (("bots", "validate", "README.md"), "it is no bot: README.md is a file but no Python bot"),
    (("board", "--svg", "no-such-folder/b.svg"),
     "no folder no-such-folder to write it in; make it first"),
    (("serve", "configs/seasons-round-robin.yaml"),
     "this is a tournament or ladder config (it names a game and bots); arena serve takes a "
     "serve config"),
], ids=["text-file", "folder", "other-game", "validate", "svg-folder", "serve-config"])
def test_a_thing_that_exists_but_is_the_wrong_kind_is_named_for_what_it_is(run, args, said):
    """A file that exists was "not found", a Sonnentau bot's name "not found" for Seasons,
    a missing folder an OS error, a tournament config given to serve four unknown keys."""
    result = run(*args)
    assert result.exit_code == 1, result.output
    assert said in " ".join(result.output.split())
    assert "not found" not in result.output and "Errno" not in result.output


def test_every_option_says_what_it_does_and_no_command_summary_is_cut(run):
    """--progress, --games and --folder had no words, and six commands' summaries in
    `arena --help` ended in "..."."""
    import click

    from arena.cli import cli

    def commands(group, path):
        for name, command in group.commands.items():
            yield f"{path} {name}", command
            if isinstance(command, click.Group):
                yield from commands(command, f"{path} {name}")

    silent = [f"{path} {'/'.join(param.opts)}" for path, command in commands(cli, "arena")
              for param in command.params
              if isinstance(param, click.Option) and not param.help and "--help" not in param.opts]
    assert silent == []
    for path, command in [("arena", cli), *commands(cli, "arena")]:
        if isinstance(command, click.Group):
            shown = run(*path.split()[1:], "--help").output
            assert "..." not in shown.split("Commands:")[-1], (path, shown)


def test_an_output_folder_arena_cannot_write_is_named_with_the_setting(tmp_path, monkeypatch):
    """Not `[Errno 20] Not a directory: 'afile/sub'`: which setting, and what to do."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    (tmp_path / "t.yaml").write_text("name: t\ngame: seasons\nseed: 1\nisolation: none\n"
                                     "bots: [greedy, random]\noutput: afile/sub\n")
    result = CliRunner().invoke(cli, ["run", "t.yaml"])
    assert result.exit_code == 1
    assert result.output == ("Error: the output folder 'afile/sub' (the config's `output`, or "
                             "--output) cannot take arena.log: Not a directory; choose a "
                             "folder arena may write to\n")
    assert not (tmp_path / "results").exists()


def test_a_summary_of_three_seats_says_what_its_points_are(run):
    """0 wins, 0 draws and 3 losses beside 0.75 points, with no word on why."""
    result = run("play", "sonnentau", "heuristic", "random", "random", "-o", "turn_limit=40",
                 "--games", "3")
    assert result.exit_code == 0, result.output
    shown = " ".join(result.output.split())
    assert "loss: any other place; points: per game, (players beaten + 1/2 tied) / 2" in shown


def test_ratings_of_a_game_without_games_say_so(run, tmp_path):
    """``arena ratings --game sonnentau`` printed nothing where only Seasons was played."""
    config = tmp_path / "t.yaml"
    config.write_text(f"name: s\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\nseed: 1\n"
                      "isolation: none\ngames_per_pairing: 1\n")
    db = str(tmp_path / "a.db")
    assert run("run", str(config), "--no-progress", "--db", db, "--output",
               str(tmp_path / "o")).exit_code == 0
    none = run("ratings", "--game", "sonnentau", "--db", db)
    assert none.exit_code == 0
    assert " ".join(none.output.split()).startswith(f"no rated sonnentau games in {db} yet")
    some = run("ratings", "--db", db)
    assert some.output.startswith("seasons, 2 players") and "no rated" not in some.output
