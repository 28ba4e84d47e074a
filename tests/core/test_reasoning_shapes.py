"""Named tests of the provider reasoning metadata of docs/wire-shapes.md: F5 (gateway
``delta.reasoning_details``) and F6 (Anthropic ``delta.thinking_blocks`` through litellm).

Each stream is stated as chunk dicts (``tests/support/chunks.py``) and run as dicts, as
``openai`` ``ChatCompletionChunk`` objects and as ``litellm`` ``ModelResponseStream``
objects (the ``kind`` fixture; litellm keeps ``thinking_blocks`` as a declared field of
its ``Delta`` and ``reasoning_details`` among its extras, openai both among its extras),
through ``assemble()`` and through ``ToolCallAssembler.feed()/finish()``, which must agree.
The chunks are this project's own small examples of the recorded shapes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support import Kind, chunk, tc

import streamfix
from streamfix import (
    AssembledMessage,
    ProviderStreamError,
    ReasoningDelta,
    ReasoningDetailDelta,
)

pytestmark = pytest.mark.core

DICT_ONLY = pytest.mark.parametrize("kind", ["dict"], indirect=True)

SIG = "CiQB0e2Kb3+x/9YzAbCdEf0123456789Qq=="
SIG_B = "EjQBMjM0NTY3ODlBQkNERUY+/=="
ANTHROPIC_SIG = "ErUBCkYIBRgCIkBzaWduZWQtdGhpbmtpbmctZXhhbXBsZQ=="

Call = tuple[int, str | None, str, dict[str, Any], str | None]


# --------------------------------------------------------------------------- helpers


def calls(msg: AssembledMessage) -> list[Call]:
    """(index, id, name, parsed arguments, thought signature) of each call."""
    out: list[Call] = []
    for call in msg.tool_calls:
        assert json.loads(call.arguments) == call.parsed, call
        out.append((call.index, call.id, call.name, call.parsed, call.thought_signature))
    return out


def run(kind: Kind, bodies: list[dict[str, Any]]) -> AssembledMessage:
    """Assemble ``bodies`` as ``kind`` by ``assemble()`` and by ``feed()/finish()``."""
    msg = streamfix.assemble(kind(bodies))
    asm = streamfix.ToolCallAssembler()
    for item in kind(bodies):
        asm.feed(item)
    assert asm.finish() == msg, "feed()/finish() and assemble() disagree"
    return msg


def events_of(kind: Kind, bodies: list[dict[str, Any]]) -> list[Any]:
    asm = streamfix.ToolCallAssembler()
    events: list[Any] = []
    for item in kind(bodies):
        events.extend(asm.feed(item))
    asm.finish()
    return events


def details(*entries: dict[str, Any], reasoning: str | None = None) -> dict[str, Any]:
    """A chunk whose delta carries ``reasoning_details`` (and OpenRouter's ``reasoning``
    text beside it, when given)."""
    delta: dict[str, Any] = {"reasoning_details": list(entries)}
    if reasoning is not None:
        delta["reasoning"] = reasoning
    return chunk(delta=delta)


def text_piece(text: str, index: int = 0, **more: Any) -> dict[str, Any]:
    return {"type": "reasoning.text", "text": text, "format": "unknown", "index": index, **more}


def gemini(data: str, call_id: str | None, index: int = 0) -> dict[str, Any]:
    """OpenRouter's Gemini thought signature: an encrypted entry naming its call."""
    entry: dict[str, Any] = {"type": "reasoning.encrypted", "data": data}
    entry["format"] = "google-gemini-v1"
    if call_id is not None:
        entry["id"] = call_id
    entry["index"] = index
    return entry


def thinking(*blocks: dict[str, Any], reasoning: str | None = None) -> dict[str, Any]:
    """A chunk as litellm's Anthropic stream spells one: ``thinking_blocks`` pieces and
    the same text as ``reasoning_content``."""
    return chunk(reasoning=reasoning, delta={"thinking_blocks": list(blocks)})


