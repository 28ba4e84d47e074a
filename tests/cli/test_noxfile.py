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
