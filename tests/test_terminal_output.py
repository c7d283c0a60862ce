"""Terminal output on an 80-column screen, in a log file and into a pipe that closes early
(``arena … | head``)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from arena.cli import common
from arena.cli.common import PlainProgress, terminal_width
from arena.cli.console import ProgressBar
from arena.results.standings import legend_lines, table_lines, tally_games
from arena.results.store import Store
from arena.tournaments.ladder_config import parse_ladder_config

ROOT = Path(__file__).resolve().parent.parent


def sonnentau_standings(labels: list[str], seats: int = 2) -> list:
    """Standings of a made-up round-robin among ``labels``, in the shape of a real one."""
    games = []
    for number in range(60):
        order = [(number + seat) % len(labels) for seat in range(seats)]
        ranks = [(number + seat) % seats for seat in range(seats)]
        games.append((order, ranks, [float(3 - rank) for rank in ranks],
                      ["ok" if number % 7 else "timeout"] + ["ok"] * (seats - 1)))
    return tally_games(labels, seats, games)


SHIPPED = ["heuristic@1.0", "heuristic-shallow@1.0", "heuristic-racer@1.0", "random@1.0"]
"""The labels of configs/sonnentau-round-robin.yaml, whose lines reached 93 characters."""


@pytest.mark.parametrize("labels", [
    SHIPPED,
    [f"{label}+a763d7" for label in SHIPPED],  # labels with their revision
    ["a-name-as-long-as-a-bot-name-may-reasonably-be@1.0+a763d7", "random@1.0"],
], ids=["shipped", "revisions", "very-long"])
def test_the_standings_fit_80_columns(labels):
    results = sonnentau_standings(labels)
    results[0].buchholz, results[0].byes = 2.5, 1  # Swiss columns too
    lines = table_lines(results, width=80)
    assert max(map(len, lines)) <= 80, "\n".join(lines)
    header = next(line for line in lines if line.startswith("bot "))
    assert "score" in header.split() and "rank" in header.split()
    starts = "".join(line.split()[0] for line in lines if line and not line[0].isspace())
    for label in labels:  # every label whole, or wrapped in its column, nothing lost
        assert any(line.split()[:1] == [label] for line in lines if line) or label in starts
        rows = [line for line in lines if line.split()[:1] and label.startswith(
            line.split()[0]) and len(line.split()) > 1]
        assert rows, "\n".join(lines)  # its numbers beside (the start of) its name


@pytest.mark.parametrize("width", [40, 45, 52, 60])
def test_a_narrow_terminal_leaves_columns_out_and_says_which(width):
    """At 45 columns the standings' header took 52 to 56 and every line wrapped."""
    results = sonnentau_standings(SHIPPED)
    results[0].buchholz, results[0].byes = 2.5, 1
    lines = table_lines(results, width=width)
    assert max(map(len, lines)) <= width, "\n".join(lines)
    said = " ".join(" ".join(lines).split())
    assert "left out at" in said and "standings.csv has them" in said
    headers = [line.split() for line in lines if line.startswith("bot ")]
    assert len(headers) == 2 and all({"games", "wins", "points"} <= set(h) for h in headers)
    left_out = said.split(f"left out at {width} columns: ")[1].split(";")[0].split(", ")
    assert not {"draws"} & set(headers[0]) & set(left_out)  # a column left out is gone
    assert "left out" not in " ".join(table_lines(results, width=80))


def test_a_table_with_two_long_text_columns_wraps_both_to_fit():
    """A ladder's status with a long bot label and a long file it came from: only the
    widest column was wrapped, and lines of 92 to 162 columns went into a file."""
    from arena.results.standings import text_table

    label = "a_really_long_bot_name_for_the_ladder_status_table@2024.12.07-rc1+abbaba"
    source = "folder: my_extremely_long_submission_file_name_version_two_final_really.py"
    rows = [[4, label, "active", "arena submit", 10, "25.1", "3.2", "15.5"],
            [5, "dropper@1.0+3ba455", "active", source, 3, "24.0", "4.0", "12.0"]]
    lines = text_table(["id", "bot", "status", "from", "games", "mu", "sigma", "mu-3sigma"],
                       rows, 4, 80)
    assert max(map(len, lines)) <= 80, "\n".join(lines)
    spans = [m.span() for m in re.finditer("-+", lines[1])]
    rows_shown: list[list[list[str]]] = []  # each row's lines of cells
    for line in lines[2:]:
        cells = [line[start:end].strip() for start, end in spans]
        if cells[0]:
            rows_shown.append([])
        rows_shown[-1].append(cells)
    bot = "".join(cells[1] for cells in rows_shown[0])
    came = "".join(cells[3] for cells in rows_shown[1])
    assert bot == label and came.replace(" ", "") == source.replace(" ", ""), "\n".join(lines)
    assert rows_shown[0][0][4:] == ["10", "25.1", "3.2", "15.5"]  # beside the name


