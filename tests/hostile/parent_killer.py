import ctypes
import os


class ParentKiller:
    """SIGKILL to its parent, its parent's process group and arena (its pid is given),
    through libc. Plays the first legal action; raises if a signal was delivered."""

    name, version = "parent-killer", "1"

    def __init__(self, arena=0):
        self.arena = arena

    def start(self, info):
        libc = ctypes.CDLL(None, use_errno=True)
        parent = os.getppid()
        targets = [pid for pid in (parent, self.arena) if pid > 1]
        for pid in targets:
            if libc.kill(pid, 0) == 0:
                raise RuntimeError(f"ESCAPED: could signal {pid}")
        if parent > 1 and libc.kill(-os.getpgid(parent), 0) == 0:
            raise RuntimeError("ESCAPED: could signal its parent's group")

    def act(self, observation):
        return observation.legal_actions[0]
