"""``_fastpath.consume``'s recogniser agrees across chunk types and with the normaliser.

``continuation(c)`` below runs the assembler's own loop on one chunk, with a routing
function that records what the loop hands it: ``(choice, index, text)`` for a chunk the
fast path takes, ``None`` for one it passes to the normaliser.

For every chunk of the public corpus (its OpenAI-dialect scenarios) and of the property
strategies (streams of every dialect, as cut, and re-cut one character per chunk):

(a) the same chunk gives the same answer as a dict and as an ``openai``
    ``ChatCompletionChunk`` built as the SDK's stream builds it, without validation
    (unless that changes a value); each object (that one, a validated one, a ``litellm``
    ``ModelResponseStream``) gives the same answer as its own ``model_dump()``: they may
    change a chunk on construction (``"0"`` becomes an integer, G6; litellm makes missing
    indices positions);
(b) whenever ``continuation(c)`` is ``(choice, index, text)``, ``normalize(c)`` reads
    exactly one choice with that number carrying no text, reasoning or finish reason, no
    usage, no error, no problem, and exactly one fragment:
    ``Fragment(index, None, None, text, None, None)``. (b) holds for any dict too, the
    strategies' malformed chunks included: the fast path never accepts what the
    normaliser reads otherwise.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import Streamed, examples, malformed_chunks, recut_one_char, streamed
from support import chunk, tc, to_litellm, to_openai

import streamfix
import streamfix.testing
from streamfix._fastpath import consume
from streamfix._normalize import Fragment, normalize

pytestmark = pytest.mark.core

CORPUS = streamfix.testing.scenarios("openai")


class _AnyChoice(dict[int, Any]):
    """Every choice number is "open": ``get`` returns the number itself as the state."""

    def get(self, number: int, default: Any = None) -> Any:  # type: ignore[override]
        return number


def continuation(chunk: Any) -> tuple[int, int, str] | None:
    """What the fast path makes of ``chunk``: the ``(choice, index, text)`` it would
    append, or ``None`` if the chunk goes to the normaliser."""
    taken: list[tuple[int, int, str]] = []
    passed: list[Any] = []

    def route(number: int, index: int, text: str) -> None:
        taken.append((number, index, text))

    consume((chunk,), _AnyChoice(), route, lambda c, _: passed.append(c), None, None)  # type: ignore[arg-type]
    assert passed == [chunk]  # ``route`` named no call: the normaliser gets it too
    return taken[0] if taken else None


def _validated(body: dict[str, Any]) -> Any:
    """The chunk as a validated ``openai`` ``ChatCompletionChunk``; ``None`` if the model
    rejects it."""
    from openai.types.chat import ChatCompletionChunk
    from pydantic import ValidationError

    try:
        return ChatCompletionChunk.model_validate(copy.deepcopy(body))
    except ValidationError:
        return None


def agrees_with_normalize(value: Any) -> tuple[int, int, str] | None:
    """(b) for one chunk of any type; its continuation."""
    found = continuation(value)
    if found is None:
        return None
    number, index, text = found
    read = normalize(value)
    assert read.usage is None, (value, read)
    assert read.error is None, (value, read)
    assert read.problems == [], (value, read)
    assert len(read.choices) == 1, (value, read)
    (choice,) = read.choices
    assert choice.choice == number, (value, read)
    assert choice.content in (None, ""), (value, read)
    assert choice.reasoning in (None, ""), (value, read)
    assert choice.finish_reason is None, (value, read)
    assert choice.fragments == [Fragment(index, None, None, text, None, None)], (value, read)
    return found


def _coerced(body: dict[str, Any]) -> bool:
    """Whether the SDK's chunk builder changes a value of ``body`` (a digit-string index,
    G6, becomes an integer)."""
    return any(
        type(entry.get("index")) is str
        for choice in body.get("choices") or ()
        for entry in (choice.get("delta") or {}).get("tool_calls") or ()
    )


def check(body: dict[str, Any]) -> tuple[int, int, str] | None:
    """(a) and (b) for one chunk dict and its objects; the dict's continuation."""
    found = agrees_with_normalize(body)
    validated = _validated(body)
    if validated is not None:  # validation may coerce (G6: "0" becomes 0): its own dump
        assert continuation(validated) == continuation(validated.model_dump(exclude_unset=True))
        agrees_with_normalize(validated)
    constructed = to_openai(body)
    assert continuation(constructed) == continuation(
        constructed.model_dump(exclude_unset=True, warnings=False)
    ), body
    if not _coerced(body):
        assert continuation(constructed) == found, body
    agrees_with_normalize(constructed)
    from pydantic import ValidationError

    try:
        made = to_litellm(body)
    except ValidationError:  # litellm's types refuse it (H1 pieces, I2's "function": null)
        return found
    dumped = made.model_dump()
    assert continuation(made) == continuation(dumped), (body, dumped)
    agrees_with_normalize(made)
    agrees_with_normalize(dumped)
    return found


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_corpus(name: str) -> None:
    for body in CORPUS[name].chunks:
        check(body)


def test_the_corpus_takes_the_fast_path() -> None:
    """The corpus has continuations to agree on (the tests above are not vacuous)."""
    found = [check(body) for s in CORPUS.values() for body in s.chunks]
    assert sum(f is not None for f in found) >= 10


