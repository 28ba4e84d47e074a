"""llama-index's ``OpenAI`` LLM (``llama_index.llms.openai``) over real HTTP (the replay
server): ``stream_chat(messages, tools=...)`` read to its last ``ChatResponse``, then
``get_tool_calls_from_response`` (the calls an agent runs: name, arguments, id) and the
text; stock, on the repaired wire alone, and with the wire and the ``llama_index`` shim.

llama-index accumulates tool-call deltas with ``update_tool_calls``, which reads only a
chunk's first entry and compares its ``index`` with the last call's only: on OpenAI's own
form it still turns interleaved calls (B1) and a late entry for an earlier call (the
wire's late signature, F2) into extra nameless calls. So the wire is not enough here; the
shim's ``update_tool_calls`` merges each entry into the call of its index.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from conftest import NAMES, OPENAI, Got, assert_lost, assert_right, assert_same, capture
from support import assert_doctor_column, shim_fixture

import streamfix
import streamfix_llama_index
import streamfix_openai
from streamfix.testing import ReplayServer
from streamfix_llama_index import _doctor as driver

llama_openai = pytest.importorskip("llama_index.llms.openai")
utils = pytest.importorskip("llama_index.llms.openai.utils")

_stock_both = shim_fixture("openai", "llama_index", autouse=True, name="_stock_both")
both = shim_fixture("openai", "llama_index", install=True, name="both")

#: What stock llama-index loses on the corpus (the doctor's ``llama_index`` column).
STOCK_LOSSES = {
    "a1-one-chunk": "two calls in one chunk: only the chunk's first entry read",
    "a1-signature": "two calls in one chunk: only the chunk's first entry read",
    "b1-interleaved": "fragments of two calls interleaved: four extra nameless calls",
    "b2-same-index": "two calls at one index: one call, names and ids glued",
    "b3-same-index": "two calls at one index: one call, names glued",
    "b6-no-index": "calls without an index: one call, names glued",
    "c1-repeated-names": "the name repeated on every fragment, glued",
    "h1-legacy-function-call": "a legacy function_call: no tool call",
    "i1-double-encoded": "arguments a JSON string: {}",
    "i3-restarted": "restarted arguments glued: {}",
    "e4-truncated": "the cut arguments parsed leniently into a call: {'zone': None}",
}
#: What llama-index still loses on the repaired wire alone (OpenAI's own form).
WIRE_ALONE_LOSSES = {
    "b1-interleaved": "interleaved calls: extra nameless calls",
    "f2-late-signature": "a late entry for call 0 after call 1 began: an extra nameless call",
}
STOCK_RIGHT = [name for name in NAMES if name not in STOCK_LOSSES]


def _got(result: Any) -> Got:
    last, selections = result
    calls = [(s.tool_name, s.tool_kwargs, s.tool_id) for s in selections]
    return Got(calls, last.message.content or "")


def _chat(server: ReplayServer, name: str) -> Got:
    scenario = OPENAI[name]
    model = driver.llm(scenario, api_base=server.openai_base_url)
    return capture(scenario, lambda: driver.stream_chat(model, scenario), _got, driver.read)


@pytest.mark.parametrize("name", NAMES)
def test_patched_right(streamfix_server: ReplayServer, both: None, name: str) -> None:
    assert_right(OPENAI[name], _chat(streamfix_server, name))


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(STOCK_LOSSES))
def test_stock_loses(streamfix_server: ReplayServer, name: str) -> None:
    assert_lost(OPENAI[name], _chat(streamfix_server, name))


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(WIRE_ALONE_LOSSES))
def test_the_wire_alone_is_not_enough(streamfix_server: ReplayServer, name: str) -> None:
    """On the repaired wire (OpenAI's own form) without the shim, llama-index still
    loses these; with the shim (:func:`test_patched_right`) it does not."""
    streamfix_openai.install()
    got = _chat(streamfix_server, name)
    assert got.error is None
    assert "" in [call_name for call_name, _, _ in got.calls]  # a nameless extra call
    assert_lost(OPENAI[name], got)


@pytest.mark.parametrize("name", STOCK_RIGHT)
def test_where_stock_is_right_patched_is_the_same(
    streamfix_server: ReplayServer, name: str
) -> None:
    stock = _chat(streamfix_server, name)
    streamfix_openai.install()
    streamfix_llama_index.install()
    assert_same(OPENAI[name], stock, _chat(streamfix_server, name))


def _entries(name: str) -> list[Any]:
    """The scenario's repaired stream as the SDK's delta tool-call lists."""
    from openai.types.chat import ChatCompletionChunk

    chunks = [ChatCompletionChunk.construct(**copy.deepcopy(c)) for c in OPENAI[name].chunks]
    return [
        ChatCompletionChunk.model_validate(c.model_dump()).choices[0].delta.tool_calls
        for c in streamfix.repair(chunks)
        if c.choices
    ]


@pytest.mark.parametrize("name", ["b1-three-commands", "d3-escapes-split", "g1-placeholders"])
def test_fixed_update_tool_calls_is_stocks_where_stock_is_right(name: str) -> None:
    """Each call's fragments one after another: the same list as llama-index's own."""
    stock_calls: list[Any] = []
    fixed_calls: list[Any] = []
    stock_entries, fixed_entries = _entries(name), _entries(name)
    for stock_delta, fixed_delta in zip(stock_entries, fixed_entries, strict=True):
        stock_calls = utils.update_tool_calls(stock_calls, stock_delta)
        fixed_calls = streamfix_llama_index.update_tool_calls(fixed_calls, fixed_delta)
    assert [c.model_dump() for c in fixed_calls] == [c.model_dump() for c in stock_calls]


def test_install_replaces_every_binding_and_uninstall_restores_it() -> None:
    base = pytest.importorskip("llama_index.llms.openai.base")
    original = utils.update_tool_calls
    assert base.update_tool_calls is original
    streamfix_llama_index.install()
    assert utils.update_tool_calls is streamfix_llama_index.update_tool_calls
    assert base.update_tool_calls is streamfix_llama_index.update_tool_calls
    streamfix_llama_index.uninstall()
    assert utils.update_tool_calls is original and base.update_tool_calls is original


def test_doctor_column() -> None:
    """``streamfix doctor``'s ``llama_index`` column: 0 failing patched cells (the wire
    and the shim), stock losing exactly :data:`STOCK_LOSSES`."""
    assert_doctor_column("llama_index", "llama_index", STOCK_LOSSES)
