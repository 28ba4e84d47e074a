"""The invariant of docs/wire-shapes.md, as properties: assemble(stream(R)) == R.

For any response R (1-16 calls, nested JSON arguments with every kind of escape,
signatures, text, reasoning) and any way of cutting it into chunks and fragments in each
wire dialect, the assembled message is R: same calls in the same order, same names, ids,
parsed arguments, signatures, text, reasoning and finish reason.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import (
    DIALECTS,
    NAME_POOL,
    Response,
    Streamed,
    examples,
    recut_one_char,
    streamed,
)

import streamfix
from streamfix import (
    ArgumentsDelta,
    AssembledMessage,
    ReasoningDelta,
    TextDelta,
    ToolCallAssembler,
    ToolCallCompleted,
    ToolCallStarted,
    ToolCallUpdated,
    UsageReported,
)

pytestmark = pytest.mark.core

# Diagnostics that must never appear for a well-formed stream of any dialect.
_NEVER_FOR_VALID = {"phantom-call", "duplicate-resend", "skipped-chunk"}

# The forms in which declared tool names may be given; every NAME_POOL name is declared.
TOOL_FORMS = st.sampled_from(
    [
        None,
        list(NAME_POOL),
        [{"type": "function", "function": {"name": n, "parameters": {}}} for n in NAME_POOL],
        {n: {"type": "object", "properties": {}} for n in NAME_POOL},
    ]
)


def feed_all(chunks: Iterable[Any], **kwargs: Any) -> tuple[AssembledMessage, list[Any]]:
    """Feed chunk by chunk; the finished message and every event, in order."""
    asm = ToolCallAssembler(**kwargs)
    events: list[Any] = []
    for chunk in chunks:
        events.extend(asm.feed(chunk))
    return asm.finish(), events


def assert_assembled(msg: AssembledMessage, resp: Response) -> None:
    """``msg`` is exactly what the non-streamed response ``resp`` would carry."""
    assert msg.content == resp.content
    assert msg.reasoning == resp.reasoning
    assert msg.finish_reason == resp.finish_reason
    assert msg.choice == 0
    got = [(tc.id, tc.name) for tc in msg.tool_calls]
    assert got == [(c.id, c.name) for c in resp.calls]
    for pos, (tc, call) in enumerate(zip(msg.tool_calls, resp.calls, strict=True)):
        assert tc.index == pos
        assert tc.type == "function"
        assert json.loads(tc.arguments) == call.args, pos
        assert tc.parsed == call.args, pos
        assert tc.thought_signature == call.signature, pos
        if call.signature is not None:
            google = {"google": {"thought_signature": call.signature}}
            assert tc.extras.get("extra_content") == google
        else:
            assert "extra_content" not in tc.extras
    if resp.usage is not None:
        assert msg.usage is not None
        assert {k: msg.usage.get(k) for k in resp.usage} == resp.usage
    assert msg.thinking_blocks == resp.thinking_blocks  # F6
    assert msg.reasoning_details == resp.reasoning_details  # F5
    codes = {d.code for d in msg.diagnostics}
    assert not codes & _NEVER_FOR_VALID, msg.diagnostics
    assert ("double-encoded-arguments" in codes) == any(c.encoded for c in resp.calls)  # I1
    ids = [c.id for c in resp.calls if c.id is not None]
    assert ("shared-id" in codes) == (len(set(ids)) < len(ids))  # G3


def _same_text(sent: str, raw: str) -> bool:
    """The argument deltas of one call equal the raw text sent for it.

    Whitespace around the JSON value carries no meaning; an assembler may hold it back,
    so only there the comparison ignores it. A zero-argument "" may surface as "{}".
    """
    if raw == "":
        return sent in ("", "{}")
    if raw != raw.strip():
        return sent.strip() == raw.strip()
    return sent == raw


def _check_partials(deltas: list[ArgumentsDelta], args: dict[str, Any], complete: bool) -> None:
    seen: set[str] = set()
    for d in deltas:
        assert d.partial.keys() <= args.keys(), d
        assert all(args[k] == v for k, v in d.partial.items()), d
        assert seen <= d.partial.keys(), "a completed member disappeared from partial"
        seen = set(d.partial)
    if complete and deltas:
        assert deltas[-1].partial == args


def assert_events(events: list[Any], s: Streamed) -> None:
    """The events of one stream tell the same story as the message."""
    resp = s.response
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == resp.content
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == resp.reasoning
    assert all(getattr(e, "choice", 0) == 0 for e in events)
    started = [(i, e) for i, e in enumerate(events) if isinstance(e, ToolCallStarted)]
    assert [e.position for _, e in started] == list(range(len(resp.calls)))
    assert [(e.id, e.name) for _, e in started] == [(c.id, c.name) for c in resp.calls]
    # Started, then every Updated, leave each call's id, name and signature as built
    current: dict[int, tuple[Any, ...]] = {}
    for e in events:
        if isinstance(e, (ToolCallStarted, ToolCallUpdated)):
            assert isinstance(e, ToolCallUpdated) or e.position not in current
            current[e.position] = (e.id, e.name, e.thought_signature)
    assert [current[pos] for pos in range(len(resp.calls))] == [
        (c.id, c.name, c.signature) for c in resp.calls
    ]
    completed: dict[int, ToolCallCompleted] = {}
    for e in events:
        if isinstance(e, ToolCallCompleted):
            assert e.position not in completed, f"call {e.position} completed twice"
            completed[e.position] = e
    for pos, call in enumerate(resp.calls):
        start_at = started[pos][0]
        mine = [
            (i, e)
            for i, e in enumerate(events)
            if isinstance(e, ArgumentsDelta) and e.position == pos
        ]
        assert all(i > start_at for i, _ in mine), "argument delta before its call started"
        deltas = [e for _, e in mine]
        sent = "".join(d.delta for d in deltas)
        assert _same_text(sent, call.text), (pos, sent, call.text)
        has_value = bool(call.text.strip())
        if not call.encoded:  # I1: the stream's value is a string until the end decodes it
            _check_partials(deltas, call.args, has_value)
        if has_value:
            done = completed.get(pos)
            assert done is not None, f"call {pos} never completed"
            assert (done.id, done.name) == (call.id, call.name)
            assert json.loads(done.arguments) == (call.text and json.loads(call.text))
            assert call.encoded or json.loads(done.arguments) == call.args
    if resp.usage is not None:
        reported = [e.usage for e in events if isinstance(e, UsageReported)]
        assert reported
        assert {k: reported[-1].get(k) for k in resp.usage} == resp.usage


def _run_roundtrip(s: Streamed, tools: Any) -> None:
    fast = streamfix.assemble(s.chunks, tools)
    assert_assembled(fast, s.response)
    slow, events = feed_all(s.chunks, tools=tools)
    assert_assembled(slow, s.response)
    assert slow == fast
    assert_events(events, s)


@pytest.mark.parametrize("dialect", DIALECTS)
@examples(400)
@given(data=st.data())
def test_assemble_of_stream_is_the_response(dialect: str, data: st.DataObject) -> None:
    s = data.draw(streamed(dialect), label="streamed")
    tools = data.draw(TOOL_FORMS, label="tools")
    _run_roundtrip(s, tools)


@examples(200)
@given(s=streamed())
def test_recut_one_char_at_a_time_gives_the_same_message(s: Streamed) -> None:
    """h11-style: the stream whole vs every argument text one character per chunk."""
    finer = recut_one_char(s.chunks, s.dialect)
    whole, whole_events = feed_all(s.chunks)
    fine, fine_events = feed_all(finer)
    assert_assembled(whole, s.response)
    assert_assembled(fine, s.response)
    assert (fine.content, fine.reasoning, fine.finish_reason, fine.usage) == (
        whole.content,
        whole.reasoning,
        whole.finish_reason,
        whole.usage,
    )
    assert fine.tool_calls == whole.tool_calls
    assert_events(fine_events, s)

    def per_position(events: list[Any]) -> dict[int, str]:
        out: dict[int, str] = {}
        for e in events:
            if isinstance(e, ArgumentsDelta):
                out[e.position] = out.get(e.position, "") + e.delta
        return out

    assert per_position(fine_events) == per_position(whole_events)

    def milestones(events: list[Any]) -> list[Any]:
        # arguments text is compared as JSON (contract): whitespace after the closing
        # brace may or may not have arrived in the fragment that completed the call
        return [
            (e.position, e.id, e.name, json.loads(e.arguments))
            if isinstance(e, ToolCallCompleted)
            else e
            for e in events
            if not isinstance(e, (ArgumentsDelta, TextDelta, ReasoningDelta))
        ]

    assert milestones(fine_events) == milestones(whole_events)


async def _aiter(items: list[Any]) -> AsyncIterator[Any]:
    for item in items:
        await asyncio.sleep(0)
        yield item


def _validates(s: Streamed) -> bool:
    """The openai SDK's types refuse ``"type": ""`` (G1, G5): those streams stay dicts."""
    return s.cuts.type_form != "empty" and not s.cuts.placeholders


@examples(200)
@given(s=streamed("standard", max_calls=8).filter(_validates), tools=TOOL_FORMS)
def test_openai_chat_completion_chunk_objects(s: Streamed, tools: Any) -> None:
    """The same property through the real ``openai`` pydantic chunk type."""
    from openai.types.chat import ChatCompletionChunk

    typed = [ChatCompletionChunk.model_validate(c) for c in s.chunks]
    msg = streamfix.assemble(typed, tools)
    assert_assembled(msg, s.response)
    slow, events = feed_all(typed, tools=tools)
    assert_assembled(slow, s.response)
    assert_events(events, s)
    amsg = asyncio.run(streamfix.aassemble(_aiter(typed), tools))
    assert_assembled(amsg, s.response)
    assert amsg == msg
