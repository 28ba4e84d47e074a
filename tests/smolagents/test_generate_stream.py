"""What smolagents' ``generate_stream`` loses while the provider's chunk is still in hand,
driven through the real methods (``OpenAIModel``, ``LiteLLMModel``,
``InferenceClientModel``) over fake clients, and through a ``ToolCallingAgent`` with
``stream_outputs=True``:

* E7, n = 2: stock takes ``event.choices[0]`` of every chunk whatever its index, so choice
  1's fragments are read as choice 0's (one call, the two arguments glued, the tool run
  with that text); patched, choice 0 is assembled alone;
* E5, a provider error mid-stream (Groq: a top-level ``error`` and no choices; OpenRouter:
  ``finish_reason: "error"`` with an ``error`` object): stock drops the chunk and the
  provider's words with it; patched, ``streamfix.ProviderStreamError`` with them.

Where stock loses nothing the patched ``generate_stream`` yields exactly stock's deltas
(the same objects' values, the same token usage, the same ``ValueError``).

Direct mode (``STREAMFIX_DIRECT=1``: smolagents patched with the docs/upstream/smolagents-*.patch
series, no shim): the ``patched`` tests drive smolagents' own
``generate_stream``; a provider error is then smolagents' ``RuntimeError`` with the
provider's text (:func:`provider_error`); the tests of stock's failures and of the shim's
own API or error attributes are deselected."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from smol_wire import MODEL_WIRES, WIRES, chunk, model_for, run_agent, stream_deltas, tc
from support import direct, report_stock_loss

#: How stock smolagents words a choice with no delta (reported when it changes).
EMPTY_CHUNK_ERROR = "No content or tool calls in event"

PARIS, TOKYO = '{"city": "Paris"}', '{"city": "Tokyo"}'
#: What stock makes of the two choices' argument fragments: one text, not JSON.
MIXED = '{"city": {"city": "Paris"}"Tokyo"}'

#: n = 2: both choices call the weather tool, their chunks interleaved.
TWO_CHOICES = [
    chunk(content="Checking.", choice=0),
    chunk(content="Looking.", choice=1),
    chunk(tc(0, "call_a", "weather", '{"city": '), choice=0),
    chunk(tc(0, "call_b", "weather", '{"city": '), choice=1),
    chunk(tc(0, args='"Paris"}'), choice=0),
    chunk(tc(0, args='"Tokyo"}'), choice=1),
    chunk(finish="tool_calls", choice=0),
    chunk(finish="tool_calls", choice=1),
    chunk(choices=[], usage={"prompt_tokens": 11, "completion_tokens": 9, "total_tokens": 20}),
]
#: The same stream as the provider would send it with n = 1: choice 0's chunks alone.
CHOICE_ZERO = [
    body for body in TWO_CHOICES if not body["choices"] or body["choices"][0]["index"] == 0
]

RATE_LIMIT = "rate limit exceeded: 6000 tokens per minute"
OVERLOADED = "upstream provider overloaded"
BEFORE_ERROR = [
    chunk(content="Let me check."),
    chunk(tc(0, "call_a", "weather", '{"city": ')),
]
#: E5 as each provider sends it, and the provider's text.
ERRORS = {
    "groq-empty-choices": (
        chunk(choices=[], error={"message": RATE_LIMIT, "type": "tokens", "code": 429}),
        RATE_LIMIT,
    ),
    "groq-no-choices": (
        {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": "test-model",
            "error": {"message": RATE_LIMIT, "type": "tokens"},
        },
        RATE_LIMIT,
    ),
    "openrouter-finish-error": (
        chunk(
            content="",
            finish="error",
            provider="SomeProvider",
            error={"code": 502, "message": OVERLOADED},
        ),
        OVERLOADED,
    ),
}


def deltas_of(wire: str, bodies: list[dict[str, Any]]) -> list[Any]:
    return stream_deltas(wire, bodies)


def agglomerated(deltas: list[Any]) -> Any:
    import smolagents.models

    return smolagents.models.agglomerate_stream_deltas(deltas)


def calls_of(message: Any) -> list[tuple[str, str, str]]:
    return [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]


def provider_error() -> type[Exception]:
    """What a provider error in the stream raises: the core's ``ProviderStreamError``, or
    in direct mode smolagents' own (patched) ``RuntimeError``."""
    if direct():
        return RuntimeError
    import streamfix

    return streamfix.ProviderStreamError


# --- n = 2 ----------------------------------------------------------------------------------


