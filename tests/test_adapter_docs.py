"""The adapters' examples (README "Research adapters", docs/python-api.md) run as written."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytest.importorskip("pettingzoo", reason="the adapters' examples need arena[rl]")
pytest.importorskip("pyspiel", reason="the adapters' examples need arena[rl]")


def adapter_section(root) -> str:
    text = (root / "README.md").read_text()
    section = text.split("\n## Research adapters: PettingZoo and OpenSpiel\n", 1)[1]
    return section.split("\n## ", 1)[0]


def adapter_blocks(root) -> list[str]:
    return re.findall(r"```python\n(.*?)```", adapter_section(root), re.S)


def run(code: str, root) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                          text=True, timeout=600)


def test_the_readme_shows_the_adapter_examples(root):
    blocks = adapter_blocks(root)
    assert len(blocks) >= 3
    assert any("agent_iter" in block for block in blocks)
    assert any("OpenSpielPlayer" in block for block in blocks)
    assert any("undo_action" in block and "pickle" in block for block in blocks)


@pytest.mark.parametrize("number", range(3))
def test_every_adapter_code_block_of_the_readme_runs_as_written(root, number):
    blocks = adapter_blocks(root)
    if number >= len(blocks):
        pytest.skip("no such block")
    result = run(blocks[number], root)
    assert result.returncode == 0, result.stderr


def test_the_pettingzoo_example_prints_what_the_readme_says_and_ends_by_the_rules(root):
    block = next(b for b in adapter_blocks(root) if "agent_iter" in b)
    result = run(block, root)
    assert result.returncode == 0, result.stderr
    said = re.search(r"This prints `(.*?)`\.", adapter_section(root), re.S).group(1)
    assert result.stdout.strip() == " ".join(said.split())
    assert "'termination': 'normal'" in result.stdout  # not stopped by the turn limit
    assert "(0, 0, 0)" not in result.stdout


def test_the_python_api_doc_passes_plain_doctest(root):
    result = subprocess.run([sys.executable, "-m", "doctest", "docs/python-api.md"], cwd=root,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
