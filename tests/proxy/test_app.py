"""The proxy over real HTTP in front of the replay server: every scenario repaired as it
streams, everything else forwarded as is; ``--record``; the factory and its environment."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from proxy_fixtures import proxy_fixture, stock_clients_fixture  # noqa: F401 (fixtures)
from proxy_helpers import OLLAMA, OPENAI, SCENARIOS, body, expected, path_of, same_calls, sse_events

import streamfix
import streamfix.testing
from streamfix.cli import RecordApp, replay_capture
from streamfix.proxy import ENV, ProxyApp, ProxyServer, create_app
from streamfix.testing import ReplayServer


@pytest.mark.parametrize("name", OPENAI)
def test_openai_stream_repaired(proxy: ProxyServer, name: str) -> None:
    want = expected(SCENARIOS[name])
    response = httpx.post(proxy.url + path_of(name), json=body(name), timeout=30)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert "content-length" not in response.headers
    events = sse_events(response.text)
    chunks = events[:-1]
    if want.error is None:
        assert events[-1] == "[DONE]"
        assert streamfix.testing.is_canonical(chunks)
        message = streamfix.assemble(chunks)
        assert same_calls([(c.id, c.name, c.parsed) for c in message.tool_calls], want)
        assert message.content == want.text
    else:
        assert "[DONE]" not in events
        assert want.error in events[-1]["error"]["message"]


@pytest.mark.parametrize("name", OLLAMA)
def test_ollama_stream_in_ollamas_form(proxy: ProxyServer, name: str) -> None:
    want = expected(SCENARIOS[name])
    response = httpx.post(proxy.url + "/api/chat", json=body(name), timeout=30)
    assert response.headers["content-type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in response.text.splitlines()]
    calls = [
        (e.get("id"), e["function"]["name"], e["function"]["arguments"])
        for line in lines[:-1]
        for e in line["message"].get("tool_calls") or []
    ]
    assert same_calls(calls, want)
    assert "".join(line["message"]["content"] for line in lines[:-1]) == want.text
    assert lines[-1] == ({"error": want.error} if want.error else lines[-1])
    if want.error is None:
        assert lines[-1]["done"] is True


def test_ollama_streams_unless_told_not_to(proxy: ProxyServer) -> None:
    request = body("ollama-call-per-line")
    del request["stream"]
    streamed = httpx.post(proxy.url + "/api/chat", json=request, timeout=30)
    assert len(streamed.text.splitlines()) == 3
    whole = httpx.post(proxy.url + "/api/chat", json={**request, "stream": False}, timeout=30)
    assert whole.json() == SCENARIOS["ollama-call-per-line"].completion()


@pytest.mark.parametrize("name", ["b2-same-index", "e5-error", "text"])
def test_non_streamed_passes_through(
    proxy: ProxyServer, streamfix_server: ReplayServer, name: str
) -> None:
    request = body(name, stream=False)
    direct = httpx.post(streamfix_server.url + "/v1/chat/completions", json=request, timeout=30)
    proxied = httpx.post(proxy.url + "/v1/chat/completions", json=request, timeout=30)
    assert (proxied.status_code, proxied.content) == (direct.status_code, direct.content)
    assert proxied.headers["content-type"] == direct.headers["content-type"]


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/models"), ("GET", "/api/tags"), ("GET", "/nowhere?x=1"), ("DELETE", "/v1/x")],
)
def test_other_paths_and_methods_forwarded(
    proxy: ProxyServer, streamfix_server: ReplayServer, method: str, path: str
) -> None:
    direct = httpx.request(method, streamfix_server.url + path, timeout=30)
    proxied = httpx.request(method, proxy.url + path, timeout=30)
    assert (proxied.status_code, proxied.content) == (direct.status_code, direct.content)


def test_a_streamed_request_body_is_forwarded(proxy: ProxyServer) -> None:
    """A body sent in chunks (no Content-Length) reaches the upstream whole."""

    def pieces():  # type: ignore[no-untyped-def]
        yield b'{"model": "b2-same-index",'
        yield b' "messages": []}'

    response = httpx.post(proxy.url + "/v1/chat/completions", content=pieces(), timeout=30)
    assert response.json()["model"] == "b2-same-index"


def test_record_saves_what_the_upstream_sent(
    tmp_path: Path, streamfix_server: ReplayServer
) -> None:
    with ProxyServer(streamfix_server.url, record=tmp_path) as proxy:
        for name in ("b2-same-index", "ollama-call-per-line", "e5-error"):
            httpx.post(proxy.url + path_of(name), json=body(name), timeout=30)
        httpx.post(proxy.url + path_of("text"), json=body("text", stream=False), timeout=30)
        captures = proxy.captures
    assert [c.name for c in captures] == [
        "0001-b2-same-index.jsonl",
        "0002-ollama-call-per-line.jsonl",
        "0003-e5-error.jsonl",
    ]
    names = ("b2-same-index", "ollama-call-per-line", "e5-error")
    for capture, name in zip(captures, names, strict=True):
        lines = [json.loads(line) for line in capture.read_text().splitlines()]
        assert lines == list(SCENARIOS[name].chunks)  # as sent, before the repair
    assert len(replay_capture(captures[0]).message.tool_calls) == 2


def test_record_numbers_continue_in_a_folder(
    tmp_path: Path, streamfix_server: ReplayServer
) -> None:
    (tmp_path / "0001-old.jsonl").write_text("{}\n")
    with ProxyServer(streamfix_server.url, record=tmp_path) as proxy:
        httpx.post(proxy.url + path_of("text"), json=body("text"), timeout=30)
    assert [c.name for c in proxy.captures] == ["0002-text.jsonl"]


def test_streamfix_record_is_the_proxy_without_repair() -> None:
    app = RecordApp("http://127.0.0.1:9", "captures")
    assert isinstance(app, ProxyApp)
    assert app.repair is False


def test_create_app_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV["upstream"], "http://127.0.0.1:11434/")
    monkeypatch.setenv(ENV["max_argument_bytes"], "1000")
    monkeypatch.setenv(ENV["max_body_bytes"], "2000")
    monkeypatch.setenv(ENV["connect_timeout"], "1.5")
    monkeypatch.setenv(ENV["read_timeout"], "30")
    app = create_app()
    assert app.upstream == "http://127.0.0.1:11434"
    assert (app.max_argument_bytes, app.max_body_bytes) == (1000, 2000)
    assert (app.connect_timeout, app.read_timeout) == (1.5, 30.0)
    assert create_app("http://other:1", read_timeout=5).upstream == "http://other:1"


@pytest.mark.parametrize(
    "upstream", ["", "ftp://x", "127.0.0.1:8000", "http://x/?key=1", "http://u:p@x", "http://"]
)
def test_create_app_refuses_a_bad_upstream(upstream: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV["upstream"], raising=False)
    with pytest.raises(ValueError, match="upstream"):
        create_app(upstream)


def test_the_upstreams_path_prefix_is_kept(streamfix_server: ReplayServer) -> None:
    """An upstream root with a path (``https://host/openai``): the request's path after it."""
    with ProxyServer(streamfix_server.url + "/v1") as proxy:
        response = httpx.post(proxy.url + "/chat/completions", json=body("text"), timeout=30)
    assert sse_events(response.text)[-1] == "[DONE]"
    assert streamfix_server.requests[-1]["path"] == "/v1/chat/completions"


def test_streamfix_proxy_runs_under_uvicorn_factory(streamfix_server: ReplayServer) -> None:
    """``uvicorn --factory streamfix.proxy:create_app``, the upstream in the environment."""
    import os
    import socket
    import subprocess
    import sys
    import time

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, ENV["upstream"]: streamfix_server.url}
    command = [sys.executable, "-m", "uvicorn", "--factory", "streamfix.proxy:create_app"]
    process = subprocess.Popen(
        [*command, "--port", str(port), "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(100):
            try:
                response = httpx.post(
                    f"http://127.0.0.1:{port}/v1/chat/completions",
                    json=body("b3-same-index"),
                    timeout=30,
                )
                break
            except httpx.ConnectError:
                time.sleep(0.1)
        else:
            pytest.fail("uvicorn did not start")
    finally:
        process.terminate()
        process.wait(timeout=30)
    message = streamfix.assemble(sse_events(response.text)[:-1])
    assert [c.name for c in message.tool_calls] == ["get_weather", "get_time"]


def test_streamfix_proxy_command(streamfix_server: ReplayServer, tmp_path: Path) -> None:
    """``streamfix proxy --upstream URL --port N --record DIR``: prints where it listens,
    repairs, records."""
    import socket
    import subprocess
    import sys

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [str(Path(sys.executable).parent / "streamfix"), "proxy", "--upstream"]
    command += [streamfix_server.url, "--port", str(port), "--record", str(tmp_path)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        response = httpx.post(
            f"http://127.0.0.1:{port}/v1/chat/completions", json=body("b3-same-index"), timeout=30
        )
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert line.startswith(f"streamfix proxy on http://127.0.0.1:{port} -> {streamfix_server.url}")
    message = streamfix.assemble(sse_events(response.text)[:-1])
    assert [c.name for c in message.tool_calls] == ["get_weather", "get_time"]
    assert [p.name for p in tmp_path.iterdir()] == ["0001-b3-same-index.jsonl"]