def call(index: int, call_id: str, name: str, args: str) -> dict[str, Any]:
    return chunk(tc(index, call_id, name, args, type="function"))


def more_args(index: int, args: str) -> dict[str, Any]:
    return chunk(tc(index, args=args))


def two_calls() -> list[dict[str, Any]]:
    return [
        call(0, "tool_add_1", "add", '{"a": 2, '),
        more_args(0, '"b": 3}'),
        call(1, "tool_mul_2", "multiply", '{"a": 2, "b": 3}'),
    ]


# --------------------------------------------------------------------------- F5


def test_f5_text_pieces_joined_by_index(kind: Kind) -> None:
    bodies = [
        chunk(delta={"role": "assistant", "content": ""}),
        details(text_piece("The user "), reasoning="The user "),
        details(text_piece("wants 2+3."), reasoning="wants 2+3."),
        details(text_piece(" Call add."), reasoning=" Call add."),
        call(0, "call_1", "add", '{"a": 2, "b": 3}'),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert msg.reasoning_details == [
        {
            "type": "reasoning.text",
            "text": "The user wants 2+3. Call add.",
            "format": "unknown",
            "index": 0,
        }
    ]
    assert msg.reasoning == "The user wants 2+3. Call add."
    assert calls(msg) == [(0, "call_1", "add", {"a": 2, "b": 3}, None)]
    assert msg.thinking_blocks == []


def test_f5_two_indices_in_order_of_first_appearance(kind: Kind) -> None:
    bodies = [
        details(text_piece("first ", index=0, format="anthropic-claude-v1")),
        details(text_piece("second ", index=1, format="anthropic-claude-v1")),
        details(text_piece("block", index=0), text_piece("block", index=1)),
        details({"type": "reasoning.text", "signature": SIG, "index": 0}),
        details({"type": "reasoning.text", "signature": SIG_B, "index": 1}),
        chunk(content="Done.", finish="stop"),
    ]
    msg = run(kind, bodies)
    assert msg.reasoning_details == [
        {
            "type": "reasoning.text",
            "text": "first block",
            "format": "unknown",
            "index": 0,
            "signature": SIG,
        },
        {
            "type": "reasoning.text",
            "text": "second block",
            "format": "unknown",
            "index": 1,
            "signature": SIG_B,
        },
    ]
    assert msg.content == "Done."


def test_f5_summary_then_encrypted_at_the_same_index_are_two_entries(kind: Kind) -> None:
    """The recorded xAI and GPT-5 streams reuse index 0 for the encrypted reasoning that
    follows the summary: one entry of both types would lose one."""
    summary = {"type": "reasoning.summary", "id": "rs_1", "format": "openai-responses-v1"}
    encrypted = {"type": "reasoning.encrypted", "id": "rs_1", "format": "openai-responses-v1"}
    bodies = [
        details({**summary, "summary": "**Weather** ", "index": 0}),
        details({**summary, "summary": "lookup", "index": 0}),
        details({**encrypted, "data": "gAAAA-part1", "index": 0}),
        details({**encrypted, "data": "-part2", "index": 0}),
        call(0, "call_1", "weather", '{"city": "Florence"}'),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert msg.reasoning_details == [
        {**summary, "summary": "**Weather** lookup", "index": 0},
        {**encrypted, "data": "gAAAA-part1-part2", "index": 0},
    ]
    assert calls(msg) == [(0, "call_1", "weather", {"city": "Florence"}, None)]


def test_f5_empty_signature_never_replaces_a_signature(kind: Kind) -> None:
    """Vercel sends ``"signature": ""`` on every text piece and the signature on a last
    piece without text; ``""`` after it must not erase it."""
    piece = {"type": "reasoning.text", "format": "anthropic-claude-v1", "index": 0}
    bodies = [
        details({**piece, "text": "Think", "signature": ""}),
        details({**piece, "text": "ing.", "signature": ""}),
        details({**piece, "text": "", "signature": ANTHROPIC_SIG}),
        details({**piece, "text": "", "signature": ""}),
        chunk(finish="stop"),
    ]
    msg = run(kind, bodies)
    assert msg.reasoning_details == [{**piece, "text": "Thinking.", "signature": ANTHROPIC_SIG}]


def test_f5_a_field_only_ever_null_stays_null(kind: Kind) -> None:
    bodies = [
        details(text_piece("a", signature=None, id="rt_1")),
        details(text_piece("b", signature=None, id=None)),
        chunk(finish="stop"),
    ]
    msg = run(kind, bodies)
    assert msg.reasoning_details == [
        {
            "type": "reasoning.text",
            "text": "ab",
            "format": "unknown",
            "index": 0,
            "signature": None,
            "id": "rt_1",
        }
    ]


@pytest.mark.parametrize("where", ["before-the-call", "after-the-call", "after-both-calls"])
def test_f5_gemini_encrypted_entry_signs_the_call_it_names(kind: Kind, where: str) -> None:
    """OpenRouter carries Gemini's thought signature as a ``reasoning.encrypted`` entry
    whose ``id`` is the call's id: it signs that call (here the second), never another."""
    entry = details(gemini("EjQKMgEM", None), gemini("OdbHkJxR", "tool_mul_2", index=1))
    order = {
        "before-the-call": [entry, *two_calls()],
        "after-the-call": [*two_calls()[:2], entry, two_calls()[2]],
        "after-both-calls": [*two_calls(), entry],
    }[where]
    msg = run(kind, [*order, chunk(finish="tool_calls")])
    assert calls(msg) == [
        (0, "tool_add_1", "add", {"a": 2, "b": 3}, None),
        (1, "tool_mul_2", "multiply", {"a": 2, "b": 3}, "OdbHkJxR"),
    ]
    # the entry is also kept as sent, the id-less one too
    assert msg.reasoning_details == [
        {
            "type": "reasoning.encrypted",
            "data": "EjQKMgEM",
            "format": "google-gemini-v1",
            "index": 0,
        },
        {
            "type": "reasoning.encrypted",
            "data": "OdbHkJxR",
            "format": "google-gemini-v1",
            "id": "tool_mul_2",
            "index": 1,
        },
    ]


def test_f5_gemini_signature_in_pieces_is_joined_before_signing(kind: Kind) -> None:
    bodies = [
        details(gemini("EjQK", "tool_add_1")),
        details({"data": "MgEM", "index": 0}),
        *two_calls(),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg)[0][4] == "EjQKMgEM"
    assert calls(msg)[1][4] is None
    assert msg.reasoning_details[0]["data"] == "EjQKMgEM"


def test_f5_encrypted_entry_whose_id_names_no_call_signs_nothing(kind: Kind) -> None:
    bodies = [
        details(gemini("EjQKMgEM", "tool_gone_9")),
        *two_calls(),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert [c[4] for c in calls(msg)] == [None, None]
    assert msg.reasoning_details == [
        {
            "type": "reasoning.encrypted",
            "data": "EjQKMgEM",
            "format": "google-gemini-v1",
            "id": "tool_gone_9",
            "index": 0,
        }
    ]


def test_f5_encrypted_entry_of_another_format_signs_nothing(kind: Kind) -> None:
    """Only Gemini's format is a thought signature: GPT-5's encrypted reasoning whose id
    happens to equal a call's is reasoning, not a signature."""
    entry = {"type": "reasoning.encrypted", "data": "gAAAA", "format": "openai-responses-v1"}
    bodies = [
        details({**entry, "id": "tool_add_1", "index": 0}),
        *two_calls(),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert [c[4] for c in calls(msg)] == [None, None]
    assert msg.reasoning_details == [{**entry, "id": "tool_add_1", "index": 0}]


def test_f5_a_call_keeps_its_own_signature(kind: Kind) -> None:
    """A signature sent on the call itself (F1) wins over an entry naming it."""
    bodies = [
        details(gemini(SIG_B, "call_1")),
        chunk(
            tc(
                0,
                "call_1",
                "get_time",
                '{"tz": "UTC"}',
                type="function",
                extra_content={"google": {"thought_signature": SIG}},
            )
        ),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [(0, "call_1", "get_time", {"tz": "UTC"}, SIG)]
    assert msg.reasoning_details[0]["data"] == SIG_B


def test_f5_two_signatures_at_one_index_stay_two_entries(kind: Kind) -> None:
    """Two encrypted entries with different ids are two signatures, never one joined."""
    bodies = [
        *two_calls(),
        details(gemini(SIG, "tool_add_1")),
        details(gemini(SIG_B, "tool_mul_2")),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert [c[4] for c in calls(msg)] == [SIG, SIG_B]
    assert [(e["id"], e["data"]) for e in msg.reasoning_details] == [
        ("tool_add_1", SIG),
        ("tool_mul_2", SIG_B),
    ]


def test_f5_to_openai_dict_round_trip(kind: Kind) -> None:
    """The assembled message as a non-streamed message carries it: read back as one
    (a choice's ``message``), it is the same message."""
    bodies = [
        details(text_piece("Add ", format="google-gemini-v1"), reasoning="Add "),
        details(text_piece("them.", format="google-gemini-v1"), reasoning="them."),
        details(gemini(SIG, "tool_add_1", index=1)),
        *two_calls(),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    out = msg.to_openai_dict()
    assert out["reasoning_details"] == [
        {"type": "reasoning.text", "text": "Add them.", "format": "google-gemini-v1", "index": 0},
        {
            "type": "reasoning.encrypted",
            "data": SIG,
            "format": "google-gemini-v1",
            "id": "tool_add_1",
            "index": 1,
        },
    ]
    assert "thinking_blocks" not in out
    assert [c["id"] for c in out["tool_calls"]] == ["tool_add_1", "tool_mul_2"]
    assert json.loads(json.dumps(out)) == out  # plain JSON, as a request carries it
    out["reasoning_details"][0]["text"] = "changed"  # a copy: the message is unchanged
    assert msg.reasoning_details[0]["text"] == "Add them."

    again = msg.to_openai_dict()
    again["reasoning"] = again.pop("reasoning_content")
    for i, entry in enumerate(again["tool_calls"]):
        entry["index"] = i
    body = {"choices": [{"index": 0, "message": again, "finish_reason": "tool_calls"}]}
    back = streamfix.assemble([body])
    assert back.reasoning_details == msg.reasoning_details
    assert back.reasoning == msg.reasoning
    assert calls(back) == calls(msg)
    assert calls(msg)[0][4] == SIG


@DICT_ONLY
def test_f5_malformed_pieces_are_skipped_with_a_diagnostic(kind: Kind) -> None:
    bodies = [
        details(text_piece("kept"), "not an entry"),
        chunk(delta={"reasoning_details": {"type": "reasoning.text"}}),
        details({"type": "reasoning.text", "text": 7, "format": "unknown", "index": 0}),
        chunk(finish="stop"),
    ]
    msg = run(kind, bodies)
    assert msg.reasoning_details == [
        {"type": "reasoning.text", "text": "kept", "format": "unknown", "index": 0}
    ]
    problems = [d.detail for d in msg.diagnostics if d.code == "skipped-chunk"]
    assert problems == [
        "an entry of reasoning_details is str, not an object",
        "reasoning_details is dict, not a list",
        "reasoning_details text not a string; ignored",
    ]


def test_f5_fast_path_leaves_a_continuation_with_details_to_the_normaliser(
    kind: Kind,
) -> None:
    """A chunk that continues a call's arguments and carries an entry is not a bare
    continuation: a shim must not pass it on as one, and the entry is kept."""
    asm = streamfix.ToolCallAssembler()
    asm.feed(kind.one(call(0, "call_1", "add", '{"a": ')))
    asm.feed(kind.one(more_args(0, "2")))
    assert asm.continued == 0
    both = more_args(0, "}")
    both["choices"][0]["delta"]["reasoning_details"] = [gemini(SIG, "call_1")]
    asm.feed(kind.one(both))
    assert asm.continued is None
    msg = asm.finish()
    assert calls(msg) == [(0, "call_1", "add", {"a": 2}, SIG)]
    assert (
        streamfix.assemble(kind([call(0, "call_1", "add", '{"a": '), more_args(0, "2"), both]))
        == msg
    )


def test_f5_details_of_one_choice_stay_with_it(kind: Kind) -> None:
    bodies = [
        details(text_piece("zero")),
        chunk(choice=1, delta={"reasoning_details": [text_piece("one")]}),
        chunk(finish="stop"),
        chunk(choice=1, finish="stop"),
    ]
    asm = streamfix.ToolCallAssembler()
    for item in kind(bodies):
        asm.feed(item)
    messages = asm.finish_all()
    assert [m.reasoning_details[0]["text"] for m in messages.values()] == ["zero", "one"]


def test_f5_a_provider_error_carries_the_details_so_far(kind: Kind) -> None:
    bodies = [details(text_piece("so far")), chunk(error={"message": "overloaded", "code": 529})]
    with pytest.raises(ProviderStreamError) as caught:
        run(kind, bodies)
    assert caught.value.message.reasoning_details == [
        {"type": "reasoning.text", "text": "so far", "format": "unknown", "index": 0}
    ]


# --------------------------------------------------------------------------- F6


def test_f6_text_pieces_then_a_signature_piece(kind: Kind) -> None:
    bodies = [
        chunk(delta={"role": "assistant", "content": ""}),
        thinking({"type": "thinking", "thinking": "The user "}, reasoning="The user "),
        thinking({"type": "thinking", "thinking": "asks."}, reasoning="asks."),
        thinking({"type": "thinking", "thinking": "", "signature": ANTHROPIC_SIG}),
        chunk(content="Hello."),
        chunk(finish="stop"),
    ]
    msg = run(kind, bodies)
    assert msg.thinking_blocks == [
        {"type": "thinking", "thinking": "The user asks.", "signature": ANTHROPIC_SIG}
    ]
    assert msg.reasoning == "The user asks."
    assert msg.content == "Hello."
    assert msg.reasoning_details == []


def test_f6_signature_piece_without_text_field(kind: Kind) -> None:
    bodies = [
        thinking({"type": "thinking", "thinking": "Hmm."}, reasoning="Hmm."),
        thinking({"type": "thinking", "signature": ANTHROPIC_SIG}),
        chunk(finish="stop"),
    ]
    msg = run(kind, bodies)
    assert msg.thinking_blocks == [
        {"type": "thinking", "thinking": "Hmm.", "signature": ANTHROPIC_SIG}
    ]


def test_f6_a_new_block_after_a_signature_and_around_redacted_thinking(kind: Kind) -> None:
    bodies = [
        thinking({"type": "thinking", "thinking": "one"}, reasoning="one"),
        thinking({"type": "thinking", "signature": "SIG-1"}),
        thinking({"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3p"}),
        thinking({"type": "redacted_thinking", "data": "EmwKAhgBEgyAnother"}),
        thinking({"type": "thinking", "thinking": "two"}, reasoning="two"),
        thinking({"type": "thinking", "thinking": "", "signature": "SIG-2"}),
        thinking({"type": "thinking", "thinking": "three"}, reasoning="three"),
        chunk(finish="stop"),
    ]
    msg = run(kind, bodies)
    assert msg.thinking_blocks == [
        {"type": "thinking", "thinking": "one", "signature": "SIG-1"},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3p"},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgyAnother"},
        {"type": "thinking", "thinking": "two", "signature": "SIG-2"},
        {"type": "thinking", "thinking": "three"},  # never signed: kept, not dropped
    ]
    assert msg.reasoning == "onetwothree"


def test_f6_blocks_before_tool_calls(kind: Kind) -> None:
    bodies = [
        thinking({"type": "thinking", "thinking": "Use the "}, reasoning="Use the "),
        thinking({"type": "thinking", "thinking": "tools."}, reasoning="tools."),
        thinking({"type": "thinking", "thinking": "", "signature": ANTHROPIC_SIG}),
        *two_calls(),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    block = {"type": "thinking", "thinking": "Use the tools.", "signature": ANTHROPIC_SIG}
    assert msg.thinking_blocks == [block]
    assert calls(msg) == [
        (0, "tool_add_1", "add", {"a": 2, "b": 3}, None),
        (1, "tool_mul_2", "multiply", {"a": 2, "b": 3}, None),
    ]
    out = msg.to_openai_dict()
    assert out["thinking_blocks"] == [block]
    assert out["reasoning_content"] == "Use the tools."
    assert "reasoning_details" not in out
    assert [c["function"]["name"] for c in out["tool_calls"]] == ["add", "multiply"]


def test_f6_reasoning_text_is_unchanged(kind: Kind) -> None:
    """``reasoning_content`` goes to ``reasoning`` as it always did, whatever the blocks
    say: the two are joined separately, never one into the other."""
    bodies = [
        thinking({"type": "thinking", "thinking": "block text"}, reasoning="reasoning "),
        chunk(reasoning="text"),
        thinking({"type": "thinking", "signature": ANTHROPIC_SIG}),
        chunk(finish="stop"),
    ]
    msg = run(kind, bodies)
    assert msg.reasoning == "reasoning text"
    assert msg.thinking_blocks == [
        {"type": "thinking", "thinking": "block text", "signature": ANTHROPIC_SIG}
    ]


# --------------------------------------------------------------------------- events


def test_f5_f6_events(kind: Kind) -> None:
    bodies = [
        details(text_piece("a"), reasoning="a"),
        details(text_piece("x", index=1)),
        details(text_piece("b")),
        thinking({"type": "thinking", "thinking": "t"}, reasoning="t"),
        thinking({"type": "thinking", "signature": "S"}),
        thinking({"type": "redacted_thinking", "data": "R"}),
        chunk(finish="stop"),
    ]
    events = events_of(kind, bodies)
    pieces = [
        (e.field, e.position, e.piece, e.choice)
        for e in events
        if isinstance(e, ReasoningDetailDelta)
    ]
    assert pieces == [
        ("reasoning_details", 0, text_piece("a"), 0),
        ("reasoning_details", 1, text_piece("x", index=1), 0),
        ("reasoning_details", 0, text_piece("b"), 0),
        ("thinking_blocks", 0, {"type": "thinking", "thinking": "t"}, 0),
        ("thinking_blocks", 0, {"type": "thinking", "signature": "S"}, 0),
        ("thinking_blocks", 1, {"type": "redacted_thinking", "data": "R"}, 0),
    ]
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == ["a", "t"]
    # the event comes with the chunk that brought the piece, after its reasoning text
    kinds = [type(e).__name__ for e in events]
    assert kinds[:2] == ["ReasoningDelta", "ReasoningDetailDelta"]
    assert "ReasoningDetailDelta" in streamfix.__all__


# --------------------------------------------------------------------------- neither


def test_message_without_reasoning_metadata_is_unchanged(kind: Kind) -> None:
    bodies = [
        chunk(delta={"role": "assistant", "content": ""}),
        chunk(reasoning="plain reasoning"),
        call(0, "call_1", "add", '{"a": 2, "b": 3}'),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert msg.reasoning_details == []
    assert msg.thinking_blocks == []
    assert msg.to_openai_dict() == {
        "role": "assistant",
        "content": None,
        "reasoning_content": "plain reasoning",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
            }
        ],
    }
    assert AssembledMessage().to_openai_dict() == {"role": "assistant", "content": None}
    assert not any(isinstance(e, ReasoningDetailDelta) for e in events_of(kind, bodies))


def test_empty_lists_are_no_metadata(kind: Kind) -> None:
    bodies = [
        chunk(delta={"reasoning_details": [], "thinking_blocks": []}, content="Hi"),
        chunk(finish="stop"),
    ]
    msg = run(kind, bodies)
    assert (msg.content, msg.reasoning_details, msg.thinking_blocks) == ("Hi", [], [])
    assert set(msg.to_openai_dict()) == {"role", "content"}
