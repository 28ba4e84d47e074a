"""The project's one SSE decoder (``streamfix._sse``), case by case from the WHATWG
specification ("Parsing an event stream" and its examples), each stream fed whole, one
byte at a time and cut in two at every place: the same events every time. Then the test
kit's readers built on it (``parse_sse``, ``parse_lines``, ``read_capture``) with the
characters ``str.splitlines()`` also breaks at (issue 35, point 3)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamfix._sse import SSEDecoder, SSEError, SSEEvent
from streamfix.testing import CaptureError, parse_lines, parse_sse, read_capture

#: Where ``str.splitlines()`` breaks a line and the SSE specification does not.
NOT_LINE_ENDS = ("\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e")


def _state(decoder: SSEDecoder, events: list[SSEEvent]) -> tuple[object, ...]:
    return (events, decoder.last_event_id, decoder.retry)


def _decode(data: bytes, pieces: list[bytes]) -> tuple[object, ...]:
    decoder = SSEDecoder()
    events = [event for piece in pieces for event in decoder.feed(piece)]
    return _state(decoder, events)


def decode(data: bytes) -> list[SSEEvent]:
    """The events of ``data``, after checking that every way of feeding it agrees."""
    whole = _decode(data, [data])
    assert _decode(data, [data[i : i + 1] for i in range(len(data))]) == whole
    for cut in range(len(data) + 1):
        assert _decode(data, [data[:cut], data[cut:]]) == whole, cut
    events = whole[0]
    assert isinstance(events, list)
    return events


def datas(data: bytes) -> list[str]:
    return [event.data for event in decode(data)]


# --- the specification's examples ------------------------------------------------------------


def test_several_data_lines_are_one_event_joined_by_line_feeds() -> None:
    assert datas(b"data: YHOO\ndata: +2\ndata: 10\n\n") == ["YHOO\n+2\n10"]


def test_comments_ids_and_one_space_after_the_colon() -> None:
    stream = b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\n"
    stream += b"data:  third event\n\n"
    events = decode(stream)
    assert [(e.data, e.id) for e in events] == [
        ("first event", "1"),
        ("second event", ""),  # ``id`` without a value: the last event id emptied
        (" third event", ""),  # only the first space after the colon goes
    ]


def test_empty_data_fields_and_a_last_event_without_its_blank_line() -> None:
    # the last block is discarded: the stream ended before its blank line
    assert datas(b"data\n\ndata\ndata\n\ndata:") == ["", "\n"]


def test_data_with_and_without_the_space_are_the_same() -> None:
    assert datas(b"data:test\n\ndata: test\n\n") == ["test", "test"]


# --- each rule --------------------------------------------------------------------------------


@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"])
def test_each_line_end(end: bytes) -> None:
    stream = b"data: a" + end + b"data: b" + end + end + b"data: c" + end + end
    assert datas(stream) == ["a\nb", "c"]


def test_line_ends_mixed_and_a_cr_alone_before_a_line_feed_line() -> None:
    # "\r" then "\n": one line end (\r\n); "\r\r": a line end then an empty line
    assert datas(b"data: a\r\ndata: b\r\rdata: c\n\r\n") == ["a\nb", "c"]


def test_a_comment_line_and_a_lone_colon() -> None:
    assert datas(b":\n: keep-alive\ndata: x\n:another\n\n: only a comment\n\n") == ["x"]


def test_event_type_is_message_unless_given() -> None:
    events = decode(b"event: update\ndata: 1\n\ndata: 2\n\nevent\ndata: 3\n\n")
    assert [(e.event, e.data) for e in events] == [
        ("update", "1"),
        ("message", "2"),  # the type does not carry over to the next event
        ("message", "3"),  # ``event`` without a value: the default type
    ]


def test_an_event_without_data_is_no_event() -> None:
    assert decode(b"event: ping\n\nid: 9\n\nretry: 100\n\n") == []


def test_the_last_event_id_carries_over_and_a_null_is_ignored() -> None:
    events = decode(b"id: 7\ndata: a\n\ndata: b\n\nid: x\x00y\ndata: c\n\nid: 8\n\ndata: d\n\n")
    assert [(e.data, e.id) for e in events] == [("a", "7"), ("b", "7"), ("c", "7"), ("d", "8")]


def test_retry_takes_ascii_digits_only() -> None:
    decoder = SSEDecoder()
    decoder.feed(b"retry: 1500\n\n")
    assert decoder.retry == 1500
    for bad in (b"retry: 15x\n\n", b"retry:\n\n", b"retry: -1\n\n", "retry: ١٢\n\n".encode()):
        decoder.feed(bad)
        assert decoder.retry == 1500, bad
    assert _decode(b"", [b"retry: 20\n\ndata: x\n\n"])[2] == 20


def test_a_field_without_a_colon_and_unknown_fields() -> None:
    assert datas(b"data\n\n") == [""]
    assert datas(b"foo: bar\nhello there\ndata: x\nDATA: y\n\n") == ["x"]
    assert datas(b"hello there\n\n") == []


def test_one_leading_byte_order_mark_is_skipped() -> None:
    bom = b"\xef\xbb\xbf"
    assert datas(bom + b"data: a\n\n") == ["a"]
    # a second one, or one later, is part of a field name: that line is ignored
    assert datas(bom + bom + b"data: a\n\ndata: b\n\n") == ["b"]
    assert datas(b"data: a\n\n" + bom + b"data: b\n\n") == ["a"]
    assert datas(b"\xef\xbb") == []


def test_a_stream_cut_inside_an_event_dispatches_nothing() -> None:
    assert datas(b'data: {"a": 1}\n\ndata: {"b":') == ['{"a": 1}']
    assert datas(b'data: {"a": 1}\n\ndata: {"b": 2}\n') == ['{"a": 1}']


@pytest.mark.parametrize("char", NOT_LINE_ENDS, ids=lambda c: f"U+{ord(c):04X}")
def test_no_other_character_ends_a_line(char: str) -> None:
    stream = f'data: {{"a":"x{char}y"}}\nevent: e{char}f\nid: i{char}j\n\n'.encode()
    (event,) = decode(stream)
    assert (event.data, event.event, event.id) == (f'{{"a":"x{char}y"}}', f"e{char}f", f"i{char}j")


def test_text_that_is_not_utf8_fails_after_the_events_before_it() -> None:
    decoder = SSEDecoder()
    with pytest.raises(SSEError, match="not UTF-8") as info:
        decoder.feed(b"data: a\n\ndata: \xff\n\ndata: c\n\n")
    assert [e.data for e in info.value.events] == ["a"]
    with pytest.raises(SSEError, match="no more input"):
        decoder.feed(b"data: d\n\n")


def test_an_event_over_the_limit_fails() -> None:
    decoder = SSEDecoder(max_event_bytes=10)
    assert decoder.feed(b"data: 1234\n\n") == [SSEEvent("1234")]
    with pytest.raises(SSEError, match="over 10 bytes"):
        for _ in range(3):
            decoder.feed(b"data: 1234")


# --- the test kit's readers, on the decoder ---------------------------------------------------


@pytest.mark.parametrize("char", NOT_LINE_ENDS, ids=lambda c: f"U+{ord(c):04X}")
def test_parse_sse_keeps_each_character(char: str) -> None:
    assert parse_sse(f'data: {{"a":"x{char}y"}}\n\n') == [{"a": f"x{char}y"}]
    text = f'event: m\nid: 1\n: c\ndata: {{"a":\ndata:"x{char}y"}}\r\n\r\ndata: [DONE]\n\n'
    assert parse_sse(text) == [{"a": f"x{char}y"}]


@pytest.mark.parametrize("char", NOT_LINE_ENDS, ids=lambda c: f"U+{ord(c):04X}")
def test_parse_lines_keeps_each_character(char: str) -> None:
    text = f'{{"a":"x{char}y"}}\r\n\n{{"b":1}}'
    assert parse_lines(text) == [{"a": f"x{char}y"}, {"b": 1}]


def test_parse_sse_errors() -> None:
    with pytest.raises(CaptureError, match="s: event 2: not JSON"):
        parse_sse("data: {}\n\ndata: {x\n\n", "s")
    with pytest.raises(CaptureError, match="must be a JSON object"):
        parse_sse("data: [1]\n\n")


def test_a_capture_file_ends_its_last_event(tmp_path: Path) -> None:
    chunk = {"choices": [{"index": 0, "delta": {"content": "x\u2028y"}, "finish_reason": "stop"}]}
    path = tmp_path / "capture.sse"
    path.write_bytes(
        b"\xef\xbb\xbf: saved\ndata: " + json.dumps(chunk, ensure_ascii=False).encode()
    )
    capture = read_capture(path)
    assert (capture.format, capture.chunks) == ("sse", (chunk,))


# --- any stream, any way it arrives -----------------------------------------------------------

_TEXT = st.text(st.characters(exclude_characters="\r\n", exclude_categories=("Cs",)), max_size=12)
_ID = st.text(st.characters(exclude_characters="\r\n\0", exclude_categories=("Cs",)), max_size=8)
_EVENT = st.tuples(st.lists(_TEXT, min_size=1, max_size=3), _TEXT, _ID)


@given(
    events=st.lists(_EVENT, max_size=5),
    end=st.sampled_from(["\n", "\r\n", "\r"]),
    space=st.booleans(),
    cuts=st.lists(st.integers(min_value=0), max_size=6),
)
def test_any_stream_any_pieces(
    events: list[tuple[list[str], str, str]], end: str, space: bool, cuts: list[int]
) -> None:
    """Events written with any data (every character but the line ends), type and id, any
    line end, with or without the space, and cut anywhere, read back as written."""
    sep = ": " if space else ":"
    text = ""
    for data, kind, event_id in events:
        text += f":comment{end}event{sep}{kind}{end}id{sep}{event_id}{end}"
        text += "".join(f"data{sep}{line}{end}" for line in data) + end
    data = text.encode()
    points = sorted({cut % (len(data) + 1) for cut in cuts})
    pieces = [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]
    decoder = SSEDecoder()
    got = [event for piece in pieces for event in decoder.feed(piece)]

    def read(value: str) -> str:  # one space after the colon goes: the value's own, without
        return value if space or value[:1] != " " else value[1:]

    want = [
        SSEEvent("\n".join(map(read, lines)), read(kind) or "message", read(event_id))
        for lines, kind, event_id in events
    ]
    assert got == want
