"""The continuous ladder: matchmaking, submissions while it runs, stop and resume."""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
import random
import re
import signal
import stat
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from arena.bots.sandbox import INSTALL_HINT
from arena.cli import cli
from arena.results.ladder_book import (
    ACTIVE,
    ERROR,
    QUEUED,
    RETIRED,
    VALIDATED,
    VALIDATING,
    LadderBook,
    Submission,
)
from arena.results.store import Store, StoreError
from arena.tournaments.config import ConfigError
from arena.tournaments.ladder import (
    LadderControl,
    LadderProgress,
    find_ladder,
    ratings_of,
    run_ladder,
)
from arena.tournaments.ladder_config import parse_ladder_config
from arena.tournaments.ladder_intake import Validator, ladder_home, named_in_verdict, stage
from arena.tournaments.matchmaking import Candidate, meetings_of, pair_gain, plan_round

ROOT = Path(__file__).resolve().parent.parent
BETA = 25 / 6
CRASHER = '''
class Bot:
    name = "crasher"
    version = "1"
    games = ("seasons",)

    def act(self, observation):
        raise KeyError("x")
'''


def ladder_data(tmp_path: Path, **ladder: object) -> dict[str, object]:
    return {"name": "ladder", "game": "seasons", "seed": 3, "workers": 1,
            "db": str(tmp_path / "arena.db"), "output": str(tmp_path / "out"),
            "bots": ["bots/seasons/random_bot.py", "bots/seasons/greedy.py",
                     {"spec": "bots/seasons/greedy.py", "name": "steady",
                      "params": {"rerolls": False}}],
            "ladder": {"submissions": str(tmp_path / "incoming"), **ladder}}


def played(db: Path) -> list[tuple[str, tuple[int, ...], int, tuple[int, ...]]]:
    """The ladder's games in the order they were stored."""
    with Store(db) as store:
        rows = store.db.execute("SELECT key, seats, seed, ranks FROM games ORDER BY id")
        return [(key, tuple(json.loads(seats)), seed, tuple(json.loads(ranks)))
                for key, seats, seed, ranks in rows]


# -- matchmaking -------------------------------------------------------------------------


def test_a_game_between_equals_teaches_more_than_a_foregone_one():
    even = pair_gain((25.0, 4.0), (25.0, 4.0), BETA)
    assert pair_gain((25.0, 4.0), (40.0, 4.0), BETA) < even / 2
    assert pair_gain((25.0, 64.0), (25.0, 4.0), BETA) > 10 * even  # the uncertain one


def test_matchmaking_seats_the_newcomer_most_but_not_alone():
    settled = [Candidate(key, 20.0 + 2 * key, 1.5) for key in range(6)]
    newcomer = Candidate(6, 25.0, 25 / 3)
    tables = plan_round([*settled, newcomer], 2, 8, random.Random(1), beta=BETA,
                        exploration=0.0, games_per_table=2)
    seated = Counter(key for table in tables for key in table)
    assert seated[6] == max(seated.values()) == 8 * 2 // 7 + 2  # the cap: ⌈T·k/n⌉ + 1
    assert len({table for table in tables if 6 in table}) == seated[6]  # each time another
    assert all(table == tuple(sorted(table)) and len(set(table)) == 2 for table in tables)


def test_matchmaking_prefers_close_ratings_and_explores_every_pair():
    bots = [Candidate(key, 10.0 * key, 1.0) for key in range(5)]
    greedy = plan_round(bots, 2, 4, random.Random(2), beta=BETA, exploration=0.0)
    assert all(b - a == 1 for a, b in greedy)  # neighbours only: the rest is foregone
    tables: list[tuple[int, ...]] = []
    for seed in range(50):  # exploration goes to the pairs that met least
        tables += plan_round(bots, 2, 4, random.Random(seed), beta=BETA, exploration=0.2,
                             meetings=meetings_of(tables))
    assert len(Counter(tables)) == 10  # every pair of five, now and then


def test_matchmaking_fills_tables_of_more_seats():
    bots = [Candidate(key, 25.0, 2.0 + key) for key in range(7)]
    tables = plan_round(bots, 4, 5, random.Random(3), beta=BETA)
    assert all(len(set(table)) == 4 for table in tables)
    assert plan_round(bots[:3], 4, 5, random.Random(3), beta=BETA) == []


# -- the config --------------------------------------------------------------------------


def test_ladder_configs_refuse_what_a_ladder_has_not(tmp_path):
    data = ladder_data(tmp_path)
    with pytest.raises(ConfigError, match="rounds: a ladder has no rounds"):
        parse_ladder_config({**data, "rounds": 3}, "l.yaml")
    with pytest.raises(ConfigError, match=r"ladder\.exploration: must be from 0 to 1"):
        parse_ladder_config(ladder_data(tmp_path, exploration=2), "l.yaml")
    with pytest.raises(ConfigError, match="ladder: unknown key 'final_game'"):
        parse_ladder_config(ladder_data(tmp_path, final_game=3), "l.yaml")
    with pytest.raises(ConfigError, match="has 2,000,000 games, more than the 100,000"):
        parse_ladder_config(ladder_data(tmp_path, tables_per_round=10_000,
                                        sets_per_meeting=100), "l.yaml")


