"""Fuzz: whatever arrives, the assembler raises only StreamFixError subclasses.

Malformed chunks are skipped (with a diagnostic) or end the assembly with a typed error;
never a KeyError, TypeError, IndexError, AttributeError, ValueError or RecursionError
leaking out of feed() or finish(). After an error the assembler refuses more input.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import (
    HUGE,
    Streamed,
    examples,
    garbage,
    malformed_chunks,
    plain_json,
    streamed,
)
from support import chunk, tc

import streamfix
from streamfix import (
    ArgumentsTooLargeError,
    AssembledMessage,
    AssemblerClosedError,
    ProviderStreamError,
    StreamFixError,
    ToolCallAssembler,
)

pytestmark = pytest.mark.core


VALID = chunk(content="ok")


def _check_error(err: StreamFixError) -> None:
    assert isinstance(err.message, (AssembledMessage, type(None)))
    assert isinstance(err.partial_arguments, dict)
    if err.message is not None:
        _check_message(err.message)


def _check_message(msg: AssembledMessage) -> None:
    assert isinstance(msg, AssembledMessage)
    assert isinstance(msg.content, str)
    assert isinstance(msg.reasoning, str)
    for pos, call in enumerate(msg.tool_calls):
        assert isinstance(call.name, str)
        assert call.name, "a call handed out with no name"
        assert call.index == pos
        assert isinstance(call.parsed, dict)
        assert json.loads(call.arguments) == call.parsed


def _assert_closed(asm: ToolCallAssembler) -> None:
    with pytest.raises(AssemblerClosedError):
        asm.feed(VALID)
    with pytest.raises(AssemblerClosedError):
        asm.finish()


def feed_guarded(chunks: list[Any], **kwargs: Any) -> AssembledMessage | StreamFixError:
    """Feed every chunk and finish; only StreamFixError may come out, and then it closes.

    Any other exception propagates and fails the test.
    """
    asm = ToolCallAssembler(**kwargs)
    for body in chunks:
        try:
            events = asm.feed(body)
        except StreamFixError as err:
            _check_error(err)
            _assert_closed(asm)
            return err
        assert isinstance(events, list)
    try:
        msg = asm.finish()
    except StreamFixError as err:
        _check_error(err)
        _assert_closed(asm)
        return err
    _check_message(msg)
    _assert_closed(asm)
    return msg


def assemble_guarded(chunks: list[Any], **kwargs: Any) -> None:
    try:
        msg = streamfix.assemble(chunks, **kwargs)
    except StreamFixError as err:
        _check_error(err)
    except TypeError as err:  # a stream where no item is a chunk
        assert str(err).startswith("expected an iterable of chunks; no item was one"), err
        asm = ToolCallAssembler()
        for body in chunks:
            asm.feed(body)
        assert not asm._choices and asm._usage is None
    else:
        _check_message(msg)


# --------------------------------------------------------------------------- random input


@examples(300)
@given(
    chunks=st.lists(malformed_chunks, max_size=6),
    limit=st.none() | st.integers(0, 64),
)
def test_malformed_chunks_raise_only_streamfix_errors(chunks: list[Any], limit: Any) -> None:
    feed_guarded(chunks, max_argument_bytes=limit)
    assemble_guarded(chunks, max_argument_bytes=limit)


@examples(150)
@given(chunks=st.lists(st.one_of(garbage, plain_json), max_size=5))
def test_random_values_raise_only_streamfix_errors(chunks: list[Any]) -> None:
    feed_guarded(chunks)
    assemble_guarded(chunks)


def _paths(node: Any) -> Iterator[tuple[Any, Any]]:
    """Every (container, key) slot inside a chunk."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield node, key
            yield from _paths(value)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield node, i
            yield from _paths(value)


_wrong = st.one_of(
    st.none(),
    garbage,
    st.sampled_from([[], {}, "", 0, -1, 1.5, b"x", "x", True, [{}], {"index": 0}]),
)


@st.composite
def mutated(draw: st.DrawFn) -> list[Any]:
    s: Streamed = draw(streamed(max_calls=4))
    chunks = copy.deepcopy(s.chunks)
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["drop", "set", "set", "set", "delete"]))
        if op == "drop" and chunks:
            del chunks[draw(st.integers(0, len(chunks) - 1))]
            continue
        slots = [p for c in chunks for p in _paths(c)]
        if not slots:
            continue
        container, key = slots[draw(st.integers(0, len(slots) - 1))]
        if op == "delete":
            del container[key]
        else:
            container[key] = draw(_wrong)
    return chunks


