"""litellm's own tool-call joining tests, pinned here: fragments joined by index, in order.

litellm's ``tests/test_litellm/litellm_core_utils/test_streaming_chunk_builder_utils.py``
(not shipped in its sdist) asserts that ``ChunkProcessor.get_combined_tool_content`` joins
many argument fragments of parallel calls, interleaved by index, each call's in stream
order; the arguments are plain text, not JSON, and are handed on as sent; a call that got
a header and no fragment gets ``"{}"``; custom (freeform) tool calls are joined the same
way. Its seven ``get_combined_tool_content`` tests (each named in a docstring here; three
of them an earlier builder patch broke) are restated with this project's own fragments and
run three ways:

- ``ChunkProcessor.get_combined_tool_content`` itself: stock litellm, or in direct mode
  (``STREAMFIX_DIRECT=1``, ``nox -s upstream_patch``) litellm patched with
  ``docs/upstream/litellm-builder*.patch``, which must keep these outcomes;
- ``litellm.stream_chunk_builder`` on the same fragments, stock and patched (the shim
  installed, or the patched litellm): the same calls, and patched equal to stock.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

Calls = list[tuple[str, str, str]]
#: One shape: the ``delta.tool_calls`` entries, one chunk each, and the calls they make.
Shape = tuple[list[Any], Calls]


def _entry(
    index: int, arguments: str, call_id: str | None = None, name: str | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if call_id is not None:
        entry.update(id=call_id, type="function", function={"name": name})
    return entry


def _object_entry(
    index: int, arguments: str, call_id: str | None = None, name: str | None = None
) -> Any:
    from litellm.types.utils import ChatCompletionDeltaToolCall, Function

    if call_id is None:
        return ChatCompletionDeltaToolCall(index=index, function=Function(arguments=arguments))
    return ChatCompletionDeltaToolCall(
        id=call_id, type="function", index=index, function=Function(name=name, arguments="")
    )


def interleaved_dict_fragments() -> Shape:
    """upstream: ``test_get_combined_tool_content_joins_many_dict_shaped_argument_``
    ``fragments_in_order``. Two calls' fragments alternate for hundreds of chunks; a
    third call never gets any."""
    left = [f"p{n}," for n in range(250)]
    right = [f"q{n}," for n in range(250)]
    entries = [
        _entry(0, "", "call_left", "lookup_left"),
        _entry(1, "", "call_right", "lookup_right"),
        _entry(2, "", "call_empty", "lookup_empty"),
    ]
    for one, two in zip(left, right, strict=True):
        entries += [_entry(0, one), _entry(1, two)]
    calls = [
        ("call_left", "lookup_left", "".join(left)),
        ("call_right", "lookup_right", "".join(right)),
        ("call_empty", "lookup_empty", "{}"),
    ]
    return entries, calls


def many_parallel_calls() -> Shape:
    """upstream: ``test_get_combined_tool_content_joins_fragments_across_many_parallel_tool_calls``.
    Thirty calls' headers, then each call's fragments in turn, round after round."""
    indices = range(30)
    entries = [_entry(i, "", f"call_{i}", f"fetch_{i}") for i in indices]
    entries += [_entry(i, f"<{i}:{round_}>") for round_ in range(4) for i in indices]
    calls = [(f"call_{i}", f"fetch_{i}", "".join(f"<{i}:{r}>" for r in range(4))) for i in indices]
    return entries, calls


def interleaved_object_fragments() -> Shape:
    """upstream: ``test_get_combined_tool_content_joins_many_object_shaped_argument_``
    ``fragments_in_order``. The first shape's two calls as litellm's
    ``ChatCompletionDeltaToolCall`` objects."""
    left = [f"m{n}/" for n in range(250)]
    right = [f"n{n}/" for n in range(250)]
    entries = [
        _object_entry(0, "", "call_m", "scan_m"),
        _object_entry(1, "", "call_n", "scan_n"),
    ]
    for one, two in zip(left, right, strict=True):
        entries += [_object_entry(0, one), _object_entry(1, two)]
    return entries, [("call_m", "scan_m", "".join(left)), ("call_n", "scan_n", "".join(right))]


SHAPES: dict[str, Callable[[], Shape]] = {
    "interleaved-dict-fragments": interleaved_dict_fragments,
    "many-parallel-calls": many_parallel_calls,
    "interleaved-object-fragments": interleaved_object_fragments,
}


def whole_calls_at_their_own_index() -> Shape:
    """upstream: ``test_get_combined_tool_content``. Three whole calls, indices 0 to 2."""
    cities = ["Lyon", "Oslo", "Quito"]
    entries = [_object_entry(i, "", f"call_{city}", "get_weather") for i, city in enumerate(cities)]
    for entry, city in zip(entries, cities, strict=True):
        entry.function.arguments = f'{{"city": "{city}"}}'
    calls = [(f"call_{city}", "get_weather", f'{{"city": "{city}"}}') for city in cities]
    return entries, calls


#: litellm's other ``get_combined_tool_content`` tests: custom (freeform) tool calls, read by
#: ``get_combined_tool_content`` only (the ``stream_chunk_builder`` shapes above are function
#: calls). Each is its entries and the ``model_dump()`` of the calls they make.
CustomShape = tuple[list[Any], list[dict[str, Any]]]


def custom_call_in_fragments() -> CustomShape:
    """upstream: ``test_get_combined_tool_content_custom_tool_call``."""
    entries: list[Any] = [
        {"index": 0, "id": "call_p", "type": "custom", "custom": {"name": "Patch", "input": ""}},
        {"index": 0, "custom": {"input": "--- a\n"}},
        {"index": 0, "custom": {"input": "+++ b\n"}},
    ]
    dump = {
        "id": "call_p",
        "type": "custom",
        "custom": {"name": "Patch", "input": "--- a\n+++ b\n"},
    }
    return entries, [dump]


def custom_call_without_type() -> CustomShape:
    """upstream: ``test_get_combined_tool_content_custom_tool_call_without_type_field``."""
    entries: list[Any] = [
        {"index": 0, "id": "call_q", "custom": {"name": "Query", "input": "SELECT"}},
        {"index": 0, "custom": {"input": " 1"}},
    ]
    dump = {"id": "call_q", "type": "custom", "custom": {"name": "Query", "input": "SELECT 1"}}
    return entries, [dump]


def custom_inputs_interleaved() -> CustomShape:
    """upstream: ``test_get_combined_tool_content_joins_many_custom_tool_input_fragments_``
    ``in_order``. A dict-shaped and an object-shaped custom call, fragments alternating."""
    from types import SimpleNamespace

    left = [f"l{n};" for n in range(150)]
    right = [f"r{n};" for n in range(150)]
    entries: list[Any] = [
        {"index": 0, "id": "call_l", "type": "custom", "custom": {"name": "edit"}},
        SimpleNamespace(
            index=1, id="call_r", type="custom", custom=SimpleNamespace(name="run", input="")
        ),
    ]
    for one, two in zip(left, right, strict=True):
        entries += [
            {"index": 0, "custom": {"input": one}},
            SimpleNamespace(index=1, custom=SimpleNamespace(input=two)),
        ]
    dumps = [
        {"id": "call_l", "type": "custom", "custom": {"name": "edit", "input": "".join(left)}},
        {"id": "call_r", "type": "custom", "custom": {"name": "run", "input": "".join(right)}},
    ]
    return entries, dumps


CUSTOM_SHAPES: dict[str, Callable[[], CustomShape]] = {
    "custom-call-in-fragments": custom_call_in_fragments,
    "custom-call-without-type": custom_call_without_type,
    "custom-inputs-interleaved": custom_inputs_interleaved,
}


def _calls(tool_calls: Any) -> Calls:
    return [(c.id, c.function.name, c.function.arguments) for c in tool_calls or ()]


def _combined(entries: list[Any]) -> Any:
    from litellm.litellm_core_utils.streaming_chunk_builder_utils import ChunkProcessor

    chunks = [{"choices": [{"delta": {"tool_calls": [entry]}}]} for entry in entries]
    return ChunkProcessor.__new__(ChunkProcessor).get_combined_tool_content(chunks)


@pytest.mark.parametrize("shape", [*SHAPES, "whole-calls-at-their-own-index"])
def test_get_combined_tool_content(shape: str) -> None:
    """The upstream tests as they are written: ``get_combined_tool_content`` on chunks of
    one ``delta.tool_calls`` entry each (no shim patches it; in direct mode, patched)."""
    make = SHAPES.get(shape, whole_calls_at_their_own_index)
    entries, calls = make()
    assert _calls(_combined(entries)) == calls


def _custom_calls() -> Any:
    """litellm's custom tool-call type, or ``None`` for a release without custom tool
    calls (1.80 has none): there upstream's custom-call tests pin nothing that exists."""
    import litellm.types.utils

    return getattr(litellm.types.utils, "ChatCompletionMessageCustomToolCall", None)


