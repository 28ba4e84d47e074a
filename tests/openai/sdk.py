"""The real openai clients against an in-process transport that answers with SSE bytes.

:class:`Served` is an HTTP transport (``MockTransport`` of the HTTP library the SDK is
built on) that answers ``POST /chat/completions`` with ``data: {chunk}`` events, one per
chunk dict of the stream the request's ``model`` names, then ``data: [DONE]``; it records
every request. :func:`read` drains one ``create(stream=True)`` stream in one of the ways
consumers read it (:data:`SYNC`, :data:`ASYNC`), returning the chunks it yielded and the
error it ended with. :func:`naive` is the index-keyed accumulation most frameworks run
over the SDK's chunks.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import openai
from openai import _base_client

__all__ = ["ASYNC", "MODES", "SYNC", "Served", "first_entries", "helper", "naive", "read", "sse"]

#: The HTTP library this release of the SDK is built on (``httpx2`` from openai 3.x).
http: Any = getattr(_base_client, "httpx2", None) or _base_client.httpx

USER = [{"role": "user", "content": "What is the weather in Paris, and the time?"}]


def sse(bodies: Iterable[Any]) -> bytes:
    """The stream as an OpenAI-compatible server sends it."""
    events = [f"data: {json.dumps(body)}\n\n" for body in bodies]
    return "".join([*events, "data: [DONE]\n\n"]).encode()


class Served:
    """Answers each request with the stream its ``model`` names in ``streams`` (the
    Responses and legacy-completions paths too); ``requests`` are the bodies received,
    ``headers`` their headers."""

    def __init__(self, streams: Mapping[str, Iterable[Any]]) -> None:
        self.streams = {name: list(bodies) for name, bodies in streams.items()}
        self.requests: list[dict[str, Any]] = []
        self.headers: list[Any] = []

    def __call__(self, request: Any) -> Any:
        body = json.loads(request.content)
        self.requests.append(body)
        self.headers.append(request.headers)
        content = sse(self.streams[body["model"]])
        return http.Response(200, headers={"content-type": "text/event-stream"}, content=content)

    def client(self, **options: Any) -> openai.OpenAI:
        transport = http.MockTransport(self)
        return openai.OpenAI(
            api_key="sk-streamfix-test",
            base_url="http://streamfix.test/v1",
            max_retries=0,
            http_client=http.Client(transport=transport),
            **options,
        )

    def aclient(self, **options: Any) -> openai.AsyncOpenAI:
        transport = http.MockTransport(self)
        return openai.AsyncOpenAI(
            api_key="sk-streamfix-test",
            base_url="http://streamfix.test/v1",
            max_retries=0,
            http_client=http.AsyncClient(transport=transport),
            **options,
        )


Result = tuple[list[Any], BaseException | None]


def helper(client: Any) -> Any:
    """The client's ``.stream()`` helper: ``client.chat.completions.stream``, or
    ``client.beta.chat.completions.stream`` where it first shipped (openai 1.40)."""
    completions = client.chat.completions
    return getattr(completions, "stream", None) or client.beta.chat.completions.stream


def _drain(step: Callable[[], Any], out: list[Any]) -> BaseException | None:
    try:
        while True:
            out.append(step())
    except StopIteration:
        return None
    except Exception as error:
        return error


async def _adrain(iterator: Any, out: list[Any]) -> BaseException | None:
    try:
        async for chunk in iterator:
            out.append(chunk)
    except Exception as error:
        return error
    return None


async def _anext_drain(stream: Any, out: list[Any]) -> BaseException | None:
    try:
        while True:
            out.append(await stream.__anext__())
    except StopAsyncIteration:
        return None
    except Exception as error:
        return error


def _sync(mode: str, client: openai.OpenAI, request: dict[str, Any]) -> Result:
    out: list[Any] = []
    completions = client.chat.completions
    if mode == "for":
        iterator = iter(completions.create(**request, stream=True))
        return out, _drain(lambda: next(iterator), out)
    if mode == "next":  # next() on the Stream itself, as autogen reads it
        stream = completions.create(**request, stream=True)
        return out, _drain(lambda: next(stream), out)
    if mode == "with":
        with completions.create(**request, stream=True) as stream:
            iterator = iter(stream)
            return out, _drain(lambda: next(iterator), out)
    if mode == "raw":
        parsed = completions.with_raw_response.create(**request, stream=True).parse()
        iterator = iter(parsed)
        return out, _drain(lambda: next(iterator), out)
    assert mode == "streaming"
    with completions.with_streaming_response.create(**request, stream=True) as response:
        iterator = iter(response.parse())
        return out, _drain(lambda: next(iterator), out)


async def _async(mode: str, client: openai.AsyncOpenAI, request: dict[str, Any]) -> Result:
    out: list[Any] = []
    completions = client.chat.completions
    if mode == "async for":
        return out, await _adrain(await completions.create(**request, stream=True), out)
    if mode == "anext":
        stream = await completions.create(**request, stream=True)
        return out, await _anext_drain(stream, out)
    if mode == "async with":
        async with await completions.create(**request, stream=True) as stream:
            return out, await _adrain(stream, out)
    if mode == "async raw":
        raw = await completions.with_raw_response.create(**request, stream=True)
        return out, await _adrain(raw.parse(), out)
    assert mode == "async streaming"
    async with completions.with_streaming_response.create(**request, stream=True) as response:
        return out, await _adrain(await response.parse(), out)


SYNC = ("for", "next", "with", "raw", "streaming")
ASYNC = ("async for", "anext", "async with", "async raw", "async streaming")
MODES = SYNC + ASYNC


def read(served: Served, mode: str, model: str, **request: Any) -> Result:
    """The chunks one ``create(stream=True)`` stream of ``model`` yields when read in
    ``mode``, and the error it ended with (``None`` if it ended normally)."""
    request = {"model": model, "messages": USER, **request}
    if mode in SYNC:
        with served.client() as client:
            return _sync(mode, client, request)

    async def run() -> Result:
        async with served.aclient() as client:
            return await _async(mode, client, request)

    return asyncio.run(run())


def naive(chunks: Iterable[Any]) -> list[dict[str, Any]]:
    """The tool calls as a framework accumulates them from the SDK's chunks: keyed by the
    entry's ``index``; the id set when sent; name and arguments appended."""
    calls: dict[Any, dict[str, Any]] = {}
    for chunk in chunks:
        for choice in chunk.choices:
            for entry in choice.delta.tool_calls or ():
                call = calls.setdefault(entry.index, {"id": None, "name": "", "arguments": ""})
                if entry.id:
                    call["id"] = entry.id
                if entry.function is not None:
                    call["name"] += entry.function.name or ""
                    call["arguments"] += entry.function.arguments or ""
    return [calls[key] for key in sorted(calls, key=lambda key: (key is None, key or 0))]


def first_entries(chunks: Iterable[Any]) -> list[dict[str, Any]]:
    """The tool calls as a framework that reads one entry per chunk accumulates them
    (llama-index reads ``tool_calls[0]``), in a list indexed by the entry's ``index``
    (an index that skips is an ``IndexError``, as with the SDK's own helper)."""
    calls: list[dict[str, Any]] = []
    for chunk in chunks:
        for choice in chunk.choices:
            entries = choice.delta.tool_calls or ()
            if not entries:
                continue
            entry = entries[0]
            if entry.index == len(calls):
                calls.append({"id": None, "name": "", "arguments": ""})
            call = calls[entry.index]
            if entry.id:
                call["id"] = entry.id
            if entry.function is not None:
                call["name"] += entry.function.name or ""
                call["arguments"] += entry.function.arguments or ""
    return calls
