import fcntl
import os


class DbLocker:
    """Takes SQLite's locks on the results database and holds them through a game, which
    would make arena's writes fail ("database is locked"). Raises if it got a lock."""

    name, version = "db-locker", "1"

    def __init__(self, db="/none"):
        self.db = db
        self.held = []

    def start(self, info):
        for path in (self.db, self.db + "-shm"):
            try:
                fd = os.open(path, os.O_RDONLY)
                fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                continue
            self.held.append(fd)
            raise RuntimeError(f"ESCAPED: locked {path}")

    def act(self, observation):
        return observation.legal_actions[0]
