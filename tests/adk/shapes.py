"""The wire shapes of docs/wire-shapes.md as litellm streams, each with the non-streamed
``ModelResponse`` for the same answer (what ADK must end up with)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import support
from adk_fakes import chunk, model_response, sig, tc, usage_chunk

S1, S2 = sig("signature-one"), sig("signature-two")
#: an Anthropic thinking signature (base64, as Anthropic sends one)
AS1, AS2 = sig("anthropic-signed-one"), sig("anthropic-signed-two")
DONE = chunk(finish="tool_calls")
F_ARGS = '{"city":"Paris"}'
G_ARGS = '{"tz":"CET"}'


@dataclass(frozen=True)
class Shape:
    """One wire shape: the stream and the non-streamed response for the same answer."""

    id: str
    chunks: list[Any]
    expected: Any
    #: On which google-adk stock is broken for this shape: "all", "<2.13" (fixed upstream
    #: in 2.13: adk-python#7004 and streamed signatures), "<2.10" (streamed thought parts
    #: joined from 2.10: adk-python#6898) or "" (stock already right).
    stock_broken: str = ""


def legacy(function_call: dict[str, Any]) -> Any:
    """H1: a litellm chunk in the legacy ``delta.function_call`` dialect."""
    body = support.chunk(delta={"role": "assistant", "function_call": function_call})
    return support.to_litellm(body)


def thinking(*blocks: dict[str, Any], reasoning: str | None = None) -> Any:
    """F6: a chunk as litellm's Anthropic stream builds one: ``delta.thinking_blocks``
    pieces (each with litellm's block ``index``; the signature on a piece of its own,
    with empty text), the same pieces in ``provider_specific_fields`` and the text as
    ``reasoning_content`` (empty beside a signature)."""
    pieces = list(blocks)
    return chunk(
        reasoning=reasoning,
        fields={"thinking_blocks": pieces, "provider_specific_fields": {"thinking_blocks": pieces}},
    )


def thought(text: str, index: int = 0) -> Any:
    """F6: a piece of thinking text (litellm's ``reasoning_content`` beside it)."""
    return thinking({"type": "thinking", "thinking": text, "index": index}, reasoning=text)


def signed(signature: str, index: int = 0) -> Any:
    """F6: the signature of the thinking block at ``index``, on a piece of its own."""
    piece = {"type": "thinking", "thinking": "", "signature": signature, "index": index}
    return thinking(piece, reasoning="")


def block(text: str, signature: str) -> dict[str, Any]:
    """F6: a thinking block as the non-streamed message carries it."""
    return {"type": "thinking", "thinking": text, "signature": signature}


REDACTED = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pZ1xQ"}


def details(*entries: dict[str, Any], reasoning: str | None = None, calls: Any = ()) -> Any:
    """F5: a chunk as litellm builds OpenRouter's: ``delta.reasoning_details`` entries
    (among the delta's extras), OpenRouter's ``reasoning`` text as ``reasoning_content``."""
    return chunk(*calls, reasoning=reasoning, fields={"reasoning_details": list(entries)})


def reasoning_text(text: str, index: int = 0) -> dict[str, Any]:
    return {"type": "reasoning.text", "text": text, "format": "google-gemini-v1", "index": index}


def gemini_signature(data: str, call_id: str, index: int) -> dict[str, Any]:
    """F5: OpenRouter's Gemini thought signature, an encrypted entry naming its call."""
    return {
        "type": "reasoning.encrypted",
        "data": data,
        "format": "google-gemini-v1",
        "id": call_id,
        "index": index,
    }


def _calls(*calls: tuple[str | None, str, str, str | None], **kwargs: Any) -> Any:
    return model_response(calls=list(calls), **kwargs)


def _two(first: str | None = "c1", second: str | None = "c2", **kwargs: Any) -> Any:
    return _calls((first, "f", F_ARGS, None), (second, "g", G_ARGS, None), **kwargs)


SHAPES = [
    Shape(
        "A1",
        [
            chunk(tc(0, "c1", "f", F_ARGS), tc(1, "c2", "g", G_ARGS), finish="tool_calls"),
            usage_chunk(),
        ],
        _two(),
        "<2.13",
    ),
    Shape(
        "A2",
        [
            chunk(
                tc(0, "c1", "f", F_ARGS),
                tc(1, "c2", "g", G_ARGS),
                content="Checking.",
                reasoning="Two lookups.",
                finish="tool_calls",
            ),
            usage_chunk(),
        ],
        _two(content="Checking.", reasoning="Two lookups."),
        "<2.13",
    ),
    Shape(
        "A3",
        [
            chunk(tc(0, "c1", "f"), tc(0, args='{"ci')),
            chunk(tc(0, args='ty":"Paris"}')),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None)),
    ),
    Shape(
        "B1-interleaved",
        [
            chunk(tc(0, "c1", "f", '{"city":')),
            chunk(tc(1, "c2", "g", '{"tz":')),
            chunk(tc(0, args='"Paris"}')),
            chunk(tc(1, args='"CET"}')),
            DONE,
            usage_chunk(),
        ],
        _two(),
    ),
    Shape(
        # B1 where the later call completes first: ADK's loop sends index-0 fragments to
        # its fallback index once any call has completed (found by the property test).
        "B1-later-call-completes-first",
        [
            chunk(tc(0, "c1", "f", '{"city":')),
            chunk(tc(1, "c2", "g", G_ARGS)),
            chunk(tc(0, args='"Paris"}')),
            DONE,
            usage_chunk(),
        ],
        _two(),
        "<2.13",
    ),
    Shape(
        "B2-same-index-ids",
        [chunk(tc(0, "c1", "f", F_ARGS)), chunk(tc(0, "c2", "g", G_ARGS)), DONE, usage_chunk()],
        _two(),
    ),
    Shape(
        "B3-same-index-no-ids",
        [
            chunk(tc(0, name="f", args='{"city":')),
            chunk(tc(0, args='"Paris"}')),
            chunk(tc(0, name="g", args=G_ARGS)),
            chunk(finish="stop"),
            usage_chunk(),
        ],
        _two(None, None, finish="stop"),
    ),
    Shape(
        "B3-one-chunk",
        [
            chunk(tc(0, name="f", args=F_ARGS), tc(0, name="g", args=G_ARGS), finish="stop"),
            usage_chunk(),
        ],
        _two(None, None, finish="stop"),
    ),
    Shape(
        "B4-concatenated",
        [
            chunk(tc(0, "c", "f", '{"city":"Paris"} {"city":"Rome"}\n{"city":"Oslo"}')),
            DONE,
            usage_chunk(),
        ],
        _calls(
            ("c", "f", F_ARGS, None),
            ("c-1", "f", '{"city":"Rome"}', None),
            ("c-2", "f", '{"city":"Oslo"}', None),
        ),
        "all",
    ),
    Shape(
        "B5-name-alone",
        [
            chunk(tc(0, "c1", "f", F_ARGS)),
            chunk(tc(0, name="g")),
            chunk(tc(0, args=G_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _two("c1", None),
    ),
    Shape(
        "B6-no-index",
        [
            chunk(tc(None, "c1", "f", '{"city":')),
            chunk(tc(None, args='"Paris"}')),
            chunk(tc(None, "c2", "g", G_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _two(),
    ),
    Shape(
        "B7-odd-indices",
        [chunk(tc(3, "c1", "f", F_ARGS)), chunk(tc(7, "c2", "g", G_ARGS)), DONE, usage_chunk()],
        _two(),
    ),
    Shape(
        "B8-index-changes",
        [
            chunk(tc(1, "c1", "f", "")),
            chunk(tc(0, args='{"city":')),
            chunk(tc(0, args='"Paris"}')),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None)),
        "all",
    ),
    Shape(
        "B9-phantom",
        [chunk(tc(0, "c1", "f", F_ARGS)), chunk(tc(-1, args="{}")), DONE, usage_chunk()],
        _calls(("c1", "f", F_ARGS, None)),
        "all",
    ),
    Shape(
        "C1-repeated-name",
        [
            chunk(tc(0, "c1", "f", '{"city":')),
            chunk(tc(0, "c1", "f", '"Paris"}')),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None)),
        "all",
    ),
    Shape(
        "C2-name-in-pieces",
        [
            chunk(tc(0, "c1", "get_", "")),
            chunk(tc(0, name="weather", args=F_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "get_weather", F_ARGS, None)),
    ),
    Shape(
        "C3-name-after-arguments",
        [chunk(tc(0, "c1", args=F_ARGS)), chunk(tc(0, name="f")), DONE, usage_chunk()],
        _calls(("c1", "f", F_ARGS, None)),
        "all",
    ),
    Shape(
        "C4-re-sent",
        [
            chunk(tc(0, "c1", "f", '{"city":')),
            chunk(tc(0, args='"Paris"}')),
            chunk(tc(0, "c1", "f", F_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None)),
        "all",
    ),
    Shape(
        "D1-object-arguments",
        [chunk(tc(0, "c1", "f", {"city": "Paris"})), DONE, usage_chunk()],
        _calls(("c1", "f", F_ARGS, None)),
    ),
    Shape(
        "D2-zero-arguments",
        [chunk(tc(0, "c1", "ping")), DONE, usage_chunk()],
        _calls(("c1", "ping", "{}", None)),
    ),
    Shape(
        "D3-split-escapes",
        [
            chunk(tc(0, "c1", "f", '{"t":"caf\\u00')),
            chunk(tc(0, args='e9 \\"q\\" \\ud83d')),
            chunk(tc(0, args='\\ude00\\r\\n"}')),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", '{"t":"caf\\u00e9 \\"q\\" \\ud83d\\ude00\\r\\n"}', None)),
    ),
    Shape(
        "D4-header-has-text",
        [
            chunk(tc(0, "c1", "f", '{"')),
            chunk(tc(0, args='city":"Paris"}')),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None)),
    ),
    Shape(
        "E1-finish-stop",
        [chunk(tc(0, "c1", "f", F_ARGS), tc(1, "c2", "g", G_ARGS), finish="stop"), usage_chunk()],
        _two(finish="stop"),
    ),
    Shape(
        "E2-intermediate-finish",
        [
            chunk(tc(0, "c1", "f", F_ARGS), finish="tool_calls"),
            chunk(tc(1, "c2", "g", G_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _two(),
        "all",
    ),
    Shape(
        "E3-no-finish",
        [chunk(tc(0, "c1", "f", F_ARGS)), chunk(tc(1, "c2", "g", G_ARGS)), usage_chunk()],
        _two(finish=None),
    ),
    Shape(
        "E6-empty-choices",
        [
            chunk().model_copy(update={"choices": []}),
            chunk(tc(0, "c1", "f", F_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None)),
    ),
    Shape(
        "E7-two-choices",
        [
            chunk(tc(0, "c1", "f", '{"city":')),
            chunk(tc(0, "z1", "h", '{"w":'), choice=1),
            chunk(tc(0, args='"Paris"}')),
            chunk(tc(0, args="9}"), choice=1),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None)),
        "<2.9",
    ),
    Shape(
        "F1-extra-content-google",
        [
            chunk(
                tc(0, "c1", "f", F_ARGS, extra_content={"google": {"thought_signature": S1}}),
                tc(1, "c2", "g", G_ARGS),
                finish="tool_calls",
            ),
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, S1), ("c2", "g", G_ARGS, None)),
        "<2.13",
    ),
    Shape(
        "F1-extra-content-vertex",
        [
            chunk(tc(0, "c1", "f", F_ARGS, extra_content={"vertex": {"thought_signature": S1}})),
            chunk(tc(1, "c2", "g", G_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, S1), ("c2", "g", G_ARGS, None)),
        "all",
    ),
    Shape(
        "F1-provider-specific-fields",
        [
            chunk(tc(0, "c1", "f", F_ARGS, provider_specific_fields={"thought_signature": S1})),
            chunk(tc(1, "c2", "g", G_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, S1), ("c2", "g", G_ARGS, None)),
        "<2.13",
    ),
    Shape(
        "F1-function-provider-specific-fields",
        [
            chunk(
                {
                    "index": 0,
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "f",
                        "arguments": F_ARGS,
                        "provider_specific_fields": {"thought_signature": S1},
                    },
                }
            ),
            chunk(tc(1, "c2", "g", G_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, S1), ("c2", "g", G_ARGS, None)),
        "<2.13",
    ),
    Shape(
        "F1-in-id",
        [
            chunk(tc(0, f"c1__thought__{S1}", "f", F_ARGS)),
            chunk(tc(1, "c2", "g", G_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _calls((f"c1__thought__{S1}", "f", F_ARGS, None), ("c2", "g", G_ARGS, None)),
    ),
    Shape(
        "F2-signature-after",
        [
            chunk(tc(0, "c1", "f", F_ARGS)),
            chunk(tc(1, "c2", "g", G_ARGS)),
            chunk(tc(0, extra_content={"google": {"thought_signature": S1}})),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, S1), ("c2", "g", G_ARGS, None)),
        "<2.13",
    ),
    Shape(
        "F3-signature-before",
        [
            chunk(tc(0, extra_content={"google": {"thought_signature": S1}})),
            chunk(tc(0, "c1", "f", F_ARGS)),
            chunk(tc(1, "c2", "g", G_ARGS, extra_content={"google": {"thought_signature": S2}})),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, S1), ("c2", "g", G_ARGS, S2)),
        "<2.13",
    ),
    # --- F5, F6: the provider's reasoning metadata (ADK reads thinking_blocks, ignores
    # reasoning_details) ---------------------------------------------------------------
    Shape(
        "F5-openrouter-gemini-signature",
        [
            # one piece of text: google-adk < 2.10 keeps streamed plain reasoning in the
            # pieces it came in, which loses nothing (test_errors_and_contract)
            details(reasoning_text("Add them."), reasoning="Add them."),
            details(gemini_signature(S1, "tool_add_1", 1)),
            chunk(tc(0, "tool_add_1", "f", "")),
            chunk(tc(0, args=F_ARGS)),
            DONE,
            usage_chunk(),
        ],
        # ADK's non-streamed path reads neither reasoning_details nor a signature in it:
        # the thought text is reasoning_content's, the call carries no signature
        _calls(
            ("tool_add_1", "f", F_ARGS, None),
            reasoning="Add them.",
            reasoning_details=[
                {**reasoning_text("Add them.")},
                gemini_signature(S1, "tool_add_1", 1),
            ],
        ),
    ),
    Shape(
        "F5-gemini-signature-alone",
        [
            details(gemini_signature(S1, "c1", 0)),
            chunk(tc(0, "c1", "f", F_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None), reasoning_details=[gemini_signature(S1, "c1", 0)]),
    ),
    Shape(
        # the call brings the same signature itself (F1): ADK reads it off the call
        "F5-call-signs-itself-too",
        [
            details(gemini_signature(S1, "c1", 0)),
            chunk(tc(0, "c1", "f", F_ARGS, extra_content={"google": {"thought_signature": S1}})),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, S1), reasoning_details=[gemini_signature(S1, "c1", 0)]),
        "<2.13",
    ),
    Shape(
        "F6-thinking-signed",
        [
            thought("The user "),
            thought("asks."),
            signed(AS1),
            chunk(content="Hello."),
            chunk(finish="stop"),
            usage_chunk(),
        ],
        model_response(
            content="Hello.",
            reasoning="The user asks.",
            thinking_blocks=[block("The user asks.", AS1)],
            finish="stop",
        ),
        "<2.10",
    ),
    Shape(
        "F6-redacted-thinking",
        [
            thought("One."),
            signed(AS1),
            thinking({**REDACTED, "index": 1}),
            thought("Two.", 2),
            signed(AS2, 2),
            chunk(content="Hi."),
            chunk(finish="stop"),
            usage_chunk(),
        ],
        model_response(
            content="Hi.",
            reasoning="One.Two.",
            thinking_blocks=[block("One.", AS1), REDACTED, block("Two.", AS2)],
            finish="stop",
        ),
        "<2.10",
    ),
    Shape(
        "F6-thinking-before-a-call",
        [
            thought("Use the "),
            thought("tool."),
            signed(AS1),
            chunk(tc(0, "toolu_1", "f", "")),
            chunk(tc(0, args='{"city":')),
            chunk(tc(0, args='"Paris"}')),
            DONE,
            usage_chunk(),
        ],
        _calls(
            ("toolu_1", "f", F_ARGS, None),
            reasoning="Use the tool.",
            thinking_blocks=[block("Use the tool.", AS1)],
        ),
        "<2.10",
    ),
    Shape(
        "F4-text-between",
        [
            chunk(tc(0, "c1", "f", '{"city":')),
            chunk(content="\n"),
            chunk(tc(0, args='"Paris"}')),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None), content="\n"),
    ),
    # --- the second wave (docs/wire-shapes.md E8-E11, G, H, I) ---------------------------
    Shape(
        "G1-placeholder-identity",
        [
            chunk(tc(0, "c1", "f", '{"city":')),
            chunk(tc(0, "", "", '"Paris"}', type="")),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None)),
        "all",
    ),
    Shape(
        "G3-shared-id",
        [
            chunk(tc(0, "c1", "f", F_ARGS)),
            chunk(tc(1, "c1", "g", G_ARGS)),
            DONE,
            usage_chunk(),
        ],
        # ADK answers each call by its id: the second gets its own (derived, as in B4)
        _calls(("c1", "f", F_ARGS, None), (None, "g", G_ARGS, None)),
        "all",
    ),
    Shape(
        "G4-repeated-call",
        [
            chunk(tc(0, "c1", "f", F_ARGS)),
            chunk(tc(1, "c1", "f", F_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None)),
        "all",
    ),
    Shape(
        "G5-type-empty",
        [
            chunk(tc(0, "c1", "f", '{"city":', type="")),
            chunk(tc(0, args='"Paris"}', type="")),
            chunk(tc(1, "c2", "g", G_ARGS, type="")),
            DONE,
            usage_chunk(),
        ],
        _two(),
        "all",
    ),
    Shape(
        "H1-legacy-function-call",
        [
            legacy({"name": "f", "arguments": ""}),
            legacy({"arguments": '{"city":'}),
            legacy({"arguments": '"Paris"}'}),
            chunk(finish="function_call"),
            usage_chunk(),
        ],
        _calls((None, "f", F_ARGS, None)),
        "all",
    ),
    Shape(
        "I1-double-encoded",
        [
            chunk(tc(0, "c1", "f", json.dumps(F_ARGS)[:7])),
            chunk(tc(0, args=json.dumps(F_ARGS)[7:])),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None)),
        "all",
    ),
    Shape(
        "I3-restarted-arguments",
        [
            chunk(tc(0, "c1", "f", '{"location": "Pa')),
            chunk(tc(0, args=F_ARGS)),
            DONE,
            usage_chunk(),
        ],
        _calls(("c1", "f", F_ARGS, None)),
        "all",
    ),
    Shape(
        "text-only",
        [chunk(content="Hello "), chunk(content="world."), chunk(finish="stop"), usage_chunk()],
        model_response(content="Hello world.", finish="stop"),
    ),
]
