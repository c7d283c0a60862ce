"""Submitting a bot: validate it, keep a copy of its code, register its version.

A submitted version is registered in the results database (so it appears in
``arena ratings`` and can enter tournaments) under the name and version its
handshake gives, with the hash of its code; the same name and version with
other code is refused.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from arena.bots.identity import BotIdentity, identity_hash, source_hash
from arena.bots.loading import split_spec
from arena.bots.names import identity_problem
from arena.bots.process import is_command
from arena.bots.validation import Verdict, validate
from arena.games.base import ArenaError
from arena.results.store import Store


def submit(spec: str, store: Store, *, game: str | None = None,
           folder: Path = Path("results/submissions")) -> tuple[Verdict, Path | None]:
    """Validate (in the sandbox: a submission is a stranger's code); if valid, register each
    game's version in ``store`` and copy the code below ``folder``, and nowhere else."""
    source = _bot_file(spec)
    verdict = validate(spec, game=game, strangers=True)
    if not verdict.valid:
        return verdict, None
    copy = _copy_path(folder, verdict.name, verdict.version, source.name)
    attr = split_spec(spec)[1]
    identity = BotIdentity(verdict.name, verdict.version,
                           identity_hash(source_hash(spec), {}),
                           str(copy) + (f":{attr}" if attr else ""))
    for name in verdict.games:
        store.register_bot(name, identity)  # refuses the same version with other code
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, copy)
    return verdict, copy


def _copy_path(folder: Path, name: str, version: str, file: str) -> Path:
    """``folder/NAME/VERSION/FILE``, refused unless it lies below ``folder`` (a name or
    version that is a path, or a link planted in the folder, would lead elsewhere)."""
    problem = identity_problem(name, version)
    if problem is not None:
        raise ArenaError(f"submission refused: {problem}")
    copy = folder / name / version / file
    root = folder.resolve()
    if not copy.resolve().is_relative_to(root) or any(
            part.is_symlink() for part in (copy, copy.parent, copy.parent.parent)):
        raise ArenaError(f"submission refused: {copy} does not lie below {folder}")
    return copy


def _bot_file(spec: str) -> Path:
    target, _attr = split_spec(spec)
    if is_command(spec) or not target.endswith(".py") or not Path(target).is_file():
        raise ArenaError(f"submit takes a Python bot file (path/to/bot.py), not {spec!r}; "
                         "a program bot enters tournaments through its command: spec")
    return Path(target)
