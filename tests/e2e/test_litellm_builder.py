"""litellm over real HTTP (the replay server), ``stream_chunk_builder`` and the streaming
path: ``litellm.completion(stream=True)`` for the OpenAI-compatible (``openai/``) and
Ollama (``ollama_chat/``) providers, the chunks built back with
``litellm.stream_chunk_builder``, compared with ``litellm.completion`` non-streamed for
the same response; in-stream provider errors raised as litellm's exceptions with the
provider's text, stock versus patched."""

from __future__ import annotations

from typing import Any

import litellm
import pytest
from conftest import USER
from support import chunk, direct

import streamfix.testing
from streamfix.testing import ReplayServer, Scenario

OPENAI = streamfix.testing.scenarios("openai")
COMPLETE = sorted(n for n, s in OPENAI.items() if s.error is None and not s.truncated)
#: where stock's builder differs from the non-streamed response over HTTP (calls glued,
#: dropped, double-encoded or restarted arguments, the legacy function call, signatures)
STOCK_LOSES = {
    "a1-signature",
    "b2-same-index",
    "b3-same-index",
    "b6-no-index",
    "f1-signature",
    "f2-late-signature",
    "h1-legacy-function-call",
    "i1-double-encoded",
    "i3-restarted",
}
OLLAMA_CALLS = ["ollama-call-per-line", "ollama-calls-one-message"]
#: where the repaired stream (the shim's wire) itself ends in litellm's error: the
#: arguments restart after their first bytes were passed on, which it cannot take back
WIRE_RAISES = {"i3-restarted"}


def _chunks(model: str, api_base: str, **more: Any) -> list[Any]:
    stream = litellm.completion(
        model=model,
        api_base=api_base,
        messages=USER,
        api_key="sk-streamfix-test",
        stream=True,
        **more,
    )
    return list(stream)


TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("get_weather", "get_time")
]


def _whole(model: str, api_base: str) -> Any:
    return litellm.completion(
        model=model, api_base=api_base, messages=USER, api_key="sk-streamfix-test"
    )


def _says(response: Any, ids: bool) -> dict[str, Any]:
    """What the response says: calls (id, name, arguments, provider fields), text,
    finish reason."""
    choice = response.choices[0]
    calls = []
    for call in choice.message.tool_calls or []:
        dumped = call.model_dump(exclude_none=True)
        dumped["function"]["arguments"] = streamfix.testing.parse_arguments(
            dumped["function"]["arguments"]
        )
        if not ids:
            dumped.pop("id", None)
        calls.append(dumped)
    return {
        "calls": calls,
        "text": choice.message.content or "",
        "finish_reason": choice.finish_reason,
    }


def _built_equals_whole(model: str, api_base: str, ids: bool) -> bool:
    built = litellm.stream_chunk_builder(_chunks(model, api_base), messages=USER)
    whole = _says(_whole(model, api_base), ids)
    if ids and _wire_installed():  # R3: the repaired stream makes shared ids unique (G3)
        whole["calls"] = _unique_ids(whole["calls"])
    return _says(built, ids) == whole


def _wire_installed() -> bool:
    """Whether litellm's stream is the repaired one (the shim installed; never in direct
    mode, where litellm is patched upstream and its stream is stock's)."""
    import streamfix_litellm

    return not direct() and streamfix_litellm.installed()


