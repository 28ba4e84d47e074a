"""The openai wire on every fragmentation (issue 26, 4): the hypothesis strategies' streams
served as SSE to the real openai client, read as a framework reads the raw stream (an
index-keyed accumulation, ``sdk.naive``): the response's calls, in order, and
``streamfix.assemble`` of what the SDK yielded equals that of the provider's chunks.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from core.strategies import Streamed, examples, streamed
from hypothesis import HealthCheck, given, settings
from sdk import Served, naive, read

import streamfix

pytestmark = pytest.mark.openai


#: The shim is installed per test by the ``patched`` fixture (tests/openai/conftest.py),
#: around every example.
SETTINGS = settings(
    examples(40),
    suppress_health_check=[
        *examples(40).suppress_health_check,
        HealthCheck.function_scoped_fixture,
    ],
)


def _calls(found: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(c["name"], json.loads(c["arguments"] or "{}")) for c in found]


@pytest.mark.shim_only
@SETTINGS
@given(data=streamed(max_calls=4))
def test_any_fragmentation_through_the_wire(patched: None, data: Streamed) -> None:
    served = Served({"s": data.chunks})
    tools = [{"type": "function", "function": {"name": c.name}} for c in data.response.calls]
    chunks, error = read(served, "for", "s", **({"tools": tools} if tools else {}))
    assert error is None
    assert _calls(naive(chunks)) == [(c.name, c.args) for c in data.response.calls]
    after = streamfix.assemble(chunks)
    assert [(c.name, c.parsed) for c in after.tool_calls] == [
        (c.name, c.args) for c in data.response.calls
    ]
    assert after.content == data.response.content
