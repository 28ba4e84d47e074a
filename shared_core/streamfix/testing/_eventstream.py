"""AWS's binary event stream (``application/vnd.amazon.eventstream``), the framing of
Bedrock's ``ConverseStream`` (wire-shapes M), written as botocore reads it.

Each message: a prelude (total length, headers length, both big-endian unsigned 32-bit,
then the CRC32 of those 8 bytes), the headers (each: a 1-byte name length, the name, the
value type 7 for a string, a 2-byte value length, the value), the payload, then the
CRC32 of everything before it. A ConverseStream event is a message with the headers
``:event-type`` (the event's name: ``contentBlockDelta``...), ``:content-type``
``application/json`` and ``:message-type`` ``event``, its payload the event's JSON; an
exception (``modelStreamErrorException``...) has ``:message-type`` ``exception`` and
``:exception-type`` instead of ``:event-type``. Standard library only.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Mapping
from typing import Any

__all__ = ["BEDROCK_EXCEPTIONS", "EVENTSTREAM", "bedrock_message", "eventstream_message"]

#: The event stream's content type.
EVENTSTREAM = "application/vnd.amazon.eventstream"

#: The ConverseStream exceptions botocore knows (a served item named so is sent as one).
BEDROCK_EXCEPTIONS = frozenset(
    {
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    }
)

_STRING = 7


def _header(name: str, value: str) -> bytes:
    key, text = name.encode(), value.encode()
    return struct.pack(">B", len(key)) + key + struct.pack(">BH", _STRING, len(text)) + text


def eventstream_message(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One event stream message of string ``headers`` and ``payload``."""
    head = b"".join(_header(name, value) for name, value in headers.items())
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack(">I", zlib.crc32(body))


def bedrock_message(item: Mapping[str, Any]) -> bytes:
    """One ConverseStream item as Bedrock frames it: ``{"contentBlockDelta": {...}}`` an
    event, an item named by one of :data:`BEDROCK_EXCEPTIONS` an exception."""
    ((name, value),) = item.items()
    payload = json.dumps(value).encode()
    if name in BEDROCK_EXCEPTIONS:
        kind = {":exception-type": name, ":message-type": "exception"}
    else:
        kind = {":event-type": name, ":message-type": "event"}
    return eventstream_message({**kind, ":content-type": "application/json"}, payload)
