"""Isolation levels: how a bot runs, and starting a bot at its level.

``sandbox`` (the default where bubblewrap works) runs a bot in a process of its
own inside a sandbox (:mod:`arena.bots.sandbox`); ``process`` in a plain
process of its own, with limits and an audit hook but no sandbox; ``none``
inside arena's process, for trusted bots only. A bot whose entry names no level
gets the sandbox; where the sandbox cannot run, arena says so once and uses
``process`` instead — unless the sandbox was asked for, or the bot comes from a
stranger, which are refused.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.bots.bundles import Unpacked, spec_at
from arena.bots.loading import BotLoadError, BotNotFoundError, load_bot, split_spec
from arena.bots.process import Limits, ProcessPlayer, bot_command, is_command
from arena.bots.sandbox import SandboxedPlayer, sandbox_problem
from arena.games.base import ArenaError
from arena.referee.protocol import STDERR_MARK, Player, PlayerFailure

SANDBOX, PROCESS, NONE = "sandbox", "process", "none"
ISOLATIONS = (SANDBOX, PROCESS, NONE)
DESCRIPTIONS = {SANDBOX: "sandboxed (bubblewrap)", PROCESS: "in plain processes, not sandboxed",
                NONE: "inside arena (trusted)"}

_announced = False
SHIPPED_BOTS = Path(__file__).resolve().parents[2] / "bots"


class IsolationError(ArenaError):
    """The isolation a bot needs cannot be had here."""


def resolve_isolation(requested: str | None, *, strangers: bool = False,
                      shipped: bool = False) -> str:
    """The level a bot runs at: ``requested``, or by default the sandbox where it works.

    Without a working sandbox, a default is refused with the reason and the install
    command, unless the bots are arena's own (``shipped``): they fall back to ``process``,
    said once on stderr. A plain process is had by asking for it in so many words. An
    explicit ``sandbox``, or bots from strangers (``strangers``), are always refused.
    """
    if requested in (PROCESS, NONE) and not strangers:
        return requested
    problem = sandbox_problem()
    if problem is None:
        return SANDBOX
    if strangers:
        raise IsolationError(f"bots from others run only in the sandbox, and {problem}")
    if requested == SANDBOX:
        raise IsolationError(f"isolation 'sandbox' was asked for, but {problem}")
    if not shipped:
        raise IsolationError(
            f"bots run in the sandbox by default, and {problem}; to run them in plain "
            "processes, which do not contain a hostile bot, say so: isolation: process "
            "(config) or --isolation process")
    _announce(problem)
    return PROCESS


def is_shipped(spec: str) -> bool:
    """Whether ``spec`` names a bot that arena ships (a file or folder under its ``bots/``)."""
    if is_command(spec):
        return False
    target = Path(split_spec(spec)[0])
    return target.exists() and target.resolve().is_relative_to(SHIPPED_BOTS)


def _announce(problem: str) -> None:
    global _announced
    if not _announced:
        _announced = True
        sys.stderr.write(f"warning: no sandbox: {problem}; bots run as plain processes, "
                         "which do not contain them\n")


def bot_process(spec: str, params: Mapping[str, Any], isolation: str,
                limits: Limits | None = None, *, label: str | None = None,
                remember_load_failure: bool = False, code: Unpacked | None = None,
                shown: str | None = None) -> ProcessPlayer:
    """A bot process for ``spec`` at ``isolation`` (``sandbox`` or ``process``), not started.

    With ``code`` (an unpacked bundle) ``spec`` names the bot's files within it, and the bot
    plays from those; its failures name them ``shown`` (default: their names in the bot)."""
    label = label or spec
    if isolation == SANDBOX:
        tree = None if code is None else code.tree
        return SandboxedPlayer(spec, params, limits, label, code=tree, shown=shown,
                               remember_load_failure=remember_load_failure)
    if code is None:
        return ProcessPlayer(bot_command(spec, params), limits, label,
                             remember_load_failure=remember_load_failure)
    player = ProcessPlayer(bot_command(spec_at(spec, code.tree, str(code.folder)), params),
                           limits, label, remember_load_failure=remember_load_failure)
    player.code_paths = (str(code.path), shown or code.tree.name)
    return player


def start_bot(spec: str, isolation: str | None = None, limits: Limits | None = None) -> Player:
    """A bot ready to play at its level (default: the sandbox where it works), its handshake
    done; BotLoadError, with the bot's stderr, if it does not start."""
    level = resolve_isolation(isolation, shipped=is_shipped(spec))
    if level == NONE and not is_command(spec):
        return load_bot(spec).player
    target, _attr = split_spec(spec)
    if not is_command(spec) and target.endswith(".py") and not Path(target).is_file():
        raise BotNotFoundError(f"bot {spec!r}: no such file {target!r}")
    return handshaken(bot_process(spec, {}, SANDBOX if level == SANDBOX else PROCESS, limits),
                      spec)


def handshaken(player: ProcessPlayer, spec: str) -> ProcessPlayer:
    """``player`` (the bot ``spec``) started, its handshake done; BotLoadError, with the
    bot's stderr, if it does not start."""
    try:
        player.ensure_running()
    except PlayerFailure as failure:
        head, _, tail = failure.detail.partition(f"\n{STDERR_MARK}\n")
        raise BotLoadError(f"bot {spec!r} cannot be loaded: {head}", tail) from None
    return player

