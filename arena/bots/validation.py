"""Validation of a bot before it enters: does it start, speak the protocol, play legally?

``validate`` loads a bot in its own process (sandboxed by default), plays a few
seat-swapped games against the game's random bot, and judges the protocol, the
results and the decision times.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from arena.bots.bundles import Unpacked, relative_spec
from arena.bots.identity import identity_hash, play_revision, revision_labels
from arena.bots.isolation import (
    NONE,
    PROCESS,
    SHIPPED_BOTS,
    bot_process,
    is_shipped,
    resolve_isolation,
)
from arena.bots.loading import not_a_bot, split_spec
from arena.bots.process import ProcessPlayer
from arena.games import find_game, game_names
from arena.games.base import shortened
from arena.referee.dice import derive_seed
from arena.referee.match import play_game
from arena.referee.protocol import PlayerFailure, failure_excerpt
from arena.referee.record import OK, GameRecord

SLOW_FRACTION = 0.5


@dataclass
class Verdict:
    """The outcome of validation: valid or not, with reasons."""

    spec: str
    name: str = "?"
    version: str = "?"
    games: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    revision: str = ""
    """The hash its code is stored under without parameters (:func:`play_revision`)."""

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def label(self) -> str:
        """``name@version+3f2a9c``, the revision's label everywhere (without a readable
        code, or a name, ``name@version``)."""
        if not self.revision or self.name == "?":
            return f"{self.name}@{self.version}"
        return next(revision_labels(self.name, self.version, self.revision))

    def lines(self) -> list[str]:
        head = "VALID" if self.valid else "NOT VALID"
        lines = [f"{head}: {self.spec} ({self.label})"]
        lines += [f"  problem: {p}" for p in self.problems]
        lines += [f"  {n}" for n in self.notes]
        return lines


def validate(spec: str, *, game: str | None = None, games: int = 6,
             time_limit: float = 1.0, seed: int = 0, isolation: str | None = None,
             strangers: bool = False, against_itself: int = 0,
             code: Unpacked | None = None) -> Verdict:
    """Play ``games`` seat-swapped games against the game's random bot, and
    ``against_itself`` against a second process of itself, in the sandbox (or at
    ``isolation``; a stranger's bot only in the sandbox). With ``code`` (the bot file
    ``spec``'s files as read once, unpacked) every process plays from those bytes, never
    from the file again, so what is judged is what is kept."""
    verdict = Verdict(spec)
    what = not_a_bot(spec)
    if what:
        verdict.problems.append(f"it is no bot: {what}")
        return verdict
    level = resolve_isolation(isolation, strangers=strangers, shipped=is_shipped(spec))
    if level == NONE:
        level = PROCESS  # validation checks the protocol: always a process of its own
    if code is None:
        verdict.revision = play_revision(spec)

        def launch() -> ProcessPlayer:
            return bot_process(spec, {}, level)
    else:
        verdict.revision = identity_hash(code.tree.digest(), {})
        inside = relative_spec(spec, code.tree)
        shown = split_spec(spec)[0].removesuffix("/__init__.py")

        def launch() -> ProcessPlayer:
            return bot_process(inside, {}, level, code=code, shown=shown)
    player = launch()
    try:
        player.ensure_running()
    except PlayerFailure as failure:
        head, *tail = failure_excerpt(failure.detail) or [""]
        verdict.problems.append("\n".join([f"it does not start: {head}",
                                            *(f"      {line}" for line in tail)]))
        return verdict
    # A bot that names no game is tried at every game and judged by those it plays.
    guessing = game is None and not player.games
    failed: list[str] = []
    try:
        verdict.name, verdict.version = player.name, player.version
        unknown = [name for name in player.games or () if name not in game_names()]
        if unknown and game is None:
            verdict.problems.append("its `games` names games arena does not have: " + ", ".join(
                repr(shortened(name)) for name in unknown) + f"; known: {', '.join(game_names())}")
            return verdict
        for name in _games_to_try(game, player.games):
            lost = _try_game(verdict, player, launch, name, games, time_limit, seed, level,
                             against_itself)
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
    return game_names()


def _try_game(verdict: Verdict, player: ProcessPlayer,
              launch_twin: Callable[[], ProcessPlayer], game: str, games: int,
              time_limit: float, seed: int, level: str, against_itself: int = 0) -> str | None:
    """Play ``game``; a failure's description, or None with the game added to the verdict."""
    opponent = bot_process(str(SHIPPED_BOTS / game / "random_bot.py"), {}, level)
    twin = launch_twin() if against_itself else None
    times: list[float] = []
    failures: list[str] = []
    tables = [(opponent, index) for index in range(games)]
    tables += [(twin, games + index) for index in range(against_itself) if twin is not None]
    try:
        for other, index in tables:
            seated = [player, other] if index % 2 == 0 else [other, player]
            record = play_game(game, seated, derive_seed(seed, "validate", index),
                               time_limit=time_limit)
            seats = [seat for seat, who in enumerate(seated) if who in (player, twin)]
            for seat in seats:
                times += record.decision_times(seat)
            failed = [seat for seat in seats if record.seats[seat].status != OK]
            if failed:
                failures.append(_failure_text(record, failed[0]))
    finally:
        opponent.close()
        if twin is not None:
            twin.close()
    played = len(tables)
    if failures:
        return f"{game}: {len(failures)} of {played} games lost by a failure; first: {failures[0]}"
    verdict.games.append(game)
    if times:
        slowest, mean = max(times), sum(times) / len(times)
        verdict.notes.append(f"{game}: {played} games, {len(times)} decisions, mean "
                             f"{1000 * mean:.1f} ms, slowest {1000 * slowest:.1f} ms "
                             f"(limit {1000 * time_limit:.0f} ms)")
        if slowest > SLOW_FRACTION * time_limit:
            verdict.notes.append(f"{game}: warning: a decision took more than half the limit")
    return None


def _failure_text(record: GameRecord, seat: int) -> str:
    """``crash: act() raised KeyError: 'x'`` and, on lines of their own, the end of the bot's
    traceback (or stderr)."""
    status = record.seats[seat]
    head, *tail = failure_excerpt(status.detail) or [""]
    return "\n".join([f"{status.status}: {head}", *(f"      {line}" for line in tail)])
