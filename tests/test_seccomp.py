"""The sandbox's system-call filter: what it refuses (and how), and that bots in Python, shell
and Perl still play under it."""

import errno
import json
import platform
import random
from pathlib import Path

import pytest

from arena.bots import sandbox, syscall_filter
from arena.bots.isolation import bot_process
from arena.bots.process import Limits
from arena.bots.sandbox import Bind, bwrap_argv, sandbox_problem
from arena.referee.match import play_game

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = Path(__file__).parent / "hostile"
needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None,
                                   reason=f"no sandbox here: {sandbox_problem()}")


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def play(spec, game="seasons", seed=4):
    """A game of the sandboxed ``spec`` against the random bot: its record and the bot's
    stderr tail."""
    bot = bot_process(spec, {}, "sandbox", Limits(processes=32))
    opponent = bot_process(f"bots/{game}/random_bot.py", {}, "sandbox")
    try:
        record = play_game(game, [bot, opponent], seed=seed, time_limit=5)
        tail = bot.stderr_tail()
    finally:
        bot.close()
        opponent.close()
    return record, tail


@needs_sandbox
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the bot knows x86_64's numbers")
def test_every_refused_call_fails_with_eperm_and_the_bot_plays_on():
    record, tail = play(str(HOSTILE / "syscaller.py"))
    assert record.seats[0].status == "ok", record.seats[0].detail
    assert "ESCAPED" not in record.seats[0].detail
    summary = json.loads(tail.split("SYSCALLS ")[-1].splitlines()[0])
    assert summary["seccomp"] == "2"  # a filter, in the bot's own /proc/self/status
    assert summary["let_through"] == {}
    assert summary["refused"] == summary["tried"] >= 80  # the i386 ones where int 0x80 is
    assert all(summary["works"].values()), summary["works"]  # fork, threads, subprocess, ...
    assert record.seats[1].status == "ok"


@needs_sandbox
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the bot knows x86_64's numbers")
def test_what_the_kernel_keeps_per_shared_file_carries_nothing_between_sandboxes():
    """Locks on, watches of, futexes keyed by and page-cache questions about the system's
    files, which every sandbox shares, are refused; so is disk taken through stderr without
    growing it, and nothing but /tmp is writable. (A bot kept its notes as locks on the
    standard library's files, held while it was frozen, and the mirrored game's bot in
    another sandbox read them: its opponent's dice to come.)"""
    record, tail = play(str(HOSTILE / "shared_files.py"))
    assert record.seats[0].status == "ok", record.seats[0].detail
    found = json.loads(tail.split("CHANNELS ")[-1].splitlines()[0])
    assert found == {
        "flock": "ENOLCK", "lockf": "ENOLCK", "ofd_lock": "ENOLCK", "get_lock": "ENOLCK",
        "ofd_get_lock": "ENOLCK", "lease": "EPERM", "dnotify": "EPERM", "inotify": "EPERM",
        # the C library says a refused preadv2 with flags, and fallocate's EOPNOTSUPP, as
        # ENOTSUP (the same number on Linux)
        "fanotify": "EPERM", "nowait_read": "ENOTSUP", "cachestat": "ENOSYS", "aio": "ENOSYS",
        "fallocate_stderr": "ENOTSUP", "own_file_allocated": 4096,
        "touch_dev_null": "EPERM", "touch_dev_urandom": "EPERM", "pty": "ENOENT",
        "pty_count": "ENOENT", "open_files_count": "ENOENT",
        "futex_shared_wake": "EINVAL", "futex_shared_wait": "EAGAIN",
        "futex_shared_cmp_requeue": "EINVAL", "futex2_wake": "EINVAL", "futex2_wait": "EAGAIN",
        "futex_waitv": "ENOSYS", "futex_requeue": "ENOSYS", "futex_private_wake": "ok",
        "write_proc_sys": "EROFS",
        "writable_mounts": [  # the devices are nodes: nothing is made in them
            *(f"/dev/{name}" for name in sorted(sandbox.DEVICES)), "/proc", "/tmp"],
        "stderr_blocks": found["stderr_blocks"], "stderr_in_memory": True}, found
    assert found["stderr_blocks"] < 64  # a few writes' worth, not the gibibyte asked for


