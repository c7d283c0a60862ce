"""Modules that moved when arena took its layout by stage, importable under their old paths.

``import arena.match`` gives a module that forwards every attribute to
:mod:`arena.referee.match`, with a DeprecationWarning naming the new path. A
module whose contents went to several places forwards to each, in order.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

MOVED: dict[str, tuple[str, ...]] = {
    "arena.boards": ("arena.reports.boards",),
    "arena.compare": ("arena.results.comparison", "arena.tournaments.matches"),
    "arena.config": ("arena.tournaments.config",),
    "arena.console": ("arena.cli.console",),
    "arena.dice": ("arena.referee.dice",),
    "arena.executor": ("arena.tournaments.executor", "arena.tournaments.tasks",
                       "arena.bots.identity", "arena.bots.isolation"),
    "arena.human": ("arena.bots.human",),
    "arena.match": ("arena.referee.match",),
    "arena.play": ("arena.tournaments.matches",),
    "arena.players": ("arena.bots.loading", "arena.referee.protocol"),
    "arena.ratings": ("arena.results.ratings",),
    "arena.record": ("arena.referee.record",),
    "arena.runner": ("arena.cli.run",),
    "arena.sandbox": ("arena.bots.process", "arena.bots.identity"),
    "arena.schedule": ("arena.tournaments.schedule", "arena.results.standings"),
    "arena.standings": ("arena.results.standings",),
    "arena.stats": ("arena.results.stats",),
    "arena.store": ("arena.results.store",),
    "arena.strays": ("arena.bots.strays",),
    "arena.submit": ("arena.bots.template", "arena.bots.validation",
                     "arena.tournaments.submissions"),
    "arena.swiss": ("arena.tournaments.swiss",),
    "arena.tournament": ("arena.tournaments.runner", "arena.bots.identity"),
    "arena.versions": ("arena.results.versions",),
    "arena.workers": ("arena.tournaments.workers",),
}


class MovedModules:
    """Finds the old paths of :data:`MOVED` and loads each as a forwarding module (a meta
    path finder and loader; importlib.abc is not imported, so every process starts fast)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return ModuleSpec(fullname, self)  # type: ignore[arg-type]

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the default module object

    def exec_module(self, module: ModuleType) -> None:
        old, new = module.__name__, MOVED[module.__name__]
        warnings.warn(f"{old} is now {' and '.join(new)}; import from there (or from arena)",
                      DeprecationWarning, stacklevel=2)
        targets = [importlib.import_module(name) for name in new]
        names = {name for target in targets for name in vars(target) if not name.startswith("_")}

        def forward(name: str) -> object:
            for target in targets:
                if hasattr(target, name):
                    return getattr(target, name)
            raise AttributeError(f"module {old!r} (now {', '.join(new)}) has no attribute "
                                 f"{name!r}")

        module.__getattr__ = forward  # type: ignore[method-assign]
        module.__dir__ = lambda: sorted(names)  # type: ignore[method-assign]
        setattr(module, "__all__", sorted(names))  # noqa: B010 - a module built here


def install() -> None:
    """Make the old paths importable (once per process)."""
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(MovedModules())
