"""One named example test per wire shape of docs/wire-shapes.md (A1..F4), plus events.

Each test states the stream as chunk dicts (``tests/support/chunks.py``) and runs it as
dicts, as ``openai`` ``ChatCompletionChunk`` objects and as ``litellm``
``ModelResponseStream`` objects (the ``kind`` fixture), except where a type cannot carry
the shape (said in a comment).
Every stream goes through both ``assemble()`` and ``ToolCallAssembler.feed()/finish()``;
the two must agree.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from support import ABSENT, Kind, chunk, tc

import streamfix
from streamfix import (
    ArgumentsDelta,
    ArgumentsTooLargeError,
    AssembledMessage,
    AssemblerClosedError,
    ProviderStreamError,
    TextDelta,
    ToolCallCompleted,
    ToolCallStarted,
    ToolCallUpdated,
    TruncatedToolCallError,
    UsageReported,
)

pytestmark = pytest.mark.core

DICT_AND_OPENAI = pytest.mark.parametrize("kind", ["dict", "openai"], indirect=True)

Call = tuple[int, str | None, str, dict[str, Any], str | None]


# --------------------------------------------------------------------------- helpers


def calls(msg: AssembledMessage) -> list[Call]:
    """(index, id, name, parsed arguments, thought signature) of each call, checked for sanity."""
    out: list[Call] = []
    for call in msg.tool_calls:
        assert call.type == "function"
        assert isinstance(call.arguments, str)
        assert json.loads(call.arguments) == call.parsed, call
        out.append((call.index, call.id, call.name, call.parsed, call.thought_signature))
    return out


def run(
    kind: Kind, bodies: list[dict[str, Any]], tools: Any = None, choice: int = 0
) -> AssembledMessage:
    """Assemble ``bodies`` as ``kind`` through the fast path and the event path."""
    msg = streamfix.assemble(kind(bodies), tools=tools, choice=choice)
    asm = streamfix.ToolCallAssembler(tools)
    for item in kind(bodies):
        asm.feed(item)
    assert asm.finish(choice) == msg, "feed()/finish() and assemble() disagree"
    calls(msg)
    return msg


def feed_all(bodies: list[Any], tools: Any = None) -> tuple[streamfix.ToolCallAssembler, list[Any]]:
    asm = streamfix.ToolCallAssembler(tools)
    events: list[Any] = []
    for item in bodies:
        events.extend(asm.feed(item))
    return asm, events


def codes(msg: AssembledMessage) -> list[str]:
    return [d.code for d in msg.diagnostics]


def split(text: str, *cuts: int) -> list[str]:
    """``text`` cut at the given offsets."""
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def role() -> dict[str, Any]:
    return chunk(delta={"role": "assistant", "content": ""})


def frags(
    index: Any, pieces: list[str], id: Any = ABSENT, name: Any = ABSENT
) -> list[dict[str, Any]]:
    """A call header (id, name, first piece) then one chunk per following piece."""
    first = chunk(tc(index, id, name, pieces[0], type="function"))
    return [first] + [chunk(tc(index, args=piece)) for piece in pieces[1:]]


WEATHER_PARIS = {"city": "Paris", "unit": "celsius"}
WEATHER_TOKYO = {"city": "Tōkyō", "unit": "celsius"}


# --------------------------------------------------------------------------- A


@pytest.mark.parametrize("finish", ["tool_calls", "length", "stop"])
def test_a1_several_complete_calls_and_finish_reason_in_one_delta(kind: Kind, finish: str) -> None:
    bodies = [
        role(),
        chunk(
            tc(0, "call_1", "get_weather", json.dumps(WEATHER_PARIS), type="function"),
            tc(
                1,
                "call_2",
                "get_weather",
                json.dumps(WEATHER_TOKYO, ensure_ascii=False),
                type="function",
            ),
            tc(2, "call_3", "get_time", '{"tz": "Europe/Paris"}', type="function"),
            finish=finish,
        ),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, "call_1", "get_weather", WEATHER_PARIS, None),
        (1, "call_2", "get_weather", WEATHER_TOKYO, None),
        (2, "call_3", "get_time", {"tz": "Europe/Paris"}, None),
    ]
    assert msg.finish_reason == finish
    assert msg.content == ""
    assert msg.reasoning == ""
    # finalized once per chunk: each call started and completed exactly once, in order
    _, events = feed_all(kind(bodies))
    started = [e.position for e in events if isinstance(e, ToolCallStarted)]
    completed = [(e.position, e.name) for e in events if isinstance(e, ToolCallCompleted)]
    assert started == [0, 1, 2]
    assert completed == [(0, "get_weather"), (1, "get_weather"), (2, "get_time")]


@pytest.mark.parametrize("reasoning_key", ["reasoning_content", "reasoning"])
def test_a2_calls_text_and_reasoning_in_one_delta(kind: Kind, reasoning_key: str) -> None:
    body = chunk(
        tc(0, "call_1", "get_weather", json.dumps(WEATHER_PARIS)),
        tc(1, "call_2", "get_weather", json.dumps(WEATHER_TOKYO)),
        content="Je vérifie les deux villes.",
        delta={reasoning_key: "L'utilisateur veut deux météos."},
        finish="tool_calls",
    )
    msg = run(kind, [role(), body])
    assert calls(msg) == [
        (0, "call_1", "get_weather", WEATHER_PARIS, None),
        (1, "call_2", "get_weather", WEATHER_TOKYO, None),
    ]
    assert msg.content == "Je vérifie les deux villes."
    assert msg.reasoning == "L'utilisateur veut deux météos."
    assert msg.finish_reason == "tool_calls"


def test_a3_same_index_twice_in_one_delta_is_one_call(kind: Kind) -> None:
    bodies = [
        role(),
        chunk(tc(0, "c1", "list_files"), tc(0, args=' {"')),
        chunk(tc(0, args='path": "sr')),
        chunk(tc(0, args='c/", "recursive": true}')),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [(0, "c1", "list_files", {"path": "src/", "recursive": True}, None)]
    assert msg.finish_reason == "tool_calls"


# --------------------------------------------------------------------------- B


@pytest.mark.parametrize("order", ["sequential", "interleaved"])
def test_b1_fragments_of_several_indices_go_to_their_own_call(kind: Kind, order: str) -> None:
    a = split('{"path": "src/main.py", "line": 42}', 3, 12, 20)
    b = split('{"query": "def main(", "limit": 5}', 5, 16, 30)
    if order == "sequential":
        bodies = frags(0, a, "call_a", "read_file") + frags(1, b, "call_b", "grep")
    else:
        head = [
            chunk(tc(0, "call_a", "read_file", "")),
            chunk(tc(1, "call_b", "grep", "")),
        ]
        mixed = [
            chunk(tc(i, args=piece))
            for pair in zip(a, b, strict=True)
            for i, piece in enumerate(pair)
        ]
        bodies = head + mixed
    msg = run(kind, [role(), *bodies, chunk(finish="tool_calls")])
    assert calls(msg) == [
        (0, "call_a", "read_file", {"path": "src/main.py", "line": 42}, None),
        (1, "call_b", "grep", {"query": "def main(", "limit": 5}, None),
    ]


@pytest.mark.parametrize("fragmented", [False, True], ids=["whole", "fragmented"])
def test_b2_same_index_reused_with_distinct_ids(kind: Kind, fragmented: bool) -> None:
    if fragmented:
        bodies = frags(0, ['{"q":', ' "x"}'], "a", "search") + frags(
            0, ['{"q', '": "y"}'], "b", "search"
        )
    else:
        bodies = [
            chunk(tc(0, "a", "search", '{"q": "x"}')),
            chunk(tc(0, "b", "search", '{"q": "y"}')),
        ]
    msg = run(kind, [role(), *bodies, chunk(finish="tool_calls")])
    assert calls(msg) == [
        (0, "a", "search", {"q": "x"}, None),
        (1, "b", "search", {"q": "y"}, None),
    ]


@pytest.mark.parametrize("no_id", ["absent", "null"])
def test_b3_same_index_no_ids_one_call_per_json_value(kind: Kind, no_id: str) -> None:
    id_: Any = ABSENT if no_id == "absent" else None
    bodies = [
        role(),
        # braces and escaped quotes inside strings must not end the value
        chunk(tc(0, id_, "grep", '{"pattern": "if (x) {')),
        chunk(tc(0, id_, args='\\"}\\" }", "path": "s')),
        chunk(tc(0, id_, args='rc"}')),
        chunk(tc(0, id_, "read_file", '{"path"')),
        chunk(tc(0, id_, args=': "src/{a}.py"}')),
        chunk(tc(0, id_, "read_file", '{"path": "b.py"}')),
        chunk(finish="stop"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, None, "grep", {"pattern": 'if (x) {"}" }', "path": "src"}, None),
        (1, None, "read_file", {"path": "src/{a}.py"}, None),
        (2, None, "read_file", {"path": "b.py"}, None),
    ]
    assert msg.finish_reason == "stop"


B4_CUTS = {
    "one-string": (),
    "cut-inside-values": (7, 14, 22, 31),
    "cut-at-value-ends": (12, 26),
    "cut-everywhere": (7, 14, 22, 26),
}


# The argument text at index 0 is the same in every variant; only the cutting differs
# ("real streams fragment arguments at arbitrary points"), so the calls must not.
@pytest.mark.parametrize("cuts", list(B4_CUTS.values()), ids=list(B4_CUTS))
def test_b4_concatenated_values_in_one_argument_string(kind: Kind, cuts: tuple[int, ...]) -> None:
    text = '{"path":"a"} {"path":"b"}\n{"path":"c"}'
    pieces = split(text, *cuts)
    bodies = [
        role(),
        *frags(0, pieces, "call_x", "read_file"),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, "call_x", "read_file", {"path": "a"}, None),
        (1, "call_x-1", "read_file", {"path": "b"}, None),
        (2, "call_x-2", "read_file", {"path": "c"}, None),
    ]


@pytest.mark.parametrize("second", ["read_file", "write_file"])
def test_b5_name_alone_at_complete_index_starts_new_call(kind: Kind, second: str) -> None:
    bodies = [
        role(),
        chunk(tc(0, "call_1", "read_file", '{"path": "a.txt"}')),
        chunk(tc(0, name=second)),
        chunk(tc(0, args='{"path": ')),
        chunk(tc(0, args='"b.txt"}')),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, "call_1", "read_file", {"path": "a.txt"}, None),
        (1, None, second, {"path": "b.txt"}, None),
    ]


# litellm's Delta replaces a missing or null tool-call index with a per-delta counter, so a
# litellm ModelResponseStream cannot carry "index missing on every fragment".
@DICT_AND_OPENAI
@pytest.mark.parametrize("missing", ["absent", "null"])
@pytest.mark.parametrize("layout", ["continuations", "ids-every-fragment", "one-delta"])
def test_b6_index_missing_routes_by_id(kind: Kind, missing: str, layout: str) -> None:
    ix: Any = ABSENT if missing == "absent" else None
    if layout == "continuations":
        parts = [
            tc(ix, "call_a", "get_weather", ""),
            tc(ix, args='{"city": "Pa'),
            tc(ix, args='ris"}'),
            tc(ix, "call_b", "get_time", '{"tz'),
            tc(ix, args='": "UTC"}'),
        ]
        bodies = [chunk(part) for part in parts]
    elif layout == "ids-every-fragment":
        parts = [
            tc(ix, "call_a", "get_weather", '{"city": '),
            tc(ix, "call_b", "get_time", '{"tz": '),
            tc(ix, "call_a", args='"Paris"}'),
            tc(ix, "call_b", args='"UTC"}'),
        ]
        bodies = [chunk(part) for part in parts]
    else:
        bodies = [
            chunk(
                tc(ix, "call_a", "get_weather", '{"city": "Paris"}'),
                tc(ix, "call_b", "get_time", '{"tz": "UTC"}'),
            )
        ]
    msg = run(kind, [role(), *bodies, chunk(finish="stop")])
    assert calls(msg) == [
        (0, "call_a", "get_weather", {"city": "Paris"}, None),
        (1, "call_b", "get_time", {"tz": "UTC"}, None),
    ]


def test_b7_indices_above_zero_skipping_or_negative(kind: Kind) -> None:
    bodies = [
        role(),
        chunk(tc(3, "toolu_a", "read_file", '{"path":')),
        chunk(tc(7, "toolu_b", "list_dir", '{"dir": "."}')),
        chunk(tc(3, args=' "x.md"}')),
        chunk(tc(-2, "toolu_c", "get_time", "")),
        chunk(tc(-2, args='{"tz": "UTC"}')),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, "toolu_a", "read_file", {"path": "x.md"}, None),
        (1, "toolu_b", "list_dir", {"dir": "."}, None),
        (2, "toolu_c", "get_time", {"tz": "UTC"}, None),
    ]


def test_b8_index_changes_inside_one_call(kind: Kind) -> None:
    bodies = [
        role(),
        chunk(tc(1, "x", "search", "")),
        chunk(tc(0, args='{"q":')),
        chunk(tc(0, args=' "v"}')),
        chunk(tc(3, "y", "fetch", "")),
        chunk(tc(2, args='{"url": "https://e.x/"}')),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, "x", "search", {"q": "v"}, None),
        (1, "y", "fetch", {"url": "https://e.x/"}, None),
    ]


@pytest.mark.parametrize("where", ["before", "after"])
def test_b9_phantom_entry_dropped_with_diagnostic(kind: Kind, where: str) -> None:
    thinking = chunk(reasoning="I should read the file.")
    phantom = chunk(tc(-1, args="{}"))
    real = [
        chunk(tc(0, "toolu_1", "read_file", "")),
        chunk(tc(0, args='{"path": "a.py"}')),
    ]
    middle = [phantom, *real] if where == "before" else [*real, phantom]
    msg = run(kind, [role(), thinking, *middle, chunk(finish="tool_calls")])
    assert calls(msg) == [(0, "toolu_1", "read_file", {"path": "a.py"}, None)]
    assert msg.reasoning == "I should read the file."
    assert codes(msg).count("phantom-call") == 1


# --------------------------------------------------------------------------- C


def test_c1_name_and_id_repeated_on_every_fragment(kind: Kind) -> None:
    pieces_a = split('{"path": "README.md"}', 4, 13)
    pieces_b = split('{"path": "docs/index.md"}', 2, 18)
    bodies = [role()]
    for i, (cid, name, pieces) in enumerate(
        [("call_1", "read_file", pieces_a), ("call_2", "read_file", pieces_b)]
    ):
        bodies += [chunk(tc(i, cid, name, p, type="function")) for p in pieces]
    msg = run(kind, [*bodies, chunk(finish="tool_calls")])
    assert calls(msg) == [
        (0, "call_1", "read_file", {"path": "README.md"}, None),
        (1, "call_2", "read_file", {"path": "docs/index.md"}, None),
    ]


TOOL_NAMES = ["edit_existing_file", "read_file", "create_new_file"]
TOOL_FORMS: dict[str, Any] = {
    "none": None,
    "names": TOOL_NAMES,
    "openai": [
        {"type": "function", "function": {"name": n, "parameters": {"type": "object"}}}
        for n in TOOL_NAMES
    ],
    "schemas": {n: {"type": "object"} for n in TOOL_NAMES},
}


@pytest.mark.parametrize("tools", list(TOOL_FORMS), ids=list(TOOL_FORMS))
def test_c2_name_streamed_in_pieces(kind: Kind, tools: str) -> None:
    bodies = [
        role(),
        chunk(tc(0, "call_1", "edit_ex", "")),
        chunk(tc(0, name="isting_file", args="")),
        chunk(tc(0, args='{"filepath": "a.py", ')),
        chunk(tc(0, args='"replacement": "x = 1\\n"}')),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies, tools=TOOL_FORMS[tools])
    assert calls(msg) == [
        (0, "call_1", "edit_existing_file", {"filepath": "a.py", "replacement": "x = 1\n"}, None),
    ]


@pytest.mark.parametrize(
    ("declared", "expected"),
    [
        (["echo", "read_file"], "echo"),
        (["echoecho", "read_file"], "echoecho"),
    ],
)
def test_c2_declared_tools_decide_repeat_or_pieces(
    kind: Kind, declared: list[str], expected: str
) -> None:
    bodies = [
        role(),
        chunk(tc(0, "call_1", "echo", "")),
        chunk(tc(0, name="echo", args='{"text": ')),
        chunk(tc(0, args='"hi"}')),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies, tools=declared)
    assert calls(msg) == [(0, "call_1", expected, {"text": "hi"}, None)]


@pytest.mark.parametrize("layout", ["name-last", "id-and-args-first"])
def test_c3_name_arrives_after_arguments(kind: Kind, layout: str) -> None:
    if layout == "name-last":
        parts = [
            tc(0, "call_1", args='{"q":'),
            tc(0, args=' "weather"}'),
            tc(0, name="search"),
        ]
    else:
        parts = [
            tc(0, "call_1", args=""),
            tc(0, args='{"q": "wea'),
            tc(0, name="search", args='ther"}'),
        ]
    bodies = [
        role(),
        *[chunk(p) for p in parts],
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [(0, "call_1", "search", {"q": "weather"}, None)]


@pytest.mark.parametrize("resend", ["exact", "reserialized", "without-name"])
def test_c4_complete_arguments_resent_are_dropped(kind: Kind, resend: str) -> None:
    args = {
        "exact": '{"city":"Paris"}',
        "reserialized": '{"city": "Paris"}',
        "without-name": '{"city":"Paris"}',
    }[resend]
    name = ABSENT if resend == "without-name" else "get_weather"
    bodies = [
        role(),
        chunk(tc(0, "call_1", "get_weather", '{"city":')),
        chunk(tc(0, args='"Paris"}')),
        chunk(tc(0, "call_1", name, args), finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [(0, "call_1", "get_weather", {"city": "Paris"}, None)]
    assert codes(msg).count("duplicate-resend") == 1


def test_c4_summary_chunk_resending_every_call(kind: Kind) -> None:
    bodies = [
        role(),
        *frags(0, ['{"city": "Pa', 'ris"}'], "call_1", "get_weather"),
        *frags(1, ['{"tz": "U', 'TC"}'], "call_2", "get_time"),
        chunk(
            tc(0, "call_1", "get_weather", '{"city": "Paris"}'),
            tc(1, "call_2", "get_time", '{"tz": "UTC"}'),
            finish="tool_calls",
        ),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, "call_1", "get_weather", {"city": "Paris"}, None),
        (1, "call_2", "get_time", {"tz": "UTC"}, None),
    ]
    assert codes(msg).count("duplicate-resend") == 2


def test_c5_cumulative_arguments(kind: Kind) -> None:
    # stretch goal of the spec
    full = '{"q": "new york \\"pizza\\"", "n": 3}'
    prefixes = [full[:k] for k in (6, 12, 19, 28)] + [full]
    bodies = [role(), chunk(tc(0, "call_1", "search", prefixes[0]))]
    bodies += [chunk(tc(0, args=p)) for p in prefixes[1:]]
    msg = run(kind, [*bodies, chunk(finish="tool_calls")])
    assert calls(msg) == [(0, "call_1", "search", {"q": 'new york "pizza"', "n": 3}, None)]


# --------------------------------------------------------------------------- D


def test_d1_arguments_as_json_object(kind: Kind) -> None:
    args = {"q": "café", "opts": {"deep": [1, 2.5, None, True]}, "empty": {}}
    bodies = [
        role(),
        chunk(tc(0, "call_1", "search", args)),
        chunk(tc(1, "call_2", "get_time", {})),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, "call_1", "search", args, None),
        (1, "call_2", "get_time", {}, None),
    ]


@pytest.mark.parametrize("args", ["", ABSENT, None], ids=["empty", "absent", "null"])
def test_d2_zero_argument_tool(kind: Kind, args: Any) -> None:
    bodies = [
        role(),
        chunk(tc(0, "call_1", "get_time", args)),
        chunk(tc(1, "call_2", "list_tabs", args)),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, "call_1", "get_time", {}, None),
        (1, "call_2", "list_tabs", {}, None),
    ]
    assert [c.arguments for c in msg.tool_calls] == ["{}", "{}"]


D3_TEXT = (
    r'{"text": "line1\r\nline2 \"quoted\" caf\u00e9 \ud83d\ude00 日本語 ☃", '
    r'"path": "C:\\dir\\f.txt", "tab": "a\tb\/c"}'
)
D3_VALUE = {
    "text": 'line1\r\nline2 "quoted" café \U0001f600 日本語 ☃',
    "path": "C:\\dir\\f.txt",
    "tab": "a\tb/c",
}


def _d3_cuts() -> list[int]:
    """Offsets inside every escape of D3_TEXT: after each backslash, inside \\uXXXX."""
    cuts = set()
    for i, ch in enumerate(D3_TEXT):
        if ch == "\\":
            cuts.update({i + 1, i + 3})
        if ch in "日☃":
            cuts.add(i + 1)
    return sorted(c for c in cuts if 0 < c < len(D3_TEXT))


@pytest.mark.parametrize("cutting", ["escapes", "one-char"])
def test_d3_escapes_split_between_fragments(kind: Kind, cutting: str) -> None:
    assert json.loads(D3_TEXT) == D3_VALUE
    cuts = _d3_cuts() if cutting == "escapes" else list(range(1, len(D3_TEXT)))
    pieces = split(D3_TEXT, *cuts)
    assert any(p.endswith("\\") for p in pieces)  # cut right after a backslash
    msg = run(
        kind,
        [
            role(),
            *frags(0, pieces, "call_1", "write_file"),
            chunk(finish="tool_calls"),
        ],
    )
    assert calls(msg) == [(0, "call_1", "write_file", D3_VALUE, None)]
    assert msg.tool_calls[0].parsed["text"].encode() == D3_VALUE["text"].encode()


@pytest.mark.parametrize("head", ["{", '{"', '{"path": "a'])
def test_d4_header_already_carries_first_characters(kind: Kind, head: str) -> None:
    full = '{"path": "a.txt", "mode": "r"}'
    bodies = [
        role(),
        *frags(0, [head, full[len(head) :]], "call_1", "open_file"),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [(0, "call_1", "open_file", {"path": "a.txt", "mode": "r"}, None)]


# --------------------------------------------------------------------------- E


@pytest.mark.parametrize("finish", ["stop", "end_turn"])
def test_e1_calls_end_with_stop(kind: Kind, finish: str) -> None:
    bodies = [
        role(),
        *frags(0, ['{"city"', ': "Paris"}'], "call_1", "get_weather"),
        *frags(1, ['{"tz": "UTC"}'], "call_2", "get_time"),
        chunk(finish=finish),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, "call_1", "get_weather", {"city": "Paris"}, None),
        (1, "call_2", "get_time", {"tz": "UTC"}, None),
    ]
    # litellm's StreamingChoices maps "end_turn" to "stop" itself
    assert msg.finish_reason == ("stop" if kind.name == "litellm" else finish)


@pytest.mark.parametrize("layout", ["between-calls", "inside-a-call", "length-inside-a-call"])
def test_e2_intermediate_finish_reason_does_not_truncate(kind: Kind, layout: str) -> None:
    middle = "length" if layout == "length-inside-a-call" else "tool_calls"
    if layout == "between-calls":
        bodies = [
            chunk(tc(0, "call_1", "get_weather", '{"city": "Paris"}'), finish="tool_calls"),
            chunk(tc(1, "call_2", "get_time", '{"tz": "UTC"}'), finish="tool_calls"),
        ]
    else:
        bodies = [
            chunk(tc(0, "call_1", "get_weather", '{"city": ')),
            chunk(finish=middle),
            chunk(tc(0, args='"Paris"}')),
            chunk(tc(1, "call_2", "get_time", '{"tz": "UTC"}')),
            chunk(finish="tool_calls"),
        ]
    msg = run(kind, [role(), *bodies])
    assert calls(msg) == [
        (0, "call_1", "get_weather", {"city": "Paris"}, None),
        (1, "call_2", "get_time", {"tz": "UTC"}, None),
    ]
    assert msg.finish_reason == "tool_calls"


def test_e3_no_finish_reason(kind: Kind) -> None:
    bodies = [
        role(),
        chunk(content="Checking."),
        *frags(0, ['{"city": "Pa', 'ris"}'], "call_1", "get_weather"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [(0, "call_1", "get_weather", {"city": "Paris"}, None)]
    assert msg.content == "Checking."
    assert msg.finish_reason is None


@pytest.mark.parametrize("end", ["length", "stream-ends", "mid-escape"])
def test_e4_truncated_arguments_raise_with_complete_calls(kind: Kind, end: str) -> None:
    second = ['{"path": "src/ma', 'in.py", "lines": [1, ']
    if end == "mid-escape":
        second = ['{"path": "src/ma', 'in.py", "note": "a\\']
    bodies = [
        role(),
        chunk(content="Reading both."),
        *frags(0, ['{"path": ', '"a.py"}'], "call_1", "read_file"),
        *frags(1, second, "call_2", "read_file"),
    ]
    if end != "stream-ends":
        bodies.append(chunk(finish="length"))
    partial = "".join(second)

    with pytest.raises(TruncatedToolCallError) as info:
        streamfix.assemble(kind(bodies))
    err = info.value
    assert isinstance(err, streamfix.StreamFixError)
    assert err.message is not None
    assert calls(err.message) == [(0, "call_1", "read_file", {"path": "a.py"}, None)]
    assert err.message.content == "Reading both."
    assert err.partial_arguments == {1: partial}

    asm, _ = feed_all(kind(bodies))
    with pytest.raises(TruncatedToolCallError) as info2:
        asm.finish()
    assert info2.value.partial_arguments == {1: partial}
    assert info2.value.message == err.message
    with pytest.raises(AssemblerClosedError):
        asm.feed(kind.one(chunk(content="more")))


def _before_error() -> list[dict[str, Any]]:
    return [
        role(),
        chunk(content="Let me look."),
        *frags(0, ['{"path": "a.py"}'], "call_1", "read_file"),
        *frags(1, ['{"path": "b'], "call_2", "read_file"),
    ]


def _check_provider_error(err: ProviderStreamError, text: str) -> None:
    assert isinstance(err, streamfix.StreamFixError)
    assert text in str(err)
    assert text in err.provider_message
    assert err.message is not None
    assert err.message.content == "Let me look."
    assert calls(err.message) == [(0, "call_1", "read_file", {"path": "a.py"}, None)]
    assert err.partial_arguments == {1: '{"path": "b'}


OLLAMA_OOM = (
    "model requires more system memory (5.6 GiB) than is available (3.2 GiB): out of memory"
)


# The Ollama error object is an Ollama-native payload (no choices, no message): dicts only.
@pytest.mark.parametrize("kind", ["dict"], indirect=True)
def test_e5_ollama_error_object_mid_stream(kind: Kind) -> None:
    asm, _ = feed_all(kind(_before_error()))
    with pytest.raises(ProviderStreamError) as info:
        asm.feed({"error": OLLAMA_OOM})
    _check_provider_error(info.value, OLLAMA_OOM)
    with pytest.raises(AssemblerClosedError):
        asm.feed(chunk(content="more"))
    with pytest.raises(AssemblerClosedError):
        asm.finish()
    with pytest.raises(ProviderStreamError) as info2:
        streamfix.assemble([*_before_error(), {"error": OLLAMA_OOM}])
    _check_provider_error(info2.value, OLLAMA_OOM)


OPENROUTER_TEXT = "Provider returned error: upstream model overloaded"


def test_e5_openrouter_error_chunk_mid_stream(kind: Kind) -> None:
    # litellm maps finish_reason "error" to "stop"; the top-level error object survives
    error_chunk = chunk(
        content="",
        finish="error",
        provider="SomeProvider",
        error={"code": 502, "message": OPENROUTER_TEXT},
    )
    asm, _ = feed_all(kind(_before_error()))
    with pytest.raises(ProviderStreamError) as info:
        asm.feed(kind.one(error_chunk))
    _check_provider_error(info.value, OPENROUTER_TEXT)
    with pytest.raises(AssemblerClosedError):
        asm.feed(kind.one(chunk(content="more")))
    with pytest.raises(ProviderStreamError) as info2:
        streamfix.assemble(kind([*_before_error(), error_chunk]))
    _check_provider_error(info2.value, OPENROUTER_TEXT)


# litellm maps finish_reason "error" to "stop", so without an error object it cannot carry it
@DICT_AND_OPENAI
def test_e5_finish_reason_error_without_error_object(kind: Kind) -> None:
    asm, _ = feed_all(kind(_before_error()))
    with pytest.raises(ProviderStreamError) as info:
        asm.feed(kind.one(chunk(finish="error")))
    assert info.value.message is not None
    assert calls(info.value.message) == [(0, "call_1", "read_file", {"path": "a.py"}, None)]
    with pytest.raises(AssemblerClosedError):
        asm.feed(kind.one(chunk(content="more")))


USAGE = {"prompt_tokens": 31, "completion_tokens": 17, "total_tokens": 48}


def test_e6_chunks_with_empty_choices(kind: Kind) -> None:
    azure_first = {
        "id": "",
        "object": "",
        "created": 0,
        "model": "",
        "choices": [],
        "prompt_filter_results": [
            {
                "prompt_index": 0,
                "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}},
            }
        ],
    }
    bodies = [
        azure_first,
        role(),
        *frags(0, ['{"city": ', '"Paris"}'], "call_1", "get_weather"),
        chunk(finish="tool_calls"),
        chunk(choices=[], usage=dict(USAGE)),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [(0, "call_1", "get_weather", {"city": "Paris"}, None)]
    assert msg.finish_reason == "tool_calls"
    assert msg.usage is not None
    assert {k: msg.usage[k] for k in USAGE} == USAGE
    assert msg.content == ""


def _two_choices(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    body = chunk()
    body["choices"] = [first["choices"][0], second["choices"][0]]
    return body


def test_e7_several_choices_interleaved(kind: Kind) -> None:
    bodies = [
        chunk(delta={"role": "assistant", "content": "A"}, choice=0),
        chunk(delta={"role": "assistant", "content": "B"}, choice=1),
        chunk(tc(0, "c0", "get_weather", '{"city": '), choice=0),
        chunk(tc(0, "c1", "get_time", '{"tz": '), choice=1),
        _two_choices(
            chunk(tc(0, args='"Paris"}'), choice=0),
            chunk(tc(0, args='"UTC"}'), choice=1),
        ),
        chunk(content="!", choice=1),
        chunk(finish="tool_calls", choice=0),
        chunk(finish="stop", choice=1),
    ]
    asm, _ = feed_all(kind(bodies))
    both = asm.finish_all()
    assert sorted(both) == [0, 1]
    zero, one = both[0], both[1]
    assert (zero.choice, one.choice) == (0, 1)
    assert calls(zero) == [(0, "c0", "get_weather", {"city": "Paris"}, None)]
    assert calls(one) == [(0, "c1", "get_time", {"tz": "UTC"}, None)]
    assert (zero.content, one.content) == ("A", "B!")
    assert (zero.finish_reason, one.finish_reason) == ("tool_calls", "stop")
    assert run(kind, bodies, choice=0) == zero
    assert run(kind, bodies, choice=1) == one


# --------------------------------------------------------------------------- F

SIG = "CiQB0e2Kb3+x/9YzAbCdEf0123456789Qq=="
SIG_B = "EjQBMjM0NTY3ODlBQkNERUY+/=="


def _sig_fields(source: str, sig: str) -> tuple[str, dict[str, Any]]:
    """(id, tc extras) placing ``sig`` the way ``source`` does."""
    if source == "id":
        return f"call_1__thought__{sig}", {}
    places: dict[str, dict[str, Any]] = {
        "extra_content.google": {"extra_content": {"google": {"thought_signature": sig}}},
        "extra_content.vertex": {"extra_content": {"vertex": {"thought_signature": sig}}},
        "provider_specific_fields": {"provider_specific_fields": {"thought_signature": sig}},
        "function.provider_specific_fields": {
            "fn_extra": {"provider_specific_fields": {"thought_signature": sig}}
        },
    }
    return "call_1", places[source]


F1_SOURCES = ["extra_content.google", "extra_content.vertex", "provider_specific_fields", "id"]


def _f1(kind: Kind, source: str) -> None:
    cid, extra = _sig_fields(source, SIG)
    bodies = [
        role(),
        chunk(tc(0, cid, "get_weather", "", **extra)),
        chunk(tc(0, args='{"city": "Paris"}')),
        chunk(tc(1, "call_2", "get_time", '{"tz": "UTC"}')),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, cid, "get_weather", {"city": "Paris"}, SIG),
        (1, "call_2", "get_time", {"tz": "UTC"}, None),
    ]
    for key in ("extra_content", "provider_specific_fields"):
        if key in extra:
            assert msg.tool_calls[0].extras[key] == extra[key]


@pytest.mark.parametrize("source", F1_SOURCES)
def test_f1_thought_signature_on_the_naming_delta(kind: Kind, source: str) -> None:
    _f1(kind, source)


# litellm.types.utils.Function keeps only name and arguments: it drops
# function.provider_specific_fields, so litellm objects cannot carry this placement.
@DICT_AND_OPENAI
def test_f1_thought_signature_in_function_provider_specific_fields(kind: Kind) -> None:
    _f1(kind, "function.provider_specific_fields")


def _signature_on_arguments(kind: Kind, source: str) -> None:
    _, extra = _sig_fields(source, SIG)
    bodies = [
        role(),
        chunk(tc(0, "call_1", "get_weather", '{"city": ')),
        chunk(tc(0, args='"Paris"}', **extra)),
        chunk(finish="tool_calls"),
    ]
    assert calls(run(kind, bodies)) == [(0, "call_1", "get_weather", {"city": "Paris"}, SIG)]


@pytest.mark.parametrize("source", [s for s in F1_SOURCES if s != "id"])
def test_f1_thought_signature_on_an_arguments_only_delta(kind: Kind, source: str) -> None:
    """The signature rides on a fragment that otherwise only continues the arguments (the
    fast path for such fragments must see it)."""
    _signature_on_arguments(kind, source)


@DICT_AND_OPENAI  # litellm's Function cannot carry this placement (see above)
def test_f1_function_signature_on_an_arguments_only_delta(kind: Kind) -> None:
    _signature_on_arguments(kind, "function.provider_specific_fields")


def _sig_only(index: int, sig: str) -> dict[str, Any]:
    return chunk(tc(index, extra_content={"google": {"thought_signature": sig}}))


def test_f2_signature_only_delta_after_its_call(kind: Kind) -> None:
    bodies = [
        role(),
        *frags(0, ['{"city": "Pa', 'ris"}'], "call_1", "get_weather"),
        *frags(1, ['{"tz": "UTC"}'], "call_2", "get_time"),
        _sig_only(0, SIG),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, "call_1", "get_weather", {"city": "Paris"}, SIG),
        (1, "call_2", "get_time", {"tz": "UTC"}, None),
    ]


@pytest.mark.parametrize("first", [False, True], ids=["after-call-0", "stream-start"])
def test_f3_signature_only_delta_before_its_call(kind: Kind, first: bool) -> None:
    if first:
        bodies = [
            role(),
            _sig_only(0, SIG),
            *frags(0, ['{"city": "Paris"}'], "call_1", "get_weather"),
            *frags(1, ['{"tz": "UTC"}'], "call_2", "get_time"),
        ]
        expected = [
            (0, "call_1", "get_weather", {"city": "Paris"}, SIG),
            (1, "call_2", "get_time", {"tz": "UTC"}, None),
        ]
    else:
        bodies = [
            role(),
            *frags(0, ['{"city": "Paris"}'], "call_1", "get_weather"),
            _sig_only(1, SIG_B),
            *frags(1, ['{"tz": ', '"UTC"}'], "call_2", "get_time"),
        ]
        expected = [
            (0, "call_1", "get_weather", {"city": "Paris"}, None),
            (1, "call_2", "get_time", {"tz": "UTC"}, SIG_B),
        ]
    msg = run(kind, [*bodies, chunk(finish="tool_calls")])
    assert calls(msg) == expected


def test_f4_text_between_tool_call_chunks(kind: Kind) -> None:
    bodies = [
        role(),
        chunk(tc(0, "call_1", "get_weather", '{"city":')),
        chunk(content="\n"),
        chunk(tc(0, args=' "Paris"}')),
        chunk(content="\n"),
        chunk(tc(1, "call_2", "get_time", '{"tz": "UTC"}')),
        chunk(content="\n"),
        chunk(finish="tool_calls"),
    ]
    msg = run(kind, bodies)
    assert calls(msg) == [
        (0, "call_1", "get_weather", {"city": "Paris"}, None),
        (1, "call_2", "get_time", {"tz": "UTC"}, None),
    ]
    assert msg.content == "\n\n\n"


# --------------------------------------------------------------------------- events


def _two_call_stream() -> list[dict[str, Any]]:
    return [
        role(),
        chunk(content="Checking."),
        *frags(0, ["", '{"a":', '1,"b":', '"x', '"}'], "call_a", "first"),
        *frags(1, ['{"tz": "UTC"}'], "call_b", "second"),
        chunk(finish="tool_calls"),
        chunk(choices=[], usage=dict(USAGE)),
    ]


def test_events_order_for_two_calls(kind: Kind) -> None:
    _, events = feed_all(kind(_two_call_stream()))
    tool_events = [
        e for e in events if isinstance(e, (ToolCallStarted, ArgumentsDelta, ToolCallCompleted))
    ]
    shape = [
        (type(e).__name__, e.position)
        for e in tool_events
        if not (isinstance(e, ArgumentsDelta) and e.delta == "")
    ]
    assert shape == [
        ("ToolCallStarted", 0),
        ("ArgumentsDelta", 0),
        ("ArgumentsDelta", 0),
        ("ArgumentsDelta", 0),
        ("ArgumentsDelta", 0),
        ("ToolCallCompleted", 0),
        ("ToolCallStarted", 1),
        ("ArgumentsDelta", 1),
        ("ToolCallCompleted", 1),
    ]
    assert tool_events[0] == ToolCallStarted(position=0, id="call_a", name="first", choice=0)
    started_1 = next(e for e in tool_events if isinstance(e, ToolCallStarted) and e.position)
    assert started_1 == ToolCallStarted(position=1, id="call_b", name="second", choice=0)
    done = [e for e in tool_events if isinstance(e, ToolCallCompleted)]
    assert [(e.id, e.name, json.loads(e.arguments)) for e in done] == [
        ("call_a", "first", {"a": 1, "b": "x"}),
        ("call_b", "second", {"tz": "UTC"}),
    ]
    text = [e for e in events if isinstance(e, TextDelta)]
    assert text == [TextDelta(text="Checking.", choice=0)]
    usage = [e for e in events if isinstance(e, UsageReported)]
    assert len(usage) == 1
    assert {k: usage[0].usage[k] for k in USAGE} == USAGE


def _identity_events(events: list[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, (ToolCallStarted, ToolCallUpdated))]


def test_events_updated_when_name_arrives_in_pieces_or_late(kind: Kind) -> None:
    """C2, C3: ``ToolCallUpdated`` carries the call's whole name as it grows."""
    pieces = [
        role(),
        chunk(tc(0, "call_1", "edit_ex", "")),
        chunk(tc(0, name="isting_file", args='{"a": 1}')),
        chunk(tc(1, "call_2", args='{"q":')),
        chunk(tc(1, name="search", args=' "x",')),
        chunk(tc(1, name="search", args=' "n": 2}')),  # C1: a repeat changes nothing
    ]
    _, events = feed_all(kind(pieces))
    assert _identity_events(events) == [
        ToolCallStarted(0, "call_1", "edit_ex"),
        ToolCallUpdated(0, "call_1", "edit_existing_file", None),
        ToolCallStarted(1, "call_2", None),
        ToolCallUpdated(1, "call_2", "search", None),
    ]


