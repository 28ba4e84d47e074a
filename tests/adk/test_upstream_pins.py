"""google-adk's own streaming tests, pinned here: stock and patched give the same outcome.

Each test restates one behaviour that google-adk's ``tests/unittests/models/test_litellm.py``
asserts on a streamed ``LiteLlm`` call (the upstream test is named in the docstring), with
this project's own chunks, and runs it twice: on stock ADK and with ``streamfix_adk``
installed. Both must give the asserted outcome, and the patched responses must equal
stock's. Where a behaviour depends on the google-adk version, the threshold comes from
``streamfix_adk._versions``. Pinned elsewhere: the split of a stream at a finish reason
(``test_reason_does_not_carry_over`` and the text-buffer reset, a decided loss) and the
frame's ``text_parts`` in ``test_stock_contract.py``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import pytest
import support
from adk_fakes import ADK_VERSION, MODEL, FakeClient, calls_of, chunk, finals, request, run, tc
from google.adk.models.lite_llm import LiteLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from litellm.types.utils import ModelResponseStream, StreamingChoices, Usage

import streamfix_adk
from streamfix_adk import _versions

#: In direct mode one mode, ``direct``: google-adk itself is patched (upstream-style, no
#: shim), so the pinned outcomes are asserted on it; there is no stock to compare with.
MODES = ["direct"] if support.direct() else ["stock", "patched"]
#: the first tested google-adk release whose stream loop reads grounding metadata
GROUNDING_FROM = (2, 7)


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    """``patched``: the test runs with ``streamfix_adk`` installed (the autouse fixture
    of this folder uninstalls it afterwards); ``direct``: on the patched google-adk."""
    if request.param == "patched":
        streamfix_adk.install()
    return str(request.param)


def _both(chunks: list[Any], *, exclude: frozenset[str] = frozenset()) -> list[LlmResponse]:
    """The responses of the current mode, after checking they equal stock's (but for
    the fields in ``exclude``)."""
    responses = run(LiteLlm, chunks)
    if streamfix_adk.installed():
        streamfix_adk.uninstall()
        stock = run(LiteLlm, chunks)
        streamfix_adk.install()
        assert _dump(responses, exclude) == _dump(stock, exclude)
    return responses


def _dump(responses: list[LlmResponse], exclude: frozenset[str]) -> list[dict[str, Any]]:
    return [r.model_dump(exclude_none=True, exclude=set(exclude)) for r in responses]


def _texts(responses: list[LlmResponse]) -> list[str | None]:
    """The text partial responses, in order (partial call responses left out)."""
    return [
        r.content.parts[0].text
        for r in responses
        if r.partial and r.content and r.content.parts and not r.content.parts[0].function_call
    ]


def _partial_calls(responses: list[LlmResponse]) -> list[LlmResponse]:
    return [r for r in responses if r.partial and calls_of(r)]


def _only(responses: list[LlmResponse]) -> LlmResponse:
    (final,) = finals(responses)
    return final


def _call_stream(*fragments: str, call_id: str = "call_w", name: str = "lookup") -> list[Any]:
    """One call at index 0, its arguments in ``fragments``, then ``tool_calls``."""
    head, *rest = fragments
    return [
        chunk(tc(0, call_id, name, head)),
        *(chunk(tc(0, args=fragment)) for fragment in rest),
        chunk(finish="tool_calls"),
    ]


def test_text_partials_then_one_final_with_the_text_and_the_call(mode: str) -> None:
    """``test_generate_content_async_stream_tool_call_includes_aggregated_text``: text
    partials as sent, then one final holding the joined text and the call (finish
    ``STOP`` for the provider's ``tool_use``); calls stream as partials from 2.10."""
    chunks = [
        chunk(content="one, "),
        chunk(content="two, "),
        chunk(content="go:"),
        chunk(tc(0, "call_t", "lookup", '{"q": "wea')),
        chunk(tc(0, args='ther"}')),
        chunk(finish="tool_use"),
    ]
    responses = _both(chunks)
    assert _texts(responses) == ["one, ", "two, ", "go:"]
    assert bool(_partial_calls(responses)) == _versions.live_calls()
    final = _only(responses)
    assert final.content is not None and final.content.parts
    assert final.content.parts[0].text == "one, two, go:"
    assert calls_of(final) == [("call_t", "lookup", {"q": "weather"})]
    assert final.finish_reason == types.FinishReason.STOP
    assert final.model_version == "test-model"
    assert responses[-1] is final


def test_text_then_stop_gives_one_final_with_stop(mode: str) -> None:
    """``test_generate_content_async_stream_sets_finish_reason``."""
    responses = _both([chunk(content="Good "), chunk(content="day"), chunk(finish="stop")])
    final = responses[-1]
    assert not final.partial
    assert final.finish_reason == types.FinishReason.STOP
    assert final.content is not None and final.content.parts
    assert final.content.parts[0].text == "Good day"


def test_grounding_metadata_of_the_last_chunk_reaches_the_final(mode: str) -> None:
    """``test_generate_content_async_stream_grounding_metadata``."""
    last = chunk(finish="stop")
    last.vertex_ai_grounding_metadata = {
        "grounding_chunks": [{"web": {"uri": "https://grounded.test", "title": "G"}}]
    }
    responses = _both([chunk(content="Grounded."), last])
    final = responses[-1]
    assert not final.partial
    if ADK_VERSION < GROUNDING_FROM:
        assert final.grounding_metadata is None  # not read yet: stock and patched alike
        return
    assert final.grounding_metadata is not None
    assert final.grounding_metadata.grounding_chunks is not None
    web = final.grounding_metadata.grounding_chunks[0].web
    assert web is not None and web.uri == "https://grounded.test"


def _usage_chunk() -> ModelResponseStream:
    usage = Usage(
        prompt_tokens=12,
        completion_tokens=6,
        total_tokens=18,
        completion_tokens_details={"reasoning_tokens": 4},
        prompt_tokens_details={"cached_tokens": 9},
    )
    return ModelResponseStream(usage=usage, choices=[StreamingChoices(finish_reason=None)])


def test_usage_after_the_finish_reaches_the_final(mode: str) -> None:
    """``test_generate_content_async_stream_with_reasoning_tokens`` and
    ``..._with_usage_metadata``: a usage chunk after the finish reason, reasoning and
    cached tokens included, is on the final response."""
    chunks = [*_call_stream('{"q": ', '"x"}')[:-1], chunk(finish="tool_calls"), _usage_chunk()]
    final = _only(_both(chunks))
    usage = final.usage_metadata
    assert usage is not None
    assert (usage.prompt_token_count, usage.candidates_token_count) == (12, 6)
    assert usage.total_token_count == 18
    assert usage.thoughts_token_count == 4
    assert usage.cached_content_token_count == 9
    assert calls_of(final) == [("call_w", "lookup", {"q": "x"})]


def test_two_calls_at_their_own_indices(mode: str) -> None:
    """``test_generate_content_async_multiple_function_calls``."""
    chunks = [
        chunk(tc(0, "call_a", "first", '{"n": "o')),
        chunk(tc(0, args='ne"}')),
        chunk(tc(1, "call_b", "second", '{"n": "t')),
        chunk(tc(1, args='wo"}')),
        chunk(finish="tool_calls"),
    ]
    final = _both(chunks)[-1]
    assert calls_of(final) == [
        ("call_a", "first", {"n": "one"}),
        ("call_b", "second", {"n": "two"}),
    ]


def test_two_calls_at_index_zero_without_ids_get_ids_0_and_1(mode: str) -> None:
    """``test_generate_content_async_non_compliant_multiple_function_calls``: two calls
    both at index 0, no ids, and ``stop``: ADK numbers them ``"0"`` and ``"1"``."""
    chunks = [
        chunk(tc(0, None, "first", '{"n": "o')),
        chunk(tc(0, args='ne"}')),
        chunk(tc(0, None, "second", '{"n": "t')),
        chunk(tc(0, args='wo"}')),
        chunk(finish="stop"),
    ]
    final = _both(chunks)[-1]
    assert calls_of(final) == [("0", "first", {"n": "one"}), ("1", "second", {"n": "two"})]


def test_an_empty_fragment_adds_no_call(mode: str) -> None:
    """``test_generate_content_async_stream_with_empty_chunk``."""
    chunks = _call_stream('{"q":', ' "y"}', "")
    responses = _both(chunks)
    if not _versions.live_calls():
        assert len(responses) == 1
    assert calls_of(_only(responses)) == [("call_w", "lookup", {"q": "y"})]


def test_arguments_from_many_fragments(mode: str) -> None:
    """``test_streaming_tool_call_args_assembled_from_many_fragments``."""
    arguments = '{"where": "Lyon", "opts": {"r": 3, "tags": ["x{}", "q\\"z"]}}'
    cuts = [0, 3, 9, 10, 17, 21, 30, 33, 41, 48, 55, len(arguments)]
    fragments = [arguments[a:b] for a, b in itertools.pairwise(cuts)]
    responses = _both(_call_stream(*fragments))
    if not _versions.live_calls():
        assert len(responses) == 1
    assert calls_of(_only(responses)) == [("call_w", "lookup", json.loads(arguments))]


def test_a_brace_inside_a_string_does_not_end_the_call(mode: str) -> None:
    """``test_streaming_tool_call_brace_in_string_does_not_falsely_complete``: two calls
    at index 0, one character at a time, the first with ``{}`` inside a string."""
    first, second = '{"s": "p{q}r"}', '{"k": 2}'
    chunks = [
        *_call_stream(*first, call_id="call_1", name="one")[:-1],
        *_call_stream(*second, call_id="call_2", name="two"),
    ]
    final = _only(_both(chunks))
    assert {name: args for _, name, args in calls_of(final)} == {
        "one": json.loads(first),
        "two": json.loads(second),
    }


def test_text_from_many_fragments(mode: str) -> None:
    """``test_streaming_text_assembled_from_many_fragments``: a partial per fragment, one
    final with all the text."""
    text = "".join(f"w{i} " for i in range(120))
    fragments = [text[i : i + 5] for i in range(0, len(text), 5)]
    responses = _both([*(chunk(content=f) for f in fragments), chunk(finish="stop")])
    assert _texts(responses) == fragments
    final = _only(responses)
    assert final.content is not None and final.content.parts
    assert final.content.parts[0].text == text


def test_a_truncated_call_gives_one_max_tokens_error_response(mode: str) -> None:
    """``test_streaming_tool_call_truncated_by_max_tokens``: arguments cut by ``length``
    give one error response, no call. Its message is the shim's own where ADK's loop
    cannot build it (older versions raise): it names the call and the limit."""
    chunks = [chunk(tc(0, "call_x", "lookup", '{"q":')), chunk(finish="length")]
    responses = _both(chunks, exclude=frozenset({"error_message"}))
    (response,) = finals(responses)
    assert not calls_of(response)
    assert response.error_code == types.FinishReason.MAX_TOKENS
    assert response.finish_reason == types.FinishReason.MAX_TOKENS
    assert response.error_message and "max_output_tokens" in response.error_message


def test_a_complete_call_with_length_is_kept_with_max_tokens(mode: str) -> None:
    """``test_streaming_tool_call_complete_with_length_finish_reason``."""
    responses = _both([chunk(tc(0, "call_y", "lookup", '{"q": "z"}')), chunk(finish="length")])
    final = _only(responses)
    assert calls_of(final) == [("call_y", "lookup", {"q": "z"})]
    assert final.finish_reason == types.FinishReason.MAX_TOKENS
    assert final.error_code == types.FinishReason.MAX_TOKENS


def test_text_cut_by_length_is_final_with_max_tokens(mode: str) -> None:
    """``test_streaming_text_truncated_by_max_tokens``."""
    responses = _both([chunk(content="Once upon a"), chunk(finish="length")])
    assert _texts(responses) == ["Once upon a"]
    final = _only(responses)
    assert final.finish_reason == types.FinishReason.MAX_TOKENS
    assert final.error_code == types.FinishReason.MAX_TOKENS
    assert final.error_message and "Maximum tokens reached" in final.error_message


def test_the_frame_buffers_hold_the_call_and_text_fragments(mode: str) -> None:
    """``test_streaming_buffers_hold_fragments_instead_of_growing_copies``: suspended at
    the first text partial after a call's fragments, the generator's frame is ADK's loop
    and its buffers hold what stock's hold (the call's ``args_parts`` fragments and the
    ``text_parts``; from ``_versions.FORWARDED_CALLS_FROM``)."""
    fragments = ['{"a": ', "1, ", '"b": 2}']
    chunks = [*_call_stream(*fragments)[:-1], chunk(content="alpha "), chunk(content="beta")]

    async def buffers() -> dict[str, Any]:
        llm = LiteLlm(model=MODEL, llm_client=FakeClient(chunks))
        responses = llm.generate_content_async(request(), stream=True)
        try:
            while True:
                response = await responses.__anext__()
                if not calls_of(response):
                    break
            seen = responses.ag_frame.f_locals
            calls = {
                str(index): {k: v for k, v in call.items() if k in _CALL_BUFFERS}
                for index, call in (seen.get("function_calls") or {}).items()
            }
            return {"text_parts": seen.get("text_parts"), "function_calls": calls}
        finally:
            await responses.aclose()

    got = asyncio.run(buffers())
    if not _versions.forwarded_calls():
        # 1.x: no such test upstream; its loop re-parses the arguments at every fragment,
        # so the fixed path sends it each call once the stream has ended
        if not streamfix_adk.installed():
            assert got["function_calls"]["0"]["args"] == "".join(fragments)
        return
    if streamfix_adk.installed():
        streamfix_adk.uninstall()
        assert got == asyncio.run(buffers())
        streamfix_adk.install()
    assert got["text_parts"] == ["alpha "]
    assert got["function_calls"]["0"]["args_parts"] == fragments


_CALL_BUFFERS = ("name", "id", "args", "args_parts")


def test_the_client_gets_stocks_arguments(mode: str) -> None:
    """``test_acompletion_additional_args``: the ``llm_client`` is called once, with
    ADK's own arguments (``stream=True``, the model, the messages)."""
    client = FakeClient([chunk(content="hi"), chunk(finish="stop")])

    async def collect() -> list[LlmResponse]:
        llm = LiteLlm(model=MODEL, llm_client=client, temperature=0.2)
        return [r async for r in llm.generate_content_async(request(), stream=True)]

    asyncio.run(collect())
    (kwargs,) = client.calls
    assert kwargs["stream"] is True and kwargs["model"] == MODEL
    assert kwargs["temperature"] == 0.2
    assert kwargs["messages"][0]["content"] == "go"
    if mode == "patched":
        streamfix_adk.uninstall()
        stock = FakeClient([chunk(content="hi"), chunk(finish="stop")])
        client = stock
        asyncio.run(collect())
        assert stock.calls == [kwargs]


# --- ADK's own handling of arguments it cannot parse strictly ---------------------------


@pytest.mark.parametrize("finish", ["tool_calls", "length"])
def test_non_strict_arguments_repaired_where_adk_repairs_them(mode: str, finish: str) -> None:
    """``test_streaming_tool_call_repaired_with_*_finish_reason_warns_once`` (2.13):
    unquoted keys. Where ADK's loop repairs them into the call (from 2.7; stock loses
    nothing), patched gives the same responses; 1.x stock raises or drops the call, and
    patched reports it (the core's malformed-arguments response)."""
    chunks = [chunk(tc(0, "call_r", "lookup", "{q: ")), chunk(tc(0, args='"value"}'))]
    chunks.append(chunk(finish=finish))
    if _versions.forwarded_calls():
        final = _only(_both(chunks))
        assert calls_of(final) == [("call_r", "lookup", {"q": "value"})]
        return
    if mode == "stock":  # 1.x: JSONDecodeError with tool_calls; with length, no call
        try:
            responses = run(LiteLlm, chunks)
        except ValueError:
            return
        assert not any(calls_of(r) for r in finals(responses))
        return
    (final,) = finals(run(LiteLlm, chunks))
    assert final.error_code == types.FinishReason.MALFORMED_FUNCTION_CALL
    assert not calls_of(final)


@pytest.mark.parametrize("finish", ["tool_calls", "length"])
def test_non_object_arguments_are_one_error_response(mode: str, finish: str) -> None:
    """``test_streaming_tool_call_non_object_json_arguments_*`` (2.13): arguments that
    are JSON but not an object. From 2.10 ADK's own error response (the text kept; one
    response, the shim adds none), patched as stock; before, stock raises
    (``ValidationError``) and patched gives the error response."""
    chunks = [
        chunk(content="Here:"),
        chunk(tc(0, "call_n", "lookup", "[1, ")),
        chunk(tc(0, args="2]")),
        chunk(finish=finish),
    ]
    if _versions.malformed_settled():
        responses = _both(chunks)
    elif mode == "stock":
        with pytest.raises(ValueError):  # pydantic's ValidationError
            run(LiteLlm, chunks)
        return
    else:
        responses = run(LiteLlm, chunks)
    errors = [r for r in finals(responses) if r.error_code]
    assert len(errors) == 1
    assert errors[0].error_code in (
        types.FinishReason.MALFORMED_FUNCTION_CALL,
        types.FinishReason.MAX_TOKENS,
    )
    assert not any(calls_of(r) for r in finals(responses))


def test_several_choices_log_one_error_and_keep_the_first(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """``test_generate_content_async_stream_multiple_choices_logs_error_once``: choice 0
    alone is kept; from 2.10 ADK logs one error for the other choice, patched as stock
    (before, stock logs nothing and glues the choices' text)."""
    chunks = [
        chunk(content="Hello"),
        chunk(content="Other", choice=1),
        chunk(content=" candidate", choice=1),
        chunk(finish="stop"),
    ]
    with caplog.at_level("ERROR"):
        responses = run(LiteLlm, chunks)
    final = [r for r in responses if not r.partial][-1]
    assert final.content is not None and final.content.parts
    # before 2.10 stock glues choice 1's text into choice 0's (E7): the patch's fix
    glued = mode == "stock" and not _versions.multiple_choices_logged()
    assert final.content.parts[0].text == ("HelloOther candidate" if glued else "Hello")
    logged = [r for r in caplog.records if "Multiple choices found in streaming" in r.message]
    assert len(logged) == (1 if _versions.multiple_choices_logged() else 0)
