"""litellm over real HTTP: ``openai/`` streamed + assembled equals non-streamed, and the
``ollama_chat/`` shim (call indices, Ollama's in-stream errors), stock versus patched.

The shim's own tests (its parser without HTTP, install/uninstall, the version refusal, the
fixed parser without patching) are in ``tests/litellm``."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from typing import Any

import litellm
import pytest
from conftest import USER, assembled_calls, expected_calls
from support import report_stock_loss

import streamfix
import streamfix.testing
from streamfix.testing import ReplayServer

#: How stock litellm words an Ollama error line mid-stream (the known wording: reported when
#: it changes, ``support.report_stock_loss``).
OLLAMA_KEYERROR = "litellm.BadRequestError: Ollama_chatException - KeyError: 'message'"

OPENAI = streamfix.testing.scenarios("openai")
COMPLETE = sorted(n for n, s in OPENAI.items() if s.error is None and not s.truncated)
# litellm's openai/ stream drops a signature-only delta (see the test below).
LITELLM_DROPS = {"f2-late-signature"}
OOM = streamfix.testing.scenarios("ollama")["ollama-oom-error"].error
SIG_A = OPENAI["f2-late-signature"].signatures[0]
assert OOM is not None


def _stream(model: str, api_base: str) -> list[Any]:
    async def run() -> list[Any]:
        response = await litellm.acompletion(
            model=model, api_base=api_base, messages=USER, api_key="sk-streamfix-test", stream=True
        )
        return [chunk async for chunk in response]

    return asyncio.run(run())


def _whole(model: str, api_base: str) -> Any:
    return asyncio.run(
        litellm.acompletion(
            model=model, api_base=api_base, messages=USER, api_key="sk-streamfix-test"
        )
    )


def _litellm_calls(message: Any, with_ids: bool) -> list[tuple[Any, ...]]:
    out = []
    for call in message.tool_calls or []:
        extra = getattr(call, "extra_content", None) or {}
        out.append(
            (
                call.id if with_ids else None,
                call.function.name,
                json.loads(call.function.arguments),
                extra.get("google", {}).get("thought_signature"),
            )
        )
    return out


def _naive_by_index(chunks: list[Any]) -> dict[int, str]:
    """What a consumer keyed on ``index`` builds (openai-python's accumulator does this)."""
    arguments: dict[int, str] = defaultdict(str)
    for chunk in chunks:
        for call in chunk.choices[0].delta.tool_calls or []:
            arguments[call.index] += call.function.arguments or ""
    return dict(arguments)


@pytest.mark.parametrize("name", sorted(set(COMPLETE) - LITELLM_DROPS))
def test_openai_provider_streamed_equals_non_streamed(
    streamfix_server: ReplayServer, name: str
) -> None:
    scenario = OPENAI[name]
    base = streamfix_server.openai_base_url
    streamed = streamfix.assemble(_stream(f"openai/{name}", base))
    whole = _whole(f"openai/{name}", base).choices[0]
    with_ids = all(call["id"] is not None for call in scenario.calls)  # else litellm makes ids
    mine = [(c[0] if with_ids else None, *c[1:]) for c in assembled_calls(streamed)]
    assert mine == _litellm_calls(whole.message, with_ids)
    assert mine == [(c[0] if with_ids else None, *c[1:]) for c in expected_calls(scenario)]
    assert streamed.content == (whole.message.content or "")
    assert streamed.finish_reason == whole.finish_reason


@pytest.mark.stock_failure
def test_openai_provider_drops_a_signature_only_delta(streamfix_server: ReplayServer) -> None:
    """Stock litellm: the F2 signature-only delta fails ``ChatCompletionDeltaToolCall``
    validation (``function`` is None) in ``CustomStreamWrapper.chunk_creator``, so the
    chunk never reaches the consumer and the first call loses its signature; the
    non-streamed response keeps it."""
    base = streamfix_server.openai_base_url
    streamed = streamfix.assemble(_stream("openai/f2-late-signature", base))
    whole = _whole("openai/f2-late-signature", base).choices[0]
    assert [c.thought_signature for c in streamed.tool_calls] == [None, None]
    assert [s for *_, s in _litellm_calls(whole.message, True)] == [SIG_A, None]


def test_openai_provider_patched_keeps_a_signature_only_delta(
    streamfix_server: ReplayServer, litellm_patched: None
) -> None:
    """Patched (the shim, or in direct mode litellm with litellm-signature-entries.patch):
    the entry gets an empty function, the chunk reaches the consumer and the signature
    signs its own call (by index), as in the non-streamed response."""
    base = streamfix_server.openai_base_url
    streamed = streamfix.assemble(_stream("openai/f2-late-signature", base))
    whole = _whole("openai/f2-late-signature", base).choices[0]
    assert (
        [c.thought_signature for c in streamed.tool_calls]
        == [s for *_, s in _litellm_calls(whole.message, True)]
        == [SIG_A, None]
    )


def test_ollama_stock_calls_in_one_message_are_numbered(streamfix_server: ReplayServer) -> None:
    """Several calls in one NDJSON message: stock litellm already numbers them 0, 1."""
    chunks = _stream("ollama_chat/ollama-calls-one-message", streamfix_server.ollama_base_url)
    assert [c.index for k in chunks for c in k.choices[0].delta.tool_calls or []] == [0, 1]


def test_ollama_stock_gives_each_line_s_call_index_0(streamfix_server: ReplayServer) -> None:
    """One call per NDJSON line: stock litellm numbers each line's calls from 0 again, so
    both calls arrive at index 0 and consumers glue them into one."""
    chunks = _stream("ollama_chat/ollama-call-per-line", streamfix_server.ollama_base_url)
    indices = [c.index for k in chunks for c in k.choices[0].delta.tool_calls or []]
    assert indices == [0, 0]
    assert _naive_by_index(chunks) == {0: '{"city": "Paris"}{"zone": "Europe/Paris"}'}
    built = litellm.stream_chunk_builder(chunks).choices[0].message.tool_calls
    assert [(c.function.name, c.function.arguments) for c in built] == [
        ("get_time", '{"city": "Paris"}{"zone": "Europe/Paris"}')
    ]


@pytest.mark.parametrize("name", ["ollama-call-per-line", "ollama-calls-one-message"])
def test_ollama_patched_gives_each_call_its_index(
    streamfix_server: ReplayServer, litellm_patched: None, name: str
) -> None:
    chunks = _stream(f"ollama_chat/{name}", streamfix_server.ollama_base_url)
    indices = [c.index for k in chunks for c in k.choices[0].delta.tool_calls or []]
    assert indices == [0, 1]
    assert _naive_by_index(chunks) == {0: '{"city": "Paris"}', 1: '{"zone": "Europe/Paris"}'}
    built = litellm.stream_chunk_builder(chunks).choices[0].message.tool_calls
    assert [c.function.name for c in built] == ["get_weather", "get_time"]
    streamed = streamfix.assemble(chunks)
    whole = _whole(f"ollama_chat/{name}", streamfix_server.ollama_base_url).choices[0]
    assert [(c.name, c.parsed) for c in streamed.tool_calls] == [
        (c.function.name, json.loads(c.function.arguments)) for c in whole.message.tool_calls
    ]
    assert [(c.name, c.parsed) for c in streamed.tool_calls] == [
        ("get_weather", {"city": "Paris"}),
        ("get_time", {"zone": "Europe/Paris"}),
    ]


def test_ollama_text_unchanged_by_the_patch(streamfix_server: ReplayServer) -> None:
    base = streamfix_server.ollama_base_url
    stock = streamfix.assemble(_stream("ollama_chat/ollama-text", base))
    import streamfix_litellm

    streamfix_litellm.install()
    patched = streamfix.assemble(_stream("ollama_chat/ollama-text", base))
    assert stock.content == patched.content == "Hello from streamfix."


async def _read_oom_stream(server: ReplayServer, seen: list[Any]) -> None:
    """Stream the Ollama out-of-memory scenario through litellm into ``seen``."""
    response = await litellm.acompletion(
        model="ollama_chat/ollama-oom-error",
        messages=USER,
        api_base=server.ollama_base_url,
        stream=True,
    )
    async for chunk in response:
        seen.append(chunk)


def test_ollama_out_of_memory_stock_is_a_keyerror_400(streamfix_server: ReplayServer) -> None:
    seen: list[Any] = []
    with pytest.raises(litellm.BadRequestError) as caught:
        asyncio.run(_read_oom_stream(streamfix_server, seen))
    assert caught.value.status_code == 400
    report_stock_loss("litellm ollama-oom-error", str(caught.value), OLLAMA_KEYERROR)
    assert [c.choices[0].delta.content for c in seen] == ["Let me"]


def test_ollama_out_of_memory_patched_is_a_5xx_with_ollamas_text(
    streamfix_server: ReplayServer, litellm_patched: None
) -> None:
    from litellm.exceptions import MidStreamFallbackError

    seen: list[Any] = []
    with pytest.raises(litellm.ServiceUnavailableError) as caught:
        asyncio.run(_read_oom_stream(streamfix_server, seen))
    error = caught.value
    # litellm wraps a mid-stream 5xx in MidStreamFallbackError (a ServiceUnavailableError)
    # so its Router can fall back; the typed InternalServerError is its original_exception.
    assert isinstance(error, MidStreamFallbackError)
    assert error.status_code == 500
    assert isinstance(error.original_exception, litellm.InternalServerError)
    assert OOM in str(error) and OOM in str(error.original_exception)
    assert "KeyError" not in str(error)
    assert [c.choices[0].delta.content for c in seen] == ["Let me"]


def test_ollama_out_of_memory_patched_sync_stream(
    streamfix_server: ReplayServer, litellm_patched: None
) -> None:
    response = litellm.completion(
        model="ollama_chat/ollama-oom-error",
        messages=USER,
        api_base=streamfix_server.ollama_base_url,
        stream=True,
    )
    with pytest.raises(litellm.ServiceUnavailableError, match=r"requires more system memory"):
        for _ in response:
            pass
