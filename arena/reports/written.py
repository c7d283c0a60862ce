"""Writing the files arena makes into a folder someone else may have prepared: a report's
folder can hold symbolic links (a tournament kit handed to an organizer, a shared folder),
and writing through one would overwrite whatever it points at. A file is written beside
its place and renamed into it: a link there is replaced, never followed, and an interrupted
write leaves the old file whole."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO


@contextlib.contextmanager
def replaced(path: Path, *, newline: str | None = None) -> Iterator[TextIO]:
    """A text file (UTF-8) to write ``path``'s new content to, put in its place when the
    block ends without an error; ``newline`` as for :func:`open`."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.part")
    # a new name of its own, never a link, with the rights of any new file (the umask's)
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                     | os.O_CLOEXEC, 0o666)
    try:
        with open(handle, "w", encoding="utf-8", newline=newline) as out:
            yield out
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` as :func:`replaced` does."""
    with replaced(path) as out:
        out.write(text)


def own_folder(path: Path) -> None:
    """Make ``path`` a folder, replacing a symbolic link there (whose target is left as it
    is): what is written into it stays in it."""
    if path.is_symlink():
        path.unlink()
    path.mkdir(parents=True, exist_ok=True)
