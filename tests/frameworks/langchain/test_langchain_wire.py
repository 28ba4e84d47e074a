"""langchain-openai's ``ChatOpenAI(...).bind_tools(...).stream()`` over real HTTP (the
replay server), the chunks summed as a user sums them: ``.tool_calls`` (then
``.invalid_tool_calls``), their ids, ``.content``; stock and on the repaired wire.

ChatOpenAI reads the SDK's ``chat.completions.create(stream=True)`` chunk by chunk and
keys ``tool_call_chunks`` by ``index``; langchain-core's sum concatenates what shares an
index (names included) and parses the arguments leniently (``parse_partial_json``).
"""

from __future__ import annotations

from typing import Any

import openai
import pytest
from conftest import (
    NAMES,
    OPENAI,
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
from streamfix.testing import ReplayServer
from streamfix_openai import _doctor_langchain as driver

langchain_openai = pytest.importorskip("langchain_openai")

#: What stock langchain-openai loses on the corpus (the doctor's ``langchain`` column).
STOCK_LOSSES = {
    "b3-same-index": "two calls at one index: one call, the names glued",
    "b6-no-index": "calls without an index: no argument reaches its call",
    "c1-repeated-names": "the name repeated on every fragment, glued",
    "h1-legacy-function-call": "a legacy function_call: no tool call",
    "i1-double-encoded": "arguments a JSON string: an invalid tool call",
    "i3-restarted": "restarted arguments parsed leniently into a wrong call",
    "e4-truncated": "cut arguments parsed leniently into a call: {'zone': 'Eur'}",
    "f2-late-signature": "a signature-only entry (no function): AttributeError",
}
STOCK_RIGHT = [name for name in NAMES if name not in STOCK_LOSSES]


def _got(message: Any) -> Got:
    calls = [(c["name"], c["args"], c["id"]) for c in message.tool_calls]
    calls += [(c.get("name") or "", c.get("args"), c.get("id")) for c in message.invalid_tool_calls]
    return Got(calls, message.content)


def _stream(server: ReplayServer, name: str) -> Got:
    scenario = OPENAI[name]
    model = driver.chat_model(scenario, base_url=server.openai_base_url)
    return capture(scenario, lambda: driver.summed(model), _got, driver.read)


@pytest.mark.parametrize("name", NAMES)
def test_patched_right(streamfix_server: ReplayServer, patched: None, name: str) -> None:
    assert_right(OPENAI[name], _stream(streamfix_server, name))


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(STOCK_LOSSES))
def test_stock_loses(streamfix_server: ReplayServer, name: str) -> None:
    assert_lost(OPENAI[name], _stream(streamfix_server, name))


@pytest.mark.parametrize("name", STOCK_RIGHT)
def test_where_stock_is_right_patched_is_the_same(
    streamfix_server: ReplayServer, name: str
) -> None:
    stock = _stream(streamfix_server, name)
    streamfix_openai.install()
    assert_same(OPENAI[name], stock, _stream(streamfix_server, name))


@pytest.mark.stock_failure
def test_stock_parses_cut_arguments_into_a_call(streamfix_server: ReplayServer) -> None:
    """E4: langchain-core's lenient parse hands the cut call on as complete."""
    got = _stream(streamfix_server, "e4-truncated")
    assert got.error is None
    assert got.calls[1] == ("get_time", {"zone": "Eur"}, "call_b")


def test_patched_cut_call_raises_an_api_error(
    streamfix_server: ReplayServer, patched: None
) -> None:
    """E4 patched: ChatOpenAI's own ``except openai.APIError`` lets the wire's error
    through, with the complete call on it."""
    got = _stream(streamfix_server, "e4-truncated")
    assert isinstance(got.error, openai.APIError)
    error = wire_error(got.error)
    assert isinstance(error, streamfix.TruncatedToolCallError)
    assert [c.name for c in error.message.tool_calls] == ["get_weather"]


def test_patched_astream(streamfix_server: ReplayServer, patched: None) -> None:
    """``astream`` (the async client) reads the repaired wire too."""
    scenario = OPENAI["b3-same-index"]
    model = driver.chat_model(scenario, base_url=streamfix_server.openai_base_url)

    async def summed() -> Any:
        total = None
        async for chunk in model.astream("weather?"):
            total = chunk if total is None else total + chunk
        return total

    got = capture(scenario, summed, _got, driver.read)
    assert_right(scenario, got)


def test_doctor_column() -> None:
    """``streamfix doctor``'s ``langchain`` column: the wire's patch, 0 failing patched
    cells, and stock losing exactly :data:`STOCK_LOSSES`."""
    assert_doctor_column("langchain", "openai", STOCK_LOSSES)
