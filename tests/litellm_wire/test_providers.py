"""The wire is litellm's stream wrapper, so every provider's stream is repaired: the
OpenAI-compatible ones through their own litellm handlers (vLLM, OpenRouter, Groq,
DeepSeek, Mistral, LM Studio; against the replay server's ``/v1``), and Anthropic's own
Messages stream, which litellm's Anthropic handler turns into its chunks (against a
loopback ``/v1/messages``, :mod:`anthropic_app`)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import litellm
import pytest
from anthropic_app import AnthropicServer
from wire_http import API_KEY, TOOLS, USER, naive, naive_right

import streamfix
from streamfix.testing import ReplayServer, adrain, drain

pytestmark = pytest.mark.shim_only

OPENAI_COMPATIBLE = ["hosted_vllm", "openrouter", "groq", "deepseek", "mistral", "lm_studio"]
#: where an index-keyed consumer of litellm's stock stream builds the wrong calls
GLUED = ["b3-same-index", "b6-no-index", "c1-repeated-names"]


@pytest.mark.parametrize("name", GLUED)
@pytest.mark.parametrize("provider", OPENAI_COMPATIBLE)
def test_openai_compatible_providers(
    streamfix_server: ReplayServer, patched: None, provider: str, name: str
) -> None:
    stream = litellm.completion(
        model=f"{provider}/{name}",
        api_base=streamfix_server.openai_base_url,
        api_key=API_KEY,
        messages=USER,
        stream=True,
    )
    assert naive_right(list(stream), name)


@pytest.fixture(scope="module")
def anthropic() -> Iterator[AnthropicServer]:
    with AnthropicServer() as server:
        yield server


def _anthropic(server: AnthropicServer, name: str, mode: str, **more: Any) -> Any:
    kwargs = {
        "model": f"anthropic/{name}",
        "api_base": server.url,
        "api_key": API_KEY,
        "messages": USER,
        "stream": True,
        **more,
    }
    if mode == "sync":
        return drain(lambda: litellm.completion(**kwargs))
    return asyncio.run(adrain(lambda: litellm.acompletion(**kwargs)))


def test_anthropic_parallel_tool_use(anthropic: AnthropicServer, patched: None, mode: str) -> None:
    """Two ``tool_use`` blocks after a text block (K1, B7): the text, both calls whole,
    their ids; a consumer keyed on index builds them."""
    chunks, error = _anthropic(anthropic, "parallel-tools", mode)
    assert error is None
    message = streamfix.assemble(chunks)
    assert message.content == "Let me check both."
    assert [(c.id, c.name, c.parsed) for c in message.tool_calls] == [
        ("toolu_a", "get_weather", {"city": "Paris"}),
        ("toolu_b", "get_time", {"zone": "Europe/Paris"}),
    ]
    assert message.finish_reason == "tool_calls"
    assert [(n, a) for _, n, a in naive(chunks)] == [
        ("get_weather", {"city": "Paris"}),
        ("get_time", {"zone": "Europe/Paris"}),
    ]


def test_anthropic_tools_declared_pass_as_litellm_made_them(
    anthropic: AnthropicServer, patched: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tools declared, litellm's chunks of Anthropic's stream are already in OpenAI's
    form but for empty argument pieces, which the wire leaves out: everything else is
    the very object litellm made (R1)."""
    fed: list[Any] = []
    feed = streamfix.StreamRepairer.feed

    def recording(self: streamfix.StreamRepairer, chunk: Any) -> list[Any]:
        if not isinstance(chunk, dict):  # the wire's (the Anthropic parser's reads events)
            fed.append(chunk)
        return feed(self, chunk)

    monkeypatch.setattr(streamfix.StreamRepairer, "feed", recording)
    chunks, _ = _anthropic(anthropic, "parallel-tools", "sync", tools=TOOLS)
    empty = [c for c in fed if _only_empty_arguments(c)]
    assert [id(c) for c in chunks] == [id(c) for c in fed if c not in empty]


def _only_empty_arguments(chunk: Any) -> bool:
    entries = chunk.choices[0].delta.tool_calls or [] if chunk.choices else []
    return len(entries) == 1 and not entries[0].id and entries[0].function.arguments == ""


def test_anthropic_max_tokens_mid_call(
    anthropic: AnthropicServer, patched: None, mode: str
) -> None:
    """``stop_reason: max_tokens`` inside the second ``tool_use`` block (K4, E4): the
    first call whole, then ``litellm.APIError`` with the cut-off text."""
    chunks, error = _anthropic(anthropic, "max-tokens", mode)
    assert isinstance(error, litellm.APIError)
    assert isinstance(error.__cause__, streamfix.TruncatedToolCallError)
    assembled: Any = error.assembled  # type: ignore[attr-defined]
    assert [(c.name, c.parsed) for c in assembled.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert list(error.partial_arguments.values()) == ['{"zone": "Eur']  # type: ignore[attr-defined]
    assert naive(chunks)[0][1:] == ("get_weather", {"city": "Paris"})
    assert chunks[-1].choices[0].finish_reason == "length"
