"""The live API's parts: ``detect_api``, the reference read without a framework, an
unusable reference, and ``judge_live``."""

from __future__ import annotations

import socket

import pytest
from conftest import CASES, SCENARIOS, expected, target

from streamfix.testing import (
    BackgroundServer,
    LiveError,
    LiveTarget,
    Message,
    Outcome,
    Receive,
    ReplayServer,
    Send,
    detect_api,
    judge_live,
    live_check,
    reference_outcome,
    send_json,
)


async def _openai_only(scope: Message, receive: Receive, send: Send) -> None:
    """A server answering only ``GET /v1/models`` (and 404 to everything else)."""
    if scope["type"] != "http":
        return
    if scope["path"] == "/v1/models":
        await send_json(send, 200, {"object": "list", "data": [{"id": "m"}]})
    else:
        await send_json(send, 404, {"error": "not found"})


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_detect_api(streamfix_server: ReplayServer) -> None:
    assert detect_api(streamfix_server.openai_base_url) == "openai"
    # The replay server, like Ollama, serves both: a root is asked for /api/tags first.
    assert detect_api(streamfix_server.ollama_base_url) == "ollama"
    with BackgroundServer(_openai_only) as only:
        assert detect_api(only.url) == "openai"
        assert detect_api(only.url + "/v1/") == "openai"


def test_detect_api_of_nothing_is_a_live_error() -> None:
    url = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(LiveError, match="no OpenAI-compatible or Ollama API"):
        detect_api(url, timeout=2)


@pytest.mark.parametrize(
    "name", ["b3-same-index", "e4-truncated", "text", "ollama-call-per-line", "ollama-text"]
)
def test_reference_without_a_framework(streamfix_server: ReplayServer, name: str) -> None:
    """The case sent directly, non-streamed: the scenario's non-streamed answer."""
    case = CASES["truncated-call" if SCENARIOS[name].truncated else "one-call"]
    outcome, finish = reference_outcome(target(streamfix_server, name), case)
    assert outcome == expected(SCENARIOS[name])
    sent = streamfix_server.requests[-1]
    assert sent["stream"] is False and sent["model"] == name
    wanted = case.options["max_tokens"]
    if SCENARIOS[name].dialect == "ollama":
        options = sent["options"]
        assert (options["seed"], options["temperature"], options["num_predict"]) == (0, 0, wanted)
        assert "tool_choice" not in sent and finish == "stop"
    else:
        assert (sent["seed"], sent["temperature"], sent["max_tokens"]) == (0, 0, wanted)
        assert sent["tool_choice"] == case.options["tool_choice"]
        assert finish == SCENARIOS[name].finish_reason


def test_a_server_error_is_an_unusable_reference(streamfix_server: ReplayServer) -> None:
    result = live_check("openai", target(streamfix_server, "e5-error"), CASES["one-call"])
    assert not result.usable
    assert result.reference.error is not None and "upstream overloaded" in result.reference.error
    assert (result.stock_ok, result.patched_ok) == (False, False)
    assert result.patched_why.startswith("reference unusable: HTTP 500")
    assert result.to_dict()["usable"] is False


def test_an_unreachable_reference_is_unusable() -> None:
    gone = LiveTarget(f"http://127.0.0.1:{_free_port()}/v1", "m", "openai")
    outcome, finish = reference_outcome(gone, CASES["text-only"])
    assert outcome.error is not None and outcome.error.startswith("reference request failed")
    assert finish is None


CALLS = (("get_weather", {"city": "Paris"}), ("get_time", {"zone": "Europe/Paris"}))


@pytest.mark.parametrize(
    ("reference", "finish", "outcome", "tools", "ok"),
    [
        (Outcome(CALLS, ""), "tool_calls", Outcome(CALLS, ""), True, True),
        (Outcome(CALLS, ""), "tool_calls", Outcome(CALLS[::-1], ""), True, False),
        (Outcome(CALLS, ""), "tool_calls", Outcome(CALLS[:1], ""), True, False),
        (Outcome(CALLS, ""), "tool_calls", Outcome(error="APIError: x"), True, False),
        (Outcome((), "Hello."), "stop", Outcome((), "Hello.\n"), False, True),
        (Outcome((), "Hello."), "stop", Outcome((), "Hell"), False, False),
        (Outcome((), "Hello."), "stop", Outcome(CALLS, None), False, False),
        # cut off by max_tokens in a request with tools: a clear error, no incomplete call
        (Outcome(CALLS[:1], ""), "length", Outcome(error="TruncatedToolCallError: x"), True, True),
        (Outcome(CALLS[:1], ""), "length", Outcome(CALLS[:1], ""), True, False),
        (Outcome(), "length", Outcome(error="JSONDecodeError: x", crash=True), True, False),
        (
            Outcome(),
            "length",
            Outcome((("get_time", '{"zone": "Eur'),), error="x"),
            True,
            False,
        ),
        # text cut off by max_tokens (no tools): the same text is right
        (Outcome((), "Hello"), "length", Outcome((), "Hello"), False, True),
        (Outcome(error="HTTP 500: boom"), None, Outcome((), ""), True, False),
    ],
)
def test_judge_live(
    reference: Outcome, finish: str | None, outcome: Outcome, tools: bool, ok: bool
) -> None:
    got, why = judge_live(reference, finish, outcome, tools=tools)
    assert got is ok
    assert bool(why) is not ok
