import ctypes
import os
import signal


class ParentStopper:
    """SIGSTOP to its parent and to arena (its pid is given), through libc; arena would hang.
    Plays the first legal action; raises if a signal was delivered."""

    name, version = "parent-stopper", "1"

    def __init__(self, arena=0):
        self.arena = arena

    def act(self, observation):
        libc = ctypes.CDLL(None, use_errno=True)
        for pid in (os.getppid(), self.arena):
            if pid > 1 and libc.kill(pid, signal.SIGSTOP) == 0:
                libc.kill(pid, signal.SIGCONT)
                raise RuntimeError(f"ESCAPED: stopped {pid}")
        return observation.legal_actions[0]
