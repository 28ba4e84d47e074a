"""ADK's partial-arguments tracker without its quadratic case (google-adk 2.13+).

``google.adk.utils.streaming_utils._JsonPathTracker.handle_chunk`` turns each streamed
fragment of a call's arguments into ``PartialArg`` diffs. A fragment inside a string that
holds no quote or backslash takes its fast path; any other fragment re-joins and re-parses
all the arguments received so far and diffs the whole object (its slow path). A long
string value with escapes (source code, quoted text) sends most fragments down the slow
path: 200 KB of arguments cost ADK about 10 s of CPU.

:class:`LinearJsonPathTracker` is ADK's class with one more fast path, for the case that
makes it quadratic: a fragment inside the string being streamed that holds escapes but
does not end the string. The answer there is known without re-parsing: one ``PartialArg``
for the string's path, the fragment's decoded text, ``will_continue=True``; the state is
left as ADK's slow path leaves it (the last completed text is kept lazily, joined only if
ADK's slow path compares it). Anything else (a quote that ends the string, a fragment
ending inside an escape, a surrogate pair split across fragments, text outside strings)
runs ADK's own code. ``tests/adk/test_tracker.py`` checks the outputs against ADK's own
tracker on random fragmentations.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from google.adk.utils import streaming_utils
from google.genai import types

__all__ = ["ADK_TRACKER", "LinearJsonPathTracker", "linear_tracking", "restore"]

#: ADK's own class, as found at import (before any streamfix stream stood in for it).
ADK_TRACKER: Any = streaming_utils._JsonPathTracker

#: Raw string text: complete characters and escapes (no unescaped quote, no raw control
#: character), then perhaps an escape cut off at the end of the fragment.
_STRING_TEXT = re.compile(
    r'((?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*)(\\(?:u[0-9a-fA-F]{0,3})?)?\Z'
)
_CONTROL = re.compile(r"[\x00-\x1f]")


class _Joined:
    """The completed text ADK's slow path would have kept: joined only if compared."""

    __slots__ = ("_count", "_parts", "_suffix")

    def __init__(self, parts: list[str], suffix: str) -> None:
        self._parts = parts
        self._count = len(parts)
        self._suffix = suffix

    def __eq__(self, other: object) -> bool:
        return "".join(self._parts[: self._count]) + self._suffix == other

    __hash__ = None  # type: ignore[assignment]


class LinearJsonPathTracker(ADK_TRACKER):  # type: ignore[misc]
    """``_JsonPathTracker`` with the escaped-string case in linear time (module docs).

    ``_path`` is the string being streamed when this class knows the answer for more of
    it; ``_pending`` its raw text not yet reported (an escape cut off at a fragment's
    end: ADK reports nothing for it, then everything since on the next fragment)."""

    _path: str | None = None
    _pending = ""
    #: A raw control character went into a string on ADK's own fast path: the text no
    #: longer parses, so ADK's slow path yields nothing from here on; so must this one.
    _unparseable = False

    def handle_chunk(self, chunk: str) -> list[types.PartialArg]:
        path = self._path
        if (
            not chunk
            or path is None
            or self.need_reset
            or self._unparseable
            or not self._in_string
            or self._open_string_path != path
        ):
            return self._adk(chunk)
        if not self._pending and "\\" not in chunk and '"' not in chunk:
            return self._adk(chunk)  # ADK's own fast path
        match = _STRING_TEXT.match(self._pending + chunk)
        if match is None:
            return self._adk(chunk)
        text, cut = match.groups()
        if cut is None:
            parsed = streaming_utils._parse_json_path(path)
            current, found = streaming_utils._get_value_by_json_path(self.previous_dict, parsed)
            delta = json.loads(f'"{text}"')
            if not found or not isinstance(current, str) or _joins_a_pair(current, delta):
                return self._adk(chunk)  # ADK re-parses the whole text
        self.accumulated_parts.append(chunk)
        self._current_path = self._parsed_current_path = None  # as ADK's slow path does
        self._escaped = cut == "\\"
        if cut is not None:
            # ADK: nothing to report; with "\\u..." it keeps the text, which fails to parse
            self._pending = text + cut
            if cut != "\\":
                self.previous_completed = _Joined(self.accumulated_parts, self._closers())
            return []
        streaming_utils._set_value_by_json_path(self.previous_dict, parsed, current + delta)
        self.previous_completed = _Joined(self.accumulated_parts, self._closers())
        self._current_path, self._parsed_current_path = path, parsed
        self._pending = ""
        return [types.PartialArg(json_path=path, string_value=delta, will_continue=True)]

    def _closers(self) -> str:
        return '"' + "".join("}" if opener == "{" else "]" for opener in reversed(self._stack))

    def _adk(self, chunk: str) -> list[types.PartialArg]:
        """ADK's own handling, then what this class knows from the state it leaves."""
        if self.need_reset:
            self._unparseable = False  # ADK starts a new value
        if (
            self._in_string
            and not self._escaped
            and "\\" not in chunk
            and '"' not in chunk
            and _CONTROL.search(chunk)
        ):
            self._unparseable = True
        result: list[types.PartialArg] = super().handle_chunk(chunk)
        self._path = self._current_path if self._in_string else None
        self._pending = ""
        return result


def _joins_a_pair(current: str, delta: str) -> bool:
    """A low surrogate after a high one: ADK's re-parse joins them into one character."""
    high, low = current[-1:], delta[:1]
    return "\ud800" <= high <= "\udbff" and "\udc00" <= low <= "\udfff"


_in_stream: ContextVar[bool] = ContextVar("streamfix_adk_in_stream", default=False)


class _Dispatch:
    """What ``streaming_utils._JsonPathTracker`` names once a fixed stream has run:
    :class:`LinearJsonPathTracker` inside a fixed stream, ADK's own class elsewhere."""

    def __new__(cls) -> Any:
        return LinearJsonPathTracker() if _in_stream.get() else ADK_TRACKER()


@contextmanager
def linear_tracking() -> Iterator[None]:
    """While active (in this context), ADK's loop tracks partial arguments with
    :class:`LinearJsonPathTracker`."""
    streaming_utils._JsonPathTracker = _Dispatch  # type: ignore[misc]
    before = _in_stream.get()
    _in_stream.set(True)
    try:
        yield
    finally:
        _in_stream.set(before)  # not reset(): an async generator may close elsewhere


def restore() -> None:
    """Put ADK's own class back under its name (``uninstall``)."""
    streaming_utils._JsonPathTracker = ADK_TRACKER  # type: ignore[misc]
