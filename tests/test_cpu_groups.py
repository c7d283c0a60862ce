"""A bot is all of its processes: a helper that leaves the bot's process group (a session
of its own, a double fork) counts against the bot's CPU limit, and stops between its games,
in the bot's cgroups (as root, cgroup v1) and, without them, in its PID namespace."""

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.bots import cgroups
from arena.bots.isolation import bot_process
from arena.bots.process import Limits
from arena.bots.sandbox import sandbox_problem
from arena.referee.match import play_game

ROOT = Path(__file__).resolve().parent.parent
HELPER = str(Path(__file__).parent / "hostile" / "cpu_helper.py")
CPU_TEXT = "used up its CPU time for the game (0.5 s, cpu_limit)"
pytestmark = pytest.mark.skipif(sandbox_problem() is not None,
                                reason=f"no sandbox here: {sandbox_problem()}")
no_cgroups = pytest.mark.skipif(
    not (cgroups.available("cpuacct") and cgroups.available("freezer")),
    reason="no cpuacct and freezer cgroups to use here (needs root and cgroup v1)")


@pytest.fixture(params=["cgroups", "namespace"])
def accounting(request, monkeypatch):
    """Each test runs with the bot's cgroups, and with its PID namespace alone (as where
    arena is not root, or cgroup v2 is not delegated)."""
    monkeypatch.chdir(ROOT)
    if request.param == "cgroups":
        if not (cgroups.available("cpuacct") and cgroups.available("freezer")):
            pytest.skip("no cpuacct and freezer cgroups to use here (needs root and cgroup v1)")
    else:
        monkeypatch.setattr(cgroups, "folder", lambda controller: None)
    return request.param


def players(cpu_limit, think):
    bot = bot_process(HELPER, {"think": think}, "sandbox", Limits(cpu_seconds_per_game=cpu_limit))
    return bot, bot_process("bots/seasons/random_bot.py", {}, "sandbox")


def namespace_pids(pid):
    """The processes in the PID namespace of ``pid``, read here from /proc."""
    namespace = os.readlink(f"/proc/{pid}/ns/pid")
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.readlink(f"/proc/{name}/ns/pid") == namespace:
                found.append(int(name))
        except OSError:
            pass
    return found


