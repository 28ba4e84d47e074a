"""Issue 35, point 3, over real HTTP: an upstream's SSE carrying, raw inside its JSON
strings, the characters where ``str.splitlines()`` also breaks a line (U+2028, U+2029,
U+0085, ``\\x0b``, ``\\x0c``, ``\\x1c``-``\\x1e``), in every event form the SSE
specification allows, goes through the proxy unchanged: the client reads the same chunks
(each one-line event byte for byte), and the assembled answer keeps every character.
Ollama's NDJSON lines the same.

U+2028, U+2029 and U+0085 are valid raw in a JSON string: they stand in the calls'
arguments, whose events pass byte for byte. The five control characters are not (JSON
wants them escaped): an upstream that sends them raw is read as it meant, and the chunk
goes out re-encoded, valid JSON, the character kept; they stand in the answer's text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import openai
import pytest
from fake_upstream import UpstreamServer
from proxy_helpers import USER, sse_events

import streamfix
from streamfix.proxy import ProxyServer

LEGAL = ("\u2028", "\u2029", "\u0085")  # valid raw inside a JSON string
CONTROL = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e")  # JSON wants these escaped
BASE = {"id": "chatcmpl-sse", "object": "chat.completion.chunk", "created": 0, "model": "m"}


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {**BASE, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _call(index: int, arguments: str, name: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if name is not None:
        entry.update(id=f"call_{index}", type="function")
        entry["function"]["name"] = name
    return _chunk({"tool_calls": [entry]})


def _arguments(char: str) -> str:
    return json.dumps({"text": f"before{char}after", "n": 1}, ensure_ascii=False)


def _upstream_chunks() -> list[dict[str, Any]]:
    """Text with each control character raw, then one call a legal character, its
    arguments in three pieces (the character raw in the middle one)."""
    chunks = [_chunk({"role": "assistant", "content": ""})]
    chunks += [_chunk({"content": f"a{char}b "}) for char in CONTROL]
    for index, char in enumerate(LEGAL):
        text = _arguments(char)
        cut = text.index(char)
        chunks += [
            _call(index, text[: cut - 2], "write_note"),
            _call(index, text[cut - 2 : cut + 3]),
            _call(index, text[cut + 3 :]),
        ]
    chunks.append(_chunk({}, "tool_calls"))
    return chunks


CHUNKS = _upstream_chunks()
TEXT = "".join(c["choices"][0]["delta"].get("content") or "" for c in CHUNKS)


def _raw(chunk: dict[str, Any]) -> str:
    """The chunk's JSON as such a server writes it: every character raw."""
    text = json.dumps(chunk, ensure_ascii=False, separators=(",", ":"))
    for char in CONTROL:
        text = text.replace(json.dumps(char)[1:-1], char)
    return text


def _multiline(text: str) -> str:
    """The JSON over several ``data:`` lines (cut after each comma outside a string)."""
    lines, start, inside, escaped = [], 0, False, False
    for at, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            inside = not inside
        elif char == "," and not inside:
            lines.append(text[start : at + 1])
            start = at + 1
    lines.append(text[start:])
    return "".join(f"data: {line}\n" for line in lines)


#: Every event form: the SSE text of one event whose data is ``text`` (blank line included).
FORMS: dict[str, Callable[[str, int], str]] = {
    "one-data-line": lambda text, n: f"data: {text}\n\n",
    "event-line": lambda text, n: f"event: message\ndata: {text}\n\n",
    "several-data-lines": lambda text, n: _multiline(text) + "\n",
    "data-without-space": lambda text, n: f"data:{text}\n\n",
    "id-retry-comment": lambda text, n: f": tick {n}\nid: {n}\nretry: 3000\ndata: {text}\n\n",
    "crlf-and-cr": lambda text, n: (f"id: {n}\r\ndata: {text}\r\n\r\n", f"data: {text}\r\r")[n % 2],
}
ONE_LINE = {"one-data-line", "event-line", "data-without-space", "id-retry-comment", "crlf-and-cr"}


def _body(form: str) -> str:
    events = "".join(FORMS[form](_raw(chunk), n) for n, chunk in enumerate(CHUNKS))
    return events + FORMS[form]("[DONE]", len(CHUNKS))


