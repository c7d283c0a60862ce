"""One revision, one label: a bot revision's label follows from its name, version and code
hash alone, so the same code has the same label in every database (issue 26, item 9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.identity import REVISION_DIGITS, BotIdentity, revision_labels
from arena.results.store import Store, StoreError

ROOT = Path(__file__).resolve().parents[1]
OLD = "a763d7" + "1" * 58
NEW = "3f2a9c" + "2" * 58


def cautious(code_hash: str, version: str = "1.0") -> BotIdentity:
    return BotIdentity("cautious", version, code_hash, "my_bot.py")


def test_a_label_is_the_name_the_version_and_the_start_of_the_code_hash():
    assert cautious(OLD).revision_label == "cautious@1.0+a763d7"
    assert cautious(NEW).revision_label == "cautious@1.0+3f2a9c"
    assert len(OLD[:REVISION_DIGITS]) == 6


def test_more_digits_come_only_after_the_first_label():
    labels = list(revision_labels("cautious", "1.0", OLD))
    assert labels[:3] == ["cautious@1.0+a763d7", "cautious@1.0+a763d71", "cautious@1.0+a763d711"]
    assert labels[-1] == f"cautious@1.0+{OLD}" and len(labels) == 64 - REVISION_DIGITS + 1


def test_versions_with_a_plus_cannot_take_another_revisions_label():
    """``1.0+a763d7`` is a version a bot may declare; its labels keep a suffix of their own."""
    declared = set(revision_labels("cautious", "1.0+a763d7", NEW))
    assert not declared & set(revision_labels("cautious", "1.0", OLD))


def test_a_bot_without_a_code_hash_is_its_name_and_version():
    assert list(revision_labels("cautious", "1.0", "")) == ["cautious@1.0"]


def test_the_same_code_has_the_same_label_in_every_database(tmp_path):
    with Store(tmp_path / "ladder.db") as ladder:  # saw only the newer code
        ladder_label = ladder.bot(ladder.register_bot("seasons", cautious(NEW))).label
    with Store(tmp_path / "arena.db") as arena:  # saw the older code first
        arena.register_bot("seasons", cautious(OLD))
        arena_label = arena.bot(arena.register_bot("seasons", cautious(NEW))).label
    assert ladder_label == arena_label == "cautious@1.0+3f2a9c"


def test_two_revisions_whose_hashes_start_alike_get_one_digit_more(tmp_path):
    alike = "a763d7" + "9" * 58
    with Store(tmp_path / "arena.db") as store:
        first = store.bot(store.register_bot("seasons", cautious(OLD))).label
        second = store.bot(store.register_bot("seasons", cautious(alike))).label
    assert (first, second) == ("cautious@1.0+a763d7", "cautious@1.0+a763d79")


def test_a_database_labelled_the_old_way_is_relabelled_when_opened(tmp_path):
    """Before, a version's first revision in each database was the bare ``name@version``."""
    path = tmp_path / "arena.db"
    with Store(path) as store:
        old = store.register_bot("seasons", cautious(OLD))
        new = store.register_bot("seasons", cautious(NEW))
        store.db.execute("UPDATE bots SET label = 'cautious@1.0' WHERE id = ?", (old,))
        unhashed = store.register_bot("seasons", cautious("", "2.0"))
    with Store(path) as store:
        labels = [store.bot(bot_id).label for bot_id in (old, new, unhashed)]
    assert labels == ["cautious@1.0+a763d7", "cautious@1.0+3f2a9c", "cautious@2.0"]


def test_name_and_version_still_name_a_versions_only_revision(tmp_path):
    with Store(tmp_path / "arena.db") as store:
        store.register_bot("seasons", cautious(OLD))
        assert store.find_bot("seasons", "cautious@1.0").label == "cautious@1.0+a763d7"
        assert store.find_bot("seasons", "cautious").label == "cautious@1.0+a763d7"
        store.register_bot("seasons", cautious(NEW))
        with pytest.raises(StoreError, match=r"ambiguous.*cautious@1\.0[+]a763d7, "
                           r"cautious@1\.0[+]3f2a9c"):
            store.find_bot("seasons", "cautious@1.0")
        assert store.find_bot("seasons", "cautious@1.0+3f2a").identity.code_hash == NEW


