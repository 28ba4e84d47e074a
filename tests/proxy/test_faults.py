"""Faults: an upstream that dies, errs, stalls, talks nonsense or never answers; a client
that leaves; bodies and arguments over their limits. Each ends in a clear answer to the
client, and the proxy goes on serving."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_upstream import UpstreamServer
from proxy_helpers import body, sse_events

from streamfix.proxy import ProxyServer, create_app
from streamfix.testing import BackgroundServer

CHAT = "/v1/chat/completions"


@pytest.fixture(scope="module")
def upstream() -> Iterator[UpstreamServer]:
    with UpstreamServer() as server:
        yield server


@pytest.fixture(scope="module")
def proxy(upstream: UpstreamServer) -> Iterator[ProxyServer]:
    with ProxyServer(upstream.url, read_timeout=0.5, max_body_bytes=4000) as server:
        yield server


def _stream(proxy: ProxyServer, model: str) -> tuple[httpx.Response, list[Any]]:
    response = httpx.post(proxy.url + CHAT, json=body(model), timeout=30)
    return response, sse_events(response.text)


def _still_serving(proxy: ProxyServer) -> None:
    response = httpx.post(proxy.url + "/echo", json={}, timeout=30)
    assert response.status_code == 200


def test_upstream_closes_mid_stream(proxy: ProxyServer) -> None:
    response, events = _stream(proxy, "closes-mid-stream")
    assert response.status_code == 200
    assert "[DONE]" not in events  # never a clean end of a truncated answer
    error = events[-1]["error"]
    assert error["code"] == "upstream_closed"
    assert "failed mid-stream" in error["message"]
    _still_serving(proxy)


def test_upstream_ends_without_done(proxy: ProxyServer) -> None:
    _, events = _stream(proxy, "ends-without-done")
    assert "[DONE]" not in events
    assert events[-1]["error"]["code"] == "upstream_closed"
    assert "truncated" in events[-1]["error"]["message"]


@pytest.mark.parametrize(
    ("model", "status", "content", "header"),
    [
        ("rate-limited", 429, b"slow down", ("retry-after", "7")),
        ("server-error", 500, b"upstream broke", ("x-upstream", "fake")),
    ],
)
def test_upstream_errors_pass_through(
    proxy: ProxyServer, model: str, status: int, content: bytes, header: tuple[str, str]
) -> None:
    response = httpx.post(proxy.url + CHAT, json=body(model), timeout=30)
    assert response.status_code == status
    assert content in response.content
    assert response.headers[header[0]] == header[1]


def test_unreachable_upstream_is_a_502_naming_it() -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with ProxyServer(f"http://127.0.0.1:{port}") as proxy:
        response = httpx.post(proxy.url + CHAT + "?key=secret", json=body("text"), timeout=30)
    assert response.status_code == 502
    error = response.json()["error"]
    assert f"http://127.0.0.1:{port}" in error["message"]
    assert "secret" not in error["message"]  # the query (a key, perhaps) is not repeated
    assert error["type"] == "upstream_unreachable"


def test_read_timeout_before_the_answer_is_a_504(proxy: ProxyServer) -> None:
    started = time.monotonic()
    response = httpx.post(proxy.url + CHAT, json=body("slow-headers"), timeout=30)
    assert response.status_code == 504
    assert response.json()["error"]["type"] == "upstream_timeout"
    assert time.monotonic() - started < 2.5  # read_timeout=0.5, the upstream waits 3 s


def test_read_timeout_mid_stream_is_an_error_event(proxy: ProxyServer) -> None:
    _, events = _stream(proxy, "slow-stream")
    assert events[1]["choices"][0]["delta"]["content"] == "Hi"  # what came, passed on
    assert events[-1]["error"]["code"] == "upstream_timeout"


def test_connect_timeout() -> None:
    """A listening socket whose accept queue is full: connecting hangs until the
    proxy's connect timeout."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    fillers = []
    try:
        for _ in range(8):  # fill the accept queue (never accepted)
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(("127.0.0.1", port))
            fillers.append(filler)
        time.sleep(0.2)
        with ProxyServer(f"http://127.0.0.1:{port}", connect_timeout=0.5) as proxy:
            started = time.monotonic()
            response = httpx.post(proxy.url + CHAT, json=body("text"), timeout=30)
            took = time.monotonic() - started
    finally:
        for filler in fillers:
            filler.close()
        server.close()
    assert response.status_code == 504, response.text
    assert "timed out" in response.json()["error"]["message"]
    assert took < 5


def test_timeouts_reach_the_client() -> None:
    app = create_app("http://127.0.0.1:1", connect_timeout=2.5, read_timeout=7.0)
    timeout = app.http().timeout
    assert (timeout.connect, timeout.read) == (2.5, 7.0)


def test_malformed_upstream_sse_is_an_error_event(proxy: ProxyServer) -> None:
    _, events = _stream(proxy, "malformed")
    assert events[-1]["error"]["code"] == "upstream_malformed"
    assert "not JSON" in events[-1]["error"]["message"]
    assert len(events) == 2  # the role chunk, the error
    _still_serving(proxy)