def test_events_updated_for_late_id_and_signatures(kind: Kind) -> None:
    """An id after the first fragment, a signature on its own after the call (F2) and
    one held for a call not yet open (F3, reported on ``ToolCallStarted``)."""
    bodies = [
        role(),
        chunk(tc(0, name="get_weather", args='{"city": ')),
        chunk(tc(0, "call_1", args='"Paris"}')),
        _sig_only(0, SIG),
        _sig_only(0, SIG),  # the same signature again: nothing new
        _sig_only(1, SIG_B),
        *frags(1, ['{"tz": "UTC"}'], "call_2", "get_time"),
    ]
    asm, events = feed_all(kind(bodies))
    assert _identity_events(events) == [
        ToolCallStarted(0, None, "get_weather"),
        ToolCallUpdated(0, "call_1", "get_weather", None),
        ToolCallUpdated(0, "call_1", "get_weather", SIG),
        ToolCallStarted(1, "call_2", "get_time", thought_signature=SIG_B),
    ]
    assert [(c.id, c.thought_signature) for c in asm.finish().tool_calls] == [
        ("call_1", SIG),
        ("call_2", SIG_B),
    ]


def test_events_arguments_delta_partial_grows(kind: Kind) -> None:
    _, events = feed_all(kind(_two_call_stream()))
    deltas = [
        e for e in events if isinstance(e, ArgumentsDelta) and e.position == 0 and e.delta != ""
    ]
    assert [e.delta for e in deltas] == ['{"a":', '1,"b":', '"x', '"}']
    assert [e.partial for e in deltas] == [{}, {"a": 1}, {"a": 1}, {"a": 1, "b": "x"}]


