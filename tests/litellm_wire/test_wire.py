"""The repaired litellm stream over real HTTP, for every scenario of the corpus (the
OpenAI-compatible ones through ``openai/``, Ollama's through ``ollama_chat/``), sync
(``completion(stream=True)``) and async (``acompletion``).

What the consumer gets, assembled with ``streamfix.assemble``, is what the provider's own
stream assembles to, except where wire-shapes R says otherwise: a ``stop`` finish with
calls is ``tool_calls`` (R8), a call the provider sent no id for has the repaired
stream's (R3), a shared id (G3) is made unique as ``with_unique_ids()`` makes it. Errors
are litellm's: a cut-off call ``litellm.APIError``, a provider's error litellm's mapped
exception with the provider's text, each raised after everything complete was yielded.
"""

from __future__ import annotations

from typing import Any

import litellm
import pytest
from litellm.litellm_core_utils.streaming_handler import CustomStreamWrapper
from wire_http import SCENARIOS, TOOLS, USER, naive, naive_right, stream, target

import streamfix
import streamfix.testing
from streamfix.testing import ReplayServer

pytestmark = pytest.mark.shim_only

#: the provider takes back argument bytes the repaired stream already passed on live (I3):
#: the stream ends in litellm's error, the consumer's chunks still carry what was sent
RETRACTED = {"i3-restarted"}
TRUNCATED = sorted(n for n, s in SCENARIOS.items() if s.truncated)
PROVIDER_ERRORS = sorted(n for n, s in SCENARIOS.items() if s.error is not None)
COMPLETE = sorted(set(SCENARIOS) - RETRACTED - set(TRUNCATED) - set(PROVIDER_ERRORS))
WITH_CALLS = [n for n in COMPLETE if SCENARIOS[n].calls]
#: where a consumer keyed on ``index`` builds the wrong calls from litellm's stock stream:
#: calls glued (an index reused: B2, B3, Ollama's call per line; no index: B6), a name
#: repeated on every fragment (C1), the legacy function call read as none (H1), the
#: arguments double-encoded (I1), two calls under one id (G3: the next turn's tool
#: results cannot tell them apart)
STOCK_NAIVE_WRONG = {
    "b2-same-index",
    "b3-same-index",
    "b6-no-index",
    "c1-repeated-names",
    "g3-shared-id",
    "h1-legacy-function-call",
    "i1-double-encoded",
    "ollama-call-per-line",
}
#: litellm maps an in-stream error through ``_map_stream_exception`` (not 1.80), which
#: the shim fixes (the provider's status picks the exception)
MAPS_STREAM_ERRORS = "_map_stream_exception" in vars(CustomStreamWrapper)
#: OpenAI's own form (headers whole, then argument pieces; the tools declared): every
#: chunk passes on as the very object litellm made (R1)
OPENAI_FORM = ["b1-interleaved", "b1-three-commands", "d3-escapes-split", "text"]


def _original(name: str) -> streamfix.AssembledMessage:
    """The provider's own stream, assembled."""
    return streamfix.assemble(streamfix.testing.fresh_chunks(SCENARIOS[name]))


#: the reasoning a message carries besides its calls and text
REASONING = ("reasoning", "reasoning_details", "thinking_blocks")
#: where litellm's own chunk handling (stock, before its stream wrapper yields anything,
#: so before any wire) loses reasoning: a delta carrying only a ``reasoning_details``
#: entry (F5: the one with the signature) is dropped as empty; litellm 1.80 drops
#: OpenRouter's reasoning altogether, and a thinking block's signature-only piece (F6)
LITELLM_LOSES_REASONING = {"f5-reasoning-details", "f6-thinking-blocks"}
_STOCK: dict[str, dict[str, Any]] = {}


def _stock_said(server: ReplayServer, name: str) -> dict[str, Any]:
    """What litellm's stock stream of ``name`` assembles to (the shim uninstalled for
    the while, installed again)."""
    import streamfix_litellm

    if name not in _STOCK:
        installed = streamfix_litellm.installed()
        streamfix_litellm.uninstall()
        try:
            chunks, _ = stream(server, name)
        finally:
            if installed:
                streamfix_litellm.install()
        _STOCK[name] = _said(streamfix.assemble(chunks), False)
    return _STOCK[name]


