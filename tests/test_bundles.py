"""Bundles: a revision's files as a content-addressed archive, unpacked only as they were."""

import gzip
import io
import os
import re
import subprocess
import sys
import tarfile

import pytest

from arena.bots import bundles
from arena.bots.bundles import (
    Bundle,
    BundleCache,
    BundleError,
    bundle_of,
    relative_spec,
    spec_at,
    unpack,
)
from arena.bots.files import read_bot


def package(tmp_path, name="mybot"):
    folder = tmp_path / name
    (folder / "data").mkdir(parents=True)
    (folder / "__init__.py").write_text("from .helper import Player\n")
    (folder / "helper.py").write_text("class Player: ...\n")
    (folder / "data" / "weights.json").write_text("[1, 2, 3]\n")
    (folder / "run.sh").write_text("#!/bin/sh\n")
    (folder / "run.sh").chmod(0o700)
    return folder


def test_the_same_files_make_the_same_bundle_keyed_by_their_code_hash(tmp_path):
    folder = package(tmp_path)
    bundle, tree = bundle_of(folder)
    assert bundle.digest == tree.digest() == read_bot(folder / "__init__.py").digest()
    (tmp_path / "copy").mkdir()
    tree.write(tmp_path / "copy" / "mybot")
    (tmp_path / "copy" / "mybot" / "helper.py").touch()  # another time: the same bundle
    again, _ = bundle_of(tmp_path / "copy" / "mybot")
    assert again.data == bundle.data
    assert unpack(bundle.data, bundle.digest) == tree
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(bundle.data))) as archive:
        members = archive.getmembers()
    assert [m.name for m in members] == ["mybot", "mybot/__init__.py", "mybot/data",
                                         "mybot/data/weights.json", "mybot/helper.py",
                                         "mybot/run.sh"]
    assert {(m.mode, m.uid, m.gid, m.mtime, m.uname) for m in members} <= {
        (0o644, 0, 0, 0, ""), (0o755, 0, 0, 0, "")}
    assert next(m for m in members if m.name == "mybot/run.sh").mode == 0o755


def test_a_spec_names_the_files_within_the_bundle(tmp_path):
    _, tree = bundle_of(package(tmp_path))
    _, single = bundle_of(tmp_path / "mybot" / "helper.py")
    assert relative_spec(f"{tmp_path}/mybot/__init__.py:Player", tree) == \
        "mybot/__init__.py:Player"
    assert relative_spec(f"{tmp_path}/mybot", tree) == "mybot/__init__.py"
    assert relative_spec("x/helper.py", single) == "helper.py"
    assert spec_at("helper.py:P", single, "/bot") == "/bot/helper.py:P"
    assert spec_at("command:x/helper.py --fast 'a b'", single, "/c") == \
        "command:/c/helper.py --fast 'a b'"