def test_the_standings_keep_their_columns_in_a_wide_terminal():
    lines = table_lines(sonnentau_standings(SHIPPED), width=200, seats=False)
    assert lines[1].split() == ["bot", "games", "wins", "draws", "losses", "points", "score",
                                "score", "rank"]
    assert lines[0].split() == ["mean", "mean"]
    rows = lines[2:2 + len(SHIPPED)]
    assert [row.split()[0] for row in rows] == SHIPPED
    assert all(len(row) == len(lines[1]) for row in rows)  # right-aligned under the header


@pytest.mark.parametrize("width", [80, 60, 100])
def test_the_legend_is_wrapped_at_the_width_between_words(width):
    for seats in (2, 4):
        lines = legend_lines(seats, width)
        assert max(map(len, lines)) <= width
        words = " ".join(lines).split()
        assert "Sonnentau:" in words and "percentage;" in words  # no word broken in two
        assert " ".join(lines) == " ".join(legend_lines(seats, 1000))


def test_the_width_is_the_terminals_or_at_most_80(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert terminal_width() == 80  # not a terminal: a file, a pipe
    monkeypatch.setattr(common, "is_terminal", lambda stream: True)
    assert terminal_width() == 200
    monkeypatch.setenv("COLUMNS", "64")
    assert terminal_width() == 64


def test_without_a_terminal_the_progress_bar_is_never_redrawn(monkeypatch):
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    bar = ProgressBar(enabled=True)
    bar.started(500, 0)
    for number in range(5):
        bar.write(f"    traceback line {number}")
        bar.bar.update(1)
    bar.status("round 2")
    bar.close()
    text = log.getvalue()
    assert "\r" not in text and "\x1b" not in text
    assert text.splitlines() == [f"    traceback line {number}" for number in range(5)]


def test_a_line_per_game_is_wrapped_on_a_terminal_and_one_line_elsewhere(monkeypatch):
    """`arena run -v` wrote its cutechess-style lines of 81-86 columns on an 80-column
    terminal, which broke them mid-word ("{no" / "rmal}"); into a log or a pipe each stays
    one line, for grep."""
    from types import SimpleNamespace

    from arena.cli.console import result_line
    from arena.results.store import FinishedGame
    from arena.tournaments.schedule import GameTask
    from arena.tournaments.tasks import GameResult

    task = GameTask(0, 2, 3, 0, (0, 1), 1)
    game = FinishedGame(ranks=(0, 1), scores=(80.0, 60.0), statuses=("ok", "ok"),
                        termination="normal", moves=0, record_json="{}")
    names = ["greedy@1.0+f00438", "a-much-longer-bot-name@2.0+7046ec"]
    line = result_line(names, GameResult(task, game, 0.1))
    assert len(line) > 80
    for terminal in (True, False):
        log = io.StringIO()
        monkeypatch.setattr(sys, "stderr", log)
        monkeypatch.setattr(common, "is_terminal", lambda stream, on=terminal: on)
        monkeypatch.setenv("COLUMNS", "80")
        bar = ProgressBar(enabled=False, verbose=True)
        bar.run = SimpleNamespace(entrants=SimpleNamespace(labels=names))  # type: ignore
        bar._advance(GameResult(task, game, 0.1))
        shown = log.getvalue().splitlines()
        if terminal:
            assert len(shown) == 2 and max(map(len, shown)) <= 80
            assert shown[1].startswith("  ") and shown[-1].endswith("{normal}")
        else:
            assert len(shown) == 1 and len(shown[0]) > 80


def test_the_luck_bar_counts_the_games_done_while_playing_as_done_before_it(monkeypatch):
    """After play the bar starts at the games already accounted for (its rate is of this
    work only) and shows its last count before the report is written."""
    from arena.cli import console

    class Bar:
        def __init__(self, total, *, initial, desc, leave):
            self.total, self.n, self.initial, self.drawn = total, initial, initial, []

        def update(self, n):
            self.n += n

        def refresh(self):
            self.drawn.append(self.n)

        def close(self):
            pass

    made = []
    monkeypatch.setattr(console, "progress_bar", lambda *a, **k: made.append(Bar(*a, **k))
                        or made[-1])
    with console.LuckBar() as luck:
        for done in (64, 131, 300):
            luck.update(done, 300)
    (bar,) = made
    assert (bar.total, bar.initial, bar.n, bar.drawn) == (300, 64, 300, [300])
    with console.LuckBar() as few:
        few.update(0, 10)  # a few games: no bar
    assert len(made) == 1


def test_without_a_terminal_progress_is_a_plain_line_now_and_then():
    now = [0.0]
    out = io.StringIO()
    bar = PlainProgress(1000, desc="luck accounting", file=out, every=60,
                        clock=lambda: now[0])
    for _ in range(10):
        now[0] += 10
        bar.update(50)
    assert out.getvalue().splitlines() == [
        "luck accounting: 300/1,000 games (30%), 5.0 games/s, 140 s left"]
    unbounded = PlainProgress(file=out, every=1, clock=lambda: now[0])
    now[0] += 2
    unbounded.set_postfix_str("round 3")
    unbounded.update(4)
    assert out.getvalue().splitlines()[-1] == "4 games, 2.0 games/s, round 3"


def arena_into_a_closed_pipe(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``arena ARGS | head -0``: the reader has gone before arena writes a line."""
    process = subprocess.Popen([sys.executable, "-m", "arena", *args], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read()
    process.stderr.close()
    return subprocess.CompletedProcess(args, process.wait(timeout=120), b"", stderr)


@pytest.mark.parametrize("args", [
    ("run", "--dry-run", "configs/seasons-round-robin.yaml"),
    ("play", "seasons", "bots/seasons/greedy.py", "bots/seasons/random_bot.py",
     "--isolation", "none"),
    ("games",),  # a command of a few lines: they wait in the buffer until arena exits
    ("--help",),  # printed while the arguments are parsed
], ids=["run-dry-run", "play", "games", "help"])
def test_a_reader_that_left_ends_arena_quietly(args):
    result = arena_into_a_closed_pipe(*args)
    assert result.stderr.decode() == ""  # no "Error: [Errno 32] Broken pipe", no traceback
    assert result.returncode == 141  # 128 + SIGPIPE, as the shell reports `seq 1e9 | head`


def test_a_tournament_piped_into_a_reader_that_left_plays_on_and_writes_its_files(tmp_path):
    """`arena run … | head -1` ended the tournament at its next line (status 141, games
    unplayed, no tables or report): a run's work is its games and files."""
    config = {"name": "piped", "game": "seasons", "games_per_pairing": 6, "workers": 1,
              "isolation": "none", "bots": [str(ROOT / "bots/seasons/greedy.py"),
                                            str(ROOT / "bots/seasons/random_bot.py")]}
    (tmp_path / "piped.yaml").write_text(yaml.safe_dump(config))
    result = arena_into_a_closed_pipe("run", "piped.yaml", "--no-progress", cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stderr.decode() == ""
    with Store(tmp_path / "results" / "arena.db") as store:
        assert store.db.execute("SELECT count(*) FROM games").fetchone()[0] == 12
    for name in ("standings.csv", "games.csv", "report.html"):
        assert (tmp_path / "results" / "piped" / name).is_file(), name


def test_ladder_status_into_a_closed_pipe_ends_quietly(tmp_path):
    db = tmp_path / "arena.db"
    ladder = {"name": "lad", "game": "seasons", "seed": 1, "db": str(db),
              "bots": [str(ROOT / "bots/seasons/random_bot.py"),
                       str(ROOT / "bots/seasons/greedy.py")]}
    (tmp_path / "ladder.yaml").write_text(yaml.safe_dump(ladder))
    with Store(db) as store:
        store.create_tournament(parse_ladder_config(ladder), [])
    result = arena_into_a_closed_pipe("ladder", "status", "lad", "--db", str(db))
    assert result.stderr.decode() == ""
    assert result.returncode == 141


def test_a_connection_that_broke_is_still_an_error():
    """Only arena's own output going nowhere is quiet: a server that hung up is reported."""
    import click
    from click.testing import CliRunner

    @click.command()
    @common.reports_errors
    def upload() -> None:
        raise BrokenPipeError(32, "Broken pipe")

    result = CliRunner().invoke(upload, [])
    assert result.exit_code == 1 and "Error: [Errno 32] Broken pipe" in result.output


def test_ratings_and_history_fit_80_columns_with_long_names(tmp_path, monkeypatch):
    """`arena ratings` reached 91 columns and `arena history` 118 with ordinary labels: a
    table too wide for the screen gives each bot's numbers a line below its name."""
    from click.testing import CliRunner

    from arena.cli import cli
    from arena.tournaments.config import parse_config
    from arena.tournaments.runner import run_tournament

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "80")
    db = str(tmp_path / "a.db")
    long = "a-bot-with-a-long-descriptive-name"
    config = parse_config({
        "name": "the-nightly-round-robin-of-the-long-names", "game": "seasons", "seed": 2,
        "isolation": "none", "games_per_pairing": 2, "db": db, "workers": 1,
        "bots": ["bots/seasons/random_bot.py",
                 {"spec": "bots/seasons/greedy.py", "name": long}]})
    with Store(config.db) as store:
        run_tournament(config, store)
    wide = tmp_path / "wide.yaml"
    wide.write_text(yaml.safe_dump({
        "name": "the-nightly-round-robin-of-the-long-names-2", "game": "sonnentau",
        "seed": 2026, "games_per_pairing": 10, "isolation": "none", "db": db,
        "output": str(tmp_path / "wide"), "bots": ["bots/sonnentau/random_bot.py",
                                                  "bots/sonnentau/heuristic.py"]}))
    header = CliRunner().invoke(cli, ["run", str(wide), "--no-progress"])
    assert header.exit_code == 0, header.output
    assert all(len(line) <= 80 or " " not in line.strip()  # a path alone may be longer
               for line in header.output.splitlines()), header.output  # the header was 84
    compared = CliRunner().invoke(cli, ["compare", long, "random", "--games", "1", "--db", db,
                                        "--no-progress"])  # a tournament named in words
    assert compared.exit_code == 0, compared.output
    for command in (["ratings", "--db", db], ["history", long, "--db", db],
                    ["ratings", "--system", "bt", "--db", db]):  # its title was 114 wide
        result = CliRunner().invoke(cli, command)
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        assert max(map(len, lines)) <= 80, result.output
        if "bt" in command:
            assert "corrected for the duplicate sets)" in result.output
        elif command[0] == "ratings":  # each bot's numbers beside its name
            for name in ("a-bot-with-a-", "random@1.0"):
                at = next(i for i, line in enumerate(lines) if name in line)
                cells = lines[at].split()
                assert cells[1].startswith(name) and cells[5] == "6", result.output  # 4 + 2
        else:
            at = next(i for i, line in enumerate(lines) if "the-nightly" in line)
            assert lines[at].split()[-1] == "4", result.output


def test_an_interim_table_of_32_bots_shows_the_best_ten_in_16_lines_at_most(monkeypatch):
    """Interim tables printed 34 lines each for 32 bots; the standings at the end show all."""
    from arena.cli.console import INTERIM_ROWS

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    labels = [f"bot-{number:02d}@1.0" for number in range(32)]
    results = sonnentau_standings(labels)
    ProgressBar(enabled=False).write_standings("standings after 99 games:", results)
    lines = err.getvalue().splitlines()
    assert lines[0] == "standings after 99 games (the best 10 of 32 bots):"
    table = table_lines(results[:INTERIM_ROWS], seats=False)
    assert lines[1:-1] == table and INTERIM_ROWS == 10
    assert lines[-1] == "... and 22 more bots: every bot in the standings at the end"
    assert len(lines) <= 16  # with a line of their failures
    few = io.StringIO()
    monkeypatch.setattr(sys, "stderr", few)
    ProgressBar(enabled=False).write_standings("standings after round 1:", results[:4])
    assert few.getvalue().splitlines() == ["standings after round 1:",
                                           *table_lines(results[:4], seats=False)]


def test_games_and_submit_wrap_their_prose_to_80_columns(tmp_path, monkeypatch):
    """`arena games` printed option lines of up to 124 columns and `arena submit` one of
    194; the words stay whole and in order."""
    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.setenv("COLUMNS", "80")
    db = tmp_path / "arena.db"
    ladder = {"name": "the-nightly-ladder-of-the-long-names", "game": "seasons", "seed": 1,
              "db": str(db), "bots": [str(ROOT / "bots/seasons/random_bot.py"),
                                      str(ROOT / "bots/seasons/greedy.py")]}
    with Store(db) as store:
        store.create_tournament(parse_ladder_config(ladder), [])
    listed = CliRunner().invoke(cli, ["games"])
    submitted = CliRunner().invoke(cli, ["submit", "--ladder", ladder["name"],
                                         str(ROOT / "bots/seasons/greedy.py"), "--db", str(db)])
    for result in (listed, submitted):
        assert result.exit_code == 0, result.output
        assert all(len(line) <= 80 or " " not in line.strip()  # a long path: its own line
                   for line in result.output.splitlines()), result.output
    assert ("dice: two six-sided dice, or the three Miwin dice III, IV, V"
            in " ".join(listed.output.split()))
    assert (f"`arena ladder status {ladder['name']} --db {db}` shows how it fares"
            in " ".join(submitted.output.split()))


def test_a_game_log_and_a_dry_run_wrap_to_80_columns_losing_no_word(monkeypatch):
    """A Sonnentau turn of the log reached 121 columns, the dry run's first line 91: each
    is wrapped between words, its rest indented under it."""
    from click.testing import CliRunner

    from arena.bots.loading import load_bot
    from arena.cli import cli
    from arena.referee.match import play_game
    from arena.referee.record import game_log
    from arena.tournaments.config import load_config
    from arena.tournaments.runner import schedule_preview

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "80")
    played = CliRunner().invoke(cli, ["play", "sonnentau", "search", "heuristic", "--seed", "5"])
    players = [load_bot(f"bots/sonnentau/{name}.py").player for name in ("search", "heuristic")]
    labels = re.findall(r"seat \d: (\S+?)[,)]", played.output.splitlines()[0])
    assert len(labels) == 2 and all("@" in label for label in labels), played.output
    log = game_log(play_game("sonnentau", players, 5), labels)  # the seats by their labels
    preview = CliRunner().invoke(cli, ["run", "configs/sonnentau-round-robin.yaml",
                                       "--dry-run"])
    lines = schedule_preview(load_config("configs/sonnentau-round-robin.yaml"))
    for result, unwrapped in ((played, log), (preview, lines)):
        assert result.exit_code == 0, result.output
        assert max(map(len, result.output.splitlines())) <= 80, result.output
        assert max(map(len, unwrapped)) > 80  # there was something to wrap
        assert " ".join(" ".join(unwrapped).split()) in " ".join(result.output.split())
    turns = [line for line in played.output.splitlines() if line[:1].isdigit()]
    assert len(turns) == sum(line[:1].isdigit() for line in log)


def test_wrapped_prose_keeps_each_lines_indentation_and_long_words(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "30")
    path = "/a/path/longer/than/the/thirty/columns/of/the/screen.db"
    common.echo_wrapped(f"first line\n  kept in {path} so run the same command again",
                        indent="  ")
    assert capsys.readouterr().out.splitlines() == [
        "first line", "  kept in", "    " + path, "    so run the same command", "    again"]


def test_the_servers_ladder_notes_wrap_once_under_one_prefix(capsys, monkeypatch):
    from arena.cli.serve import ladder_lines

    monkeypatch.setenv("COLUMNS", "80")
    text = ("waiting for entrants: the ladder has 1 active bot and needs 2 to play; submit "
            "one with arena submit BOT --ladder sonnentau-ladder, or add it to the config "
            "and run again")
    ladder_lines("sonnentau-ladder", False).note(text)
    lines = capsys.readouterr().err.splitlines()
    assert [line.startswith("[sonnentau-ladder] ") for line in lines] == [True] + [False] * (
        len(lines) - 1)
    assert all(len(line) <= 80 for line in lines)
    assert " ".join(line.strip() for line in lines) == f"[sonnentau-ladder] {text}"


def test_a_worker_killed_while_it_logs_neither_silences_nor_hangs_the_run(tmp_path):
    # Workers are killed by design (a hung one by the watchdog, a slow one at a stop), and
    # each logs every game it plays. Were their lines passed through a queue with a lock
    # shared by all processes, a worker killed while holding it would stop every later
    # line and hang the run at its exit.
    log = tmp_path / "arena.log"
    script = f"""
import logging, multiprocessing, os, signal, time
from pathlib import Path
from arena.cli.console import close_logging, setup_logging

setup_logging(Path({str(log)!r}), verbose=False)
talk = logging.getLogger("arena.test")

def chatter():
    while True:
        talk.info("worker line " + "x" * 300)

for i in range(20):
    worker = multiprocessing.get_context("fork").Process(target=chatter)
    worker.start()
    time.sleep(0.002 * i)
    os.kill(worker.pid, signal.SIGKILL)
    worker.join()
    talk.info("after kill %d", i)
close_logging()
print("closed")
"""
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=60)
    assert finished.stdout.strip() == "closed", finished.stderr
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    assert [line.split()[-1] for line in lines if "after kill" in line] == [
        str(i) for i in range(20)]
    assert any("worker line" in line for line in lines)


