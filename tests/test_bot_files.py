"""A bot's files are regular files and folders, and nothing else, wherever arena reads them:
loading, hashing, ``arena bots validate``, ``arena submit``, the ladder intake, the sandbox's
copy. Each refusal is one line naming the entry; nothing is read through a link."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import stat
import sys
import threading
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.bundles import spec_at
from arena.bots.files import (
    MAX_BOT_BYTES,
    MAX_BOT_ENTRIES,
    RULE,
    BotFileError,
    read_bot,
)
from arena.bots.identity import BotEntry, entrant, source_hash
from arena.bots.isolation import bot_process
from arena.bots.loading import BotLoadError, load_bot, source_file_hash
from arena.bots.process import Limits
from arena.bots.sandbox import sandbox_code, sandbox_problem
from arena.cli import cli
from arena.referee.match import play_game
from arena.server.uploads import UploadError, unpack_upload
from arena.tournaments.ladder_intake import stage
from arena.tournaments.submissions import accept

sys.path.insert(0, str(Path(__file__).parent / "hostile"))
import links  # tests/hostile/links.py: builds the hostile packages

ROOT = Path(__file__).resolve().parent.parent
RANDOM = str(ROOT / "bots/seasons/random_bot.py")
needs_sandbox = pytest.mark.skipif(sandbox_problem() is not None,
                                   reason=f"no sandbox here: {sandbox_problem()}")
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="arena runs as root only here")


def within(seconds, call, *args, **kwargs):
    """``call(*args, **kwargs)``'s result or exception, failing the test if it takes longer (a FIFO
    or a terminal must never be waited on)."""
    outcome = {}

    def run():
        try:
            outcome["value"] = call(*args, **kwargs)
        except BaseException as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{call.__name__} hung for {seconds} s"
    return outcome


def refused_line(text, entry):
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert entry in lines[0] and RULE in lines[0], text
    assert links.SECRET not in text and "ESCAPED" not in text
    return lines[0]


@pytest.fixture(params=links.KINDS)
def hostile(request, tmp_path):
    """(the package bot's folder, the hostile entry as messages name it)."""
    return links.build(tmp_path, request.param)


def test_loading_and_hashing_refuse_each_kind_of_entry_in_one_line(hostile):
    bot, entry = hostile
    for spec in (str(bot), str(bot / "__init__.py"), f"{bot}/__init__.py:agent"):
        outcome = within(10, load_bot, spec)
        assert isinstance(outcome.get("error"), BotLoadError), outcome
        line = refused_line(str(outcome["error"]), entry)
        assert line.startswith(f"bot folder {bot}: {entry} is ")
    for hash_of in (source_hash, lambda spec: source_file_hash(Path(spec))):
        outcome = within(10, hash_of, str(bot / "__init__.py"))
        assert isinstance(outcome.get("error"), BotFileError), outcome
        refused_line(str(outcome["error"]), entry)


def test_the_message_names_the_kind_of_entry(tmp_path):
    kinds = {"secret": "a symbolic link", "fifo": "a FIFO", "socket": "a socket",
             "folder": "a symbolic link"}
    for index, (kind, said) in enumerate(kinds.items()):
        bot, entry = links.build(tmp_path / str(index), kind)
        with pytest.raises(BotFileError) as refused:
            read_bot(bot)
        assert f"{entry} is {said}" in str(refused.value)


def test_a_device_is_refused_too(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    bot, _ = links.build(tmp_path, "fifo")
    os.unlink(bot / "data.txt")
    os.mknod(bot / "data.txt", stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero's
    with pytest.raises(BotFileError, match=r"data\.txt is a character device"):
        read_bot(bot)


def test_a_bot_file_or_folder_that_is_itself_a_link_is_refused_but_its_parents_may_be(
        tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "bot.py").write_text((ROOT / "bots/seasons/greedy.py").read_text())
    (tmp_path / "linked.py").symlink_to(real / "bot.py")
    with pytest.raises(BotLoadError, match=r"bot file .*linked.py is a symbolic link"):
        load_bot(str(tmp_path / "linked.py"))
    package, _ = links.build(tmp_path / "p", "secret")
    os.unlink(package / "data.txt")
    (tmp_path / "pkglink").symlink_to(package, target_is_directory=True)
    with pytest.raises(BotLoadError, match=r"bot folder .*pkglink is a symbolic link"):
        load_bot(str(tmp_path / "pkglink"))
    (tmp_path / "via").symlink_to(real, target_is_directory=True)  # a parent folder: fine
    assert load_bot(str(tmp_path / "via" / "bot.py")).name == "greedy"


def test_a_single_file_bots_hash_is_its_bytes_as_before(root):
    for name in ("greedy.py", "random_bot.py"):
        path = root / "bots/seasons" / name
        assert source_file_hash(path) == hashlib.sha256(path.read_bytes()).hexdigest()
        assert load_bot(str(path)).code_hash == source_file_hash(path)


def test_a_folders_hash_covers_every_files_path_mode_and_bytes(tmp_path):
    bot, _ = links.build(tmp_path, "secret")
    os.unlink(bot / "data.txt")
    first = source_hash(str(bot / "__init__.py"))
    assert load_bot(str(bot), check_files=True).code_hash == first
    (bot / "plain.txt").write_text("other data\n")
    changed = source_hash(str(bot / "__init__.py"))
    assert changed != first
    (bot / "plain.txt").chmod(0o755)
    assert source_hash(str(bot / "__init__.py")) not in (first, changed)
    (bot / "plain.txt").chmod(0o644)
    assert source_hash(str(bot / "__init__.py")) == changed
    (bot / "plain.txt").rename(bot / "sub" / "plain.txt")
    assert source_hash(str(bot / "__init__.py")) not in (first, changed)
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "x.pyc").write_bytes(b"cache")
    moved = source_hash(str(bot / "__init__.py"))
    (bot / "__pycache__" / "y.pyc").write_bytes(b"cache")
    assert source_hash(str(bot / "__init__.py")) == moved  # compiled caches aside


def test_a_file_over_the_size_cap_and_a_folder_over_the_count_cap_are_refused(tmp_path):
    bot, _ = links.build(tmp_path / "big", "secret")
    os.unlink(bot / "data.txt")
    with open(bot / "plain.bin", "wb") as out:
        out.truncate(MAX_BOT_BYTES + 1)
    with pytest.raises(BotLoadError) as big:
        load_bot(str(bot))
    assert len(str(big.value).splitlines()) == 1
    assert str(big.value) == (f"bot folder {bot} is larger than {MAX_BOT_BYTES} bytes (at "
                              f"linked/plain.bin; a bot's files may hold at most "
                              f"{MAX_BOT_BYTES} bytes together)")
    many, _ = links.build(tmp_path / "many", "secret")
    os.unlink(many / "data.txt")
    for index in range(MAX_BOT_ENTRIES):
        (many / f"plain{index}.txt").write_text("x")
    with pytest.raises(BotLoadError) as crowded:
        load_bot(str(many))
    assert str(crowded.value) == (f"bot folder {many} holds more than {MAX_BOT_ENTRIES} "
                                  f"files and folders (at most {MAX_BOT_ENTRIES}, "
                                  "__pycache__ aside)")


@as_root
def test_as_root_a_folders_files_are_read_with_its_owners_rights(tmp_path):
    bot = links.hard_linked(tmp_path, owner=54321)
    with pytest.raises(BotLoadError) as refused:
        load_bot(str(bot))
    assert "hardlinked/data.txt cannot be read: Permission denied" in str(refused.value)
    assert links.SECRET not in str(refused.value)
    assert os.stat(bot).st_uid == 54321  # and this thread is root again:
    assert (tmp_path / "outside" / "secret.txt").read_text() == links.SECRET


@as_root
def test_as_root_a_folder_anyone_may_write_to_is_read_with_nobodys_rights(tmp_path):
    for bot, entry in zip(links.in_shared_folder(tmp_path),
                          ("shm/private.txt", "outer/drop/private.txt", "bot.py",
                           "team/private.txt"), strict=True):
        with pytest.raises(BotLoadError) as refused:
            load_bot(str(bot))
        assert str(refused.value).endswith(
            f"{entry} cannot be read: Permission denied (arena, as root, reads a folder "
            "others may write to with nobody's rights)")
        assert links.SECRET not in str(refused.value)
    assert (tmp_path / "shm" / "private.txt").read_text() == links.SECRET  # root again


def cli_run(*args):
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize("kind", ["secret", "environ", "zero", "stdin", "fifo", "folder"])
def test_validate_refuses_in_one_line(tmp_path, kind):
    bot, entry = links.build(tmp_path, kind)
    outcome = within(60, cli_run, "bots", "validate", str(bot))
    result = outcome["value"]
    assert result.exit_code == 1
    refused_line(result.output, entry)


@pytest.mark.parametrize("kind", ["secret", "database", "wal", "zero", "fifo", "nested"])
def test_submit_refuses_in_one_line_and_keeps_nothing(tmp_path, monkeypatch, kind):
    monkeypatch.chdir(tmp_path)
    bot, entry = links.build(tmp_path, kind)
    outcome = within(60, cli_run, "submit", str(bot), "--game", "seasons")
    result = outcome["value"]
    assert result.exit_code == 1
    refused_line(result.output, entry)
    assert not (tmp_path / "results" / "submissions").exists()


class NoBook:
    """A ladder book that must not be touched: the package is refused before."""

    def __getattr__(self, name):
        raise AssertionError(f"the book was used ({name}) for a refused package")


@pytest.mark.parametrize("kind", ["secret", "shadow", "zero", "stdin", "fifo", "socket"])
def test_the_ladder_intake_refuses_a_package_in_one_line(tmp_path, kind):
    bot, entry = links.build(tmp_path, kind)
    home = tmp_path / "ladder"
    outcome = within(10, stage, NoBook(), home, bot / "__init__.py", "web: x",
                     package=bot)
    assert isinstance(outcome.get("error"), BotFileError), outcome
    refused_line(str(outcome["error"]), entry)
    assert not home.exists() or not any(home.rglob("*.txt"))
    # a submission staged before its folder changed is refused when it is judged
    outcome = within(10, accept, str(bot / "__init__.py"), home / "code",
                     lambda: pytest.fail("validated a refused bot"))
    assert isinstance(outcome.get("error"), BotFileError), outcome


def test_the_ladder_intake_and_submit_copy_what_they_read(tmp_path):
    bot, _ = links.build(tmp_path, "secret")
    os.unlink(bot / "data.txt")
    (bot / "plain.sh").write_text("#!/bin/sh\n")
    (bot / "plain.sh").chmod(0o700)
    (bot / "plain.txt").chmod(0o600)

    class Book:
        class store:  # the book's store, as far as staging uses it
            @staticmethod
            def transaction():
                return contextlib.nullcontext()

        def submit(self, source, spec):
            return 7

        def set_spec(self, submission, spec):
            self.spec = spec

    book = Book()
    assert stage(book, tmp_path / "ladder", bot / "__init__.py", "web: x", package=bot) == 7
    copy = Path(book.spec).parent
    assert copy == tmp_path / "ladder/staged/7/linked"
    assert source_hash(book.spec) == source_hash(str(bot / "__init__.py"))
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in copy.rglob("*")}
    assert modes == {"__init__.py": 0o644, "plain.txt": 0o644, "plain.sh": 0o755, "sub": 0o755}


def test_the_sandbox_reads_nothing_but_files_and_folders(tmp_path):
    for kind in ("secret", "zero", "stdin", "fifo"):
        bot, entry = links.build(tmp_path / kind, kind)
        outcome = within(10, sandbox_code, str(bot / "__init__.py"))
        assert isinstance(outcome.get("error"), BotFileError), outcome
        refused_line(str(outcome["error"]), entry)
    program = tmp_path / "program.sh"
    program.symlink_to("/etc/shadow")
    with pytest.raises(BotFileError, match=r"program\.sh is a symbolic link"):
        sandbox_code(f"command:{program}")


def test_the_sandbox_writes_the_bytes_read_with_modes_normalised(tmp_path):
    bot, _ = links.build(tmp_path, "secret")
    os.unlink(bot / "data.txt")
    (bot / "plain.txt").chmod(0o600)
    (bot / "sub" / "plain.sh").write_text("#!/bin/sh\n")
    (bot / "sub" / "plain.sh").chmod(0o700)
    folder = tmp_path / "code"
    folder.mkdir()
    tree = sandbox_code(f"{bot}/__init__.py:agent")
    tree.write(folder / tree.name)
    assert spec_at(f"{bot}/__init__.py:agent", tree, "/bot") == "/bot/linked/__init__.py:agent"
    modes = {str(p.relative_to(folder)): stat.S_IMODE(p.stat().st_mode)
             for p in folder.rglob("*")}
    assert modes == {"linked": 0o755, "linked/__init__.py": 0o644,
                     "linked/plain.txt": 0o644, "linked/sub": 0o755,
                     "linked/sub/plain.sh": 0o755}
    assert (folder / "linked/plain.txt").read_bytes() == (bot / "plain.txt").read_bytes()
    program = tmp_path / "engine"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o700)
    engine = sandbox_code(f"command:{program} --fast")
    assert engine.entries[0].executable  # run as /bot/engine whatever its mode was
    assert spec_at(f"command:{program} --fast", engine, "/bot") == "command:/bot/engine --fast"