@examples(300)
@given(chunks=mutated())
def test_mutated_valid_streams_raise_only_streamfix_errors(chunks: list[Any]) -> None:
    feed_guarded(chunks)
    assemble_guarded(chunks)


_indices = st.one_of(
    st.integers(),
    st.sampled_from(
        [
            -1,
            -(2**63),
            2**63,
            10**30,
            1.5,
            float("nan"),
            float("inf"),
            "0",
            "x",
            True,
            None,
            b"0",
            [0],
            {"i": 0},
        ]
    ),
)


@examples(150)
@given(indices=st.lists(_indices, min_size=1, max_size=6))
def test_weird_indices_never_escape(indices: list[Any]) -> None:
    """Negative, huge, float, str, bytes indices: no IndexError, no giant allocation."""
    chunks = []
    for n, index in enumerate(indices):
        chunks.append(chunk(tc(index, f"call_{n}", "f", "")))
        chunks.append(chunk(tc(index, args='{"n": ')))
        chunks.append(chunk(tc(index, args=f"{n}}}")))
    chunks.append(chunk(finish="tool_calls"))
    feed_guarded(chunks)
    assemble_guarded(chunks)


# --------------------------------------------------------------------------- huge and deep


def _nested_dict(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {}
    for _ in range(depth):
        node = {"a": node}
    return node


def _nested_list(depth: int) -> list[Any]:
    node: list[Any] = []
    for _ in range(depth):
        node = [node]
    return node


def _huge_cases() -> dict[str, list[Any]]:
    mb_value = '{"a": "' + HUGE + '"}'
    deep = "[" * 100_000 + "]" * 100_000
    return {
        "1MB argument string in one fragment": [
            chunk(tc(0, "c", "f", mb_value)),
            chunk(finish="tool_calls"),
        ],
        "1MB argument string in 1KB fragments": [
            chunk(tc(0, "c", "f", "")),
            *(chunk(tc(0, args=mb_value[i : i + 1024])) for i in range(0, len(mb_value), 1024)),
            chunk(finish="tool_calls"),
        ],
        "1MB of open braces": [chunk(tc(0, "c", "f", "{" * (1 << 20)))],
        "1MB of garbage arguments": [chunk(tc(0, "c", "f", "x" + HUGE))],
        "1MB name": [chunk(tc(0, "c", HUGE, "{}"))],
        "1MB id": [chunk(tc(0, HUGE, "f", "{}"))],
        "1MB content and reasoning": [chunk(delta={"content": HUGE, "reasoning_content": HUGE})],
        "1MB string as a chunk": [HUGE],
        "100k-deep array in arguments": [
            chunk(tc(0, "c", "f", '{"a": ' + deep + "}")),
            chunk(finish="stop"),
        ],
        "100k-deep arguments object (D1)": [
            chunk(tc(0, "c", "f", _nested_dict(100_000))),
            chunk(finish="stop"),
        ],
        "100k-deep list as a chunk": [_nested_list(100_000)],
        "100k-deep list as a delta": [
            chunk(choices=[{"index": 0, "delta": _nested_list(100_000), "finish_reason": None}])
        ],
        "bytes chunk": [b'{"choices": []}', bytearray(b"{}"), memoryview(b"x")],
        "JSON text as a chunk": ['{"choices": [{"index": 0, "delta": {"content": "x"}}]}'],
        "bytes arguments": [chunk(tc(0, "c", "f", b'{"a": 1}'))],
        "bytes name and id": [chunk(tc(0, b"c", b"f", "{}"))],
        "lone surrogates": [
            chunk(tc(0, "c\udfff", "f\ud800", ""), content="\ud800"),
            chunk(tc(0, args='{"a": "\ud83d')),
            chunk(tc(0, args='\ude00"}')),
            chunk(finish="tool_calls"),
        ],
        "objects and types": [object(), int, ToolCallAssembler, ..., NotImplemented, 1j],
        "ollama native garbage": [
            {"message": None, "done": False},
            {"message": {"tool_calls": [{"function": None}]}},
            {"message": {"tool_calls": {"function": {"name": "f"}}}},
            {"message": {"tool_calls": [{"function": {"name": "f", "arguments": [1, 2]}}]}},
            {"message": "text", "done": "yes", "eval_count": "many"},
        ],
    }


_HUGE_CASES = _huge_cases()


@pytest.mark.parametrize("case", list(_HUGE_CASES))
def test_huge_and_deep_input(case: str) -> None:
    chunks = _HUGE_CASES[case]
    feed_guarded(chunks)
    feed_guarded(chunks, max_argument_bytes=1024)
    assemble_guarded(chunks)


def test_one_megabyte_argument_value_survives() -> None:
    chunks = _HUGE_CASES["1MB argument string in 1KB fragments"]
    msg = streamfix.assemble(chunks)
    assert [tc.name for tc in msg.tool_calls] == ["f"]
    assert msg.tool_calls[0].parsed == {"a": HUGE}


# --------------------------------------------------------------------------- limits


def _two_calls(big: str) -> list[dict[str, Any]]:
    return [
        chunk(tc(0, "call_0", "read_file", "")),
        chunk(tc(0, args='{"path": "a.txt"}')),
        chunk(tc(1, "call_1", "write_file", "")),
        *(chunk(tc(1, args=big[i : i + 7])) for i in range(0, len(big), 7)),
        chunk(finish="tool_calls"),
    ]


def test_max_argument_bytes_raises_with_the_complete_calls() -> None:
    big = json.dumps({"text": "y" * 500})
    asm = ToolCallAssembler(max_argument_bytes=100)
    with pytest.raises(ArgumentsTooLargeError) as info:
        for body in _two_calls(big):
            asm.feed(body)
        asm.finish()
    err = info.value
    assert isinstance(err, StreamFixError)
    assert isinstance(err.message, AssembledMessage)
    assert [(tc.id, tc.name) for tc in err.message.tool_calls] == [("call_0", "read_file")]
    assert err.message.tool_calls[0].parsed == {"path": "a.txt"}
    _assert_closed(asm)
    with pytest.raises(ArgumentsTooLargeError) as info2:
        streamfix.assemble(_two_calls(big), max_argument_bytes=100)
    assert isinstance(info2.value.message, AssembledMessage)


def test_max_argument_bytes_is_raised_while_feeding() -> None:
    """The limit protects memory: it fires during feed(), not only at finish()."""
    asm = ToolCallAssembler(max_argument_bytes=1000)
    asm.feed(chunk(tc(0, "c", "f", '{"a": "')))
    with pytest.raises(ArgumentsTooLargeError) as info:
        for _ in range(1000):
            asm.feed(chunk(tc(0, args="x" * 100)))
    assert isinstance(info.value.message, AssembledMessage)
    _assert_closed(asm)


@examples(100)
@given(
    value=st.text(alphabet="abcé😀 ", max_size=40),
    slack=st.integers(-5, 5),
)
def test_max_argument_bytes_counts_utf8_bytes(value: str, slack: int) -> None:
    text = json.dumps({"v": value}, ensure_ascii=False, separators=(",", ":"))
    size = len(text.encode("utf-8"))
    limit = max(0, size + slack)
    chunks = [
        chunk(tc(0, "c", "f", "")),
        *(chunk(tc(0, args=ch)) for ch in text),
        chunk(finish="tool_calls"),
    ]
    if size <= limit:
        msg = streamfix.assemble(chunks, max_argument_bytes=limit)
        assert msg.tool_calls[0].parsed == {"v": value}
    else:
        with pytest.raises(ArgumentsTooLargeError):
            streamfix.assemble(chunks, max_argument_bytes=limit)


# --------------------------------------------------------------------------- closed


@pytest.mark.parametrize(
    "bad",
    [
        {"error": "model runner has unexpectedly stopped: out of memory"},
        chunk(finish="error", error={"message": "upstream overloaded", "code": 502}),
        {"id": "x", "choices": [], "error": {"message": "rate limited", "code": 429}},
    ],
    ids=["ollama-error", "openrouter-finish-error", "top-level-error"],
)
def test_after_a_provider_error_the_assembler_is_closed(bad: dict[str, Any]) -> None:
    asm = ToolCallAssembler()
    asm.feed(chunk(content="partial "))
    asm.feed(chunk(tc(0, "call_0", "f", '{"a": 1}')))
    with pytest.raises(ProviderStreamError) as info:
        asm.feed(bad)
    err = info.value
    assert err.provider_message
    assert err.provider_message in str(err)
    assert isinstance(err.message, AssembledMessage)
    assert err.message.content == "partial "
    _assert_closed(asm)


@examples(150)
@given(s=streamed(max_calls=4), limit=st.integers(0, 40), data=st.data())
def test_any_feed_error_closes_the_assembler(s: Streamed, limit: int, data: Any) -> None:
    """Whatever StreamFixError feed() raises, every later feed/finish is refused."""
    chunks = list(s.chunks)
    if data.draw(st.booleans()):
        at = data.draw(st.integers(0, len(chunks)))
        chunks.insert(at, data.draw(st.sampled_from([{"error": "boom"}, chunk(finish="error")])))
    feed_guarded(chunks, max_argument_bytes=limit)
    assemble_guarded(chunks, max_argument_bytes=limit)


# --------------------------------------------------------------------------- hostile mixtures

_hostile_entry = st.fixed_dictionaries(
    {},
    optional={
        "index": st.sampled_from([0, 1, 2, None, "", "0", -1]),
        "id": st.sampled_from(["", "call_a", "call_b", None]),
        "type": st.sampled_from(["function", "custom", "", None]),
        "function": st.fixed_dictionaries(
            {},
            optional={
                "name": st.sampled_from(["get_weather", "get_time", "", None]),
                "arguments": st.sampled_from(["{}", '{"a": 1}', '{"a"', ": 1}", "", "}", None]),
            },
        ),
        "extra_content": st.just({"google": {"thought_signature": "c2ln"}}),
    },
)


@st.composite
def hostile_streams(draw: st.DrawFn) -> list[Any]:
    """Random mixtures of valid and invalid tool-call fields, a few entries a chunk,
    roles and finish reasons anywhere."""
    bodies = []
    for _ in range(draw(st.integers(1, 6))):
        entries = draw(st.lists(_hostile_entry, max_size=3))
        finish = draw(st.sampled_from([None, None, "tool_calls", "stop", "length"]))
        role = {"role": "assistant"} if draw(st.booleans()) else None
        bodies.append(chunk(*entries, finish=finish, delta=role))
    return bodies


@examples(600)
@given(chunks=hostile_streams())
def test_hostile_mixtures_end_in_a_typed_error_or_a_valid_message(chunks: list[Any]) -> None:
    """Every call of a message has a name, parsed arguments equal to its text, its own
    position; anything else is a typed error."""
    feed_guarded(chunks)
    assemble_guarded(chunks)


def test_a_follow_on_of_a_phantom_named_later_has_its_name() -> None:
    """Issue 23's smallest hostile stream: a phantom (no name, ``{}``), a follow-on value
    without an index, then a name for it: one call, named, never ``""``."""
    body = chunk(
        tc(2, "", args="{}"),
        tc(args="{}"),
        tc(name="get_weather", type="custom"),
        finish="tool_calls",
    )
    message = streamfix.assemble([body])
    _check_message(message)
    assert [(c.name, c.parsed) for c in message.tool_calls] == [("get_weather", {})]
    assert feed_guarded([body]) == message


@pytest.mark.parametrize(
    ("given_", "named"),
    [(None, "NoneType"), ("hello", "str"), (b"data: {}", "bytes"), (42, "int")],
)
def test_assemble_refuses_what_is_not_an_iterable_of_chunks(given_: Any, named: str) -> None:
    with pytest.raises(TypeError, match=f"^expected an iterable of chunks, got {named}$"):
        streamfix.assemble(given_)


def test_assemble_refuses_a_stream_where_no_item_is_a_chunk() -> None:
    with pytest.raises(TypeError, match="no item was one"):
        streamfix.assemble([1, 2, 3])
    assert streamfix.assemble([]).tool_calls == []  # empty is an empty message
    mixed = streamfix.assemble([1, chunk(content="ok")])  # one chunk: skipped, diagnosed
    assert mixed.content == "ok"
    assert [d.code for d in mixed.diagnostics] == ["skipped-chunk"]


def test_aassemble_refuses_a_sync_iterable() -> None:
    import asyncio

    with pytest.raises(TypeError, match="expected an async iterable of chunks, got list"):
        asyncio.run(streamfix.aassemble([chunk(content="ok")]))  # type: ignore[arg-type]
