"""Bringing a new bot in: a template to start from, validation, and submission.

``new_bot`` writes a bot that plays legal (random) moves and a pytest test for
it. ``validate`` loads a bot in its own process, plays a few seat-swapped games
against the game's random bot, and judges the protocol, the results and the
decision times. ``submit`` validates, keeps a copy of the bot's code, and
registers the version in the results database.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from arena.dice import derive_seed
from arena.executor import identity_hash, source_hash
from arena.games import GAMES, find_game
from arena.games.base import ArenaError
from arena.match import play_game
from arena.players import PlayerFailure, split_spec
from arena.record import OK, GameRecord
from arena.sandbox import ProcessPlayer, bot_command, is_command
from arena.store import BotIdentity, Store

ARENA_ROOT = Path(__file__).resolve().parents[1]
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
SLOW_FRACTION = 0.5

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

from arena.match import play_game
from arena.players import load_bot

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


@dataclass
class Verdict:
    """The outcome of validation: valid or not, with reasons."""

    spec: str
    name: str = "?"
    version: str = "?"
    games: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        head = "VALID" if self.valid else "NOT VALID"
        lines = [f"{head}: {self.spec} ({self.name}@{self.version})"]
        lines += [f"  problem: {p}" for p in self.problems]
        lines += [f"  {n}" for n in self.notes]
        return lines


def validate(spec: str, *, game: str | None = None, games: int = 6,
             time_limit: float = 1.0, seed: int = 0) -> Verdict:
    """Play ``games`` seat-swapped games against the game's random bot, in isolation."""
    verdict = Verdict(spec)
    player = ProcessPlayer(bot_command(spec, {}), label=spec)
    try:
        player.ensure_running()
    except PlayerFailure as failure:
        verdict.problems.append("it does not start: " + failure.detail)
        return verdict
    # A bot that names no game is tried at every game and judged by those it plays.
    guessing = game is None and not player.games
    failed: list[str] = []
    try:
        verdict.name, verdict.version = player.name, player.version
        for name in _games_to_try(game, player.games):
            lost = _try_game(verdict, player, name, games, time_limit, seed)
            if lost:
                failed.append(lost)
    finally:
        player.close()
    if guessing and verdict.games:
        verdict.notes += [f"does not play {text} (set `games` in the bot to name its games)"
                          for text in failed]
    else:
        verdict.problems += failed
    if not verdict.games and not verdict.problems:
        verdict.problems.append("it plays none of the games")
    return verdict


def _games_to_try(game: str | None, declared: tuple[str, ...] | None) -> list[str]:
    if game is not None:
        return [find_game(game).info.name]
    if declared:
        return [find_game(name).info.name for name in declared]
    return sorted(GAMES)


def _try_game(verdict: Verdict, player: ProcessPlayer, game: str, games: int,
              time_limit: float, seed: int) -> str | None:
    """Play ``game``; a failure's description, or None with the game added to the verdict."""
    opponent = ProcessPlayer(bot_command(str(ARENA_ROOT / "bots" / game / "random_bot.py"), {}))
    times: list[float] = []
    failures: list[str] = []
    try:
        for index in range(games):
            seated = [player, opponent] if index % 2 == 0 else [opponent, player]
            record = play_game(game, seated, derive_seed(seed, "validate", index // 2),
                               time_limit=time_limit)
            seat = seated.index(player)
            times += record.decision_times(seat)
            if record.seats[seat].status != OK:
                failures.append(_failure_text(record, seat))
    finally:
        opponent.close()
    if failures:
        return f"{game}: {len(failures)} of {games} games lost by a failure; first: {failures[0]}"
    verdict.games.append(game)
    if times:
        slowest, mean = max(times), sum(times) / len(times)
        verdict.notes.append(f"{game}: {games} games, {len(times)} decisions, mean "
                             f"{1000 * mean:.1f} ms, slowest {1000 * slowest:.1f} ms "
                             f"(limit {1000 * time_limit:.0f} ms)")
        if slowest > SLOW_FRACTION * time_limit:
            verdict.notes.append(f"{game}: warning: a decision took more than half the limit")
    return None


def _failure_text(record: GameRecord, seat: int) -> str:
    status = record.seats[seat]
    return f"{status.status}: {status.detail.splitlines()[0] if status.detail else ''}"


def submit(spec: str, store: Store, *, game: str | None = None,
           folder: Path = Path("results/submissions")) -> tuple[Verdict, Path | None]:
    """Validate; if valid, register each game's version in ``store`` and copy the code."""
    verdict = validate(spec, game=game)
    if not verdict.valid:
        return verdict, None
    source = _bot_file(spec)
    copy = folder / verdict.name / verdict.version / source.name
    attr = split_spec(spec)[1]
    identity = BotIdentity(verdict.name, verdict.version,
                           identity_hash(source_hash(spec), {}),
                           str(copy) + (f":{attr}" if attr else ""))
    for name in verdict.games:
        store.register_bot(name, identity)  # refuses the same version with other code
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, copy)
    return verdict, copy


def _bot_file(spec: str) -> Path:
    target, _attr = split_spec(spec)
    if is_command(spec) or not target.endswith(".py") or not Path(target).is_file():
        raise ArenaError(f"submit takes a Python bot file (path/to/bot.py), not {spec!r}; "
                         "a program bot enters tournaments through its command: spec")
    return Path(target)
