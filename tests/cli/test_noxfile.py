"""What ``nox -l`` shows: the noxfile's header lists every default session, and each
session's description (its docstring's first line) is a whole sentence naming no internal
issue. Read from the noxfile's syntax tree: nox itself is not needed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

NOXFILE = Path(__file__).resolve().parents[2] / "noxfile.py"
TREE = ast.parse(NOXFILE.read_text(encoding="utf-8"))


def _is_session(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(target, ast.Attribute) and ast.unparse(target) == "nox.session"


SESSIONS = {
    node.name: ast.get_docstring(node) or ""
    for node in TREE.body
    if isinstance(node, ast.FunctionDef) and any(map(_is_session, node.decorator_list))
}


def _default_sessions() -> list[str]:
    for node in TREE.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "nox.options.sessions":
            return list(ast.literal_eval(node.value))
    raise AssertionError("noxfile.py sets no nox.options.sessions")


def test_the_header_lists_every_default_session() -> None:
    header = " ".join((ast.get_docstring(TREE) or "").split())
    defaults = _default_sessions()
    assert set(defaults) <= set(SESSIONS)
    missing = [name for name in defaults if not re.search(rf"\b{name}\b[,.]", header)]
    assert missing == []


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_each_description_is_a_whole_sentence(name: str) -> None:
    first = SESSIONS[name].splitlines()[0]
    assert first[:1].isupper() and first.endswith("."), first
    assert not re.search(r"\bissues? \d", SESSIONS[name]), SESSIONS[name]


# The pins (issue 40): the default run installs what it was tested with.
PINS = NOXFILE.parent / ".ci" / "pins"


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")


@pytest.mark.parametrize("name", _default_sessions())
def test_every_default_session_has_its_pins(name: str) -> None:
    stem = _slug(name)
    folders = [p for p in PINS.iterdir() if p.name == stem or p.name.startswith(stem + "-")]
    files = [f for folder in folders for f in folder.glob("*install-*.txt")]
    assert files, f"no pins for {name!r} in {PINS}: STREAMFIX_PINS=write nox -s {name}"


def test_pins_are_exact_and_never_the_project() -> None:
    files = sorted(PINS.glob("*/*.txt"))
    assert files
    for path in files:
        lines = [x for x in path.read_text().splitlines() if x and not x.startswith("#")]
        assert lines, path
        loose = [x for x in lines if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*==\S+", x)]
        assert loose == [], path
        assert not [x for x in lines if x.lower().startswith("adk-streamfix")], path


def _calls(node: ast.AST, *names: str) -> list[ast.Call]:
    return [n for n in ast.walk(node) if isinstance(n, ast.Call) and ast.unparse(n.func) in names]


def _under_pins(function: ast.FunctionDef) -> set[int]:
    """The ids of the install calls inside a ``with _pins(session...)`` block."""
    inside = set()
    for node in ast.walk(function):
        if isinstance(node, ast.With) and any(
            ast.unparse(item.context_expr).startswith("_pins(") for item in node.items
        ):
            inside |= {id(call) for call in _calls(node, "_add", "_install")}
    return inside


FUNCTIONS = {
    node.name: node
    for node in TREE.body
    if isinstance(node, ast.FunctionDef) and (node.name in SESSIONS or node.name == "_shim_tests")
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_install_is_under_its_pins(name: str) -> None:
    """A session (or the shared shim-session body) installs nothing outside its pins, and
    only through ``_add``/``_install`` (one pinned step each)."""
    function = FUNCTIONS[name]
    assert _calls(function, "session.install") == [], "use _add(session, ...)"
    inside = _under_pins(function)
    loose = [ast.unparse(c) for c in _calls(function, "_add", "_install") if id(c) not in inside]
    assert loose == [], f"{name} installs outside `with _pins(session)`: {loose}"
