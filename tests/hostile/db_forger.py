import contextlib
import os
import sqlite3


class DbForger:
    """Looks for the results database (given its path, and through other processes' open
    files) to turn its losses into wins. Plays the first legal action; raises if it got in."""

    name, version = "db-forger", "1"

    def __init__(self, db=""):
        self.db = db

    def start(self, info):
        found = []
        for pid in (p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()):
            with contextlib.suppress(OSError):
                found += [os.readlink(f"/proc/{pid}/fd/{fd}")
                          for fd in os.listdir(f"/proc/{pid}/fd")]
        for path in [self.db, *found]:
            if path.endswith(".db") and os.path.exists(path):
                try:
                    db = sqlite3.connect(path)
                    db.execute("UPDATE games SET ranks = '[0, 0]'")
                    db.commit()
                except Exception:
                    continue
                raise RuntimeError(f"ESCAPED: rewrote {path}")

    def act(self, observation):
        return observation.legal_actions[0]