def play_it(spec, isolation):
    player = bot_process(spec, {}, isolation, Limits())
    opponent = bot_process(RANDOM, {}, "process", Limits())
    try:
        return play_game("seasons", [player, opponent], seed=1, time_limit=5)
    finally:
        player.close()
        opponent.close()


@pytest.mark.parametrize("isolation", [
    pytest.param("sandbox", marks=needs_sandbox), "process"])
@pytest.mark.parametrize("kind", ["secret", "environ", "database", "zero", "stdin", "fifo"])
def test_a_bot_process_with_a_hostile_entry_crashes_with_the_refusal(tmp_path, monkeypatch,
                                                                      isolation, kind):
    monkeypatch.chdir(ROOT)
    bot, entry = links.build(tmp_path, kind)
    outcome = within(120, play_it, str(bot), isolation)
    record = outcome["value"]
    seat = record.seats[0]
    assert seat.status == "crash", seat
    assert entry in seat.detail and RULE in seat.detail, seat.detail
    assert "ESCAPED" not in seat.detail and links.SECRET not in seat.detail


def test_the_hostile_bot_does_escape_where_nothing_checks(tmp_path):
    """The check above is what stops it: the bot itself reads through its links."""
    bot, _ = links.build(tmp_path, "secret")
    code = (bot / "__init__.py").read_text()
    namespace = {"__file__": str(bot / "__init__.py")}
    with pytest.raises(RuntimeError, match=f"ESCAPED: read data.txt: b'{links.SECRET}'"):
        exec(compile(code, str(bot / "__init__.py"), "exec"), namespace)