def _said(message: streamfix.AssembledMessage, ids: bool) -> dict[str, Any]:
    return {
        "calls": [
            (call.id if ids else None, call.name, call.parsed, call.thought_signature)
            for call in message.tool_calls
        ],
        "content": message.content,
        "reasoning": message.reasoning,
        "reasoning_details": message.reasoning_details,
        "thinking_blocks": message.thinking_blocks,
        "finish_reason": message.finish_reason,
    }


def _expected(server: ReplayServer, name: str) -> dict[str, Any]:
    original = _original(name).with_unique_ids()  # G3: made unique (R3)
    said = _said(original, _provider_ids(name))
    stock = _stock_said(server, name)
    for key in REASONING:
        if stock[key] != said[key]:  # lost before the wire: the wire passes on the rest
            assert name in LITELLM_LOSES_REASONING, (name, key)
            said[key] = stock[key]
    if original.tool_calls and said["finish_reason"] in (None, "stop", "end_turn"):
        said["finish_reason"] = "tool_calls"  # R8, as OpenAI sends a message with calls
    elif said["finish_reason"] is None:
        said["finish_reason"] = "stop"  # litellm's own end of a stream without one
    return said


def _provider_ids(name: str) -> bool:
    """Whether the provider sent an id for every call (else the wire names them)."""
    scenario = SCENARIOS[name]
    return scenario.dialect != "ollama" and all(c["id"] is not None for c in scenario.calls)


def _assert_ids(message: streamfix.AssembledMessage) -> None:
    ids = [call.id for call in message.tool_calls]
    assert all(ids) and len(set(ids)) == len(ids), ids


# --- every scenario: the consumer's chunks assemble to the provider's message ----------------


@pytest.mark.parametrize("name", COMPLETE)
def test_repaired_stream_assembles_to_the_original(
    streamfix_server: ReplayServer, patched: None, mode: str, name: str
) -> None:
    chunks, error = stream(streamfix_server, name, mode)
    assert error is None
    assert all(type(c) is litellm.ModelResponseStream for c in chunks)
    assembled = streamfix.assemble(chunks)
    assert _said(assembled, _provider_ids(name)) == _expected(streamfix_server, name)
    _assert_ids(assembled)


@pytest.mark.parametrize("name", TRUNCATED)
def test_a_cut_off_call_raises_litellm_s_api_error_after_the_complete_ones(
    streamfix_server: ReplayServer, patched: None, mode: str, name: str
) -> None:
    scenario = SCENARIOS[name]
    chunks, error = stream(streamfix_server, name, mode)
    assert isinstance(error, litellm.APIError) and error.status_code == 500
    assert isinstance(error.__cause__, streamfix.TruncatedToolCallError)
    complete = [(c["name"], c["arguments"]) for c in scenario.calls]
    assembled: Any = error.assembled  # type: ignore[attr-defined]
    assert [(c.name, c.parsed) for c in assembled.tool_calls] == complete
    partial = [c["arguments"] for c in scenario.partial_calls]
    assert list(error.partial_arguments.values()) == partial  # type: ignore[attr-defined]
    # yielded first: the complete call whole (a naive consumer has it), the finish reason
    assert [(n, a) for _, n, a in naive(chunks)][: len(complete)] == complete
    assert chunks[-1].choices[0].finish_reason == scenario.finish_reason
    with pytest.raises(streamfix.TruncatedToolCallError) as again:
        streamfix.assemble(chunks)
    assert [(c.name, c.parsed) for c in again.value.message.tool_calls] == complete


