"""The README's example bot runs exactly as printed."""

import re
import subprocess
import sys

from click.testing import CliRunner

from arena.cli import cli


def readme_bot(root):
    text = (root / "README.md").read_text()
    after = text.split("Save this as\n`my_bot.py`:", 1)[1]
    return re.search(r"```python\n(.*?)```", after, re.S).group(1)


def test_the_readme_bot_plays_a_match(root, tmp_path, monkeypatch):
    (tmp_path / "my_bot.py").write_text(readme_bot(root))
    monkeypatch.chdir(tmp_path)
    greedy = str(root / "bots/seasons/greedy.py")
    result = CliRunner().invoke(cli, ["play", "seasons", "my_bot.py", greedy, "--games", "10"])
    assert result.exit_code == 0, result.output
    assert "cautious@1.0" in result.output
    assert "illegal-action" not in result.output and "crash" not in result.output


def test_the_python_api_example_runs_as_printed(root, tmp_path):
    text = (root / "README.md").read_text().split("## Use arena from Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    for folder in ("bots", "configs"):
        (tmp_path / folder).symlink_to(root / folder)
    result = subprocess.run([sys.executable, "-W", r"error:arena\.:DeprecationWarning", "-c", code],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    import arena

    bots = [arena.load_bot(str(root / "bots/seasons" / f)).player
            for f in ("greedy.py", "random_bot.py")]
    same = arena.play_game("seasons", bots, seed=7)
    assert lines[0] == f"{same.ranks} {same.scores} ok"
    assert lines[1:3] == arena.game_log(same)[-2:]
    assert lines[2].startswith("Result: ") and "seat 0 (greedy) wins" in lines[2]
    assert [line.split()[0] for line in lines[3:7]] == ["[0,", "[1,", "[0,", "[1,"]
    labels = sorted(line.split()[0] for line in lines[7:])  # name@version+revision
    assert [label.partition("+")[0] for label in labels] == [
        "greedy-keep@1.0", "greedy@1.0", "random@1.0"]
    assert all(re.fullmatch(r"[^+]+\+[0-9a-f]{6}", label) for label in labels)
    assert (tmp_path / "results/python.db").exists()


def test_the_quick_start_commands_exist(root):
    makefile = (root / "Makefile").read_text()
    readme = (root / "README.md").read_text()
    for target in ("demo", "test"):
        assert f"make {target}" in readme and f"\n{target}:" in makefile
    assert "make test" in (root / ".ci/run").read_text()


EXAMPLE_FILES = {"configs/mine.yaml", "bots/mybot.py"}
"""Files of the reader's own that the README shows in examples."""


def test_every_file_of_the_checkout_the_readme_names_exists(root):
    """``configs/…``, ``bots/…``, ``arena/…`` and the like, in the README and in the comments
    of the shipped configs (placeholders such as ``bots/NAME.py`` aside)."""
    texts = {"README.md": (root / "README.md").read_text()}
    texts |= {str(path.relative_to(root)): path.read_text()
              for path in sorted((root / "configs").glob("*.yaml"))}
    missing = []
    for name, text in texts.items():
        for found in re.findall(r"\b((?:configs|bots|arena|bench|rules|docs|tests)/"
                                r"[\w./<>*-]*\w)", text):
            if found in EXAMPLE_FILES or re.search(r"[A-Z]{3}|<|\*", found):
                continue
            if not (root / found).exists():
                missing.append(f"{name}: {found}")
    assert missing == []


def test_the_readme_loop_compares_the_changed_bot_with_the_old(root, tmp_path, monkeypatch):
    """Write the bot, enter it in mine.yaml, change it, run the same config again, compare
    the two revisions: through the games each played on the same dice (issue 26, item 1)."""
    text = (root / "README.md").read_text()
    config = re.search(r"```yaml\n(.*?)```", text.split("tournament, `mine.yaml`:", 1)[1],
                       re.S).group(1)
    (tmp_path / "mine.yaml").write_text(config + "isolation: none\n")  # known bots: quick
    (tmp_path / "my_bot.py").write_text(readme_bot(root))
    (tmp_path / "bots").symlink_to(root / "bots")
    monkeypatch.chdir(tmp_path)
    quick = ["--no-progress", "--workers", "1"]
    first = CliRunner().invoke(cli, ["run", "mine.yaml", *quick])
    assert first.exit_code == 0, first.output
    bot = tmp_path / "my_bot.py"
    assert "`total in (10, 11, 12)`" in text  # the README's change
    bot.write_text(bot.read_text().replace("total in (10, 11)", "total in (10, 11, 12)"))
    second = CliRunner().invoke(cli, ["run", "mine.yaml", *quick])
    assert second.exit_code == 0, second.output
    assert "tournament 'mine-2'" in second.output
    old = re.search(r"cautious@1\.0\+[0-9a-f]{6}", first.output).group(0)
    new = re.search(rf"{re.escape(old)} is now (cautious@1\.0\+[0-9a-f]{{6}})",
                    " ".join(second.output.split())).group(1)
    assert max(len(line) for line in second.output.splitlines()) <= 80
    assert f"arena compare {old} {new}\n" in text  # the labels the README shows are these
    compared = CliRunner().invoke(cli, ["compare", old, new])
    assert compared.exit_code == 0, compared.output
    shown = " ".join(compared.output.split())
    assert f"{old} vs {new} through common opponents, not head-to-head" in shown
    assert "each played the same 40 games (20 duplicate sets: the same dice" in shown
    assert "greedy@1.0+" in shown and "random@1.0+" in shown
    printed = text.split(f"  $ arena compare {old} {new}\n", 1)[1].split("  ```", 1)[0]
    assert compared.output == "".join(line[2:] + "\n" for line in printed.splitlines()), \
        compared.output  # the README shows what compare prints, to the digit
