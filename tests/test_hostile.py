"""Hostile bots: each is contained, recorded with the right status, and changes nothing else.

The bots in tests/hostile/ attack arena in every way an independent attack found (see its
README); a bot that gets through says so: it crashes with "ESCAPED" in its stderr.
"""

import contextlib
import csv
import hashlib
import os
import random
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.bots.kernel import PR_SET_CHILD_SUBREAPER, prctl
from arena.bots.process import ProcessPlayer, bot_command
from arena.bots.sandbox import sandbox_problem
from arena.referee.match import play_game
from arena.results.store import Store
from arena.tournaments.config import parse_config
from arena.tournaments.runner import run_tournament

HOSTILE = Path(__file__).parent / "hostile"
LIMIT = 0.5
needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None,
                                   reason=f"no sandbox here: {sandbox_problem()}")

# In a plain process (isolation "process"), the audit hook is the only wall.
EXPECTED = {
    "infinite_loop.py": ("timeout", "no answer within"),
    "sleeper.py": ("timeout", "no answer within"),
    "raiser.py": ("crash", "RuntimeError: hostile bot raising on purpose"),
    "illegal.py": ("illegal-action", "is not a legal action"),
    "garbage.py": ("illegal-action", "not an action: dict"),
    "exiter.py": ("crash", "exit status 3"),
    "memory_hog.py": ("crash", "MemoryError"),
    "forker.py": ("crash", "may not start processes"),
    "writer.py": ("crash", "may not write outside their folder"),
    "unloadable.py": ("crash", "this bot cannot even be imported"),
    "printer.py": ("ok", ""),
    "tamperer.py": ("ok", ""),
    "holes.py": ("ok", ""),
    "signaller.py": ("crash", "may not call foreign functions"),
    "path_name.py": ("crash", "could be read as a file path"),
    "long_name.py": ("crash", "1000000 characters long"),
    "escape_name.py": ("crash", "unprintable characters"),
}


@pytest.fixture(autouse=True)
def at_root(root, monkeypatch):
    monkeypatch.chdir(root)


def player(spec, **params):
    return ProcessPlayer(bot_command(spec, params))


@pytest.mark.parametrize("bot", sorted(EXPECTED))
def test_each_hostile_bot_in_a_plain_process_is_contained_and_recorded(bot, tmp_path):
    status, detail = EXPECTED[bot]
    target = tmp_path / "victim.txt"
    target.write_text("untouched")
    params = {"target": str(target)} if bot in ("writer.py", "holes.py") else {}
    hostile, opponent = player(str(HOSTILE / bot), **params), player("bots/seasons/random_bot.py")
    try:
        record = play_game("seasons", [hostile, opponent], seed=3, time_limit=LIMIT)
    finally:
        hostile.close()
        opponent.close()
    assert record.seats[0].status == status, record.seats[0].detail
    assert detail in record.seats[0].detail
    assert "ESCAPED" not in record.seats[0].detail
    assert record.seats[1].status == "ok"
    assert target.read_text() == "untouched" and sorted(os.listdir(tmp_path)) == ["victim.txt"]
    if status != "ok":
        assert record.ranks == (1, 0) and record.termination == status


def test_a_failed_bot_process_is_started_again_for_the_next_game():
    hostile, opponent = player(str(HOSTILE / "exiter.py")), player("bots/seasons/greedy.py")
    try:
        first = play_game("seasons", [hostile, opponent], seed=1)
        second = play_game("seasons", [opponent, hostile], seed=1)
    finally:
        hostile.close()
        opponent.close()
    assert first.seats[0].status == second.seats[1].status == "crash"
    assert first.seats[0].name == "exiter"  # the handshake worked again after the restart


def running(args):
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    return sum(1 for line in out.splitlines() if line.strip() == args)


def with_own_sleeps(tmp_path, name, *seconds):
    """A copy of the hostile program ``name`` whose ``sleep N`` commands (one per given N)
    sleep a number of seconds no other run uses, and those commands: :func:`running`
    counts processes machine-wide, where other tests or test runs may start the same
    bot."""
    text = (HOSTILE / name).read_text()
    base = random.SystemRandom().randrange(100, 900) * 10
    commands = []
    for offset, given in enumerate(seconds):
        assert f"sleep {given}" in text
        commands.append(f"sleep {base + offset}")
        text = text.replace(f"sleep {given}", commands[-1])
    script = tmp_path / name
    script.write_text(text)
    os.chmod(script, 0o755)
    return script, commands


