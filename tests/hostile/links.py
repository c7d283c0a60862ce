"""Builds hostile package bots: a folder whose ``__init__.py`` is ``link_reader.py`` and
which holds one entry that is not a regular file or folder — a symbolic link to a secret
(a root-only 0600 file, ``/etc/shadow``, arena's ``/proc/self/environ``, a results
database and its WAL), to ``/dev/zero``, to ``/proc/self/fd/0`` (the operator's
terminal), to a folder outside, a FIFO, a socket — or a hard link to a root-only file
(caught by reading with the folder owner's rights). Links are made at test time, not
committed (git keeps links, but a checkout on another system may not)."""

from __future__ import annotations

import os
import socket
import sqlite3
from pathlib import Path

READER = Path(__file__).with_name("link_reader.py")
SECRET = "arena-secret-do-not-read"

KINDS = ("secret", "shadow", "environ", "database", "wal", "zero", "stdin", "folder",
         "fifo", "socket", "nested")


def secret_file(folder: Path) -> Path:
    """A root-only (0600) file holding :data:`SECRET`, outside any bot."""
    folder.mkdir(parents=True, exist_ok=True)
    secret = folder / "secret.txt"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    return secret


def results_database(folder: Path) -> Path:
    """A results database with a WAL, holding a secret seed."""
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "arena.db"
    connection = sqlite3.connect(db)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("CREATE TABLE seeds (seed TEXT)")
    connection.execute("INSERT INTO seeds VALUES (?)", (SECRET,))
    connection.commit()  # the WAL holds it until a checkpoint: keep the connection open
    results_database.keep = connection  # type: ignore[attr-defined]
    return db


def build(root: Path, kind: str, name: str = "linked") -> tuple[Path, str]:
    """A package bot below ``root`` with one hostile entry of ``kind``; (its folder, the
    hostile entry's path inside the bot as messages name it, ``linked/...``)."""
    outside = root / "outside"
    bot = root / name
    (bot / "sub").mkdir(parents=True)
    (bot / "__init__.py").write_text(READER.read_text())
    (bot / "plain.txt").write_text("the bot's own data\n")
    entry = bot / "sub" / "data.txt" if kind == "nested" else bot / "data.txt"
    if kind in ("secret", "nested"):
        entry.symlink_to(secret_file(outside))
    elif kind == "shadow":
        entry.symlink_to("/etc/shadow")
    elif kind == "environ":
        entry.symlink_to("/proc/self/environ")
    elif kind in ("database", "wal"):
        db = results_database(outside)
        entry.symlink_to(f"{db}-wal" if kind == "wal" else db)
    elif kind == "zero":
        entry.symlink_to("/dev/zero")
    elif kind == "stdin":
        entry.symlink_to("/proc/self/fd/0")
    elif kind == "folder":
        entry = bot / "data"
        entry.symlink_to(secret_file(outside).parent, target_is_directory=True)
    elif kind == "fifo":
        os.mkfifo(entry)
    elif kind == "socket":
        entry = bot / "s"  # a socket's path must be short
        listener = socket.socket(socket.AF_UNIX)
        cwd = os.getcwd()
        os.chdir(bot)
        try:
            listener.bind("s")
        finally:
            os.chdir(cwd)
        build.keep = listener  # type: ignore[attr-defined]
    else:
        raise ValueError(kind)
    return bot, f"{name}/{entry.relative_to(bot)}"


def hard_linked(root: Path, owner: int) -> Path:
    """A package bot owned by the unprivileged ``owner`` holding a hard link to a root-only
    file (root only: the kernel lets root make it whatever protected_hardlinks says)."""
    secret = secret_file(root / "outside")
    bot = root / "hardlinked"
    bot.mkdir()
    (bot / "__init__.py").write_text(READER.read_text())
    os.link(secret, bot / "data.txt")
    os.chown(bot, owner, owner)
    os.chown(bot / "__init__.py", owner, owner)
    return bot


def in_shared_folder(root: Path) -> tuple[Path, Path, Path, Path]:
    """Bots beside another user's private file in folders anyone may write to (root only):
    a package whose folder is root's and sticky like ``/dev/shm``; a root-owned package
    with such a folder inside it; a single-file bot that is a hard link to a root-only
    file in a sticky folder; a package in a folder its group may write to (an access
    control list shows so too). (The four bots.)"""
    def shared(folder: Path) -> Path:
        folder.mkdir(parents=True)
        folder.chmod(0o1777)
        private = folder / "private.txt"
        private.write_text(SECRET)
        private.chmod(0o600)
        os.chown(private, 54321, 54321)
        return folder

    team = shared(root / "team")  # a folder its group may write to, an attacker in it
    team.chmod(0o2775)
    (team / "__init__.py").write_text(READER.read_text())
    package = shared(root / "shm")
    (package / "__init__.py").write_text(READER.read_text())
    os.chown(package / "__init__.py", 65534, 65534)
    outer = root / "outer"
    outer.mkdir()
    outer.chmod(0o755)
    (outer / "__init__.py").write_text(READER.read_text())
    shared(outer / "drop")
    single = shared(root / "spool") / "bot.py"
    os.link(secret_file(root / "outside"), single)
    return package, outer, single, team
