"""The sans-I/O assembler: chunks in, events out, one assembled message per choice at the end.

State lives here, decisions in ``_routing``, chunk shapes in ``_normalize``, JSON
structure in ``_scanner``. After an error or after :meth:`ToolCallAssembler.finish`, every
further call refuses with :class:`AssemblerClosedError` (as h11 does).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, Iterable, Mapping
from itertools import pairwise
from typing import Any

from ._errors import (
    ArgumentsTooLargeError,
    AssemblerClosedError,
    MalformedToolCallError,
    ProviderStreamError,
    StreamFixError,
    TruncatedToolCallError,
)
from ._normalize import (
    ChoiceDelta,
    Chunk,
    Fragment,
    bare_object_arguments,
    normalize,
    only_arguments,
)
from ._routing import Action, bare_continuation, route
from ._scanner import JsonScanner
from ._types import (
    ArgumentsDelta,
    AssembledMessage,
    Diagnostic,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallStarted,
    ToolCallUpdated,
    UsageReported,
)

__all__ = ["ToolCallAssembler", "aassemble", "assemble"]


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# json.loads, refusing NaN and Infinity: a tool is never handed what is not JSON.
_loads = json.JSONDecoder(parse_constant=_reject_constant).decode


class CallState:
    """One call being assembled.

    ``parts`` are the argument fragments as received (joined once, at the end);
    ``scanned`` counts the parts the scanner has seen; ``position`` is the call's place
    in order of first appearance; ``size`` counts argument bytes when a cap is set.
    """

    __slots__ = (
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
        self.extras: dict[str, Any] = {}
        self.size = 0
        self.origin: CallState | None = None  # B4: the call this one's value followed
        self.follow_ons = 0  # B4: how many follow-on calls this one has had
        self.follow_on = 0  # B4: which follow-on of its origin this call is
        self.announced = False  # ToolCallCompleted was emitted

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


class ChoiceState:
    """Everything known about one choice: its calls and their indexes, text, reasoning."""

    __slots__ = (
        "by_id",
        "by_index",
        "calls",
        "content",
        "diagnostics",
        "finish_reason",
        "held_signatures",
        "number",
        "reasoning",
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

    # Questions the routing rules ask.

    def is_complete(self, call: CallState) -> bool:
        return call.scan().complete

    def is_resend(self, call: CallState, arguments: str) -> bool:
        text = call.text().strip()
        again = arguments.strip()
        if again == text:
            return True
        try:
            return bool(_loads(again) == _loads(text))
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


class ToolCallAssembler:
    """Assemble one streamed chat completion, chunk by chunk.

    ``tools`` (declared tool names, OpenAI tool dicts, or a mapping of name to schema)
    only resolves ambiguous names (wire-shapes C2). ``max_argument_bytes`` caps the
    UTF-8 size of one call's arguments.
    """

    def __init__(
        self,
        tools: Iterable[Any] | Mapping[str, Any] | None = None,
        *,
        max_argument_bytes: int | None = None,
    ) -> None:
        self.tools: frozenset[str] = _tool_names(tools)
        self.max_argument_bytes = max_argument_bytes
        self._choices: dict[int, ChoiceState] = {}
        self._usage: dict[str, Any] | None = None
        self._problems: list[Diagnostic] = []
        self._closed: str | None = None
        self._quiet = False  # set by assemble(): no events, lazy scanning

    # --- public API ----------------------------------------------------------------------

    def feed(self, chunk: object) -> list[Event]:
        """Take one chunk; return what it added, as events."""
        events: list[Event] = []
        self._consume_all((chunk,), events)
        return events

    def finish(self, choice: int = 0) -> AssembledMessage:
        """End the stream; the assembled message of ``choice``.

        Raises :class:`TruncatedToolCallError` when a call's arguments never completed and
        :class:`MalformedToolCallError` when they are not one JSON object; both carry the
        message assembled from the rest.
        """
        messages = self.finish_all()
        if choice in messages:
            return messages[choice]
        return AssembledMessage(usage=self._usage, diagnostics=list(self._problems), choice=choice)

    def finish_all(self) -> dict[int, AssembledMessage]:
        """End the stream; one assembled message per choice index. Call it once."""
        self._check_open()
        self._closed = "finished"
        messages: dict[int, AssembledMessage] = {}
        for number in sorted(self._choices):
            message, truncated, malformed = self._build(self._choices[number])
            if truncated:
                self._fail(_truncation_error(message, truncated, self._choices[number]))
            if malformed:
                self._fail(_malformed_error(message, malformed, self._choices[number]))
            messages[number] = message
        return messages

    # --- consuming chunks ----------------------------------------------------------------

    def _consume_all(self, chunks: Iterable[object], events: list[Event] | None) -> None:
        """Consume chunks: the hot loop of every stream.

        Most chunks only continue one call's arguments. They are recognised here, for
        dicts inline (a function call per chunk would cost a third of the time), for
        objects by ``bare_object_arguments``; the routing policy's
        ``bare_continuation`` names the call they continue. Anything else goes through
        :meth:`_consume`.
        """
        states = self._choices
        quiet = events is None and self.max_argument_bytes is None
        for chunk in chunks:
            if self._closed is not None:
                self._check_open()
            number: object = None
            if type(chunk) is dict:
                try:
                    (choice,) = chunk["choices"]
                    delta = choice["delta"]
                    (entry,) = delta["tool_calls"]
                    function = entry["function"]
                    text, index, number = function["arguments"], entry["index"], choice["index"]
                except (KeyError, TypeError, ValueError, IndexError):
                    number = None
                else:
                    if not (
                        type(text) is str
                        and type(index) is int
                        and (
                            (len(entry) == 2 and len(function) == 1 and len(delta) == 1)
                            or only_arguments(delta, entry, function)
                        )
                        and choice.get("finish_reason") is None
                        and chunk.get("usage") is None
                        and "error" not in chunk
                    ):
                        number = None
            else:
                bare = bare_object_arguments(chunk)
                if bare is not None:
                    number, index, text = bare
            state = states.get(number) if type(number) is int else None
            call = bare_continuation(state, index, text) if state is not None else None
            if call is None:
                self._consume(chunk, events)
            elif quiet:
                call.parts.append(text)
            else:
                self._add_arguments(state, call, text, events)  # type: ignore[arg-type]

    def _consume(self, chunk: object, events: list[Event] | None) -> None:
        normalized = self._read(chunk)
        if normalized is None:
            return
        if normalized.usage is not None:
            self._usage = normalized.usage
            if events is not None:
                events.append(UsageReported(normalized.usage))
        if normalized.error is not None:
            self._provider_error(normalized, normalized.error.text, normalized.error.status_code)
        for delta in normalized.choices:
            self._consume_choice(normalized, delta, events)

    def _read(self, chunk: object) -> Chunk | None:
        """The chunk normalised, problems recorded; ``None`` if unreadable."""
        try:
            normalized = normalize(chunk)
        except Exception as exc:  # a foreign object never breaks the stream
            self._skip(f"unreadable chunk ({type(exc).__name__}: {exc})"[:500])
            return None
        for problem in normalized.problems:
            self._skip(problem)
        return normalized

    def _consume_choice(
        self, normalized: Chunk, delta: ChoiceDelta, events: list[Event] | None
    ) -> None:
        state = self._choices.get(delta.choice)
        if state is None:
            state = self._choices[delta.choice] = ChoiceState(delta.choice)
        if delta.content:
            state.content.append(delta.content)
            if events is not None:
                events.append(TextDelta(delta.content, delta.choice))
        if delta.reasoning:
            state.reasoning.append(delta.reasoning)
            if events is not None:
                events.append(ReasoningDelta(delta.reasoning, delta.choice))
        for fragment in delta.fragments:
            self._apply(state, fragment, events)
        if delta.finish_reason:
            # E2: a finish reason never ends the stream; the last one given counts.
            state.finish_reason = delta.finish_reason
            if delta.finish_reason == "error":  # E5: OpenRouter-style, with no error object
                self._provider_error(
                    normalized, "the stream ended with finish_reason 'error'", None
                )

    def _apply(self, state: ChoiceState, fragment: Fragment, events: list[Event] | None) -> None:
        action, call = route(state, fragment)
        if action is Action.CONTINUE and call is not None:
            self._merge(state, call, fragment, events)
        elif action is Action.NEW:
            self._open(state, fragment, events)
        elif action is Action.FOLLOW_ON and call is not None:
            self._open(state, fragment, events, follows=call)
        elif action is Action.SIGN and call is not None:
            if fragment.signature != call.signature:
                call.signature = fragment.signature
                if events is not None:
                    self._updated(state, call, events)
        elif action is Action.HOLD:
            state.held_signatures[fragment.call_index] = fragment.signature or ""
        elif action is Action.DUPLICATE and call is not None:
            state.diagnose(
                "duplicate-resend",
                f"complete arguments of call {call.id!r} were sent again; the copy was dropped",
                call.position,
            )

    def _open(
        self,
        state: ChoiceState,
        fragment: Fragment,
        events: list[Event] | None,
        follows: CallState | None = None,
    ) -> None:
        call = CallState(len(state.calls), fragment.call_index, track_members=not self._quiet)
        state.calls.append(call)
        if follows is not None:  # B4: the next value of a call's arguments, sent on its own
            origin = follows.origin or follows
            origin.follow_ons += 1
            call.origin = origin
            call.follow_on = origin.follow_ons
            call.name = origin.name  # its id is derived when the message is built
        held = state.held_signatures.pop(fragment.call_index, None)
        if held:
            call.signature = held  # F3: a signature sent before its call
        self._merge_fields(state, call, fragment)
        if events is not None:
            events.append(
                ToolCallStarted(
                    call.position, _event_id(call), call.name, state.number, call.signature
                )
            )
        if fragment.arguments:
            self._add_arguments(state, call, fragment.arguments, events)

    def _merge(
        self, state: ChoiceState, call: CallState, f: Fragment, events: list[Event] | None
    ) -> None:
        if events is None:
            self._merge_fields(state, call, f)
        else:
            before = (call.id, call.name, call.signature)
            self._merge_fields(state, call, f)
            if (call.id, call.name, call.signature) != before:
                self._updated(state, call, events)
        if f.arguments:
            self._add_arguments(state, call, f.arguments, events)

    def _merge_fields(self, state: ChoiceState, call: CallState, f: Fragment) -> None:
        if f.call_index is not None:
            state.by_index[f.call_index] = call
        if f.id is not None and call.id is None:
            call.id = f.id
            state.by_id[f.id] = call
        if f.name:
            self._merge_name(call, f.name)
        if f.signature:
            call.signature = f.signature
        if f.extras:
            call.extras.update(f.extras)

    @staticmethod
    def _updated(state: ChoiceState, call: CallState, events: list[Event]) -> None:
        events.append(
            ToolCallUpdated(call.position, _event_id(call), call.name, call.signature, state.number)
        )

    def _merge_name(self, call: CallState, name: str) -> None:
        """C1 (repeated name), C2 (name in pieces), C3 (name arriving late).

        Declared tools decide first: the pieces joined, if a declared name is or starts
        with them; else the new name if declared; else the current one if declared.
        Without tools: a repeat is ignored, a longer name that extends the current one
        replaces it (names re-sent whole), anything else is a piece to append.
        """
        current = call.name
        if current is None:
            call.name = name
            return
        joined = current + name
        tools = self.tools
        if tools:
            if joined in tools or any(tool.startswith(joined) for tool in tools):
                call.name = joined
                return
            for known in (name, current):
                if known in tools:
                    call.name = known
                    return
        if name != current:
            call.name = name if name.startswith(current) else joined

    def _add_arguments(
        self, state: ChoiceState, call: CallState, text: str, events: list[Event] | None
    ) -> None:
        call.parts.append(text)
        if self.max_argument_bytes is not None:
            call.size += len(text.encode("utf-8", "surrogatepass"))
            if call.size > self.max_argument_bytes:
                message, _, _ = self._build(state)
                self._fail(
                    ArgumentsTooLargeError(
                        f"arguments of tool call {call.name!r} exceed "
                        f"max_argument_bytes={self.max_argument_bytes}",
                        message=message,
                        partial_arguments={call.position: call.text()},
                        partial_names={call.position: call.name},
                    )
                )
        if events is None:
            return
        scanner = call.scan()
        events.append(ArgumentsDelta(call.position, text, scanner.partial(), state.number))
        if scanner.complete and not call.announced:
            call.announced = True
            events.append(
                ToolCallCompleted(call.position, call.id, call.name, call.text(), state.number)
            )

    # --- errors --------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed is not None:
            raise AssemblerClosedError(f"the assembler is closed: {self._closed}")

    def _fail(self, error: StreamFixError) -> None:
        self._closed = f"{type(error).__name__}: {error}"
        raise error

    def _skip(self, problem: str) -> None:
        self._problems.append(Diagnostic("skipped-chunk", problem))

    def _provider_error(self, chunk: Chunk, text: str, status: int | None) -> None:
        number = chunk.choices[0].choice if chunk.choices else 0
        state = self._choices.get(number)
        message, partial = AssembledMessage(usage=self._usage), {}
        if state is not None:
            message, truncated, malformed = self._build(state)
            partial = {**truncated, **malformed}
        self._fail(
            ProviderStreamError(
                f"the provider reported an error mid-stream: {text}",
                provider_message=text,
                status_code=status,
                message=message,
                partial_arguments=partial,
                partial_names=_names(state, partial) if state is not None else {},
            )
        )

    # --- building the message ------------------------------------------------------------

    def _build(self, state: ChoiceState) -> tuple[AssembledMessage, dict[int, str], dict[int, str]]:
        """The message from everything complete; truncated and malformed raw arguments."""
        calls: list[ToolCall] = []
        truncated: dict[int, str] = {}
        malformed: dict[int, str] = {}
        values_seen: dict[int, int] = {}  # B4: values so far per originating call
        for call in state.calls:
            outcome = _finish_call(state, call)
            if isinstance(outcome, list):
                origin = call.origin or call
                for arguments, parsed in outcome:
                    n = values_seen.get(origin.position, 0)
                    values_seen[origin.position] = n + 1
                    calls.append(_tool_call(origin, arguments, parsed, len(calls), n))
            elif outcome == "truncated":
                truncated[call.position] = call.text()
            elif outcome == "malformed":
                malformed[call.position] = call.text()
        message = AssembledMessage(
            content="".join(state.content),
            reasoning="".join(state.reasoning),
            tool_calls=calls,
            finish_reason=state.finish_reason,
            usage=self._usage,
            diagnostics=[*self._problems, *state.diagnostics],
            choice=state.number,
        )
        return message, truncated, malformed


Value = tuple[str, dict[str, Any]]


def _finish_call(state: ChoiceState, call: CallState) -> list[Value] | str:
    """The call's JSON values (B4 may give several), or "truncated", "malformed", "dropped"."""
    text = call.text()
    if call.name is None:
        if text.strip() in ("", "{}"):  # B9
            state.diagnose(
                "phantom-call", "a call with no name and no arguments was dropped", call.position
            )
            return "dropped"
        state.diagnose("nameless-call", "a call has arguments but never got a name", call.position)
        return "malformed"
    if not text.strip():
        return [("{}", {})]  # D2: a zero-argument tool
    try:  # the common case, one parse of one value; the scanner is needed only if it fails
        parsed = _loads(text)
    except (ValueError, RecursionError):
        parsed = None
    if isinstance(parsed, dict):
        return [(text, parsed)]  # the provider's own text, as a non-streamed response has it
    return _repair(state, call, text)


