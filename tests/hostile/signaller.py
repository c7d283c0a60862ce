import ctypes
import os
import signal


class Signaller:
    """Sends SIGSTOP to every other process it can see or is told of (the other bots, arena),
    through libc, past any audit hook. Plays the first legal action; raises if one arrived."""

    name, version = "signaller", "1"

    def __init__(self, pids=()):
        self.pids = list(pids)

    def start(self, info):
        libc = ctypes.CDLL(None, use_errno=True)
        seen = [int(p) for p in os.listdir("/proc") if p.isdigit()]
        for pid in {*self.pids, *seen} - {os.getpid(), 1}:
            if libc.kill(pid, signal.SIGSTOP) == 0:
                libc.kill(pid, signal.SIGCONT)
                raise RuntimeError(f"ESCAPED: stopped process {pid}")

    def act(self, observation):
        return observation.legal_actions[0]
