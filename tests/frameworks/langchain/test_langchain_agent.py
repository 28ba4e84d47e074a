"""langchain 1.x's ``create_agent`` with a ``ChatOpenAI`` model and tools, streamed one step
(``agent.stream(..., stream_mode=["updates", "messages"])``) over real HTTP (the replay
server): the first model step's ``AIMessage`` (``.tool_calls``, then
``.invalid_tool_calls``, their ids, ``.content``), the tools the agent ran with the
arguments they got, and the follow-up text; stock and on the repaired wire.

The model node streams the completion only when the run streams tokens (``"messages"``):
``ChatOpenAI`` is then driven through ``_stream`` and its chunks summed by langchain-core,
which keys ``tool_call_chunks`` by ``index`` and parses the arguments leniently. With
``stream_mode="updates"`` alone the model is invoked without streaming (no wire to
repair: :func:`test_updates_alone_do_not_stream`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import pytest
from conftest import (
    NAMES,
    OPENAI,
    PASSED_THROUGH,
    Got,
    assert_lost,
    assert_right,
    assert_same,
    wire_error,
)
from support import report_stock_loss

import streamfix
import streamfix_openai
from streamfix import testing
from streamfix.testing import ReplayServer

pytest.importorskip("langchain_openai")
agents = pytest.importorskip("langchain.agents")

QUESTION = "What is the weather in Paris, and the time?"

#: What the stock agent loses on the corpus: the first model step's calls, as
#: ``ChatOpenAI.stream`` sums them (test_langchain_wire's STOCK_LOSSES), and what the agent
#: does with them.
STOCK_LOSSES = {
    "b3-same-index": "one call, the names glued, no id: the ToolNode raises a ValidationError",
    "b6-no-index": "calls without an index: no argument reaches its call",
    "c1-repeated-names": "the name repeated on every fragment, glued: an unknown tool",
    "h1-legacy-function-call": "a legacy function_call: no tool call, the agent stops",
    "i1-double-encoded": "arguments a JSON string: an invalid tool call, the agent stops",
    "i3-restarted": "restarted arguments parsed leniently into a wrong call",
    "e4-truncated": "cut arguments parsed leniently: the agent runs get_time(zone='Eur')",
    "f2-late-signature": "a signature-only entry (no function): AttributeError",
}
STOCK_RIGHT = [name for name in NAMES if name not in STOCK_LOSSES]


@dataclass
class AgentRun:
    """One streamed agent run: the first model step's message, the tools run (name,
    arguments; in the order they ran), the nodes' updates in order, the last model text,
    the error it raised, and the requests it sent."""

    first: Any = None
    ran: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    updates: list[str] = field(default_factory=list)
    final: str = ""
    error: BaseException | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)


def _tool(name: str, run: AgentRun, lock: threading.Lock) -> Any:
    from langchain_core.tools import StructuredTool

    def call(**arguments: Any) -> str:
        with lock:  # the ToolNode runs parallel calls in threads
            run.ran.append((name, arguments))
        return "ok"

    schema = {"type": "object", "properties": {}}
    return StructuredTool.from_function(call, name=name, description=name, args_schema=schema)


def run_agent(
    server: ReplayServer, name: str, modes: tuple[str, ...] = ("updates", "messages")
) -> AgentRun:
    from langchain_openai import ChatOpenAI

    scenario = OPENAI[name]
    run, lock = AgentRun(), threading.Lock()
    model = ChatOpenAI(
        model=scenario.name,
        api_key=testing.DOCTOR_API_KEY,
        base_url=server.openai_base_url,
        max_retries=0,
    )
    agent = agents.create_agent(
        model, tools=[_tool(n, run, lock) for n in testing.tool_names(scenario)]
    )
    before = len(server.requests)
    try:
        for mode, event in agent.stream(
            {"messages": [{"role": "user", "content": QUESTION}]}, stream_mode=list(modes)
        ):
            if mode != "updates":
                continue
            for node, update in event.items():
                run.updates.append(node)
                for message in (update or {}).get("messages", ()):
                    if node != "model":
                        continue
                    if run.first is None:
                        run.first = message
                    run.final = message.content if isinstance(message.content, str) else ""
    except Exception as error:
        run.error = error
    run.requests = server.requests[before:]
    return run


def _got(scenario: testing.Scenario, run: AgentRun) -> Got:
    """What the first model step gave (or the error the agent raised before it)."""
    if run.first is None:
        error = run.error or RuntimeError("no model step")
        return Got(error=error, outcome=testing.raised(scenario, error))
    message = run.first
    calls = [(c["name"], c["args"], c["id"]) for c in message.tool_calls]
    calls += [(c.get("name") or "", c.get("args"), c.get("id")) for c in message.invalid_tool_calls]
    got = Got(calls, message.content if isinstance(message.content, str) else "", run.error)
    outcome_calls = tuple((name, arguments) for name, arguments, _ in calls)
    got.outcome = (
        testing.Outcome(outcome_calls, got.text)
        if run.error is None
        else testing.raised(scenario, run.error)
    )
    return got


def _step(server: ReplayServer, name: str) -> tuple[Got, AgentRun]:
    run = run_agent(server, name)
    return _got(OPENAI[name], run), run


def _by_name(calls: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return sorted(calls, key=repr)


@pytest.mark.parametrize("name", NAMES)
def test_patched_right(streamfix_server: ReplayServer, patched: None, name: str) -> None:
    """The first step's calls right; each runs once with its own arguments, the agent
    ends on the follow-up text."""
    scenario = OPENAI[name]
    got, run = _step(streamfix_server, name)
    assert_right(scenario, got)
    if got.error is None and scenario.calls:
        assert run.error is None, run.error
        assert _by_name(run.ran) == _by_name(got.named)
        assert run.final == scenario.follow_up
        assert run.updates == ["model", *["tools"] * len(scenario.calls), "model"]
    if got.error is not None:
        assert run.ran == []  # no tool ran on a stream the wire refused


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(STOCK_LOSSES))
def test_stock_loses(streamfix_server: ReplayServer, name: str) -> None:
    got, _ = _step(streamfix_server, name)
    assert_lost(OPENAI[name], got)


@pytest.mark.stock_failure
def test_stock_agent_runs_the_cut_call(streamfix_server: ReplayServer) -> None:
    """E4: the stock agent runs get_time with the cut arguments, silently, and answers."""
    _, run = _step(streamfix_server, "e4-truncated")
    assert run.error is None
    assert ("get_time", {"zone": "Eur"}) in run.ran
    assert run.final == OPENAI["e4-truncated"].follow_up


@pytest.mark.stock_failure
def test_stock_glued_call_crashes_the_tool_node(streamfix_server: ReplayServer) -> None:
    """B3: one call named ``get_weatherget_time`` without an id: the ToolNode's
    ``ToolMessage`` refuses the missing id; no tool runs."""
    got, run = _step(streamfix_server, "b3-same-index")
    assert got.named == [("get_weatherget_time", {"city": "Paris"})]
    assert run.ran == [] and run.error is not None
    known = "1 validation error for ToolMessage\ntool_call_id\n"
    report_stock_loss("langchain agent b3-same-index", str(run.error), known)


def test_patched_cut_call_runs_nothing(streamfix_server: ReplayServer, patched: None) -> None:
    """E4 patched: the wire's error ends the step before any tool runs."""
    _, run = _step(streamfix_server, "e4-truncated")
    assert isinstance(wire_error(run.error), streamfix.TruncatedToolCallError)
    assert run.ran == [] and run.first is None