def test_an_error_on_a_terminal_is_wrapped_between_words_and_one_line_elsewhere():
    """A config with several mistakes gave error lines of 280 characters, which an 80-column
    terminal broke mid-word; in a pipe or a log each message stays one line."""
    import tempfile

    with tempfile.TemporaryDirectory(dir="/tmp") as folder:  # a path short enough to wrap
        error_on_a_terminal_and_in_a_pipe(Path(folder) / "bad.yaml")


def error_on_a_terminal_and_in_a_pipe(bad: Path) -> None:
    from test_human import Pty

    bad.write_text("name: bad\ngame: seasons\nformt: swiss\nbots: [bots/seasons/greedy.py, "
                   "nothere.py]\ngames_per_pairing: -3\ntime_limit: fast\n")
    terminal = Pty("run", str(bad))
    shown = terminal.read_until(lambda text: False, patience=60)
    lines = [line for line in shown.split("\r\n") if line]
    assert lines[0].startswith("Error: ") and len(lines) >= 6, lines
    assert all(len(line) <= 80 for line in lines), lines
    words = " ".join(" ".join(lines).split())
    assert "unknown key 'formt' (did you mean 'format'?); known: bots," in words
    assert "time_limit: must be a number of seconds, or null for no limit, got 'fast'" in words
    piped = subprocess.run([sys.executable, "-m", "arena", "run", str(bad)], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
    messages = piped.stderr.splitlines()
    assert messages[0].startswith("Error: ") and "known: bots," in messages[0]
    assert len(messages[0]) > 80  # one line, as it is, for a log or grep
    assert any(line.endswith("got 'fast'") and "time_limit" in line for line in messages)


def test_a_terminal_that_reports_no_height_still_shows_the_progress_bar(tmp_path):
    """Some CI and ``docker exec -t`` terminals say 0 rows: tqdm then hid every bar, and a
    run of 17 s showed nothing at all."""
    from test_human import Pty

    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump({
        "name": "heightless", "game": "seasons", "seed": 1, "isolation": "none",
        "games_per_pairing": 20, "db": str(tmp_path / "a.db"), "output": str(tmp_path / "out"),
        "bots": ["bots/seasons/greedy.py", "bots/seasons/random_bot.py"]}))
    terminal = Pty("run", str(config), height=0)
    shown = terminal.read_until(lambda text: "report.html" in text, patience=120)
    assert "40/40" in shown and "game/s" in shown, shown[-2000:]