@pytest.mark.parametrize("isolation", [
    pytest.param("sandbox", marks=needs_sandbox), "process"])
def test_a_tournament_refuses_such_a_bot_like_any_unloadable_bot(tmp_path, monkeypatch,
                                                                   isolation):
    monkeypatch.chdir(ROOT)
    bot, entry = links.build(tmp_path, "database")
    named = within(120, entrant, BotEntry(str(bot), isolation=isolation), Limits(),
                   "seasons")["value"]
    assert named.problem is not None and named.problem.startswith("it cannot be loaded: ")
    refused_line(named.problem, entry)
    assert named.identity.version == "unloadable"


def test_an_upload_refuses_links_devices_fifos_and_sockets(tmp_path):
    for index, (mode, said) in enumerate([
            (stat.S_IFLNK | 0o777, "is a symbolic link"),
            (stat.S_IFCHR | 0o644, "is a special file"),
            (stat.S_IFIFO | 0o644, "is a special file"),
            (stat.S_IFSOCK | 0o644, "is a special file")]):
        data = io.BytesIO()
        with zipfile.ZipFile(data, "w") as archive:
            archive.writestr("arena.json", '{"entry": "bot/__init__.py"}')
            archive.writestr("bot/__init__.py", "def agent(observation): pass\n")
            entry = zipfile.ZipInfo("bot/data.txt")
            entry.external_attr = mode << 16
            archive.writestr(entry, "/etc/shadow")
        with pytest.raises(UploadError, match=f"'bot/data.txt' {said}"):
            unpack_upload("bot.zip", data.getvalue(), tmp_path / str(index))
        assert not (tmp_path / str(index)).exists()