@pytest.mark.parametrize("name", STOCK_RIGHT)
def test_where_stock_is_right_patched_is_the_same(
    streamfix_server: ReplayServer, name: str
) -> None:
    """The same calls, ids and text, the same tools run, the same final text and the same
    node updates in the same order; where the wire passes every chunk on as it came
    (R1), the same requests too."""
    stock_got, stock = _step(streamfix_server, name)
    streamfix_openai.install()
    patched_got, patched = _step(streamfix_server, name)
    assert_same(OPENAI[name], stock_got, patched_got)
    assert _by_name(patched.ran) == _by_name(stock.ran)
    assert (patched.final, patched.updates) == (stock.final, stock.updates)
    if name in PASSED_THROUGH:
        assert patched.requests == stock.requests


def test_updates_alone_do_not_stream(streamfix_server: ReplayServer, patched: None) -> None:
    """``stream_mode="updates"`` alone: the model node invokes ChatOpenAI without
    streaming (the non-streamed completion, nothing for the wire to repair), stock and
    patched alike: B6's calls, lost when streamed stock, run right."""
    run = run_agent(streamfix_server, "b6-no-index", modes=("updates",))
    assert run.error is None, run.error
    assert [request.get("stream", False) for request in run.requests] == [False, False]
    assert _by_name(run.ran) == _by_name(
        [(c["name"], c["arguments"]) for c in OPENAI["b6-no-index"].calls]
    )
