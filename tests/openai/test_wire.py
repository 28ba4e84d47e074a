"""The openai wire: ``client.chat.completions.create(stream=True)`` streams, stock and with
the shim installed, over the SDK's real HTTP stack (an in-process transport answering with
SSE bytes, :mod:`sdk`), read every way consumers read them.

Patched, the chunks a consumer gets assemble (``streamfix.assemble``) to the message the
original stream assembles to, and the index-keyed accumulation frameworks run over them
(:func:`sdk.naive`) gives the non-streamed calls; stock, that accumulation is wrong on the
shapes below. Chunks that need nothing are the SDK's own objects (R1); the rewritten ones
are built as the SDK builds a chunk it received. A provider error raises the SDK's
``APIError``; a call cut off raises ``StreamFixAPIError`` after everything complete.

``shim_only``: the wire is the shim's alone (no upstream patch), so direct mode
(``STREAMFIX_DIRECT=1``) runs none of this.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest
from openai.types.chat import ChatCompletionChunk
from sdk import ASYNC, MODES, SYNC, USER, Served, first_entries, helper, naive, read
from support import ABSENT, chunk, tc

import streamfix
import streamfix_openai
from streamfix import testing
from streamfix._assembler import ToolCallAssembler

pytestmark = [pytest.mark.openai, pytest.mark.shim_only]

OPENAI = testing.scenarios("openai")
#: Scenarios that end in an error, stock or patched: E4 (cut off), E5 (provider error),
#: I3 (the provider restarted arguments the wire had already passed on: see below).
ENDS_IN_ERROR = ("e4-truncated", "e5-error", "i3-restarted")
COMPLETE = sorted(name for name in OPENAI if name not in ENDS_IN_ERROR)
#: Where stock's chunks, accumulated by index, give calls the non-streamed response does
#: not have (glued calls, repeated names, no call at all, undecoded or invalid arguments).
STOCK_WRONG = {
    "b2-same-index": "two calls at one index glued into one",
    "b3-same-index": "two calls at one index glued into one",
    "b6-no-index": "calls with no index glued into one",
    "c1-repeated-names": "the name repeated on every fragment concatenated",
    "h1-legacy-function-call": "a legacy function_call: no tool call at all",
    "i1-double-encoded": "the arguments a JSON string, not the object",
    "i3-restarted": "the restarted arguments glued: invalid JSON",
    "e4-truncated": "the cut arguments handed on as a call",
}
W, T = "get_weather", "get_time"
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in (W, T, "edit_existing_file")
]

# Streams of the tests below that are not in the corpus.
EXTRA: dict[str, list[Any]] = {
    # E9: a call with an id and arguments that never gets a name
    "e9-no-name": [
        chunk(content="", delta={"role": "assistant"}),
        chunk(tc(0, "call_x", ABSENT, '{"city": "Paris"}')),
        chunk(finish="tool_calls"),
    ],
    # E8: cut off under a normal finish reason, after a complete call
    "e8-cut-under-tool-calls": [
        chunk(tc(0, "call_a", W, '{"city": "Paris"}')),
        chunk(tc(1, "call_b", T, '{"zone": "Eu')),
        chunk(finish="tool_calls"),
    ],
    # E5 with the error as a string (Ollama's form) after some text
    "e5-string-error": [
        chunk(content="Let me check", delta={"role": "assistant"}),
        {"error": "model runner has unexpectedly stopped (out of memory)"},
    ],
    # B7: indices starting above 0 (content-block indices leaking through a gateway)
    "b7-index-from-1": [
        chunk(tc(1, "call_a", W, '{"city": ', typed="with id")),
        chunk(tc(1, ABSENT, ABSENT, '"Paris"}')),
        chunk(tc(3, "call_b", T, '{"zone": "Europe/Paris"}', typed="with id")),
        chunk(finish="tool_calls"),
    ],
    # R6: a header whose name is whole, its arguments later (the request declares it)
    "header-first": [
        chunk(content="", delta={"role": "assistant"}),
        chunk(tc(0, "call_a", W, "")),
        chunk(content="..."),
        chunk(tc(0, ABSENT, ABSENT, '{"city": "Paris"}')),
        chunk(finish="tool_calls"),
    ],
}
SERVED = Served({**{name: s.chunks for name, s in OPENAI.items()}, **EXTRA})


def _calls(chunks: list[Any]) -> list[tuple[str, Any]]:
    """:func:`sdk.naive`'s calls as (name, parsed arguments, or the text if invalid)."""
    out = []
    for call in naive(chunks):
        try:
            arguments = json.loads(call["arguments"])
        except ValueError:
            arguments = call["arguments"]
        out.append((call["name"], arguments))
    return out