@examples(300)
@given(s=streamed())
def test_streams_as_cut(s: Streamed) -> None:
    for body in s.chunks:
        check(body)


@examples(150)
@given(s=streamed(max_calls=4))
def test_streams_one_character_per_chunk(s: Streamed) -> None:
    for body in recut_one_char(s.chunks, s.dialect):
        check(body)


@examples(500)
@given(body=malformed_chunks)
def test_malformed_chunks(body: Any) -> None:
    agrees_with_normalize(body)


_ODD = st.sampled_from([None, 0, 1, -1, 1.5, True, False, "", "x", [], {}, {"a": 1}])


@st.composite
def near_continuations(draw: st.DrawFn) -> dict[str, Any]:
    """A continuation chunk with one to three of its fields (or fields it could have)
    set to odd values: the edge of what the fast path accepts."""
    text = draw(st.text(max_size=3))
    body = chunk(tc(draw(st.integers(0, 2)), args=text), choice=draw(st.integers(0, 2)))
    (choice,) = body["choices"]
    delta = choice["delta"]
    (entry,) = delta["tool_calls"]
    function = entry["function"]
    places = [
        *[(body, key) for key in ("usage", "error", "model")],
        *[(choice, key) for key in ("index", "finish_reason", "logprobs")],
        *[(delta, key) for key in ("role", "content", "reasoning_content", "reasoning")],
        *[(entry, key) for key in ("index", "id", "type", "extra_content")],
        *[(entry, "provider_specific_fields"), (function, "provider_specific_fields")],
        *[(function, key) for key in ("name", "arguments", "thought_signature")],
    ]
    for _ in range(draw(st.integers(1, 3))):
        container, key = places[draw(st.integers(0, len(places) - 1))]
        container[key] = draw(_ODD)
    return body


@examples(500)
@given(body=near_continuations())
def test_near_continuations(body: dict[str, Any]) -> None:
    agrees_with_normalize(body)
    agrees_with_normalize(to_openai(body))


SIGNED = {"extra_content": {"google": {"thought_signature": "c2ln"}}}
NAMED: dict[str, tuple[dict[str, Any], tuple[int, int, str] | None]] = {
    "bare": (chunk(tc(0, args="x")), (0, 0, "x")),
    "explicit-nulls": (
        chunk(tc(2, None, None, "x", type="function"), choice=1, delta={"content": None}),
        (1, 2, "x"),
    ),
    "empty-content": (chunk(tc(0, args="x"), content=""), (0, 0, "x")),
    "with-id": (chunk(tc(0, "c", args="x")), None),
    "with-name": (chunk(tc(0, name="f", args="x")), None),
    "with-content": (chunk(tc(0, args="x"), content="hi"), None),
    "with-reasoning": (chunk(tc(0, args="x"), reasoning="hm"), None),
    "with-finish": (chunk(tc(0, args="x"), finish="stop"), None),
    "with-usage": (chunk(tc(0, args="x"), usage={"total_tokens": 1}), None),
    "with-signature": (chunk(tc(0, args="x", **SIGNED)), None),
    "without-index": (chunk(tc(args="x")), None),
    "two-entries": (chunk(tc(0, args="x"), tc(1, args="y")), None),
    "arguments-absent": (chunk(tc(0, function_always=True)), None),
}


@pytest.mark.parametrize("name", list(NAMED))
def test_named_chunks(name: str) -> None:
    body, expected = NAMED[name]
    assert check(body) == expected


EDGES: dict[str, dict[str, Any]] = {
    "negative-choice-index": chunk(tc(0, args="x"), choice=-1),
    "content-zero": chunk(tc(0, args="x"), delta={"content": 0}),
    "reasoning-empty-list": chunk(tc(0, args="x"), delta={"reasoning_content": []}),
    "entry-extra-null": chunk(tc(0, args="x", extra_content=None)),
    "entry-provider-fields-null": chunk(tc(0, args="x", provider_specific_fields=None)),
    "function-extra-key": chunk(tc(0, args="x", fn_extra={"foo": 1})),
    "type-null": chunk(tc(0, args="x", type=None)),
    "refusal-text": chunk(tc(0, args="x"), delta={"refusal": "no"}),
}


@pytest.mark.parametrize("name", list(EDGES))
def test_edges_agree_with_normalize(name: str) -> None:
    """Odd but possible continuations: what the fast path accepts, the normaliser reads
    the same way (as a dict and as the openai SDK's unvalidated object)."""
    agrees_with_normalize(EDGES[name])
    agrees_with_normalize(to_openai(EDGES[name]))


def test_feed_says_which_chunks_only_continued() -> None:
    """``ToolCallAssembler.continued`` after each ``feed``: the wire index of a chunk the
    fast path took, else ``None`` (a header, a chunk with text, a finish)."""
    chunks = [
        chunk(tc(1, "call_a", "get_weather", "")),
        chunk(tc(1, args='{"city": ')),
        chunk(tc(1, args='"Paris"}'), content="hi"),
        chunk(tc(1, args="")),
        chunk(finish="tool_calls"),
    ]
    assembler = streamfix.ToolCallAssembler()
    seen = []
    for body in chunks:
        assembler.feed(body)
        seen.append(assembler.continued)
    assert seen == [None, 1, None, None, None]
    assert assembler.finish().tool_calls[0].arguments == '{"city": "Paris"}'