# -- running -----------------------------------------------------------------------------


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def run_rounds(data: dict[str, object], rounds: int) -> None:
    config = parse_ladder_config(data, "ladder.yaml")
    with Store(config.play.db) as store:
        run_ladder(config, store, LadderControl(rounds=rounds, idle_exit=True))


@pytest.mark.usefixtures("at_root")
def test_the_same_seed_gives_the_same_games_in_the_same_order(tmp_path):
    runs = []
    for name, workers in (("a", 1), ("b", 1), ("c", 2), ("d", 1)):
        folder = tmp_path / name
        data = {**ladder_data(folder), "isolation": "none", "workers": workers}
        if name != "d":
            run_rounds(data, 3)
        run_rounds(data, 5)  # resumed: two rounds more (d: all five at once)
        runs.append(played(folder / "arena.db"))
    assert len(runs[0]) == 5 * 3 * 2  # five rounds of three tables, each a seat-swapped pair
    assert runs[0] == runs[1] == runs[3]  # resumed, the meetings are counted from the store
    assert sorted(runs[2]) == sorted(runs[0])  # two workers: the same games, in another order
    assert len({key for key, *_ in runs[0]}) == len(runs[0])
    with Store(tmp_path / "a" / "arena.db") as store:  # kept as played = computed afresh
        kept = LadderBook(store, 1).current_ratings()
        computed = ratings_of(store, find_ladder(store, "ladder"))
        assert {p: (line.mu, line.sigma, line.games) for p, line in kept.items()} == {
            p: (r.mu, r.sigma, computed.games[p]) for p, r in computed.ratings.items()}


@pytest.mark.usefixtures("at_root")
def test_newer_versions_retire_older_ones_and_a_frozen_ladder_ends_with_a_final_standing(
        tmp_path):
    data = {**ladder_data(tmp_path, final_games=8), "isolation": "none"}
    run_rounds(data, 2)
    edited = tmp_path / "greedy.py"
    edited.write_text((ROOT / "bots/seasons/greedy.py").read_text() + "\n# faster\n")
    data["bots"] = [*data["bots"][:1], str(edited), *data["bots"][2:]]  # type: ignore[index]
    run_rounds(data, 3)
    with Store(tmp_path / "arena.db") as store:
        book = LadderBook(store, find_ladder(store, "ladder").id)
        greedy = sorted((s.bot_id, s.status) for s in book.submissions()
                        if s.bot_id is not None and store.bot(s.bot_id).identity.name == "greedy")
        assert [status for _, status in greedy] == [RETIRED, ACTIVE]  # the older retired
        assert store.bot(greedy[0][0]).label != store.bot(greedy[1][0]).label
    runner = CliRunner()
    frozen = runner.invoke(cli, ["ladder", "freeze", "ladder", "--db", str(tmp_path / "arena.db")])
    assert "is frozen" in frozen.output, frozen.output
    run_rounds(data, 100)  # stops by itself once the final games are played
    status = runner.invoke(cli, ["ladder", "status", "ladder", "--db", str(tmp_path / "arena.db")])
    assert "complete" in status.output and "final standing (all games among" in status.output
    with Store(tmp_path / "arena.db") as store:
        row = find_ladder(store, "ladder")
        book = LadderBook(store, row.id)
        final = book.games_in_phase("final")
        assert 8 <= final < 8 + 6  # completes the round that reaches final_games
        assert row.status == "complete"
    config = tmp_path / "ladder.yaml"  # run again from the command line: nothing is open
    config.write_text(yaml.safe_dump(data))
    again = " ".join(runner.invoke(cli, ["ladder", "run", str(config), "--no-progress"])
                     .output.split())
    assert "complete (frozen, its final games played); nothing to play" in again, again
    assert "ladder 'ladder' is complete:" in again
    assert "submissions by" not in again and "resume" not in again


@pytest.mark.usefixtures("at_root")
def test_a_ladder_done_with_its_rounds_waits_for_a_stuck_validation_only_so_long(tmp_path):
    """A validation process that never gives its verdict (stopped, or stuck) does not hold
    the ladder's end: it is stopped, and its submission waits for the next run."""
    data = {**ladder_data(tmp_path), "isolation": "none"}
    run_rounds(data, 1)
    with Store(tmp_path / "arena.db") as store:
        tournament = find_ladder(store, "ladder").id
        book = LadderBook(store, tournament)
        submission = book.submit("folder: stuck.py", "stuck.py", status=VALIDATING)
        validator = Validator(store, tournament, None)  # type: ignore[arg-type]
        validator.process = multiprocessing.get_context("spawn").Process(
            target=time.sleep, args=(600,), daemon=True)
        validator.process.start()
        validator.current = submission
        os.kill(validator.process.pid, signal.SIGSTOP)
        began = time.monotonic()
        notes = validator.finish(seconds=1.0)
        assert time.monotonic() - began < 30
        assert notes == [f"submission {submission}: no verdict within 1 s; queued again for "
                         "the next run"]
        assert not validator.busy and book.submission(submission).status == QUEUED


