"""The litellm wire on every fragmentation (issue 26, 4): the hypothesis strategies'
streams served by the replay server, read through ``litellm.completion(stream=True)``
with the wire installed: an index-keyed consumer (``wire_http.naive``) builds the
response's calls, and ``streamfix.assemble`` of what litellm yielded equals the response.

Not the index-less dialect (B6): litellm numbers an entry without ``index`` by its place
in its chunk before the wire sees it, so a later chunk's continuation of the second call
arrives as index 0, the first call's; what litellm changed the wire cannot know
(``test_b6_is_lost_inside_litellm_before_the_wire`` pins it).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import litellm
import pytest
from core.strategies import DIALECTS, Streamed, examples, streamed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wire_http import API_KEY, USER, naive

import streamfix
from streamfix.testing import ReplayServer, Scenario

pytestmark = [pytest.mark.litellm, pytest.mark.shim_only]

_BASE = examples(15)
#: ``patched`` (conftest) installs the wire around every example.
SETTINGS = settings(
    _BASE,
    suppress_health_check=[*_BASE.suppress_health_check, HealthCheck.function_scoped_fixture],
)
_NAMES = (f"prop{n}" for n in itertools.count())


def _served(server: ReplayServer, data: Streamed) -> str:
    name = next(_NAMES)
    chunks = tuple(json.loads(json.dumps(body)) for body in data.chunks)
    server.app.scenarios[name] = Scenario(name, "", "", "openai", chunks)  # type: ignore[index]
    return name


@pytest.mark.parametrize("dialect", [d for d in DIALECTS if d != "index_less"])
@SETTINGS
@given(draw=st.data())
def test_any_fragmentation_through_the_wire(
    streamfix_server: ReplayServer, patched: None, dialect: str, draw: st.DataObject
) -> None:
    data: Streamed = draw.draw(streamed(dialect, max_calls=4))
    name = _served(streamfix_server, data)
    tools: list[dict[str, Any]] = [
        {"type": "function", "function": {"name": c.name, "parameters": {}}}
        for c in data.response.calls
    ]
    chunks = list(
        litellm.completion(
            model=f"openai/{name}",
            api_base=streamfix_server.openai_base_url,
            api_key=API_KEY,
            messages=USER,
            stream=True,
            **({"tools": tools} if tools else {}),
        )
    )
    expected = [(c.name, c.args) for c in data.response.calls]
    assert [(n, a) for _, n, a in naive(chunks)] == expected
    after = streamfix.assemble(chunks)
    assert [(c.name, c.parsed) for c in after.tool_calls] == expected
    assert after.content == data.response.content


def test_b6_is_lost_inside_litellm_before_the_wire(
    streamfix_server: ReplayServer, patched: None
) -> None:
    """Two index-less calls, the second's arguments in a later chunk: litellm gives that
    continuation index 0 (its place in the chunk), so it reaches the wire as a new value
    for the first call. Stock litellm loses it too (its builder glues it to call 0)."""
    chunks = (
        {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
         "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [
             {"id": "call_0", "type": "function",
              "function": {"name": "read_file", "arguments": "{}"}},
             {"id": "call_1", "type": "function",
              "function": {"name": "read_file", "arguments": ""}}]}}]},
        {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
         "choices": [{"index": 0, "delta": {"tool_calls": [
             {"function": {"arguments": '{"path": "b"}'}}]}}]},
        {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
         "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    )  # fmt: skip
    assert [c.parsed for c in streamfix.assemble(list(chunks)).tool_calls] == [{}, {"path": "b"}]
    streamfix_server.app.scenarios["b6-through-litellm"] = Scenario(  # type: ignore[index]
        "b6-through-litellm", "B6", "", "openai", chunks
    )
    got = list(
        litellm.completion(
            model="openai/b6-through-litellm",
            api_base=streamfix_server.openai_base_url,
            api_key=API_KEY,
            messages=USER,
            stream=True,
        )
    )
    assert [a for _, _, a in naive(got)] != [{}, {"path": "b"}]
