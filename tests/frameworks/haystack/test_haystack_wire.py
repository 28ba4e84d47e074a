"""haystack's ``OpenAIChatGenerator(streaming_callback=...)`` over real HTTP (the replay
server, the generator's own ``openai`` clients): the reply's ``tool_calls`` (name,
arguments, id) and ``text``, and the ``StreamingChunk`` s the callback got, in order;
stock, on the repaired wire alone, and with the wire and the ``haystack`` shim.

haystack turns each chunk into one ``StreamingChunk`` and joins tool-call deltas by
``index`` (names and arguments appended), then parses each call's arguments and deletes,
with a warning, a call whose JSON does not parse (its non-streamed path does the same:
upstream's ``test_invalid_tool_call_json``). The wire fixes what that does to the
corpus: glued calls (deleted), an entry with no ``index`` (``ValueError``), a name
repeated (glued), cut arguments (deleted in silence). What it cannot fix: a
``StreamingChunk`` holds text or tool calls, never both (``ValueError``, by design:
upstream's ``test_create_chunk_with_content_and_tool_call``), and a delta with text and a
call is legal OpenAI form, which the wire passes on as it came (R1) and puts on the first
piece of a chunk it splits (R5). The shim hands such a delta to haystack as two chunks.

haystack-ai's sdist ships no tests. Upstream's (``test/components/generators/
test_utils.py``, ``chat/test_openai.py``) pin: two calls in one chunk, both kept; an
empty tool-call delta and empty arguments (``{}``); the finish reason and usage on the
reply; ``_handle_stream_response`` fed a plain list of chunks (:data:`UPSTREAM_PINNED`,
:func:`test_handle_stream_response_takes_a_list`).
"""

from __future__ import annotations

import asyncio
import copy
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
    expected_ids,
)
from support import assert_doctor_column, report_stock_loss, shim_fixture

import streamfix
import streamfix_haystack
import streamfix_openai
from streamfix import testing
from streamfix.testing import ReplayServer
from streamfix_haystack import _doctor as driver

haystack = pytest.importorskip("haystack")
chat_openai = pytest.importorskip("haystack.components.generators.chat.openai")
from haystack.dataclasses import ChatMessage  # noqa: E402
from openai.types.chat import ChatCompletionChunk  # noqa: E402

#: How stock haystack words text and a call in one delta (reported when it changes).
A2_STOCK_ERROR = "Only one of `content`, `tool_call`"

_stock_both = shim_fixture("openai", "haystack", autouse=True, name="_stock_both")
both = shim_fixture("openai", "haystack", install=True, name="both")

#: What stock haystack loses on the corpus (the doctor's ``haystack`` column).
STOCK_LOSSES = {
    "b2-same-index": "two calls at one index: glued, invalid JSON, the call deleted",
    "b3-same-index": "two calls at one index, no ids: glued, deleted",
    "b6-no-index": "entries with no index: ValueError (a StreamingChunk needs an index)",
    "c1-repeated-names": "the name repeated on every fragment, glued",
    "h1-legacy-function-call": "a legacy function_call: no tool call",
    "i1-double-encoded": "arguments a JSON string, handed on as the string",
    "i3-restarted": "restarted arguments glued: invalid JSON, the call deleted",
    "e4-truncated": "the cut call deleted with a warning, the run ends well",
}
#: Where stock gets the calls right but not their ids (the doctor does not judge ids).
STOCK_ID_LOSSES = {
    "g1-placeholders": "an empty id on a continuation fragment replaces the call's id: ''",
}
STOCK_RIGHT = [name for name in NAMES if name not in STOCK_LOSSES]

#: Upstream haystack's streaming tests and the corpus scenario that pins the same
#: behaviour here through the real stream: stock gets each right, patched the same.
UPSTREAM_PINNED = {
    "a1-one-chunk": "test_convert_streaming_chunk_to_chat_message_two_tool_calls_in_same_chunk",
    "b1-interleaved": "test_convert_streaming_chunks_to_chat_message_tool_calls_in_any_chunk",
    "f2-late-signature": "test_convert_streaming_chunk_to_chat_message_empty_tool_call_delta",
    "d3-escapes-split": "test_run_with_tools_streaming: arguments in pieces",
    "text": "test_live_run_streaming: text only",
}


def _got(result: Any) -> Got:
    reply, _ = result
    calls = [(call.tool_name, call.arguments, call.id) for call in reply.tool_calls]
    return Got(calls, reply.text or "")


