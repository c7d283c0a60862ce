import random
import time


class Thinker:
    """A fair bot that thinks 0.15 s of CPU per decision (under a time limit of 1 s)."""

    name, version = "thinker", "1"

    def start(self, info):
        self.rng = random.Random(info.seed)

    def act(self, observation):
        began = time.process_time()
        while time.process_time() - began < 0.15:
            pass
        return self.rng.choice(observation.legal_actions)
