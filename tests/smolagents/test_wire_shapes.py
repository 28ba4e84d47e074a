"""Every wire shape of docs/wire-shapes.md that reaches smolagents, streamed through its own
``generate_stream`` (``OpenAIModel`` with openai ``ChatCompletionChunk`` objects,
``LiteLLMModel`` with litellm ``ModelResponseStream`` objects) into
``ChatMessageStreamDelta`` lists, then agglomerated by stock smolagents and by the shim.

Each case states what stock returns, as an assertion: the calls it builds (name and raw
argument text) or the error it raises. Where stock is broken that assertion pins the
breakage (glued arguments, a lost call, a nameless call, ``ValueError``); the shim must
return the calls of the non-streamed response. Stock's outcome is the same on every tested
smolagents version (1.24.0 and 1.26.0 share ``agglomerate_stream_deltas``); a version that
fixes a shape upstream must get a version-keyed expectation here, not a skip.

Not reachable through smolagents' conversion, so not tested here: reasoning (A2's
``reasoning_content``), finish reasons, signatures (F1-F3;
``ChatMessageToolCallStreamDelta`` has no field for them). n > 1 choices (E7) and error
payloads (E5) are lost before the deltas, in ``generate_stream``: test_generate_stream.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from smol_wire import WIRES, chunk, stream_deltas, tc

Calls = list[tuple[str, dict[str, Any]]]


@dataclass
class Case:
    shape: str
    chunks: list[dict[str, Any]]
    calls: Calls  # the non-streamed response: (name, parsed arguments) per call
    stock: Any  # per wire or for all: [(name, raw arguments)] or an exception type
    content: str = ""
    ids: list[str] | None = None
    wires: tuple[str, ...] = WIRES

    def stock_for(self, wire: str) -> Any:
        return self.stock[wire] if isinstance(self.stock, dict) else self.stock


@dataclass
class Broken:
    """Stock's result where it is wrong: [(name, raw arguments)]."""

    calls: list[tuple[str, str]] = field(default_factory=list)


GLUED = '{"query": "A"}{"query": "B"}'