def test_arena_play_and_a_tournament_give_a_revision_the_same_label(tmp_path, monkeypatch):
    """`arena play` called bots `greedy@1.0` in its header and table, where the database,
    `arena ratings` and the report say `greedy@1.0+f00438`."""
    from pathlib import Path

    import yaml
    from click.testing import CliRunner

    from arena.cli import cli

    root = Path(__file__).resolve().parent.parent
    monkeypatch.chdir(root)
    db = tmp_path / "arena.db"
    config = {"name": "labels", "game": "seasons", "games_per_pairing": 1, "workers": 1,
              "isolation": "none", "bots": ["bots/seasons/greedy.py",
                                            "bots/seasons/random_bot.py"]}
    (tmp_path / "labels.yaml").write_text(yaml.safe_dump(config))
    ran = CliRunner().invoke(cli, ["run", str(tmp_path / "labels.yaml"), "--db", str(db),
                                   "--output", str(tmp_path / "out"), "--no-progress"])
    assert ran.exit_code == 0, ran.output
    with Store(db) as store:
        labels = [store.find_bot("seasons", name).label for name in ("greedy", "random")]
    assert all("+" in label for label in labels)
    one = CliRunner().invoke(cli, ["play", "seasons", "greedy", "random", "--seed", "2",
                                   "--isolation", "none"])
    several = CliRunner().invoke(cli, ["play", "seasons", "greedy", "random", "--games", "2",
                                       "--isolation", "none"])
    for result in (one, several):
        assert result.exit_code == 0, result.output
        shown = " ".join(result.output.split())
        assert all(label in shown for label in labels), shown
    assert f"seat 0: {labels[0]}, seat 1: {labels[1]}" in " ".join(one.output.split())


def test_a_version_holding_a_plus_is_named_by_its_version_too(tmp_path):
    """``v@1.0+local`` found no bot: its ``+local`` was taken for the start of a hash."""
    with Store(tmp_path / "arena.db") as store:
        store.register_bot("seasons", cautious(OLD, "1.0+local"))
        for text in ("cautious@1.0+local", "cautious@1.0+local+a763", "cautious"):
            assert store.find_bot("seasons", text).label == "cautious@1.0+local+a763d7"
        store.register_bot("seasons", cautious(NEW, "1.0"))
        assert store.find_bot("seasons", "cautious@1.0").identity.code_hash == NEW
        assert store.find_bot("seasons", "cautious@1.0+3f2a").identity.code_hash == NEW
        assert store.find_bot("seasons", "cautious@1.0+local").identity.code_hash == OLD
        with pytest.raises(StoreError, match=r"no seasons bot cautious@1\.0[+]loc "):
            store.find_bot("seasons", "cautious@1.0+loc")


def test_history_takes_a_revisions_label_for_its_bot(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from arena.cli import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "v.py").write_text("class V:\n    name, version = 'v', '1.0+local'\n"
                                   "    def act(self, observation):\n"
                                   "        return observation.legal_actions[0]\n")
    (tmp_path / "t.yaml").write_text(
        "name: plus\ngame: seasons\ngames_per_pairing: 1\nisolation: none\n"
        f"bots: [v.py, {ROOT}/bots/seasons/random_bot.py]\n")
    runner = CliRunner()
    assert runner.invoke(cli, ["run", "t.yaml", "--no-progress"]).exit_code == 0
    for text in ("v", "v@1.0+local"):
        shown = runner.invoke(cli, ["history", text])
        assert shown.exit_code == 0 and shown.output.startswith("v in seasons"), shown.output
    missing = runner.invoke(cli, ["history", "v@7.7+zzzz"])  # no such revision: not v's
    assert missing.exit_code == 1
    assert "no bot v@7.7+zzzz" in missing.output and "known: v@1.0+local+" in \
        missing.output
    compared = runner.invoke(cli, ["compare", "v@1.0+local", "random"])
    assert compared.exit_code == 0, compared.output
    (tmp_path / "v.py").write_text((tmp_path / "v.py").read_text() + "# another revision\n")
    assert runner.invoke(cli, ["run", "t.yaml", "--no-progress"]).exit_code == 0
    both = runner.invoke(cli, ["history", "v@1.0+local"])  # a version of two revisions
    assert both.exit_code == 0 and both.output.count("1.0+local+") >= 2, both.output
