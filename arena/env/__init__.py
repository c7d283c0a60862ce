"""Research adapters: arena's games as PettingZoo environments and OpenSpiel games.

    >>> from arena.env import make_env                      # doctest: +SKIP
    >>> env = make_env("sonnentau", seats=3, dice="miwin")  # doctest: +SKIP

The adapters need the optional extra ``rl`` (``pip install -e '.[rl]'`` in the checkout:
PettingZoo, Gymnasium, OpenSpiel). This package imports them only when an
adapter is asked for, so ``import arena.env`` works without them and a missing
library is reported as a :class:`MissingExtraError` that says what to install.
The fixed action indices (:mod:`arena.env.actions`) need nothing extra.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from arena.games.base import ArenaError

if TYPE_CHECKING:
    from arena.env.aec import ArenaEnv

INSTALL_HINT = ("pip install -e '.[rl]' in arena's checkout (or arena's wheel with [rl]; "
                "PyPI's 'arena' is another project)")


class MissingExtraError(ArenaError, ImportError):
    """A research adapter was asked for, but its library is not installed."""


def _load(module: str, library: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as missing:
        if missing.name is not None and missing.name.startswith("arena"):
            raise
        raise MissingExtraError(f"the {library} adapter needs {missing.name!r}, which is not "
                                f"installed: {INSTALL_HINT}") from None


def make_env(game: str, *, render_mode: str | None = None, reward: str = "points",
             **options: Any) -> ArenaEnv:
    """A PettingZoo AEC environment of ``game`` with game ``options`` (``seats=`` included).

    ``reward``: ``"points"`` (arena's game points, the default) or ``"zero-sum"``
    (``2 * points - 1``: ±1 for a win or a loss, 0 for a draw).
    """
    env: ArenaEnv = _load("arena.env.aec", "PettingZoo").ArenaEnv(game, options, render_mode,
                                                                  reward)
    return env


def seasons_env(*, render_mode: str | None = None, reward: str = "points",
                **options: Any) -> ArenaEnv:
    """Seasons of the Sun as a PettingZoo AEC environment (options: ``placement_limit``)."""
    return make_env("seasons", render_mode=render_mode, reward=reward, **options)


def sonnentau_env(*, render_mode: str | None = None, reward: str = "points",
                  **options: Any) -> ArenaEnv:
    """Sonnentau as a PettingZoo AEC environment (``seats``, ``dice``, ``board``,
    ``turn_limit``)."""
    return make_env("sonnentau", render_mode=render_mode, reward=reward, **options)


def parallel_env(game: str, *, render_mode: str | None = None, reward: str = "points",
                 **options: Any) -> Any:
    """``game`` through PettingZoo's parallel API: ``turn_based_aec_to_parallel`` of
    :func:`make_env`.

    The games are turn-based: at each ``step(actions)`` only the agent to move
    (the one whose ``action_mask`` has a 1; ``infos[agent]["active_agent"]``
    names it after the first step) acts; the other agents' actions are ignored.
    """
    conversions = _load("pettingzoo.utils.conversions", "PettingZoo")
    return conversions.turn_based_aec_to_parallel(
        make_env(game, render_mode=render_mode, reward=reward, **options))


def register_openspiel_games() -> None:
    """Register ``arena_seasons`` and ``arena_sonnentau`` with OpenSpiel (once is enough)."""
    _load("arena.env.openspiel", "OpenSpiel").register()


__all__ = ["INSTALL_HINT", "MissingExtraError", "make_env", "parallel_env",
           "register_openspiel_games", "seasons_env", "sonnentau_env"]