def test_a_label_with_no_place_to_break_is_cut_into_pieces_that_fit():
    """`arena ladder status` printed lines of 122-133 columns for a bot submitted with a
    63-character name and a 31-character version (both within the server's limits)."""
    from arena.results.standings import text_table

    label = "averyveryverylongbotnamewithoutanybreaksatall" + "x" * 18 + \
        "@1.0.0-with-a-long-version-str+abcdef"
    rows = [[4, label, "active", "upload: alice", 14, "30.77", "2.44", "23.44"],
            [3, "expectimax@1.0+664f65", "active", "config: bots[2]", 6, "3.1", "1.2", "0.5"]]
    lines = text_table(["id", "bot", "status", "from", "games", "mu", "sigma", "mu-3sigma"],
                       rows, 4, 80)
    assert max(map(len, lines)) <= 80, lines
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith("4 "))
    last = next(i for i, line in enumerate(lines) if line.lstrip().startswith("3 "))
    pieces = [lines[first].split()[1]] + [line.strip() for line in lines[first + 1:last]]
    assert "".join(pieces) == label, lines  # its pieces below it, in its column
    assert lines[first].split()[-4:] == ["14", "30.77", "2.44", "23.44"], lines  # beside it


def test_a_table_aligns_names_in_wide_letters_by_the_columns_they_take():
    """A row of a CJK and emoji name was padded by characters: 8 columns out of line, 88
    columns wide for 80 characters."""
    from arena.results.standings import display_width, text_table

    wide = "Straße_日本語ボット_🎲🎲_Ångström"
    assert display_width(wide) == len(wide) + 8 and display_width("e\u0301") == 1
    lines = text_table(["#", "bot", "status", "games"],
                       [[1, wide, "active", 3], [2, "greedy@1.0+f00438", "active", 14]], 3, 80)
    ends = {display_width(line[:line.index("active")]) for line in lines[2:]}
    assert len(ends) == 1, lines  # "active" starts in one column in every row
    assert len({display_width(line) for line in lines}) == 1, lines