@pytest.mark.stock_failure
@pytest.mark.parametrize("wire", MODEL_WIRES)
def test_stock_generate_stream_mixes_choice_1_into_choice_0(wire: str, stock: Any) -> None:
    message = agglomerated(deltas_of(wire, TWO_CHOICES))
    # One call: choice 1's id, both choices' fragments in one text, both texts joined.
    assert calls_of(message) == [("call_b", "weather", MIXED)]
    assert message.content == "Checking.Looking."


@pytest.mark.parametrize("wire", MODEL_WIRES)
def test_patched_generate_stream_assembles_choice_0_alone(wire: str, patched: None) -> None:
    message = agglomerated(deltas_of(wire, TWO_CHOICES))
    assert calls_of(message) == [("call_a", "weather", PARIS)]
    assert message.content == "Checking."
    assert (message.token_usage.input_tokens, message.token_usage.output_tokens) == (11, 9)


@pytest.mark.parametrize("wire", MODEL_WIRES)
def test_patched_n2_deltas_are_stock_deltas_of_choice_0_alone(wire: str, stock: Any) -> None:
    """Choice 1's chunks do not reach the deltas: patched, the n = 2 stream gives the
    deltas stock gives for choice 0's chunks alone."""
    import streamfix_smolagents

    expected = deltas_of(wire, CHOICE_ZERO)
    streamfix_smolagents.install()
    try:
        assert deltas_of(wire, TWO_CHOICES) == expected
    finally:
        streamfix_smolagents.uninstall()


@pytest.mark.parametrize("wire", MODEL_WIRES)
def test_n2_deltas_are_the_deltas_of_choice_0_alone(wire: str, patched: None) -> None:
    """Patched (the shim, or smolagents itself in direct mode), the n = 2 stream gives the
    deltas of choice 0's chunks alone, which are stock's (the next section pins them)."""
    assert deltas_of(wire, TWO_CHOICES) == deltas_of(wire, CHOICE_ZERO)


def both_choices_in_one_chunk(**choice_zero: Any) -> dict[str, Any]:
    """Choice 1 first (stock reads it as choice 0's), then choice 0."""
    both = chunk(tc(0, "call_a", "weather", PARIS), **choice_zero)
    both["choices"].insert(
        0, {"index": 1, "delta": {"tool_calls": [tc(0, "call_b", "weather", TOKYO)]}}
    )
    return both


@pytest.mark.parametrize("wire", MODEL_WIRES)
def test_a_chunk_carrying_both_choices_is_copied_not_changed(wire: str, patched: None) -> None:
    """The deltas get choice 0's part; the provider's chunk object keeps both."""
    from smolagents.models import ChatMessage, MessageRole

    model = model_for(wire, [both_choices_in_one_chunk(finish="tool_calls")])
    sent = model.client.responses[0][0]
    user = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "hi"}])
    message = agglomerated(list(model.generate_stream([user])))
    assert calls_of(message) == [("call_a", "weather", PARIS)]
    assert [choice.index for choice in sent.choices] == [1, 0]


@pytest.mark.parametrize("wire", MODEL_WIRES)
def test_a_provider_error_in_a_chunk_carrying_both_choices(wire: str, patched: None) -> None:
    body = both_choices_in_one_chunk(error={"message": RATE_LIMIT})
    with pytest.raises(provider_error(), match=RATE_LIMIT):
        deltas_of(wire, [body])


# --- E5 -------------------------------------------------------------------------------------


@pytest.mark.stock_failure
@pytest.mark.parametrize("wire", MODEL_WIRES)
@pytest.mark.parametrize("shape", list(ERRORS))
def test_stock_generate_stream_drops_the_provider_error(wire: str, shape: str, stock: Any) -> None:
    """The stream just ends: the deltas and the agglomerated message carry nothing of
    the provider's error."""
    body, text = ERRORS[shape]
    deltas = deltas_of(wire, [*BEFORE_ERROR, body])
    assert text not in repr(deltas)
    message = agglomerated(deltas)
    assert calls_of(message) == [("call_a", "weather", '{"city": ')]


@pytest.mark.parametrize("wire", MODEL_WIRES)
@pytest.mark.parametrize("shape", list(ERRORS))
def test_patched_generate_stream_raises_the_provider_error(
    wire: str, shape: str, patched: None
) -> None:
    body, text = ERRORS[shape]
    with pytest.raises(provider_error(), match=text):
        deltas_of(wire, [*BEFORE_ERROR, body])


