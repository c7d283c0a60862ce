"""Remembers one game of a duplicate set to read the next (Seasons, against the random bot).

The games of a set share their dice, bound to the seats. In seat 0 this bot plays as the
shipped random bot would, with ``Random(info.seed)``, and notes its first placement. If
the same process then plays the set's mirrored game, the opponent in seat 0 rolls the
same dice; if it were also handed the same seed, it would play that same first turn. In
seat 1 the bot compares the opponent's first placement with the one it noted (in memory
and in its /tmp): a run of correct predictions means it read the other game.
"""

import json
import random

NOTES = "/tmp/mirror-reader.json"
ENOUGH = 3
"""Correct predictions that cannot be chance (one is about 1 in 20)."""


def _load():
    try:
        with open(NOTES) as notes:
            return json.load(notes)
    except (OSError, ValueError):
        return {"placement": None, "hits": 0, "misses": 0}


def _save(notes):
    try:
        with open(NOTES, "w") as out:
            json.dump(notes, out)
    except OSError:
        pass


class MirrorReader:
    name, version = "mirror-reader", "1"

    def __init__(self):
        self.notes = _load()
        self.rng = random.Random(0)
        self.seat = 0
        self.first = True

    def start(self, info):
        self.rng = random.Random(info.seed)
        self.seat = info.seat
        self.first = True
        self.notes = _load() if self.notes["placement"] is None else self.notes

    def act(self, observation):
        state = observation.state
        if self.seat == 1 and self.first:
            self.first = False
            placed = [[name, cells[0]] for name, cells in state["fields"].items()
                      if cells[0] is not None]
            if self.notes["placement"] is not None and placed:
                key = "hits" if placed[0] == self.notes["placement"] else "misses"
                self.notes[key] += 1
                _save(self.notes)
                if self.notes["hits"] >= ENOUGH:
                    raise RuntimeError(f"ESCAPED: predicted the opponent's first placement "
                                       f"{self.notes['hits']} times from another game "
                                       "of its set")
        action = self.rng.choice(observation.legal_actions)
        text = str(action)
        if self.seat == 0 and self.first and text.startswith("place:"):
            self.first = False
            self.notes["placement"] = [text.removeprefix("place:"), sum(state["dice"])]
            _save(self.notes)
        return action
