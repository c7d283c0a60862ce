"""The package's shape: stages import only the stages below them, and nothing imports in a
circle (docs/architecture.md draws the picture)."""

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

ARENA = Path(__file__).resolve().parent.parent / "arena"
STAGES = ("games", "referee", "bots", "results", "env", "tournaments", "reports", "server", "cli")
"""Bottom to top: a module may import its own stage and the stages before it."""
FACADE = {"arena", "arena.__main__", "arena.api"}
"""The public API and the entry points: above every stage, imported by none."""


def module_name(path: Path) -> str:
    parts = path.relative_to(ARENA.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(ARENA.rglob("*.py"))}


def resolve(name: str) -> str:
    """The arena module an import of ``name`` runs: the longest prefix that is one."""
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def imports(module: str) -> list[tuple[str, list[str]]]:
    """(imported module or name, the names taken from it) for every import in ``module``,
    wherever it is (module level, in a function, under TYPE_CHECKING)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                anchor = ".".join(parts[:len(parts) - node.level + 1])
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.append((submodule, []) if submodule in MODULES else (base, [alias.name]))
    return [(name, names) for name, names in found if name.split(".")[0] == "arena"]


def ancestors(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:n]) for n in range(1, len(parts))}


def stage(module: str) -> int:
    return STAGES.index(module.split(".")[1])


def edges() -> list[tuple[str, str]]:
    return [(module, resolve(name)) for module in MODULES for name, _ in imports(module)
            if resolve(name) != module]


def test_every_module_belongs_to_a_stage():
    placed = {m for m in MODULES if m not in FACADE and m.split(".")[1] in STAGES}
    assert set(MODULES) - FACADE == placed


def test_no_module_imports_a_stage_above_its_own():
    upward = [f"{module} imports {target}" for module, target in edges()
              if module not in FACADE and target not in FACADE and stage(target) > stage(module)]
    assert upward == []


def test_only_the_entry_points_import_the_facade_or_the_command_line():
    wrong = []
    for module in set(MODULES) - FACADE:
        for name, names in imports(module):
            if name == "arena" and names != ["__version__"]:
                wrong.append(f"{module} imports {names} from arena")
            if resolve(name) in FACADE - {"arena"} or (
                    resolve(name).startswith("arena.cli") and not module.startswith("arena.cli")):
                wrong.append(f"{module} imports {name}")
    assert wrong == []


def test_there_are_no_import_cycles():
    graph = nx.DiGraph(edges())
    assert list(nx.simple_cycles(graph)) == []


def test_the_executor_only_ships_tasks():
    """It ships tasks and the bundles of the bots' code to worker processes, and plays
    nothing itself."""
    targets = {resolve(name) for name, _ in imports("arena.tournaments.executor")}
    assert not {t for t in targets if t.startswith(("arena.bots", "arena.referee"))
                and t not in ("arena.bots.bundles", "arena.bots.workers")}
    assert "arena.tournaments.tasks" in targets


def test_the_games_import_nothing_but_the_games():
    for module in (m for m in MODULES if m.startswith("arena.games")):
        assert all(resolve(name).startswith("arena.games") for name, _ in imports(module))


def test_the_walk_sees_what_python_imports():
    """A check of the checker: an import the walk missed could hide a cycle or a violation."""
    start = "arena.tournaments.runner"
    code = f"import sys, {start}; print(' '.join(m for m in sys.modules if m.startswith('arena')))"
    loaded = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout.split())
    reachable = nx.descendants(nx.DiGraph(edges()), start) | {start}
    expected = reachable.union(*(ancestors(m) for m in reachable))
    assert len(loaded) > 20
    assert loaded <= expected


def test_the_public_api_is_importable_from_arena_and_loads_lazily():
    import arena

    assert set(arena.__all__) == set(arena._EXPORTS)
    for name in arena.__all__:
        assert getattr(arena, name) is not None, name
    code = "import sys, arena; print(sorted(m for m in sys.modules if m.startswith('arena')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True).stdout
    assert loaded.strip() == "['arena']"


def test_the_old_flat_module_paths_are_gone():
    with pytest.raises(ImportError):
        import arena.match  # type: ignore[import-not-found]  # noqa: F401


def test_the_package_docstring_example_runs(root, monkeypatch):
    import doctest

    import arena

    monkeypatch.chdir(root)
    result = doctest.testmod(arena, verbose=False)
    assert result.attempted >= 4 and result.failed == 0
