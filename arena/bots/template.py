"""A new bot to start from: a bot that plays legal (random) moves, and a pytest test for it."""

from __future__ import annotations

import re
from pathlib import Path

from arena.games import find_game
from arena.games.base import ArenaError

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")

BOT_TEMPLATE = '''"""{name}: a {title} bot for arena.

Edit ``act`` to make it play well. Check it with:

    arena bots validate {path}
    python -m pytest {test_path}
"""

import random


class {cls}:
    name = "{name}"
    version = "0.1"
    games = ("{game}",)  # the games this bot plays

    def __init__(self):
        self.rng = random.Random(0)

    def start(self, info):
        # info.game, info.seat, info.seats, info.seed (for your own randomness), info.time_limit
        self.rng = random.Random(info.seed)

    def act(self, observation):
        # observation.state is the whole position as plain data; observation.legal_actions
        # lists every allowed action (return one of them, or its string, e.g. {example!r}).
        return self.rng.choice(observation.legal_actions)

    def end(self, outcome):
        # outcome.ranks (0 = best), outcome.scores, outcome.termination
        pass
'''

TEST_TEMPLATE = '''"""Tests for {name}: it plays complete, legal games of {game} quickly."""

from pathlib import Path

from arena import load_bot, play_game

BOT = str(Path(__file__).with_name("{module}.py"))


def test_{module}_plays_legal_games():
    for seed in range(4):
        players = [load_bot(BOT).player for _ in range({seats})]
        record = play_game("{game}", players, seed, time_limit=1.0)
        assert all(seat.status == "ok" for seat in record.seats), record.seats
'''

EXAMPLES = {"seasons": "keep", "sonnentau": "move:d0:p3:M:cw"}


def new_bot(name: str, game: str, folder: Path = Path("bots")) -> list[Path]:
    """Write ``folder/NAME.py`` and ``folder/test_NAME.py``; refuse to overwrite."""
    if not NAME_PATTERN.match(name):
        raise ArenaError(f"bot name {name!r}: use lower-case letters, digits, '-' and '_', "
                         "starting with a letter")
    info = find_game(game).info
    module = name.replace("-", "_")
    bot_path, test_path = folder / f"{module}.py", folder / f"test_{module}.py"
    for path in (bot_path, test_path):
        if path.exists():
            raise ArenaError(f"{path} exists already; choose another name")
    folder.mkdir(parents=True, exist_ok=True)
    cls = "".join(part.capitalize() for part in re.split(r"[-_]", name)) + "Player"
    bot_path.write_text(BOT_TEMPLATE.format(
        name=name, title=info.title, path=bot_path, test_path=test_path, cls=cls,
        game=info.name, example=EXAMPLES.get(info.name, "…")), encoding="utf-8")
    test_path.write_text(TEST_TEMPLATE.format(name=name, game=info.name, module=module,
                                              seats=info.min_seats), encoding="utf-8")
    return [bot_path, test_path]
