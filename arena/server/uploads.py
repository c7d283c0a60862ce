"""Uploaded bots: what a submission sent over the web may be, and how it becomes files.

A bot is uploaded as one of two things, told apart by the end of the upload's file name
(``.py`` or ``.zip``, in any case); the name is only that hint, never a path, and nothing
else of it is kept:

A Python file (``.py``)
    The bot in one file. It must be UTF-8 text (no NUL bytes) and is saved as ``bot.py``;
    arena runs it as ``DEST/bot.py``, finding its player as for any bot file (the one class
    with an ``act`` method, ``make_player`` or ``agent``).

A zip archive (``.zip``)
    The bot's file and the modules or data it needs, with a manifest named ``arena.json``
    at the top of the zip (not inside a folder)::

        {"entry": "mybot/main.py", "attr": "MyBot", "game": "seasons"}

    ``entry`` (required)
        The ``.py`` file in the zip that arena runs, as its path inside the zip.
    ``attr`` (optional)
        The name of the player class or factory in that file (a Python identifier), when
        the file has more than one candidate; arena runs ``DEST/mybot/main.py:MyBot``.
    ``game`` (optional)
        The game the bot plays: ``seasons`` or ``sonnentau``.

    No other keys are allowed. Every file of the zip is written at the same path below the
    bot's folder, the manifest included, and every ``.py`` file in it must be UTF-8 text.
    ``arena serve`` runs a zip of several files as a package: its entry is then the
    package's ``__init__.py`` (``{"entry": "__init__.py", "attr": "MyBot"}``), and the
    modules beside it are imported relatively.

Whatever is sent, an upload is refused, with one message saying why and before anything
is written, when:

* it is empty, or larger than 1 MiB (:data:`MAX_UPLOAD_BYTES`);
* its name ends in neither ``.py`` nor ``.zip``;
* the zip cannot be read, holds more than 64 entries (:data:`MAX_FILES`), or no files;
* an entry's name is absolute (``/x.py``), starts with a drive letter (``C:``), holds a
  backslash, a ``..``, ``.`` or empty part (``a//b.py``), a NUL, another unprintable
  character or one of ``<>:"|?*``, is longer than 200 characters (100 for one part), or
  names the same file as another entry (also when they differ only in case);
* an entry is a symbolic link, a device, pipe or socket, a folder with contents, named
  as a folder (``a/``) but marked as a file or the reverse, or both a file and a folder
  (``a`` and ``a/b.py``);
* an entry is encrypted, or compressed with a method other than stored or deflate;
* the entries would unpack to more than 8 MiB together (:data:`MAX_UNPACKED_BYTES`), or
  an entry larger than 8 KiB unpacks to more than 100 times its compressed size
  (:data:`MAX_RATIO`: a zip bomb);
* an entry holds more or fewer bytes than it declares, or fails its checksum: each is read
  with a hard cap, whatever its header says;
* the manifest is missing, larger than 64 KiB, not UTF-8, not a JSON object, has a key
  twice or a key other than ``entry``, ``attr`` and ``game``, names an ``entry`` that is
  not one of the zip's ``.py`` files, an ``attr`` that is not an identifier, or a
  ``game`` arena does not know.

Files are written only below the destination folder, which must be empty or not exist
yet: each is created new (never following a link, never replacing a file) after its path
is checked to resolve inside that folder. Messages quote names from the upload only as
short excerpts with unprintable characters and markup (``<>&"'``) written as escapes.
"""

from __future__ import annotations

import io
import json
import keyword
import os
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.files import MAX_BOT_BYTES, MAX_BOT_ENTRIES
from arena.games import MODULES
from arena.games.base import ArenaError
from arena.referee.protocol import printable

MAX_UPLOAD_BYTES = 1 << 20          # whole upload (1 MiB)
MAX_FILES = MAX_BOT_ENTRIES         # zip entries: as many as a bot's folder may hold
MAX_UNPACKED_BYTES = MAX_BOT_BYTES  # all entries together, uncompressed, as for any bot
MAX_RATIO = 100                     # uncompressed/compressed per entry (zip bombs)
MANIFEST = "arena.json"

MANIFEST_KEYS = ("entry", "attr", "game")
SINGLE_FILE = "bot.py"
RATIO_FREE_BYTES = 8 << 10          # entries this small may compress as well as they like
MAX_MANIFEST_BYTES = 64 << 10
MAX_PATH_CHARS = 200
MAX_PART_CHARS = 100
EXAMPLE_MANIFEST = '{"entry": "mybot/main.py", "attr": "MyBot", "game": "seasons"}'
ACCEPTED = (f"send one bot file ending in .py, or a .zip holding the bot and an {MANIFEST} "
            f"manifest such as {EXAMPLE_MANIFEST}")