def _repair(state: ChoiceState, call: CallState, text: str) -> list[Value] | str:
    """Arguments that are not one JSON object: several values (B4), cumulative (C5),
    truncated (E4) or malformed."""
    scanner = call.scan()
    if scanner.error is None and not scanner.dirty and scanner.boundaries:
        values = _split(text, scanner.boundaries)
        if values is not None:
            detail = f"{len(values)} JSON values arrived as one call's arguments; split"
            state.diagnose("split-values", detail, call.position)
            return values
    cumulative = _cumulative(call.parts)
    if cumulative is not None:
        detail = "arguments were re-sent whole on every fragment; the last copy kept"
        state.diagnose("cumulative-arguments", detail, call.position)
        return [cumulative]
    if scanner.error is None and (scanner.dirty or not scanner.boundaries):
        return "truncated"
    why = scanner.error or "not a JSON object"
    state.diagnose("malformed-arguments", f"arguments of {call.name!r}: {why}", call.position)
    return "malformed"


def _split(text: str, boundaries: list[int]) -> list[tuple[str, dict[str, Any]]] | None:
    values = []
    start = 0
    for end in boundaries:
        raw = text[start:end].strip()
        start = end
        try:
            parsed = _loads(raw)
        except (ValueError, RecursionError):
            return None
        if not isinstance(parsed, dict):
            return None
        values.append((raw, parsed))
    return values