GOOD_BOT = ("class Bot:\n    name, version = 'swapped', '1'\n"
            "    def act(self, observation):\n        return observation.legal_actions[0]\n")
BAD_BOT = GOOD_BOT.replace("return observation.legal_actions[0]", "raise RuntimeError('swap')")


@needs_sandbox
@pytest.mark.parametrize(("read", "later"), [(BAD_BOT, GOOD_BOT), (GOOD_BOT, BAD_BOT)])
def test_submit_judges_the_bytes_it_keeps_whatever_the_file_holds_while_it_validates(
        tmp_path, read, later):
    from arena.bots.validation import validate

    source = tmp_path / "bot.py"
    source.write_text(read)

    def validate_after_a_swap(code):
        source.write_text(later)  # the file changes once it has been read
        return validate(str(source), game="seasons", games=2, strangers=True, code=code)

    verdict, identity, _ = accept(str(source), tmp_path / "kept", validate_after_a_swap)
    assert verdict.valid == (read == GOOD_BOT), verdict.lines()
    assert identity is None or Path(identity.spec).read_text() == read
    if read == BAD_BOT:  # its failure names the file as submitted
        assert "RuntimeError: swap" in "\n".join(verdict.lines())
        assert f'File "{source}", line 4, in act' in "\n".join(verdict.lines())
