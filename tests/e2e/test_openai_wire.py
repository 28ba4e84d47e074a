"""The openai wire over real HTTP: ``client.chat.completions.create(stream=True)`` against
the replay server, stock and with the shim installed (``streamfix.install("openai")``).

Patched, the chunks the real client yields assemble as the scenario's own chunks do, and a
framework's index-keyed accumulation of them gives the non-streamed response's calls; a
call cut off raises an ``openai.APIError`` that is also the core's truncation error; the
provider's error the SDK's ``APIError`` with its text. ``shim_only``: the wire has no
upstream patch, so direct mode runs none of it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest
from conftest import USER

import streamfix
import streamfix.testing
import streamfix_openai
from streamfix.testing import ReplayServer

pytestmark = pytest.mark.shim_only

OPENAI = streamfix.testing.scenarios("openai")
COMPLETE = sorted(n for n, s in OPENAI.items() if s.error is None and not s.truncated)
COMPLETE.remove("i3-restarted")  # the wire raises: tests/openai/test_wire.py


def _client(server: ReplayServer) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=server.openai_base_url, api_key="sk-streamfix-test", max_retries=0
    )


def _accumulated(chunks: list[Any]) -> list[tuple[str, Any]]:
    """The calls as frameworks accumulate the SDK's chunks: by ``index``, name and
    arguments appended."""
    calls: dict[Any, dict[str, str]] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for entry in choice.delta.tool_calls or ():
                call = calls.setdefault(entry.index, {"name": "", "arguments": ""})
                if entry.function is not None:
                    call["name"] += entry.function.name or ""
                    call["arguments"] += entry.function.arguments or ""
    out = []
    for call in calls.values():
        try:
            out.append((call["name"], json.loads(call["arguments"])))
        except ValueError:
            out.append((call["name"], call["arguments"]))
    return out


def _non_streamed(client: openai.OpenAI, name: str) -> list[tuple[str, Any]]:
    whole = client.chat.completions.create(model=name, messages=USER)
    calls = whole.choices[0].message.tool_calls or []
    return [(c.function.name, json.loads(c.function.arguments)) for c in calls]


@pytest.fixture
def openai_patched() -> Any:
    streamfix_openai.uninstall()
    streamfix_openai.install()
    yield
    streamfix_openai.uninstall()


@pytest.mark.parametrize("name", COMPLETE)
def test_streamed_accumulates_to_non_streamed(
    streamfix_server: ReplayServer, openai_patched: None, name: str
) -> None:
    with _client(streamfix_server) as client:
        chunks = list(client.chat.completions.create(model=name, messages=USER, stream=True))
        assert _accumulated(chunks) == _non_streamed(client, name)
    got, want = streamfix.assemble(chunks), streamfix.assemble(OPENAI[name].chunks)
    assert [(c.name, c.parsed) for c in got.tool_calls] == [
        (c.name, c.parsed) for c in want.tool_calls
    ]
    assert got.content == want.content


def test_stock_accumulates_b3_and_c1_wrong(streamfix_server: ReplayServer) -> None:
    assert not streamfix_openai.installed()
    with _client(streamfix_server) as client:
        for name in ("b3-same-index", "c1-repeated-names"):
            chunks = list(client.chat.completions.create(model=name, messages=USER, stream=True))
            assert _accumulated(chunks) != _non_streamed(client, name)


def test_async_client(streamfix_server: ReplayServer, openai_patched: None) -> None:
    async def run() -> list[Any]:
        async with openai.AsyncOpenAI(
            base_url=streamfix_server.openai_base_url, api_key="sk-streamfix-test", max_retries=0
        ) as client:
            stream = await client.chat.completions.create(
                model="b3-same-index", messages=USER, stream=True
            )
            return [chunk async for chunk in stream]

    assert _accumulated(asyncio.run(run())) == [
        ("get_weather", {"city": "Paris"}),
        ("get_time", {"zone": "Europe/Paris"}),
    ]


def test_truncated_raises_an_api_error(
    streamfix_server: ReplayServer, openai_patched: None
) -> None:
    chunks: list[Any] = []
    with _client(streamfix_server) as client, pytest.raises(openai.APIError) as caught:
        for chunk in client.chat.completions.create(
            model="e4-truncated", messages=USER, stream=True
        ):
            chunks.append(chunk)
    assert isinstance(caught.value, streamfix.TruncatedToolCallError)
    assert caught.value.partial_arguments == {1: '{"zone": "Eur'}
    assert _accumulated(chunks)[0] == ("get_weather", {"city": "Paris"})


def test_provider_error_raises_the_sdks_error(
    streamfix_server: ReplayServer, openai_patched: None
) -> None:
    text = []
    with _client(streamfix_server) as client, pytest.raises(openai.APIError) as caught:
        for chunk in client.chat.completions.create(model="e5-error", messages=USER, stream=True):
            text.append(chunk.choices[0].delta.content or "")
    assert type(caught.value) is openai.APIError
    assert caught.value.message == "upstream overloaded"
    assert "".join(text) == "Let me check"
