"""The worker processes: every task's result once, failures named, nothing left running."""

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from arena.bots.workers import WorkerDied, WorkerError, run_unordered

STATE = {}


def remember(value):
    STATE["value"] = value


def square_with_state(task):
    return task * task, STATE["value"], os.getpid()


def fail_on_seven(task):
    if task == 7:
        raise ValueError("seven")
    return task


def die_on_seven(task):
    if task == 7:
        os._exit(5)
    return task


def slow(task):
    time.sleep(30)
    return task


def test_every_task_is_done_once_in_a_worker_that_ran_the_initializer():
    results = list(run_unordered(square_with_state, range(50), 2, initializer=remember,
                                 initargs=("ready",)))
    assert sorted(r[0] for r in results) == [n * n for n in range(50)]
    assert {r[1] for r in results} == {"ready"}
    assert os.getpid() not in {r[2] for r in results} and len({r[2] for r in results}) == 2


def test_a_task_that_raises_is_reported_with_the_workers_traceback():
    with pytest.raises(WorkerError, match="ValueError: seven"):
        list(run_unordered(fail_on_seven, range(20), 2, initializer=remember, initargs=(0,)))


def test_a_worker_that_dies_names_its_task():
    with pytest.raises(WorkerDied) as died:
        list(run_unordered(die_on_seven, range(20), 2, initializer=remember, initargs=(0,)))
    assert died.value.task == 7 and died.value.exitcode == 5


def test_leaving_early_stops_busy_workers_at_once():
    results = run_unordered(slow, iter([1, 2, 3, 4]), 2, initializer=remember, initargs=(0,))
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        for _ in _with_deadline(results, 0.5):
            pass
    assert time.monotonic() - started < 10
    assert multiprocessing.active_children() == []


def test_a_sigterm_while_the_worker_finalizes_does_not_cut_the_cleanup_short(tmp_path):
    # A Ctrl-C's stop sends the worker None, then SIGTERM if it is still busy: that
    # SIGTERM can land in the finalizer, which closes the bots and deletes their folders.
    def finalize():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)
        (tmp_path / str(os.getpid())).write_text("closed")

    results = list(run_unordered(abs, range(4), 2, initializer=remember, initargs=(0,),
                                 finalizer=finalize))
    assert sorted(results) == [0, 1, 2, 3]
    assert len(list(tmp_path.iterdir())) == 2


def test_a_worker_whose_way_out_hangs_ends_though_its_parent_was_killed(tmp_path):
    # Seen after a killed run: a worker stuck on its way out (a lock or a thread's join that
    # never returned) lived on for hours with its bots and the run's files. Whatever hangs,
    # the kernel ends it; here the finalizer waits for ever.
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import os, threading, time
        from arena.bots import workers
        workers.EXIT_SECONDS = 1

        def task(n):
            if n >= 2:
                time.sleep(60)
            return os.getpid()

        def hang():
            lock = threading.Lock()
            lock.acquire()
            lock.acquire()

        results = workers.run_unordered(task, iter(range(4)), 2, initializer=time.sleep,
                                        initargs=(0,), finalizer=hang)
        pids = {next(results) for _ in range(2)}
        print(*pids, flush=True)
        time.sleep(60)
        """)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(pid) for pid in parent.stdout.readline().split()]
        assert pids
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 20
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [pid for pid in pids if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _with_deadline(results, seconds):
    import signal

    def expire(signum, frame):
        raise TimeoutError

    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield from results
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        results.close()


def test_a_workers_bots_of_a_run_that_went_quiet_are_stopped_never_while_it_plays(root,
                                                                                 monkeypatch):
    """A Dask client killed with -9 never releases its bots on the workers: each worker
    stops those of a run none of whose games it has played for a while."""
    from arena.bots import roster
    from arena.bots.identity import BotEntry
    from arena.tournaments.schedule import GameTask
    from arena.tournaments.tasks import MatchSetup, _playing, play_task, release_idle

    monkeypatch.chdir(root)
    entry = BotEntry("bots/seasons/random_bot.py", isolation="process")
    setup = MatchSetup("seasons", {}, (entry, entry), run="gone-quiet")
    assert play_task(setup, GameTask(0, 0, 0, 0, (0, 1), 11)).game.statuses == ("ok", "ok")
    players = [instance.player for key, pool in roster._pools.items()
               if key[0] == "gone-quiet" for instance in pool.instances]
    processes = [getattr(player, "player", player) for player in players]
    assert processes and all(process._running() for process in processes)
    assert release_idle(3600) == []  # not quiet for that long
    with _playing("gone-quiet"):  # a game of it under way: its bots are kept
        assert release_idle(0) == []
    assert all(process._running() for process in processes)
    assert release_idle(0) == ["gone-quiet"]
    assert not any(key[0] == "gone-quiet" for key in roster._pools)
    assert not any(process._running() for process in processes)


def test_games_of_a_released_run_still_to_come_in_a_batch_are_not_played(root, monkeypatch):
    """Released while a batch of its games was under way, a run's next games started its
    bots again, and nobody released those."""
    from arena.bots import roster
    from arena.bots.identity import BotEntry
    from arena.tournaments.schedule import GameTask
    from arena.tournaments.tasks import MatchSetup, RunReleased, play_shipped, release_players

    monkeypatch.chdir(root)
    entry = BotEntry("bots/seasons/random_bot.py", isolation="process")
    setup = MatchSetup("seasons", {}, (entry, entry), run="released-midway")
    tasks = (GameTask(0, 0, 0, 0, (0, 1), 11), GameTask(0, 0, 1, 0, (0, 1), 12))
    assert len(play_shipped(setup, tasks)) == 2
    release_players("released-midway")
    with pytest.raises(RunReleased):
        play_shipped(setup, tasks)
    assert not any(key[0] == "released-midway" for key in roster._pools)


def test_a_worker_killed_from_outside_while_a_sandboxed_bot_decides_plays_the_game_again():
    """A sandboxed bot cannot kill its worker: the operator or the OOM killer did. The
    game is played again, once, on the same dice; a bot in a plain process (which can kill
    its worker) or a hung worker still costs the deciding seat the game."""
    from arena.bots.identity import BotEntry
    from arena.bots.workers import Lost
    from arena.tournaments.schedule import GameTask
    from arena.tournaments.tasks import MatchSetup, Settle

    entries = (BotEntry("a.py", isolation="sandbox"), BotEntry("b.py", isolation="process"))
    settle = Settle(MatchSetup("seasons", {}, entries))
    task = GameTask(0, 0, 0, 0, (1, 0), 11)  # seat 1 is the sandboxed bot
    assert settle(Lost(task, 1, False, -9)) is None  # played again
    again = settle(Lost(task, 1, False, -9))  # twice: the bot loses after all
    assert again is not None and again.game.statuses == ("ok", "crash")
    assert settle(Lost(task, 0, False, -9)).game.statuses == ("crash", "ok")  # a plain one
    hung = settle(Lost(GameTask(0, 0, 1, 0, (1, 0), 12), 1, True, None))
    assert hung.game.statuses == ("ok", "timeout")