@pytest.mark.shim_only
@pytest.mark.parametrize("wire", MODEL_WIRES)
@pytest.mark.parametrize("shape", list(ERRORS))
def test_patched_provider_error_carries_what_was_assembled(
    wire: str, shape: str, patched: None
) -> None:
    import streamfix

    body, text = ERRORS[shape]
    with pytest.raises(streamfix.ProviderStreamError, match=text) as info:
        deltas_of(wire, [*BEFORE_ERROR, body])
    error = info.value
    assert error.provider_message == text
    assert error.message is not None
    assert error.message.content == "Let me check."
    assert error.partial_arguments == {0: '{"city": '}


FINISH_ERROR = [chunk(tc(0, "call_a", "weather", PARIS)), chunk(finish="error")]


@pytest.mark.stock_failure
@pytest.mark.parametrize("wire", ["openai", "hf"])  # litellm maps "error" to "stop"
def test_stock_ends_a_finish_reason_error_as_complete(wire: str, stock: Any) -> None:
    """E5 without an error object: stock ends the stream as if it were complete."""
    assert calls_of(agglomerated(deltas_of(wire, FINISH_ERROR))) == [("call_a", "weather", PARIS)]


@pytest.mark.parametrize("wire", ["openai", "hf"])
def test_patched_raises_a_finish_reason_error(wire: str, patched: None) -> None:
    """Patched, a provider error (the finish reason is all the provider said)."""
    with pytest.raises(provider_error(), match="finish_reason 'error'"):
        deltas_of(wire, FINISH_ERROR)


# --- the agent loop -------------------------------------------------------------------------


@pytest.mark.stock_failure
@pytest.mark.parametrize("wire", WIRES)
def test_stock_agent_runs_choice_0_and_1_glued(wire: str, stock: Any) -> None:
    received, agent = run_agent(wire, TWO_CHOICES, "Weather in Paris?")
    assert received == [MIXED]
    assert "Paris" not in [c.arguments for c in agent.memory.steps[1].tool_calls]


@pytest.mark.parametrize("wire", WIRES)
def test_patched_agent_runs_choice_0_alone(wire: str, patched: None) -> None:
    received, agent = run_agent(wire, TWO_CHOICES, "Weather in Paris?")
    assert received == ["Paris"]
    step = agent.memory.steps[1]
    assert [(c.id, c.name, c.arguments) for c in step.tool_calls] == [
        ("call_a", "weather", {"city": "Paris"})
    ]
    assert agent.memory.steps[-1].is_final_answer


@pytest.mark.stock_failure
@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("shape", list(ERRORS))
def test_stock_agent_never_shows_the_provider_error(wire: str, shape: str, stock: Any) -> None:
    body, text = ERRORS[shape]
    try:
        _, agent = run_agent(wire, [*BEFORE_ERROR, body], "Weather in Paris?")
    except Exception as error:  # whatever stock makes of the cut-off call
        chain = [error, error.__cause__, error.__context__]
        assert all(text not in str(link) for link in chain if link is not None)
    else:
        assert text not in repr(agent.memory.steps)


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize("shape", list(ERRORS))
def test_patched_agent_stops_with_the_provider_error(wire: str, shape: str, patched: None) -> None:
    """smolagents wraps an error of the generation in ``AgentGenerationError``, which
    ends the run; its cause is the core's provider error, with the provider's text."""
    from smolagents.utils import AgentGenerationError

    body, text = ERRORS[shape]
    with pytest.raises(AgentGenerationError, match=text) as info:
        run_agent(wire, [*BEFORE_ERROR, body], "Weather in Paris?")
    assert isinstance(info.value.__cause__, provider_error())
    if not direct():
        assert info.value.__cause__.provider_message == text  # type: ignore[attr-defined]


# --- what stock does right stays ------------------------------------------------------------

USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
NORMAL = [
    chunk(delta={"role": "assistant"}, content=""),
    chunk(content="Let me check."),
    chunk(tc(0, "call_a", "weather", '{"city": ')),
    chunk(tc(0, args='"Paris"}')),
    chunk(tc(1, "call_b", "weather", TOKYO)),
    chunk(finish="tool_calls"),
    chunk(choices=[], usage=USAGE),
]


def both_ways(wire: str, bodies: list[dict[str, Any]]) -> tuple[Any, Any]:
    """What ``generate_stream`` yields (or raises) stock, then patched."""
    import streamfix_smolagents

    def run() -> Any:
        try:
            return deltas_of(wire, bodies)
        except Exception as error:
            return (type(error), str(error))

    stock_run = run()
    streamfix_smolagents.install()
    try:
        return stock_run, run()
    finally:
        streamfix_smolagents.uninstall()