def own_cpu(pid):
    """The CPU time of process ``pid`` itself, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_helper_in_a_session_of_its_own_counts_against_the_cpu_limit(accounting):
    # Slow answers stretch the game to over 10 s, time for the helper to burn 0.5 s of CPU
    # even on a busy machine; where the helper is counted, the game ends at 0.5 s.
    bot, opponent = players(0.5, think=0.5)
    try:
        record = play_game("seasons", [bot, opponent], seed=3, time_limit=5)
    finally:
        bot.close()
        opponent.close()
    assert record.seats[0].status == "timeout", record.seats[0]
    assert CPU_TEXT in record.seats[0].detail
    assert record.seats[1].status == "ok"


def test_between_games_no_process_of_the_bot_runs(accounting):
    bot, opponent = players(None, think=0.02)
    try:
        record = play_game("seasons", [bot, opponent], seed=3, time_limit=5)
        assert record.seats[0].status == "ok", record.seats[0]
        helpers = [pid for pid in namespace_pids(bot.bot_pid) if pid != bot.bot_pid]
        assert len(helpers) == 1  # it has left the bot's session and process group
        assert os.getsid(helpers[0]) != os.getsid(bot.bot_pid)
        before = own_cpu(helpers[0])
        group_before = bot.cpu_seconds()
        time.sleep(1.0)
        assert own_cpu(helpers[0]) - before < 0.05
        assert bot.cpu_seconds() - group_before < 0.05
        record = play_game("seasons", [bot, opponent], seed=4, time_limit=5)
        assert record.seats[0].status == "ok", record.seats[0]
        assert own_cpu(helpers[0]) - before > 0.02  # it ran again during the game
        assert bot.cpu_seconds() >= own_cpu(helpers[0])  # the bot's count has the helper's
    finally:
        bot.close()
        opponent.close()


@no_cgroups
def test_a_bots_groups_are_made_for_it_and_removed_after_it(monkeypatch):
    monkeypatch.chdir(ROOT)
    gone = subprocess.Popen(["true"])
    gone.wait()
    stale = cgroups.folder("cpuacct") / f"{cgroups.PREFIX}{gone.pid}-1"  # a killed arena's
    stale.mkdir(exist_ok=True)
    bot, opponent = players(None, think=0.0)
    try:
        play_game("seasons", [bot, opponent], seed=3, time_limit=5)
        assert not stale.exists()
        folders = dict(bot.groups.folders)
        assert set(folders) == {"memory", "cpuacct", "freezer"} | (
            {"cpu"} if cgroups.available("cpu") else set())
        procs = (folders["freezer"] / "cgroup.procs").read_text().split()
        assert str(bot.bot_pid) in procs and len(procs) >= 3  # bwrap, the bot, its helper
        if "cpu" in folders:  # one share of the processors for all of them, the helper too
            assert (folders["cpu"] / "cgroup.procs").read_text().split() == procs
            assert (folders["cpu"] / "cpu.shares").read_text().strip() == "1024"
        assert (folders["freezer"] / "freezer.state").read_text().strip() == "FROZEN"
    finally:
        bot.close()
        opponent.close()
    assert bot.groups is None
    assert not any(folder.exists() for folder in folders.values())


WORKER = """
import subprocess, sys, time
from arena.bots.cgroups import BotGroups
groups = BotGroups.create(None)
bot = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                       preexec_fn=groups.join)
time.sleep(0.3)
assert groups.freeze()
print(bot.pid, groups.folders["freezer"], flush=True)
time.sleep(600)
"""


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@no_cgroups
def test_a_bot_frozen_between_games_dies_when_the_process_that_froze_it_is_killed():
    """A worker killed with SIGKILL (its run was) cannot thaw the bots it froze between
    games, and a frozen process does not even die: its guard thaws and kills them."""
    worker = subprocess.Popen([sys.executable, "-c", WORKER], stdout=subprocess.PIPE,
                              text=True, cwd=ROOT)
    pid, group = worker.stdout.readline().split()
    bot = int(pid)
    try:
        assert (Path(group) / "freezer.state").read_text().strip() == "FROZEN"
        worker.kill()
        worker.wait()
        deadline = time.monotonic() + 10
        while not gone(bot) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(bot), "the frozen bot outlived the process that froze it"
        deadline = time.monotonic() + 5
        while Path(group).exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not Path(group).exists()
    finally:
        with contextlib.suppress(OSError):
            (Path(group) / "freezer.state").write_text("THAWED")
        with contextlib.suppress(OSError):
            os.kill(bot, 9)


@pytest.mark.stress
@pytest.mark.skipif(not cgroups.available("cpu"), reason="no cpu cgroups to use here (needs "
                    "root and cgroup v1)")
def test_a_bot_whose_helpers_spin_cannot_starve_its_opponent_into_a_timeout(monkeypatch):
    """Without a cpu group of its own, each of 40 helpers in sessions of their own weighed
    as much as the opponent: a fair bot thinking 0.15 s of CPU a decision lost 3 games of 4
    on time (limit 1 s). The limit here is 2 s: a margin for a machine busy with the other
    stress tests (beside them a decision once took 1.25 s), far below the 3 s or so a
    decision takes with a forty-first of the CPU."""
    monkeypatch.chdir(ROOT)
    hostile = Path(__file__).parent / "hostile"
    timeouts = []
    for seed in range(3):
        starver = bot_process(str(hostile / "starver.py"), {}, "sandbox", Limits(processes=64))
        thinker = bot_process(str(hostile / "thinker.py"), {}, "sandbox")
        try:
            record = play_game("seasons", [starver, thinker], seed=seed, time_limit=2.0)
        finally:
            starver.close()
            thinker.close()
        timeouts += [seat.detail for seat in record.seats if seat.status == "timeout"]
    assert timeouts == []
