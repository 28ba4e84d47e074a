"""The proxy's repaired stream without HTTP (``RepairedStream``, sans-I/O): every scenario
of the corpus as the replay server sends it, whole and one byte at a time; line endings,
comments, malformed and cut streams."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from proxy_helpers import OLLAMA, OPENAI, SCENARIOS, TOOLS, expected, same_calls, sse_events

import streamfix
import streamfix.testing
from streamfix.proxy import RepairedStream


def upstream_bytes(name: str) -> bytes:
    """The scenario as the replay server sends it."""
    chunks = SCENARIOS[name].chunks
    if SCENARIOS[name].dialect == "ollama":
        return "".join(json.dumps(c) + "\n" for c in chunks).encode()
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def run(name: str, data: bytes, *, step: int = 0, **options: Any) -> bytes:
    stream = RepairedStream(SCENARIOS[name].dialect, TOOLS, **options)
    pieces = [data] if not step else [data[i : i + step] for i in range(0, len(data), step)]
    out = b"".join(stream.feed(piece) for piece in pieces)
    return out + stream.end()


def _ids_hidden(data: bytes) -> bytes:
    """Generated ids differ between two repairers: hidden."""
    return re.sub(rb"call_[0-9a-f]{8}_", b"call_X_", data)


def openai_result(out: bytes) -> tuple[list[Any], Any]:
    """The chunks, and the last event ([DONE] or the error object)."""
    events = sse_events(out.decode())
    assert events, out
    last = events[-1]
    assert all(isinstance(e, dict) and "error" not in e for e in events[:-1])
    assert "[DONE]" not in events[:-1]
    return events[:-1], last


@pytest.mark.parametrize("name", OPENAI)
def test_openai_scenario_repaired(name: str) -> None:
    want = expected(SCENARIOS[name])
    out = run(name, upstream_bytes(name))
    chunks, last = openai_result(out)
    if want.error is None:
        assert last == "[DONE]"
        assert streamfix.testing.is_canonical(chunks), streamfix.testing.canonical_problems(chunks)
        message = streamfix.assemble(chunks)
        got = [(c.id, c.name, c.parsed) for c in message.tool_calls]
        assert same_calls(got, want), got
        assert message.content == want.text
    else:
        assert isinstance(last, dict), last
        assert want.error in last["error"]["message"]
        assert streamfix.testing.is_canonical(chunks, complete=False)


@pytest.mark.parametrize("name", OPENAI + OLLAMA)
def test_byte_at_a_time_is_the_same_stream(name: str) -> None:
    data = upstream_bytes(name)
    assert _ids_hidden(run(name, data, step=1)) == _ids_hidden(run(name, data))
    assert _ids_hidden(run(name, data, step=7)) == _ids_hidden(run(name, data))


@pytest.mark.parametrize("name", OLLAMA)
def test_ollama_scenario_in_ollamas_form(name: str) -> None:
    want = expected(SCENARIOS[name])
    lines = [json.loads(line) for line in run(name, upstream_bytes(name)).decode().splitlines()]
    calls, text = [], ""
    for line in lines[:-1]:
        assert set(line) >= {"model", "created_at", "message", "done"}, line
        assert line["done"] is False
        entries = line["message"].get("tool_calls") or []
        assert len(entries) <= 1  # each call its own line
        for entry in entries:
            assert isinstance(entry["function"]["arguments"], dict)
            calls.append(
                (entry.get("id"), entry["function"]["name"], entry["function"]["arguments"])
            )
        text += line["message"].get("content") or ""
    last = lines[-1]
    if want.error is not None:
        assert last == {"error": want.error}
    else:
        original = SCENARIOS[name].chunks[-1]
        assert last == {**original, "message": {"role": "assistant", "content": ""}}
        assert "tool_calls" not in last["message"]
    assert same_calls(calls, want)
    assert text == want.text


def test_ollama_text_lines_pass_as_sent() -> None:
    data = upstream_bytes("ollama-text")
    out = run("ollama-text", data).splitlines()
    assert out[:3] == data.splitlines()[:3]  # the text lines, byte for byte
    assert json.loads(out[3]) == SCENARIOS["ollama-text"].chunks[3]  # the done line


def test_openai_chunks_passed_on_go_out_byte_for_byte() -> None:
    data = upstream_bytes("b1-interleaved")
    out = run("b1-interleaved", data)
    assert out == data  # OpenAI's own form: every event as sent (R1)


@pytest.mark.parametrize("ending", [b"\r\n", b"\r"])
def test_other_line_endings(ending: bytes) -> None:
    data = upstream_bytes("b2-same-index")
    want = run("b2-same-index", data)
    assert _ids_hidden(run("b2-same-index", data.replace(b"\n", ending), step=3)) == _ids_hidden(
        want
    )


def test_comments_event_fields_and_multiline_data() -> None:
    chunks = SCENARIOS["b1-interleaved"].chunks
    text = ": keep-alive\n\n"
    for n, chunk in enumerate(chunks):
        dumped = json.dumps(chunk, indent=1)  # one JSON value over several data: lines
        text += f"event: message\nid: {n}\n" + "".join(
            f"data: {line}\n" for line in dumped.split("\n")
        )
        text += "\n"
    text += "data: [DONE]\n\n"
    chunks_out, last = openai_result(run("b1-interleaved", text.encode()))
    assert last == "[DONE]"
    assert chunks_out == list(chunks)


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (b"data: {not json\n\n", "not JSON"),
        (b"data: [1, 2]\n\n", "must be a JSON object"),
        (b"data: \xff\xfe\n\n", "not UTF-8"),
    ],
)
def test_malformed_upstream_is_an_error_event(bad: bytes, why: str) -> None:
    data = upstream_bytes("b1-interleaved")
    head = data[: data.index(b"\n\n") + 2]  # the role chunk
    out = run("b1-interleaved", head + bad + data[len(head) :])
    chunks, last = openai_result(out)
    assert len(chunks) == 1
    assert last["error"]["code"] == "upstream_malformed"
    assert why in last["error"]["message"]


def test_a_stream_cut_mid_call_ends_in_an_error() -> None:
    data = upstream_bytes("b1-interleaved")
    events = data.split(b"\n\n")
    cut = b"\n\n".join(events[:4]) + b"\n\n"
    _, last = openai_result(run("b1-interleaved", cut))
    assert last["error"]["code"] == "upstream_closed"
    assert "before [DONE]" in last["error"]["message"]
    assert "truncated" in last["error"]["message"]  # the repairer's own reason, after it


def test_a_stream_cut_mid_event_ends_in_an_error() -> None:
    data = upstream_bytes("text")
    chunks, last = openai_result(run("text", data[: len(data) // 2]))
    assert last["error"]["code"] == "upstream_closed"
    assert "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks) != (
        SCENARIOS["text"].text
    )


def test_every_choice_finished_without_done_is_complete() -> None:
    data = upstream_bytes("b1-interleaved").replace(b"data: [DONE]\n\n", b"")
    chunks, last = openai_result(run("b1-interleaved", data))
    assert last == "[DONE]"
    assert len(streamfix.assemble(chunks).tool_calls) == 2


def test_an_empty_upstream_body_is_an_error() -> None:
    _, last = openai_result(run("text", b""))
    assert last["error"]["code"] == "upstream_closed"


def test_ollama_cut_before_its_done_line() -> None:
    data = upstream_bytes("ollama-call-per-line")
    cut = b"\n".join(data.split(b"\n")[:2]) + b"\n"
    lines = [json.loads(line) for line in run("ollama-call-per-line", cut).splitlines()]
    assert "before its done line" in lines[-1]["error"]
    assert [
        e["function"]["name"] for line in lines[:-1] for e in line["message"]["tool_calls"]
    ] == [
        "get_weather",
        "get_time",
    ]


def test_arguments_over_the_limit_are_an_error_event() -> None:
    _, last = openai_result(
        run("b1-interleaved", upstream_bytes("b1-interleaved"), max_argument_bytes=8)
    )
    assert last["error"]["code"] == "arguments_too_large"
    assert "max_argument_bytes=8" in last["error"]["message"]


def test_bytes_after_the_end_are_ignored() -> None:
    data = upstream_bytes("text")
    stream = RepairedStream("openai")
    out = stream.feed(data)
    assert stream.over
    assert stream.feed(b"data: {}\n\n") == b""
    assert stream.end() == b""
    assert out.endswith(b"data: [DONE]\n\n")


def test_tools_that_cannot_be_read_are_as_if_none() -> None:
    out = RepairedStream("openai", tools="not tools").feed(upstream_bytes("b2-same-index"))
    assert out.endswith(b"data: [DONE]\n\n")
