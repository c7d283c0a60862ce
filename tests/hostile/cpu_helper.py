import ctypes
import os
import random
import signal
import time


def burn():
    while True:
        pass


class CpuHelper:
    """Answers each decision quickly (a random legal action after ``think`` seconds), and
    has a helper burn CPU forever: forked through libc (where arena's audit hook refuses
    ``os.fork``; a sandbox allows processes up to a count), in a session of its own after a
    double fork, ignoring SIGXCPU. Counting only the bot's own process, or stopping only its
    process group between games, misses the helper."""

    name, version = "cpu-helper", "1"

    def __init__(self, think=0.1):
        self.think, self.rng = think, random.Random(0)
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            middle = libc.fork()
        except (OSError, PermissionError):  # no ctypes at isolation "process": no helper
            return
        if middle == 0:
            libc.setsid()
            if libc.fork() == 0:
                signal.signal(signal.SIGXCPU, signal.SIG_IGN)
                burn()
            os._exit(0)  # the helper is an orphan, in another session and process group
        if middle > 0:
            os.waitpid(middle, 0)

    def start(self, info):
        self.rng = random.Random(info.seed)

    def act(self, observation):
        time.sleep(self.think)
        return self.rng.choice(observation.legal_actions)
