import ctypes


class Truncator:
    """Truncates the results database and its -wal and -shm files (through libc, past any
    audit hook), which would take arena down with SIGBUS. Raises if it truncated any."""

    name, version = "truncator", "1"

    def __init__(self, db="/none"):
        self.paths = [db, db + "-wal", db + "-shm"]

    def start(self, info):
        libc = ctypes.CDLL(None, use_errno=True)
        for path in self.paths:
            if libc.truncate(path.encode(), 0) == 0:
                raise RuntimeError(f"ESCAPED: truncated {path}")

    def act(self, observation):
        return observation.legal_actions[0]