def test_arguments_over_max_argument_bytes(upstream: UpstreamServer) -> None:
    with ProxyServer(upstream.url, max_argument_bytes=1000) as proxy:
        _, events = _stream(proxy, "huge-arguments")
    assert events[-1]["error"]["code"] == "arguments_too_large"
    assert "[DONE]" not in events


def test_a_body_over_the_limit_is_a_413(proxy: ProxyServer, upstream: UpstreamServer) -> None:
    before = len(upstream.app.seen)
    big = {"model": "echo", "messages": [{"role": "user", "content": "x" * 8000}]}
    declared = httpx.post(proxy.url + CHAT, json=big, timeout=30)
    assert declared.status_code == 413
    assert "max_body_bytes" in declared.json()["error"]["message"]

    def pieces() -> Iterator[bytes]:  # no Content-Length: counted as it comes
        for _ in range(100):
            yield b"x" * 100

    for path in (CHAT, "/upload"):
        streamed = httpx.post(proxy.url + path, content=pieces(), timeout=30)
        assert streamed.status_code == 413, path
    # the upstream never gets a whole request: at most one cut off mid-body
    assert not [r for r in upstream.app.seen[before:] if r["complete"]]
    _still_serving(proxy)


class _LoopSpy:
    """The proxy app, noting the event loop it runs on."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.loop: asyncio.AbstractEventLoop | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.loop = asyncio.get_running_loop()
        await self.app(scope, receive, send)

    def tasks(self) -> list[str]:
        async def names() -> list[str]:
            me = asyncio.current_task()
            return sorted(repr(t.get_coro()) for t in asyncio.all_tasks() if t is not me)

        assert self.loop is not None
        return [
            n.split(" at ")[0]
            for n in asyncio.run_coroutine_threadsafe(names(), self.loop).result(10)
        ]


def _settled(spy: _LoopSpy, done: Any) -> list[str]:
    """The proxy loop's tasks once ``done(tasks)`` (or after 10 s)."""
    deadline = time.monotonic() + 10
    while not done(tasks := spy.tasks()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return tasks


def test_client_disconnect_cancels_the_upstream_request(upstream: UpstreamServer) -> None:
    app = create_app(upstream.url)
    spy = _LoopSpy(app)
    upstream.app.stream_gone.clear()
    with BackgroundServer(spy) as proxy:
        httpx.post(proxy.url + "/echo", json={}, timeout=30)  # a first request: the loop
        idle = _settled(spy, lambda tasks: not any("run_asgi" in t for t in tasks))
        with httpx.stream("POST", proxy.url + CHAT, json=body("forever"), timeout=30) as r:
            lines = r.iter_lines()
            assert next(lines).startswith("data: ")
            busy = spy.tasks()
        # the client has gone: the upstream sees its request end, the proxy keeps nothing
        assert upstream.app.stream_gone.wait(10), "the upstream request was not cancelled"
        assert _settled(spy, lambda tasks: tasks == idle) == idle, busy
        pool = app.http()._transport._pool
        assert not [c for c in pool.connections if not c.is_idle()]
    assert len(busy) > len(idle)


def test_the_log_line_says_how_a_repaired_stream_ended(
    proxy: ProxyServer, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("INFO", logger="streamfix.proxy"):
        _stream(proxy, "malformed")
        deadline = time.monotonic() + 5  # written once the response is sent
        while not caplog.records and time.monotonic() < deadline:
            time.sleep(0.01)
    (line,) = [r.getMessage() for r in caplog.records if r.name == "streamfix.proxy"]
    assert line.startswith(f"POST {CHAT} -> 200")
    assert "repaired openai: 1 chunks, error upstream_malformed" in line


def test_a_forwarded_stream_cut_is_cut_for_the_client(
    upstream: UpstreamServer, tmp_path: Path
) -> None:
    """Without repair (``streamfix record``), a stream the upstream drops reaches the
    client dropped too (no clean end of the body): it cannot pass for complete."""
    from streamfix.cli import RecordServer

    with RecordServer(upstream.url, tmp_path) as recorder:
        with pytest.raises(httpx.RemoteProtocolError):
            httpx.post(recorder.url + CHAT, json=body("closes-mid-stream"), timeout=30)
        assert httpx.post(recorder.url + "/echo", json={}, timeout=30).status_code == 200


def test_chunks_go_out_as_they_come(upstream: UpstreamServer) -> None:
    """Nothing is buffered: the first events reach the client while the upstream is still
    in the middle of its answer (it waits 1.5 s before ending it)."""
    with ProxyServer(upstream.url, read_timeout=10) as proxy:
        started = time.monotonic()
        with httpx.stream("POST", proxy.url + CHAT, json=body("pause"), timeout=30) as r:
            lines = (line for line in r.iter_lines() if line)
            first, second = next(lines), next(lines)
            early = time.monotonic() - started
            rest = list(lines)
        whole = time.monotonic() - started
    assert '"role"' in first
    assert '"Hi"' in second
    assert early < 1.0
    assert whole > 1.5
    assert "upstream_closed" in rest[-1]  # it ends with neither finish_reason nor [DONE]
