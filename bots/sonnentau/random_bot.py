"""Sonnentau: picks uniformly among the legal actions.

The file is not called ``random.py`` on purpose: a bot file named like a
standard-library module would shadow it.
"""

import random


class RandomPlayer:
    name = "random"
    version = "1.0"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start(self, info):
        self.rng = random.Random(info.seed)

    def act(self, observation):
        return self.rng.choice(observation.legal_actions)