def archive(*members):
    """A gzip'd tar of (name, kind, data, extra) members, as a hostile peer could send."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, kind, data, extra in members:
            info = tarfile.TarInfo(name)
            info.type, info.size = kind, len(data or b"")
            info.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
            for key, value in extra.items():
                setattr(info, key, value)
            tar.addfile(info, io.BytesIO(data) if data else None)
    return gzip.compress(raw.getvalue())


FILE, FOLDER = tarfile.REGTYPE, tarfile.DIRTYPE


@pytest.mark.parametrize("members, refusal", [
    ([("bot", FOLDER, None, {}), ("bot/x", tarfile.SYMTYPE, None, {"linkname": "/etc/shadow"})],
     "'bot/x' is neither a regular file nor a folder"),
    ([("bot", FOLDER, None, {}), ("bot/x", tarfile.LNKTYPE, None, {"linkname": "bot/y"})],
     "'bot/x' is neither a regular file nor a folder"),
    ([("bot", FOLDER, None, {}), ("bot/x", tarfile.FIFOTYPE, None, {})],
     "'bot/x' is neither a regular file nor a folder"),
    ([("bot", FOLDER, None, {}), ("bot/x", tarfile.CHRTYPE, None, {})],
     "'bot/x' is neither a regular file nor a folder"),
    ([("bot", FOLDER, None, {}), ("bot/../escape.py", FILE, b"x", {})],
     "not a plain relative path"),
    ([("/etc/cron.d/bot", FILE, b"x", {})], "not a plain relative path"),
    ([("bot", FOLDER, None, {}), ("bot/./x", FILE, b"x", {})], "not a plain relative path"),
    ([("bot", FOLDER, None, {}), ("bot/a.py", FILE, b"1", {}), ("bot/a.py", FILE, b"2", {})],
     "'bot/a.py' is there twice"),
    ([("bot", FOLDER, None, {}), ("bot/sub/a.py", FILE, b"1", {})],
     "'bot/sub/a.py' comes before its folder"),
    ([("bot", FOLDER, None, {}), ("other/a.py", FILE, b"1", {})], "lies outside the bot"),
    ([("a.py", FILE, b"1", {}), ("b.py", FILE, b"2", {})], "a single file with other entries"),
    ([], "is empty"),
])
def test_unpacking_refuses_anything_but_plain_files_and_folders(members, refusal):
    with pytest.raises(BundleError, match=r"bundle 0{12}") as refused:
        unpack(archive(*members), "0" * 64)
    assert refusal in str(refused.value) and len(str(refused.value).splitlines()) == 1


def test_unpacking_refuses_other_code_than_its_key_names(tmp_path):
    bundle, _tree = bundle_of(package(tmp_path))
    with pytest.raises(BundleError, match="does not hold the code it names"):
        unpack(bundle.data, "f" * 64)
    swapped = archive(("mybot", FOLDER, None, {}), ("mybot/__init__.py", FILE, b"evil", {}))
    with pytest.raises(BundleError, match="does not hold the code it names"):
        unpack(swapped, bundle.digest)
    with pytest.raises(BundleError, match="not a bot's archive"):
        unpack(b"not gzip at all", bundle.digest)
    with pytest.raises(BundleError, match="does not end as one"):
        unpack(bundle.data + b"trailing", bundle.digest)


def test_unpacking_stops_at_the_caps(monkeypatch):
    monkeypatch.setattr(bundles, "MAX_BUNDLE_BYTES", 1000)
    bomb = gzip.compress(b"\0" * 1_000_000)  # a kilobyte that inflates to a megabyte
    with pytest.raises(BundleError, match="unpacks to more than a bot's files may hold"):
        unpack(bomb, "0" * 64)
    big = archive(("bot", FOLDER, None, {}), *((f"bot/{i}", FILE, b"x" * 300, {})
                                               for i in range(4)))
    with pytest.raises(BundleError, match="holds more than 1000 bytes"):
        unpack(big, "0" * 64)
    many = archive(("bot", FOLDER, None, {}), *((f"bot/{i}", FILE, b"", {})
                                                for i in range(80)))
    with pytest.raises(BundleError, match="holds more than 64 files and folders"):
        unpack(many, "0" * 64)


def test_a_cache_holds_whole_checked_bundles_in_a_folder_of_its_own(tmp_path):
    bundle, _tree = bundle_of(package(tmp_path))
    cache = BundleCache(tmp_path / "cache")
    unpacked = cache.add(bundle)
    assert unpacked.folder == tmp_path / "cache" / bundle.digest
    assert read_bot(unpacked.path).digest() == bundle.digest
    assert cache.add(bundle) is unpacked and cache.received == 1
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [bundle.digest]
    (unpacked.path / "helper.py").write_text("tampered\n")
    other = BundleCache(tmp_path / "cache")  # another process: checks what it finds
    assert read_bot(other.add(bundle).path).digest() == bundle.digest
    with pytest.raises(BundleError):
        other.add(Bundle("e" * 64, bundle.data))
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [bundle.digest]


def test_the_store_keeps_each_revisions_code(tmp_path):
    from arena.bots.identity import BotIdentity, identity_hash
    from arena.results.store import SCHEMA_VERSION, Store

    bundle, _ = bundle_of(package(tmp_path))
    identity = BotIdentity("mine", "1", identity_hash(bundle.digest, {}), "mybot", {},
                           bundle.digest)
    with Store(tmp_path / "a.db") as store:
        bot_id = store.register_bot("seasons", identity, bundle)
        assert store.bot(bot_id).identity.bundle == bundle.digest
        assert store.bundle(bundle.digest) == bundle
        assert store.register_bot("sonnentau", identity, bundle) != bot_id
        assert store.db.execute("SELECT count(*) FROM bundles").fetchone()[0] == 1
        store.db.execute("DROP TABLE bot_code")
        store.db.execute("DROP TABLE bundles")
        store.db.execute("PRAGMA user_version = 8")
    with Store(tmp_path / "a.db") as store:  # a database of before: nothing kept yet
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.bot(bot_id).identity.bundle == "" and store.bundle(bundle.digest) is None
        assert store.register_bot("seasons", identity, bundle) == bot_id
        assert store.bot(bot_id).identity.bundle == bundle.digest


def test_the_sandbox_plays_the_bytes_it_read_not_the_file_as_it_is_now(tmp_path):
    from arena.bots.identity import BotEntry, entry_process, keep_code
    from arena.bots.isolation import bot_process
    from arena.bots.process import Limits
    from arena.bots.sandbox import sandbox_problem

    if sandbox_problem() is not None:
        pytest.skip(sandbox_problem())
    bot = tmp_path / "namer.py"
    bot.write_text("class P:\n    name, version = 'before', '1'\n\n"
                   "    def act(self, observation):\n        return observation.legal_actions[0]\n")
    kept = keep_code(BotEntry(str(bot), isolation="sandbox"))
    bundles.receive([kept.bundle])
    played = entry_process(kept.entry, Limits())
    plain = bot_process(str(bot), {}, "sandbox", Limits())
    try:
        for player in (played, plain):
            player.ensure_running()
        bot.write_text(bot.read_text().replace("'before'", "'after'"))
        for player in (played, plain):
            player.close()  # started again: from the bytes read before, not the file
            player.ensure_running()
            assert player.name == "before"
    finally:
        played.close()
        plain.close()


CAUTIOUS = '''import random


class CautiousPlayer:
    """Keeps a total of 10 or 11 only if nothing better is possible."""

    name = "cautious"
    version = "1.0"

    def start(self, info):
        self.rng = random.Random(info.seed)

    def act(self, observation):
        state = observation.state
        if state["phase"] == "reroll":
            total = sum(state["dice"])
            if total in (10, 11):
                return "reroll:0,1,2"
            return "keep"
        return self.rng.choice(observation.legal_actions)
'''


def test_issue_26_compare_games_plays_each_revision_from_its_kept_code(tmp_path, root,
                                                                      monkeypatch):
    """The README's loop: run mine.yaml, change my_bot.py, run it again, then compare the
    two revisions with new games — while my_bot.py holds yet other code."""
    from click.testing import CliRunner

    from arena.cli import cli
    from arena.results.store import Store

    monkeypatch.chdir(tmp_path)
    for name in ("greedy.py", "random_bot.py"):
        (tmp_path / name).write_text((root / "bots" / "seasons" / name).read_text())
    (tmp_path / "mine.yaml").write_text(
        "name: mine\ngame: seasons\ngames_per_pairing: 1\nworkers: 1\n"
        "bots: [my_bot.py, greedy.py, random_bot.py]\n")
    bot = tmp_path / "my_bot.py"
    bot.write_text(CAUTIOUS)

    def arena(*args):
        result = CliRunner().invoke(cli, [*args, "--db", "arena.db"])
        assert result.exit_code == 0, result.output
        return result.output

    arena("run", "mine.yaml", "--no-progress")
    bot.write_text(CAUTIOUS.replace('return "keep"', 'return {}["x"]'))  # the change
    second_run = " ".join(arena("run", "mine.yaml", "--no-progress").split())
    assert "playing them as a new tournament 'mine-2'" in second_run
    hint = re.search(r"then `arena compare (cautious@1\.0\S*) (cautious@1\.0\+\w+) --db "
                     r"arena\.db` compares the revisions of 'mine' with these through their "
                     r"games on the same dice", second_run)
    assert hint, second_run
    bot.write_text(CAUTIOUS.replace('"keep"', '"reroll:0"'))  # and the file moves on
    with Store(tmp_path / "arena.db") as store:
        first, second = (b for b in store.bots("seasons") if b.identity.name == "cautious")
    assert second.label.startswith("cautious@1.0+")
    assert hint.groups() == (first.label, second.label)  # the hint names these two
    output = arena("compare", first.label, second.label, "--games", "10", "--no-progress",
                   "--no-luck")
    assert "has changed" not in output
    with Store(tmp_path / "arena.db") as store:
        compared = store.tournaments()[-1]
        games = list(store.games(compared.id))
        ids = store.entrants(compared.id)
    assert ids == [first.id, second.id] and len(games) == 20
    for game in games:  # the first plays its own code (never crashes), the second its own
        statuses = dict(zip(game.seats, game.statuses, strict=True))
        assert statuses[0] == "ok" and statuses[1] == "crash"


def test_an_installed_bot_is_its_distribution_and_version_and_must_be_the_same_where_played(
        tmp_path, monkeypatch):
    import sys

    from test_examples import _installed_copy

    from arena.bots.identity import BotEntry, InstalledMismatch, check_installed, keep_code

    _installed_copy(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "arena_highlow_bot", raising=False)
    kept = keep_code(BotEntry("highlow"))
    assert kept.bundle is None and kept.code  # a revision of its own, not ""
    assert kept.entry.installed is not None
    assert kept.entry.installed.what == "arena-highlow-bot 1.0"
    check_installed(kept.entry)  # the same here
    metadata = next(tmp_path.glob("*.dist-info")) / "METADATA"
    metadata.write_text(metadata.read_text().replace("Version: 1.0", "Version: 1.1"))
    assert keep_code(BotEntry("highlow")).code != kept.code
    with pytest.raises(InstalledMismatch, match=r"bot 'highlow' was arena-highlow-bot 1\.0 "
                       r"when it was read, but is arena-highlow-bot 1\.1 on "):
        check_installed(kept.entry)
    metadata.parent.rename(tmp_path / "gone")
    with pytest.raises(InstalledMismatch, match="but is not installed on"):
        check_installed(kept.entry)


def test_a_games_seed_stays_out_of_its_tasks_repr():
    from arena.tournaments.schedule import GameTask

    task = GameTask(0, 1, 2, 0, (0, 1), 5082778604268774501)
    assert "5082778604268774501" not in repr(task) and task.key == "r0-t1-s2-o0"


def test_naming_a_module_bot_runs_none_of_its_packages_code_in_arenas_process(
        tmp_path, monkeypatch):
    import sys

    from arena.bots.identity import installed_code, module_origin

    package = tmp_path / "plantedpkg"
    (package / "inner").mkdir(parents=True)
    marker = tmp_path / "ran"
    for init in (package / "__init__.py", package / "inner" / "__init__.py"):
        init.write_text(f"open({str(marker)!r}, 'a').write({init.parent.name!r})\n")
    bot = package / "inner" / "bot.py"
    bot.write_text("class P:\n    name, version = 'p', '1'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("plantedpkg", "plantedpkg.inner", "plantedpkg.inner.bot"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert module_origin("plantedpkg.inner.bot") == str(bot)
    found = installed_code("plantedpkg.inner.bot:P")
    assert found is not None and found.what.startswith("the module plantedpkg.inner.bot (")
    assert module_origin("plantedpkg.missing") is None
    assert module_origin("plantedpkg.inner.bot.deeper") is None  # a module holds no modules
    assert not marker.exists() and "plantedpkg" not in sys.modules


def test_validating_a_module_bot_runs_none_of_its_package_on_the_host(tmp_path):
    package = tmp_path / "plantedpkg"
    package.mkdir()
    marker = tmp_path / "ran"
    (package / "__init__.py").write_text(f"open({str(marker)!r}, 'a').write('host')\n")
    (package / "bot.py").write_text(
        "class P:\n    name, version = 'p', '1'\n"
        "    def act(self, observation):\n        return observation.legal_actions[0]\n")
    result = subprocess.run(
        [sys.executable, "-m", "arena", "bots", "validate", "plantedpkg.bot:P"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert "plantedpkg" in result.stdout + result.stderr
    assert not marker.exists(), result.stdout + result.stderr


def test_a_module_bot_in_a_namespace_package_or_a_zip_is_found_and_hashed(tmp_path,
                                                                         monkeypatch):
    """A namespace package's child raised KeyError (its parent not in sys.modules), and a
    module in a zip on the path had no hash: every code of it was one revision."""
    import zipfile

    from arena.bots.identity import installed_code

    source = "class Bot:\n    name, version = 'ns', '1'\n"
    (tmp_path / "nsp" / "sub").mkdir(parents=True)
    (tmp_path / "nsp" / "sub" / "mod.py").write_text(source)
    archive = tmp_path / "z.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("zpkg/__init__.py", "")
        zipped.writestr("zpkg/mod.py", source)
    for path in (tmp_path, archive):
        monkeypatch.syspath_prepend(str(path))
    for name in ("nsp", "nsp.sub", "nsp.sub.mod", "zpkg", "zpkg.mod"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    plain = installed_code("nsp.sub.mod:Bot")
    zipped_code = installed_code("zpkg.mod:Bot")
    assert plain is not None and zipped_code is not None and zipped_code.code
    assert not {"nsp", "nsp.sub", "zpkg"} & set(sys.modules)  # nothing imported
    changed_archive = tmp_path / "z2.zip"  # another code of it, first on the path
    with zipfile.ZipFile(changed_archive, "w") as zipped:
        zipped.writestr("zpkg/__init__.py", "")
        zipped.writestr("zpkg/mod.py", source + "# changed\n")
    monkeypatch.syspath_prepend(str(changed_archive))
    changed = installed_code("zpkg.mod:Bot")
    assert changed is not None and changed.code != zipped_code.code


def test_a_module_bots_packages_are_part_of_its_code_and_one_that_moves_its_path_is_refused(
        tmp_path, monkeypatch):
    """The package's ``__init__.py``, which its import runs, was no part of the hash; and a
    package that sets ``__path__`` plays a file other than the one arena found and hashed."""
    from arena.bots.files import BotFileError
    from arena.bots.identity import installed_code

    package = tmp_path / "pkgq"
    package.mkdir()
    (package / "__init__.py").write_text("SPEED = 1\n")
    (package / "bot.py").write_text("class Bot:\n    name, version = 'q', '1'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("pkgq", "pkgq.bot"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    before = installed_code("pkgq.bot:Bot")
    (package / "__init__.py").write_text("SPEED = 2\n")
    after = installed_code("pkgq.bot:Bot")
    assert before is not None and after is not None and before.code != after.code
    (package / "__init__.py").write_text(
        "import os\n__path__.insert(0, os.path.join(os.path.dirname(__file__), 'real'))\n")
    with pytest.raises(BotFileError, match=r"its package pkgq sets where its modules are "
                       r"found \(__path__\), so arena cannot tell which file plays"):
        installed_code("pkgq.bot:Bot")
    assert "pkgq" not in sys.modules