def test_a_program_bots_children_die_with_it(tmp_path):
    script, (sleeper,) = with_own_sleeps(tmp_path, "fork_bomb.sh", 300)
    bot = player(f"command:{script}")
    opponent = player("bots/seasons/random_bot.py")
    try:
        record = play_game("seasons", [bot, opponent], seed=3)
        assert running(sleeper) == 10
    finally:
        bot.close()
        opponent.close()
    assert record.seats[0].status == "ok" and record.seats[0].name == "fork-bomb-sh"
    assert running(sleeper) == 0


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("setsid") is None,
                    reason="needs Linux and setsid")
def test_processes_a_bot_moves_out_of_its_process_group_die_too(tmp_path):
    script, (child, orphan) = with_own_sleeps(tmp_path, "escaper.sh", 302, 303)
    bot = player(f"command:{script}")
    opponent = player("bots/seasons/random_bot.py")
    try:
        record = play_game("seasons", [bot, opponent], seed=3)
        assert running(orphan) == 0  # orphaned during the game: gone when it ended
        assert running(child) == 1  # still the running bot's own child
    finally:
        bot.close()
        opponent.close()
    assert record.seats[0].status == "ok" and record.seats[0].name == "escaper-sh"
    assert running(child) == 0


def test_a_bot_that_never_reads_its_input_times_out_instead_of_blocking_arena():
    import signal

    from arena.games import find_game
    from arena.referee.protocol import PlayerFailure

    game = find_game("seasons")
    state = game.initial_state()
    state.apply(game.parse_action("dice:3,4,5"))
    seen = state.observation(0)
    observation = type(seen)(seen.game, 0, seen.state, seen.legal_actions, LIMIT)
    deaf = player(f"command:{HOSTILE / 'deaf.sh'}")
    signal.alarm(60)  # a regression would hang here, not fail
    try:
        deaf.ensure_running()
        with pytest.raises(PlayerFailure, match="does not read its input") as failure:
            for _ in range(10_000):
                assert deaf.act(observation) == "keep"
        assert failure.value.status == "timeout"
    finally:
        signal.alarm(0)
        deaf.close()


def test_the_shell_example_bot_plays_both_games():
    bot = player("command:bots/examples/first_legal.sh")
    opponent = player("bots/sonnentau/random_bot.py")
    try:
        for game in ("seasons", "sonnentau"):
            record = play_game(game, [bot, opponent], seed=2, time_limit=2.0)
            assert record.seats[0].status == "ok" and record.seats[0].name == "first-legal-sh"
    finally:
        bot.close()
        opponent.close()


# -- everything at once, in the sandbox (the default isolation) ----------------------------

# Under the sandbox, what it keeps out, the bots do not even find: every attack comes
# to nothing (status ok), and the bots that break the rules lose as they should.
SANDBOXED = {
    "db_forger.py": ("ok", ""),
    "seed_reader.py": ("ok", ""),
    "signaller.py": ("ok", ""),
    "holes.py": ("ok", ""),
    "truncator.py": ("ok", ""),
    "parent_killer.py": ("ok", ""),
    "parent_stopper.py": ("ok", ""),
    "db_locker.py": ("ok", ""),
    "networker.py": ("ok", ""),
    "disk_filler.py": ("ok", ""),
    "writer.py": ("crash", "No such file or directory"),  # the target is out of its sight
    "formula_name.py": ("ok", ""),
    "cpu_fair.py": ("ok", ""),
    "escaper.sh": ("ok", ""),
    "memory_hog.py": ("crash", "MemoryError"),
    "fork_bomb_real.sh": ("ok", ""),  # its bomb fills its own process limit, no more
    "mute.py": ("timeout", "no answer within"),
    "cpu_hog.py": ("timeout", "used up its CPU time"),
    "path_name.py": ("crash", "could be read as a file path"),
    "long_name.py": ("crash", "1000000 characters long"),
    "escape_name.py": ("crash", "unprintable characters"),
    "surrogate.sh": ("crash", "unprintable characters"),
    "closer.sh": ("timeout", "no answer within"),  # it stopped listening: it never answers
    "impostor.py": ("ok", ""),  # a revision of greedy@1.0 of its own, labelled apart
    "syscaller.py": ("ok", ""),  # every refused call is refused; it says ESCAPED if not
    "segfaulter.py": ("crash", "during a decision (killed by SIGSEGV)"),
}
PLAIN = ["bots/seasons/greedy.py", "bots/seasons/random_bot.py"]


