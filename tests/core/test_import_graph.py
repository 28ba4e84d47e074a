"""Imports go one way (docs/design.md): no module of the ``streamfix`` package imports,
at any level (type-checking blocks and function bodies included), a module that imports
it back; the core imports neither ``streamfix.testing`` nor ``streamfix.cli``. Read
statically from the source (``test_import_weight.py`` imports each module of
``streamfix.testing`` first in a fresh interpreter).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import streamfix

ROOT = Path(streamfix.__file__).parent


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imported(name: str, path: Path) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its source."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            for alias in node.names:  # ``from . import _x`` names a module
                child = f"{target}.{alias.name}"
                found.add(child if child in MODULES else target)
    return {module for module in found if module in MODULES and module != name}


GRAPH = {name: _imported(name, path) for name, path in MODULES.items()}


def _cycle_from(start: str) -> list[str] | None:
    """A chain of imports from ``start`` back to it, if there is one."""
    stack = [(start, [start])]
    seen: set[str] = set()
    while stack:
        name, chain = stack.pop()
        for module in sorted(GRAPH[name]):
            if module == start:
                return [*chain, start]
            if module not in seen:
                seen.add(module)
                stack.append((module, [*chain, module]))
    return None


def test_the_graph_is_read() -> None:
    assert "streamfix.testing._doctor" in GRAPH
    assert "streamfix.testing._corpus" in GRAPH["streamfix.testing._doctor"]
    assert "streamfix._registry" in GRAPH["streamfix.testing._drivers"]


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_itself_back(name: str) -> None:
    cycle = _cycle_from(name)
    assert cycle is None, " -> ".join(cycle or [])


# The tools built on the core (design.md's layout): they import the core (the SSE decoder
# and the ASGI pieces the proxy and the test kit share are in it: ``_sse``, ``_asgi``);
# the core never imports them.
TOOLS = ("streamfix.testing", "streamfix.cli", "streamfix.proxy")
# ``streamfix`` itself: its ``__getattr__`` forwards the names that moved to
# ``streamfix.testing`` (a deprecation; imported only when such a name is asked for).
FORWARDS = {"streamfix": {"streamfix.testing"}}


@pytest.mark.parametrize("name", sorted(n for n in MODULES if not n.startswith(TOOLS)))
def test_the_core_imports_neither_testing_nor_the_cli(name: str) -> None:
    above = {m for m in GRAPH[name] if m.startswith(TOOLS)}
    assert above <= FORWARDS.get(name, set())


def _reached(start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for module in GRAPH[todo.pop()] - seen:
            seen.add(module)
            todo.append(module)
    return seen


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("streamfix.proxy")))
def test_the_proxy_never_imports_testing(name: str) -> None:
    """A deployable server does not load the test kit (design.md), not even through
    another module."""
    assert not {m for m in _reached(name) if m.startswith("streamfix.testing")}