def test_events_a_clean_stream_has_no_diagnostics(kind: Kind) -> None:
    msg = run(kind, _two_call_stream())
    assert calls(msg) == [
        (0, "call_a", "first", {"a": 1, "b": "x"}, None),
        (1, "call_b", "second", {"tz": "UTC"}, None),
    ]
    assert msg.diagnostics == []
    assert msg.content == "Checking."
    assert msg.finish_reason == "tool_calls"


def test_feed_after_finish_is_refused(kind: Kind) -> None:
    asm, _ = feed_all(kind(_two_call_stream()))
    asm.finish()
    with pytest.raises(AssemblerClosedError):
        asm.feed(kind.one(chunk(content="late")))


def test_aassemble_with_async_generator(kind: Kind) -> None:
    items = kind(_two_call_stream())

    async def stream() -> AsyncIterator[Any]:
        for item in items:
            await asyncio.sleep(0)
            yield item

    msg = asyncio.run(streamfix.aassemble(stream()))
    assert msg == streamfix.assemble(kind(_two_call_stream()))
    assert calls(msg) == [
        (0, "call_a", "first", {"a": 1, "b": "x"}, None),
        (1, "call_b", "second", {"tz": "UTC"}, None),
    ]


def test_max_argument_bytes(kind: Kind) -> None:
    small = [role(), *frags(0, ['{"q": ', '"0123456789"}'], "call_1", "search")]
    assert calls(streamfix.assemble(kind(small), max_argument_bytes=64)) == [
        (0, "call_1", "search", {"q": "0123456789"}, None)
    ]
    big = [role(), *frags(0, ['{"q": "', "x" * 40, "x" * 40, '"}'], "call_1", "search")]
    with pytest.raises(ArgumentsTooLargeError):
        streamfix.assemble(kind(big), max_argument_bytes=64)
    asm = streamfix.ToolCallAssembler(max_argument_bytes=64)
    with pytest.raises(ArgumentsTooLargeError):
        for item in kind(big):
            asm.feed(item)
        asm.finish()