def tournament(tmp_path, name, bots, **settings):
    data = {"name": name, "game": "seasons", "seed": 8, "workers": 2, "time_limit": LIMIT,
            "db": str(tmp_path / f"{name}.db"), "bots": bots, **settings}
    config = parse_config(data)
    with Store(config.db) as store:
        report = run_tournament(config, store)
        games = list(store.games(report.tournament_id))
        records = [store.record(report.tournament_id, game.key) for game in games]
    return report, games, records


def processes():
    """pid -> command line of every live process this test started that is arena's, a bot's
    or a sandbox's (a process multiprocessing starts names neither): the test process's
    descendants, orphans included (it adopts them), and not the arena processes that others
    run on the machine."""
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    parents, lines = {}, {}
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, IndexError, ValueError):
            if not entry.name.isdigit():
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if fields[0] == "Z":
                continue
            parents[int(entry.name)] = int(fields[1])
            lines[int(entry.name)] = (entry / "cmdline").read_bytes().replace(
                b"\0", b" ").decode()
    return {pid: line for pid, line in lines.items() if _descends(pid, parents)
            and any(word in line for word in ("arena", "bwrap", "hostile", "sleep 30",
                                              "multiprocessing"))}


def _descends(pid, parents):
    seen = set()
    while pid in parents and pid not in seen:
        seen.add(pid)
        pid = parents[pid]
        if pid == os.getpid():
            return True
    return False


def stopped(pid):
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T"


ATTACK_GROUPS = 6


@needs_sandbox
@pytest.mark.parametrize("group", range(ATTACK_GROUPS))
def test_a_round_robin_of_some_attacks_in_the_sandbox_changes_nothing(tmp_path, group):
    """Every attack, in one of six round-robins with the plain bots (the full round-robin
    of all attacks at once is the stress test below)."""
    attack_round_robin(tmp_path, list(SANDBOXED)[group::ATTACK_GROUPS])


@needs_sandbox
@pytest.mark.stress
def test_a_round_robin_of_every_attack_in_the_sandbox_changes_nothing(tmp_path):
    attack_round_robin(tmp_path, list(SANDBOXED))


def attack_round_robin(tmp_path, attacks):
    """A round-robin of the plain bots and ``attacks`` (names in SANDBOXED), in the
    sandbox: it completes, nothing outside changes, each attack ends as SANDBOXED says, the
    plain bots' games are those they play alone, and no process outlives it."""
    before = processes()
    db = tmp_path / "hostile.db"
    victim = tmp_path / "greedy-copy.py"
    shutil.copyfile("bots/seasons/greedy.py", victim)
    digest = hashlib.sha256(victim.read_bytes()).hexdigest()
    decoy = subprocess.Popen(["sleep", "600"])
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0)
    params = {"db_forger.py": {"db": str(db)}, "seed_reader.py": {"db": str(db)},
              "truncator.py": {"db": str(db)}, "db_locker.py": {"db": str(db)},
              "signaller.py": {"pids": [decoy.pid, os.getpid()]},
              "parent_killer.py": {"arena": os.getpid()},
              "parent_stopper.py": {"arena": os.getpid()},
              "holes.py": {"target": str(victim)}, "writer.py": {"target": str(victim)},
              "networker.py": {"port": listener.getsockname()[1]}}
    bots = PLAIN + [
        f"command:{HOSTILE / bot}" if bot.endswith(".sh")
        else {"spec": str(HOSTILE / bot), "params": params.get(bot, {})}
        for bot in attacks]
    try:
        # a decision may take 1 s: beside the rest of the suite on two cores a sandboxed
        # bot's answer once took more than 0.5 s (+ 0.25 s grace), an "ok" attack then lost
        report, games, records = tournament(tmp_path, "hostile", bots, cpu_limit=0.25,
                                            broken_bots="forfeit", time_limit=2 * LIMIT)
        assert not stopped(decoy.pid) and decoy.poll() is None
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        decoy.kill()
        listener.close()
    n = len(bots)
    assert report.complete and len(games) == n * (n - 1)
    assert hashlib.sha256(victim.read_bytes()).hexdigest() == digest
    assert not any("ESCAPED" in seat.detail for record in records for seat in record.seats)
    results = {result.index: result for result in report.standings}
    for index, bot in enumerate(attacks, start=len(PLAIN)):
        status, detail = SANDBOXED[bot]
        failures = results[index].overall.failures
        if status == "ok":
            assert not failures, (bot, failures, [
                seat.detail for record, game in zip(records, games, strict=True)
                for seat, entrant in zip(record.seats, game.seats, strict=True)
                if entrant == index and seat.status != "ok"])
        else:
            assert set(failures) == {status}, (bot, failures)
            details = [seat.detail for record, game in zip(records, games, strict=True)
                       for seat, entrant in zip(record.seats, game.seats, strict=True)
                       if entrant == index and seat.status == status]
            assert details and any(detail in text for text in details), (bot, details[:1])
    assert all(isolation == "sandbox" for game in games for isolation in game.isolations)
    labels = {result.index: result.label for result in report.standings}
    assert labels[0].startswith("greedy@1.0+")
    if "impostor.py" in attacks:
        impostor = labels[len(PLAIN) + attacks.index("impostor.py")]
        assert impostor.startswith("greedy@1.0+") and impostor != labels[0]  # its own revision
    for game, record in zip(games, records, strict=True):  # stored results are the games'
        assert game.ranks == record.ranks and game.statuses == tuple(
            seat.status for seat in record.seats)
    _, reference, _ = tournament(tmp_path, "reference", PLAIN)
    head_to_head = [(g.seed, g.ranks, g.scores) for g in games if set(g.seats) == {0, 1}]
    assert head_to_head == [(g.seed, g.ranks, g.scores) for g in reference]
    deadline = time.monotonic() + 10
    while set(processes()) - set(before) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert {pid: line for pid, line in processes().items() if pid not in before} == {}


