"""End to end: a ``ToolCallingAgent`` with ``stream_outputs=True`` on a model that streams
two parallel calls at the same index (Ollama style), through smolagents' own
``generate_stream`` and agent loop. Stock runs one tool with glued arguments; patched, both
tools run with their own arguments and the agent records both calls."""

from __future__ import annotations

import json
from typing import Any

import pytest
from smol_wire import WIRES, chunk, run_agent, tc

# Ollama via litellm: the same index for both calls, with ids or without.
SAME_INDEX = {
    "different-ids": [
        chunk(tc(0, "call_a", "weather", '{"city": ')),
        chunk(tc(0, args='"Paris"}')),
        chunk(tc(0, "call_b", "weather", '{"city": "Tokyo"}')),
        chunk(finish="tool_calls"),
    ],
    "no-ids": [
        chunk(tc(0, name="weather", args='{"city": ')),
        chunk(tc(0, args='"Paris"}')),
        chunk(tc(0, name="weather", args='{"city": "Tokyo"}')),
        chunk(finish="stop"),
    ],
}


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("ids", list(SAME_INDEX))
def test_stock_agent_runs_one_call_with_glued_arguments(wire: str, ids: str, stock: Any) -> None:
    received, agent = run_agent(wire, SAME_INDEX[ids])
    step = agent.memory.steps[1]
    # One call whose arguments are the two glued together (not JSON): the tool ran once,
    # with that text as the city, and never for Paris or for Tokyo.
    assert len(step.tool_calls) == 1
    assert step.tool_calls[0].arguments == '{"city": "Paris"}{"city": "Tokyo"}'
    assert received == ['{"city": "Paris"}{"city": "Tokyo"}']


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("ids", list(SAME_INDEX))
def test_patched_agent_runs_both_calls(wire: str, ids: str, patched: None) -> None:
    received, agent = run_agent(wire, SAME_INDEX[ids])
    assert sorted(received) == ["Paris", "Tokyo"]
    step = agent.memory.steps[1]
    assert [(c.name, c.arguments) for c in step.tool_calls] == [
        ("weather", {"city": "Paris"}),
        ("weather", {"city": "Tokyo"}),
    ]
    observations = step.observations or ""
    assert "sunny in Paris" in observations
    assert "sunny in Tokyo" in observations
    assert agent.memory.steps[-1].is_final_answer
    if ids == "different-ids":
        assert [c.id for c in step.tool_calls] == ["call_a", "call_b"]
    # The message recorded for the step carries both calls.
    recorded = step.model_output_message.tool_calls
    assert [json.dumps(c.function.arguments) for c in recorded] == [
        '{"city": "Paris"}',
        '{"city": "Tokyo"}',
    ]


TRUNCATED = [
    chunk(tc(0, "call_a", "weather", '{"city": ')),
    chunk(tc(0, args='"Par'), finish="length"),
]


@pytest.mark.shim_only
@pytest.mark.parametrize("wire", WIRES)
def test_patched_agent_truncated_arguments_clear_error(wire: str, patched: None) -> None:
    """Truncated arguments: the agent stops with the core's error (smolagents wraps any
    error of the generation in ``AgentGenerationError``, which ends the run), instead of
    running the tool with invalid JSON."""
    from smolagents.utils import AgentGenerationError

    import streamfix

    with pytest.raises(AgentGenerationError, match="tool call arguments are truncated") as info:
        run_agent(wire, TRUNCATED)
    assert isinstance(info.value.__cause__, streamfix.TruncatedToolCallError)
    assert info.value.__cause__.partial_arguments == {0: '{"city": "Par'}


CORRECT = [
    chunk(content="Let me check."),
    chunk(tc(0, "call_a", "weather", '{"city": ')),
    chunk(tc(0, args='"Paris"}')),
    chunk(tc(1, "call_b", "weather", '{"city": "Tokyo"}')),
    chunk(choices=[], usage={"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}),
]


def recorded(wire: str) -> tuple[list[Any], list[Any]]:
    received, agent = run_agent(wire, CORRECT)
    step = agent.memory.steps[1]
    return sorted(received), [
        step.model_output_message,
        step.model_output,
        step.tool_calls,
        step.token_usage,
        step.observations,
    ]


@pytest.mark.parametrize("wire", WIRES)
def test_patched_agent_records_what_stock_records(wire: str, stock: Any) -> None:
    """On a stream stock handles, the patched agent runs the same tools and records the
    same step (message, calls, token usage, observations)."""
    import streamfix_smolagents

    stock_run = recorded(wire)
    streamfix_smolagents.install()
    try:
        patched_run = recorded(wire)
    finally:
        streamfix_smolagents.uninstall()
    assert patched_run == stock_run
    assert stock_run[0] == ["Paris", "Tokyo"]


#: G3: DeepSeek, GLM and Kimi reuse one id for distinct calls at different indices.
SHARED_ID = [
    chunk(tc(0, "call_a", "weather", '{"city": "Paris"}')),
    chunk(tc(1, "call_a", "weather", '{"city": "Tokyo"}')),
    chunk(finish="tool_calls"),
]


@pytest.mark.parametrize("wire", WIRES)
def test_stock_agent_runs_one_of_two_calls_sharing_an_id(wire: str, stock: Any) -> None:
    """smolagents keys parallel calls by id: the second call replaces the first."""
    received, agent = run_agent(wire, SHARED_ID)
    assert received == ["Tokyo"]
    assert len(agent.memory.steps[1].tool_calls) == 1


@pytest.mark.parametrize("wire", WIRES)
def test_patched_agent_runs_both_calls_sharing_an_id(wire: str, patched: None) -> None:
    received, agent = run_agent(wire, SHARED_ID)
    assert sorted(received) == ["Paris", "Tokyo"]
    step = agent.memory.steps[1]
    assert sorted(c.id for c in step.tool_calls) == ["call_a", "call_a-1"]
