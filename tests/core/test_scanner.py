"""``JsonScanner`` alone, against ``json.JSONDecoder().raw_decode``.

For any JSON value (objects, arrays, strings with every kind of escape, unicode and
surrogate pairs, numbers, literals; nested) serialised with random whitespace, and any
way of cutting its text into pieces fed to ``advance()``:

- an object, array or string: the first boundary is where ``raw_decode`` says the value
  ends; ``complete`` is true exactly when everything after that is whitespace, and never
  before the piece that reaches the end of the value;
- a bare top-level number or literal: the scanner finds no boundary (a top-level scalar
  is "a value in progress", ``dirty``), so it is never complete; arguments are objects;
- several values back to back (B3, B4): one boundary per value.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import examples

from streamfix._scanner import JsonScanner

pytestmark = pytest.mark.core

_DECODER = json.JSONDecoder()
_WS = st.text(alphabet=" \t\r\n", max_size=3)

# Strings: escapes (quotes, backslashes, controls), unicode, astral characters (written
# as surrogate pairs with ensure_ascii), lone surrogates, and JSON's own punctuation.
_PIECES = st.sampled_from(
    [
        *['"', "\\", '\\"', "\\\\", "\n", "\t", "\x00", "\x1f", "/", "\\u00e9"],
        *["{", "}", "[", "]", ",", ":", " ", "é", "中文", "\u2028", "😀", "\U0010ffff"],
        *["\ud83d", "\ude00", "\ud800"],
    ]
)
_TEXT = st.lists(st.one_of(st.text(max_size=6), _PIECES), max_size=5).map("".join)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
)
_VALUES = st.recursive(
    st.one_of(_SCALARS, _TEXT),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)
#: The values the scanner finds the end of: objects, arrays, strings.
_DELIMITED = st.one_of(
    _TEXT,
    st.lists(_VALUES, max_size=4),
    st.dictionaries(_TEXT, _VALUES, max_size=4),
)


@st.composite
def dumped(draw: st.DrawFn, value: Any) -> str:
    """``value`` as JSON text: ensure_ascii either way, random separators and indent."""
    return json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        indent=draw(st.sampled_from([None, None, 0, 2, "\t"])),
        separators=(draw(_WS) + "," + draw(_WS), draw(_WS) + ":" + draw(_WS)),
    )


@st.composite
def cut(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` in pieces: whole, one character each, or cut anywhere (empty pieces too)."""
    mode = draw(st.sampled_from(["whole", "chars", "anywhere"]))
    if mode == "whole" or len(text) < 2:
        return [text]
    if mode == "chars":
        return list(text)
    points = sorted(draw(st.lists(st.integers(0, len(text)), max_size=12)))
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def _end(text: str, at: int = 0) -> int:
    """Where the value starting after blanks at ``at`` ends, as ``raw_decode`` says."""
    start = at + len(text[at:]) - len(text[at:].lstrip(" \t\r\n"))
    return _DECODER.raw_decode(text, start)[1]


Seen = list[tuple[int, bool, list[int]]]


def _feed(pieces: list[str], **kwargs: Any) -> tuple[JsonScanner, Seen]:
    """The scanner after the last piece, and after each: (characters consumed, complete,
    boundaries)."""
    scanner = JsonScanner(**kwargs)
    seen = []
    for piece in pieces:
        scanner.advance(piece)
        seen.append((scanner.consumed, scanner.complete, list(scanner.boundaries)))
    return scanner, seen


def _expected(text: str, ends: list[int], seen: Seen) -> Seen:
    """What the scanner must say after each piece of ``text`` whose values end at ``ends``:
    the ends reached so far, complete when one is reached and only blanks came since."""
    out = []
    for consumed, _, _ in seen:
        reached = [end for end in ends if end <= consumed]
        complete = bool(reached) and not text[reached[-1] : consumed].strip()
        out.append((consumed, complete, reached))
    return out


# --------------------------------------------------------------------------- one value


@st.composite
def one_value(draw: st.DrawFn) -> tuple[Any, str, int, list[str]]:
    """A delimited value with blanks around it: (value, text, end of value, pieces)."""
    value = draw(_DELIMITED)
    text = draw(_WS) + draw(dumped(value)) + draw(_WS)
    return value, text, _end(text), draw(cut(text))


@examples(500)
@given(case=one_value())
def test_one_value_ends_where_raw_decode_says(case: tuple[Any, str, int, list[str]]) -> None:
    _, text, end, pieces = case
    assert "".join(pieces) == text
    scanner, seen = _feed(pieces)
    assert scanner.error is None
    assert scanner.boundaries == [end]
    assert scanner.complete
    assert scanner.depth == 0 and not scanner.in_string
    assert scanner.consumed == len(text)
    # never complete before the piece that reaches the value's end, always from then on
    assert seen == _expected(text, [end], seen)


@examples(300)
@given(case=one_value(), data=st.data())
def test_complete_only_when_blanks_follow(
    case: tuple[Any, str, int, list[str]], data: st.DataObject
) -> None:
    """Anything but blanks after the value (and no other value: a stray comma or colon,
    a bare word or number, a closing bracket) and it is not complete."""
    _, text, end, _ = case
    tail = data.draw(
        st.text(alphabet=" \t\r\n,:x1-.}]", min_size=1, max_size=6).filter(str.strip),
        label="tail",
    )
    whole = text + tail
    scanner, _ = _feed(data.draw(cut(whole), label="pieces"))
    assert scanner.boundaries == [end]
    assert not scanner.complete, (whole, scanner.dirty, scanner.error)