def _expected_calls(name: str) -> list[tuple[str, Any]]:
    return [(call["name"], call["arguments"]) for call in OPENAI[name].calls]


def assert_assembles_as(got: streamfix.AssembledMessage, want: streamfix.AssembledMessage) -> None:
    """``got`` (the repaired stream) is ``want`` (the original), modulo what R changes:
    ``stop`` with calls is ``tool_calls``; a call the provider sent no id gets one; a
    shared id is made unique (G3)."""
    unique = want.with_unique_ids()
    assert len(got.tool_calls) == len(want.tool_calls)
    for mine, theirs in zip(got.tool_calls, unique.tool_calls, strict=True):
        assert (mine.name, mine.arguments, mine.parsed) == (
            theirs.name,
            theirs.arguments,
            theirs.parsed,
        )
        assert mine.thought_signature == theirs.thought_signature
        if theirs.id is None:
            assert isinstance(mine.id, str) and mine.id
        else:
            assert mine.id == theirs.id
    ids = [call.id for call in got.tool_calls]
    assert len(set(ids)) == len(ids)
    assert (got.content, got.reasoning, got.usage) == (want.content, want.reasoning, want.usage)
    assert got.reasoning_details == want.reasoning_details
    assert got.thinking_blocks == want.thinking_blocks
    finish = want.finish_reason
    if finish in ("stop", "end_turn") and want.tool_calls:
        finish = "tool_calls"
    assert got.finish_reason == finish


# --- the corpus ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["for", "async for"])
@pytest.mark.parametrize("name", COMPLETE)
def test_corpus_repaired_assembles_as_the_original(patched: None, name: str, mode: str) -> None:
    chunks, error = read(SERVED, mode, name)
    assert error is None
    assert all(type(c) is ChatCompletionChunk for c in chunks)
    assert_assembles_as(streamfix.assemble(chunks), streamfix.assemble(OPENAI[name].chunks))
    assert _calls(chunks) == _expected_calls(name)


@pytest.mark.parametrize("name", sorted(STOCK_WRONG))
def test_index_keyed_accumulation_right_patched(patched: None, name: str) -> None:
    """Where stock's accumulation is wrong (:func:`test_stock_accumulation_is_wrong`),
    the repaired stream's is right, or the stream raises after its complete parts."""
    chunks, error = read(SERVED, "for", name)
    if name in ENDS_IN_ERROR:
        assert isinstance(error, streamfix_openai.StreamFixAPIError)
        assert error.assembled is not None
        if name == "e4-truncated":  # i3: see test_i3_restarted_arguments_raise_...
            complete = [(c.name, c.parsed) for c in error.assembled.tool_calls]
            assert _calls(chunks)[: len(complete)] == complete
    else:
        assert error is None
        assert _calls(chunks) == _expected_calls(name)


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", sorted(STOCK_WRONG))
def test_stock_accumulation_is_wrong(stock: Any, name: str) -> None:
    chunks, error = read(SERVED, "for", name)
    assert error is None  # stock ends normally, whatever it handed on
    assert _calls(chunks) != _expected_calls(name)