@pytest.mark.parametrize("name", PROVIDER_ERRORS)
def test_a_provider_error_raises_litellm_s_mapped_exception_after_the_text(
    streamfix_server: ReplayServer, patched: None, mode: str, name: str
) -> None:
    """Ollama's out-of-memory line, an OpenAI-compatible error event: the provider's
    own text in litellm's exception for a 5xx (which litellm wraps for its fallback as
    stock wraps any mid-stream server error), the text before it passed on first, and
    what the stream had assembled on both exceptions."""
    scenario = SCENARIOS[name]
    chunks, error = stream(streamfix_server, name, mode)
    assert error is not None and str(scenario.error) in str(error)
    inner = getattr(error, "original_exception", None) or error
    if scenario.dialect == "ollama" or MAPS_STREAM_ERRORS:
        assert isinstance(inner, litellm.InternalServerError)
    else:  # litellm 1.80 has no _map_stream_exception to fix: its own mapping
        assert isinstance(inner, litellm.APIConnectionError)
    assert "KeyError" not in str(error)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == scenario.text
    for raised in (error, inner):
        assert raised.assembled.content == scenario.text  # type: ignore[attr-defined]
        assert raised.partial_arguments == {}  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(RETRACTED))
def test_arguments_taken_back_end_the_stream_in_litellm_s_api_error(
    streamfix_server: ReplayServer, patched: None, mode: str, name: str
) -> None:
    """I3: the first argument bytes went out live before the provider restarted the
    value; the wire cannot take them back, so the stream ends in litellm's error, with
    the message the core assembled on it. What went out is only the prefix of one object
    (the restart glued to it never does): the consumer's chunks are a cut-off call."""
    chunks, error = stream(streamfix_server, name, mode)
    assert isinstance(error, litellm.APIError)
    assert isinstance(error.__cause__, streamfix.MalformedToolCallError)
    expected = _said(_original(name), True)["calls"]
    assert _said(error.assembled, True)["calls"] == expected  # type: ignore[attr-defined]
    with pytest.raises(streamfix.TruncatedToolCallError):
        streamfix.assemble(chunks)


# --- a consumer keyed on index (what most frameworks do) ------------------------------------


@pytest.mark.parametrize("name", WITH_CALLS)
def test_an_index_keyed_consumer_is_right_on_the_repaired_stream(
    streamfix_server: ReplayServer, patched: None, mode: str, name: str
) -> None:
    chunks, error = stream(streamfix_server, name, mode)
    assert error is None
    assert naive_right(chunks, name)


@pytest.mark.stock_failure
@pytest.mark.parametrize("name", WITH_CALLS)
def test_an_index_keyed_consumer_of_the_stock_stream(
    streamfix_server: ReplayServer, name: str
) -> None:
    """Stock litellm: wrong exactly where the corpus says (:data:`STOCK_NAIVE_WRONG`)."""
    chunks, _ = stream(streamfix_server, name)
    assert naive_right(chunks, name) == (name not in STOCK_NAIVE_WRONG)


# --- what passes as it is, what the wire reads ------------------------------------------------


