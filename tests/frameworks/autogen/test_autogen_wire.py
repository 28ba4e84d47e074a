"""autogen-ext's ``OpenAIChatCompletionClient.create_stream`` over real HTTP (the replay
server): the ``str`` chunks it yields, then the ``CreateResult`` (its ``content``: the
``FunctionCall`` s with name, arguments, id, or the text; its ``thought``: the text beside
calls); stock, on the repaired wire alone, and with the wire and the ``autogen`` shim.

``create_stream`` accumulates tool-call deltas by ``index``, concatenating names and ids
(``id +=``), and never parses the arguments (a ``FunctionCall`` carries the text). It
reads a chunk's first choice and, when its delta has ``content``, yields the text and
skips the rest of the delta: a tool-call entry beside text is dropped. Text and a call in
one delta are legal in OpenAI's own form, and the repaired wire keeps a chunk's other
fields on its first entry (R5), so the wire alone still loses them: the shim hands such a
chunk to autogen as two (the text, then the calls).

The sdist (autogen_ext-0.7.5) ships its tests; the streaming ones of
``tests/models/test_openai_model_client.py`` mock ``AsyncCompletions.create`` with chunk
objects. The behaviours they pin for a streamed tool call (text chunks then a call:
each text yielded, the call in ``content``, ``finish_reason`` ``function_calls``, the text
as ``thought``; reasoning as ``<think>`` chunks) are pinned here over real HTTP, stock,
wire and shim alike.
"""

from __future__ import annotations

from collections.abc import Iterator
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
)
from support import assert_doctor_column, shim_fixture

import streamfix
import streamfix_autogen
import streamfix_openai
from streamfix import testing
from streamfix.testing import ReplayServer, Scenario
from streamfix_autogen import _doctor as driver

autogen_openai = pytest.importorskip("autogen_ext.models.openai")
autogen_models = pytest.importorskip("autogen_core.models")

_stock_both = shim_fixture("openai", "autogen", autouse=True, name="_stock_both")
both = shim_fixture("openai", "autogen", install=True, name="both")
shim_alone = shim_fixture("autogen", install=True, name="shim_alone")

#: What stock autogen loses on the corpus (the doctor's ``autogen`` column).
STOCK_LOSSES = {
    "b2-same-index": "two calls at one index: one call, names, ids and arguments glued",
    "b3-same-index": "two calls at one index, no ids: one call, names glued, id ''",
    "b6-no-index": "calls without an index: one call, names, ids and arguments glued",
    "c1-repeated-names": "the name and id repeated on every fragment, glued",
    "h1-legacy-function-call": "a legacy function_call: ValueError, no call",
    "i1-double-encoded": "arguments a JSON string, not the object",
    "i3-restarted": "restarted arguments glued: invalid JSON handed to the tool",
    "e4-truncated": "the cut arguments handed on as a call",
}
STOCK_RIGHT = [name for name in NAMES if name not in STOCK_LOSSES]


def _got(items: list[Any]) -> Got:
    result = items[-1]
    if isinstance(result.content, str):
        return Got([], result.content)
    calls = [(c.name, testing.parse_arguments(c.arguments), c.id) for c in result.content]
    return Got(calls, result.thought or "")


def _run(server: ReplayServer, scenario: Scenario) -> tuple[Got, list[Any]]:
    """One ``create_stream`` of the scenario: what its user got, and every item yielded."""
    items: list[Any] = []

    async def go() -> list[Any]:
        model = driver.client(scenario, base_url=server.openai_base_url)
        items.extend(await driver.create_stream(model, scenario))
        return items

    return capture(scenario, go, _got, driver.read), items


def _stream(server: ReplayServer, name: str) -> Got:
    return _run(server, OPENAI[name])[0]


@pytest.mark.parametrize("name", NAMES)
def test_patched_right(streamfix_server: ReplayServer, both: None, name: str) -> None:
    assert_right(OPENAI[name], _stream(streamfix_server, name))


@pytest.mark.parametrize("name", NAMES)
def test_the_wire_alone_is_right_on_the_corpus(
    streamfix_server: ReplayServer, patched: None, name: str
) -> None:
    """No corpus scenario has text beside calls: the wire alone gets each right."""
    assert_right(OPENAI[name], _stream(streamfix_server, name))


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(STOCK_LOSSES))
def test_stock_loses(streamfix_server: ReplayServer, name: str) -> None:
    assert_lost(OPENAI[name], _stream(streamfix_server, name))