def test_stock_accumulation_is_right_elsewhere(stock: Any) -> None:
    """The rest of the corpus: stock's accumulation already right (what the repaired
    stream must keep)."""
    for name in sorted(set(COMPLETE) - set(STOCK_WRONG)):
        chunks, error = read(SERVED, "for", name)
        assert error is None
        assert _calls(chunks) == _expected_calls(name), name


def _passes_through(name: str) -> bool:
    """Whether the core passes every chunk of the scenario on as the same object (R1:
    the stream is already in OpenAI's own form)."""
    bodies = list(OPENAI[name].chunks)
    out = list(streamfix.repair(bodies))
    return len(out) == len(bodies) and all(a is b for a, b in zip(out, bodies, strict=True))


R1 = sorted(name for name in COMPLETE if _passes_through(name))


def test_r1_scenarios_are_the_openai_form_ones() -> None:
    assert {"text", "f1-signature", "f5-reasoning-details"} <= set(R1)
    assert "f6-thinking-blocks" not in R1  # each thinking_blocks piece gets an index
    assert not {"b3-same-index", "c1-repeated-names", "a1-one-chunk"} & set(R1)


@pytest.mark.parametrize("name", R1)
def test_r1_chunks_are_the_sdk_parsed_objects(
    patched: None, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In OpenAI's own form, every chunk the consumer gets is the object the SDK parsed
    (identity, seen in-process) and equal to stock's."""
    parsed: list[Any] = []
    with SERVED.client() as client:
        stock_parse = client._process_response_data

        def recording(**kwargs: Any) -> Any:
            parsed.append(stock_parse(**kwargs))
            return parsed[-1]

        monkeypatch.setattr(client, "_process_response_data", recording)
        got = list(client.chat.completions.create(model=name, messages=USER, stream=True))
    assert len(got) == len(parsed) and all(a is b for a, b in zip(got, parsed, strict=True))
    streamfix_openai.uninstall()
    stock, _ = read(SERVED, "for", name)
    assert [c.to_dict() for c in got] == [c.to_dict() for c in stock]


@pytest.mark.parametrize("name", sorted(set(COMPLETE) - set(R1)))
def test_rewritten_chunks_are_built_as_the_sdk_builds_them(patched: None, name: str) -> None:
    """A rewritten chunk is what the SDK builds from its own JSON: same type at every
    level, same fields given, provider fields (``extra_content``) kept."""
    chunks, _ = read(SERVED, "for", name)
    with SERVED.client() as client:
        for got in chunks:
            again = client._process_response_data(
                data=json.loads(got.to_json()), cast_to=ChatCompletionChunk, response=None
            )
            assert again == got and again.to_dict() == got.to_dict()
            assert again.model_fields_set == got.model_fields_set
            for mine, theirs in zip(got.choices, again.choices, strict=True):
                assert type(mine.delta) is type(theirs.delta)
                assert mine.delta.model_fields_set == theirs.delta.model_fields_set
                for a, b in zip(
                    mine.delta.tool_calls or (), theirs.delta.tool_calls or [], strict=True
                ):
                    assert type(a) is type(b) and a.model_extra == b.model_extra


def test_signatures_stay_on_their_entries_as_provider_fields(patched: None) -> None:
    chunks, _ = read(SERVED, "for", "a1-signature")  # A1: rewritten, one entry per chunk
    entries = [e for c in chunks for e in c.choices[0].delta.tool_calls or ()]
    signatures = [(e.model_extra or {}).get("extra_content") for e in entries]
    assert [s["google"]["thought_signature"] for s in signatures if s] == [
        s for s in OPENAI["a1-signature"].signatures if s
    ]
    assert entries[0].extra_content == signatures[0]  # read as the SDK's users read it


def test_strict_response_validation_builds_validated_chunks(patched: None) -> None:
    with SERVED.client(_strict_response_validation=True) as client:
        chunks = list(
            client.chat.completions.create(model="b3-same-index", messages=USER, stream=True)
        )
    assert _calls(chunks) == _expected_calls("b3-same-index")


def test_i3_restarted_arguments_raise_with_the_whole_message(patched: None) -> None:
    """I3: the first arguments' prefix was passed on before the provider restarted them;
    the wire cannot take it back (``streamfix.repair``'s documented end), so the stream
    raises, never handing on the glued text, with the assembled message on the error."""
    _, error = read(SERVED, "for", "i3-restarted")
    assert isinstance(error, streamfix_openai.StreamFixAPIError)
    assert isinstance(error, streamfix.MalformedToolCallError)
    assert error.assembled == streamfix.assemble(OPENAI["i3-restarted"].chunks)
    assert isinstance(error.message, str)  # the SDK's APIError.message stays text


def _first_entries(chunks: list[Any]) -> list[tuple[str, Any]]:
    return [(c["name"], json.loads(c["arguments"])) for c in first_entries(chunks)]


@pytest.mark.parametrize("name", ["a1-one-chunk", "a1-signature", "b7-index-from-1"])
def test_one_entry_per_chunk_and_indices_from_0(patched: None, name: str) -> None:
    """R2, R5: a framework reading one entry per chunk, indexing a list by ``index``,
    gets every call (A1: several calls in one chunk; B7: indices that start above 0)."""
    chunks, error = read(SERVED, "for", name)
    assert error is None
    want = [(W, {"city": "Paris"}), (T, {"zone": "Europe/Paris"})]
    assert _first_entries(chunks) == want
    assert all(len(c.choices[0].delta.tool_calls or ()) <= 1 for c in chunks)


@pytest.mark.stock_failure
def test_stock_one_entry_per_chunk_loses_calls(stock: Any) -> None:
    chunks, _ = read(SERVED, "for", "a1-one-chunk")
    assert _first_entries(chunks) == [(W, {"city": "Paris"})]
    chunks, _ = read(SERVED, "for", "b7-index-from-1")
    with pytest.raises(IndexError):
        first_entries(chunks)


# --- however the stream is read -----------------------------------------------------------


def _masked(chunks: list[Any]) -> list[dict[str, Any]]:
    """The chunks as dicts, each generated id (the provider sent none: random per
    stream) replaced by its call's wire index."""
    out = []
    for got in chunks:
        body = got.to_dict()
        for choice in body["choices"]:
            for entry in choice["delta"].get("tool_calls") or ():
                if entry.get("id", "").count("_") == 2:  # call_<token>_<n>
                    entry["id"] = f"generated-{entry['index']}"
        out.append(body)
    return out


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["b3-same-index", "c1-repeated-names", "e4-truncated"])
def test_every_way_of_reading_gets_the_repaired_stream(patched: None, name: str, mode: str) -> None:
    chunks, error = read(SERVED, mode, name)
    reference, reference_error = read(SERVED, "for", name)
    assert _masked(chunks) == _masked(reference)
    assert type(error) is type(reference_error)
    if name != "e4-truncated":
        assert _calls(chunks) == _expected_calls(name)


