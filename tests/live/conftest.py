"""Live checks (``streamfix doctor --live``, :func:`streamfix.testing.live_check`) against
the replay server over real HTTP: the model names the scenario the server answers, the
same one streamed and non-streamed, so the reference (the framework's own request answered
non-streamed) is the scenario's non-streamed completion.

Every test starts and ends with every shim uninstalled.
"""

from __future__ import annotations

from typing import Any

from support import shim_fixture

import streamfix.testing
from streamfix.testing import LIVE_CASES, LiveCase, LiveTarget, Outcome, ReplayServer, Scenario

SCENARIOS = streamfix.testing.scenarios()
CASES = {case.name: case for case in LIVE_CASES}

_stock = shim_fixture("adk", "litellm", "openai", "sgpt", "smolagents", autouse=True, name="_stock")


def target(server: ReplayServer, name: str) -> LiveTarget:
    """The replay server as a live target whose model is scenario ``name``."""
    if SCENARIOS[name].dialect == "ollama":
        return LiveTarget(server.ollama_base_url, name, "ollama")
    return LiveTarget(server.openai_base_url, name, "openai")


def _tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    properties = {key: {"type": "string", "description": key} for key in arguments}
    parameters = {"type": "object", "properties": properties, "required": list(properties)}
    return {
        "type": "function",
        "function": {"name": name, "description": name, "parameters": parameters},
    }


def case_for(scenario: Scenario) -> LiveCase:
    """A live case whose tools are the scenario's (one per call name; the default cases
    when they fit): text only, a cut-off call, or parallel calls."""
    if not scenario.calls and not scenario.partial_calls:
        return CASES["text-only"]
    if scenario.truncated:
        return CASES["truncated-call"]
    names = {call["name"] for call in scenario.calls}
    if names <= {"get_weather", "get_time"}:
        return CASES["parallel-calls"]
    tools = {call["name"]: _tool(call["name"], call["arguments"]) for call in scenario.calls}
    return LiveCase(scenario.name, CASES["one-call"].messages, tuple(tools.values()))


def expected(scenario: Scenario) -> Outcome:
    """The scenario's non-streamed answer as an outcome: what the reference must be."""
    calls = [(c["name"], c["arguments"]) for c in (*scenario.calls, *scenario.partial_calls)]
    return Outcome(tuple(calls), scenario.text)


def expected_finish(scenario: Scenario) -> str:
    """The finish reason of the scenario's non-streamed answer."""
    answer = scenario.completion()
    if scenario.dialect == "ollama":
        return str(answer["done_reason"])
    return str(answer["choices"][0]["finish_reason"])


#: llama-server under ``max_tokens`` (issue 23): non-streamed it answers the cut text of
#: the call (``<tool_call>{"name"``, ``finish_reason: length``); streamed it holds the
#: partial call back and sends a role chunk, then ``finish_reason: length``, nothing else.
LLAMA_CUT_CALL = Scenario(
    "llama-cut-call",
    "E4",
    "llama-server: a call cut off by max_tokens, held back from the stream",
    "openai",
    (
        {
            "id": "chatcmpl-llama",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": "llama-cut-call",
            "choices": [
                {"index": 0, "delta": {"role": "assistant", "content": None}, "finish_reason": None}
            ],
        },
        {
            "id": "chatcmpl-llama",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": "llama-cut-call",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}],
        },
    ),
    text='<tool_call>{"name"',
    finish_reason="length",
)