@pytest.mark.parametrize("wire", MODEL_WIRES)
def test_patched_deltas_are_stock_deltas(wire: str, stock: Any) -> None:
    stock_run, patched_run = both_ways(wire, NORMAL)
    assert patched_run == stock_run
    assert stock_run[-1].token_usage.input_tokens == 11
    assert len(stock_run) == 7  # one per chunk, the usage chunk's included


def empty_choice() -> list[dict[str, Any]]:
    empty = chunk(content="hi")
    empty["choices"][0]["delta"] = None
    return [chunk(content="a"), empty]


@pytest.mark.parametrize("wire", ["openai", "hf"])
def test_patched_raises_stocks_value_error_for_an_empty_chunk(wire: str, stock: Any) -> None:
    """A choice with no delta and no finish reason: stock's own ``ValueError``."""
    stock_run, patched_run = both_ways(wire, empty_choice())
    assert stock_run[0] is ValueError
    report_stock_loss(f"smolagents empty choice {wire}", stock_run[1], EMPTY_CHUNK_ERROR)
    assert patched_run == stock_run


@pytest.mark.parametrize("wire", ["openai", "hf"])
def test_patched_keeps_stocks_value_error_for_an_empty_chunk(wire: str, patched: None) -> None:
    """The same ``ValueError`` as stock's (the test above compares them in one process)."""
    with pytest.raises(ValueError) as raised:
        deltas_of(wire, empty_choice())
    report_stock_loss(f"smolagents empty choice {wire}", str(raised.value), EMPTY_CHUNK_ERROR)


@pytest.mark.parametrize("wire", MODEL_WIRES)
def test_patched_deltas_of_a_normal_stream(wire: str, patched: None) -> None:
    """The deltas stock gives (``test_patched_deltas_are_stock_deltas`` compares them in
    one process), pinned: one per chunk, the provider's fragments as sent."""
    deltas = deltas_of(wire, NORMAL)
    fragments = [
        [(t.index, t.id, t.function.name, t.function.arguments) for t in d.tool_calls or []]
        for d in deltas
    ]
    assert [d.content for d in deltas] == ["", "Let me check.", None, None, None, None, ""]
    assert fragments == [
        [],
        [],
        [(0, "call_a", "weather", '{"city": ')],
        [(0, None, None, '"Paris"}')],
        [(1, "call_b", "weather", TOKYO)],
        [],
        [],
    ]
    usage = deltas[-1].token_usage
    assert (usage.input_tokens, usage.output_tokens) == (11, 7)


def test_patched_passes_the_providers_objects_through(patched: None) -> None:
    """A chunk of choice 0 reaches stock's conversion as the provider's own object: the
    tool-call ``function`` in the delta is the very object the client sent."""
    model = model_for("openai", NORMAL)
    sent = model.client.responses[0]
    from smolagents.models import ChatMessage, MessageRole

    user = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "hi"}])
    deltas = list(model.generate_stream([user]))
    assert deltas[2].tool_calls[0].function is sent[2].choices[0].delta.tool_calls[0].function


def test_concurrent_streams_of_one_model_are_apart(patched: None) -> None:
    """Two streams of one model interleaved (an n = 2 one and a normal one): nothing of the
    model is swapped, each stream is filtered on its own."""
    from smolagents.models import ChatMessage, MessageRole

    model = model_for("openai", TWO_CHOICES, NORMAL)
    user = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "hi"}])
    first, second = model.generate_stream([user]), model.generate_stream([user])
    firsts, seconds = [next(first)], [next(second)]
    for a, b in zip(first, second, strict=False):
        firsts.append(a)
        seconds.append(b)
    firsts += list(first)
    seconds += list(second)
    assert calls_of(agglomerated(firsts)) == [("call_a", "weather", PARIS)]
    assert calls_of(agglomerated(seconds)) == [
        ("call_a", "weather", PARIS),
        ("call_b", "weather", TOKYO),
    ]


# --- the patch ------------------------------------------------------------------------------

MODELS = ("OpenAIModel", "LiteLLMModel", "InferenceClientModel")


@pytest.mark.shim_only
def test_install_wraps_every_streaming_model_and_uninstall_restores(stock: Any) -> None:
    from smolagents import models

    import streamfix_smolagents

    before = {name: getattr(models, name).__dict__["generate_stream"] for name in MODELS}
    streamfix_smolagents.install()
    try:
        for name in MODELS:
            fixed = getattr(models, name).__dict__["generate_stream"]
            assert fixed is not before[name]
            assert inspect.isgeneratorfunction(fixed)
            assert inspect.signature(fixed) == inspect.signature(before[name])
        # Subclasses and aliases resolve the fixed method.
        assert models.AzureOpenAIModel.generate_stream is models.OpenAIModel.generate_stream
        assert models.OpenAIServerModel.generate_stream is models.OpenAIModel.generate_stream
        assert models.LiteLLMRouterModel.generate_stream is models.LiteLLMModel.generate_stream
    finally:
        streamfix_smolagents.uninstall()
    for name in MODELS:
        assert getattr(models, name).__dict__["generate_stream"] is before[name]