@pytest.mark.parametrize("mode", [SYNC[0], ASYNC[0]])
def test_the_request_tools_are_read_so_headers_are_not_held(patched: None, mode: str) -> None:
    """R6, C2: with the tool declared in the request, a header whose name is whole goes
    out with its own chunk; without, it waits for the first argument byte."""
    declared, _ = read(SERVED, mode, "header-first", tools=TOOLS)
    undeclared, _ = read(SERVED, mode, "header-first")
    assert [c.choices[0].delta.tool_calls is not None for c in declared] == [
        False,
        True,
        False,
        True,
        False,
    ]
    assert declared[1].choices[0].delta.tool_calls[0].function.name == W
    assert undeclared[1].choices[0].delta.content == "..."  # the header held
    assert _calls(declared) == _calls(undeclared) == [(W, {"city": "Paris"})]


# --- errors -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_provider_error_raises_the_sdk_api_error(patched: None, mode: str) -> None:
    """E5, R9: the SDK's own ``APIError`` with the provider's text, after the text."""
    chunks, error = read(SERVED, mode, "e5-error")
    assert type(error) is openai.APIError
    assert error.message == "upstream overloaded"
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Let me check"


def test_provider_error_as_stock_raises_it(stock: Any) -> None:
    """Stock already raises the SDK's error for an error object: the patched wire's
    must be the same (above)."""
    chunks, error = read(SERVED, "for", "e5-error")
    assert type(error) is openai.APIError and error.message == "upstream overloaded"
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Let me check"