CASES = [
    Case(
        "A1 several complete calls and finish_reason in one chunk",
        [
            chunk(
                tc(0, "c1", "search", '{"query": "A"}'),
                tc(1, "c2", "read", '{"path": "b"}'),
                finish="tool_calls",
            )
        ],
        [("search", {"query": "A"}), ("read", {"path": "b"})],
        [("search", '{"query": "A"}'), ("read", '{"path": "b"}')],
        ids=["c1", "c2"],
    ),
    Case(
        "A2 several calls plus content in one chunk",
        [
            chunk(
                tc(0, "c1", "search", '{"query": "A"}'),
                tc(1, "c2", "read", '{"path": "b"}'),
                content="Let me look.",
                finish="tool_calls",
            )
        ],
        [("search", {"query": "A"}), ("read", {"path": "b"})],
        [("search", '{"query": "A"}'), ("read", '{"path": "b"}')],
        content="Let me look.",
    ),
    Case(
        "A3 same index twice in one delta, the second continuing the first",
        [chunk(tc(0, "c1", "list_files"), tc(0, args='{"')), chunk(tc(0, args='path": "."}'))],
        [("list_files", {"path": "."})],
        [("list_files", '{"path": "."}')],
    ),
    Case(
        "B1 interleaved indices",
        [
            chunk(tc(0, "c1", "search", "")),
            chunk(tc(1, "c2", "read", "")),
            chunk(tc(0, args='{"query": ')),
            chunk(tc(1, args='{"path": ')),
            chunk(tc(0, args='"A"}')),
            chunk(tc(1, args='"b"}')),
        ],
        [("search", {"query": "A"}), ("read", {"path": "b"})],
        [("search", '{"query": "A"}'), ("read", '{"path": "b"}')],
    ),
    Case(
        "B2 same index reused, ids differ (Ollama, smolagents#1569)",
        [
            chunk(tc(0, "a", "search", '{"query": "A"}')),
            chunk(tc(0, "b", "search", '{"query": "B"}')),
        ],
        [("search", {"query": "A"}), ("search", {"query": "B"})],
        Broken([("search", GLUED)]),
        ids=["a", "b"],
    ),
    Case(
        "B3 same index reused, no ids, names re-sent, arguments fragmented",
        [
            chunk(tc(0, name="search", args='{"query"')),
            chunk(tc(0, args=': "A"}')),
            chunk(tc(0, name="search", args='{"query": ')),
            chunk(tc(0, args='"B"}')),
        ],
        [("search", {"query": "A"}), ("search", {"query": "B"})],
        Broken([("search", GLUED)]),
        ids=["call_0", "call_1"],
    ),
    Case(
        "B3 same index reused, no ids, the second value with no name",
        [chunk(tc(0, name="search", args='{"query": "A"}')), chunk(tc(0, args='{"query": "B"}'))],
        [("search", {"query": "A"}), ("search", {"query": "B"})],
        Broken([("search", GLUED)]),
    ),
    Case(
        "B4 several JSON values in one argument string",
        [chunk(tc(0, "c1", "read", '{"path":"a"} {"path":"b"}\n{"path":"c"}'))],
        [("read", {"path": "a"}), ("read", {"path": "b"}), ("read", {"path": "c"})],
        Broken([("read", '{"path":"a"} {"path":"b"}\n{"path":"c"}')]),
        ids=["c1", "c1-1", "c1-2"],
    ),
    Case(
        "B5 same index, the second call's name alone, its arguments later",
        [
            chunk(tc(0, "x", "read", '{"p": 1}')),
            chunk(tc(0, name="write")),
            chunk(tc(0, args='{"p": 2}')),
        ],
        [("read", {"p": 1}), ("write", {"p": 2})],
        Broken([("write", '{"p": 1}{"p": 2}')]),
    ),
    Case(
        # litellm fills a missing index with a counter itself: index-less is openai only.
        "B6 index null on every fragment (Gemini OpenAI-compat, proxies)",
        [
            chunk(tc(None, "c1", "search", '{"query"')),
            chunk(tc(None, args=': "A"}')),
            chunk(tc(None, "c2", "read", '{"path": "b"}')),
        ],
        [("search", {"query": "A"}), ("read", {"path": "b"})],
        ValueError,
        wires=("openai",),
    ),
    Case(
        "B7 indices starting above 0 and skipping",
        [
            chunk(tc(3, "c1", "search", '{"query": "A"}')),
            chunk(tc(5, "c2", "read", '{"path":')),
            chunk(tc(5, args=' "b"}')),
        ],
        [("search", {"query": "A"}), ("read", {"path": "b"})],
        [("search", '{"query": "A"}'), ("read", '{"path": "b"}')],
    ),
    Case(
        "B8 index changes inside one call",
        [
            chunk(tc(1, "x", "search", "")),
            chunk(tc(0, args='{"query": ')),
            chunk(tc(0, args='"A"}')),
        ],
        [("search", {"query": "A"})],
        Broken([("search", ""), ("", '{"query": "A"}')]),
    ),
    Case(
        "B9 phantom entry with no name and no id",
        [chunk(tc(0, "c1", "search", '{"query": "A"}')), chunk(tc(-1, args="{}"))],
        [("search", {"query": "A"})],
        Broken([("search", '{"query": "A"}'), ("", "{}")]),
    ),
    Case(
        "C1 id, type and name repeated on every fragment",
        [chunk(tc(0, "c1", "read_file", '{"path"')), chunk(tc(0, "c1", "read_file", ': "a"}'))],
        [("read_file", {"path": "a"})],
        [("read_file", '{"path": "a"}')],
        ids=["c1"],
    ),
    Case(
        "C2 name streamed in pieces",
        [chunk(tc(0, "c1", "edit_ex", "")), chunk(tc(0, name="isting_file", args='{"a": 1}'))],
        [("edit_existing_file", {"a": 1})],
        Broken([("isting_file", '{"a": 1}')]),
    ),
    Case(
        "C3 name after the arguments",
        [chunk(tc(0, "c1", args='{"a": 1}')), chunk(tc(0, name="f"))],
        [("f", {"a": 1})],
        [("f", '{"a": 1}')],
    ),
    Case(
        "C4 complete arguments re-sent under the same id",
        [
            chunk(tc(0, "c1", "f", '{"a": ')),
            chunk(tc(0, args="1}")),
            chunk(tc(0, "c1", args='{"a": 1}')),
        ],
        [("f", {"a": 1})],
        Broken([("f", '{"a": 1}{"a": 1}')]),
    ),
    Case(
        "C5 cumulative arguments",
        [
            chunk(tc(0, "c1", "f", '{"a"')),
            chunk(tc(0, args='{"a": 1')),
            chunk(tc(0, args='{"a": 1}')),
        ],
        [("f", {"a": 1})],
        Broken([("f", '{"a"{"a": 1{"a": 1}')]),
    ),
    Case(
        # openai keeps an object as sent (stock then adds a dict to a str); litellm
        # serialises it to text itself.
        "D1 arguments sent as an object",
        [chunk(tc(0, "c1", "f", {"a": 1}))],
        [("f", {"a": 1})],
        {"openai": TypeError, "litellm": [("f", '{"a": 1}')]},
    ),
    Case(
        "D2 zero-argument tool, arguments absent",
        [chunk(tc(0, "c1", "now")), chunk(finish="tool_calls")],
        [("now", {})],
        [("now", "")],  # stock: "" (the agent reads it as no arguments)
    ),
    Case(
        "D3 escapes and surrogate pairs split between fragments",
        [
            chunk(tc(0, "c1", "say", '{"t": "caf\\')),
            chunk(tc(0, args="u00e9 \\ud83d")),
            chunk(tc(0, args='\\ude00\\r\\n"}')),
        ],
        [("say", {"t": "caf\u00e9 \U0001f600\r\n"})],
        [("say", '{"t": "caf\\u00e9 \\ud83d\\ude00\\r\\n"}')],
    ),
    Case(
        "D4 the header fragment carries the first characters",
        [chunk(tc(0, "c1", "f", "{")), chunk(tc(0, args='"a": 1}'))],
        [("f", {"a": 1})],
        [("f", '{"a": 1}')],
    ),
    Case(
        "E1/E2 finish_reason stop, and on an intermediate chunk",
        [
            chunk(tc(0, "c1", "f", '{"a": 1}'), finish="stop"),
            chunk(tc(1, "c2", "g", '{"b": 2}'), finish="stop"),
        ],
        [("f", {"a": 1}), ("g", {"b": 2})],
        [("f", '{"a": 1}'), ("g", '{"b": 2}')],
    ),
    Case(
        "E6 empty choices first (Azure) and a usage-only last chunk",
        [
            chunk(choices=[]),
            chunk(tc(0, "c1", "f", '{"a": 1}')),
            chunk(
                choices=[], usage={"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
            ),
        ],
        [("f", {"a": 1})],
        [("f", '{"a": 1}')],
    ),
    Case(
        "G1 placeholder id, name and type on continuations",
        [
            chunk(tc(0, "c1", "f", '{"a": ', type="function")),
            chunk(tc(0, "", "", "1}", type="")),
            chunk(tc(1, "c2", "g", '{"b": 2}')),
        ],
        [("f", {"a": 1}), ("g", {"b": 2})],
        [("f", '{"a": 1}'), ("g", '{"b": 2}')],
    ),
    Case(
        "G5 type empty on every entry",
        [
            chunk(tc(0, "c1", "f", '{"a": ', type="")),
            chunk(tc(0, args="1}", type="")),
            chunk(tc(1, "c2", "g", '{"b": 2}', type="")),
        ],
        [("f", {"a": 1}), ("g", {"b": 2})],
        [("f", '{"a": 1}'), ("g", '{"b": 2}')],
    ),
    Case(
        "G6 index as a digit string, then an int",
        [chunk(tc("0", "c1", "f", '{"a": ')), chunk(tc(0, args="1}"))],
        [("f", {"a": 1})],
        [("f", '{"a": 1}')],
    ),
    Case(
        "I1 double-encoded arguments",
        [
            chunk(tc(0, "c1", "f", json.dumps('{"a": 1}')[:5])),
            chunk(tc(0, args=json.dumps('{"a": 1}')[5:])),
        ],
        [("f", {"a": 1})],
        Broken([("f", json.dumps('{"a": 1}'))]),  # the agent gets a string, not the object
    ),
    Case(
        "I3 arguments restart after an unfinished prefix",
        [chunk(tc(0, "c1", "f", '{"loc": "Pa')), chunk(tc(0, args='{"a": 1}'))],
        [("f", {"a": 1})],
        Broken([("f", '{"loc": "Pa{"a": 1}')]),
    ),
    Case(
        "F4 text between tool-call chunks",
        [chunk(tc(0, "c1", "f", '{"a": ')), chunk(content="\n"), chunk(tc(0, args="1}"))],
        [("f", {"a": 1})],
        [("f", '{"a": 1}')],
        content="\n",
    ),
]

PARAMS = [
    pytest.param(case, wire, id=f"{case.shape.split()[0]}-{i}-{wire}")
    for i, case in enumerate(CASES)
    for wire in case.wires
]


@pytest.mark.parametrize(("case", "wire"), PARAMS)
def test_stock_outcome(case: Case, wire: str, stock: Any) -> None:
    """What stock smolagents returns for the shape (broken where marked)."""
    deltas = stream_deltas(wire, case.chunks)
    expected = case.stock_for(wire)
    if isinstance(expected, type):
        with pytest.raises(expected):
            stock(deltas)
        return
    message = stock(deltas)
    got = [(call.function.name, call.function.arguments) for call in message.tool_calls]
    if isinstance(expected, Broken):
        assert got == expected.calls
        assert got != [(name, json.dumps(args)) for name, args in case.calls]
    else:
        assert got == expected
        assert [(n, json.loads(a) if a else {}) for n, a in got] == case.calls


@pytest.mark.parametrize(("case", "wire"), PARAMS)
def test_patched(case: Case, wire: str) -> None:
    """The shim returns the calls of the non-streamed response."""
    from smolagents.models import ChatMessage, MessageRole

    from streamfix_smolagents import agglomerate_stream_deltas

    message = agglomerate_stream_deltas(stream_deltas(wire, case.chunks))
    assert isinstance(message, ChatMessage)
    assert message.role == MessageRole.ASSISTANT
    assert [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls] == (
        case.calls
    )
    assert all(isinstance(c.function.arguments, str) for c in message.tool_calls)
    assert all(c.type == "function" for c in message.tool_calls)
    assert message.content == case.content
    if case.ids is not None:
        assert [c.id for c in message.tool_calls] == case.ids
    assert len({c.id for c in message.tool_calls}) == len(message.tool_calls)


CORRECT = [
    pytest.param(case, wire, id=f"{case.shape.split()[0]}-{i}-{wire}")
    for i, case in enumerate(CASES)
    for wire in case.wires
    if isinstance(case.stock_for(wire), list) and case.calls and case.stock_for(wire)[0][1]
]


@pytest.mark.parametrize(("case", "wire"), CORRECT)
def test_same_message_as_stock_where_stock_is_right(case: Case, wire: str, stock: Any) -> None:
    """Where stock assembles the shape correctly, the shim's ``ChatMessage`` is equal to
    stock's: content, calls, ids (stock's ``""`` for an id-less single call), argument text,
    type, token usage, role."""
    from streamfix_smolagents import agglomerate_stream_deltas

    deltas = stream_deltas(wire, case.chunks)
    assert agglomerate_stream_deltas(deltas) == stock(deltas)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("finish", ["length", None])
def test_truncated_arguments_raise_clear_error(wire: str, finish: str | None, stock: Any) -> None:
    """E4: stock hands the truncated text on (the agent would run the tool with it);
    the shim raises the core's TruncatedToolCallError, with the complete calls kept."""
    import streamfix
    from streamfix_smolagents import agglomerate_stream_deltas

    deltas = stream_deltas(
        wire,
        [
            chunk(tc(0, "c1", "search", '{"query": "A"}')),
            chunk(tc(1, "c2", "read", '{"path": "unfini'), finish=finish),
        ],
    )
    stocked = stock(deltas)
    assert stocked.tool_calls[1].function.arguments == '{"path": "unfini'
    with pytest.raises(streamfix.TruncatedToolCallError, match="truncated") as info:
        agglomerate_stream_deltas(deltas)
    assert info.value.partial_arguments == {1: '{"path": "unfini'}
    assert info.value.message is not None
    assert [c.name for c in info.value.message.tool_calls] == ["search"]


def test_upstream_delta_objects_and_role() -> None:
    """Deltas built by hand as smolagents' own test builds them (its
    ``ChatMessageToolCallFunction``, ``type`` on every fragment, a usage-only delta), and a
    role other than the default."""
    from smolagents.models import (
        ChatMessageStreamDelta,
        ChatMessageToolCallFunction,
        ChatMessageToolCallStreamDelta,
        MessageRole,
    )
    from smolagents.monitoring import TokenUsage

    from streamfix_smolagents import agglomerate_stream_deltas

    def part(content: str, arguments: str) -> ChatMessageStreamDelta:
        function = ChatMessageToolCallFunction(arguments=arguments, name="web_search")
        call = ChatMessageToolCallStreamDelta(index=0, type="function", function=function)
        return ChatMessageStreamDelta(content=content, tool_calls=[call])

    deltas = [
        part("Hi", ""),
        part(" everyone", ' {"'),
        part(", it's", 'query": "pope"}'),
        ChatMessageStreamDelta(content="", token_usage=TokenUsage(1348, 24)),
    ]
    message = agglomerate_stream_deltas(deltas, role=MessageRole.TOOL_CALL)
    assert message.role == MessageRole.TOOL_CALL
    assert message.content == "Hi everyone, it's"
    assert json.loads(message.tool_calls[0].function.arguments) == {"query": "pope"}
    assert message.tool_calls[0].id == ""
    assert message.token_usage == TokenUsage(1348, 24)
    assert agglomerate_stream_deltas([]).tool_calls == []
