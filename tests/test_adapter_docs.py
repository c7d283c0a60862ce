"""The documentation's code runs as written: every ``python`` block of README.md and
docs/*.md, the adapters' examples print what the README says, and docs/python-api.md
passes plain ``python -m doctest``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli

ROOT = Path(__file__).resolve().parent.parent

DOCUMENTS = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("docs/*.md"))]
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
BLOCKS = [(document, number) for document in DOCUMENTS
          for number in range(len(BLOCK.findall((ROOT / document).read_text())))]
NEEDS_RL = ("arena.env", "open_spiel", "shimmy")


def adapter_section() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Research adapters: PettingZoo and OpenSpiel\n", 1)[1]
    return section.split("\n## ", 1)[0]


def run(code: str, folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def reader_folder(tmp_path_factory) -> Path:
    """A reader's folder: the checkout's bots, configs and docs, and the ``games.jsonl``
    that ``arena export`` writes for a small tournament (docs/replays.md reads it)."""
    folder = tmp_path_factory.mktemp("reader")
    for name in ("bots", "configs", "docs", "examples"):
        (folder / name).symlink_to(ROOT / name)
    config = folder / "small.yaml"
    config.write_text("name: small\ngame: seasons\ngames_per_pairing: 2\nseed: 3\n"
                      "isolation: none\ntime_limit: null\n"
                      "bots: [bots/seasons/greedy.py, bots/seasons/random_bot.py]\n"
                      f"output: {folder}/results/small\ndb: {folder}/results/small.db\n")
    runner = CliRunner()
    played = runner.invoke(cli, ["run", str(config)])
    assert played.exit_code == 0, played.output
    exported = runner.invoke(cli, ["export", "small", "--db", str(folder / "results/small.db"),
                                   "--out", str(folder / "games.jsonl")])
    assert exported.exit_code == 0, exported.output
    return folder


@pytest.mark.parametrize("document, number", BLOCKS)
def test_every_python_block_of_the_docs_runs_as_written(document, number, reader_folder):
    code = BLOCK.findall((ROOT / document).read_text())[number]
    if any(name in code for name in NEEDS_RL):
        for module in ("pettingzoo", "pyspiel", "shimmy"):
            pytest.importorskip(module, reason="the adapters' examples need arena[rl]")
    result = run(code, reader_folder)
    assert result.returncode == 0, result.stderr


def test_the_readme_shows_the_adapter_examples():
    blocks = BLOCK.findall(adapter_section())
    assert len(blocks) >= 4
    assert any("agent_iter" in block for block in blocks)
    assert any("OpenSpielPlayer" in block for block in blocks)
    assert any("undo_action" in block and "pickle" in block for block in blocks)
    assert any('OpenSpielCompatibilityV0(game_name="arena_sonnentau"' in block
               for block in blocks)


@pytest.mark.parametrize("library", ["agent_iter", "OpenSpielCompatibilityV0"])
def test_the_loop_examples_print_what_the_readme_says(library):
    for module in ("pettingzoo", "pyspiel", "shimmy"):
        pytest.importorskip(module, reason="the adapters' examples need arena[rl]")
    section = adapter_section()
    block = next(b for b in BLOCK.findall(section) if library in b)
    result = run(block, ROOT)
    assert result.returncode == 0, result.stderr
    after = section.split(block, 1)[1]
    said = re.search(r"This prints `(.*?)`\.", after, re.S).group(1)
    assert result.stdout.strip() == " ".join(said.split())


def test_the_pettingzoo_example_ends_by_the_rules():
    pytest.importorskip("pettingzoo", reason="the adapters' examples need arena[rl]")
    block = next(b for b in BLOCK.findall(adapter_section()) if "agent_iter" in b)
    result = run(block, ROOT)
    assert "'termination': 'normal'" in result.stdout  # not stopped by the turn limit
    assert "(0, 0, 0)" not in result.stdout


def test_the_python_api_doc_passes_plain_doctest():
    result = subprocess.run([sys.executable, "-m", "doctest", "docs/python-api.md"], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