@pytest.mark.parametrize("mode", [SYNC[0], ASYNC[0]])
def test_provider_error_as_a_string_keeps_the_provider_text(patched: None, mode: str) -> None:
    """E5 in Ollama's form, the error a string: stock's ``APIError`` says "An error
    occurred during streaming"; patched, the provider's own words."""
    chunks, error = read(SERVED, mode, "e5-string-error")
    assert type(error) is openai.APIError
    assert error.message == "model runner has unexpectedly stopped (out of memory)"
    assert error.body == error.message
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Let me check"


@pytest.mark.stock_failure
def test_provider_error_as_a_string_loses_the_text_on_stock(stock: Any) -> None:
    _, error = read(SERVED, "for", "e5-string-error")
    assert isinstance(error, openai.APIError)
    assert "out of memory" not in error.message


@pytest.mark.parametrize("mode", MODES)
def test_truncated_call_raises_after_the_complete_parts(patched: None, mode: str) -> None:
    """E4, R10: the complete call and the text, then an error an ``except
    openai.APIError`` catches, carrying the complete calls and the cut arguments."""
    chunks, error = read(SERVED, mode, "e4-truncated")
    assert isinstance(error, openai.APIError)
    assert isinstance(error, streamfix_openai.StreamFixAPIError)
    assert isinstance(error, streamfix.TruncatedToolCallError)
    assert error.assembled is not None
    assert [(c.name, c.parsed) for c in error.assembled.tool_calls] == [(W, {"city": "Paris"})]
    assert error.partial_arguments == {1: '{"zone": "Eur'}
    assert error.message == str(error)  # the SDK's APIError.message: text
    assert error.__cause__ is not None
    assert error.__cause__.message is error.assembled
    assert "truncated" in str(error)
    assert isinstance(error.__cause__, streamfix.TruncatedToolCallError)
    sent = [ChatCompletionChunk.construct(**c).to_dict() for c in OPENAI["e4-truncated"].chunks]
    assert [c.to_dict() for c in chunks] == sent  # in OpenAI's form: every chunk as sent


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", ["e4-truncated", "e8-cut-under-tool-calls", "e9-no-name"])
def test_stock_ends_normally_on_calls_it_cannot_hand_on(stock: Any, name: str) -> None:
    _, error = read(SERVED, "for", name)
    assert error is None


def test_cut_under_a_normal_finish_raises(patched: None) -> None:
    """E8: the finish reason says the calls are done; the arguments say otherwise."""
    chunks, error = read(SERVED, "async for", "e8-cut-under-tool-calls")
    assert isinstance(error, streamfix_openai.StreamFixAPIError)
    assert isinstance(error, streamfix.TruncatedToolCallError)
    assert error.partial_arguments == {1: '{"zone": "Eu'}
    assert _calls(chunks)[0] == (W, {"city": "Paris"})


def test_call_that_never_gets_a_name_raises(patched: None) -> None:
    """E9: never handed on as a call named ``''``."""
    chunks, error = read(SERVED, "for", "e9-no-name")
    assert isinstance(error, openai.APIError)
    assert isinstance(error, streamfix.MalformedToolCallError)
    assert "call_x" in str(error)
    assert naive(chunks) == []


