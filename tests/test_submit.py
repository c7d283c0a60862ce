"""arena bots new / validate and arena submit, as a new user runs them."""

import pytest
from click.testing import CliRunner

from arena.cli import cli


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_new_validate_submit_as_printed_in_the_readme(workdir):
    new = run("bots", "new", "mybot", "--game", "seasons")
    assert new.exit_code == 0, new.output
    assert (workdir / "bots/mybot.py").exists() and (workdir / "bots/test_mybot.py").exists()
    valid = run("bots", "validate", "bots/mybot.py")
    assert valid.exit_code == 0, valid.output
    assert valid.output.startswith("VALID: bots/mybot.py (mybot@0.1+")
    assert "seasons: 6 games" in valid.output
    submitted = run("submit", "bots/mybot.py")
    assert submitted.exit_code == 0, submitted.output
    first = submitted.output.split("submitted mybot@0.1+")[1].split()[0]
    assert len(first) == 6 and " for seasons: " in submitted.output  # its revision's label
    assert valid.output.startswith(f"VALID: bots/mybot.py (mybot@0.1+{first})")  # the same
    [copy] = (workdir / "results/submissions/mybot/0.1").glob("*/mybot.py")
    original = copy.read_text()
    assert original == (workdir / "bots/mybot.py").read_text()
    assert f"mybot@0.1+{first}" in run("ratings").output
    again = run("submit", "bots/mybot.py")
    assert again.exit_code == 0 and f"submitted mybot@0.1+{first} for" in again.output
    bot = workdir / "bots/mybot.py"
    bot.write_text(bot.read_text().replace("# outcome.ranks", "# changed: outcome.ranks"))
    changed = run("submit", "bots/mybot.py")
    assert changed.exit_code == 0, changed.output
    revision = changed.output.split("submitted mybot@0.1+")[1].split()[0]
    assert len(revision) == 6 and revision != first
    assert f"mybot@0.1+{revision}" in run("ratings").output
    copies = sorted((workdir / "results/submissions/mybot/0.1").glob("*/mybot.py"))
    assert len(copies) == 2 and copy.read_text() == original  # each revision's code kept


def test_the_template_test_passes(workdir):
    import subprocess
    import sys

    run("bots", "new", "other-bot", "--game", "sonnentau")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "bots/test_other_bot.py"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_new_refuses_bad_names_and_overwrites(workdir):
    assert run("bots", "new", "Bad Name", "--game", "seasons").exit_code == 1
    assert run("bots", "new", "x", "--game", "chess").exit_code == 1
    run("bots", "new", "x", "--game", "seasons")
    again = run("bots", "new", "x", "--game", "seasons")
    assert again.exit_code == 1 and "exists already" in again.output


def test_validate_explains_what_is_wrong(workdir, root):
    raiser = root / "tests/hostile/raiser.py"
    result = run("bots", "validate", str(raiser), "--game", "seasons", "--games", "2")
    assert result.exit_code == 1
    assert result.output.startswith("NOT VALID")
    assert "2 of 2 games lost by a failure; first: crash" in result.output
    broken = run("bots", "validate", str(root / "tests/hostile/unloadable.py"))
    assert broken.exit_code == 1 and "it does not start" in broken.output
    assert run("bots", "validate", "nope.py").exit_code == 1
    assert "NOT VALID" in run("submit", str(raiser), "--game", "seasons").output


def test_a_shell_bot_validates_for_every_game(root):
    spec = f"command:{root / 'bots/examples/first_legal.sh'}"
    result = run("bots", "validate", spec, "--games", "2")
    assert result.exit_code == 0, result.output
    assert "seasons: 2 games" in result.output and "sonnentau: 2 games" in result.output


def test_a_bot_naming_no_game_is_judged_by_the_games_it_plays(root, tmp_path):
    unnamed = tmp_path / "heuristic.py"
    unnamed.write_text((root / "bots/sonnentau/heuristic.py").read_text().replace(
        '    games = ("sonnentau",)\n', ""))
    result = run("bots", "validate", str(unnamed), "--games", "2")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("VALID") and "sonnentau: 2 games" in result.output
    assert "does not play seasons: 2 of 2 games lost" in result.output
    raiser = run("bots", "validate", str(root / "tests/hostile/raiser.py"), "--games", "2")
    assert raiser.exit_code == 1 and "problem: seasons:" in raiser.output
    assert "problem: sonnentau:" in raiser.output


def test_a_submission_named_like_a_path_is_refused_and_writes_nothing(workdir, root):
    result = run("submit", str(root / "tests/hostile/path_name.py"), "--game", "seasons")
    assert result.exit_code == 1 and "could be read as a file path" in result.output
    assert not (workdir / "results" / "submissions").exists()
    assert (root / "bots/seasons/greedy.py").read_text().startswith('"""')


def test_a_link_planted_in_the_submissions_folder_is_not_followed(workdir, tmp_path_factory):
    run("bots", "new", "mybot", "--game", "seasons")
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (workdir / "results/submissions").mkdir(parents=True)
    (workdir / "results/submissions/mybot").symlink_to(elsewhere)
    result = run("submit", "bots/mybot.py")
    assert result.exit_code == 1 and "does not lie below" in result.output
    assert list(elsewhere.iterdir()) == []


def test_submitting_needs_the_sandbox(workdir, monkeypatch):
    from arena.bots import isolation

    monkeypatch.setattr(isolation, "sandbox_problem", lambda: "bwrap is not installed")
    run("bots", "new", "mybot", "--game", "seasons")
    result = run("submit", "bots/mybot.py")
    assert result.exit_code == 1
    assert "bots from others run only in the sandbox, and bwrap is not installed" in result.output