def _generate(server: ReplayServer, scenario: testing.Scenario) -> tuple[Got, Any]:
    generator = driver.generator(scenario, api_base_url=server.openai_base_url)
    results: list[Any] = []

    def run() -> Any:
        results.append(driver.generate(generator))
        return results[-1]

    return capture(scenario, run, _got, driver.read), (results[0] if results else None)


def _chat(server: ReplayServer, name: str) -> tuple[Got, Any]:
    return _generate(server, OPENAI[name])


@pytest.mark.parametrize("name", NAMES)
def test_patched_right(streamfix_server: ReplayServer, both: None, name: str) -> None:
    got, result = _chat(streamfix_server, name)
    scenario = OPENAI[name]
    assert_right(scenario, got)
    if result is not None and scenario.calls:
        reply, _ = result
        assert reply.meta["finish_reason"] == "tool_calls"


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(STOCK_LOSSES))
def test_stock_loses(streamfix_server: ReplayServer, name: str) -> None:
    got, _ = _chat(streamfix_server, name)
    assert_lost(OPENAI[name], got)


def _chunks(result: Any) -> list[tuple[Any, ...]]:
    """The ``StreamingChunk`` s the callback got, as what a consumer reads of them (the
    time each was received left out)."""
    _, chunks = result
    return [
        (
            chunk.content,
            chunk.index,
            [delta.to_dict() for delta in chunk.tool_calls or ()],
            chunk.start,
            chunk.finish_reason,
            {key: value for key, value in chunk.meta.items() if key != "received_at"},
        )
        for chunk in chunks
    ]


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(STOCK_ID_LOSSES))
def test_stock_loses_ids(streamfix_server: ReplayServer, name: str) -> None:
    """The calls right, their ids empty (the next turn's tool results answer no call);
    patched, the provider's ids (:func:`test_patched_right`)."""
    scenario = OPENAI[name]
    got, _ = _chat(streamfix_server, name)
    assert got.outcome is not None and testing.judge(scenario, got.outcome)[0]
    assert all(call["id"] for call in scenario.calls)
    assert got.ids == [""] * len(scenario.calls)


@pytest.mark.parametrize("name", [n for n in STOCK_RIGHT if n not in STOCK_ID_LOSSES])
def test_where_stock_is_right_patched_is_the_same(
    streamfix_server: ReplayServer, name: str
) -> None:
    """The same calls, ids and text; and where the wire passes every chunk on as it came
    (R1), the same ``StreamingChunk`` s in the same order."""
    stock, stock_result = _chat(streamfix_server, name)
    streamfix_openai.install()
    streamfix_haystack.install()
    patched, patched_result = _chat(streamfix_server, name)
    assert_same(OPENAI[name], stock, patched)
    if name in PASSED_THROUGH:
        assert _chunks(patched_result) == _chunks(stock_result)


@pytest.mark.parametrize("name", sorted(UPSTREAM_PINNED))
def test_upstream_pinned_behaviours(name: str) -> None:
    """What haystack's own streaming tests pin holds stock on the real stream (and so
    :func:`test_where_stock_is_right_patched_is_the_same` runs it)."""
    assert name in STOCK_RIGHT and name not in STOCK_ID_LOSSES


_COMPLETE = [
    name
    for name in NAMES
    if OPENAI[name].error is None
    and not OPENAI[name].truncated
    and OPENAI[name].shape not in testing.UNREPAIRABLE
]


@pytest.mark.parametrize("name", _COMPLETE)
def test_patched_streamed_reply_is_the_non_streamed_one(
    streamfix_server: ReplayServer, both: None, name: str
) -> None:
    """R's invariant through haystack: the streamed reply (patched) is the reply
    haystack's non-streamed path builds for the same response (calls, ids where the
    provider sent them, text; one id shared by two calls, G3, made unique: R3)."""
    scenario = OPENAI[name]
    streamed, _ = _chat(streamfix_server, name)
    generator = driver.generator(scenario, api_base_url=streamfix_server.openai_base_url)
    reply = generator.run([ChatMessage.from_user(driver.PROMPT)])["replies"][0]
    assert streamed.named == [(c.tool_name, c.arguments) for c in reply.tool_calls]
    for (_, _, mine), call, sent in zip(
        streamed.calls, reply.tool_calls, scenario.calls, strict=True
    ):
        assert sent["id"] is None or scenario.shape == "G3" or mine == call.id
    if scenario.shape == "G3":
        assert streamed.ids == expected_ids(scenario)
    assert streamed.text == (reply.text or "")


# -- text and tool calls in one delta (legal OpenAI form; outside the corpus) --------------