@needs_sandbox
def test_a_name_a_spreadsheet_would_run_is_neutralised_in_every_csv(tmp_path):
    from arena.reports import write_reports

    bots = ["bots/seasons/random_bot.py", str(HOSTILE / "formula_name.py")]
    tournament(tmp_path, "formula", bots)
    with Store(tmp_path / "formula.db") as store:
        paths = write_reports(store, store.find_tournament("formula"), tmp_path / "out")
    for path in (p for p in paths if p.suffix == ".csv"):
        cells = [cell for row in csv.reader(path.open()) for cell in row]
        assert not any(cell.startswith("=") for cell in cells), path.name
        assert "'=HYPERLINK(\"evil.example\";\"open me\")" in cells, path.name


@needs_sandbox
def test_a_bot_that_stops_answering_without_a_configured_limit_loses_in_seconds(tmp_path):
    from arena.tournaments.config import DEFAULT_TIME_LIMIT

    config = parse_config({"name": "mute", "game": "seasons", "db": str(tmp_path / "m.db"),
                           "bots": ["bots/seasons/random_bot.py", str(HOSTILE / "mute.py")],
                           "workers": 1})
    assert config.time_limit == DEFAULT_TIME_LIMIT
    started = time.monotonic()
    with Store(config.db) as store:
        report = run_tournament(config, store)
        statuses = [s for game in store.games(report.tournament_id) for s in game.statuses]
    assert report.complete and "timeout" in statuses
    assert time.monotonic() - started < 4 * DEFAULT_TIME_LIMIT


def test_a_worker_a_bot_stops_or_kills_is_replaced_and_the_bot_loses(tmp_path, monkeypatch):
    from arena.bots import workers

    monkeypatch.setattr(workers, "WATCHDOG_MARGIN", 1.0)
    hostile = [{"spec": f"command:{HOSTILE / bot}", "isolation": "process"}
               for bot in ("stopper.sh", "group_killer.sh")]
    report, games, records = tournament(tmp_path, "workers", PLAIN + hostile, workers=1)
    assert report.complete and len(games) == 12
    for index, status, words in ((2, "timeout", "stopped responding"),
                                 (3, "crash", "killed by SIGKILL")):
        lost = [seat for record, game in zip(records, games, strict=True)
                for seat, entrant in zip(record.seats, game.seats, strict=True)
                if entrant == index and seat.status != "ok"]
        assert lost and all(seat.status == status and words in seat.detail for seat in lost)
    _, reference, _ = tournament(tmp_path, "reference", PLAIN)
    assert [(g.seed, g.ranks) for g in games if set(g.seats) == {0, 1}] == [
        (g.seed, g.ranks) for g in reference]


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_nothing_outlives_arena_run_whatever_stops_it(tmp_path, root, workers, stop):
    import signal

    before = processes()
    config = tmp_path / "run.yaml"
    config.write_text(
        f"name: escapers\ngame: seasons\nworkers: {workers}\ngames_per_pairing: 500\n"
        f"db: {tmp_path / 'e.db'}\noutput: {tmp_path / 'out'}\nbots:\n"
        f"  - bots/seasons/random_bot.py\n"
        f"  - {{spec: 'command:{HOSTILE / 'escaper.sh'}', isolation: process}}\n"
        f"  - {{spec: 'command:{HOSTILE / 'fork_bomb.sh'}', name: sandboxed-spawner}}\n")
    run = subprocess.Popen([sys.executable, "-m", "arena", "run", str(config), "--no-progress"],
                           cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not Path(tmp_path / "e.db").exists() or _stored(tmp_path / "e.db") < 6:
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.1)
    assert any("sleep 30" in line for line in processes().values())
    run.send_signal(getattr(signal, stop))
    run.wait(timeout=30)
    deadline = time.monotonic() + 10
    while set(processes()) - set(before) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert {pid: line for pid, line in processes().items() if pid not in before} == {}


