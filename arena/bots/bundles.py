"""Bundles: a bot revision's files as one content-addressed archive, kept and shipped.

A bundle is the files of a bot as arena read them (:mod:`arena.bots.files`) packed into
a deterministic archive: a gzip'd tar of regular files and folders only, in the order
they were read, each with mode 0644 (0755 for folders and executables), owner 0, time 0.
Its key is the bot's code hash, :meth:`~arena.bots.files.BotTree.digest` — the hash of
its files, not of the archive — so the same code is the same bundle on every machine.

The results store keeps each registered revision's bundle; a revision is played from it
(never from whatever its file holds now), so ``arena compare … --games N`` can play a
revision whose file has changed since. Executors ship bundles to where games are played:
a Dask worker fetches each bundle once, by its key, and caches it.

Unpacking trusts nothing it is given: only regular files and folders, each path relative
and plain (no ``..``, no absolute path, no duplicate, every folder before what it holds),
within the caps of a bot's files, and the files must hash to the bundle's key. A bundle is
unpacked into a temporary folder, then renamed into place, so a cache folder holds whole
bundles only (:class:`BundleCache`).
"""

from __future__ import annotations

import atexit
import gzip
import io
import os
import shlex
import shutil
import tarfile
import tempfile
import threading
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots.files import (
    MAX_BOT_ENTRIES,
    MAX_PROGRAM_BYTES,
    BotEntry,
    BotFileError,
    BotTree,
    read_bot,
)
from arena.bots.loading import split_spec
from arena.bots.process import COMMAND_PREFIX, is_command
from arena.bots.scratch import OwnedFolder
from arena.games.base import ArenaError

MAX_BUNDLE_BYTES = MAX_PROGRAM_BYTES
"""A bundle's files together, at most (a program bot's program may be this large)."""
_TAR_OVERHEAD = (MAX_BOT_ENTRIES + 2) * 3 * tarfile.BLOCKSIZE + tarfile.RECORDSIZE
"""What a tar adds to its files at most: a header (and a long name's) and padding each."""
FILE_MODE, FOLDER_MODE = 0o644, 0o755


class BundleError(ArenaError):
    """A bundle is refused: not an archive of a bot's files, or not the code it names."""


@dataclass(frozen=True)
class Bundle:
    """A bot revision's files, packed: ``digest`` is their code hash, ``data`` the archive."""

    digest: str
    data: bytes = field(repr=False)

    @property
    def key(self) -> str:
        """Its name among other shipped data (a Dask key)."""
        return f"arena-bundle-{self.digest}"

    def tree(self) -> BotTree:
        """The files, unpacked and checked against the digest (BundleError if they differ)."""
        return unpack(self.data, self.digest)