if _custom_calls() is not None:  # defined only where the feature exists (not a skip)

    @pytest.mark.parametrize("shape", CUSTOM_SHAPES)
    def test_get_combined_tool_content_custom_calls(shape: str) -> None:
        entries, dumps = CUSTOM_SHAPES[shape]()
        combined = _combined(entries)
        assert all(isinstance(call, _custom_calls()) for call in combined)
        assert [call.model_dump() for call in combined] == dumps


def _stream(entries: list[Any]) -> list[Any]:
    from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices

    def chunk(tool_calls: list[Any] | None, finish_reason: str | None = None, **delta: Any) -> Any:
        return ModelResponseStream(
            id="chatcmpl-pins",
            created=1700000000,
            model="gpt-4o",
            object="chat.completion.chunk",
            choices=[
                StreamingChoices(
                    index=0,
                    finish_reason=finish_reason,
                    delta=Delta(tool_calls=tool_calls, **delta),
                )
            ],
        )

    return [
        chunk(None, role="assistant", content=""),
        *(chunk([entry]) for entry in entries),
        chunk(None, finish_reason="tool_calls"),
    ]


@pytest.fixture(params=["stock", "patched"])
def build(request: pytest.FixtureRequest) -> Iterator[Callable[[list[Any]], Calls]]:
    """``litellm.stream_chunk_builder``'s calls in the current mode; patched, checked
    equal to stock's on the same chunks."""
    import streamfix_litellm

    def run(entries: list[Any]) -> Calls:
        import litellm

        response = litellm.stream_chunk_builder(_stream(entries))
        built = _calls(response.choices[0].message.tool_calls)
        if request.param == "patched":
            streamfix_litellm.uninstall()
            stock_built = litellm.stream_chunk_builder(_stream(entries))
            stock = _calls(stock_built.choices[0].message.tool_calls)
            streamfix_litellm.install()
            assert built == stock
        return built

    if request.param == "patched":
        streamfix_litellm.install()
    try:
        yield run
    finally:
        streamfix_litellm.uninstall()


@pytest.mark.shim_only
@pytest.mark.parametrize("shape", SHAPES)
def test_stream_chunk_builder(build: Callable[[list[Any]], Calls], shape: str) -> None:
    """The same fragments through ``litellm.stream_chunk_builder``: the same calls,
    the text handed on as sent (stock passes it through; the shim must not raise)."""
    entries, calls = SHAPES[shape]()
    assert build(entries) == calls


@pytest.mark.parametrize("shape", SHAPES)
def test_stream_chunk_builder_patched(patched: object, shape: str) -> None:
    """``litellm.stream_chunk_builder`` on the fragments with the ``patched`` fixture
    (the shim, or in direct mode the patched litellm itself)."""
    import litellm

    entries, calls = SHAPES[shape]()
    built = litellm.stream_chunk_builder(_stream(entries)).choices[0].message.tool_calls
    assert _calls(built) == calls