def _stored(db):
    import sqlite3

    with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(db)) as store:
        return store.execute("SELECT count(*) FROM games").fetchone()[0]
    return 0


@pytest.mark.parametrize("isolation", [
    "process",
    pytest.param("sandbox", marks=needs_sandbox),
])
def test_a_cpu_limit_per_game_is_reset_each_game_and_stops_a_runaway(tmp_path, isolation):
    """Also within one decision, and in the sandbox, whose bot (the first process of its PID
    namespace) ignores the kernel's SIGXCPU: it thought on until the time limit, or for ever
    without one."""
    from arena.bots.isolation import bot_process
    from arena.bots.process import Limits

    fair = bot_process(str(HOSTILE / "cpu_fair.py"), {}, isolation,
                       Limits(cpu_seconds_per_game=0.6))
    runaway = bot_process(str(HOSTILE / "infinite_loop.py"), {}, isolation,
                          Limits(cpu_seconds_per_game=1.0))
    opponent = player("bots/seasons/random_bot.py")
    try:
        statuses = [play_game("seasons", [fair, opponent], seed=s).seats[0].status
                    for s in range(8)]  # 0.8 s of its own CPU over the games: more than one budget
        record = play_game("seasons", [runaway, opponent], seed=1, time_limit=20)
    finally:
        for bot in (fair, runaway, opponent):
            bot.close()
    assert statuses == ["ok"] * 8
    assert record.seats[0].status == "timeout"
    assert "used up its CPU time for the game (1 s" in record.seats[0].detail


@pytest.mark.parametrize(("bot", "isolation"), [("mirror_reader.py", "sandbox"),
                                               ("mirror_reader.py", "process"),
                                               ("lock_mirror.py", "sandbox")])
def test_a_bot_learns_nothing_in_one_game_of_a_set_for_another(tmp_path, bot, isolation):
    """Through its memory, its /tmp, or (sandboxed) locks on the files sandboxes share."""
    if isolation == "sandbox" and sandbox_problem() is not None:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    bots = [str(HOSTILE / bot), "bots/seasons/random_bot.py"]
    report, games, records = tournament(tmp_path, "mirror", bots, workers=1, isolation=isolation,
                                        games_per_pairing=8, time_limit=2.0)
    assert report.complete and len(games) == 16
    assert all(seat.status == "ok" for record in records for seat in record.seats), [
        seat.detail for record in records for seat in record.seats if seat.status != "ok"][:1]


def test_terminal_escapes_in_a_failure_are_stored_escaped(tmp_path):
    from arena.reports import write_reports

    bots = [str(HOSTILE / "terminal_writer.py"), "bots/seasons/random_bot.py"]
    _, _, records = tournament(tmp_path, "escapes", bots, workers=1, isolation="process",
                               games_per_pairing=1)
    details = [seat.detail for record in records for seat in record.seats if seat.detail]
    assert len(details) == 2 and all("\\x1b]0;ESCAPED title\\x07" in d for d in details)
    with Store(tmp_path / "escapes.db") as store:
        paths = write_reports(store, store.find_tournament("escapes"), tmp_path / "out")
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert not any(c in text for c in "\x1b\x07\x08\x00\x9b\r"), path.name


def test_a_handshake_nested_too_deeply_to_parse_is_a_broken_bot_not_a_broken_run(tmp_path):
    """JSON nested 200,000 deep makes Python's parser raise RecursionError, no ValueError:
    it ended a whole tournament (with broken_bots: forfeit too) with a traceback."""
    deep = {"spec": f"command:{HOSTILE / 'deep_json.sh'}", "name": "deep"}
    report, games, records = tournament(tmp_path, "deep", ["bots/seasons/random_bot.py",
                                                            "bots/seasons/greedy.py", deep],
                                        workers=1, broken_bots="forfeit", isolation="process")
    assert report.complete and len(games) == 6
    assert any("malformed handshake" in problem for problem in report.problems), report.problems
    assert all(seat.status == "crash" for record, game in zip(records, games, strict=True)
               for seat, entrant in zip(record.seats, game.seats, strict=True) if entrant == 2)
