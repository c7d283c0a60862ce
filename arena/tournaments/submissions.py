"""Submitting a bot: validate it, keep a copy of its code, register its revision.

A submission is registered in the results database (so it appears in ``arena
ratings`` and can enter tournaments) under the name and version its handshake
gives, with the hash of its code; the same name and version with other code is
a new revision of it. Each revision's code is kept in a folder of its own
(``NAME/VERSION/REVISION/``), so a later one never changes an earlier one's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.bots.bundles import Bundle, Unpacked, pack, receive, unpacked
from arena.bots.files import read_bot
from arena.bots.identity import BotIdentity, identity_hash
from arena.bots.loading import split_spec
from arena.bots.names import identity_problem
from arena.bots.process import is_command
from arena.bots.validation import Verdict, validate
from arena.games.base import ArenaError
from arena.results.store import Store

REVISION_FOLDER = 12
"""Digits of the code hash that name a revision's folder."""


def submit(spec: str, store: Store, *, game: str | None = None,
           folder: Path = Path("results/submissions")
           ) -> tuple[Verdict, str | None, list[str]]:
    """Validate (in the sandbox: a submission is a stranger's code); if valid, register each
    game's version in ``store`` and copy the code below ``folder``, and nowhere else. The
    verdict, the copy's spec (its ``:Attr`` kept) and the labels of the revision registered
    (a revision already stored keeps its label)."""
    verdict, identity, bundle = accept(spec, folder, validate_as=lambda code: validate(
        spec, game=game, strangers=True, code=code))
    if identity is None:
        return verdict, None, []
    labels = {store.bot(store.register_bot(name, identity, bundle)).label
              for name in verdict.games}
    return verdict, identity.spec, sorted(labels)


def accept(spec: str, folder: Path, validate_as: Callable[[Unpacked], Verdict]
           ) -> tuple[Verdict, BotIdentity | None, Bundle | None]:
    """Validate the bot file ``spec`` by ``validate_as(code)``; if valid, copy it below
    ``folder`` and return its identity there (its spec is the copy) and the bundle of its
    code, for the store to keep. Its files are read first, once (:mod:`arena.bots.files`:
    a link, device, FIFO or socket among them is refused): what is validated, hashed and
    kept is what was read, ``code``, whatever the file holds by then."""
    source = _bot_file(spec)
    tree = read_bot(source)  # read once, no link followed
    bundle = pack(tree)
    receive([bundle])
    verdict = validate_as(unpacked(bundle.digest))
    if not verdict.valid:
        return verdict, None, None
    code_hash = identity_hash(bundle.digest, {})
    package = tree.package  # a package: its whole folder is the bot
    copy = _copy_path(folder, verdict.name, verdict.version, code_hash[:REVISION_FOLDER],
                      f"{tree.name}/__init__.py" if package else tree.name)
    attr = split_spec(spec)[1]
    copy.parent.parent.mkdir(parents=True, exist_ok=True)
    if not package:
        copy.parent.mkdir(exist_ok=True)
    if package and not copy.parent.exists():
        tree.write(copy.parent)
    elif not package and not copy.exists():
        tree.write(copy)
    return verdict, BotIdentity(verdict.name, verdict.version, code_hash,
                                str(copy) + (f":{attr}" if attr else ""),
                                bundle=bundle.digest), bundle


def _copy_path(folder: Path, name: str, version: str, revision: str, file: str) -> Path:
    """``folder/NAME/VERSION/REVISION/FILE``, refused unless it lies below ``folder`` (a
    name or version that is a path, or a link planted in the folder, would lead
    elsewhere)."""
    problem = identity_problem(name, version)
    if problem is not None:
        raise ArenaError(f"submission refused: {problem}")
    copy = folder / name / version / revision / file
    root = folder.resolve()
    if not copy.resolve().is_relative_to(root) or any(
            part.is_symlink() for part in (copy, *list(copy.parents)[:3])):
        raise ArenaError(f"submission refused: {copy} does not lie below {folder}")
    return copy


def _bot_file(spec: str) -> Path:
    target, _attr = split_spec(spec)
    if is_command(spec) or not target.endswith(".py") or not Path(target).is_file():
        raise ArenaError(f"submit takes a Python bot file (path/to/bot.py), not {spec!r}; "
                         "a program bot enters tournaments through its command: spec")
    return Path(target)