def _events(items: list[Any]) -> list[Any]:
    """What ``create_stream`` yielded, in order: the ``str`` chunks, then the result's
    content and thought (``finish_reason`` apart: R8 turns ``stop`` with calls into
    ``tool_calls``, which autogen reports as ``function_calls``)."""
    *texts, result = items
    return [*texts, result.content, result.thought]


@pytest.mark.parametrize("name", STOCK_RIGHT)
def test_where_stock_is_right_patched_is_the_same(
    streamfix_server: ReplayServer, name: str
) -> None:
    """The same calls, ids and text; the same ``str`` chunks in the same order, and where
    the wire passes every chunk on as it came (R1), the same ``CreateResult``."""
    scenario = OPENAI[name]
    stock, stock_items = _run(streamfix_server, scenario)
    streamfix_openai.install()
    streamfix_autogen.install()
    patched, patched_items = _run(streamfix_server, scenario)
    assert_same(scenario, stock, patched)
    if stock.error is None:
        assert [i for i in patched_items if isinstance(i, str)] == [
            i for i in stock_items if isinstance(i, str)
        ]
    if name in PASSED_THROUGH:
        assert _events(patched_items) == _events(stock_items)
        assert patched_items[-1].finish_reason == stock_items[-1].finish_reason


@pytest.mark.stock_failure
def test_stock_glues_ids_repeated_on_every_fragment(streamfix_server: ReplayServer) -> None:
    """C1: autogen concatenates the id too (``id +=``): the next turn's tool result
    answers an id the provider never sent."""
    got = _stream(streamfix_server, "c1-repeated-names")
    assert got.calls == [("read_fileread_fileread_file", {"path": "/etc/hosts"}, "call_a" * 3)]


def test_patched_cut_call_raises_an_api_error(streamfix_server: ReplayServer, both: None) -> None:
    """E4 patched: ``create_stream`` lets the wire's ``openai.APIError`` through (no cut
    call handed to a tool), the complete call on the core's error."""
    import openai

    got = _stream(streamfix_server, "e4-truncated")
    assert isinstance(got.error, openai.APIError)
    assert isinstance(got.error.__cause__, streamfix.TruncatedToolCallError)
    assert [c.name for c in got.error.__cause__.message.tool_calls] == ["get_weather"]


# --- text beside calls: OpenAI's own form, not in the corpus --------------------------------


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-autogen",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "streamfix",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _entry(index: int, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    function = {"name": name, "arguments": arguments}
    return {"index": index, "id": call_id, "type": "function", "function": function}


