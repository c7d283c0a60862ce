"""arena's temporary folders: removed by a later process once theirs was killed, never
while it lives."""

import multiprocessing
import os
import tempfile
import time

from arena.bots import scratch
from arena.bots.scratch import OWNER_FILE, OwnedFolder, remove_abandoned


def test_only_folders_no_living_process_holds_are_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    held = OwnedFolder("arena-bot-")
    (held.path / "stderr.txt").write_text("in use")
    fork = multiprocessing.get_context("fork")
    made = fork.Pipe(duplex=False)
    killed = fork.Process(target=_make_and_die, args=(made[1],))
    killed.start()
    abandoned = made[0].recv()
    killed.join()
    young = tmp_path / "arena-bundles-young"
    young.mkdir()
    fifo = tmp_path / "arena-bot-fifo"  # a bot may leave anything under the owner's name
    fifo.mkdir()
    os.mkfifo(fifo / OWNER_FILE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "arena-bot-link").symlink_to(elsewhere)
    unrelated = tmp_path / "other-folder"
    unrelated.mkdir()
    unlocked, long_unlocked = tmp_path / "arena-bot-unlocked", tmp_path / "arena-bot-ancient"
    unlocked.mkdir()  # as an arena from before folders were locked makes them
    long_unlocked.mkdir()
    old = time.time() - 3600
    for path in (held.path, abandoned, fifo, tmp_path / "arena-bot-link", unrelated, unlocked):
        os.utime(path, (old, old), follow_symlinks=False)
    os.utime(long_unlocked, (old - 2 * 86_400, old - 2 * 86_400))

    assert remove_abandoned(tmp_path) == 3
    assert not os.path.exists(abandoned) and not fifo.exists() and not long_unlocked.exists()
    assert unlocked.exists()
    assert (held.path / "stderr.txt").read_text() == "in use"
    assert young.exists() and elsewhere.exists() and unrelated.exists()
    assert (tmp_path / "arena-bot-link").is_symlink()
    held.remove()
    assert not held.path.exists()


def test_a_forked_child_keeps_its_parents_folder_in_use(tmp_path, monkeypatch):
    # A run's workers use the bundles its parent unpacked: killed, the parent's folder
    # stays as long as one of them lives.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(scratch, "GRACE_SECONDS", 0.0)
    fork = multiprocessing.get_context("fork")
    made = fork.Pipe(duplex=False)
    parent = fork.Process(target=_make_fork_and_die, args=(made[1],))
    parent.start()
    folder, child = made[0].recv()
    parent.join()
    try:
        assert remove_abandoned(tmp_path) == 0 and os.path.exists(folder)
    finally:
        os.kill(child, 9)
    for _ in range(100):
        if remove_abandoned(tmp_path):
            break
        time.sleep(0.05)
    assert not os.path.exists(folder)


def _make_and_die(connection):
    folder = OwnedFolder("arena-bot-")
    connection.send(str(folder.path))
    os._exit(9)


def _make_fork_and_die(connection):
    folder = OwnedFolder("arena-bundles-")
    child = os.fork()
    if child == 0:
        time.sleep(60)
        os._exit(0)
    connection.send((str(folder.path), child))
    os._exit(9)


def test_a_folder_gone_while_it_is_looked_at_is_passed_over(tmp_path):
    # Another process's look, or its owner, may remove a folder between the listing and
    # the look at it.
    (tmp_path / "arena-bot-gone").mkdir()
    entry = next(os.scandir(tmp_path))
    os.rmdir(entry.path)
    assert scratch._abandoned(entry) is False
