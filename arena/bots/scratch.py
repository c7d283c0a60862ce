"""arena's temporary folders (each bot's, the unpacked bundles), gone even when their
process was killed.

A folder's process holds a lock on a file inside it for as long as it uses the folder (a
forked worker shares its parent's lock); the kernel lets go of it when the process ends,
however it ends. An arena process that starts a pool of workers, and again once they have
stopped, removes the folders whose lock no one holds, left by processes killed before they
could remove their own (``kill -9`` of a run, a hung worker killed by the watchdog).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
import time
from pathlib import Path

OWNER_FILE = ".arena-owner"
PREFIXES = ("arena-bot-", "arena-bundles-")
GRACE_SECONDS = 30.0
"""A folder younger than this is left alone: its process may not have locked it yet."""
UNLOCKED_SECONDS = 86_400.0
"""A folder with no lock file in it (made by an arena from before folders were locked,
which may still run) is left alone this long."""


class OwnedFolder:
    """A new temporary folder, locked by this process until :meth:`remove`."""

    def __init__(self, prefix: str) -> None:
        assert prefix in PREFIXES, prefix
        self.path = Path(tempfile.mkdtemp(prefix=prefix))
        self._lock = os.open(self.path / OWNER_FILE, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC,
                             0o600)
        fcntl.flock(self._lock, fcntl.LOCK_EX)

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        if self._lock >= 0:
            os.close(self._lock)
            self._lock = -1


def remove_abandoned(root: Path | None = None) -> int:
    """Remove the folders under ``root`` (the temporary folder) that no living process
    holds; how many."""
    root = Path(tempfile.gettempdir()) if root is None else root
    removed = 0
    with contextlib.suppress(OSError):
        for entry in os.scandir(root):
            if entry.name.startswith(PREFIXES) and _abandoned(entry):
                shutil.rmtree(entry.path, ignore_errors=True)
                removed += 1
    return removed


def _abandoned(entry: os.DirEntry[str]) -> bool:
    try:
        if not entry.is_dir(follow_symlinks=False):
            return False
        age = time.time() - entry.stat(follow_symlinks=False).st_mtime
    except OSError:
        return False  # gone meanwhile (its process, or another one looking, removed it)
    if age < GRACE_SECONDS:
        return False
    try:
        # Not followed, and never blocking: a bot may have put anything under that name.
        lock = os.open(os.path.join(entry.path, OWNER_FILE),
                       os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return age >= UNLOCKED_SECONDS
    except OSError:
        return False
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # its process lives
    finally:
        os.close(lock)
    return True
