"""Small scripted players used across the tests."""

from __future__ import annotations

import random


class RandomPlayer:
    name = "test-random"
    version = "1"

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def start(self, info) -> None:
        self.rng = random.Random(info.seed)

    def act(self, observation):
        return self.rng.choice(observation.legal_actions)


class FirstLegalPlayer:
    name = "first"
    version = "1"

    def act(self, observation):
        return str(observation.legal_actions[0])


class ReplyPlayer:
    """Plays legally until decision ``after``, then replies ``reply`` (or raises it)."""

    name = "reply"
    version = "1"

    def __init__(self, reply, after: int = 0) -> None:
        self.reply, self.after, self.calls = reply, after, 0

    def act(self, observation):
        self.calls += 1
        if self.calls <= self.after:
            return observation.legal_actions[0]
        if isinstance(self.reply, BaseException):
            raise self.reply
        return self.reply