WEATHER = {"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}}
TIME = {"id": "call_b", "name": "get_time", "arguments": {"zone": "Europe/Paris"}}

#: Text, then a call whose header (with its first argument bytes, D4) comes in the same
#: delta as more text (F4). OpenAI's own form: the wire passes every chunk on (R1).
TEXT_BESIDE_A_CALL = Scenario(
    name="autogen-text-beside-a-call",
    shape="F4",
    description="text, then more text and a call's header with its first bytes in one delta",
    dialect="openai",
    chunks=(
        _chunk({"role": "assistant", "content": "Let me check"}),
        _chunk(
            {
                "content": " the weather.",
                "tool_calls": [_entry(0, "call_a", "get_weather", '{"city"')],
            }
        ),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": ': "Paris"}'}}]}),
        _chunk({}, "tool_calls"),
    ),
    calls=(WEATHER,),
    text="Let me check the weather.",
)
#: The same with a header that has no argument byte yet: with the tools declared (as
#: autogen declares them) the name is known whole, so the wire passes it on too (R1).
TEXT_BESIDE_A_BARE_HEADER = Scenario(
    name="autogen-text-beside-a-bare-header",
    shape="F4",
    description="text and a call's header without arguments in one delta",
    dialect="openai",
    chunks=(
        _chunk({"role": "assistant", "content": "Let me check."}),
        _chunk({"content": " One moment.", "tool_calls": [_entry(0, "call_a", "get_weather", "")]}),
        _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Paris"}'}}]}),
        _chunk({}, "tool_calls"),
    ),
    calls=(WEATHER,),
    text="Let me check. One moment.",
)
#: One delta with text, a complete call and the finish (A2 with one call): OpenAI's own
#: form, passed on as it came (R1).
TEXT_AND_A_CALL_IN_ONE_CHUNK = Scenario(
    name="autogen-text-and-a-call-in-one-chunk",
    shape="A2",
    description="one delta: text, a complete call, finish_reason",
    dialect="openai",
    chunks=(
        _chunk(
            {
                "role": "assistant",
                "content": "Checking.",
                "tool_calls": [_entry(0, "call_a", "get_weather", '{"city": "Paris"}')],
            },
            "tool_calls",
        ),
    ),
    calls=(WEATHER,),
    text="Checking.",
)
#: One delta with text, two complete calls and the finish (A2, as Mistral and Groq send
#: it): the wire hands on one entry per chunk, the text on the first (R5).
TEXT_AND_CALLS_IN_ONE_CHUNK = Scenario(
    name="autogen-text-and-calls-in-one-chunk",
    shape="A2",
    description="one delta: text, two complete calls, finish_reason",
    dialect="openai",
    chunks=(
        _chunk(
            {
                "role": "assistant",
                "content": "Checking both.",
                "tool_calls": [
                    _entry(0, "call_a", "get_weather", '{"city": "Paris"}'),
                    _entry(1, "call_b", "get_time", '{"zone": "Europe/Paris"}'),
                ],
            },
            "tool_calls",
        ),
    ),
    calls=(WEATHER, TIME),
    text="Checking both.",
)
#: Structured output (``json_output``): the JSON text and a call in one delta.
STRUCTURED = Scenario(
    name="autogen-structured-text-and-a-call",
    shape="A2",
    description="one delta: JSON text, a complete call, finish_reason",
    dialect="openai",
    chunks=(
        _chunk(
            {
                "role": "assistant",
                "content": '{"answer": "Paris"}',
                "tool_calls": [_entry(0, "call_a", "get_weather", '{"city": "Paris"}')],
            },
            "tool_calls",
        ),
    ),
    calls=(WEATHER,),
    text='{"answer": "Paris"}',
)
BESIDE = {
    s.name: s
    for s in (
        TEXT_BESIDE_A_CALL,
        TEXT_BESIDE_A_BARE_HEADER,
        TEXT_AND_A_CALL_IN_ONE_CHUNK,
        TEXT_AND_CALLS_IN_ONE_CHUNK,
    )
}

#: The sdist's ``test_tool_calling_with_stream``: three text chunks, then one chunk with a
#: whole call and the finish.
UPSTREAM_TOOL_CALL = Scenario(
    name="autogen-upstream-tool-calling-with-stream",
    shape="A1",
    description="autogen's own test: text chunks, then a whole call",
    dialect="openai",
    chunks=(
        *(
            _chunk({"role": "assistant", "content": text})
            for text in ("Hello", " Another Hello", " Yet Another Hello")
        ),
        _chunk(
            {
                "role": "assistant",
                "tool_calls": [_entry(0, "1", "_pass_function", '{"input": "task"}')],
            },
            "tool_calls",
        ),
    ),
    calls=({"id": "1", "name": "_pass_function", "arguments": {"input": "task"}},),
    text="Hello Another Hello Yet Another Hello",
)
#: The sdist's ``test_r1_reasoning_content_streaming``: reasoning, then the answer.
UPSTREAM_REASONING = Scenario(
    name="autogen-upstream-reasoning",
    shape="text",
    description="autogen's own test: reasoning_content, then content",
    dialect="openai",
    chunks=(
        _chunk({"role": "assistant", "reasoning_content": "This is the reasoning content 1"}),
        _chunk({"reasoning_content": "This is the reasoning content 2"}),
        _chunk({"content": "This is the main content"}, "stop"),
    ),
    text="This is the main content",
)
UPSTREAM = {s.name: s for s in (UPSTREAM_TOOL_CALL, UPSTREAM_REASONING)}


@pytest.fixture(scope="module")
def beside_server() -> Iterator[ReplayServer]:
    """A replay server for the scenarios of this module (real HTTP on 127.0.0.1)."""
    with ReplayServer(
        "127.0.0.1", 0, scenarios={**BESIDE, **UPSTREAM, STRUCTURED.name: STRUCTURED}
    ) as server:
        yield server


def test_how_the_wire_hands_these_streams_on() -> None:
    """OpenAI's own form passes on as it came (R1), the tools declared as autogen
    declares them: a header beside text (with or without argument bytes), text and one
    whole call in one delta. Two calls in one delta become one entry per chunk, the text
    on the first (R5)."""
    for scenario in (TEXT_BESIDE_A_CALL, TEXT_BESIDE_A_BARE_HEADER, TEXT_AND_A_CALL_IN_ONE_CHUNK):
        chunks = [dict(c) for c in scenario.chunks]
        tools = [{"type": "function", "function": t} for t in driver.tools(scenario)]
        out = streamfix.repair(chunks, tools=tools)
        assert all(a is b for a, b in zip(out, chunks, strict=True))
    out = list(streamfix.repair([dict(c) for c in TEXT_AND_CALLS_IN_ONE_CHUNK.chunks]))
    first = out[0]["choices"][0]["delta"]
    assert first["content"] == "Checking both." and len(first["tool_calls"]) == 1


#: What stock autogen hands on for each: the header's delta has text, so its id, name
#: and first argument bytes are skipped; a chunk with text and whole calls loses them all
#: (silently: a text answer).
STOCK_BESIDE = {
    TEXT_BESIDE_A_CALL.name: [("", ': "Paris"}', "")],
    TEXT_BESIDE_A_BARE_HEADER.name: [("", {"city": "Paris"}, "")],
    TEXT_AND_A_CALL_IN_ONE_CHUNK.name: [],
    TEXT_AND_CALLS_IN_ONE_CHUNK.name: [],
}
#: What autogen hands on from the repaired wire alone: where the wire passes the chunk on
#: (R1), stock's loss; A2's first call lost, its second kept (a silent half).
WIRE_ALONE_BESIDE = {
    TEXT_BESIDE_A_CALL.name: [("", ': "Paris"}', "")],
    TEXT_BESIDE_A_BARE_HEADER.name: [("", {"city": "Paris"}, "")],
    TEXT_AND_A_CALL_IN_ONE_CHUNK.name: [],
    TEXT_AND_CALLS_IN_ONE_CHUNK.name: [("get_time", {"zone": "Europe/Paris"}, "call_b")],
}


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(BESIDE))
def test_stock_drops_calls_beside_text(beside_server: ReplayServer, name: str) -> None:
    got, _ = _run(beside_server, BESIDE[name])
    assert got.error is None
    assert got.calls == STOCK_BESIDE[name]
    assert got.text == BESIDE[name].text
    assert_lost(BESIDE[name], got)


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(WIRE_ALONE_BESIDE))
def test_the_wire_alone_still_drops_calls_beside_text(
    beside_server: ReplayServer, patched: None, name: str
) -> None:
    got, _ = _run(beside_server, BESIDE[name])
    assert got.error is None and got.calls == WIRE_ALONE_BESIDE[name]
    assert_lost(BESIDE[name], got)


