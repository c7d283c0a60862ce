"""A Ctrl-C at a terminal reaches every process of the foreground group: arena answers it
once, with status 130 and one line, whenever it comes; no child prints a traceback."""

import contextlib
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time

from click.testing import CliRunner
from test_tournament import GREEDY, RANDOM, count_games, long_run

from arena.bots.interrupts import children_deaf_to_ctrl_c, deaf_to_ctrl_c
from arena.cli import cli


def _wait_then_go_deaf(ready, go):
    # Stands for a child still importing when the Ctrl-C comes: no handler of its own yet,
    # and a library that unblocks SIGINT (multiprocessing's resource tracker does).
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    ready.set()
    go.wait(30)
    deaf_to_ctrl_c()
    time.sleep(0.05)


def _start_child(context, deaf):
    ready, go = context.Event(), context.Event()
    process = context.Process(target=_wait_then_go_deaf, args=(ready, go))
    if deaf:
        with children_deaf_to_ctrl_c():
            process.start()
    else:  # as from a terminal, even where the tests run with SIGINT ignored (`make test &`)
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            process.start()
        finally:
            signal.signal(signal.SIGINT, previous)
    assert ready.wait(30)
    os.kill(process.pid, signal.SIGINT)
    time.sleep(0.1)
    go.set()
    process.join(30)
    return process.exitcode


def test_a_child_started_deaf_drops_a_ctrl_c_that_came_while_it_started():
    for method in ("spawn", "fork"):
        context = multiprocessing.get_context(method)
        assert _start_child(context, deaf=True) == 0, method
        assert _start_child(context, deaf=False) != 0, method  # KeyboardInterrupt


def _held_until_the_block_ends(number, holding):
    """Whether signal ``number``, sent within ``holding``, comes only after it, and then."""
    caught = []
    previous = signal.signal(number, lambda got, frame: caught.append(got))
    try:
        with holding():
            # To this thread: another thread of the process (pytest's) would take it at once.
            signal.pthread_kill(threading.get_ident(), number)
            held = caught == []
        return held and caught == [number]
    finally:
        signal.signal(number, previous)


def test_the_parent_gets_a_ctrl_c_that_came_while_it_started_a_child():
    assert _held_until_the_block_ends(signal.SIGINT, children_deaf_to_ctrl_c)


def _spawned_child(pid):
    """A child of ``pid`` that multiprocessing spawned (still starting, or running)."""
    for task in os.listdir(f"/proc/{pid}/task"):
        for child in _read(f"/proc/{pid}/task/{task}/children").split():
            if b"spawn_main" in _read(f"/proc/{child}/cmdline", "rb"):
                return int(child)
    return None


def _read(path, mode="r"):
    """A file of /proc, or nothing if its thread or process has just ended."""
    try:
        with open(path, mode) as file:
            return file.read()
    except OSError:  # ENOENT, or ESRCH for a thread that ended
        return b"" if "b" in mode else ""


def test_a_ctrl_c_to_the_whole_process_group_is_answered_once(tmp_path, root):
    process, _db = long_run(tmp_path, root, "grouped", own_session=True)
    deadline = time.monotonic() + 60
    # The luck accounting's process, just spawned: it is still importing, with no handler.
    while _spawned_child(process.pid) is None and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(0.1)  # past the interpreter's start, into the imports
    os.killpg(process.pid, signal.SIGINT)  # as a terminal sends it, to every process
    time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGINT)  # an impatient second one changes nothing
    _out, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().startswith("interrupted") and err.count("interrupted") == 1, err


def test_a_ctrl_c_while_the_command_line_loads_ends_it_quietly(root):
    program = ("import builtins, sys\n"
               "real = builtins.__import__\n"
               "def loading(name, *args, **kwargs):\n"
               "    if name == 'arena.cli':\n"
               "        raise KeyboardInterrupt\n"
               "    return real(name, *args, **kwargs)\n"
               "builtins.__import__ = loading\n"
               "from arena.__main__ import main\n"
               "main()\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=root, capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stderr) == (130, "")


def _interrupted(*args, **kwargs):
    raise KeyboardInterrupt


def test_a_ctrl_c_before_a_command_answers_it_is_one_line(tmp_path, monkeypatch):
    import arena.cli.run as run

    monkeypatch.setattr(run, "load_config", _interrupted)
    result = CliRunner().invoke(cli, ["run", str(tmp_path / "t.yaml")])
    assert result.exit_code == 130 and result.output.strip() == "interrupted"


def _short_run(tmp_path, name):
    """``arena run`` of 4 games in this process: (its result, its database)."""
    path = tmp_path / "t.yaml"
    path.write_text(f"name: {name}\ngame: seasons\nbots: [{GREEDY}, {RANDOM}]\n"
                    "games_per_pairing: 2\nisolation: none\n")
    db = tmp_path / f"{name}.db"
    result = CliRunner().invoke(cli, ["run", str(path), "--no-progress", "--db", str(db),
                                      "--output", str(tmp_path / "out")])
    return result, db


def test_a_ctrl_c_after_the_games_says_how_to_write_the_report(tmp_path, monkeypatch):
    import arena.cli.run as run

    monkeypatch.setattr(run, "_finish", _interrupted)
    result, db = _short_run(tmp_path, "cut")
    assert result.exit_code == 130
    assert f"interrupted: all 4 games are kept in {db}; arena report cut --db {db}" in (
        " ".join(result.output.split()))  # wrapped between words
    report = CliRunner().invoke(cli, ["report", "cut", "--db", str(db), "--out",
                                      str(tmp_path / "report")])
    assert report.exit_code == 0 and (tmp_path / "report" / "report.html").exists()


def _signal_masks(pid):
    with open(f"/proc/{pid}/status") as status:
        fields = dict(line.split(":\t", 1) for line in status.read().splitlines() if ":\t" in line)
    return {name: int(fields[name], 16) for name in ("SigBlk", "SigIgn")}


def _sigint_and_sigterm_bits():
    return (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))