@pytest.fixture
def fed(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every chunk a ``StreamRepairer`` is fed, in order."""
    seen: list[Any] = []
    feed = streamfix.StreamRepairer.feed

    def recording(self: streamfix.StreamRepairer, chunk: Any) -> list[Any]:
        seen.append(chunk)
        return feed(self, chunk)

    monkeypatch.setattr(streamfix.StreamRepairer, "feed", recording)
    return seen


@pytest.mark.parametrize("name", OPENAI_FORM)
def test_openai_s_own_form_passes_as_the_same_objects(
    streamfix_server: ReplayServer, patched: None, fed: list[Any], mode: str, name: str
) -> None:
    """R1: litellm's own chunks of an OpenAI-form stream, object for object."""
    chunks, error = stream(streamfix_server, name, mode, tools=TOOLS)
    assert error is None
    assert len(chunks) == len(fed) and all(a is b for a, b in zip(chunks, fed, strict=True))


def test_declared_tools_reach_the_repairer(
    streamfix_server: ReplayServer, patched: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request's tools (as the caller gave litellm) go to the repairer: a declared
    name is whole at once, so the header goes out before any argument byte (C2/R6)."""
    made: list[Any] = []
    init = streamfix.StreamRepairer.__init__

    def recording(self: streamfix.StreamRepairer, tools: Any = None, **kwargs: Any) -> None:
        made.append(tools)
        init(self, tools, **kwargs)

    monkeypatch.setattr(streamfix.StreamRepairer, "__init__", recording)
    with_tools, _ = stream(streamfix_server, "b1-interleaved", tools=TOOLS)
    without, _ = stream(streamfix_server, "b1-interleaved")
    assert made == [TOOLS, None]
    # declared: the header as sent; not declared, it waits for the first argument piece
    assert _first_entry(with_tools).function.arguments == ""
    assert _first_entry(without).function.arguments == '{"city"'


def _first_entry(chunks: list[Any]) -> Any:
    return next(e for c in chunks for e in c.choices[0].delta.tool_calls or [])


def test_litellm_s_own_builder_reads_the_stream_s_repair(
    streamfix_server: ReplayServer, patched: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """litellm builds the complete response (for its logging, cost, cache) from the
    wrapper's own chunks at the end of the stream: the patched builder takes the
    messages the stream's repairer settled (nothing assembled again) and builds what
    it builds when it assembles them itself."""
    from streamfix_litellm import _builder

    model, base = target(streamfix_server, "b3-same-index")
    wrapper = litellm.completion(
        model=model, api_base=base, messages=USER, api_key="sk-streamfix-test", stream=True
    )
    list(wrapper)
    assembled: list[Any] = []
    assemble = _builder._assemble
    monkeypatch.setattr(_builder, "_assemble", lambda *a: assembled.append(1) or assemble(*a))
    wired = litellm.stream_chunk_builder(
        chunks=wrapper.chunks, messages=USER, logging_obj=wrapper.logging_obj
    )
    assert assembled == []
    again = litellm.stream_chunk_builder(chunks=list(wrapper.chunks), messages=USER)
    assert assembled == [1]
    # the same response, but for the ids the builder makes where the provider sent none
    assert _without_ids(wired) == _without_ids(again)
    assert [c.function.name for c in wired.choices[0].message.tool_calls] == [
        "get_weather",
        "get_time",
    ]


def _without_ids(response: Any) -> dict[str, Any]:
    """The response but for its ids and the completion tokens counted on them (litellm
    1.80 counts the random ids the builder makes where the provider sent none)."""
    dumped: dict[str, Any] = response.model_dump(exclude={"id", "created", "usage"})
    dumped["prompt_tokens"] = response.usage.prompt_tokens
    for choice in dumped["choices"]:
        for call in choice["message"]["tool_calls"] or []:
            call.pop("id")
    return dumped


# --- install, uninstall ------------------------------------------------------------------------


def test_install_uninstall_restore_the_stream_methods_exactly() -> None:
    from litellm.litellm_core_utils.streaming_handler import CustomStreamWrapper

    import streamfix_litellm
    from streamfix_litellm import _wire

    stock = {name: CustomStreamWrapper.__dict__[name] for name in ("__next__", "__anext__")}
    wrapper = object.__new__(CustomStreamWrapper)
    assert not _wire.repaired(wrapper)
    assert streamfix.install("litellm") == ["litellm"]
    streamfix_litellm.install()  # idempotent
    assert CustomStreamWrapper.__dict__["__next__"] is _wire.next_repaired
    assert CustomStreamWrapper.__dict__["__anext__"] is _wire.anext_repaired
    assert _wire.repaired(wrapper)
    streamfix.uninstall("litellm")
    streamfix_litellm.uninstall()  # idempotent
    assert {name: CustomStreamWrapper.__dict__[name] for name in stock} == stock
    assert all(CustomStreamWrapper.__dict__[n] is stock[n] for n in stock)
    assert not _wire.repaired(wrapper)


def test_a_stock_stream_is_left_as_it_is(streamfix_server: ReplayServer) -> None:
    """Not installed: litellm's own stream (its index reuse included)."""
    chunks, _ = stream(streamfix_server, "ollama-call-per-line")
    entries = [e for c in chunks for e in c.choices[0].delta.tool_calls or []]
    assert [e.index for e in entries] == [0, 0]