@pytest.fixture(scope="module")
def upstream() -> Iterator[UpstreamServer]:
    with UpstreamServer() as server:
        yield server


@pytest.fixture(scope="module")
def proxy(upstream: UpstreamServer) -> Iterator[ProxyServer]:
    with ProxyServer(upstream.url) as server:
        yield server


def _request(form: str, piece: int = 0) -> dict[str, Any]:
    return {
        "model": "raw-body",
        "messages": USER,
        "stream": True,
        "x_body": _body(form),
        "x_piece": piece,
    }


def _check_assembled(message: Any) -> None:
    assert message.content == TEXT
    for char in CONTROL:
        assert char in message.content
    assert [c.arguments for c in message.tool_calls] == [_arguments(char) for char in LEGAL]
    assert [c.parsed["text"] for c in message.tool_calls] == [f"before{c}after" for c in LEGAL]


@pytest.mark.parametrize("piece", [0, 5], ids=["whole", "5-bytes"])
@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_character_in_every_event_form_passes_unchanged(
    form: str, piece: int, proxy: ProxyServer
) -> None:
    response = httpx.post(
        proxy.url + "/v1/chat/completions", json=_request(form, piece), timeout=30
    )
    assert response.status_code == 200
    body = response.content.decode("utf-8")
    events = sse_events(body)  # the client's events, read as valid JSON
    assert events[-1] == "[DONE]", events[-1]
    assert events[:-1] == CHUNKS  # every chunk as the upstream meant it
    if form in ONE_LINE:  # an event valid as sent goes out byte for byte
        for chunk in CHUNKS:
            text = _raw(chunk)
            if not any(char in text for char in CONTROL):
                assert f"data: {text}\n\n" in body, text
    _check_assembled(streamfix.assemble(events[:-1]))


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_openai_sdk_through_the_proxy_keeps_every_character(
    form: str, proxy: ProxyServer
) -> None:
    client = openai.OpenAI(base_url=proxy.openai_base_url, api_key="sk-test", max_retries=0)
    stream = client.chat.completions.create(
        model="raw-body",
        messages=USER,  # type: ignore[arg-type]
        stream=True,
        extra_body={"x_body": _body(form)},
    )
    text, arguments = "", ["", "", ""]
    for chunk in stream:
        delta = chunk.choices[0].delta
        text += delta.content or ""
        for call in delta.tool_calls or ():
            arguments[call.index] += (call.function and call.function.arguments) or ""
    assert text == TEXT
    assert arguments == [_arguments(char) for char in LEGAL]


def _ollama_body() -> str:
    """Ollama's NDJSON: text with each control character raw, one call a line with a
    legal character raw in its arguments, the done line."""
    base = {"model": "m", "created_at": "2025-01-01T00:00:00Z"}

    def line(message: dict[str, Any], done: bool = False) -> str:
        return _raw({**base, "message": {"role": "assistant", **message}, "done": done}) + "\n"

    lines = [line({"content": f"a{char}b "}) for char in CONTROL]
    for char in LEGAL:
        function = {"name": "write_note", "arguments": json.loads(_arguments(char))}
        lines.append(line({"content": "", "tool_calls": [{"function": function}]}))
    return "".join(lines) + line({"content": ""}, done=True)


@pytest.mark.parametrize("piece", [0, 5], ids=["whole", "5-bytes"])
def test_ollama_lines_keep_every_character(piece: int, proxy: ProxyServer) -> None:
    request = {
        "model": "raw-body",
        "messages": USER,
        "x_body": _ollama_body(),
        "x_type": "application/x-ndjson",
        "x_piece": piece,
    }
    response = httpx.post(proxy.url + "/api/chat", json=request, timeout=30)
    assert response.status_code == 200
    lines = [json.loads(line) for line in response.content.decode("utf-8").split("\n") if line]
    assert lines[-1]["done"] is True, lines[-1]
    text = "".join(line["message"].get("content") or "" for line in lines)
    calls = [e["function"] for line in lines for e in line["message"].get("tool_calls") or ()]
    assert text == "".join(f"a{char}b " for char in CONTROL)
    assert [c["arguments"]["text"] for c in calls] == [f"before{c}after" for c in LEGAL]