def _chunk(delta: dict[str, Any], finish: str | None = None, model: str = "") -> dict[str, Any]:
    return {
        "id": "chatcmpl-a2",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _call(index: int, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }


WEATHER = {"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}}
TIME = {"id": "call_b", "name": "get_time", "arguments": {"zone": "Europe/Paris"}}

#: A2 with one call: text and the whole call in one delta, OpenAI's own form (the wire
#: passes it on as it came).
A2_ONE = testing.Scenario(
    "a2-text-and-call",
    "A2",
    "text and a call in one delta",
    "openai",
    (
        _chunk({"role": "assistant", "content": ""}),
        _chunk(
            {
                "content": "Let me check.",
                "tool_calls": [_call(0, "call_a", "get_weather", '{"city": "Paris"}')],
            }
        ),
        _chunk({}, "tool_calls"),
    ),
    calls=(WEATHER,),
    text="Let me check.",
)
#: A2 with two calls and the finish reason in one delta (the wire makes it one entry a
#: chunk, the text on the first with the first call).
A2_TWO = testing.Scenario(
    "a2-text-and-calls",
    "A2",
    "text, two calls and the finish reason in one delta",
    "openai",
    (
        _chunk({"role": "assistant", "content": ""}),
        _chunk(
            {
                "content": "Checking both.",
                "tool_calls": [
                    _call(0, "call_a", "get_weather", '{"city": "Paris"}'),
                    _call(1, "call_b", "get_time", '{"zone": "Europe/Paris"}'),
                ],
            },
            "tool_calls",
        ),
    ),
    calls=(WEATHER, TIME),
    text="Checking both.",
)
A2 = {scenario.name: scenario for scenario in (A2_ONE, A2_TWO)}


@pytest.fixture(scope="module")
def a2_server() -> Iterator[ReplayServer]:
    with ReplayServer(scenarios=A2) as server:
        yield server


def test_the_wire_emits_text_and_a_call_in_one_delta() -> None:
    """What the repaired wire emits for A2: the one-call delta as it came (R1), and for
    two calls, the text with the first call in one delta (R5)."""
    for scenario in A2.values():
        out = list(streamfix.repair(testing.fresh_chunks(scenario)))
        both_in_one = [
            c
            for c in out
            for choice in c.get("choices") or ()
            if (choice.get("delta") or {}).get("content")
            and (choice.get("delta") or {}).get("tool_calls")
        ]
        assert len(both_in_one) == 1


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(A2))
@pytest.mark.parametrize("wire", [False, True], ids=["stock", "wire-alone"])
def test_text_and_a_call_in_one_delta_fails_without_the_shim(
    a2_server: ReplayServer, name: str, wire: bool
) -> None:
    """Stock, and on the repaired wire alone: ``ValueError`` from ``StreamingChunk``, no
    reply."""
    if wire:
        streamfix_openai.install()
    got, _ = _generate(a2_server, A2[name])
    assert isinstance(got.error, ValueError)
    report_stock_loss(f"haystack {name}", str(got.error), A2_STOCK_ERROR)
    assert_lost(A2[name], got)


@pytest.mark.parametrize("name", sorted(A2))
def test_text_and_a_call_in_one_delta_patched(
    a2_server: ReplayServer, both: None, name: str
) -> None:
    """With the wire and the shim: the text and every call with its id; the callback
    gets the text's chunk, then the calls' chunks; the reply is the non-streamed one."""
    scenario = A2[name]
    got, result = _generate(a2_server, scenario)
    assert_right(scenario, got)
    _, chunks = result
    kinds = [("text" if c.content else "calls" if c.tool_calls else "") for c in chunks]
    kinds = [kind for kind in kinds if kind]
    assert kinds == ["text"] + ["calls"] * len(scenario.calls)
    assert chunks[-1].finish_reason == "tool_calls"
    generator = driver.generator(scenario, api_base_url=a2_server.openai_base_url)
    reply = generator.run([ChatMessage.from_user(driver.PROMPT)])["replies"][0]
    assert got.calls == [(c.tool_name, c.arguments, c.id) for c in reply.tool_calls]
    assert got.text == reply.text


def test_text_and_a_call_in_one_delta_patched_async(a2_server: ReplayServer, both: None) -> None:
    """``run_async`` with an async callback (``_handle_async_stream_response``)."""
    scenario = A2_ONE
    generator = driver.generator(scenario, api_base_url=a2_server.openai_base_url)
    seen: list[Any] = []

    async def callback(chunk: Any) -> None:
        seen.append(chunk)

    async def go() -> Any:
        result = await generator.run_async(
            [ChatMessage.from_user(driver.PROMPT)], streaming_callback=callback
        )
        return result["replies"][0]

    reply = asyncio.run(go())
    assert [(c.tool_name, c.arguments, c.id) for c in reply.tool_calls] == [
        ("get_weather", {"city": "Paris"}, "call_a")
    ]
    assert reply.text == scenario.text
    assert [c.content for c in seen if c.content] == [scenario.text]


@pytest.mark.stock_failure
def test_text_and_a_call_in_one_delta_async_fails_stock(a2_server: ReplayServer) -> None:
    generator = driver.generator(A2_ONE, api_base_url=a2_server.openai_base_url)

    async def callback(chunk: Any) -> None:
        pass

    async def go() -> Any:
        return await generator.run_async(
            [ChatMessage.from_user(driver.PROMPT)], streaming_callback=callback
        )

    with pytest.raises(ValueError) as raised:
        asyncio.run(go())
    report_stock_loss("haystack async a2", str(raised.value), A2_STOCK_ERROR)


# -- the shim itself ---------------------------------------------------------------------


def _sdk_chunks(name: str) -> list[Any]:
    """The scenario's repaired stream as the SDK's ``ChatCompletionChunk`` s."""
    bodies = [ChatCompletionChunk.construct(**copy.deepcopy(c)) for c in OPENAI[name].chunks]
    try:
        repaired = list(streamfix.repair(bodies))
    except streamfix.StreamFixError as error:
        repaired = list(getattr(error, "yielded", ()))
    return [ChatCompletionChunk.model_validate(c.model_dump()) for c in repaired]


@pytest.mark.parametrize("name", NAMES)
def test_split_passes_every_corpus_chunk_on_as_it_came(name: str) -> None:
    """No corpus scenario, repaired, has text and a call in one delta: every chunk is
    handed on as the same object."""
    for chunk in _sdk_chunks(name):
        pieces = streamfix_haystack.split(chunk)
        assert len(pieces) == 1 and pieces[0] is chunk


@pytest.mark.parametrize("name", ["a1-one-chunk", "b1-interleaved", "f2-late-signature"])
def test_handle_stream_response_takes_a_list(name: str) -> None:
    """Upstream's ``test_handle_stream_response`` hands the method a plain list of
    chunks: installed, it gives what stock gives."""
    from haystack.utils import Secret

    def handle() -> Any:
        generator = chat_openai.OpenAIChatGenerator(api_key=Secret.from_token("sk-test"))
        reply = generator._handle_stream_response(_sdk_chunks(name), callback=lambda _: None)[0]
        return [(c.tool_name, c.arguments, c.id) for c in reply.tool_calls], reply.text

    stock = handle()
    streamfix_haystack.install()
    assert handle() == stock
    assert stock[0] == [(c["name"], c["arguments"], c["id"]) for c in OPENAI[name].calls]


def test_install_replaces_both_handlers_and_uninstall_restores_them() -> None:
    cls = chat_openai.OpenAIChatGenerator
    sync, asynchronous = cls._handle_stream_response, cls._handle_async_stream_response
    streamfix_haystack.install()
    assert streamfix_haystack.installed()
    assert cls._handle_stream_response is not sync
    assert cls._handle_async_stream_response is not asynchronous
    streamfix_haystack.uninstall()
    assert cls._handle_stream_response is sync
    assert cls._handle_async_stream_response is asynchronous


def test_doctor_column() -> None:
    """``streamfix doctor``'s ``haystack`` column: 0 failing patched cells (the wire and
    the shim), stock losing exactly :data:`STOCK_LOSSES`."""
    assert_doctor_column("haystack", "haystack", STOCK_LOSSES)


def test_replay_cli(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """``streamfix replay FILE --framework haystack`` on a capture of B2: stock no call
    (both deleted), patched both."""
    import json

    from support.cli import cli

    scenario = OPENAI["b2-same-index"]
    path = tmp_path / "b2.jsonl"
    path.write_text("".join(json.dumps(chunk) + "\n" for chunk in scenario.chunks))
    code, out, _ = cli(capsys, "replay", str(path), "--json", "--framework", "haystack")
    info = json.loads(out)["frameworks"]["haystack"]
    assert code == 0
    patched = [(c["name"], c["arguments"]) for c in info["patched"]["calls"]]
    assert patched == [(c["name"], c["arguments"]) for c in scenario.calls]
    assert info["stock"]["calls"] == []