_SHOWN = 60
_MARKUP = frozenset("<>&\"'")
_FORBIDDEN = frozenset('<>:"|?*')
_DRIVE = re.compile(r"[A-Za-z]:")
_ENCRYPTED = 0x1 | 0x40             # general purpose flags: encrypted, strongly encrypted
_MSDOS_FOLDER = 0x10
_CHUNK = 64 << 10
_OPEN_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
               | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


class UploadError(ArenaError, ValueError):
    """An upload is refused; the message says why, quoting the upload only safely."""


@dataclass(frozen=True)
class UnpackedBot:
    """An upload written to disk: what arena runs, and what was written."""

    spec: str                   # "<dest>/bot.py", or "<dest>/<entry>" / "<dest>/<entry>:<attr>"
    game: str | None            # the game the manifest names (None for a single .py)
    files: tuple[str, ...]      # relative paths written, below dest


def unpack_upload(filename: str, data: bytes, dest: Path) -> UnpackedBot:
    """Check the upload ``data`` (its name a mere hint) and write it as a bot below ``dest``.

    Raise UploadError, having written nothing, if anything about it is refused (see the
    module's documentation); ``dest`` must be an empty folder or not exist.
    """
    size = len(data)
    if size > MAX_UPLOAD_BYTES:
        raise UploadError(f"the upload is larger than {_size(MAX_UPLOAD_BYTES)} "
                          f"({size} bytes)")
    if size == 0:
        raise UploadError("the upload is empty")
    kind = _kind(filename)
    _check_destination(dest)
    if kind == "py":
        _check_python(bytes(data), "the uploaded file")
        written = _write(dest, [(SINGLE_FILE, bytes(data))])
        return UnpackedBot(str(dest / SINGLE_FILE), None, written)
    files = _read_zip(data)
    entry, attr, game = _read_manifest(files)
    written = _write(dest, files.items())
    spec = str(dest.joinpath(*entry.split("/"))) + (f":{attr}" if attr else "")
    return UnpackedBot(spec, game, written)


# -- names and messages ---------------------------------------------------------------


def _shown(text: str) -> str:
    """``text`` quoted for a message: cut short, unprintables and markup as escapes."""
    more = f" (and {len(text) - _SHOWN} more characters)" if len(text) > _SHOWN else ""
    cut = printable(text[:_SHOWN]).replace("\n", "\\n").replace("\t", "\\t")
    return "'" + "".join(f"\\x{ord(c):02x}" if c in _MARKUP else c for c in cut) + "'" + more


def _listed(names: Iterable[str], limit: int = 8) -> str:
    names = list(names)
    text = ", ".join(_shown(name) for name in names[:limit])
    return text + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _size(n: int) -> str:
    if n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n % (1 << 10) == 0:
        return f"{n >> 10} KiB"
    return f"{n} bytes"


def _kind(filename: str) -> str:
    """``py`` or ``zip``, from the end of the upload's name; nothing else of it is used."""
    base = re.split(r"[/\\]", filename)[-1]
    lowered = base.lower()
    if lowered.endswith(".py"):
        return "py"
    if lowered.endswith(".zip"):
        return "zip"
    raise UploadError(f"the upload {_shown(base)} is neither a Python file (.py) nor a zip "
                      f"archive (.zip): {ACCEPTED}")


def _name_problem(name: str) -> str | None:
    """Why the zip entry ``name`` (a folder if it ends in '/') cannot be written."""
    if "\x00" in name:
        return "holds a NUL character"
    if not name.isprintable():
        return "holds unprintable characters"
    if name.startswith("/"):
        return "is an absolute path"
    if "\\" in name:
        return "holds a backslash (zip names separate folders with '/')"
    if _DRIVE.match(name):
        return "starts with a drive letter"
    if len(name) > MAX_PATH_CHARS:
        return f"is longer than {MAX_PATH_CHARS} characters"
    parts = name.removesuffix("/").split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "has an empty, '.' or '..' part"
    if any(len(part) > MAX_PART_CHARS for part in parts):
        return f"has a part longer than {MAX_PART_CHARS} characters"
    forbidden = sorted(_FORBIDDEN.intersection(name))
    if forbidden:
        return "holds " + ", ".join(f"'{c}'" for c in forbidden) + " (not allowed in file names)"
    return None


# -- the destination and writing ------------------------------------------------------


def _check_destination(dest: Path) -> None:
    if dest.is_symlink() or (dest.exists() and not dest.is_dir()):
        raise UploadError(f"the destination {_shown(str(dest))} is not a folder")
    if dest.is_dir() and any(dest.iterdir()):
        raise UploadError(f"the destination {_shown(str(dest))} is not empty")