@pytest.mark.parametrize("name", sorted(BESIDE))
def test_patched_keeps_calls_beside_text(
    beside_server: ReplayServer, both: None, name: str
) -> None:
    """The wire and the shim: every call with its id, the text as the ``thought``, the
    text yielded once, before the result."""
    scenario = BESIDE[name]
    got, items = _run(beside_server, scenario)
    assert_right(scenario, got)
    assert "".join(i for i in items if isinstance(i, str)) == scenario.text
    assert items[-1].finish_reason == "function_calls"


@pytest.mark.parametrize("name", sorted(BESIDE))
def test_the_shim_alone_keeps_calls_beside_text(
    beside_server: ReplayServer, shim_alone: None, name: str
) -> None:
    """The shim needs no wire for this: on the provider's own stream too."""
    assert_right(BESIDE[name], _run(beside_server, BESIDE[name])[0])


def test_the_shim_keeps_calls_beside_text_in_structured_output(
    beside_server: ReplayServer, both: None
) -> None:
    """``json_output=Model`` streams through the SDK's ``beta...stream()`` helper
    (``_create_stream_chunks_beta_client``): its chunks are split too."""
    import pydantic

    class Answer(pydantic.BaseModel):
        answer: str

    scenario = STRUCTURED
    info = {**driver.MODEL_INFO, "json_output": True, "structured_output": True}
    messages = [autogen_models.UserMessage(content="weather?", source="user")]
    # the SDK's parsing helper takes strict tools only (openai 2.x checks it)
    strict = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}
    tools = [{**tool, "parameters": strict, "strict": True} for tool in driver.tools(scenario)]

    async def go() -> list[Any]:
        model = driver.client(scenario, base_url=beside_server.openai_base_url, model_info=info)
        try:
            stream = model.create_stream(messages, tools=tools, json_output=Answer)
            return [item async for item in stream]
        finally:
            await model.close()

    got = capture(scenario, go, _got, driver.read)
    assert_right(scenario, got)
    streamfix_autogen.uninstall()
    stock = capture(scenario, go, _got, driver.read)
    assert stock.error is None and stock.calls == [] and stock.text == scenario.text


