"""Found while wiring litellm to the repaired stream (issue 26, point 3): the repaired
stream passes on argument text that is not the prefix of any JSON object.

wire-shapes R4/R6 and ``_emit``'s own contract: a call's argument pieces go out "while the
text is the prefix of one JSON object", and "none once the text is not such a prefix"
(the rest waits for the end). I3 (arguments that restart: an unfinished prefix, then the
whole value again) is sent on live anyway when the restart does not break the
structural scanner's view: ``{"location": "Pa`` then ``{"city": "Paris"}`` makes
``{"location": "Pa{"city": "Paris"}``, which the scanner reads as strings and bare
characters of one object still open (it tracks strings and depth, not the grammar: a
bare ``city`` after a string value is no error to it). So the consumer is handed the
invalid text live, before the stream ends in ``MalformedToolCallError``. Expected: the
restart piece waits (frozen), the wire carries ``{"location": "Pa`` alone, then the
error. (Through litellm's wire the same: tests/litellm_wire, i3-restarted.)
"""

from __future__ import annotations

from typing import Any

import pytest
from support import chunk, tc

import streamfix


def _arguments_passed_on(chunks: list[dict[str, Any]]) -> tuple[str, BaseException | None]:
    out: list[dict[str, Any]] = []
    error: BaseException | None = None
    try:
        for repaired in streamfix.repair(chunks, ["get_weather"]):
            out.append(repaired)
    except streamfix.StreamFixError as raised:
        error = raised
    pieces = [
        entry["function"].get("arguments", "")
        for repaired in out
        for entry in repaired["choices"][0]["delta"].get("tool_calls") or []
    ]
    return "".join(pieces), error


@pytest.mark.parametrize(
    "first",
    [
        '{"location": "Pa',  # inside a string value
        '{"loc',  # inside a key
    ],
)
def test_a_restart_that_is_not_a_json_prefix_is_not_passed_on(first: str) -> None:
    chunks = [
        chunk(tc(0, "call_a", "get_weather", first, typed="with id")),
        chunk(tc(0, args='{"city": "Paris"}')),
        chunk(finish="tool_calls"),
    ]
    passed, error = _arguments_passed_on(chunks)
    assert isinstance(error, streamfix.MalformedToolCallError)  # the prefix already went out
    assert passed == first  # found: first + '{"city": "Paris"}', not a JSON prefix
