"""A bot's files, read safely: regular files and folders, nothing else, within caps.

Wherever arena reads a bot's code — to load it, hash it, validate it, submit it, take it
into a ladder, copy it into the sandbox or ship it elsewhere — it reads it here. A bot is
one file (``bot.py``) or a package folder (its ``__init__.py`` and everything beside and
below it, ``__pycache__`` folders aside, which are never read). Every entry is opened
without following a link (``O_NOFOLLOW``, each relative to its folder's descriptor), and
what was opened is checked to be a regular file or a folder (``fstat``), so that nothing
can be swapped in between the check and the read. A symbolic link, device, FIFO or socket
anywhere in the bot is refused with one line naming it (:class:`BotFileError`), as is a
bot of more than :data:`MAX_BOT_ENTRIES` files and folders or :data:`MAX_BOT_BYTES` bytes
(each file is read to at most the bytes left plus one, so nothing can grow while it is
read). Where arena runs as root, a folder's entries are read with the file-system rights
of whoever may have put them there (``setfsuid``, for this thread only): the folder's
owner, or, for a folder others may write to (``/tmp``, ``/dev/shm``, a sticky,
group-writable or ``0777`` folder, one an access control list opens to others, wherever
it sits in the bot), the rights of ``nobody``. A file the
bot's author may not read (a hard link to a root-only file, another user's file beside
the bot in a shared folder) is so refused too: never read with root's rights.

What is read is what arena uses: :meth:`BotTree.digest` is the bot's code hash (the bytes
of a single file, as ever; for a folder every entry's relative path, whether it is
executable, and its bytes), and :meth:`BotTree.write` writes those same bytes elsewhere,
with modes normalised (0644, 0755 for folders and executables).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import pwd
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games.base import ArenaError
from arena.referee.protocol import printable

MAX_BOT_ENTRIES = 64
"""Files and folders of a bot folder, its own folder aside (as many as an upload's zip)."""
MAX_BOT_BYTES = 8 << 20
"""All of a bot's files together (as much as an upload's zip unpacks to)."""
MAX_PROGRAM_BYTES = 64 << 20
"""A program bot's program file (a compiled engine may be large)."""
CACHE = "__pycache__"
RULE = "a bot's files must be regular files and folders"

_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_CHUNK = 1 << 16


class BotFileError(ArenaError, OSError):
    """A bot's files are refused: an entry is not a regular file or folder, cannot be read,
    or the bot is over a cap. One line naming the entry. (An OSError too, so that a bot
    process that cannot be started for it fails as one that cannot start.)"""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class BotEntry:
    """A file (``data``) or folder (``data`` None) of a bot, by its path in the bot."""

    path: str
    data: bytes | None
    executable: bool = False


@dataclass(frozen=True)
class BotTree:
    """A bot's files as read: one file, or a folder's entries (sorted, folders first)."""

    name: str
    """The file's or the folder's own name."""
    package: bool
    entries: tuple[BotEntry, ...]

    def digest(self) -> str:
        """The code hash: SHA-256 of a single file's bytes; for a folder, of every entry's
        path, kind, executable bit and bytes."""
        if not self.package:
            return hashlib.sha256(self.entries[0].data or b"").hexdigest()
        digest = hashlib.sha256(b"arena bot folder 1\0")
        for entry in self.entries:
            path = entry.path.encode("utf-8", "surrogateescape")
            if entry.data is None:
                digest.update(b"d\0" + path + b"\0")
            else:
                digest.update(b"x" if entry.executable else b"f")
                digest.update(b"\0" + path + b"\0" + len(entry.data).to_bytes(8, "big"))
                digest.update(entry.data)
        return digest.hexdigest()

    @property
    def size(self) -> int:
        return sum(len(entry.data or b"") for entry in self.entries)

    def write(self, target: Path) -> Path:
        """Write the bot as ``target`` (the file, or the folder, which must not exist yet;
        its parent must), from the bytes read, each entry new and never through a link;
        ``target``."""
        if not self.package:
            _write_file(target, self.entries[0])
            return target
        target.mkdir(mode=0o755)
        target.chmod(0o755)
        for entry in self.entries:
            path = target.joinpath(*entry.path.split("/"))
            if entry.data is None:
                path.mkdir(mode=0o755)
                path.chmod(0o755)
            else:
                _write_file(path, entry)
        return target


def _write_file(path: Path, entry: BotEntry) -> None:
    mode = 0o755 if entry.executable else 0o644
    fd = os.open(path, _WRITE, mode)
    with os.fdopen(fd, "wb") as out:
        out.write(entry.data or b"")
        os.fchmod(out.fileno(), mode)


def read_bot(target: Path | str, *, limit: int = MAX_BOT_BYTES) -> BotTree:
    """The bot whose file is ``target``: its package folder's files if it is an
    ``__init__.py``, else that one file. Raise BotFileError if any entry is refused."""
    target = Path(target)
    if target.name == "__init__.py":
        return read_bot_folder(target.parent, limit=limit)
    if stat.S_ISDIR(_lstat_mode(target)):
        return read_bot_folder(target, limit=limit)
    return BotTree(_own_name(target), False,
                   (BotEntry(_own_name(target), *read_bot_file(target, limit=limit)),))


def read_bot_file(file: Path | str, *, limit: int = MAX_BOT_BYTES) -> tuple[bytes, bool]:
    """A single-file bot's bytes (or a program bot's program) and whether it is executable;
    the file itself must be a regular file, not a link (the folders above it may be)."""
    what = f"bot file {_quoted(str(file))}"
    folder = os.path.dirname(os.path.abspath(file))
    parent = _open(what, folder, None, os.O_DIRECTORY, follow=True)
    try:
        with _owner_rights(os.fstat(parent)):
            name = os.path.basename(os.path.abspath(file))
            try:
                info = os.stat(name, dir_fd=parent, follow_symlinks=False)
            except OSError as exc:
                raise BotFileError(f"{what} cannot be read: {exc.strerror}") from None
            _check_kind(info, what)
            fd = _open(what, name, parent, 0)
    finally:
        os.close(parent)
    try:
        opened = _opened_kind(fd, what, stat.S_IFREG)
        data = _read(fd, what, limit, f"{what} is larger than {limit} bytes")
    finally:
        os.close(fd)
    return data, bool(opened.st_mode & 0o111)


def read_bot_folder(folder: Path | str, *, limit: int = MAX_BOT_BYTES) -> BotTree:
    """A package bot's folder: every entry below it (``__pycache__`` aside), each a regular
    file or folder, within the caps."""
    name = _own_name(Path(folder))
    what = f"bot folder {_quoted(str(folder))}"
    try:
        info = os.stat(folder, follow_symlinks=False)
    except OSError as exc:
        raise BotFileError(f"{what} cannot be read: {exc.strerror}") from None
    _check_kind(info, what)
    fd = _open(what, os.fspath(folder), None, os.O_DIRECTORY)
    try:
        opened = _opened_kind(fd, what, stat.S_IFDIR)
        with _owner_rights(opened):
            walk = _Walk(what, name, limit)
            walk.folder(fd, "")
    finally:
        os.close(fd)
    return BotTree(name, True, tuple(walk.entries))


class _Walk:
    """Reads a folder's entries, depth first, under the caps."""

    def __init__(self, what: str, name: str, limit: int) -> None:
        self.what, self.name, self.limit = what, name, limit
        self.entries: list[BotEntry] = []
        self.size = 0

    def folder(self, fd: int, prefix: str) -> None:
        try:
            names = sorted(os.listdir(fd))
        except OSError as exc:
            raise BotFileError(f"{self.what}: {self.shown(prefix or '.')} cannot be listed: "
                               f"{exc.strerror}") from None
        for name in names:
            path = prefix + name
            if name == CACHE:
                continue  # compiled caches: never read, copied or hashed
            if len(self.entries) >= MAX_BOT_ENTRIES:
                raise BotFileError(f"{self.what} holds more than {MAX_BOT_ENTRIES} files and "
                                   f"folders (at most {MAX_BOT_ENTRIES}, {CACHE} aside)")
            what = f"{self.what}: {self.shown(path)}"
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError as exc:
                raise BotFileError(f"{what} cannot be read: {exc.strerror}") from None
            _check_kind(info, what)
            if stat.S_ISDIR(info.st_mode):
                child = _open(what, name, fd, os.O_DIRECTORY)
                try:
                    opened = _opened_kind(child, what, stat.S_IFDIR)
                    self.entries.append(BotEntry(path, None))
                    with _shared_folder_rights(opened):
                        self.folder(child, path + "/")
                finally:
                    os.close(child)
            else:
                self.file(fd, name, path, what)

    def file(self, fd: int, name: str, path: str, what: str) -> None:
        child = _open(what, name, fd, 0)
        try:
            opened = _opened_kind(child, what, stat.S_IFREG)
            left = self.limit - self.size
            data = _read(child, what, left, f"{self.what} is larger than {self.limit} bytes "
                         f"(at {self.shown(path)}; a bot's files may hold at most "
                         f"{self.limit} bytes together)")
        finally:
            os.close(child)
        self.size += len(data)
        self.entries.append(BotEntry(path, data, bool(opened.st_mode & 0o111)))

    def shown(self, path: str) -> str:
        return _quoted(f"{self.name}/{path}")


def _quoted(text: str) -> str:
    """``text`` for a one-line message: unprintable characters and newlines as escapes."""
    return printable(text).replace("\n", "\\n")


def _lstat_mode(path: Path) -> int:
    try:
        return os.stat(path, follow_symlinks=False).st_mode
    except OSError:
        return 0


def _own_name(path: Path) -> str:
    return Path(os.path.abspath(path)).name


_KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"))


def _kind_problem(mode: int) -> str | None:
    for test, kind in _KINDS:
        if test(mode):
            return kind
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return "neither a regular file nor a folder"
    return None


def _check_kind(info: os.stat_result, what: str) -> None:
    kind = _kind_problem(info.st_mode)
    if kind is not None:
        raise BotFileError(f"{what} is {kind}; {RULE}")


def _open(what: str, name: str, dir_fd: int | None, flags: int, *, follow: bool = False
          ) -> int:
    try:
        return os.open(name, (_READ & ~os.O_NOFOLLOW if follow else _READ) | flags,
                       dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # a link, put there since it was seen
            raise BotFileError(f"{what} is a symbolic link; {RULE}") from None
        raise BotFileError(f"{what} cannot be read: {exc.strerror}") from None


def _opened_kind(fd: int, what: str, kind: int) -> os.stat_result:
    """What ``fd`` is open on, refused unless it is of ``kind`` (what was checked before)."""
    info = os.fstat(fd)
    problem = _kind_problem(info.st_mode)
    if problem is None and stat.S_IFMT(info.st_mode) != kind:
        problem = "a folder" if kind == stat.S_IFREG else "a file"
        problem += " now (it changed while it was read)"
    if problem is not None:
        raise BotFileError(f"{what} is {problem}; {RULE}")
    return info


def _read(fd: int, what: str, limit: int, too_large: str) -> bytes:
    """At most ``limit`` bytes from ``fd``; refused (``too_large``) if it holds more."""
    chunks: list[bytes] = []
    got = 0
    while True:
        try:
            chunk = os.read(fd, min(_CHUNK, max(limit - got, 0) + 1))
        except OSError as exc:
            raise BotFileError(f"{what} cannot be read: {exc.strerror}") from None
        if not chunk:
            return b"".join(chunks)
        got += len(chunk)
        if got > limit:
            raise BotFileError(too_large)
        chunks.append(chunk)


def _anyone_may_write(folder: os.stat_result) -> bool:
    """Whether users other than its owner may write to ``folder``: its group, anyone, or
    anyone an access control list names (whose mask shows in the group's bits)."""
    return bool(folder.st_mode & (stat.S_IWOTH | stat.S_IWGRP))


def _nobody() -> tuple[int, int]:
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return 65534, 65534
    return entry.pw_uid, entry.pw_gid


@contextlib.contextmanager
def _owner_rights(folder: os.stat_result) -> Iterator[None]:
    """Where arena is root: this thread's file-system rights are those of whoever may have
    put ``folder``'s entries there meanwhile — its owner, or ``nobody`` if anyone may write
    to it (setfsuid and setfsgid act on one thread only)."""
    if _anyone_may_write(folder):
        with _nobodys_rights():
            yield
    elif folder.st_uid != 0:
        with _rights(folder.st_uid, folder.st_gid):
            yield
    else:
        yield


@contextlib.contextmanager
def _shared_folder_rights(folder: os.stat_result) -> Iterator[None]:
    """Below a bot's folder: ``nobody``'s rights in a folder anyone may write to; else the
    rights already in force (never those of the folder's owner, who may be another user
    whose folder was moved in)."""
    if _anyone_may_write(folder):
        with _nobodys_rights():
            yield
    else:
        yield


@contextlib.contextmanager
def _nobodys_rights() -> Iterator[None]:
    """``nobody``'s rights; a file they cannot read says why it was read so."""
    try:
        with _rights(*_nobody()):
            yield
    except BotFileError as exc:
        if os.geteuid() != 0 or not str(exc).endswith(os.strerror(errno.EACCES)):
            raise
        raise BotFileError(f"{exc} (arena, as root, reads a folder others may write to with "
                           "nobody's rights)") from None


@contextlib.contextmanager
def _rights(uid: int, gid: int) -> Iterator[None]:
    lib = _libc() if os.geteuid() == 0 else None
    if lib is None:
        yield
        return
    old_gid = int(lib.setfsgid(gid))
    old_uid = int(lib.setfsuid(uid))
    try:
        if int(lib.setfsuid(uid)) != uid:  # says the fsuid in force
            raise BotFileError(f"cannot take the rights of uid {uid} to read the bot's files")
        yield
    finally:
        lib.setfsuid(old_uid)
        lib.setfsgid(old_gid)


def _libc() -> Any:
    from arena.bots.kernel import libc

    lib = libc()
    return lib if lib is not None and hasattr(lib, "setfsuid") else None


__all__ = ["MAX_BOT_BYTES", "MAX_BOT_ENTRIES", "MAX_PROGRAM_BYTES", "BotEntry", "BotFileError",
           "BotTree", "read_bot", "read_bot_file", "read_bot_folder"]