def _write(dest: Path, files: Iterable[tuple[str, bytes]]) -> tuple[str, ...]:
    """Write each (relative path, content) below ``dest``, each file new; the paths."""
    dest.mkdir(parents=True, exist_ok=True)
    root = dest.resolve()
    written: list[str] = []
    for name, content in files:
        parts = name.split("/")
        folder = root
        for part in parts[:-1]:
            folder = folder / part
            try:
                folder.mkdir(mode=0o755)
            except FileExistsError:
                if folder.is_symlink() or not folder.is_dir():
                    raise UploadError(f"{_shown(name)} would be written through "
                                      f"{_shown(part)}, which is not a folder") from None
        target = folder / parts[-1]
        if not target.resolve().is_relative_to(root):
            raise UploadError(f"{_shown(name)} would be written outside the bot's folder")
        fd = os.open(target, _OPEN_FLAGS, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(content)
        written.append(name)
    return tuple(written)


# -- the content ----------------------------------------------------------------------


def _check_python(content: bytes, what: str) -> None:
    if b"\x00" in content:
        raise UploadError(f"{what} holds NUL bytes: it is not Python source text")
    try:
        content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UploadError(f"{what} is not UTF-8 text (byte {exc.start} cannot be decoded): "
                          "save it as UTF-8") from None


def _read_zip(data: bytes) -> dict[str, bytes]:
    """The zip's files (path → content), checked in full before any is read, then read
    each with a hard cap."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            files = _check_entries(archive.infolist())
            return {info.orig_filename: _read_entry(archive, info, total)
                    for info, total in files}
    except UploadError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, struct.error, EOFError,
            ValueError, OSError, NotImplementedError, RuntimeError, OverflowError) as exc:
        raise UploadError(f"the upload is not a readable zip archive ({_shown(str(exc))}): "
                          f"{ACCEPTED}") from None


def _check_entries(infos: list[zipfile.ZipInfo]) -> list[tuple[zipfile.ZipInfo, int]]:
    """The zip's file entries, each with the bytes unpacked before it, once every entry
    has passed every check (on what the central directory declares)."""
    if len(infos) > MAX_FILES:
        raise UploadError(f"the zip holds {len(infos)} entries (at most {MAX_FILES})")
    seen: dict[str, str] = {}          # casefolded path → path, of every entry
    folders: set[str] = set()           # casefolded folders the entries are in
    file_keys: set[str] = set()
    files: list[tuple[zipfile.ZipInfo, int]] = []
    total = 0
    for info in infos:
        name = info.orig_filename
        problem = _name_problem(name) or _entry_problem(info)
        if problem:
            raise UploadError(f"the zip entry {_shown(name)} {problem}")
        path = name.removesuffix("/")
        key = path.casefold()
        if key in seen:
            same = "is in the zip twice" if seen[key] == path else (
                f"differs only in case from {_shown(seen[key])}")
            raise UploadError(f"the zip entry {_shown(name)} {same}")
        seen[key] = path
        parts = key.split("/")
        folders.update("/".join(parts[:i]) for i in range(1, len(parts)))
        if name.endswith("/"):
            continue
        if total + info.file_size > MAX_UNPACKED_BYTES:
            raise UploadError(f"the zip would unpack to more than {_size(MAX_UNPACKED_BYTES)}")
        file_keys.add(key)
        files.append((info, total))
        total += info.file_size
    clash = sorted(file_keys & folders)
    if clash:
        raise UploadError(f"the zip entry {_shown(seen[clash[0]])} is both a file and a folder")
    if not files:
        raise UploadError(f"the zip holds no files: {ACCEPTED}")
    return files


def _entry_problem(info: zipfile.ZipInfo) -> str | None:
    """Why the entry ``info`` (its name already checked) cannot be unpacked."""
    mode = info.external_attr >> 16
    kind = stat.S_IFMT(mode)
    folder = info.orig_filename.endswith("/")
    if kind == stat.S_IFLNK:
        return "is a symbolic link"
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        return "is a special file (a device, pipe or socket)"
    if folder and kind == stat.S_IFREG:
        return "is named as a folder but marked as a file"
    if not folder and (kind == stat.S_IFDIR or info.external_attr & _MSDOS_FOLDER):
        return "is named as a file but marked as a folder"
    if folder and info.file_size:
        return "is a folder with contents"
    if info.flag_bits & _ENCRYPTED:
        return "is encrypted"
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        return "is compressed with a method other than stored or deflate"
    if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
        return "is stored uncompressed but declares two different sizes"
    ratio = info.file_size / max(info.compress_size, 1)
    if info.file_size > RATIO_FREE_BYTES and ratio > MAX_RATIO:
        return (f"unpacks to {ratio:.0f} times its compressed size (at most {MAX_RATIO}): "
                "refused as a zip bomb")
    if info.file_size > MAX_UNPACKED_BYTES:
        return f"would unpack to more than {_size(MAX_UNPACKED_BYTES)}"
    return None


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, before: int) -> bytes:
    """The content of ``info``, read with a hard cap: no more than it declares, and no
    more than the total cap allows after the ``before`` bytes already unpacked."""
    limit = min(info.file_size, MAX_UNPACKED_BYTES - before)
    shown = _shown(info.orig_filename)
    chunks: list[bytes] = []
    got = 0
    try:
        with archive.open(info) as stream:
            while chunk := stream.read(_CHUNK):
                got += len(chunk)
                if got > limit:
                    raise UploadError(f"the zip entry {shown} holds more bytes than it "
                                      "declares")
                chunks.append(chunk)
    except UploadError:
        raise
    except zipfile.BadZipFile as exc:
        why = ("fails its CRC-32 checksum (its content or declared size is false)"
               if str(exc).startswith("Bad CRC-32") else "is damaged")
        raise UploadError(f"the zip entry {shown} {why}") from None
    except (zlib.error, EOFError, OSError, ValueError, NotImplementedError,
            RuntimeError) as exc:
        raise UploadError(f"the zip entry {shown} is damaged ({type(exc).__name__})") from None
    if got != info.file_size:
        raise UploadError(f"the zip entry {shown} holds fewer bytes than it declares")
    return b"".join(chunks)


# -- the manifest ---------------------------------------------------------------------


def _read_manifest(files: dict[str, bytes]) -> tuple[str, str | None, str | None]:
    """(entry, attr, game) from the zip's manifest, each checked against the zip."""
    if MANIFEST not in files:
        raise UploadError(f"the zip has no {MANIFEST} at its top (not in a folder): add one "
                          f"such as {EXAMPLE_MANIFEST}")
    manifest = _parse_manifest(files[MANIFEST])
    unknown = sorted(set(manifest) - set(MANIFEST_KEYS))
    if unknown:
        raise UploadError(f"{MANIFEST} has unknown keys {_listed(unknown)}; "
                          f"the known keys are {', '.join(MANIFEST_KEYS)}")
    modules = [name for name in files if name.endswith(".py")]
    for name in modules:
        _check_python(files[name], f"the zip's file {_shown(name)}")
    entry = manifest.get("entry")
    if entry is None:
        raise UploadError(f"{MANIFEST} has no 'entry' naming the bot's .py file in the zip, "
                          f"as in {EXAMPLE_MANIFEST}")
    if not isinstance(entry, str):
        raise UploadError(f"'entry' in {MANIFEST} must be a string (a .py file in the zip)")
    if entry not in modules:
        raise UploadError(f"{MANIFEST} names the entry {_shown(entry)}, which is not a .py "
                          f"file in the zip (its .py files: {_listed(modules) or 'none'})")
    attr = manifest.get("attr")
    if attr is not None and not (isinstance(attr, str) and attr.isidentifier()
                                 and not keyword.iskeyword(attr)):
        what = _shown(attr) if isinstance(attr, str) else f"a {_json_type(attr)}"
        raise UploadError(f"'attr' in {MANIFEST} must be the name of a class or factory "
                          f"(a Python identifier), not {what}")
    game = manifest.get("game")
    if game is not None and not (isinstance(game, str) and game in MODULES):
        what = _shown(game) if isinstance(game, str) else f"a {_json_type(game)}"
        raise UploadError(f"{MANIFEST} names the game {what}, which arena does not know; "
                          f"the known games are {', '.join(sorted(MODULES))}")
    return entry, attr, game


def _parse_manifest(content: bytes) -> dict[str, Any]:
    if len(content) > MAX_MANIFEST_BYTES:
        raise UploadError(f"{MANIFEST} is larger than {_size(MAX_MANIFEST_BYTES)}")
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UploadError(f"{MANIFEST} is not UTF-8 text") from None
    try:
        manifest = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise UploadError(f"{MANIFEST} is not valid JSON: {exc.msg} at line {exc.lineno} "
                          f"column {exc.colno}") from None
    except RecursionError:
        raise UploadError(f"{MANIFEST} is not valid JSON: it is nested too deeply") from None
    except UploadError:
        raise
    except ValueError:  # a number of more digits than Python converts
        raise UploadError(f"{MANIFEST} holds a number too long to be one") from None
    if not isinstance(manifest, dict):
        raise UploadError(f"{MANIFEST} must hold a JSON object such as {EXAMPLE_MANIFEST}, "
                          f"not a {_json_type(manifest)}")
    return manifest


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise UploadError(f"{MANIFEST} has the key {_shown(key)} twice")
        result[key] = value
    return result


def _json_type(value: object) -> str:
    names = {dict: "JSON object", list: "list", str: "string", bool: "boolean",
             int: "number", float: "number", type(None): "null"}
    return names.get(type(value), type(value).__name__)
