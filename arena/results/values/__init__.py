"""The shipped value models, one per game, for luck accounting (:mod:`arena.results.luck`).

``model_for(game, options)`` gives the model for a game played with ``options``
(``None`` where no model fits them). A user's own model is named by a spec,
``path/to/file.py:NAME`` or ``package.module:NAME``, where ``NAME`` is a value
model or a function of the game options that returns one (see
:func:`load_value_model`).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from arena.games.base import ArenaError
from arena.results.luck import ValueModel
from arena.results.values import seasons, sonnentau

Factory = Callable[[Mapping[str, Any]], "ValueModel | None"]

SHIPPED: dict[str, Factory] = {
    "seasons": seasons.model_for,
    "sonnentau": sonnentau.model_for,
}


class ValueModelError(ArenaError):
    """A value model spec names nothing usable."""


def model_for(game: str, options: Mapping[str, Any]) -> ValueModel | None:
    """The shipped value model of ``game`` for these options, or None."""
    factory = SHIPPED.get(game)
    return factory(options) if factory is not None else None


def load_value_model(spec: str, options: Mapping[str, Any]) -> ValueModel:
    """The user's model named by ``spec`` (``file.py:NAME`` or ``module:NAME``).

    Trusted code: it runs in arena's own process, like a config's ``isolation: none`` bot.
    """
    where, sep, attr = spec.rpartition(":")
    if not sep or not where or not attr:
        raise ValueModelError(f"value model {spec!r}: expected FILE.py:NAME or MODULE:NAME")
    try:
        if where.endswith(".py"):
            path = Path(where)
            if not path.is_file():
                raise ValueModelError(f"value model {spec!r}: no file {where}")
            module_spec = importlib.util.spec_from_file_location(f"_arena_value_{path.stem}",
                                                                 path)
            if module_spec is None or module_spec.loader is None:
                raise ValueModelError(f"value model {spec!r}: cannot load {where}")
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except ValueModelError:
        raise
    except Exception as exc:  # the user's module failed to import: say why in one line
        raise ValueModelError(f"value model {spec!r}: {type(exc).__name__}: {exc}") from None
    found = getattr(module, attr, None)
    if found is None:
        raise ValueModelError(f"value model {spec!r}: {where} has no {attr!r}")
    model = found if isinstance(found, ValueModel) else found(options)
    if not isinstance(model, ValueModel):
        raise ValueModelError(f"value model {spec!r}: {attr} is neither a value model (name "
                              "and values(state)) nor a function of the options giving one")
    return model
