"""Public value types: the assembled message, its tool calls, events and diagnostics.

All are frozen, slotted dataclasses: cheap to build, safe to share.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "ArgumentsDelta",
    "AssembledMessage",
    "Diagnostic",
    "Event",
    "ReasoningDelta",
    "ReasoningDetailDelta",
    "TextDelta",
    "ToolCall",
    "ToolCallCompleted",
    "ToolCallStarted",
    "ToolCallUpdated",
    "UsageReported",
]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One thing the assembler repaired, dropped or skipped, and why.

    ``code`` is a stable short name, one of the codes tabled in the README (for example
    ``"duplicate-resend"``), ``detail`` a human sentence, ``position`` the call it
    concerns (its place in the message) if any.
    """

    code: str
    detail: str
    choice: int = 0
    position: int | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One assembled tool call, as a non-streamed response would carry it.

    ``arguments`` is JSON text of one object (the provider's own text when it was one
    valid value, canonical ``json.dumps`` when it had to be rebuilt); ``parsed`` is that
    object. ``index`` is the call's place in the message (0, 1, 2, ... in order of first
    appearance). ``thought_signature`` is the provider's signature exactly as sent.
    ``extras`` holds the raw provider fields of the call (``extra_content``,
    ``provider_specific_fields``, ...), latest value per key.
    """

    id: str | None
    name: str
    arguments: str
    parsed: dict[str, Any]
    index: int
    thought_signature: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    type: str = "function"


@dataclass(frozen=True, slots=True)
class AssembledMessage:
    """The assistant message of one choice, assembled from a stream.

    ``reasoning_details`` (wire-shapes F5: OpenRouter, Vercel AI Gateway) and
    ``thinking_blocks`` (F6: Anthropic thinking through litellm) are the provider's
    reasoning metadata as the non-streamed message carries them: one dict per entry or
    block, in order, its text joined and its other fields as sent. Both are empty when
    the stream sent none. ``provider_blocks`` are a provider's own content blocks that
    are neither text, reasoning nor a call the client runs (Anthropic's server tools and
    their results, MCP: wire-shapes K5), whole, in order. :meth:`to_history` gives it all
    back in the form of the next request's dialect.
    """

    content: str = ""
    reasoning: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    choice: int = 0
    role: str = "assistant"
    reasoning_details: list[dict[str, Any]] = field(default_factory=list)
    thinking_blocks: list[dict[str, Any]] = field(default_factory=list)
    provider_blocks: list[dict[str, Any]] = field(default_factory=list)

    def to_history(self, dialect: str = "chat") -> list[dict[str, Any]]:
        """What the next request in ``dialect`` carries back of this message: the items
        to append to its conversation, reasoning metadata included where that dialect
        needs it back (``chat``: ``[to_openai_dict()]``; ``responses``: its reasoning
        items whole, the text as an output message, one ``function_call`` item per
        call; ``anthropic``: one assistant message whose content is the thinking blocks
        with their signatures, the provider's own blocks (K5), the text, then the
        ``tool_use`` blocks; ``gemini``: one ``model`` content, each call a
        ``functionCall`` part with its own ``thoughtSignature``; ``bedrock``: one
        assistant message, reasoning blocks with their signatures, text, ``toolUse``)."""
        from ._dialects import history  # noqa: PLC0415 (_dialects imports this module)

        return history(self, dialect)

    def to_openai_dict(self) -> dict[str, Any]:
        """The message in OpenAI chat-completions shape (``choices[i].message``).

        ``reasoning_details`` and ``thinking_blocks`` are included only when there are
        any, under the names an assistant message of the next request carries them
        (OpenRouter reads ``reasoning_details`` back, litellm ``thinking_blocks``)."""
        message: dict[str, Any] = {"role": self.role, "content": self.content or None}
        if self.reasoning:
            message["reasoning_content"] = self.reasoning
        if self.reasoning_details:
            message["reasoning_details"] = [dict(entry) for entry in self.reasoning_details]
        if self.thinking_blocks:
            message["thinking_blocks"] = [dict(block) for block in self.thinking_blocks]
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": call.type,
                    "function": {"name": call.name, "arguments": call.arguments},
                    **call.extras,
                }
                for call in self.tool_calls
            ]
        return message

    def with_unique_ids(self) -> AssembledMessage:
        """This message with every call id unique, for a framework that answers calls
        by id (wire-shapes G3: DeepSeek, GLM and Kimi reuse one id for distinct calls).
        A repeated id becomes ``id-1``, ``id-2``... (the first free; derived as B4
        derives follow-on ids); the first call keeps it. ``self`` if nothing repeats."""
        ids = [call.id for call in self.tool_calls if call.id is not None]
        if len(set(ids)) == len(ids):
            return self
        taken = set(ids)
        seen: set[str] = set()
        calls = []
        for call in self.tool_calls:
            if call.id is None or call.id not in seen:
                calls.append(call)
                if call.id is not None:
                    seen.add(call.id)
                continue
            n = 1
            while f"{call.id}-{n}" in taken:
                n += 1
            taken.add(f"{call.id}-{n}")
            calls.append(replace(call, id=f"{call.id}-{n}"))
        return replace(self, tool_calls=calls)


@dataclass(frozen=True, slots=True)
class TextDelta:
    """New assistant text."""

    text: str
    choice: int = 0


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """New reasoning ("thinking") text."""

    text: str
    choice: int = 0


@dataclass(frozen=True, slots=True)
class ReasoningDetailDelta:
    """A piece of the provider's reasoning metadata arrived: an entry of
    ``delta.reasoning_details`` (``field == "reasoning_details"``, F5) or of
    ``delta.thinking_blocks`` (``field == "thinking_blocks"``, F6).

    An event of its own, not an extended :class:`ReasoningDelta`: that one carries only
    text to append to ``reasoning``, and providers that send these pieces send the same
    text there too (``reasoning``, ``reasoning_content``). ``position`` is the place, in
    the message's list of that name, of the entry or block the piece went to (the
    message holds it whole, its text joined); ``piece`` is the piece as sent.
    """

    field: str
    position: int
    piece: dict[str, Any]
    choice: int = 0


@dataclass(frozen=True, slots=True)
class _CallEvent:
    """The call an event is about: its place among the choice's calls (``position``),
    and its id and name when the event was made. Its fields come first in every call
    event."""

    position: int
    id: str | None
    name: str | None


@dataclass(frozen=True, slots=True)
class ToolCallStarted(_CallEvent):
    """A new call was opened. ``position`` is its place among the choice's calls so far."""

    choice: int = 0
    thought_signature: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCallUpdated(_CallEvent):
    """The id, name or thought signature of an open call changed: a name sent in pieces
    or late (wire-shapes C2, C3), an id sent after the first fragment, a signature on a
    later fragment or on its own (F2). Carries the call's current values."""

    thought_signature: str | None
    choice: int = 0


@dataclass(frozen=True, slots=True)
class ArgumentsDelta:
    """New argument text for the call at ``position``.

    ``partial`` holds the top-level members of the arguments object whose values are
    complete so far, parsed once each (never by re-parsing the whole buffer).
    """

    position: int
    delta: str
    partial: dict[str, Any]
    choice: int = 0


@dataclass(frozen=True, slots=True)
class ToolCallCompleted(_CallEvent):
    """The arguments of the call at ``position`` form a complete JSON value."""

    arguments: str
    choice: int = 0


@dataclass(frozen=True, slots=True)
class UsageReported:
    """The provider reported token usage."""

    usage: dict[str, Any]


Event = (
    TextDelta
    | ReasoningDelta
    | ReasoningDetailDelta
    | ToolCallStarted
    | ToolCallUpdated
    | ArgumentsDelta
    | ToolCallCompleted
    | UsageReported
)
