import os


class SeedReader:
    """Reads the tournament's seed from the results database, its config or arena's command
    line, to know every die in advance. Plays the first legal action; raises if it read any."""

    name, version = "seed-reader", "1"

    def __init__(self, db="", config=""):
        self.paths = [db, config, db + "-wal"]

    def start(self, info):
        for path in self.paths + [f"/proc/{p}/cmdline" for p in os.listdir("/proc")
                                  if p.isdigit() and int(p) != os.getpid()]:
            try:
                with open(path, "rb") as source:
                    if source.read(64):
                        raise RuntimeError(f"ESCAPED: read {path}")
            except OSError:
                pass

    def act(self, observation):
        return observation.legal_actions[0]
