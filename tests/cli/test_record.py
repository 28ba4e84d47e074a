"""``streamfix record`` in front of the replay server: responses pass through unchanged,
every streamed one is saved, and the capture replays to the same message."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from support.cli import cli

import streamfix
import streamfix.testing
from streamfix.cli import RecordServer, replay_capture
from streamfix.testing import ReplayServer


def _calls(message: streamfix.AssembledMessage) -> list[tuple[str, dict]]:
    return [(c.name, c.parsed) for c in message.tool_calls]


@pytest.mark.parametrize(
    ("name", "path"),
    [("b2-same-index", "/v1/chat/completions"), ("ollama-call-per-line", "/api/chat")],
)
def test_record_then_replay(
    name: str,
    path: str,
    tmp_path: Path,
    streamfix_server: ReplayServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    body = {"model": name, "messages": [{"role": "user", "content": "go"}], "stream": True}
    direct = httpx.post(streamfix_server.url + path, json=body, timeout=30)
    with RecordServer(streamfix_server.url, tmp_path) as recorder:
        proxied = httpx.post(recorder.url + path, json=body, timeout=30)
        plain = httpx.post(recorder.url + path, json={**body, "stream": False}, timeout=30)
    assert proxied.status_code == direct.status_code == 200
    assert proxied.content == direct.content  # unchanged
    assert proxied.headers["content-type"] == direct.headers["content-type"]
    assert plain.json() == streamfix.testing.scenarios()[name].completion()
    assert len(recorder.captures) == 1  # only the streamed response is a capture
    capture = recorder.captures[0]
    assert capture.name == f"0001-{name}.jsonl"
    scenario = streamfix.testing.scenarios()[name]
    assert _calls(replay_capture(capture).message) == [
        (c["name"], c["arguments"]) for c in scenario.calls
    ]
    code, out, _ = cli(capsys, "replay", str(capture), "--json")
    assert code == 0
    assert json.loads(out)["chunks"] == len(scenario.chunks)


def test_openai_sdk_through_the_recorder(tmp_path: Path, streamfix_server: ReplayServer) -> None:
    openai = pytest.importorskip("openai")
    with RecordServer(streamfix_server.url, tmp_path) as recorder:
        client = openai.OpenAI(base_url=recorder.url + "/v1", api_key="sk-test")
        stream = client.chat.completions.create(
            model="b1-interleaved", messages=[{"role": "user", "content": "go"}], stream=True
        )
        chunks = list(stream)
    assert _calls(streamfix.assemble(chunks)) == _calls(
        replay_capture(recorder.captures[0]).message
    )
    assert len(_calls(streamfix.assemble(chunks))) == 2


def test_upstream_down_is_a_502(tmp_path: Path) -> None:
    with RecordServer("http://127.0.0.1:9", tmp_path) as recorder:
        response = httpx.post(recorder.url + "/v1/chat/completions", json={}, timeout=30)
    assert response.status_code == 502
    assert "streamfix record" in response.json()["error"]["message"]


def test_streamfix_record_command(tmp_path: Path, streamfix_server: ReplayServer) -> None:
    """The command line: ``streamfix record --upstream URL --port N --out DIR``."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    out = tmp_path / "caps"
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "streamfix"),
            "record",
            "--upstream",
            streamfix_server.url,
            "--port",
            str(port),
            "--out",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert "streamfix recording on" in proc.stdout.readline()
        body = {"model": "e1-stop", "messages": [], "stream": True}
        for _ in range(50):
            try:
                httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=body, timeout=30)
                break
            except httpx.ConnectError:
                time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    (capture,) = out.glob("*.jsonl")
    assert _calls(replay_capture(capture).message) == [("get_weather", {"city": "Paris"})]
