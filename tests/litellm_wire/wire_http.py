"""The litellm wire (``streamfix.install("litellm")``: ``CustomStreamWrapper`` yields the
repaired stream) through litellm's own ``completion(stream=True)`` / ``acompletion`` over
real HTTP against the replay server (``streamfix_server``, from the streamfix pytest
plugin): what the tests of this folder share."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from typing import Any

import litellm

import streamfix.testing
from streamfix.testing import ReplayServer, Scenario, adrain, drain

__all__ = ["API_KEY", "SCENARIOS", "TOOLS", "USER", "naive", "naive_right", "stream", "target"]

USER = [{"role": "user", "content": "What is the weather in Paris, and the time?"}]
API_KEY = "sk-streamfix-test"
SCENARIOS = streamfix.testing.scenarios()
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("get_weather", "get_time", "execute_shell_command", "read_file", "write_note")
]


def target(server: ReplayServer, name: str) -> tuple[str, str]:
    """litellm's model and api_base for a corpus scenario: ``ollama_chat/`` on the
    server's root for Ollama's dialect, ``openai/`` on its ``/v1`` otherwise."""
    scenario: Scenario = SCENARIOS[name]
    if scenario.dialect == "ollama":
        return f"ollama_chat/{name}", server.ollama_base_url
    return f"openai/{name}", server.openai_base_url


def stream(
    server: ReplayServer, name: str, mode: str = "sync", **more: Any
) -> tuple[list[Any], BaseException | None]:
    """Every chunk the consumer gets for scenario ``name`` (``mode``: ``sync`` iterates
    ``completion(stream=True)``, ``async`` iterates ``acompletion``), and what the
    iteration raised (``None`` if it ended)."""
    model, base = target(server, name)
    kwargs = {"model": model, "api_base": base, "messages": USER, "api_key": API_KEY, **more}
    if mode == "sync":
        return drain(lambda: litellm.completion(stream=True, **kwargs))
    return asyncio.run(adrain(lambda: litellm.acompletion(stream=True, **kwargs)))


def naive(chunks: list[Any]) -> list[tuple[Any, ...]]:
    """The calls an index-keyed consumer builds: the id kept, name and arguments joined
    per ``index`` (openai-python's accumulator, most frameworks' loops); arguments parsed
    (``("invalid", text)`` where they are not JSON)."""
    calls: dict[int, dict[str, Any]] = defaultdict(lambda: {"id": None, "name": "", "args": ""})
    for chunk in chunks:
        for choice in chunk.choices:
            for entry in choice.delta.tool_calls or []:
                call = calls[entry.index]
                call["id"] = call["id"] or entry.id
                call["name"] += entry.function.name or ""
                call["args"] += entry.function.arguments or ""
    out = []
    for index in sorted(calls):
        call = calls[index]
        try:
            parsed = json.loads(call["args"] or "{}")
        except ValueError:
            parsed = ("invalid", call["args"])
        out.append((call["id"], call["name"], parsed))
    return out


def naive_right(chunks: list[Any], name: str) -> bool:
    built = naive(chunks)
    expected = [(c["name"], c["arguments"]) for c in SCENARIOS[name].calls]
    ids = [call_id for call_id, _, _ in built]
    return [(n, a) for _, n, a in built] == expected and all(ids) and len(set(ids)) == len(ids)