def _bot_masks_when_started(*, parent_ignores_ctrl_c):
    from arena.bots.process import ProcessPlayer, bot_command

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN if parent_ignores_ctrl_c
                             else signal.getsignal(signal.SIGINT))
    player = ProcessPlayer(bot_command("bots/seasons/random_bot.py", {}))
    try:
        player.ensure_running()
        assert player.process is not None
        return _signal_masks(player.process.pid)
    finally:
        player.close()
        signal.signal(signal.SIGINT, previous)


def test_a_bot_starts_with_sigint_and_sigterm_neither_blocked_nor_ignored(root, monkeypatch):
    # A worker ignores Ctrl-C and holds both signals while it forks a bot: the bot must not
    # inherit either, or it could not be interrupted or terminated as programs expect.
    monkeypatch.chdir(root)
    for ignoring in (False, True):
        masks = _bot_masks_when_started(parent_ignores_ctrl_c=ignoring)
        assert masks["SigBlk"] & _sigint_and_sigterm_bits() == 0, masks
        assert masks["SigIgn"] & _sigint_and_sigterm_bits() == 0, masks


def test_a_signal_during_a_bot_fork_comes_after_it():
    from arena.bots.interrupts import signals_held_while_forking

    for number in (signal.SIGTERM, signal.SIGINT):
        assert _held_until_the_block_ends(number, signals_held_while_forking)


class _TerminatedWhileCollected:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)  # its exit is raised here, where Python drops it
        time.sleep(0.05)


def _first_task_terminates_itself(task):
    if task == 0:
        _TerminatedWhileCollected()
    return task


def test_a_worker_whose_exit_on_sigterm_was_dropped_ends_after_its_task(tmp_path, capfd):
    from arena.bots.workers import run_unordered

    def finalize():
        (tmp_path / str(os.getpid())).write_text("closed")

    results = list(run_unordered(_first_task_terminates_itself, range(6), 1,
                                 initializer=lambda: None, finalizer=finalize))
    assert sorted(results) == list(range(6))
    assert len(list(tmp_path.iterdir())) == 2  # the terminated worker and its successor
    assert "Exception ignored" not in capfd.readouterr().err


def test_a_ctrl_c_during_a_match_shows_the_games_finished_so_far(monkeypatch):
    import arena.tournaments.matches as matches

    played = matches.play_match

    def cut_short(*args, **kwargs):
        for index, result in enumerate(played(*args, **kwargs)):
            if index == 3:
                raise KeyboardInterrupt
            yield result

    monkeypatch.setattr(matches, "play_match", cut_short)
    result = CliRunner().invoke(cli, ["play", "seasons", "greedy", "random", "--games", "10",
                                      "--workers", "1", "--isolation", "none"])
    assert result.exit_code == 130
    assert "3 games of Seasons of the Sun, seed 0" in result.output
    assert "greedy@1.0" in result.output and "interrupted after 3 of 10 games" in result.output


def test_a_sigterm_to_a_run_is_answered_as_a_ctrl_c_with_its_own_status(tmp_path, root):
    process, db = long_run(tmp_path, root, "termed", own_session=True)
    deadline = time.monotonic() + 60
    while count_games(db) < 50 and time.monotonic() < deadline:
        time.sleep(0.05)
    process.terminate()  # a supervisor's stop, or timeout(1)
    _out, err = process.communicate(timeout=30)
    assert process.returncode == 143, err
    assert err.strip().startswith("interrupted: ") and "run the same command again" in err
    assert len(err.strip().splitlines()) == 1, err  # in a pipe a message is one line, for grep
    assert "Traceback" not in err and "leaked" not in err, err
    assert 50 <= count_games(db) < 600


def test_a_ctrl_c_while_compare_plays_says_the_games_are_kept(tmp_path, monkeypatch):
    import arena.tournaments.matches as matches

    played, db = _short_run(tmp_path, "met")
    assert played.exit_code == 0, played.output
    monkeypatch.setattr(matches, "play_comparison", _interrupted)
    result = CliRunner().invoke(cli, ["compare", "greedy", "random", "--games", "4", "--db",
                                      str(db), "--no-progress"])
    assert result.exit_code == 130
    assert f"interrupted: the finished games are kept in {db}; run the same command" in (
        " ".join(result.output.split()))  # wrapped between words
