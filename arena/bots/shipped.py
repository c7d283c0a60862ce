"""The bots shipped for each game, by their bare names (``greedy``, ``random``): how the
Python API and ``arena play`` read the same names."""

from __future__ import annotations

from pathlib import Path

from arena.games.base import nearest

CHECKOUT_BOTS = Path(__file__).resolve().parent.parent.parent / "bots"
"""The shipped bots of the checkout arena runs from (``bots/<game>/``)."""


def shipped_spec(spec: str, game: str) -> str:
    """``spec`` with a shipped bot's bare name (see :func:`arena.api.resolve_player`)
    replaced by its file's path."""
    shipped = shipped_bot(spec, game)
    return str(shipped) if shipped else spec


def shipped_hint(spec: str, game: str) -> str:
    """For a bare name that was not found: the names of the bots shipped for ``game``, and
    the nearest of them."""
    names = shipped_names(game)
    if not names or not _bare(spec):
        return ""
    return f"; or one of the bots shipped for {game}: {', '.join(names)}{nearest(spec, names)}"


def unknown_name(spec: str, games: list[str]) -> str | None:
    """Why the bare name ``spec`` names no bot, where it is neither shipped for one of
    ``games`` nor an installed entry point: the shipped bots and the nearest name; None
    for a spec that is no bare name, or names a bot."""
    if not _bare(spec) or Path(spec).exists() or any(shipped_bot(spec, game)
                                                      for game in games):
        return None  # a file (README.md) is told apart from a bot where it is read
    from importlib.metadata import entry_points  # here: it takes a while to import

    from arena.bots.loading import ENTRY_POINT_GROUP

    if entry_points(group=ENTRY_POINT_GROUP, name=spec):
        return None
    names = sorted({name for game in games for name in shipped_names(game)})
    shipped = " and ".join(games)
    elsewhere = sorted({other for game in games for other in shipped_for_other_games(spec, game)}
                       - set(games))
    if elsewhere:
        return (f"bot {spec!r} is shipped for {' and '.join(elsewhere)}, not {shipped}; the "
                f"bots shipped for {shipped}: {', '.join(names)}")
    return (f"bot {spec!r} not found: name a file (path/to/bot.py), path/to/bot.py:Name, "
            f"module:attr, an installed entry point, or one of the bots shipped for "
            f"{shipped}: {', '.join(names)}{nearest(spec, names)}")


def shipped_for_other_games(name: str, game: str) -> list[str]:
    """The other games a bot of this bare name is shipped for (``heuristic``: sonnentau)."""
    if not _bare(name) or not CHECKOUT_BOTS.is_dir():
        return []
    return sorted(other.name for other in CHECKOUT_BOTS.iterdir()
                  if other.is_dir() and other.name != game and shipped_bot(name, other.name))


def shipped_bot(name: str, game: str) -> Path | None:
    """The file of the shipped bot called ``name`` for ``game``, or None."""
    if not _bare(name):
        return None
    for folder in _bot_folders(game):
        for candidate in (folder / f"{name}.py", folder / f"{name}_bot.py"):
            if candidate.is_file():
                return candidate
    return None


def shipped_names(game: str) -> list[str]:
    """The names of the bots shipped for ``game`` (``random`` for ``random_bot.py``)."""
    return sorted({path.stem.removesuffix("_bot") for folder in _bot_folders(game)
                   for path in folder.glob("*.py") if not path.name.startswith("_")})


def _bot_folders(game: str) -> list[Path]:
    return [Path("bots") / game, CHECKOUT_BOTS / game]


def _bare(name: str) -> bool:
    return not any(mark in name for mark in ("/", ":", ".py"))