def _cumulative(parts: list[str]) -> tuple[str, dict[str, Any]] | None:
    """C5: every fragment repeats everything so far; the last one is the whole value."""
    pieces = [part for part in parts if part]
    if len(pieces) < 2 or not all(b.startswith(a) for a, b in pairwise(pieces)):
        return None
    raw = pieces[-1].strip()
    try:
        parsed = _loads(raw)
    except (ValueError, RecursionError):
        return None
    return (raw, parsed) if isinstance(parsed, dict) else None


def _event_id(call: CallState) -> str | None:
    """The id events report for a call: a B4 follow-on's is derived from its origin's."""
    if call.origin is None:
        return call.id
    return _derived_id(call.origin.id, call.follow_on)


def _derived_id(call_id: str | None, n: int) -> str | None:
    """B4: follow-on calls split out of one argument string get ``id-1``, ``id-2``..."""
    if call_id is None or n == 0:
        return call_id
    return f"{call_id}-{n}"


def _tool_call(
    origin: CallState, arguments: str, parsed: dict[str, Any], index: int, n: int
) -> ToolCall:
    """The ``n``-th value of ``origin``'s arguments as a call (n > 0 only after B4 splits)."""
    first = n == 0  # the signature and extras belong to the first value
    return ToolCall(
        id=_derived_id(origin.id, n),
        name=origin.name or "",
        arguments=arguments,
        parsed=parsed,
        index=index,
        thought_signature=origin.signature if first else None,
        extras=dict(origin.extras) if first else {},
    )


