"""A bot that reports what it can see and do from where it runs, as the message of the
exception its start() raises (so the test reads it from the game's record)."""

import ctypes
import json
import os
import resource
import socket


def attempt(action):
    try:
        action()
    except OSError as exc:
        return f"refused: {exc.strerror or exc}"
    return "done"


def _libc_write(path):
    """Create ``path`` through libc, past the audit hook: only the mounts stop it."""
    fd = ctypes.CDLL(None, use_errno=True).open(path.encode(), os.O_WRONLY | os.O_CREAT, 0o644)
    if fd < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    os.close(fd)


class Probe:
    name, version = "probe", "1"

    def __init__(self, paths=(), port=1):
        self.paths, self.port = list(paths), port

    def start(self, info):
        def fork_many():  # through libc: past the audit hook, only the limits count
            libc = ctypes.CDLL(None, use_errno=True)
            children = []
            try:
                for _ in range(200):
                    pid = libc.fork()
                    if pid == 0:
                        libc.pause()
                        libc._exit(0)
                    if pid < 0:
                        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
                    children.append(pid)
            finally:
                report["forked"] = len(children)
                for pid in children:
                    libc.kill(pid, 9)
                    libc.waitpid(pid, None, 0)

        def fill():
            with open("/tmp/fill", "wb") as out:
                for _ in range(200):
                    out.write(b"x" * (1 << 20))

        report = {
            "uid": os.getuid(), "pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(),
            "processes": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
            "root": sorted(os.listdir("/")), "env": sorted(os.environ),
            "seen": {path: os.path.exists(path) for path in self.paths},
            "write_usr": attempt(lambda: open("/usr/arena-probe", "w").close()),
            "write_root": attempt(lambda: _libc_write("/arena-probe")),
            "write_dev_shm": attempt(lambda: _libc_write("/dev/shm/arena-probe")),
            "write_bot": attempt(lambda: open(__file__, "a").close()),
            "network": attempt(lambda: socket.create_connection(("127.0.0.1", self.port),
                                                                 timeout=1)),
        }
        report["open_files"] = list(resource.getrlimit(resource.RLIMIT_NOFILE))
        report["fork"] = attempt(fork_many)
        report["fill"] = attempt(fill)
        report["filled"] = os.path.getsize("/tmp/fill") if os.path.exists("/tmp/fill") else 0
        raise RuntimeError("PROBE" + json.dumps(report) + "PROBE")

    def act(self, observation):
        return observation.legal_actions[0]
