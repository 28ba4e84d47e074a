"""The replay server itself: wire framing, routes, follow-up turns, captures, CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

import streamfix
import streamfix.testing
from streamfix.testing import ReplayServer, Scenario

OPENAI = streamfix.testing.scenarios("openai")
OLLAMA = streamfix.testing.scenarios("ollama")


@pytest.mark.parametrize("name", sorted(OPENAI))
def test_sse_one_chunk_per_event_then_done(streamfix_server: ReplayServer, name: str) -> None:
    scenario = OPENAI[name]
    with httpx.stream(
        "POST",
        f"{streamfix_server.openai_base_url}/chat/completions",
        json={"model": f"streamfix/{name}", "messages": [], "stream": True},
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        raw = response.read().decode()
    events = raw.split("\n\n")
    assert events[-1] == ""
    assert events[-2] == "data: [DONE]"
    assert [json.loads(e.removeprefix("data: ")) for e in events[:-2]] == list(scenario.chunks)


@pytest.mark.parametrize("name", sorted(OPENAI))
def test_non_streamed_is_the_scenarios_completion(
    streamfix_server: ReplayServer, name: str
) -> None:
    scenario = OPENAI[name]
    response = httpx.post(
        f"{streamfix_server.openai_base_url}/chat/completions", json={"model": name, "messages": []}
    )
    assert response.status_code == scenario.status
    assert response.json() == scenario.completion()


@pytest.mark.parametrize("name", sorted(OLLAMA))
def test_ollama_ndjson_one_object_per_line(streamfix_server: ReplayServer, name: str) -> None:
    scenario = OLLAMA[name]
    response = httpx.post(
        f"{streamfix_server.ollama_base_url}/api/chat", json={"model": name, "messages": []}
    )
    assert response.headers["content-type"] == "application/x-ndjson"
    lines = response.text.split("\n")
    assert lines[-1] == ""
    assert [json.loads(line) for line in lines[:-1]] == list(scenario.chunks)
    whole = httpx.post(
        f"{streamfix_server.ollama_base_url}/api/chat",
        json={"model": name, "messages": [], "stream": False},
    )
    assert (whole.status_code, whole.json()) == (scenario.status, scenario.completion())


def test_ollama_oom_line_has_no_message_key(streamfix_server: ReplayServer) -> None:
    response = httpx.post(
        f"{streamfix_server.ollama_base_url}/api/chat", json={"model": "ollama-oom-error"}
    )
    last = json.loads(response.text.splitlines()[-1])
    assert last == {
        "error": "model requires more system memory (16.0 GiB) than is available (8.0 GiB)"
    }


def test_models_and_unknown_scenario(streamfix_server: ReplayServer) -> None:
    models = httpx.get(f"{streamfix_server.openai_base_url}/models").json()
    assert {m["id"] for m in models["data"]} == set(streamfix.testing.SCENARIOS)
    unknown = httpx.post(
        f"{streamfix_server.openai_base_url}/chat/completions",
        json={"model": "no-such-shape", "stream": True},
    )
    assert unknown.status_code == 404
    assert "b3-same-index" in unknown.json()["error"]["message"]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"model=b2-same-index", "the request body is not JSON (Expecting value"),
        (b"", "the request body is empty, not a JSON object"),
        (b'["b2-same-index"]', "the request body is JSON but not an object (a list)"),
    ],
)
@pytest.mark.parametrize("path", ["/v1/chat/completions", "/api/chat"])
def test_a_body_that_is_not_a_json_object_gets_a_400(
    streamfix_server: ReplayServer, path: str, body: bytes, why: str
) -> None:
    response = httpx.post(streamfix_server.url + path, content=body)
    assert response.status_code == 400
    assert response.json()["error"]["message"].startswith(why)


@pytest.mark.parametrize(("method", "path"), [("GET", "/"), ("POST", "/v1/completions")])
def test_an_unknown_route_names_its_path(
    streamfix_server: ReplayServer, method: str, path: str
) -> None:
    response = httpx.request(method, streamfix_server.url + path)
    assert response.status_code == 404
    assert response.json()["error"]["message"] == f"no route {method} {path}"


def test_tool_results_get_the_follow_up_text(streamfix_server: ReplayServer) -> None:
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "call_a",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_a", "content": "sunny"},
    ]
    for stream in (True, False):
        response = httpx.post(
            f"{streamfix_server.openai_base_url}/chat/completions",
            json={"model": "a1-one-chunk", "messages": messages, "stream": stream},
        )
        if stream:
            chunks = [
                json.loads(e[6:]) for e in response.text.split("\n\n") if e.startswith("data: {")
            ]
            message = streamfix.assemble(chunks)
            assert (message.content, message.tool_calls) == ("done", [])
        else:
            assert response.json()["choices"][0]["message"]["content"] == "done"
    assert streamfix_server.requests[-1]["messages"] == messages


def test_replays_a_jsonl_capture(tmp_path: Path) -> None:
    scenario: Scenario = OLLAMA["ollama-call-per-line"]
    capture = tmp_path / "capture.jsonl"
    capture.write_text("".join(json.dumps(c) + "\n" for c in scenario.chunks))
    with ReplayServer(capture=capture) as server:
        lines = httpx.post(f"{server.url}/api/chat", json={"model": "anything"}).text
        assert [json.loads(line) for line in lines.splitlines()] == list(scenario.chunks)
        whole = httpx.post(f"{server.url}/api/chat", json={"model": "x", "stream": False})
        calls = whole.json()["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather", "get_time"]


def test_cli_serve_prints_the_url_and_serves() -> None:
    script = Path(sys.executable).with_name("streamfix")
    command = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "from streamfix.cli import main; main()"]
    )
    process = subprocess.Popen(
        [*command, "serve", "--port", "0"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("streamfix serving on http://127.0.0.1:")
        url = line.split()[-1]
        assert httpx.get(f"{url}/v1/models").status_code == 200
    finally:
        process.terminate()
        process.wait(10)


def test_plugin_module_does_not_import_uvicorn() -> None:
    code = (
        "import sys, streamfix.testing._pytest_plugin, streamfix; "
        "assert 'uvicorn' not in sys.modules and 'typer' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
