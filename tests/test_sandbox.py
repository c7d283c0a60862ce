"""The sandbox: what a bot sees and may do inside it, and how arena falls back without it."""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from arena.bots import cgroups, isolation, sandbox
from arena.bots.isolation import IsolationError, resolve_isolation
from arena.bots.process import OPEN_FILES, Limits
from arena.bots.sandbox import (
    INSTALL_HINT,
    UID_BASE,
    Bind,
    SandboxedPlayer,
    bwrap_argv,
    sandbox_problem,
    system_binds,
)
from arena.referee.match import play_game

ROOT = Path(__file__).resolve().parent.parent
PROBE = str(Path(__file__).with_name("bots") / "probe.py")
needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None,
                                   reason=f"no sandbox here: {sandbox_problem()}")


def test_the_command_line_keeps_out_what_it_should():
    argv = bwrap_argv(["python", "bot.py"], [Bind("/opt/py", "/opt/py")], Limits(scratch_mb=8))
    words = " ".join(argv)
    for option in ("--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
                   "--as-pid-1", "--new-session", "--clearenv", "--proc /proc",
                   "--tmpfs /proc/sys", "--tmpfs /dev",
                   "--remount-ro / --remount-ro /dev --remount-ro /proc/sys",
                   f"--size {8 << 20} --tmpfs /tmp", "--ro-bind /usr /usr",
                   "--ro-bind /opt/py /opt/py"):
        assert option in words, option
    assert "--bind " not in words  # nothing writable but /tmp, and these devices:
    devices = [argv[i + 1] for i, word in enumerate(argv) if word == "--dev-bind"]
    assert devices == ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"]
    assert "--dev" not in argv  # bubblewrap's /dev has a terminal and a devpts (ptys)
    assert argv[argv.index("--") + 1:] == ["python", "bot.py"]


def against_random(spec, params, limits, time_limit):
    """A game of the sandboxed bot ``spec`` against the random bot: its record."""
    bot = SandboxedPlayer(spec, params, limits)
    opponent = SandboxedPlayer("bots/seasons/random_bot.py", {})
    try:
        return play_game("seasons", [bot, opponent], seed=1, time_limit=time_limit)
    finally:
        bot.close()
        opponent.close()


def probe(tmp_path, **params):
    record = against_random(PROBE, params, Limits(processes=32, scratch_mb=16), 5)
    detail = record.seats[0].detail
    assert "PROBE" in detail, detail
    return json.loads(detail.split("PROBE")[-2])


