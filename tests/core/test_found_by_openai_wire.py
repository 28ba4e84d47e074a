"""Core findings of the openai wire (issue 26, point 2): each test fails on the core as it
is, and states what the spec asks.

- I3 through ``streamfix.repair``: the restarted arguments are passed on, glued to the
  unfinished prefix, so what the wire carries for the call is not a prefix of any JSON
  object (R4; ``_emit``'s own docstring: the arguments "once they stop being one object's
  prefix (B4, C5, I1, I3)" wait until the end). The structural scanner ``_piece`` asks
  does not validate JSON (``_scanner``: "It does not validate JSON"), so
  ``{"location": "Pa{"city": "Paris"}`` reads as an object still open.
- ``usage`` read from the openai SDK's objects is their ``model_dump()``: the fields the
  provider never sent come out as ``None`` (``_normalize._usage``), so the same stream as
  dicts and as ``ChatCompletionChunk`` s assembles to different ``usage``.
"""

from __future__ import annotations

import json
from typing import Any

from support import chunk, tc, to_openai

import streamfix
from streamfix import testing


def _wire_arguments(chunks: list[dict[str, Any]]) -> str:
    """What ``streamfix.repair`` passes on as the arguments of wire index 0 (up to the
    error the stream ends with, if any)."""
    sent = []
    try:
        for out in streamfix.repair(chunks):
            for entry in out["choices"][0]["delta"].get("tool_calls") or ():
                if entry["index"] == 0:
                    sent.append(entry["function"].get("arguments") or "")
    except streamfix.StreamFixError:
        pass
    return "".join(sent)


def _is_json_object_prefix(text: str) -> bool:
    """Whether some text appended to ``text`` makes one JSON object (enough closers, a
    string closed first: the completions a prefix of ``{...}`` can take here)."""
    for tail in ("", '"', '"}', "}", '"}}', "}}", ": 0}", '": 0}', "0}"):
        try:
            value = json.loads(text + tail)
        except ValueError:
            continue
        return isinstance(value, dict)
    return False


def test_i3_the_restart_is_not_passed_on_glued_to_the_prefix() -> None:
    chunks = list(testing.scenarios("openai")["i3-restarted"].chunks)
    sent = _wire_arguments(chunks)
    assert _is_json_object_prefix('{"location": "Pa')  # the first fragment is one
    assert _is_json_object_prefix(sent), sent  # fails: '{"location": "Pa{"city": "Paris"}'


def test_usage_from_sdk_objects_is_what_the_provider_sent() -> None:
    usage = {
        "prompt_tokens": 61,
        "completion_tokens": 16,
        "total_tokens": 77,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
    }
    bodies = [chunk(tc(0, "call_a", "f", "{}"), finish="tool_calls"), chunk(usage=usage)]
    bodies[1]["choices"] = []
    as_dicts = streamfix.assemble(bodies)
    as_objects = streamfix.assemble([to_openai(body) for body in bodies])
    assert as_dicts.usage == usage
    assert as_objects.usage == usage  # fails: completion_tokens_details None, ... added