# --- H1: the legacy delta.function_call dialect ---------------------------------------

LEGACY = [
    chunk(delta={"role": "assistant", "function_call": {"name": "weather", "arguments": ""}}),
    chunk(delta={"function_call": {"arguments": '{"city": '}}),
    chunk(delta={"function_call": {"arguments": '"Paris"}'}}),
    chunk(finish="function_call"),
]


def _legacy_message(wire: str) -> Any:
    from smolagents.models import ChatMessage, MessageRole, agglomerate_stream_deltas

    model = model_for(wire, LEGACY)
    messages = [ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "hi"}])]
    return agglomerate_stream_deltas(list(model.generate_stream(messages)))


@pytest.mark.stock_failure
@pytest.mark.parametrize("wire", ["openai", "litellm"])
def test_h1_stock_reads_no_call_in_the_legacy_dialect(wire: str, stock: Any) -> None:
    assert not _legacy_message(wire).tool_calls


@pytest.mark.parametrize("wire", ["openai", "litellm"])
def test_h1_patched_reads_the_legacy_call(wire: str, patched: None) -> None:
    message = _legacy_message(wire)
    assert [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls] == [
        ("call_chatcmpl-test", "weather", '{"city": "Paris"}')
    ]


class _Choice:
    """A test double of a streamed choice, as smolagents' own tests build it: a ``delta``
    and nothing else (no ``index``, no ``finish_reason``)."""

    def __init__(self, delta: Any) -> None:
        self.delta = delta


class _Chunk:
    """A test double of a streamed chunk: ``choices`` and ``usage``, no ``id`` (smolagents'
    ``test_toolcalling_agent_stream_logs_multiple_tool_calls_observations`` streams these;
    a patch reading ``event.id`` on every chunk broke it, issue 28)."""

    def __init__(self, delta: Any) -> None:
        self.choices = [_Choice(delta)]
        self.usage = None


def chunks_without_id() -> list[Any]:
    """A role delta, then two calls at indices 0 and 1, each as a name then its arguments
    in two pieces, on chunks that carry no ``id``."""
    from openai.types.chat.chat_completion_chunk import (
        ChoiceDelta,
        ChoiceDeltaToolCall,
        ChoiceDeltaToolCallFunction,
    )

    def piece(
        index: int, call_id: str | None = None, name: str | None = None, args: str | None = None
    ) -> Any:
        function = ChoiceDeltaToolCallFunction(name=name, arguments=args)
        entry = ChoiceDeltaToolCall(index=index, id=call_id, function=function, type="function")
        return _Chunk(ChoiceDelta(tool_calls=[entry]))

    return [
        _Chunk(ChoiceDelta(role="assistant")),
        piece(0, "call_1", "weather"),
        piece(0, args='{"city": '),
        piece(0, args='"Paris"}'),
        piece(1, "call_2", "weather"),
        piece(1, args='{"city": '),
        piece(1, args='"Tokyo"}'),
    ]


def _deltas_of_objects(chunks: list[Any]) -> list[Any]:
    from smol_wire import FakeClient
    from smolagents.models import ChatMessage, MessageRole, OpenAIModel

    model = OpenAIModel(model_id="test-model", api_key="sk-test")
    model.client = FakeClient([chunks])
    user = ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "hi"}])
    return list(model.generate_stream([user]))


def test_chunks_without_an_id_stream_as_stock_streams_them(stock: Any) -> None:
    """Chunks that carry no ``id`` (test doubles, or a provider that leaves it out): the
    patched ``generate_stream`` yields stock's deltas, without reading an ``id`` the
    chunk does not have."""
    import streamfix_smolagents

    expected = _deltas_of_objects(chunks_without_id())
    streamfix_smolagents.install()
    try:
        assert _deltas_of_objects(chunks_without_id()) == expected
    finally:
        streamfix_smolagents.uninstall()


def test_patched_chunks_without_an_id_give_both_calls(patched: None) -> None:
    """Patched (the shim, or smolagents itself in direct mode): the two calls of chunks
    that carry no ``id``, each with its own arguments."""
    message = agglomerated(_deltas_of_objects(chunks_without_id()))
    assert calls_of(message) == [
        ("call_1", "weather", PARIS),
        ("call_2", "weather", TOKYO),
    ]
