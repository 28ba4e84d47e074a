"""The one JSON scanner: incremental, string- and escape-aware, amortised O(total bytes).

A :class:`JsonScanner` is advanced over the argument text of one call as it arrives. It
never looks at a character twice: it keeps the nesting depth, whether it is inside a
string and whether the previous character was a backslash, and records where each
top-level JSON value ends. That is enough to tell when a call's arguments are complete,
to split several values sent back to back (wire-shapes B3, B4) and to detect truncation
(E4). It does not validate JSON; each complete value is parsed once with :mod:`json`.

It also tracks where each member of the top-level object ends, so that progressively
parsed partial arguments (for UIs) cost one parse of each member, once.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["JsonScanner", "strict_loads"]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


#: ``json.loads`` refusing NaN and Infinity: a tool is never handed what is not JSON.
strict_loads = json.JSONDecoder(parse_constant=_reject_constant).decode

# The body of a string up to its closing quote, escapes included (the "unrolled loop"):
# it stops at the closing quote, at a backslash that ends the text, or at the text's end.
_STRING_BODY = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)
# Outside strings: brackets, quotes, and commas (member ends at depth 1).
_STRUCTURAL = re.compile(r'[{}\[\]",]')
_OPENERS = frozenset("{[")


class JsonScanner:
    """Incremental structural scanner over the text of zero or more JSON values.

    Attributes (read them, do not set them):
        depth: nesting depth of brackets and braces outside strings.
        in_string: inside a string literal.
        consumed: characters scanned so far.
        boundaries: offsets just past the end of each complete top-level value.
        dirty: non-whitespace text seen after the last boundary (a value in progress).
        error: a description of the first structural error, or ``None``.
    """

    __slots__ = (
        "_after",
        "_escape",
        "_member_start",
        "_members",
        "_text",
        "_text_base",
        "boundaries",
        "consumed",
        "depth",
        "dirty",
        "error",
        "in_string",
        "track_members",
    )

    def __init__(self, *, track_members: bool = False) -> None:
        self.depth = 0
        self.in_string = False
        self._escape = False
        self._after = False  # a value just ended inside a container: a separator must follow
        self.consumed = 0
        self.boundaries: list[int] = []
        self.dirty = False
        self.error: str | None = None
        self.track_members = track_members
        # Member tracking (only for the first top-level value, and only if asked).
        self._text: list[str] = []
        self._text_base = 0
        self._member_start = -1
        self._members: dict[str, Any] = {}

    @property
    def complete(self) -> bool:
        """At least one value ended and nothing but whitespace followed it."""
        return bool(self.boundaries) and not self.dirty and self.error is None

    def partial(self) -> dict[str, Any]:
        """The complete top-level members of the first object, as a new dict."""
        return dict(self._members)

    def advance(self, text: str) -> None:
        """Scan ``text``, the characters that follow everything scanned before."""
        if self.track_members and not self.boundaries:
            self._text.append(text)
        base = self.consumed
        self.consumed = base + len(text)
        if self.error is not None:
            return
        i = 0
        end = len(text)
        while i < end:
            if self.in_string:
                i = self._scan_string(text, i, base)
            else:
                i = self._scan_structure(text, i, base)
                if self.error is not None:
                    return

    def _scan_string(self, text: str, i: int, base: int) -> int:
        if self._escape:  # the text before ended with a backslash: this char is escaped
            self._escape = False
            i += 1
        j = _STRING_BODY.match(text, i).end()  # type: ignore[union-attr] # always matches
        if j == len(text):
            return j
        if text[j] == "\\":  # a backslash at the very end: its escaped char comes next
            self._escape = True
            return j + 1
        self.in_string = False  # text[j] is the closing quote
        if self.depth == 0:
            self._value_ended(base + j + 1)
        else:
            self._after = True
        return j + 1

    def _scan_structure(self, text: str, i: int, base: int) -> int:
        match = _STRUCTURAL.search(text, i)
        j = len(text) if match is None else match.start()
        if self._after and self._no_separator(text, i, j, match is not None, base):
            return j
        if self.depth == 0 and not self.dirty and not text[i:j].isspace() and i < j:
            # A bare scalar at top level (a number or literal): a value in progress.
            self.dirty = True
        if match is None:
            return j
        char = text[j]
        if char == '"':
            self.in_string = True
            self.dirty = True
        elif char in _OPENERS:
            self.depth += 1
            self.dirty = True
            if self.depth == 1:
                self._member_start = base + j + 1
        elif char == ",":
            self._after = False
            self._comma(base + j)
        elif self.depth == 0:
            self.error = f"unexpected {char!r} at offset {base + j}"
        else:
            self.depth -= 1
            if self.depth == 0:
                self._after = False
                self._member_ended(base + j)
                self._value_ended(base + j + 1)
            else:
                self._after = True
        return j + 1

    def _no_separator(self, text: str, i: int, j: int, structural: bool, base: int) -> bool:
        """After a string or a container ended inside a container, what comes before the
        next structural character must be a key's ``:`` (or blanks, then ``,`` or a
        closer): a value straight after a value (``"Pa{"city"``, arguments that started
        over inside a string, I3) is an error. Sets ``error`` and says so."""
        gap = text[i:j]
        rest = gap.lstrip(" \t\r\n")
        head = rest[:1]
        if head == ":":
            self._after = False
            return False
        if not head and not (structural and text[j] in '"{['):
            return False  # blanks so far, or a separator or closer next
        at = base + i + len(gap) - len(rest) if head else base + j
        self.error = f"a value follows a value without a separator at offset {at}"
        return True

    def _comma(self, offset: int) -> None:
        if self.depth == 1:
            self._member_ended(offset)
        elif self.depth == 0:  # values are never comma-separated at the top level
            self.error = f"unexpected ',' at offset {offset}"

    def _value_ended(self, offset: int) -> None:
        self.boundaries.append(offset)
        self.dirty = False
        if self.track_members and len(self.boundaries) == 1:
            self._text = []

    def _member_ended(self, offset: int) -> None:
        """Parse the member between the last comma (or ``{``) and ``offset``, once."""
        start = self._member_start
        self._member_start = offset + 1
        if not self.track_members or self.boundaries or start < 0 or offset <= start:
            return
        joined = "".join(self._text)
        base = self._text_base
        member = joined[start - base : offset - base]
        # Keep only the text after this member: each character is joined at most twice.
        self._text = [joined[offset + 1 - base :]]
        self._text_base = offset + 1
        if not member.strip():
            return
        try:
            parsed = json.loads("{" + member + "}")
        except (ValueError, RecursionError):
            return
        if isinstance(parsed, dict):
            self._members.update(parsed)