def test_max_argument_bytes_counts_utf8_bytes(kind: Kind) -> None:
    # 24 characters, 54 UTF-8 bytes
    body = [role(), *frags(0, ['{"t": "', "日本語" * 5, '"}'], "call_1", "say")]
    assert len('{"t": "' + "日本語" * 5 + '"}') < 32
    with pytest.raises(ArgumentsTooLargeError):
        streamfix.assemble(kind(body), max_argument_bytes=32)


# --------------------------------------------------------------------------- Ollama native
# /api/chat NDJSON objects: a plain-dict format, so these tests use dicts only.


def ollama(
    message: dict[str, Any] | None = None, done: bool = False, **extra: Any
) -> dict[str, Any]:
    line: dict[str, Any] = {
        "model": "qwen3:8b",
        "created_at": "2025-06-01T10:00:00.000Z",
        "message": {"role": "assistant", "content": "", **(message or {})},
        "done": done,
    }
    line.update(extra)
    return line


def ollama_done() -> dict[str, Any]:
    return ollama(
        done=True,
        done_reason="stop",
        total_duration=1_234_567,
        load_duration=1_000,
        prompt_eval_count=5,
        prompt_eval_duration=10,
        eval_count=7,
        eval_duration=20,
    )


OLLAMA_USAGE = {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}


