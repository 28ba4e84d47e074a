"""What the proxy's tests share (a module of its own name: ``tests/e2e`` has a
``conftest`` too, and the ``e2e`` session runs both folders in one pytest run).

``expected(scenario)`` is what a client must get through the proxy for a scenario: its
calls (id, name, arguments; the id where the scenario has one), its text, and the error
the stream ends in (a substring of its text): the provider's own (E5), a call cut off
(E4), or, for a shape the repaired wire cannot repair (I3, ``UNREPAIRABLE``: arguments
passed on are never taken back), the repairer's error instead of a call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import streamfix.testing
from streamfix.testing import UNREPAIRABLE, Scenario

SCENARIOS = streamfix.testing.scenarios()
OPENAI = sorted(n for n, s in SCENARIOS.items() if s.dialect == "openai")
OLLAMA = sorted(n for n, s in SCENARIOS.items() if s.dialect == "ollama")
USER = [{"role": "user", "content": "What is the weather in Paris, and the time?"}]


def _tool(name: str, field: str) -> dict[str, Any]:
    schema = {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}
    return {
        "type": "function",
        "function": {"name": name, "description": name, "parameters": schema},
    }


#: Every tool the corpus calls, declared as a client would.
TOOLS = [
    _tool("get_weather", "city"),
    _tool("get_time", "zone"),
    _tool("read_file", "path"),
    _tool("write_note", "text"),
    _tool("execute_shell_command", "shell_command"),
]


@dataclass(frozen=True)
class Expected:
    calls: tuple[tuple[str | None, str, Any], ...]  # (id or None: any, name, arguments)
    text: str
    error: str | None  # a substring of the error's text; None: no error


def expected(scenario: Scenario) -> Expected:
    error = scenario.error
    if scenario.truncated:
        error = "truncated"
    elif scenario.shape in UNREPAIRABLE:
        error = "took back"
    calls = tuple((c["id"], c["name"], c["arguments"]) for c in scenario.calls)
    if scenario.shape in UNREPAIRABLE:
        calls = ()
    return Expected(calls, scenario.text, error)


def same_calls(got: list[tuple[Any, str, Any]], want: Expected) -> bool:
    """``got`` (id, name, parsed arguments) are the expected calls: names and arguments
    equal; ids unique, and each the scenario's where the scenario gives it one of its
    own (an id the provider shared between calls, G3, may be any unique id)."""
    if [(n, a) for _, n, a in got] != [(n, a) for _, n, a in want.calls]:
        return False
    ids = [i for i, _, _ in got]
    if len(set(ids)) != len(ids) or not all(isinstance(i, str) and i for i in ids):
        return False
    given = [w for w, _, _ in want.calls]
    return all(w is None or given.count(w) > 1 or g == w for g, w in zip(ids, given, strict=True))


def body(name: str, **more: Any) -> dict[str, Any]:
    return {"model": name, "messages": USER, "tools": TOOLS, "stream": True, **more}


def path_of(name: str) -> str:
    return "/api/chat" if SCENARIOS[name].dialect == "ollama" else "/v1/chat/completions"


def sse_events(text: str) -> list[Any]:
    """The events of an SSE body: JSON objects, and ``"[DONE]"``."""
    events: list[Any] = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].lstrip() for line in block.split("\n") if line.startswith("data:")]
        if data:
            payload = "\n".join(data)
            events.append(payload if payload == "[DONE]" else json.loads(payload))
    return events
