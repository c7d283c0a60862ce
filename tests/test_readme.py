"""The README's example bot runs exactly as printed."""

import re

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


def test_the_quick_start_commands_exist(root):
    makefile = (root / "Makefile").read_text()
    readme = (root / "README.md").read_text()
    for target in ("demo", "test"):
        assert f"make {target}" in readme and f"\n{target}:" in makefile
    assert "make test" in (root / ".ci/run").read_text()