@pytest.mark.skipif(__import__("arena.bots.sandbox", fromlist=["x"]).sandbox_problem()
                    is not None, reason="no sandbox here")
@pytest.mark.parametrize("closed", [0, 1, 2], ids=["stdin", "stdout", "stderr"])
def test_arena_started_with_a_standard_file_closed_still_sandboxes_its_bots(closed, tmp_path):
    """`arena play … >&-`: the next file arena opened took fd 1, the sandbox read its
    system-call filter from it and failed, and the bots ran as plain processes (a warning,
    then a traceback for the closed stdout at exit)."""
    import os

    err = tmp_path / "err.txt"
    with open(err, "w") as stderr_file:
        result = subprocess.run(
            [sys.executable, "-m", "arena", "play", "seasons", "greedy", "random",
             "--json", str(tmp_path / "game.jsonl")],
            cwd=ROOT, stderr=stderr_file if closed != 2 else None, timeout=120,
            preexec_fn=lambda: os.close(closed), check=False)
    assert result.returncode == 0, err.read_text()
    assert "no sandbox" not in err.read_text() and "Traceback" not in err.read_text()
    assert (tmp_path / "game.jsonl").read_text().count("\n") == 1


def test_the_two_bot_block_after_arena_play_keeps_within_a_narrow_terminal(monkeypatch):
    """It was wrapped at 80 columns whatever the terminal's width."""
    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "50")
    played = CliRunner().invoke(cli, ["play", "seasons", "greedy", "random", "--games", "4",
                                      "--isolation", "none"])
    assert played.exit_code == 0, played.output
    lines = played.output.splitlines()
    start = next(n for n, line in enumerate(lines) if " vs random@1.0+" in line)
    block = lines[start:]
    assert len(block) > 4 and max(map(len, block)) <= 50, played.output


def test_a_narrow_play_summary_names_no_file_that_play_does_not_write(monkeypatch):
    """It said "a wider terminal or standings.csv has them", a file arena play never writes."""
    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "34")
    played = CliRunner().invoke(cli, ["play", "sonnentau", "random", "random", "heuristic",
                                      "--games", "3", "--seed", "2", "--isolation", "none"])
    assert played.exit_code == 0, played.output
    text = " ".join(played.output.split())
    assert "(left out at 34 columns:" in text and "a wider terminal has them)" in text
    assert "standings.csv" not in text