def ocall(name: str, args: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"function": {"name": name, "arguments": args}, **extra}


def test_ollama_native_several_calls_in_one_message() -> None:
    lines = [
        ollama({"thinking": "Two cities."}),
        ollama(
            {
                "tool_calls": [
                    ocall("get_weather", {"city": "Paris"}),
                    ocall("get_weather", {"city": "Tōkyō", "days": 3}),
                ]
            }
        ),
        ollama_done(),
    ]
    msg = run(Kind("dict"), lines)
    assert calls(msg) == [
        (0, None, "get_weather", {"city": "Paris"}, None),
        (1, None, "get_weather", {"city": "Tōkyō", "days": 3}, None),
    ]
    assert msg.reasoning == "Two cities."
    assert msg.content == ""
    assert msg.finish_reason == "stop"
    assert msg.usage is not None
    assert {k: msg.usage[k] for k in OLLAMA_USAGE} == OLLAMA_USAGE


def test_ollama_native_one_call_per_line() -> None:
    lines = [
        ollama({"content": "Sure"}),
        ollama({"content": ", reading."}),
        ollama({"tool_calls": [ocall("read_file", {"path": "a.py"})]}),
        ollama({"tool_calls": [ocall("read_file", {"path": "b.py"})]}),
        ollama({"tool_calls": [ocall("get_time", {})]}),
        ollama_done(),
    ]
    msg = run(Kind("dict"), lines)
    assert calls(msg) == [
        (0, None, "read_file", {"path": "a.py"}, None),
        (1, None, "read_file", {"path": "b.py"}, None),
        (2, None, "get_time", {}, None),
    ]
    assert msg.tool_calls[2].arguments == "{}"
    assert msg.content == "Sure, reading."
    assert msg.finish_reason == "stop"