def _truncation_error(
    message: AssembledMessage, truncated: dict[int, str], state: ChoiceState
) -> TruncatedToolCallError:
    names = ", ".join(
        f"{call.name!r} after {len(truncated[call.position])} characters"
        for call in state.calls
        if call.position in truncated
    )
    reason = f" (finish_reason={state.finish_reason})" if state.finish_reason else ""
    return TruncatedToolCallError(
        f"tool call arguments are truncated{reason}: {names}",
        message=message,
        partial_arguments=truncated,
        partial_names=_names(state, truncated),
    )


def _names(state: ChoiceState, positions: dict[int, str]) -> dict[int, str | None]:
    return {call.position: call.name for call in state.calls if call.position in positions}


def _malformed_error(
    message: AssembledMessage, malformed: dict[int, str], state: ChoiceState
) -> MalformedToolCallError:
    details = "; ".join(d.detail for d in message.diagnostics if d.position in malformed)
    return MalformedToolCallError(
        f"tool call arguments are malformed: {details}",
        message=message,
        partial_arguments=malformed,
        partial_names=_names(state, malformed),
    )


def _tool_names(tools: Iterable[Any] | Mapping[str, Any] | None) -> frozenset[str]:
    if tools is None:
        return frozenset()
    if isinstance(tools, Mapping):
        return frozenset(str(name) for name in tools)
    names = set()
    for tool in tools:
        if isinstance(tool, str):
            names.add(tool)
        elif isinstance(tool, Mapping):
            function = tool.get("function", tool)
            name = function.get("name") if isinstance(function, Mapping) else None
            if isinstance(name, str):
                names.add(name)
    return frozenset(names)


def assemble(
    chunks: Iterable[object],
    tools: Iterable[Any] | Mapping[str, Any] | None = None,
    *,
    choice: int = 0,
    max_argument_bytes: int | None = None,
) -> AssembledMessage:
    """Assemble a whole stream; the message of ``choice`` (fast path: no events)."""
    assembler = ToolCallAssembler(tools, max_argument_bytes=max_argument_bytes)
    assembler._quiet = True
    assembler._consume_all(chunks, None)
    return assembler.finish(choice)


async def aassemble(
    chunks: AsyncIterable[object],
    tools: Iterable[Any] | Mapping[str, Any] | None = None,
    *,
    choice: int = 0,
    max_argument_bytes: int | None = None,
) -> AssembledMessage:
    """Assemble an async stream; the message of ``choice``."""
    assembler = ToolCallAssembler(tools, max_argument_bytes=max_argument_bytes)
    assembler._quiet = True
    async for chunk in chunks:
        assembler._consume_all((chunk,), None)
    return assembler.finish(choice)
