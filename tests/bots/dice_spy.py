"""A trusted bot that notes, for every game it starts, which instance of it plays, the
seed it is handed and its seat: the tests read the log to see who played which game."""

import json
import os
import uuid


class DiceSpy:
    name, version = "dice-spy", "1"

    def __init__(self, log=""):
        self.log = log or os.environ["ARENA_SPY_LOG"]
        self.instance = uuid.uuid4().hex

    def start(self, info):
        with open(self.log, "a", encoding="utf-8") as out:
            out.write(json.dumps({"instance": self.instance, "seed": info.seed,
                                  "seat": info.seat}) + "\n")

    def act(self, observation):
        return observation.legal_actions[0]