@needs_sandbox
@pytest.mark.parametrize(("spec", "name"), [
    ("bots/seasons/random_bot.py", "random"),
    ("command:bots/examples/first_legal.sh", "first-legal-sh"),
    ("command:tests/bots/first_legal.pl", "first-legal-pl"),
])
def test_python_shell_and_perl_bots_play_under_the_filter(spec, name):
    for game in ("seasons", "sonnentau"):
        record, tail = play(spec, game)
        assert record.seats[0].status == "ok", (record.seats[0].detail, tail)
        assert record.seats[0].name == name


def test_the_filter_is_handed_to_bwrap_as_file_descriptors():
    argv = bwrap_argv(["python", "bot.py"], [Bind("/opt", "/opt")], Limits(),
                      seccomp_fds=(9, 10))
    at = [i for i, word in enumerate(argv) if word == "--add-seccomp-fd"]
    assert [argv[i + 1] for i in at] == ["9", "10"] and at[-1] < argv.index("--")
    assert "--add-seccomp-fd" not in bwrap_argv(["python"], [], Limits())


@pytest.mark.skipif(syscall_filter.problem() is not None,
                    reason=f"no libseccomp here: {syscall_filter.problem()}")
def test_the_filter_is_compiled_once_and_read_from_its_descriptors():
    programs = syscall_filter.programs()
    assert programs[0] is syscall_filter.compiled()
    assert all(len(program) % 8 == 0 for program in programs)
    assert len(programs) == (2 if platform.machine() == "x86_64" else 1)
    fds = syscall_filter.filter_fds()
    try:
        assert [syscall_filter.os.read(fd, len(p) + 1) for fd, p in zip(fds, programs,
                                                                         strict=True)] == programs
    finally:
        for fd in fds:
            syscall_filter.os.close(fd)


def test_personality_refuses_all_but_dockers_values():
    allowed = set(syscall_filter.PERSONALITIES)
    patterns = syscall_filter.personality_patterns()

    def refused(value):
        return any(value & mask == want for mask, want in patterns)

    rng = random.Random(23)
    values = ({1 << i for i in range(32)} | {0xFFFFFFFF ^ 1 << i for i in range(32)}
              | {(1 << i) | (1 << j) for i in range(32) for j in range(32)}
              | {rng.getrandbits(32) for _ in range(20000)} | allowed)
    for value in values:
        assert refused(value) == (value not in allowed), hex(value)
    assert len(patterns) <= 32


def test_without_libseccomp_the_sandbox_says_what_to_install(monkeypatch):
    def missing():
        raise syscall_filter.SyscallFilterUnavailable(
            f"the Python package pyseccomp is not installed; {syscall_filter.INSTALL_HINT}")

    monkeypatch.setattr(syscall_filter, "_compiled", None)
    monkeypatch.setattr(syscall_filter, "build", missing)
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: "/usr/bin/bwrap")
    sandbox.sandbox_problem.cache_clear()
    try:
        problem = sandbox.sandbox_problem()
        with pytest.raises(sandbox.SandboxUnavailable, match="pyseccomp"):
            sandbox.SandboxLaunch(["true"], None, Limits()).run_briefly()
    finally:
        sandbox.sandbox_problem.cache_clear()
    assert problem is not None and "system-call filter" in problem
    assert "pip install pyseccomp" in problem and "libseccomp2" in problem


def test_clone3_alone_says_no_such_call():
    # the only refusal that is not EPERM: glibc falls back from clone3 to clone on ENOSYS
    assert errno.ENOSYS != errno.EPERM and "clone3" not in syscall_filter.REFUSED