def test_ollama_native_calls_with_ids_and_function_index() -> None:
    # Ollama >= 0.12 sends an id and function.index on each call
    lines = [
        ollama(
            {
                "tool_calls": [
                    {
                        "id": "call_p8x",
                        "function": {
                            "index": 0,
                            "name": "get_weather",
                            "arguments": {"city": "Paris"},
                        },
                    },
                    {
                        "id": "call_q9y",
                        "function": {"index": 1, "name": "get_time", "arguments": {"tz": "UTC"}},
                    },
                ]
            }
        ),
        ollama_done(),
    ]
    msg = run(Kind("dict"), lines)
    assert calls(msg) == [
        (0, "call_p8x", "get_weather", {"city": "Paris"}, None),
        (1, "call_q9y", "get_time", {"tz": "UTC"}, None),
    ]


def test_ollama_native_error_object() -> None:
    lines = [
        ollama({"content": "Let me look."}),
        ollama({"tool_calls": [ocall("read_file", {"path": "a.py"})]}),
    ]
    asm, _ = feed_all(lines)
    with pytest.raises(ProviderStreamError) as info:
        asm.feed({"error": OLLAMA_OOM})
    err = info.value
    assert OLLAMA_OOM in str(err)
    assert OLLAMA_OOM in err.provider_message
    assert err.message is not None
    assert err.message.content == "Let me look."
    assert calls(err.message) == [(0, None, "read_file", {"path": "a.py"}, None)]
    with pytest.raises(AssemblerClosedError):
        asm.feed(ollama_done())
    with pytest.raises(ProviderStreamError, match="out of memory"):
        streamfix.assemble([*lines, {"error": OLLAMA_OOM}])