def test_an_except_api_error_around_the_loop_catches_it(patched: None) -> None:
    caught = None
    with SERVED.client() as client:
        try:
            for _ in client.chat.completions.create(
                model="e4-truncated", messages=USER, stream=True
            ):
                pass
        except openai.APIError as error:  # what frameworks built on the SDK catch
            caught = error
    assert caught is not None and caught.request.url.path.endswith("/chat/completions")
    assert caught.body is None and caught.code is None


# --- what stays the SDK's own --------------------------------------------------------------


class _Counting:
    """Counts the core's assemblies (assemblers made, chunks fed) and repairers made."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.assemblers = self.feeds = self.repairers = 0
        init, feed = ToolCallAssembler.__init__, ToolCallAssembler.feed
        repairer, repairer_feed = streamfix.StreamRepairer.__init__, streamfix.StreamRepairer.feed

        def counted_init(this: Any, *args: Any, **kwargs: Any) -> None:
            self.assemblers += 1
            init(this, *args, **kwargs)

        def counted_feed(this: Any, *args: Any, **kwargs: Any) -> Any:
            self.feeds += 1
            return feed(this, *args, **kwargs)

        def counted_repairer(this: Any, *args: Any, **kwargs: Any) -> None:
            self.repairers += 1
            repairer(this, *args, **kwargs)

        def counted_repairer_feed(this: Any, *args: Any, **kwargs: Any) -> Any:
            self.feeds += 1  # a repairer feeds its own assembler's loop once per chunk
            return repairer_feed(this, *args, **kwargs)

        monkeypatch.setattr(ToolCallAssembler, "__init__", counted_init)
        monkeypatch.setattr(ToolCallAssembler, "feed", counted_feed)
        monkeypatch.setattr(streamfix.StreamRepairer, "__init__", counted_repairer)
        monkeypatch.setattr(streamfix.StreamRepairer, "feed", counted_repairer_feed)


def test_the_stream_helper_assembles_each_chunk_once(
    patched: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``.stream()`` helper's state is the shim's: its raw stream is not repaired too
    (one assembler, each chunk fed once), and its chunk events carry the chunks as sent."""
    counted = _Counting(monkeypatch)
    name = "b3-same-index"
    with (
        SERVED.client() as client,
        helper(client)(model=name, messages=USER, tools=TOOLS) as stream,
    ):
        events = list(stream)
        completion = stream.get_final_completion()
    assert (counted.assemblers, counted.feeds, counted.repairers) == (1, 5, 0)
    message = completion.choices[0].message
    assert [
        (c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or ()
    ] == [
        (W, {"city": "Paris"}),
        (T, {"zone": "Europe/Paris"}),
    ]
    sent = [e.chunk.to_dict() for e in events if e.type == "chunk"]
    assert sent == [ChatCompletionChunk.construct(**c).to_dict() for c in OPENAI[name].chunks]
    assert SERVED.headers[-1]["x-stainless-helper-method"].endswith("chat.completions.stream")


def test_a_raw_stream_is_assembled_once(patched: None, monkeypatch: pytest.MonkeyPatch) -> None:
    counted = _Counting(monkeypatch)
    chunks, _ = read(SERVED, "for", "b3-same-index")
    assert (counted.assemblers, counted.feeds, counted.repairers) == (1, 5, 1)
    assert len(chunks) == 5


def test_async_stream_helper_is_not_repaired_twice(
    patched: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = _Counting(monkeypatch)

    async def run() -> Any:
        async with (
            SERVED.aclient() as client,
            helper(client)(model="c1-repeated-names", messages=USER) as stream,
        ):
            return await stream.get_final_completion()

    completion = asyncio.run(run())
    assert (counted.assemblers, counted.repairers) == (1, 0)
    tool_calls = completion.choices[0].message.tool_calls or []
    assert [c.function.name for c in tool_calls] == ["read_file"]


RESPONSES = [
    {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}},
    {
        "type": "response.output_text.delta",
        "sequence_number": 1,
        "item_id": "msg_1",
        "output_index": 0,
        "content_index": 0,
        "delta": "Hi",
    },
]
LEGACY = [{"id": "cmpl-1", "object": "text_completion", "choices": [{"index": 0, "text": "Hi"}]}]
OTHERS = Served({"responses": RESPONSES, "legacy": LEGACY})


def _stock_code(cls: Any) -> Any:
    from streamfix._shimkit import stock_of

    return stock_of("openai._streaming", f"{cls.__name__}.__stream__").__code__


@pytest.mark.parametrize("installed", [False, True])
def test_other_streams_get_the_sdks_own_iterator(installed: bool) -> None:
    """Responses (from openai 1.66) and legacy completions streams: the iterator stock
    builds, untouched."""
    if installed:
        streamfix_openai.install()
    with OTHERS.client() as client:
        legacy = client.completions.create(model="legacy", prompt="hi", stream=True)
        assert legacy._iterator.gi_code is _stock_code(openai.Stream)
        assert [c.choices[0].text for c in legacy] == ["Hi"]
        if not hasattr(client, "responses"):
            return
        responses = client.responses.create(model="responses", input="hi", stream=True)
        assert responses._iterator.gi_code is _stock_code(openai.Stream)
        assert [e.type for e in responses] == [r["type"] for r in RESPONSES]


def test_async_other_streams_get_the_sdks_own_iterator(patched: None) -> None:
    async def run() -> None:
        async with OTHERS.aclient() as client:
            stream = await client.completions.create(model="legacy", prompt="hi", stream=True)
            assert stream._iterator.ag_code is _stock_code(openai.AsyncStream)
            assert [c.choices[0].text async for c in stream] == ["Hi"]
            if hasattr(client, "responses"):
                events = await client.responses.create(model="responses", input="hi", stream=True)
                assert events._iterator.ag_code is _stock_code(openai.AsyncStream)
                assert [e.type async for e in events] == [r["type"] for r in RESPONSES]

    asyncio.run(run())


def test_a_chat_stream_is_repaired_only_while_installed() -> None:
    with SERVED.client() as client:
        streamfix_openai.install()
        before = client.chat.completions.create(model="b3-same-index", messages=USER, stream=True)
        streamfix_openai.uninstall()
        after = client.chat.completions.create(model="b3-same-index", messages=USER, stream=True)
        assert after._iterator.gi_code is _stock_code(openai.Stream)
        assert _calls(list(before)) == _expected_calls("b3-same-index")
        assert _calls(list(after)) != _expected_calls("b3-same-index")


def test_install_and_uninstall_restore_the_sdks_functions() -> None:
    stock = {cls: cls.__dict__["__stream__"] for cls in (openai.Stream, openai.AsyncStream)}
    assert "openai" in streamfix.install("openai")
    try:
        from streamfix_openai import _wire

        assert openai.Stream.__dict__["__stream__"] is _wire.stream
        assert openai.AsyncStream.__dict__["__stream__"] is _wire.astream
    finally:
        streamfix.uninstall("openai")
    for cls, function in stock.items():
        assert cls.__dict__["__stream__"] is function
    streamfix_openai.install()
    streamfix_openai.install()  # idempotent
    streamfix_openai.uninstall()
    streamfix_openai.uninstall()
    for cls, function in stock.items():
        assert cls.__dict__["__stream__"] is function


def test_early_exit_closes_the_response(patched: None) -> None:
    with SERVED.client() as client:
        stream = client.chat.completions.create(
            model="b1-three-commands", messages=USER, stream=True
        )
        first = next(stream)
        stream._iterator.close()
        assert first.choices[0].delta.role == "assistant"
        assert stream.response.is_closed
