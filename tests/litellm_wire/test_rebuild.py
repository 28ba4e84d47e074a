"""The chunks the wire writes are litellm's own: ``rebuild`` makes, from the plain chunk the
repairer writes, a ``ModelResponseStream`` that behaves exactly like the one litellm's
stream handler made. Checked on every chunk litellm makes for every scenario of the
corpus (sync stream, stock, and with ``stream_options.include_usage``): the repairer
writes each one back as it is and ``rebuild`` must give litellm's chunk again, field
for field (dump, JSON, the fields pydantic counts as set, types, hidden params).
"""

from __future__ import annotations

from typing import Any

import litellm
import pytest
from wire_http import SCENARIOS, stream

import streamfix
from streamfix._emit import _canonical, _other_choice_fields, _other_delta_fields
from streamfix._fastpath import field
from streamfix.testing import ReplayServer
from streamfix_litellm._wire import rebuild

pytestmark = pytest.mark.shim_only


def _written_back(chunk: Any) -> Any:
    """``chunk`` as the repairer writes a chunk it rewrites (``StreamRepairer._make``,
    the one writer): its top-level fields, the choice's other fields, the delta's other
    fields and its tool-call entries in the repaired stream's form, made by ``rebuild``."""
    repairer = streamfix.StreamRepairer(rebuild=rebuild)
    choice = chunk.choices[0]
    delta = _other_delta_fields(chunk, choice.index)
    if choice.delta.tool_calls:
        delta["tool_calls"] = [_canonical(entry) for entry in choice.delta.tool_calls]
    return repairer._make(
        chunk,
        choice.index,
        delta,
        _other_choice_fields(chunk, choice.index),
        finish=choice.finish_reason,
        usage=field(chunk, "usage"),
    )


def _spelled(value: Any) -> Any:
    """Everything about a pydantic object that a reader of it can tell apart: its type,
    its set fields, its extras and, recursively, their values."""
    if isinstance(value, list):
        return [_spelled(item) for item in value]
    if isinstance(value, dict):
        return {key: _spelled(item) for key, item in value.items()}
    if hasattr(value, "__pydantic_fields_set__"):
        own = {key: _spelled(item) for key, item in vars(value).items()}
        extra = {key: _spelled(item) for key, item in (value.__pydantic_extra__ or {}).items()}
        return (type(value), sorted(value.__pydantic_fields_set__), own, extra)
    return value


@pytest.mark.parametrize("usage", [False, True], ids=["plain", "include_usage"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_a_chunk_written_back_is_litellm_s_own(
    streamfix_server: ReplayServer, name: str, usage: bool
) -> None:
    more = {"stream_options": {"include_usage": True}} if usage else {}
    chunks, _ = stream(streamfix_server, name, **more)
    checked = 0
    for chunk in chunks:
        if not chunk.choices or chunk.choices[0].delta.function_call is not None:
            continue  # no choice to write; H1 is written as tool_calls (R11)
        made = _written_back(chunk)
        assert type(made) is litellm.ModelResponseStream
        assert made.model_dump() == chunk.model_dump()
        assert made.model_dump_json() == chunk.model_dump_json()
        assert _spelled(made) == _spelled(chunk)
        assert made._hidden_params == chunk._hidden_params
        checked += 1
    assert checked


def test_hidden_params_own_except_on_the_finish_chunk(streamfix_server: ReplayServer) -> None:
    """Each written chunk has hidden params of its own, as litellm gives each chunk; the
    chunk carrying the finish reason shares its original's dict, which litellm updates
    with the final usage once the stream has ended (the consumer's copy too)."""
    chunks, _ = stream(streamfix_server, "b1-interleaved")
    middle, last = chunks[1], chunks[-1]
    assert last.choices[0].finish_reason
    assert _written_back(middle)._hidden_params is not middle._hidden_params
    assert _written_back(last)._hidden_params is last._hidden_params
