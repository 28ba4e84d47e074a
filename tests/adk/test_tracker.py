"""``LinearJsonPathTracker`` against ADK's own ``_JsonPathTracker``: for any arguments
object and any way of cutting its JSON text into fragments, every fragment gives the
same ``PartialArg`` list, and the tracked object ends the same (google-adk 2.13+, where
the fix streams tool-call fragments live; older versions do not use it)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamfix_adk import _model

_CHARS = st.sampled_from(list('ab z"\\/\n\t\r\x01é€😀\ud83d{}[]:,'))
_STRINGS = st.text(alphabet=_CHARS, max_size=40)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-999, 999) | st.floats(-10, 10) | _STRINGS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_STRINGS, inner, max_size=3),
    max_leaves=8,
)

#: The shim's own tracker against ADK's: not run in direct mode.
pytestmark = pytest.mark.shim_only
_ARGUMENTS = st.dictionaries(st.sampled_from(["path", "content", "a b", "é"]), _JSON, max_size=4)


def _dump(args: list[Any]) -> list[dict[str, Any]]:
    return [arg.model_dump(mode="json", exclude_none=True) for arg in args]


@st.composite
def fragmented(draw: st.DrawFn) -> list[str]:
    text = json.dumps(draw(_ARGUMENTS), ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):  # a raw control character inside a string (invalid JSON)
        at = text.find('"', 1)
        if at > 0:
            text = text[: at + 1] + "\n" + text[at + 1 :]
    if draw(st.booleans()):  # a surrogate pair written as two escapes
        text = text.replace("😀", "\\ud83d\\ude00")
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=30)))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=fragmented())
def test_same_partial_args_as_adk_for_any_fragmentation(pieces: list[str]) -> None:
    if not _model.LIVE_CALLS:  # google-adk < 2.10: ADK has no partial-arguments tracker
        return
    from streamfix_adk import _tracker

    adk = _tracker.ADK_TRACKER()
    ours = _tracker.LinearJsonPathTracker()
    for piece in pieces:
        assert _dump(ours.handle_chunk(piece)) == _dump(adk.handle_chunk(piece)), pieces
    assert ours.previous_dict == adk.previous_dict


@pytest.mark.parametrize(
    "pieces",
    [
        ['{"a": "', "\\ud83d", "\\", "ude00 ok", '"}'],  # a cut escape, then a pair
        ['{"a": "x', "\\u00", "e9\\", 'n"', "}"],  # a cut \\u escape, a cut escape
        ['{"a": "x\n', 'y\\"', 'z"}'],  # a raw newline, then escapes
        ['{"a": ["', 'p\\"q', '"], "b": "\\t', 'r"}'],  # strings in a list, then a key
    ],
    ids=["cut-escape-then-pair", "cut-unicode-escape", "raw-control", "list-then-key"],
)
def test_same_partial_args_as_adk_on_edge_cases(pieces: list[str]) -> None:
    test_same_partial_args_as_adk_for_any_fragmentation.hypothesis.inner_test(pieces)  # type: ignore[attr-defined]


def test_escaped_string_fragments_are_not_reparsed(monkeypatch: Any) -> None:
    """The quadratic case: fragments of a long string with escapes. ADK's tracker joins
    and re-parses everything so far for most of them; this one for almost none."""
    if not _model.LIVE_CALLS:  # google-adk < 2.10: ADK has no partial-arguments tracker
        return
    from streamfix_adk import _tracker

    text = json.dumps({"path": "a.py", "content": 'say "hi"\tand a \\ slash é\n' * 200})
    pieces = [text[at : at + 4] for at in range(0, len(text), 4)]
    joins = {"count": 0}
    original = _tracker.ADK_TRACKER._complete_json

    def counted(self: Any) -> str:
        joins["count"] += 1
        return original(self)  # type: ignore[no-any-return]

    monkeypatch.setattr(_tracker.ADK_TRACKER, "_complete_json", counted)
    results = {}
    for name, cls in (("adk", _tracker.ADK_TRACKER), ("linear", _tracker.LinearJsonPathTracker)):
        joins["count"] = 0
        tracker = cls()
        results[name] = ([_dump(tracker.handle_chunk(p)) for p in pieces], joins["count"])
    assert results["linear"][0] == results["adk"][0]
    assert results["adk"][1] > len(pieces) // 3  # ADK: a join of everything, most fragments
    assert results["linear"][1] <= 20  # this one: at the edges of the values only (9)
