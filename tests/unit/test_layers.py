"""The layout is the map: each package's docstring says which packages it may import, and this
test holds the code to it. Every import counts — at module level, inside functions, and under
``if TYPE_CHECKING`` (a name a module types against is one it depends on) — and no module may
reach itself through imports (no import circles).

A module belongs to the nearest package (or module) whose docstring has a ``May import:`` line;
it may import modules of its own owner and of the owners that line names in backticks.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("engine", "server", "grammar", "regression")
MAY_IMPORT = re.compile(r"^May import:(.*?)(?:\n\s*\n|\Z)", re.MULTILINE | re.DOTALL)
# Import edges still being removed (issue 28): (importing module, imported module). Empty when done.
PENDING: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Module:
    name: str
    path: Path

    @property
    def tree(self) -> ast.Module:
        return ast.parse(self.path.read_text(), str(self.path))


def modules(root: Path = ROOT, folders: tuple[str, ...] = FOLDERS) -> dict[str, Module]:
    """Every module of the installed package, by its installed name (drydock.engine.sql.query)."""
    found: dict[str, Module] = {}
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join(("drydock", *parts))
            found[name] = Module(name, path)
    return found


def imports(module: Module, known: dict[str, Module]) -> Iterator[str]:
    """The drydock modules ``module`` imports, anywhere in it. ``from pkg import sub`` is an import
    of ``pkg.sub`` (the package's own __init__ runs first for any submodule: not an edge)."""
    for node in ast.walk(module.tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = [
                f"{node.module}.{alias.name}"
                for alias in node.names
                if f"{node.module}.{alias.name}" in known
            ]
            targets = subs + ([node.module] if len(subs) < len(node.names) else [])
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module.name:
                yield target


def declared(module: Module) -> tuple[str, ...] | None:
    """The owners named by the module's ``May import:`` line; None when it has none."""
    doc = ast.get_docstring(module.tree) or ""
    match = MAY_IMPORT.search(doc)
    if match is None:
        return None
    return tuple(re.findall(r"`([\w.]+)`", match.group(1)))


class Layers:
    def __init__(self, known: dict[str, Module]):
        self.known = known
        self.rules = {name: rule for name, m in known.items() if (rule := declared(m)) is not None}

    def owner(self, name: str) -> str:
        while name not in self.rules:
            if "." not in name:
                raise AssertionError(f"no package above {name} says what it may import")
            name = name.rpartition(".")[0]
        return name

    def violations(self) -> list[str]:
        found = []
        for name, module in self.known.items():
            mine = self.owner(name)
            for target in set(imports(module, self.known)):
                theirs = self.owner(target)
                if (
                    theirs != mine
                    and theirs not in self.rules[mine]
                    and (name, target) not in PENDING
                ):
                    found.append(
                        f"{name} imports {target}: {mine} may import "
                        f"{', '.join(self.rules[mine]) or 'nothing'}"
                    )
        return sorted(found)

    def circles(self) -> list[list[str]]:
        """Strongly connected components of more than one module (Tarjan, iterative)."""
        graph = {
            name: sorted({t for t in imports(m, self.known) if (name, t) not in PENDING})
            for name, m in self.known.items()
        }
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        found: list[list[str]] = []
        for start, first_edges in graph.items():
            if start in index:
                continue
            work = [(start, iter(first_edges))]
            index[start] = low[start] = len(index)
            stack.append(start)
            on_stack.add(start)
            while work:
                node, edges = work[-1]
                nxt = next(edges, None)
                if nxt is not None:
                    if nxt not in index:
                        index[nxt] = low[nxt] = len(index)
                        stack.append(nxt)
                        on_stack.add(nxt)
                        work.append((nxt, iter(graph[nxt])))
                    elif nxt in on_stack:
                        low[node] = min(low[node], index[nxt])
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
        return found


@pytest.fixture(scope="module")
def layers() -> Layers:
    return Layers(modules())


def test_every_package_says_what_it_may_import(layers: Layers) -> None:
    packages = [name for name, m in layers.known.items() if m.path.name == "__init__.py"]
    assert len(packages) > 15  # the walk found the code base
    top = {"drydock.engine", "drydock.server", "drydock.grammar", "drydock.regression"}
    assert top <= set(layers.rules)
    for name in layers.known:
        layers.owner(name)  # raises when no package above says


def test_imports_follow_the_declared_directions(layers: Layers) -> None:
    assert layers.violations() == []


def test_no_import_circles(layers: Layers) -> None:
    assert layers.circles() == []


def test_pending_edges_still_exist(layers: Layers) -> None:
    """An edge removed from the code leaves PENDING too (so the list only shrinks)."""
    edges = {(name, t) for name, m in layers.known.items() for t in imports(m, layers.known)}
    assert PENDING - edges == set()


def test_the_engine_folder_is_a_map_not_a_heap() -> None:
    loose = sorted(p.name for p in (ROOT / "engine").glob("*.py") if p.name != "__init__.py")
    assert len(loose) <= 8, loose
    tests = sorted(p.name for p in (ROOT / "tests").glob("*.py"))
    assert len(tests) <= 6, tests


def _layers_of(tmp_path: Path, files: dict[str, str]) -> Layers:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return Layers(modules(tmp_path, ("engine",)))


@pytest.mark.parametrize(
    "spelling",
    [
        "from drydock.engine.high import thing\n",
        "import drydock.engine.high\n",
        "from drydock.engine import high\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from drydock.engine.high import "
        "thing\n",
        "def f():\n    from drydock.engine.high.deep import thing\n",
    ],
)
def test_the_checker_sees_every_spelling_of_an_import(tmp_path: Path, spelling: str) -> None:
    layers = _layers_of(
        tmp_path,
        {
            "engine/__init__.py": '"""Root.\n\nMay import: nothing.\n"""\n',
            "engine/low/__init__.py": '"""Low.\n\nMay import: `drydock.engine`.\n"""\n',
            "engine/low/mod.py": spelling,
            "engine/high/__init__.py": '"""High.\n\nMay import: `drydock.engine.low`.\n"""\n',
            "engine/high/deep.py": "",
        },
    )
    assert [v.split(":")[0] for v in layers.violations()] == [
        f"drydock.engine.low.mod imports drydock.engine.high{'.deep' if 'deep' in spelling else ''}"
    ]


def test_the_checker_finds_a_circle(tmp_path: Path) -> None:
    layers = _layers_of(
        tmp_path,
        {
            "engine/__init__.py": '"""Root.\n\nMay import: nothing.\n"""\n',
            "engine/a.py": "from drydock.engine.b import x\n",
            "engine/b.py": "def f():\n    from drydock.engine import a\n",
            "engine/c.py": "from drydock.engine import a\n",
        },
    )
    assert layers.circles() == [["drydock.engine.a", "drydock.engine.b"]]
    assert layers.violations() == []