@needs_sandbox
def test_the_sandbox_runs_the_arena_a_pythonpath_chose_over_the_installed_one():
    """A copy of arena on PYTHONPATH (a checkout beside an editable install) is the arena the
    sandboxed bots import: the installed one is not shown to them."""
    folder = Path(tempfile.mkdtemp())  # not pytest's tmp_path: the bots' user cannot enter it
    try:
        folder.chmod(0o755)
        shutil.copytree(ROOT / "arena", folder / "arena",
                        ignore=shutil.ignore_patterns("__pycache__"))
        check = ("import arena, sys; from arena.bots.sandbox import sandbox_problem; "
                 "print(arena.__file__); print(sandbox_problem())")
        found = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                               cwd=folder, env={**os.environ, "PYTHONPATH": str(folder)},
                               check=True, timeout=120).stdout.splitlines()
        assert found == [str(folder / "arena" / "__init__.py"), "None"]
        game = ("from arena.bots.sandbox import SandboxedPlayer as P\n"
                "from arena.referee.match import play_game\n"
                "bots = [P('bots/seasons/greedy.py', {}), P('bots/seasons/random_bot.py', {})]\n"
                "print([seat.status for seat in play_game('seasons', bots, 3).seats])\n"
                "for bot in bots: bot.close()")
        played = subprocess.run([sys.executable, "-c", game], capture_output=True, text=True,
                                cwd=ROOT, env={**os.environ, "PYTHONPATH": str(folder)},
                                timeout=120)
        assert played.stdout.strip() == "['ok', 'ok']", played.stderr
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@needs_sandbox
def test_a_sandboxed_bot_sees_only_itself_and_writes_only_its_bounded_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    listener = socket.create_server(("127.0.0.1", 0))
    secret = tmp_path / "secret.txt"
    secret.write_text("the seed")
    paths = [str(ROOT / "results"), str(ROOT / "configs"), str(ROOT / "bots"), str(secret),
             "/etc/passwd", "/root/.ssh", str(ROOT / "README.md")]
    try:
        report = probe(tmp_path, paths=paths, port=listener.getsockname()[1])
    finally:
        listener.close()
    assert report["processes"] == [1] and report["pid"] == 1  # the namespace's only process
    assert report["uid"] == 65534 and report["cwd"] == "/tmp"
    assert not any(report["seen"].values()), report["seen"]
    # the interpreter's and the environment's folders, e.g. /root/.pyenv and a .venv's folder
    installation = {Path(bind.inside).parts[1] for bind in system_binds()}
    assert report["root"] == sorted({"bin", "bot", "dev", "etc", "lib", "lib64", "proc",
                                     "sbin", "tmp", "usr"} | installation)
    # PYTHONPATH only for an arena outside the interpreter's installation (an editable one)
    outside = sandbox._arena_import_path() != []
    assert report["env"] == sorted(["HOME", "TMPDIR", "PATH", "PWD", "LANG", "ARENA_SANDBOXED",
                                    "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED",
                                    "PYTHONNOUSERSITE", *(["PYTHONPATH"] * outside)])
    assert report["write_usr"].startswith("refused") and report["write_bot"].startswith("refused")
    assert report["write_root"] == "refused: Read-only file system"
    assert report["write_dev_shm"] == "refused: No such file or directory"  # /dev: read-only
    assert report["network"].startswith("refused")
    assert report["fork"].startswith("refused") and report["forked"] < 32
    assert report["fill"].startswith("refused") and report["filled"] <= 16 << 20
    assert report["open_files"] == [OPEN_FILES, OPEN_FILES]  # each pipe can hold memory


@needs_sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="arena runs as root only here")
def test_as_root_each_sandboxed_bot_runs_as_an_unprivileged_uid_of_its_own(monkeypatch):
    monkeypatch.chdir(ROOT)
    bots = [SandboxedPlayer("bots/seasons/random_bot.py", {}) for _ in range(2)]
    try:
        for bot in bots:
            bot.ensure_running()
        uids = [int(Path(f"/proc/{b.bot_pid}/status").read_text().split("Uid:")[1].split()[0])
                for b in bots]
    finally:
        for bot in bots:
            bot.close()
    assert all(uid >= UID_BASE for uid in uids) and len(set(uids)) == 2


@pytest.mark.skipif(os.geteuid() != 0, reason="arena runs as root only here")
def test_a_uid_still_in_use_is_not_given_to_another_bot(monkeypatch):
    """A process's 256 uids come round again; a bot alive under one (frozen between games)
    would share its process count (RLIMIT_NPROC) with the next bot given it: a channel."""
    base = UID_BASE + ((os.getpid() & 0x3FFFFF) << 8)
    monkeypatch.setattr(sandbox.SandboxLaunch, "_counter", 255)  # the next is base + 0

    def become(uid):
        return lambda: os.setresuid(uid, uid, uid)

    holders = [subprocess.Popen(["sleep", "60"], preexec_fn=become(base + n)) for n in (0, 1)]
    try:
        deadline = time.monotonic() + 10
        for holder in holders:  # its uid is set before its exec
            while Path(f"/proc/{holder.pid}/exe").resolve().name != "sleep":
                assert time.monotonic() < deadline
                time.sleep(0.01)
        assert {base, base + 1} <= sandbox.uids_in_use()
        assert sandbox.SandboxLaunch._next_uid() == base + 2
    finally:
        for holder in holders:
            holder.kill()
            holder.wait()
    monkeypatch.setattr(sandbox.SandboxLaunch, "_counter", 255)
    assert sandbox.SandboxLaunch._next_uid() == base  # free again