def test_a_revision_that_played_before_it_is_submitted_is_named(workdir):
    """Its stored spec is where it played, not the kept copy: the label printed was empty."""
    assert run("bots", "new", "mybot", "--game", "seasons").exit_code == 0
    (workdir / "t.yaml").write_text("name: t\ngame: seasons\nseed: 1\nisolation: none\n"
                                    "bots: [bots/mybot.py, random]\n")
    played = run("run", "t.yaml", "--no-progress")
    assert played.exit_code == 0, played.output
    label = next(word for word in played.output.split() if word.startswith("mybot@0.1"))
    submitted = run("submit", "bots/mybot.py")
    assert submitted.exit_code == 0, submitted.output
    assert f"submitted {label} for seasons: " in submitted.output


def test_a_shipped_bot_is_named_as_on_the_command_line_in_validate_and_configs(workdir,
                                                                              monkeypatch):
    from pathlib import Path

    import arena.bots.shipped as shipped

    root = Path(__file__).resolve().parent.parent
    monkeypatch.setattr(shipped, "CHECKOUT_BOTS", root / "bots")
    valid = run("bots", "validate", "greedy", "--game", "seasons")
    assert valid.exit_code == 0, valid.output
    assert valid.output.startswith(f"VALID: {root / 'bots/seasons/greedy.py'} (greedy@1.0+f00438)")
    (workdir / "t.yaml").write_text("name: short\ngame: seasons\nseed: 1\nisolation: none\n"
                                    "bots: [greedy, random]\n")
    played = run("run", "t.yaml", "--no-progress")
    assert played.exit_code == 0, played.output
    assert "greedy@1.0" in played.output and "random@1.0" in played.output


def test_a_submitted_spec_naming_its_class_is_kept_with_its_class(workdir):
    """`submit two.py:B` suggested `…/two.py`, which holds two players and does not load."""
    (workdir / "two.py").write_text(
        "class A:\n    name, version = 'twoa', '1'\n"
        "    def act(self, observation):\n        return observation.legal_actions[0]\n\n"
        "class B:\n    name, version = 'twob', '1'\n"
        "    def act(self, observation):\n        return observation.legal_actions[-1]\n")
    submitted = run("submit", "two.py:B", "--game", "seasons")
    assert submitted.exit_code == 0, submitted.output
    said = " ".join(submitted.output.split())
    spec = said.split("; use ")[1].split(" as the bot's spec")[0]
    assert spec.endswith("/two.py:B") and f"code kept as {spec[:-2]};" in said
    valid = run("bots", "validate", spec, "--game", "seasons")
    assert valid.exit_code == 0 and "(twob@1+" in valid.output, valid.output


def test_a_bot_naming_games_arena_lacks_is_not_valid_and_its_names_are_shortened(workdir):
    long_name = "x" * 300
    (workdir / "odd.py").write_text(
        "class Bot:\n    name, version = 'odd', '1'\n"
        f"    games = ('\\x1b]0;PWN\\x07foo', {long_name!r})\n"
        "    def act(self, observation):\n        return observation.legal_actions[0]\n")
    for command in (("bots", "validate", "odd.py"), ("submit", "odd.py")):
        result = run(*command)
        assert result.exit_code == 1, result.output
        assert result.output.startswith("NOT VALID: odd.py"), result.output
        assert "its `games` names games arena does not have: " in result.output
        assert "\x1b" not in result.output and "\x07" not in result.output
        assert "x" * 39 + "…" in result.output and "x" * 41 not in result.output
    assert not (workdir / "results/submissions").exists()


def test_a_misspelt_bot_name_is_one_line_naming_the_shipped_bots_and_the_nearest(workdir):
    """`bots: [greedyy]` and `bots validate greedyy` named neither the shipped bots nor the
    nearest name (validate said "NOT VALID: greedyy (?@?)")."""
    (workdir / "t.yaml").write_text("name: x\ngame: seasons\nbots: [greedyy, random]\n"
                                    "seed: 1\ntime_limit: -1\n")
    ran = run("run", "t.yaml", "--dry-run")
    text = " ".join(ran.output.split())
    assert ran.exit_code == 1
    assert "bots[0]: bot 'greedyy' not found:" in text and "time_limit" in text  # at once
    assert "shipped for seasons: expectimax, greedy, random (did you mean 'greedy'?)" in text
    for args in (("--game", "seasons"), ()):
        checked = run("bots", "validate", "greedyy", *args)
        text = " ".join(checked.output.split())
        assert checked.exit_code == 1 and "NOT VALID" not in text
        assert text.startswith("Error: bot 'greedyy' not found:") and \
            "(did you mean 'greedy'?)" in text
    played = run("play", "seasons", "greedyy", "random")
    assert played.exit_code == 1 and "(did you mean 'greedy'?)" in played.output
    other_game = run("bots", "validate", "greedy", "--game", "sonnentau")
    assert other_game.exit_code == 1 and "bot 'greedy' is shipped for seasons, not " \
        "sonnentau; the bots shipped for sonnentau: heuristic, random, search" in \
        " ".join(other_game.output.split())


def test_validate_finds_a_shipped_bots_game_or_asks_for_it(workdir):
    """Without --game, ``bots validate greedy`` said "NOT VALID: greedy (?@?) … not found"
    after suggesting that very name for ``greedyy``."""
    found = run("bots", "validate", "greedy")
    assert found.exit_code == 0 and "(greedy@1.0+f00438)" in found.output, found.output
    both = run("bots", "validate", "random")
    assert both.exit_code == 1
    assert "'random' is a bot shipped for seasons and sonnentau: name the game with --game" \
        in " ".join(both.output.split())