@pytest.mark.parametrize("install", ["stock", "wire", "both"])
def test_upstream_tool_calling_with_stream(beside_server: ReplayServer, install: str) -> None:
    """The sdist's ``test_tool_calling_with_stream``, over real HTTP: each text chunk
    yielded, then the call, ``finish_reason`` ``function_calls``, the text as ``thought``;
    the same stock, on the wire and with the shim."""
    if install != "stock":
        streamfix_openai.install()
    if install == "both":
        streamfix_autogen.install()
    _, items = _run(beside_server, UPSTREAM_TOOL_CALL)
    assert items[:3] == ["Hello", " Another Hello", " Yet Another Hello"]
    result = items[-1]
    assert isinstance(result, autogen_models.CreateResult) and len(items) == 4
    assert [(c.id, c.name, c.arguments) for c in result.content] == [
        ("1", "_pass_function", '{"input": "task"}')
    ]
    assert result.finish_reason == "function_calls"
    assert result.thought == "Hello Another Hello Yet Another Hello"


@pytest.mark.parametrize("install", ["stock", "wire", "both"])
def test_upstream_reasoning_content_streaming(beside_server: ReplayServer, install: str) -> None:
    """The sdist's ``test_r1_reasoning_content_streaming`` (family ``unknown``): the
    reasoning as ``<think>`` chunks, then the answer; the same stock, on the wire and with
    the shim (a reasoning delta is no tool call: passed on)."""
    if install != "stock":
        streamfix_openai.install()
    if install == "both":
        streamfix_autogen.install()
    _, items = _run(beside_server, UPSTREAM_REASONING)
    assert items[:4] == [
        "<think>This is the reasoning content 1",
        "This is the reasoning content 2",
        "</think>",
        "This is the main content",
    ]
    assert items[-1].content == "This is the main content"
    assert items[-1].thought == "This is the reasoning content 1This is the reasoning content 2"


def test_split_hands_other_chunks_on_as_they_are() -> None:
    """A chunk without both text and calls is the very object the SDK gave."""
    chunks = list(testing.openai_stream(testing.fresh_chunks(OPENAI["b1-interleaved"])))
    assert all(streamfix_autogen.split(chunk) == (chunk,) for chunk in chunks)
    assert all(streamfix_autogen.split(chunk)[0] is chunk for chunk in chunks)


def test_split_puts_the_finish_and_usage_on_the_calls() -> None:
    """Text first (with role and logprobs), then the calls with ``finish_reason`` and
    ``usage``; reasoning once."""
    body = _chunk(
        {
            "role": "assistant",
            "content": "Hi.",
            "reasoning_content": "thinking",
            "tool_calls": [_entry(0, "call_a", "get_weather", "{}")],
        },
        "tool_calls",
    )
    body["usage"] = {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
    (chunk,) = testing.openai_stream([body])
    text, calls = streamfix_autogen.split(chunk)
    assert text.choices[0].delta.content == "Hi." and text.choices[0].delta.tool_calls is None
    assert text.choices[0].delta.role == "assistant" and text.choices[0].finish_reason is None
    assert (
        text.usage is None and text.choices[0].delta.model_extra["reasoning_content"] == "thinking"
    )
    assert calls.choices[0].delta.content is None and calls.choices[0].finish_reason == "tool_calls"
    assert calls.choices[0].delta.tool_calls == chunk.choices[0].delta.tool_calls
    assert (
        calls.usage == chunk.usage and calls.choices[0].delta.model_extra["reasoning_content"] == ""
    )
    assert chunk.choices[0].delta.content == "Hi."  # the SDK's chunk itself is untouched


def test_install_replaces_and_uninstall_restores() -> None:
    base = autogen_openai._openai_client.BaseOpenAIChatCompletionClient
    before = (base._create_stream_chunks, base._create_stream_chunks_beta_client)
    streamfix_autogen.install()
    assert streamfix_autogen.installed()
    assert base._create_stream_chunks is not before[0]
    streamfix_autogen.uninstall()
    assert (base._create_stream_chunks, base._create_stream_chunks_beta_client) == before


def test_doctor_column() -> None:
    """``streamfix doctor``'s ``autogen`` column: its own patch (the wire installed with
    it), 0 failing patched cells, and stock losing exactly :data:`STOCK_LOSSES`."""
    assert_doctor_column("autogen", "autogen", STOCK_LOSSES)
