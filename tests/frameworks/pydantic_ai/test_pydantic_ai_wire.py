"""pydantic-ai's ``OpenAIChatModel`` in an ``Agent`` over real HTTP (the replay server):
``Agent.iter``'s first model request streamed (``node.stream``), its ``ModelResponse``
parts (``ToolCallPart``: name, arguments, ``tool_call_id``; ``TextPart``) and the events it
streamed; ``Agent.run_stream`` with tools to the end; stock and on the repaired wire.

``OpenAIStreamedResponse`` hands each tool-call delta to the parts manager keyed by its
``index`` (``vendor_part_id``): what shares an index is one part, names and arguments
concatenated.
"""

from __future__ import annotations

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
    capture,
    wire_error,
)
from support import assert_doctor_column

import streamfix
import streamfix_openai
from streamfix import testing
from streamfix.testing import ReplayServer
from streamfix_openai import _doctor_pydantic_ai as driver

pydantic_ai = pytest.importorskip("pydantic_ai")

#: What stock pydantic-ai loses on the corpus (the doctor's ``pydantic-ai`` column).
STOCK_LOSSES = {
    "b2-same-index": "two calls at one index (ids differ): one part, names and arguments glued",
    "b3-same-index": "two calls at one index: one part, names and arguments glued",
    "c1-repeated-names": "the name repeated on every fragment, glued",
    "h1-legacy-function-call": "a legacy function_call: no tool call",
    "i1-double-encoded": "arguments a JSON string, not the object",
    "i3-restarted": "restarted arguments glued: invalid JSON",
    "e4-truncated": "the cut arguments handed on as a call",
}
STOCK_RIGHT = [name for name in NAMES if name not in STOCK_LOSSES]


def _got(result: Any) -> Got:
    response, _ = result
    calls = [
        (part.tool_name, testing.parse_arguments(part.args), part.tool_call_id)
        for part in response.parts
        if part.part_kind == "tool-call"
    ]
    text = "".join(part.content for part in response.parts if part.part_kind == "text")
    return Got(calls, text)


def _first(server: ReplayServer, name: str) -> tuple[Got, Any]:
    scenario = OPENAI[name]
    agent = driver.agent(scenario, base_url=server.openai_base_url)
    results: list[Any] = []

    async def first() -> Any:
        results.append(await driver.first_response(agent))
        return results[-1]

    got = capture(scenario, first, _got, driver.read)
    return got, (results[0] if results else None)


@pytest.mark.parametrize("name", NAMES)
def test_patched_right(streamfix_server: ReplayServer, patched: None, name: str) -> None:
    got, _ = _first(streamfix_server, name)
    assert_right(OPENAI[name], got)


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(STOCK_LOSSES))
def test_stock_loses(streamfix_server: ReplayServer, name: str) -> None:
    got, _ = _first(streamfix_server, name)
    assert_lost(OPENAI[name], got)


def _events(result: Any) -> list[str]:
    """The streamed events as text. A late signature (F2) comes on an entry with empty
    arguments on the repaired wire (``function: {"arguments": ""}``: langchain-core reads
    ``function`` on every entry), so its delta's ``args_delta=''`` reads as none."""
    _, events = result
    return [repr(event).replace("args_delta='', ", "") for event in events]


@pytest.mark.parametrize("name", STOCK_RIGHT)
def test_where_stock_is_right_patched_is_the_same(
    streamfix_server: ReplayServer, name: str
) -> None:
    """The same calls, ids and text; and where the wire passes every chunk on as it came
    (R1), the same events in the same order."""
    stock, stock_result = _first(streamfix_server, name)
    streamfix_openai.install()
    patched, patched_result = _first(streamfix_server, name)
    assert_same(OPENAI[name], stock, patched)
    if name in PASSED_THROUGH:
        assert _events(patched_result) == _events(stock_result)


@pytest.mark.parametrize("name", ["f1-signature", "a1-signature", "f2-late-signature"])
def test_signatures_kept_on_their_calls(
    streamfix_server: ReplayServer, patched: None, name: str
) -> None:
    """The thought signature on its own part (``provider_details["extra_content"]``),
    where pydantic-ai sends it back from."""
    (response, _) = _first(streamfix_server, name)[1]
    signatures = [
        ((part.provider_details or {}).get("extra_content") or {}).get("google", {})
        for part in response.parts
        if part.part_kind == "tool-call"
    ]
    got = tuple(s.get("thought_signature") for s in signatures)
    assert got == OPENAI[name].signatures


def test_patched_cut_call_surfaces_as_model_api_error(
    streamfix_server: ReplayServer, patched: None
) -> None:
    """E4 patched: pydantic-ai maps the wire's ``openai.APIError`` to its own
    ``ModelAPIError``, the wire's error as its cause."""
    got, _ = _first(streamfix_server, "e4-truncated")
    assert isinstance(got.error, pydantic_ai.exceptions.ModelAPIError)
    assert isinstance(wire_error(got.error), streamfix.TruncatedToolCallError)


def test_patched_cut_call_error_prints(streamfix_server: ReplayServer, patched: None) -> None:
    """What a user's ``logger.exception`` / ``print`` does with the error pydantic-ai
    raises on a cut call: it prints (the wire's ``APIError.message`` is text; the
    assembly is ``assembled``)."""
    got, _ = _first(streamfix_server, "e4-truncated")
    assert "truncated" in str(got.error)


def test_run_stream_runs_the_repaired_calls(streamfix_server: ReplayServer, patched: None) -> None:
    """``Agent.run_stream`` to the end: each tool runs once with its own arguments, the
    follow-up text is the output."""
    ran: list[tuple[str, dict[str, Any]]] = []

    def tool(name: str) -> Any:
        def call(**arguments: Any) -> str:
            ran.append((name, arguments))
            return "ok"

        return pydantic_ai.Tool.from_schema(call, name, name, {"type": "object"})

    scenario = OPENAI["b2-same-index"]
    agent = driver.agent(scenario, base_url=streamfix_server.openai_base_url)
    agent = pydantic_ai.Agent(agent.model, tools=[tool("get_weather"), tool("get_time")])

    async def go() -> str:
        async with agent.run_stream("weather?") as result:
            return await result.get_output()

    assert capture(scenario, go, lambda out: Got(text=out), lambda _: testing.Outcome()).text == (
        scenario.follow_up
    )
    # pydantic-ai runs a response's calls concurrently: the order they ran in is not fixed
    assert sorted(ran, key=repr) == sorted(
        [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "Europe/Paris"})], key=repr
    )


def test_doctor_column() -> None:
    """``streamfix doctor``'s ``pydantic-ai`` column: the wire's patch, 0 failing patched
    cells, and stock losing exactly :data:`STOCK_LOSSES`."""
    assert_doctor_column("pydantic-ai", "openai", STOCK_LOSSES)