@examples(300)
@given(case=one_value())
def test_member_tracking_changes_nothing_and_ends_with_the_object(
    case: tuple[Any, str, int, list[str]],
) -> None:
    value, text, end, pieces = case
    tracked, seen_tracked = _feed(pieces, track_members=True)
    plain, seen_plain = _feed(pieces)
    assert seen_tracked == seen_plain
    assert tracked.boundaries == plain.boundaries == [end]
    if isinstance(value, dict):  # the members of the text as sent (raw surrogates stay raw)
        assert tracked.partial() == json.JSONDecoder().raw_decode(text.lstrip())[0]


# --------------------------------------------------------------------------- scalars


@st.composite
def bare_scalar(draw: st.DrawFn) -> tuple[str, list[str]]:
    text = draw(_WS) + json.dumps(draw(_SCALARS)) + draw(_WS)
    return text, draw(cut(text))


@examples(200)
@given(case=bare_scalar())
def test_a_bare_top_level_scalar_is_a_value_in_progress(case: tuple[str, list[str]]) -> None:
    """A number or literal at top level has no closing character: the scanner records no
    boundary for it, only that a value is in progress (``dirty``), blanks after it or not."""
    _, pieces = case
    scanner, seen = _feed(pieces)
    assert scanner.boundaries == []
    assert scanner.dirty
    assert scanner.error is None
    assert not any(complete for _, complete, _ in seen)


# --------------------------------------------------------------------------- back to back


@st.composite
def back_to_back(draw: st.DrawFn) -> tuple[str, list[int], list[str]]:
    """Delimited values one after another, blanks (or nothing) between: (text, the end of
    each value, pieces)."""
    texts = [draw(dumped(v)) for v in draw(st.lists(_DELIMITED, min_size=1, max_size=5))]
    text = draw(_WS)
    for part in texts:
        text += part + draw(_WS)
    ends, at = [], 0
    for _ in texts:
        at = _end(text, at)
        ends.append(at)
    return text, ends, draw(cut(text))


@examples(300)
@given(case=back_to_back())
def test_values_back_to_back_give_one_boundary_each(case: tuple[str, list[int], list[str]]) -> None:
    text, ends, pieces = case
    scanner, seen = _feed(pieces)
    assert scanner.error is None
    assert scanner.boundaries == ends
    assert scanner.complete
    assert seen == _expected(text, ends, seen)


# --------------------------------------------------------------------------- named examples


@pytest.mark.parametrize(
    "pieces",
    [
        ['{"a": "x\\', '"}"}'],  # a backslash ends the piece: the quote after it is escaped
        ['{"a": "x\\\\', '"}'],  # an escaped backslash ends the piece: the quote closes
        ['{"a": "', "\\", '"', '}"}'],  # the backslash alone in its piece
        ['{"a": "\\u00', 'e9"}'],  # a \u escape cut in its hex digits
        ['{"a": "\\', 'u00e9"}'],  # ... and between the backslash and the u
        ['["\\ud83d', '\\ude00", "\\', '"]"]'],  # a surrogate pair cut between its halves
    ],
    ids=[
        "escaped-quote",
        "escaped-backslash",
        "lone-backslash",
        "cut-hex",
        "cut-after-backslash",
        "cut-surrogate-pair",
    ],
)
def test_escape_cut_at_a_piece_boundary(pieces: list[str]) -> None:
    text = "".join(pieces)
    scanner, seen = _feed(pieces)
    assert scanner.error is None
    assert scanner.boundaries == [_end(text)] == [len(text)]
    assert [complete for _, complete, _ in seen] == [False] * (len(pieces) - 1) + [True]


def test_a_stray_closing_brace_is_an_error() -> None:
    alone = JsonScanner()
    alone.advance("}")
    assert alone.error == "unexpected '}' at offset 0"
    assert alone.boundaries == [] and not alone.complete

    after = JsonScanner()
    after.advance('{"a": 1')
    after.advance("}}")
    assert after.boundaries == [8]
    assert after.error == "unexpected '}' at offset 8"
    assert not after.complete
    after.advance(' {"b": 2}')  # after an error nothing more is scanned, only counted
    assert after.boundaries == [8] and after.consumed == 18 and not after.complete


def test_braces_inside_strings_are_text() -> None:
    text = '{"pattern": "if (x) {", "b": "}\\" }"}'
    scanner, _ = _feed(list(text))
    assert scanner.boundaries == [len(text)] and scanner.complete


def test_the_b4_example_gives_three_values() -> None:
    text = '{"path":"a"} {"path":"b"}\n{"path":"c"}'
    scanner, _ = _feed([text[:5], text[5:20], text[20:]])
    assert scanner.boundaries == [12, 25, 38]
    assert scanner.complete


def test_a_number_then_blanks_is_still_in_progress() -> None:
    scanner, _ = _feed(["12", "3", "  \n"])
    assert scanner.boundaries == [] and scanner.dirty and not scanner.complete


def test_a_comma_after_a_value_is_not_blank() -> None:
    """``dirty`` is non-whitespace text after the last boundary: a top-level comma is such
    text, so ``'{"a": 1},'`` is not complete (nor are ``"",`` and ``[] ,``)."""
    for pieces in (['{"a": 1}', ","], ['"",'], ["[]", " ,"]):
        scanner, _ = _feed(pieces)
        assert scanner.boundaries == [len(pieces[0].rstrip(","))], pieces
        assert not scanner.complete, pieces