def _unique_ids(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls with a repeated id made unique as ``with_unique_ids()`` makes it."""
    seen: set[str] = set()
    for call in calls:
        call_id, n = call["id"], 1
        while call["id"] in seen:
            call["id"] = f"{call_id}-{n}"
            n += 1
        seen.add(call["id"])
    return calls


def _ids(scenario: Scenario) -> bool:
    return all(call["id"] is not None for call in scenario.calls)


@pytest.mark.parametrize("name", COMPLETE)
def test_openai_stock_builder(streamfix_server: ReplayServer, name: str) -> None:
    base = streamfix_server.openai_base_url
    right = _built_equals_whole(f"openai/{name}", base, _ids(OPENAI[name]))
    assert right == (name not in STOCK_LOSES)


@pytest.mark.parametrize("name", COMPLETE)
def test_openai_patched_builder_equals_non_streamed(
    streamfix_server: ReplayServer, litellm_patched: None, name: str
) -> None:
    base = streamfix_server.openai_base_url
    if name in WIRE_RAISES and _wire_installed():
        # the repaired stream passed the provider's first argument bytes on live and the
        # provider then took them back (I3): the stream itself ends in litellm's error,
        # with the message assembled (tests/litellm_wire)
        with pytest.raises(litellm.APIError) as caught:
            _chunks(f"openai/{name}", base)
        assert [c.name for c in caught.value.assembled.tool_calls] == ["get_weather"]
        return
    assert _built_equals_whole(f"openai/{name}", base, _ids(OPENAI[name]))


@pytest.mark.parametrize("name", OLLAMA_CALLS)
def test_ollama_patched_builder_equals_non_streamed(
    streamfix_server: ReplayServer, litellm_patched: None, name: str
) -> None:
    assert _built_equals_whole(f"ollama_chat/{name}", streamfix_server.ollama_base_url, False)


def _truncated_error(api_base: str) -> Any:
    """The ``litellm.APIError`` for the truncated call: raised by the repaired stream
    itself once it passed on everything complete (the shim's wire), else (direct mode,
    litellm patched upstream: its stream is stock's) by the builder on the chunks."""
    chunks: list[Any] = []
    with pytest.raises(litellm.APIError, match="get_time") as caught:
        stream = litellm.completion(
            model="openai/e4-truncated",
            api_base=api_base,
            messages=USER,
            api_key="sk-streamfix-test",
            stream=True,
        )
        for one in stream:
            chunks.append(one)
        litellm.stream_chunk_builder(chunks, messages=USER)
    assert bool(chunks) and (_wire_installed() or chunks[-1].choices[0].finish_reason)
    return caught.value


def test_truncated_stream_passes_and_the_builder_raises(
    streamfix_server: ReplayServer, litellm_patched: None
) -> None:
    _truncated_error(streamfix_server.openai_base_url)


def test_truncated_stream_shim_error_carries_the_complete_calls(
    streamfix_server: ReplayServer, litellm_patched: None
) -> None:
    error = _truncated_error(streamfix_server.openai_base_url)
    assert [c.name for c in error.assembled.tool_calls] == ["get_weather"]


def test_fragment_chunks_pass_through_unchanged(streamfix_server: ReplayServer) -> None:
    """Chunks that carry only tool-call fragments reach the consumer as stock's do. (The
    tools are declared: without them the repaired stream holds a call's header until its
    first argument byte, since a name may still come in pieces, wire-shapes C2/R6.)"""
    import streamfix_litellm

    base = streamfix_server.openai_base_url
    stock = [_delta(c) for c in _chunks("openai/b1-interleaved", base, tools=TOOLS)]
    streamfix_litellm.install()
    assert [_delta(c) for c in _chunks("openai/b1-interleaved", base, tools=TOOLS)] == stock


def _delta(chunk: Any) -> Any:
    return [choice.delta.model_dump() for choice in chunk.choices]


# -- provider errors inside the stream ----------------------------------------------------


GROQ_TEXT = "Tool choice is required, but model did not call a tool"
OPENROUTER_TEXT = "Token limit reached"


def _error_scenario(name: str, text: str, *chunks: dict[str, Any]) -> Scenario:
    """Text, then the provider's error ``text`` inside the stream (E5)."""
    streamed = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks[:-1])
    return Scenario(
        name,
        "E5",
        f"{name}: text, then an error object inside the stream",
        "openai",
        (chunk(delta={"role": "assistant", "content": ""}), *chunks),
        text=streamed,
        finish_reason="error",
        error=text,
    )


ERRORS = {
    # Groq: an event with only an error object (no choices), its status inside it
    "groq-error-event": _error_scenario(
        "groq-error-event",
        GROQ_TEXT,
        chunk(content="maybe"),
        {
            "error": {
                "message": GROQ_TEXT,
                "type": "invalid_request_error",
                "code": "tool_use_failed",
                "status_code": 400,
            }
        },
    ),
    # OpenRouter: finish_reason length, then a chunk with choices and an error object
    "openrouter-error-chunk": _error_scenario(
        "openrouter-error-chunk",
        OPENROUTER_TEXT,
        chunk(content="We need"),
        chunk(finish="length"),
        chunk(content="", error={"code": 400, "message": OPENROUTER_TEXT}),
    ),
    "e5-error": OPENAI["e5-error"],
}


@pytest.fixture(scope="module")
def error_server() -> Any:
    with ReplayServer(scenarios=ERRORS) as server:
        yield server


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_stock_stream_reports_a_provider_error_as_a_connection_error(
    error_server: ReplayServer, name: str
) -> None:
    with pytest.raises(litellm.ServiceUnavailableError) as caught:
        _chunks(f"openai/{name}", error_server.openai_base_url)
    original = getattr(caught.value, "original_exception", None)
    assert isinstance(original, litellm.APIConnectionError)
    assert str(ERRORS[name].error) in str(caught.value)


@pytest.mark.parametrize("name", ["groq-error-event", "openrouter-error-chunk"])
def test_patched_stream_raises_the_provider_s_400(
    error_server: ReplayServer, litellm_patched: None, name: str
) -> None:
    with pytest.raises(litellm.BadRequestError) as caught:
        _chunks(f"openai/{name}", error_server.openai_base_url)
    assert caught.value.status_code == 400
    assert str(caught.value.message).endswith(str(ERRORS[name].error))


def test_patched_stream_sends_a_5xx_to_litellm_s_fallback(
    error_server: ReplayServer, litellm_patched: None
) -> None:
    from litellm.exceptions import MidStreamFallbackError

    with pytest.raises(MidStreamFallbackError) as caught:
        _chunks("openai/e5-error", error_server.openai_base_url)
    assert isinstance(caught.value.original_exception, litellm.InternalServerError)
    assert "upstream overloaded" in str(caught.value.original_exception)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_builder_on_the_chunks_before_the_error(error_server: ReplayServer, name: str) -> None:
    """What a consumer holds when the stream raised: the chunks before the error. Both
    stock and patched build them into the partial response (no error chunk among them)."""
    seen: list[Any] = []
    stream = litellm.completion(
        model=f"openai/{name}",
        api_base=error_server.openai_base_url,
        messages=USER,
        api_key="sk-streamfix-test",
        stream=True,
    )
    with pytest.raises(litellm.ServiceUnavailableError):
        for chunk in stream:
            seen.append(chunk)
    built = litellm.stream_chunk_builder(seen, messages=USER)
    assert built.choices[0].message.content == ERRORS[name].text
