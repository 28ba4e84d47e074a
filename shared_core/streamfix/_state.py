"""What the assembler knows while a stream runs: one :class:`ChoiceState` per choice
holding its :class:`CallState` s. The routing rules (``_routing``) and the end-of-stream
decisions (``_repair``) read these; only the assembler changes them.
"""

from __future__ import annotations

from typing import Any

from ._scanner import JsonScanner, strict_loads
from ._types import Diagnostic

__all__ = ["CallState", "ChoiceState", "ReasoningPart"]

_JOINED: Any = object()  # marks a field of ReasoningPart.fields held in pieces


class CallState:
    """One call being assembled.

    Fields:
        position: the call's place in order of first appearance (its index in the
            message, and in events).
        wire_index: the index the provider gave its first fragment (``None`` if none).
        id, name, signature: as merged so far (``None`` until sent).
        parts: the argument fragments as received, joined once at the end.
        scanned: how many of ``parts`` the scanner has seen (it advances lazily).
        extras: raw provider fields of the call, latest value per key.
        abandoned: E10, the call was left unfinished by an attempt the provider (a
            gateway falling back to another model) started over; it is not in the
            message.
        size: argument bytes so far (counted only when a cap is set).
        origin, follow_on: B4, a call opened for the next JSON value of another
            call's arguments: that call, and which of its follow-ons this one is
            (``origin.follow_ons`` counts them); its id is derived at the end.
        announced: ``ToolCallCompleted`` was emitted for it.

    Invariant: ``scanner`` has seen exactly ``"".join(parts[:scanned])``.
    """

    __slots__ = (
        "abandoned",
        "announced",
        "extras",
        "follow_on",
        "follow_ons",
        "id",
        "name",
        "origin",
        "parts",
        "position",
        "scanned",
        "scanner",
        "signature",
        "size",
        "wire_index",
    )

    def __init__(self, position: int, wire_index: int | None, *, track_members: bool) -> None:
        self.position = position
        self.wire_index = wire_index
        self.id: str | None = None
        self.name: str | None = None
        self.parts: list[str] = []
        self.scanned = 0
        self.scanner = JsonScanner(track_members=track_members)
        self.signature: str | None = None
        self.extras: dict[str, object] = {}
        self.size = 0
        self.origin: CallState | None = None
        self.follow_ons = 0
        self.follow_on = 0
        self.announced = False
        self.abandoned = False

    def follow(self, call: CallState) -> None:
        """B4: this call holds the next JSON value of ``call``'s arguments."""
        origin = call.origin or call
        origin.follow_ons += 1
        self.origin = origin
        self.follow_on = origin.follow_ons
        self.name = origin.name

    def scan(self) -> JsonScanner:
        """Bring the scanner up to date with the parts received (only the new ones)."""
        parts = self.parts
        if self.scanned < len(parts):
            new = (
                parts[self.scanned]
                if self.scanned + 1 == len(parts)
                else "".join(parts[self.scanned :])
            )
            self.scanned = len(parts)
            self.scanner.advance(new)
        return self.scanner

    def text(self) -> str:
        return "".join(self.parts)


class ReasoningPart:
    """One entry of ``reasoning_details`` (F5) or one thinking block (F6) being assembled.

    Fields:
        fields: every field sent so far, in order of first appearance: a text field
            (``text_fields``) as :data:`_JOINED`, its pieces in ``pieces``; any other
            field its latest value, where a null never replaces a value and an empty
            string never replaces a non-empty one (Vercel sends ``"signature": ""`` on
            every text piece and the signature on the last); a field only ever sent as
            null stays null, as the non-streamed message carries it.
        pieces: the text pieces of each text field, joined once at the end.
        position: the part's place in its list (the message's, and in events).
        text_fields: the names of the text fields.

    Invariant: ``fields[key] is _JOINED`` exactly when ``key in pieces``.
    """

    __slots__ = ("fields", "pieces", "position", "text_fields")

    def __init__(self, position: int, text_fields: frozenset[str]) -> None:
        self.position = position
        self.text_fields = text_fields
        self.fields: dict[str, Any] = {}
        self.pieces: dict[str, list[str]] = {}

    def get(self, key: str) -> Any:
        """A field's current value (a text field joined), ``None`` if never sent."""
        value = self.fields.get(key)
        return "".join(self.pieces[key]) if value is _JOINED else value

    def merge(self, piece: dict[str, Any]) -> None:
        fields, pieces = self.fields, self.pieces
        for key, value in piece.items():
            if type(value) is str and key in self.text_fields:
                if key in pieces:
                    pieces[key].append(value)
                else:
                    pieces[key] = [value]
                    fields[key] = _JOINED
            elif key not in fields or _replaces(value, fields[key]):
                fields[key] = value

    def value(self) -> dict[str, Any]:
        """The part as the non-streamed message carries it."""
        pieces = self.pieces
        return {
            key: "".join(pieces[key]) if value is _JOINED else value
            for key, value in self.fields.items()
        }


def _replaces(value: Any, kept: Any) -> bool:
    """Whether a field's new value replaces the one kept: never a null, never a text
    field's pieces, never a non-empty value by an empty string."""
    return value is not None and kept is not _JOINED and (value != "" or kept is None or kept == "")


class ChoiceState:
    """Everything known about one choice: its calls and how fragments address them
    (``by_index``: the call a wire index names now; ``by_id``), text, reasoning, the
    finish reason, signatures held for calls not yet open (F3) and diagnostics.

    Reasoning metadata: ``details`` (F5) with ``detail_at`` (the entry a wire ``index``
    and ``type`` name now) and ``blocks`` (F6), each in order of first appearance;
    ``block_of``: the block each piece of ``thinking_blocks`` went to, in the order sent
    (the repaired stream gives each piece its block's place as ``index``).

    E10: ``unroled`` counts the deltas read in full that named no role; ``restart`` is
    set when a role came again after such deltas while calls were unfinished: those calls
    and how many argument fragments each had then.
    """

    __slots__ = (
        "block_of",
        "blocks",
        "by_id",
        "by_index",
        "calls",
        "content",
        "detail_at",
        "details",
        "diagnostics",
        "finish_reason",
        "held_signatures",
        "number",
        "reasoning",
        "restart",
        "unroled",
    )

    def __init__(self, number: int) -> None:
        self.number = number
        self.calls: list[CallState] = []
        self.by_index: dict[int, CallState] = {}
        self.by_id: dict[str, CallState] = {}
        self.held_signatures: dict[int | None, str] = {}
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.finish_reason: str | None = None
        self.diagnostics: list[Diagnostic] = []
        self.details: list[ReasoningPart] = []
        self.detail_at: dict[tuple[object, object], ReasoningPart] = {}
        self.blocks: list[ReasoningPart] = []
        self.block_of: list[int] = []
        self.unroled = 0
        self.restart: dict[CallState, int] | None = None

    # Questions the routing rules ask.

    def is_complete(self, call: CallState) -> bool:
        return call.scan().complete

    def is_resend(self, call: CallState, arguments: str) -> bool:
        text = call.text().strip()
        again = arguments.strip()
        if again == text:
            return True
        try:
            return bool(strict_loads(again) == strict_loads(text))
        except (ValueError, RecursionError):
            return False

    def last_call(self) -> CallState | None:
        return self.calls[-1] if self.calls else None

    def last_open_call(self) -> CallState | None:
        # Only the most recent call can still be open when fragments carry no index.
        last = self.calls[-1] if self.calls else None
        return last if last is not None and not last.scan().complete else None

    def diagnose(self, code: str, detail: str, position: int | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, detail, self.number, position))