def run_until_judged(data: dict[str, object], db: Path) -> int:
    """Run rounds until no submission waits for its verdict; the rounds played in all."""
    for rounds in range(2, 60):
        run_rounds(data, rounds)
        if not {QUEUED, VALIDATING, VALIDATED} & set(submission_status(db).values()):
            return rounds
    raise AssertionError("the submissions were never judged")


def wait_for(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def newcomer_of(book: LadderBook) -> Submission:
    return next(s for s in book.submissions() if s.source == "arena submit")


def submission_status(db: Path) -> dict[str, str]:
    with Store(db) as store:
        return {s.source: s.status for s in LadderBook(store, 1).submissions()}


@pytest.mark.stress
@pytest.mark.usefixtures("at_root")
def test_bots_submitted_while_the_ladder_runs_are_validated_and_the_new_one_plays_most(
        tmp_path):
    """The acceptance test: shipped bots in the sandbox; a broken and a new bot submitted
    while it runs; stopped by Ctrl-C and resumed without a game lost or played twice."""
    data = ladder_data(tmp_path)
    config = tmp_path / "ladder.yaml"
    config.write_text(yaml.safe_dump(data))
    db = tmp_path / "arena.db"
    arena = [sys.executable, "-m", "arena"]
    settle = subprocess.run([*arena, "ladder", "run", str(config), "--rounds", "12",
                             "--no-progress"], capture_output=True, text=True, timeout=300)
    assert settle.returncode == 0, settle.stderr
    ladder = subprocess.Popen([*arena, "ladder", "run", str(config), "--no-progress"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: len(played(db)) > 12 * 6, 60, "the resumed ladder to play")
        crasher = tmp_path / "crasher.py"
        crasher.write_text(CRASHER)
        (tmp_path / "incoming").mkdir()
        os.replace(crasher, tmp_path / "incoming" / "crasher.py")
        newcomer = tmp_path / "newcomer.py"
        newcomer.write_text((ROOT / "bots/seasons/greedy.py").read_text().replace(
            '"greedy"', '"newcomer"'))
        submitted = CliRunner().invoke(cli, ["submit", "--ladder", "ladder", str(newcomer),
                                             "--db", str(db)])
        assert "queued for ladder 'ladder'" in submitted.output, submitted.output
        wait_for(lambda: set(submission_status(db).values()) >= {ERROR} and
                 submission_status(db).get("arena submit") == ACTIVE, 120,
                 "both submissions to be judged")
        with Store(db) as store:
            joined = newcomer_of(LadderBook(store, 1)).joined_round
        status = CliRunner().invoke(cli, ["ladder", "status", "ladder", "--db", str(db)])
        assert ladder.poll() is None  # read while the ladder runs
        assert "open for submissions" in status.output and "in the last hour" in status.output
        assert "4 active, 1 error" in status.output and "KeyError" in status.output
        wait_for(lambda: {key.split("-")[0] for key, *_ in played(db)} >= {
            f"r{joined + 3}"}, 120, "three rounds with the newcomer")
    finally:
        ladder.send_signal(signal.SIGINT)
        out, err = ladder.communicate(timeout=120)
    assert ladder.returncode == 130, err  # stopped, not done: a script can tell
    assert "stopping: finishing the games being played" in err
    assert "stopped:" in out and "newcomer@1.0" in out and "1 error" in out
    before = played(db)
    with Store(db) as store:
        book = LadderBook(store, 1)
        broken = next(s for s in book.submissions() if s.source == "folder: crasher.py")
        assert broken.status == ERROR and broken.position is None
        assert "KeyError" in broken.log and "NOT VALID" in broken.log
        newcomer_position = newcomer_of(book).position
        rounds_since = {f"r{r}" for r in range(joined, joined + 3)}
        seated = Counter(seat for key, seats, *_ in before if key.split("-")[0] in rounds_since
                         for seat in seats)
        assert seated[newcomer_position] > max(n for p, n in seated.items()
                                               if p != newcomer_position)
        done_rounds = book.round_count()
    resumed = subprocess.run([*arena, "ladder", "run", str(config), "--rounds",
                              str(done_rounds + 1), "--no-progress"],
                             capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    after = played(db)
    assert after[:len(before)] == before  # nothing lost
    assert len({key for key, *_ in after}) == len(after)  # nothing played twice
    with Store(db) as store:
        book = LadderBook(store, 1)
        assert book.round_count() == done_rounds + 1
        per_round = Counter(key.split("-")[0] for key, *_ in after)
        for ladder_round in book.rounds():
            assert per_round[f"r{ladder_round.round}"] == 2 * len(ladder_round.tables)


@pytest.mark.usefixtures("at_root")
def test_the_submissions_folder_takes_only_plain_python_files(tmp_path):
    data = {**ladder_data(tmp_path), "isolation": "none"}
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    (incoming / "link.py").symlink_to(ROOT / "bots/seasons/greedy.py")
    (incoming / "bad name.py").write_text("x = 1\n")
    (incoming / ".hidden.py").write_text("x = 1\n")
    past = time.time() - 5
    for path in incoming.iterdir():
        os.utime(path, (past, past), follow_symlinks=False)
    run_rounds(data, 1)
    assert sorted(p.name for p in incoming.iterdir()) == [
        ".hidden.py", "bad name.py.refused", "link.py.refused"]
    with Store(tmp_path / "arena.db") as store:
        assert len(LadderBook(store, 1).submissions()) == 3  # the config's bots only
        assert not list((ladder_home(store, "ladder")).glob("staged/*"))


@pytest.mark.usefixtures("at_root")
def test_a_ladder_is_reported_by_rating_and_seen_by_ratings(tmp_path):
    data = {**ladder_data(tmp_path), "isolation": "none"}
    run_rounds(data, 3)
    runner = CliRunner()
    db = str(tmp_path / "arena.db")
    report = runner.invoke(cli, ["report", "ladder", "--db", db, "--out", str(tmp_path / "r")])
    assert report.exit_code == 0, report.output
    html = (tmp_path / "r" / "report.html").read_text()
    assert "Ordered by rating" in html and "Seasons of the Sun · ladder<" in html
    ratings = runner.invoke(cli, ["ratings", "--db", db])
    assert "greedy@1.0" in ratings.output and "steady@1.0" in ratings.output
    retired = runner.invoke(cli, ["ladder", "retire", "steady@1.0", "--db", db])
    assert "retired from ladder 'ladder'" in retired.output, retired.output
    run_rounds(data, 5)
    with Store(db) as store:
        late = [seats for key, seats, *_ in played(Path(db)) if key.startswith(("r3-", "r4-"))]
        steady = store.find_bot("seasons", "steady@1.0").id
        position = store.entrants(1).index(steady)
        assert late and not any(position in seats for seats in late)


@pytest.mark.usefixtures("at_root")
def test_a_submission_cannot_take_the_name_of_an_organizers_bot(tmp_path):
    data = {**ladder_data(tmp_path), "isolation": "none"}
    run_rounds(data, 1)
    impostor = tmp_path / "greedy.py"
    impostor.write_text((ROOT / "bots/seasons/greedy.py").read_text() + "\n# mine now\n")
    db = str(tmp_path / "arena.db")
    (tmp_path / "ladders").mkdir(mode=0o755)  # made by an older arena
    CliRunner().invoke(cli, ["submit", "--ladder", "ladder", str(impostor), "--db", db])
    # participants' code: no other user of the machine reads it
    assert stat.S_IMODE((tmp_path / "ladders").stat().st_mode) == 0o700
    run_until_judged(data, Path(db))
    with Store(db) as store:
        book = LadderBook(store, 1)
        impostor_entry = newcomer_of(book)
        assert impostor_entry.status == ERROR and "belongs to a bot of the ladder" in \
            impostor_entry.log
        assert {store.bot(s.bot_id).label.partition("+")[0]
                for s in book.submissions(ACTIVE)} == {"random@1.0", "greedy@1.0", "steady@1.0"}
        assert len(book.submissions(ACTIVE)) == 3  # the impostor is none of them


@pytest.mark.usefixtures("at_root")
def test_a_sonnentau_ladder_seats_three_bots_a_table_in_every_rotation(tmp_path):
    data = {**ladder_data(tmp_path), "game": "sonnentau", "seats": 3, "isolation": "none",
            "bots": ["bots/sonnentau/random_bot.py", "bots/sonnentau/heuristic.py",
                     {"spec": "bots/sonnentau/random_bot.py", "name": "random-b"},
                     {"spec": "bots/sonnentau/heuristic.py", "name": "heuristic-b"}]}
    run_rounds(data, 2)
    games = played(tmp_path / "arena.db")
    assert len(games) == 2 * 4 * 3  # two rounds of four tables, three rotations each
    assert all(len(set(seats)) == 3 for _key, seats, *_ in games)
    by_table: dict[str, set[tuple[int, ...]]] = {}
    for key, seats, seed, _ranks in games:
        by_table.setdefault(key.rsplit("-", 1)[0], set()).add((seed, tuple(sorted(seats))))
    assert all(len(found) == 1 for found in by_table.values())  # one seed, one group per table


@pytest.mark.usefixtures("at_root")
def test_a_broken_bot_of_the_config_is_an_error_and_the_others_play(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("class Bot(:\n")
    data = {**ladder_data(tmp_path), "isolation": "process"}
    data["bots"] = [*data["bots"], str(broken)]  # type: ignore[list-item]
    run_rounds(data, 2)
    run_rounds(data, 3)  # resumed: the same error is not recorded twice
    with Store(tmp_path / "arena.db") as store:
        book = LadderBook(store, 1)
        errors = book.submissions(ERROR)
        assert len(errors) == 1 and errors[0].source == "config: bots[3]"
        assert "SyntaxError" in errors[0].log or "cannot be loaded" in errors[0].log
        assert len(book.submissions(ACTIVE)) == 3
    assert len(played(tmp_path / "arena.db")) == 3 * 3 * 2


@pytest.mark.usefixtures("at_root")
def test_a_file_that_changes_as_it_is_taken_is_refused_and_the_ladder_plays_on(
        tmp_path, monkeypatch):
    from arena.games.base import ArenaError
    from arena.tournaments import ladder_intake

    data = {**ladder_data(tmp_path), "isolation": "none"}
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    swapped = incoming / "swapped.py"
    swapped.write_text("x = 1\n")
    os.utime(swapped, (time.time() - 5, time.time() - 5))

    def now_a_link(file: Path) -> bytes:
        raise ArenaError(f"cannot read {file}: Too many levels of symbolic links")

    monkeypatch.setattr(ladder_intake, "_read_plain", now_a_link)
    run_rounds(data, 2)
    assert [p.name for p in incoming.iterdir()] == ["swapped.py.refused"]
    assert len(played(tmp_path / "arena.db")) == 2 * 3 * 2


@pytest.mark.usefixtures("at_root")
def test_without_the_sandbox_a_ladder_of_others_bots_stops_before_its_first_game(
        tmp_path, monkeypatch):
    from arena.bots import isolation

    monkeypatch.setattr(isolation, "sandbox_problem", lambda: (
        f"bubblewrap (bwrap) is not installed; install it with: {INSTALL_HINT}"))
    own = tmp_path / "mine.py"
    own.write_text((ROOT / "bots/seasons/random_bot.py").read_text())
    data = {**ladder_data(tmp_path), "bots": ["bots/seasons/greedy.py", str(own)]}
    with pytest.raises(isolation.IsolationError, match="apt-get install bubblewrap"):
        run_rounds(data, 1)
    assert not (tmp_path / "arena.db").exists() or played(tmp_path / "arena.db") == []
    run_rounds({**data, "isolation": "process"}, 1)
    assert played(tmp_path / "arena.db")


@pytest.mark.usefixtures("at_root")
def test_a_refused_submissions_log_names_the_file_as_it_was_submitted(tmp_path):
    data = {**ladder_data(tmp_path), "isolation": "none"}
    run_rounds(data, 1)
    crashing = tmp_path / "crashy.py"
    crashing.write_text("class Crashy:\n    name, version = 'crashy', '1'\n\n"
                        "    def act(self, observation):\n        raise KeyError('x')\n")
    db = str(tmp_path / "arena.db")
    CliRunner().invoke(cli, ["submit", "--ladder", "ladder", str(crashing), "--db", db])
    run_until_judged(data, Path(db))
    with Store(db) as store:
        refused = newcomer_of(LadderBook(store, 1))
    assert refused.status == ERROR and 'File "crashy.py", line 5, in act' in refused.log
    assert "staged" not in refused.log and str(tmp_path) not in refused.log


@pytest.mark.usefixtures("at_root")
def test_ladder_status_fits_80_columns_with_long_names(tmp_path, monkeypatch):
    """The entrants' table reached 95 columns with the Sonnentau ladder's shipped names: a
    table too wide gives each entrant's numbers a line below its name, the final standing
    too."""
    long = "a-bot-with-a-long-descriptive-name"
    data = {**ladder_data(tmp_path, final_games=4), "isolation": "none"}
    data["bots"] = [*data["bots"][:2], {"spec": "bots/seasons/greedy.py",  # type: ignore[index]
                                        "name": long, "params": {"rerolls": False}}]
    run_rounds(data, 2)
    db = str(tmp_path / "arena.db")
    CliRunner().invoke(cli, ["ladder", "freeze", "ladder", "--db", db])
    run_rounds(data, 100)
    monkeypatch.setenv("COLUMNS", "80")
    result = CliRunner().invoke(cli, ["ladder", "status", "ladder", "--db", db])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(map(len, lines)) <= 80, result.output
    standing = lines.index(next(line for line in lines if line.startswith("final standing")))
    for table in (lines[:standing], lines[standing:]):  # its numbers beside its name
        at = next(i for i, line in enumerate(table) if "a-bot-with-a-" in line)
        assert re.search(r" \d+( +-?\d+\.\d\d){3}$| (-?\d+\.\d\d +){3}\d+$",
                         table[at]), result.output
        below = itertools.takewhile(lambda line: len(line.split()) == 1, table[at + 1:])
        name = table[at].split()[1] + "".join(line.strip() for line in below)
        assert name.startswith(f"{long}@1.0+"), result.output  # whole, over its lines


@pytest.mark.usefixtures("at_root")
def test_ladder_run_wraps_its_notes_between_words_to_80_columns(tmp_path, monkeypatch):
    """The ladder's first note reached 186 columns and its last line 98 (a long name and
    a submissions folder are ordinary)."""
    data = {**ladder_data(tmp_path), "isolation": "none",
            "name": "the-nightly-ladder-of-the-long-names"}
    (tmp_path / "ladder.yaml").write_text(yaml.safe_dump(data))
    monkeypatch.setenv("COLUMNS", "80")
    result = CliRunner().invoke(cli, ["ladder", "run", str(tmp_path / "ladder.yaml"),
                                      "--rounds", "1", "--no-progress"])
    assert result.exit_code == 0, result.output
    long = [line for line in result.output.splitlines() if len(line) > 80]
    assert all(" " not in line.strip() for line in long), result.output  # a long path
    text = " ".join(result.output.split())
    assert ("submissions by `arena submit --ladder the-nightly-ladder-of-the-long-names --db "
            f"{tmp_path / 'arena.db'}`") in text  # the config's database: its hint works
    assert "run the same command again to resume" in text


@pytest.mark.usefixtures("at_root")
def test_a_ladder_with_too_few_bots_says_it_waits_for_entrants_once(tmp_path):
    """One of two first bots fails to load: the ladder waits for submissions, and says so
    once rather than sitting silent."""
    from arena.tournaments.ladder import IDLE_POLL_SECONDS, LadderProgress

    data = {**ladder_data(tmp_path), "isolation": "none"}
    data["bots"] = [data["bots"][0], {"spec": "bots/seasons/greedy.py",  # type: ignore[index]
                                      "params": {"no_such": 1}}]
    config = parse_ladder_config(data, "ladder.yaml")
    control = LadderControl(rounds=1)
    notes: list[str] = []
    stop = threading.Timer(4 * IDLE_POLL_SECONDS, lambda: setattr(control, "stop", True))
    stop.start()  # the ladder polls about four times before it is stopped
    try:
        with Store(config.play.db) as store:
            run_ladder(config, store, control, LadderProgress(note=notes.append))
    finally:
        stop.cancel()
    waiting = [n for n in notes if n.startswith("waiting for entrants")]
    assert waiting == ["waiting for entrants: 1 active bot, a table needs 2; submit with "
                       f"`arena submit --ladder ladder --db {config.play.db}` or into "
                       f"{tmp_path / 'incoming'}/ "
                       "(Ctrl-C stops)"], notes


@pytest.mark.usefixtures("at_root")
def test_a_submission_to_a_ladder_says_how_to_follow_it_with_its_database(tmp_path):
    """The hint left out --db, so that it failed as given; before the ladder's first run
    the error spoke of running a tournament."""
    db = tmp_path / "arena.db"
    early = CliRunner().invoke(cli, ["submit", "--ladder", "ladder", "bots/seasons/greedy.py",
                                     "--db", str(db)])
    assert early.exit_code == 1
    assert "a ladder takes submissions once `arena ladder run CONFIG` has started it" in \
        " ".join(early.output.split())
    run_rounds({**ladder_data(tmp_path), "isolation": "none"}, 1)
    newcomer = tmp_path / "newcomer.py"
    newcomer.write_text((ROOT / "bots/seasons/greedy.py").read_text().replace(
        '"greedy"', '"newcomer"'))
    submitted = CliRunner().invoke(cli, ["submit", "--ladder", "ladder", str(newcomer),
                                         "--db", str(db)])
    shown = " ".join(submitted.output.split())
    assert submitted.exit_code == 0, shown
    assert f"`arena ladder status ladder --db {db}` shows how it fares" in shown
    spaced = tmp_path / "spaced"  # a name the hint quotes, so that it can be pasted
    spaced.mkdir()
    run_rounds({**ladder_data(spaced), "isolation": "none", "name": "my ladder"}, 1)
    again = CliRunner().invoke(cli, ["submit", "--ladder", "my ladder", str(newcomer),
                                     "--db", str(spaced / "arena.db")])
    assert again.exit_code == 0, again.output
    assert "`arena ladder status 'my ladder' --db " in " ".join(again.output.split())


@pytest.mark.usefixtures("at_root")
def test_a_retired_revision_sent_again_is_told_to_take_a_new_version(tmp_path):
    """It was refused as "in the ladder already", though the ladder had retired it."""
    data = {**ladder_data(tmp_path), "isolation": "none"}
    db = tmp_path / "arena.db"
    run_rounds(data, 1)
    source = (ROOT / "bots/seasons/greedy.py").read_text().replace('"greedy"', '"mine"')
    first, second = tmp_path / "v1" / "mine.py", tmp_path / "v2" / "mine.py"
    first.parent.mkdir()
    second.parent.mkdir()
    first.write_text(source.replace('version = "1.0"', 'version = "1"'))
    second.write_text(source.replace('version = "1.0"', 'version = "2"'))

    notes: list[str] = []

    def judged(path: Path, rounds: int) -> Submission:
        submitted = CliRunner().invoke(cli, ["submit", "--ladder", "ladder", str(path),
                                             "--db", str(db)])
        assert submitted.exit_code == 0, submitted.output
        number = int(submitted.output.split()[1])
        config = parse_ladder_config(data, "ladder.yaml")
        for more in range(rounds, rounds + 40):
            with Store(db) as store:
                run_ladder(config, store, LadderControl(rounds=more, idle_exit=True),
                           LadderProgress(note=notes.append))
            with Store(db) as store:
                found = LadderBook(store, 1).submission(number)
            if found.status not in (QUEUED, VALIDATING, VALIDATED):
                return found
        raise AssertionError("the submission was never judged")

    assert judged(first, 2).status == ACTIVE
    assert judged(second, 20).status == ACTIVE  # and version 1 retires
    again = judged(first, 40)
    assert again.status == ERROR
    assert "which the ladder retired: a revision plays once; to bring this code back, give " \
           "it a new version" in again.log
    # the terminal says why, not only "error"
    assert f"submission {again.id}: error: the same bot as submission" in "\n".join(notes)
    status = CliRunner().invoke(cli, ["ladder", "status", "ladder", "--db", str(db)]).output
    refused = next(line for line in status.splitlines() if line.split()[:1] == [str(again.id)])
    said = refused.split()[1]  # the revision it said it was, labelled as everywhere
    assert said.startswith("mine@1+") and refused.split()[2] == "error", status


@pytest.mark.usefixtures("at_root")
def test_a_ladders_status_counts_its_games_as_of_one_moment(tmp_path, monkeypatch):
    """Read while games were stored: "10253 games, 10254 in the last hour"."""
    from arena.tournaments.ladder_status import status_lines

    run_rounds({**ladder_data(tmp_path), "isolation": "none"}, 1)
    db = tmp_path / "arena.db"
    counted = LadderBook.games_after

    def a_game_arrives_meanwhile(self, after):
        found = counted(self, after)
        with Store(db) as other:  # the running ladder stores one more game
            other.db.execute(
                "INSERT INTO games (tournament_id, key, round, table_no, set_no, rotation, "
                "seed, seats, ranks, scores, statuses, termination, moves, duration, record, "
                "finished, isolations, details) SELECT tournament_id, key || '-more', round, "
                "table_no, set_no, rotation, seed, seats, ranks, scores, statuses, "
                "termination, moves, duration, record, finished, isolations, details FROM "
                "games ORDER BY id LIMIT 1")
        return found

    monkeypatch.setattr(LadderBook, "games_after", a_game_arrives_meanwhile)
    with Store(db) as store:
        text = " ".join(status_lines(store, find_ladder(store, "ladder")))
    total, recent = (int(n) for n in re.search(r"(\d+) games, (\d+) in the last hour",
                                                text).groups())
    assert recent == total, text


@pytest.mark.usefixtures("at_root")
def test_retiring_a_submission_that_never_joined_says_so(tmp_path):
    """The status names a refused submission's bot; retiring that name said only that the
    database had no such bot."""
    data = {**ladder_data(tmp_path), "isolation": "none"}
    db = tmp_path / "arena.db"
    run_rounds(data, 1)
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER)
    submitted = CliRunner().invoke(cli, ["submit", "--ladder", "ladder", str(crasher),
                                         "--db", str(db)])
    number = int(submitted.output.split()[1])
    for more in range(2, 40):
        run_rounds(data, more)
        with Store(db) as store:
            if LadderBook(store, 1).submission(number).status == ERROR:
                break
    for label in ("crasher@1", named_in_verdict(LadderBook(Store(db), 1).submission(
            number).log)):  # by its name and version, or by its revision's label
        retired = CliRunner().invoke(cli, ["ladder", "retire", label, "--db", str(db)])
        assert retired.exit_code == 1
        assert f"{label} is submission {number}, which did not join (error): there is " \
               "nothing to retire" in " ".join(retired.output.split()), retired.output


@pytest.mark.usefixtures("at_root")
def test_a_submission_that_fails_halfway_leaves_nothing_behind(tmp_path, monkeypatch):
    """An upload whose database write failed after the row was made left a queued
    submission with no code and no sender, its name free for another to take."""
    from arena.server.participants import add_participant

    data = {**ladder_data(tmp_path), "isolation": "none"}
    run_rounds(data, 1)
    bot = tmp_path / "mine.py"
    bot.write_text((ROOT / "bots/seasons/greedy.py").read_text())
    with Store(tmp_path / "arena.db") as store:
        book = LadderBook(store, 1)
        alice, _token = add_participant(store, "alice")
        before = len(book.submissions())

        def broken(*args: object) -> None:
            raise OSError("the disk is full")

        monkeypatch.setattr(LadderBook, "set_spec", broken)
        home = ladder_home(store, "ladder")
        with pytest.raises(OSError, match="the disk is full"):
            stage(book, home, bot, "web: alice", submitter=alice.id)
        assert len(book.submissions()) == before  # no row, no sender
        assert not [p for p in (home / "staged").iterdir() if "mine" in p.name]
        monkeypatch.undo()
        number = stage(book, home, bot, "web: alice", submitter=alice.id)
        assert [s.id for s in book.submitted_by(alice.id)] == [number]


@pytest.mark.usefixtures("at_root")
def test_a_participant_cannot_take_the_name_of_a_bot_the_organizer_submitted(tmp_path):
    """Names of the config's bots were reserved, but not those the organizer brought in by
    the submissions folder or `arena submit --ladder`: a participant's next version of one
    retired the organizer's bot and took its name."""
    from arena.server.participants import add_participant

    data = {**ladder_data(tmp_path), "isolation": "none"}
    run_rounds(data, 1)
    db = tmp_path / "arena.db"
    organizers = tmp_path / "orgbot.py"
    organizers.write_text((ROOT / "bots/seasons/greedy.py").read_text().replace(
        'name = "greedy"', 'name = "orgbot"'))
    assert "orgbot" in organizers.read_text()
    submitted = CliRunner().invoke(cli, ["submit", "--ladder", "ladder", str(organizers),
                                         "--db", str(db)])
    assert submitted.exit_code == 0, submitted.output
    rounds = run_until_judged(data, db)
    participants = tmp_path / "participants.py"
    participants.write_text(organizers.read_text().replace('version = "1.0"',
                                                           'version = "2.0"'))
    assert 'version = "2.0"' in participants.read_text()
    with Store(db) as store:
        book = LadderBook(store, 1)
        mallory, _token = add_participant(store, "mallory")
        stage(book, ladder_home(store, "ladder"), participants, "web: mallory",
              submitter=mallory.id)
    assert rounds
    run_until_judged(data, db)
    with Store(db) as store:
        book = LadderBook(store, 1)
        [theirs] = book.submitted_by(mallory.id)
        assert theirs.status == ERROR
        assert "the name 'orgbot' belongs to the ladder's organizer" in theirs.log
        labels = {store.bot(s.bot_id).label.partition("+")[0] for s in book.submissions(ACTIVE)}
        assert "orgbot@1.0" in labels and "orgbot@2.0" not in labels
    # the organizer's own account may bring the next version in, by the web too
    with Store(db) as store:
        book = LadderBook(store, 1)
        boss, _token = add_participant(store, "boss", organizer=True)
        stage(book, ladder_home(store, "ladder"), participants, "web: boss",
              submitter=boss.id)
    run_until_judged(data, db)
    with Store(db) as store:
        book = LadderBook(store, 1)
        [bosses] = book.submitted_by(boss.id)
        assert bosses.status == ACTIVE, bosses.log
        labels = {store.bot(s.bot_id).label.partition("+")[0] for s in book.submissions(ACTIVE)}
        assert "orgbot@2.0" in labels


@pytest.mark.usefixtures("at_root")
def test_a_ladder_with_a_game_option_written_at_its_default_resumes(tmp_path):
    from arena.games import find_game

    [limit] = [o for o in find_game("seasons").info.options if o.name == "placement_limit"]
    data = {**ladder_data(tmp_path), "isolation": "none"}
    run_rounds(data, 1)
    run_rounds({**data, "options": {"placement_limit": limit.default}}, 2)  # no refusal
    with pytest.raises(StoreError, match="was run with other settings"):
        run_rounds({**data, "options": {"placement_limit": 7}}, 3)


@pytest.mark.usefixtures("at_root")
def test_arena_submit_to_a_ladder_queues_a_package_whole_and_keeps_its_attr(tmp_path):
    """``arena submit --ladder L pkg/__init__.py`` queued the __init__.py alone, which
    could not import its modules, and ``bot.py:Cls`` was refused."""
    data = {**ladder_data(tmp_path), "isolation": "none"}
    run_rounds(data, 1)
    db = tmp_path / "arena.db"
    package = tmp_path / "parcel"
    package.mkdir()
    (package / "__init__.py").write_text("from .brain import Parcel\n")
    (package / "brain.py").write_text((ROOT / "bots/seasons/greedy.py").read_text().replace(
        '"greedy"', '"parcel"').replace("class GreedyPlayer", "class Parcel"))
    named = tmp_path / "named.py"
    named.write_text((ROOT / "bots/seasons/greedy.py").read_text().replace(
        '"greedy"', '"named"'))
    for spec in (f"{package / '__init__.py'}:Parcel", f"{named}:GreedyPlayer"):
        queued = CliRunner().invoke(cli, ["submit", "--ladder", "ladder", spec, "--db",
                                          str(db)])
        assert queued.exit_code == 0, queued.output
    run_until_judged(data, db)
    with Store(db) as store:
        labels = {store.bot(s.bot_id).label.partition("+")[0]
                  for s in LadderBook(store, 1).submissions(ACTIVE)}
    assert {"parcel@1.0", "named@1.0"} <= labels