@needs_sandbox
def test_a_board_file_the_bots_cannot_reach_is_shown_to_them(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    board = tmp_path / "private" / "board.yaml"
    board.parent.mkdir(mode=0o700)
    board.write_bytes((ROOT / "arena/games/sonnentau/board.yaml").read_bytes())
    players = [SandboxedPlayer(f"bots/sonnentau/{name}.py", {}) for name in ("heuristic",
                                                                              "random_bot")]
    try:
        record = play_game("sonnentau", players, seed=2, options={"board": str(board)},
                           time_limit=5)
    finally:
        for player in players:
            player.close()
    assert [seat.status for seat in record.seats] == ["ok", "ok"], record.seats


def test_without_a_sandbox_only_shipped_bots_fall_back_and_explicit_or_strangers_refuse(
        monkeypatch, capsys):
    monkeypatch.setattr(isolation, "sandbox_problem", lambda: (
        f"bubblewrap (bwrap) is not installed; install it with: {INSTALL_HINT}"))
    monkeypatch.setattr(isolation, "_announced", False)
    with pytest.raises(IsolationError, match=r"apt-get install bubblewrap.*isolation: process"):
        resolve_isolation(None)
    assert resolve_isolation(None, shipped=True) == "process"
    assert resolve_isolation(None, shipped=True) == "process"
    warning = capsys.readouterr().err
    assert warning.count("\n") == 1 and "apt-get install bubblewrap" in warning
    assert resolve_isolation("process") == "process" and resolve_isolation("none") == "none"
    with pytest.raises(IsolationError, match="'sandbox' was asked for"):
        resolve_isolation("sandbox")
    with pytest.raises(IsolationError, match="bots from others run only in the sandbox"):
        resolve_isolation("process", strangers=True)


def test_the_probe_says_why_the_sandbox_cannot_run(monkeypatch):
    monkeypatch.setattr(sandbox, "BWRAP", "bwrap-that-is-not-there")
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    sandbox.sandbox_problem.cache_clear()
    try:
        problem = sandbox.sandbox_problem()
    finally:
        sandbox.sandbox_problem.cache_clear()
    assert "not installed" in problem and "apt-get install bubblewrap" in problem
    assert sys.platform.startswith("linux")


@needs_sandbox
@pytest.mark.skipif(not cgroups.available(),
                    reason="no memory cgroup to use here (needs root and cgroup v1 memory)")
def test_the_memory_limit_holds_for_all_of_a_bots_processes_together(monkeypatch):
    monkeypatch.chdir(ROOT)
    record = against_random(str(Path(__file__).with_name("bots") / "memory_forker.py"), {},
                            Limits(memory_mb=512), 10)
    killed = int(record.seats[0].detail.split("KILLED")[-2])
    assert killed >= 4  # 6 x 300 MB in 512 MB: at most one fits beside the bot


@needs_sandbox
@pytest.mark.skipif(not cgroups.available(),
                    reason="no memory cgroup to use here (needs root and cgroup v1 memory)")
@pytest.mark.parametrize("where", ["stderr", "tmp"])
def test_a_bots_stderr_and_tmp_are_memory_it_pays_for_and_a_kill_for_it_says_so(
        monkeypatch, where):
    """60 MB written to its stderr or its /tmp under a limit of 40 MB: the kernel kills the bot
    (a stderr on disk counted against nothing, and took the disk's bandwidth from everyone),
    and the failure names the memory limit, not bubblewrap's exit status 137."""
    monkeypatch.chdir(ROOT)
    record = against_random(str(Path(__file__).with_name("bots") / "file_filler.py"),
                            {"where": where}, Limits(memory_mb=40), 10)
    assert record.seats[0].status == "crash"
    assert record.seats[0].detail.startswith(
        "used more than its memory (40 MB for all its processes, memory_limit)"), \
        record.seats[0].detail[:200]


@needs_sandbox
@pytest.mark.skipif(os.geteuid() != 0, reason="the bots' own user differs from arena's as root")
def test_a_private_temporary_folder_is_named_as_the_sandboxs_problem(tmp_path):
    # pytest's own folder is private to its owner: the sandbox, as the bot's user, cannot
    # reach a bot's folder made under it. Installing bubblewrap would not help.
    private = tmp_path / "private"
    private.mkdir()
    tmp_path.chmod(0o700)
    code = "from arena.bots.isolation import resolve_isolation\n" \
           "print(resolve_isolation(None, shipped=True))\n"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "TMPDIR": str(private)}, timeout=60)
    assert found.stdout.strip() == "process"
    assert f"temporary folder {private}" in found.stderr
    assert sandbox.TMPDIR_ADVICE in found.stderr and "apt-get" not in found.stderr
