"""Uploaded bots: a valid upload becomes files below its folder, anything hostile is refused.

Every refusal checks its message and that nothing at all was written (the destination is
not even created).
"""

import io
import json
import random
import stat
import string
import warnings
import zipfile

import pytest

from arena.bots.loading import split_spec
from arena.server import uploads
from arena.server.uploads import (
    MAX_FILES,
    MAX_UPLOAD_BYTES,
    UnpackedBot,
    UploadError,
    unpack_upload,
)

BOT = "class Bot:\n    def act(self, observation):\n        return observation['legal'][0]\n"
MANIFEST = {"entry": "mybot/main.py", "attr": "Bot", "game": "seasons"}


def tree(root):
    return {str(path.relative_to(root)) for path in root.rglob("*")}


def make_zip(entries, manifest=MANIFEST, compression=zipfile.ZIP_DEFLATED):
    """A zip of ``entries`` (name or ZipInfo → content), with ``manifest`` as arena.json."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of duplicate names
        with zipfile.ZipFile(buffer, "w", compression) as archive:
            if manifest is not None:
                text = manifest if isinstance(manifest, str) else json.dumps(manifest)
                archive.writestr("arena.json", text)
            for name, content in entries.items():
                archive.writestr(name, content)
    return buffer.getvalue()


def refused(tmp_path, filename, data, *fragments):
    """Unpack, expecting a refusal whose message holds each fragment; nothing written."""
    with pytest.raises(UploadError) as caught:
        unpack_upload(filename, data, tmp_path / "bot")
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, message
    assert tree(tmp_path) == set()
    return message


def info(name, mode=None):
    entry = zipfile.ZipInfo(name)
    if mode is not None:
        entry.create_system = 3
        entry.external_attr = mode << 16
    return entry


def patched(data, old, new):
    """``data`` with every ``old`` (found in both zip headers) replaced by ``new``."""
    assert data.count(old) == 2 and len(old) == len(new)
    return data.replace(old, new)


def patch_field(data, offset_local, offset_central, value, size=4):
    """``data`` with a little-endian field set in the one local and the one central header."""
    data = bytearray(data)
    for signature, offset in ((b"PK\x03\x04", offset_local), (b"PK\x01\x02", offset_central)):
        [start] = [i for i in range(len(data)) if data.startswith(signature, i)]
        data[start + offset:start + offset + size] = value.to_bytes(size, "little")
    return bytes(data)


# -- what is accepted ---------------------------------------------------------------


def test_a_single_python_file_becomes_bot_py(tmp_path):
    dest = tmp_path / "bot"
    unpacked = unpack_upload("greedy.py", BOT.encode(), dest)
    assert unpacked == UnpackedBot(str(dest / "bot.py"), None, ("bot.py",))
    assert (dest / "bot.py").read_text() == BOT
    assert tree(tmp_path) == {"bot", "bot/bot.py"}


def test_a_zip_with_a_manifest_and_a_helper_module_is_written_as_it_is(tmp_path):
    dest = tmp_path / "bot"
    helper = "def first(legal):\n    return legal[0]\n"
    data = make_zip({"mybot/": b"", "mybot/main.py": BOT, "mybot/helper.py": helper,
                     "data/table.txt": "1 2 3\n"})
    unpacked = unpack_upload("mybot.zip", data, dest)
    assert unpacked.spec == f"{dest}/mybot/main.py:Bot"
    assert unpacked.game == "seasons"
    assert unpacked.files == ("arena.json", "mybot/main.py", "mybot/helper.py",
                              "data/table.txt")
    assert tree(tmp_path) == {"bot", "bot/arena.json", "bot/mybot", "bot/mybot/main.py",
                              "bot/mybot/helper.py", "bot/data", "bot/data/table.txt"}
    assert (dest / "mybot/helper.py").read_text() == helper
    assert (dest / "mybot/main.py").read_text() == BOT
    path, attr = split_spec(unpacked.spec)
    assert attr == "Bot" and (tmp_path / path).is_file()


def test_a_manifest_with_only_an_entry_gives_a_spec_without_attr_or_game(tmp_path):
    dest = tmp_path / "bot"
    unpacked = unpack_upload("x.ZIP", make_zip({"main.py": BOT}, {"entry": "main.py"}), dest)
    assert unpacked == UnpackedBot(f"{dest}/main.py", None, ("arena.json", "main.py"))


def test_the_destination_may_exist_if_it_is_empty(tmp_path):
    (tmp_path / "bot").mkdir()
    assert unpack_upload("a.py", b"x = 1\n", tmp_path / "bot").files == ("bot.py",)


def test_a_file_name_with_markup_works_but_is_not_used(tmp_path):
    dest = tmp_path / "bot"
    unpacked = unpack_upload("<script>alert(1)</script>.py", BOT.encode(), dest)
    assert "script" not in unpacked.spec and unpacked.spec == str(dest / "bot.py")
    assert tree(tmp_path) == {"bot", "bot/bot.py"}


def test_a_file_name_with_a_path_is_only_a_hint(tmp_path):
    dest = tmp_path / "bot"
    name = "../" * 3000 + "\x00/../etc/passwd/..\\evil.py"
    assert unpack_upload(name, BOT.encode(), dest).files == ("bot.py",)
    assert tree(tmp_path) == {"bot", "bot/bot.py"}


# -- the upload as a whole ----------------------------------------------------------


def test_an_upload_of_100_mb_is_refused(tmp_path):
    message = refused(tmp_path, "big.py", b"x" * (100 << 20), "larger than 1 MiB")
    assert len(message) < 100


def test_an_upload_one_byte_over_the_cap_is_refused(tmp_path):
    refused(tmp_path, "big.zip", bytes(MAX_UPLOAD_BYTES + 1), "larger than 1 MiB")


def test_an_empty_upload_is_refused(tmp_path):
    refused(tmp_path, "bot.py", b"", "empty")


def test_a_file_that_is_neither_py_nor_zip_is_refused_without_echoing_markup(tmp_path):
    message = refused(tmp_path, "<b>.exe", b"MZ", "neither a Python file (.py) nor a zip",
                      ".zip holding the bot and an arena.json")
    assert "<b>" not in message and "<" not in message


def test_a_long_unprintable_file_name_is_shown_only_as_a_short_excerpt(tmp_path):
    message = refused(tmp_path, "\x1b[2J" + "a" * 10_000 + ".pyc", b"x", "neither")
    assert "\x1b" not in message and "\\x1b" in message
    assert "(and 9948 more characters)" in message and len(message) < 400


def test_a_destination_that_is_not_empty_is_refused(tmp_path):
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot/old.py").write_text("old")
    with pytest.raises(UploadError, match="is not empty"):
        unpack_upload("a.py", b"x = 1\n", tmp_path / "bot")
    assert tree(tmp_path) == {"bot", "bot/old.py"}


# -- a single Python file -----------------------------------------------------------


def test_a_python_file_that_is_not_utf8_is_refused(tmp_path):
    refused(tmp_path, "bot.py", "name = 'café'\n".encode("latin-1"), "not UTF-8 text")


def test_a_python_file_with_nul_bytes_is_refused(tmp_path):
    refused(tmp_path, "bot.py", b"x = 1\x00\n", "NUL bytes")


# -- the zip's entries --------------------------------------------------------------


def test_a_file_named_zip_that_is_not_a_zip_is_refused(tmp_path):
    refused(tmp_path, "bot.zip", b"PK but not really", "not a readable zip archive")


@pytest.mark.parametrize(("name", "problem"), [
    ("../evil.py", "has an empty, '.' or '..' part"),
    ("mybot/../../evil.py", "'..' part"),
    ("/abs.py", "is an absolute path"),
    ("C:/evil.py", "starts with a drive letter"),
    ("C:evil.py", "starts with a drive letter"),
    ("..\\evil.py", "holds a backslash"),
    ("mybot//evil.py", "has an empty"),
    ("./evil.py", "'.'"),
    ("bad\x1bname.py", "unprintable"),
    ("<script>.py", "holds '<', '>' (not allowed in file names)"),
    ("a" * 101 + ".py", "part longer than 100"),
    ("a/" * 101 + "b.py", "longer than 200 characters"),
])
def test_a_zip_slip_or_an_unsafe_name_is_refused(tmp_path, name, problem):
    message = refused(tmp_path, "bot.zip", make_zip({"mybot/main.py": BOT, name: BOT}),
                      "the zip entry ", problem)
    assert "<script>" not in message and "\x1b" not in message


def test_a_zip_entry_with_a_nul_in_its_name_is_refused(tmp_path):
    data = patched(make_zip({"mybot/main.py": BOT, "evil_Xpy.py": BOT}),
                   b"evil_Xpy.py", b"evil\x00Xpy.py")
    refused(tmp_path, "bot.zip", data, "holds a NUL character")


def test_a_zip_with_a_link_is_refused(tmp_path):
    link = info("mybot/helper.py", stat.S_IFLNK | 0o777)
    refused(tmp_path, "bot.zip", make_zip({"mybot/main.py": BOT, link: "/etc/passwd"}),
            "'mybot/helper.py' is a symbolic link")


def test_a_zip_with_a_pipe_or_device_is_refused(tmp_path):
    for mode in (stat.S_IFIFO | 0o644, stat.S_IFCHR | 0o644, stat.S_IFBLK | 0o644):
        data = make_zip({"mybot/main.py": BOT, info("dev", mode): ""})
        refused(tmp_path, "bot.zip", data, "'dev' is a special file")


def test_a_zip_whose_entries_pretend_to_be_folders_or_files_is_refused(tmp_path):
    marked_folder = info("mybot/x.py", stat.S_IFDIR | 0o755)
    refused(tmp_path, "bot.zip", make_zip({"mybot/main.py": BOT, marked_folder: ""}),
            "'mybot/x.py' is named as a file but marked as a folder")
    marked_file = info("mybot/sub/", stat.S_IFREG | 0o644)
    refused(tmp_path, "bot.zip", make_zip({"mybot/main.py": BOT, marked_file: ""}),
            "is named as a folder but marked as a file")
    refused(tmp_path, "bot.zip", make_zip({"mybot/main.py": BOT, "mybot/sub/": "data"}),
            "'mybot/sub/' is a folder with contents")


def test_a_zip_with_a_file_that_is_also_a_folder_is_refused(tmp_path):
    refused(tmp_path, "bot.zip", make_zip({"mybot/main.py": BOT, "mybot": "x"}),
            "'mybot' is both a file and a folder")
    refused(tmp_path, "bot.zip", make_zip({"mybot/main.py": BOT, "mybot/main.py/x": ""}),
            "'mybot/main.py' is both a file and a folder")


def test_a_zip_with_a_name_twice_is_refused(tmp_path):
    data = make_zip({"mybot/main.py": BOT, info("mybot/main.py"): "print('other')"})
    refused(tmp_path, "bot.zip", data, "'mybot/main.py' is in the zip twice")
    data = make_zip({"mybot/main.py": BOT, "mybot/MAIN.py": BOT})
    refused(tmp_path, "bot.zip", data, "'mybot/MAIN.py' differs only in case from")
    data = make_zip({"mybot/main.py": BOT, "mybot/": "", info("mybot/"): ""})
    refused(tmp_path, "bot.zip", data, "'mybot/' is in the zip twice")
    assert unpack_upload("bot.zip", make_zip({"mybot/": "", "mybot/main.py": BOT}),
                         tmp_path / "ok").files == ("arena.json", "mybot/main.py")


def test_a_zip_with_too_many_entries_is_refused(tmp_path):
    entries = {f"mybot/m{i}.py": "" for i in range(MAX_FILES)} | {"mybot/main.py": BOT}
    refused(tmp_path, "bot.zip", make_zip(entries), f"holds {MAX_FILES + 2} entries (at most 64)")


def test_a_zip_with_only_folders_is_refused(tmp_path):
    refused(tmp_path, "bot.zip", make_zip({"a/": "", "a/b/": ""}, manifest=None),
            "holds no files")


def test_a_zip_bomb_is_refused(tmp_path):
    data = make_zip({"mybot/main.py": BOT, "zeros.txt": bytes(50_000_000)})
    assert len(data) < MAX_UPLOAD_BYTES
    refused(tmp_path, "bot.zip", data, "'zeros.txt' unpacks to", "times its compressed size",
            "zip bomb")


def test_a_zip_unpacking_to_more_than_the_total_cap_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(uploads, "MAX_UNPACKED_BYTES", 64 << 10)
    text = "".join(random.Random(1).choices(string.ascii_letters, k=30_000))
    entries = {"mybot/main.py": BOT} | {f"data/{i}.txt": text for i in range(3)}
    refused(tmp_path, "bot.zip", make_zip(entries), "would unpack to more than 64 KiB")


def test_an_encrypted_entry_is_refused(tmp_path):
    data = make_zip({"mybot/main.py": BOT}, manifest=None)
    data = patch_field(data, 6, 8, 0x1, size=2)   # general purpose flags: encrypted
    refused(tmp_path, "bot.zip", data, "'mybot/main.py' is encrypted")


def test_an_entry_compressed_with_another_method_is_refused(tmp_path):
    data = make_zip({"mybot/main.py": BOT}, compression=zipfile.ZIP_BZIP2)
    refused(tmp_path, "bot.zip", data, "compressed with a method other than stored or deflate")


@pytest.mark.parametrize(("declared", "problem"), [
    (100, "fails its CRC-32 checksum"),  # read stops at 100 bytes: the checksum differs
    (25_000, "holds fewer bytes than it declares"),
])
def test_an_entry_lying_about_its_size_is_refused(tmp_path, declared, problem):
    text = "".join(random.Random(2).choices(string.ascii_letters, k=20_000))
    data = make_zip({"mybot/main.py": "# " + text + "\n" + BOT}, manifest=None)
    data = patch_field(data, 22, 24, declared)    # uncompressed size, in both headers
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.getinfo("mybot/main.py").file_size == declared
    refused(tmp_path, "bot.zip", data, "the zip entry 'mybot/main.py' " + problem)


def test_an_entry_is_read_with_a_hard_cap_whatever_zipfile_returns(tmp_path, monkeypatch):
    data = make_zip({"mybot/main.py": BOT})

    def one_byte_more(self, entry, *args, **kwargs):
        return io.BytesIO(b"#" * (entry.file_size + 1))

    monkeypatch.setattr(zipfile.ZipFile, "open", one_byte_more)
    refused(tmp_path, "bot.zip", data, "'arena.json' holds more bytes than it declares")


def test_a_stored_entry_declaring_two_sizes_is_refused(tmp_path):
    data = make_zip({"mybot/main.py": BOT}, manifest=None, compression=zipfile.ZIP_STORED)
    refused(tmp_path, "bot.zip", patch_field(data, 22, 24, 10), "declares two different sizes")


# -- the manifest -------------------------------------------------------------------


def test_a_zip_without_a_manifest_is_refused(tmp_path):
    refused(tmp_path, "bot.zip", make_zip({"mybot/main.py": BOT}, manifest=None),
            "has no arena.json at its top", '"entry": "mybot/main.py"')
    data = make_zip({"mybot/main.py": BOT, "mybot/arena.json": json.dumps(MANIFEST)},
                    manifest=None)
    refused(tmp_path, "bot.zip", data, "has no arena.json at its top (not in a folder)")


def test_a_manifest_naming_a_missing_entry_is_refused(tmp_path):
    data = make_zip({"mybot/main.py": BOT}, {"entry": "mybot/other.py"})
    refused(tmp_path, "bot.zip", data, "names the entry 'mybot/other.py', which is not a .py",
            "its .py files: 'mybot/main.py'")
    data = make_zip({"mybot/main.py": BOT, "notes.txt": "x"}, {"entry": "notes.txt"})
    refused(tmp_path, "bot.zip", data, "'notes.txt', which is not a .py file")
    refused(tmp_path, "bot.zip", make_zip({"mybot/main.py": BOT}, {"game": "seasons"}),
            "has no 'entry'")
    refused(tmp_path, "bot.zip", make_zip({"mybot/main.py": BOT}, {"entry": ["main.py"]}),
            "'entry' in arena.json must be a string")


def test_a_manifest_naming_an_unknown_game_is_refused(tmp_path):
    data = make_zip({"mybot/main.py": BOT}, MANIFEST | {"game": "<i>chess</i>"})
    message = refused(tmp_path, "bot.zip", data, "names the game", "does not know",
                      "the known games are seasons, sonnentau")
    assert "<i>" not in message


def test_a_manifest_with_unknown_keys_is_refused(tmp_path):
    data = make_zip({"mybot/main.py": BOT}, MANIFEST | {"version": "1", "command": "rm"})
    refused(tmp_path, "bot.zip", data, "unknown keys 'command', 'version'",
            "the known keys are entry, attr, game")


def test_a_manifest_with_a_bad_attr_is_refused(tmp_path):
    for attr, shown in (("os.system", "'os.system'"), ("class", "'class'"), (3, "a number")):
        data = make_zip({"mybot/main.py": BOT}, MANIFEST | {"attr": attr})
        refused(tmp_path, "bot.zip", data, "must be the name of a class or factory", shown)


def test_a_manifest_that_is_not_a_json_object_is_refused(tmp_path):
    entries = {"mybot/main.py": BOT}
    refused(tmp_path, "bot.zip", make_zip(entries, "{'entry': 'x'}"), "is not valid JSON",
            "line 1 column 2")
    refused(tmp_path, "bot.zip", make_zip(entries, '["mybot/main.py"]'),
            "must hold a JSON object", "not a list")
    big = make_zip(entries, "[" * 70_000, compression=zipfile.ZIP_STORED)
    refused(tmp_path, "bot.zip", big, "arena.json is larger than 64 KiB")
    deep = make_zip(entries, "[" * 60_000, compression=zipfile.ZIP_STORED)
    refused(tmp_path, "bot.zip", deep, "arena.json is not valid JSON")
    refused(tmp_path, "bot.zip", make_zip(entries, '{"entry": "a", "entry": "b"}'),
            "has the key 'entry' twice")
    long = make_zip(entries, '{"entry": 1' + "0" * 5000 + "}")  # ValueError, not a refusal
    refused(tmp_path, "bot.zip", long, "arena.json holds a number too long to be one")


def test_a_python_file_in_a_zip_that_is_not_utf8_is_refused(tmp_path):
    data = make_zip({"mybot/main.py": BOT, "mybot/helper.py": "é = 1\n".encode("latin-1")})
    refused(tmp_path, "bot.zip", data, "the zip's file 'mybot/helper.py' is not UTF-8 text")
