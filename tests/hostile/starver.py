"""Starves its opponent of the processors while it thinks: at its first decision it forks
40 helpers through libc, each in a session of its own (so, without a cpu cgroup of the bot's,
each in a scheduler autogroup of its own, weighing as much as the opponent), which spin for
1.6 s of wall time while the opponent thinks. Their CPU time stays well within a game's
budget; a fair opponent that needs its CPU would lose on time."""

import ctypes
import os
import random
import time

HELPERS = 40
SECONDS = 1.6


class Starver:
    name, version = "starver", "1"

    def start(self, info):
        self.rng = random.Random(info.seed)
        self.fired = False

    def act(self, observation):
        if not self.fired:
            self.fired = True
            libc = ctypes.CDLL(None, use_errno=True)
            deadline = time.monotonic() + SECONDS
            for _ in range(HELPERS):
                if libc.fork() == 0:
                    libc.setsid()
                    time.sleep(0.03)  # the answer goes out first
                    while time.monotonic() < deadline:
                        pass
                    os._exit(0)
        return self.rng.choice(observation.legal_actions)