def pack(tree: BotTree) -> Bundle:
    """The bundle of ``tree``: the same files always give the same bytes."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as archive:
        if tree.package:
            archive.addfile(_member(tree.name, None, False))
        for entry in tree.entries:
            path = f"{tree.name}/{entry.path}" if tree.package else entry.path
            data = entry.data
            archive.addfile(_member(path, data, entry.executable),
                            None if data is None else io.BytesIO(data))
    return Bundle(tree.digest(), gzip.compress(raw.getvalue(), compresslevel=6, mtime=0))


def _member(path: str, data: bytes | None, executable: bool) -> tarfile.TarInfo:
    member = tarfile.TarInfo(path)
    member.type = tarfile.DIRTYPE if data is None else tarfile.REGTYPE
    member.size = 0 if data is None else len(data)
    member.mode = FOLDER_MODE if data is None or executable else FILE_MODE
    member.mtime, member.uid, member.gid, member.uname, member.gname = 0, 0, 0, "", ""
    return member


def bundle_of(target: Path | str, *, limit: int | None = None) -> tuple[Bundle, BotTree]:
    """Read the bot at ``target`` (a file, or a package's folder or ``__init__.py``) once,
    as :func:`arena.bots.files.read_bot` reads it, and pack what was read."""
    tree = read_bot(target) if limit is None else read_bot(target, limit=limit)
    return pack(tree), tree


def spec_at(spec: str, tree: BotTree, root: str) -> str:
    """``spec`` (a bot's spec, or one within its bundle) naming the bot's files ``tree`` at
    ``root`` (``/bot``, a cache folder; empty: within the bundle): ``/bot/my_bot.py:Cls``,
    ``/bot/mybot/__init__.py``, ``command:/bot/engine --fast``."""
    place = f"{root}/{tree.name}" if root else tree.name
    if is_command(spec):
        words = shlex.split(spec[len(COMMAND_PREFIX):])
        return COMMAND_PREFIX + shlex.join([place, *words[1:]])
    attr = split_spec(spec)[1]
    return place + ("/__init__.py" if tree.package else "") + (f":{attr}" if attr else "")


def relative_spec(spec: str, tree: BotTree) -> str:
    """``spec`` naming the bot's files within its bundle (``my_bot.py:Cls``)."""
    return spec_at(spec, tree, "")


def unpack(data: bytes, digest: str) -> BotTree:
    """The files of a bundle, refused (BundleError, one line) unless it holds regular files
    and folders only, with plain relative paths, within the caps, hashing to ``digest``."""
    shown = digest[:12]
    raw = _inflate(data, shown)
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as archive:
            tree = _tree(archive.getmembers(), archive, shown)
    except (tarfile.TarError, EOFError, ValueError) as exc:
        raise BundleError(f"bundle {shown} is not a bot's archive: {exc}") from None
    if tree.digest() != digest:
        raise BundleError(f"bundle {shown} does not hold the code it names (its files hash to "
                          f"{tree.digest()[:12]})")
    return tree


def _inflate(data: bytes, shown: str) -> bytes:
    """The archive, decompressed to at most the largest a bot's files can make."""
    cap = MAX_BUNDLE_BYTES + _TAR_OVERHEAD
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)  # gzip
    try:
        raw = inflater.decompress(data, cap + 1)
    except zlib.error as exc:
        raise BundleError(f"bundle {shown} is not a bot's archive: {exc}") from None
    if len(raw) > cap or inflater.unconsumed_tail:
        raise BundleError(f"bundle {shown} unpacks to more than a bot's files may hold")
    if not inflater.eof or inflater.unused_data:
        raise BundleError(f"bundle {shown} is not a bot's archive: it does not end as one")
    return raw


def _tree(members: list[tarfile.TarInfo], archive: tarfile.TarFile, shown: str) -> BotTree:
    if not members:
        raise BundleError(f"bundle {shown} is empty")
    if len(members) > MAX_BOT_ENTRIES + 1:
        raise BundleError(f"bundle {shown} holds more than {MAX_BOT_ENTRIES} files and folders")
    root = members[0]
    _check_member(root, shown)
    if "/" in root.name:
        raise BundleError(f"bundle {shown}: {root.name!r} is not at its top")
    if not root.isdir():
        if len(members) > 1:
            raise BundleError(f"bundle {shown}: a single file with other entries")
        data = _read(archive, root, shown)
        return BotTree(root.name, False, (BotEntry(root.name, data, _executable(root)),))
    folders, seen, entries, size = {root.name}, {root.name}, [], 0
    for member in members[1:]:
        _check_member(member, shown)
        parent, _, _name = member.name.rpartition("/")
        if parent not in folders:
            raise BundleError(f"bundle {shown}: {member.name!r} comes before its folder, or "
                              "lies outside the bot")
        if member.name in seen:
            raise BundleError(f"bundle {shown}: {member.name!r} is there twice")
        seen.add(member.name)
        path = member.name[len(root.name) + 1:]
        if member.isdir():
            folders.add(member.name)
            entries.append(BotEntry(path, None))
            continue
        size += member.size
        if size > MAX_BUNDLE_BYTES:
            raise BundleError(f"bundle {shown} holds more than {MAX_BUNDLE_BYTES} bytes")
        entries.append(BotEntry(path, _read(archive, member, shown), _executable(member)))
    return BotTree(root.name, True, tuple(entries))


def _check_member(member: tarfile.TarInfo, shown: str) -> None:
    """A regular file or folder with a plain relative path, else BundleError."""
    if not (member.isreg() or member.isdir()) or member.issparse():
        raise BundleError(f"bundle {shown}: {member.name!r} is neither a regular file nor a "
                          "folder; a bot's files must be regular files and folders")
    parts = member.name.split("/")
    if (member.name.startswith("/") or "\\" in member.name or "\0" in member.name
            or any(part in ("", ".", "..") for part in parts)):
        raise BundleError(f"bundle {shown}: {member.name!r} is not a plain relative path")
    if member.size > MAX_BUNDLE_BYTES:
        raise BundleError(f"bundle {shown} holds more than {MAX_BUNDLE_BYTES} bytes")


def _read(archive: tarfile.TarFile, member: tarfile.TarInfo, shown: str) -> bytes:
    stream = archive.extractfile(member)
    data = b"" if stream is None else stream.read(member.size + 1)
    if len(data) != member.size:
        raise BundleError(f"bundle {shown}: {member.name!r} is cut short")
    return data


def _executable(member: tarfile.TarInfo) -> bool:
    return bool(member.mode & 0o100)


@dataclass(frozen=True)
class Unpacked:
    """A bundle unpacked in a cache: its files (checked) and where they lie."""

    digest: str
    tree: BotTree
    folder: Path
    """``<cache>/<digest>``: the bot is its entry ``tree.name``."""

    @property
    def path(self) -> Path:
        """The bot's own file or folder."""
        return self.folder / self.tree.name


class BundleCache:
    """Bundles unpacked in a folder of this process's own, each once: ``<folder>/<digest>``.

    What is unpacked was checked against its digest first, then written into a
    temporary folder and renamed into place, so the folder never holds half a bundle.
    A bundle found unpacked already (by an earlier process in the same folder) is read
    back and checked again before it is used."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.unpacked: dict[str, Unpacked] = {}
        self.received = 0
        """How many bundles this process was given and unpacked (not found in memory)."""
        self.lock = threading.Lock()

    def add(self, bundle: Bundle) -> Unpacked:
        """The bundle, unpacked (once per process)."""
        with self.lock:
            found = self.unpacked.get(bundle.digest)
            if found is None:
                found = self.unpacked[bundle.digest] = self._unpack(bundle)
                self.received += 1
            return found

    def get(self, digest: str) -> Unpacked | None:
        return self.unpacked.get(digest)

    def _unpack(self, bundle: Bundle) -> Unpacked:
        tree = bundle.tree()
        target = self.folder / bundle.digest
        if target.exists():
            if _holds(target / tree.name, bundle.digest):
                return Unpacked(bundle.digest, tree, target)
            shutil.rmtree(target, ignore_errors=True)
        self.folder.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=self.folder))
        try:
            scratch.chmod(FOLDER_MODE)
            tree.write(scratch / tree.name)
            try:
                os.rename(scratch, target)
            except OSError:  # another process unpacked it meanwhile
                if not _holds(target / tree.name, bundle.digest):
                    raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        return Unpacked(bundle.digest, tree, target)


def _holds(path: Path, digest: str) -> bool:
    try:
        return read_bot(path, limit=MAX_BUNDLE_BYTES).digest() == digest
    except BotFileError:
        return False


_cache: BundleCache | None = None
_cache_owner = 0
_cache_folder: OwnedFolder | None = None


def bundle_cache() -> BundleCache:
    """This process's bundle cache: a temporary folder, removed when the process that
    made it exits (a forked worker shares its parent's)."""
    global _cache, _cache_owner, _cache_folder
    if _cache is None:
        _cache_folder = OwnedFolder("arena-bundles-")
        _cache = BundleCache(_cache_folder.path)
        _cache_owner = os.getpid()
        atexit.register(_remove_cache)
    return _cache


def use_cache_folder(folder: Path) -> BundleCache:
    """Unpack bundles into ``folder`` from now on (a Dask worker's own folder)."""
    global _cache, _cache_owner
    if _cache is None or _cache.folder != folder:
        _cache, _cache_owner = BundleCache(folder), 0
    return _cache


def _remove_cache() -> None:
    if _cache_folder is not None and _cache_owner == os.getpid():
        _cache_folder.remove()


def unpacked(digest: str) -> Unpacked:
    """The bundle ``digest`` as this process unpacked it; BundleError if it never got it."""
    found = bundle_cache().get(digest)
    if found is None:
        raise BundleError(f"bundle {digest[:12]} was not shipped to this process")
    return found


def receive(bundles: Iterable[Bundle]) -> None:
    """Unpack the bundles this process does not have yet."""
    cache = bundle_cache()
    for bundle in bundles:
        cache.add(bundle)


__all__ = ["MAX_BUNDLE_BYTES", "Bundle", "BundleCache", "BundleError", "Unpacked",
           "bundle_cache", "bundle_of", "pack", "receive", "relative_spec", "spec_at", "unpack",
           "unpacked", "use_cache_folder"]
