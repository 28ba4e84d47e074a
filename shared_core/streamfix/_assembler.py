"""The sans-I/O assembler: chunks in, events out, one assembled message per choice at the end.

All state transitions happen here, and only here; the state itself is ``_state``, where a
fragment goes is decided by ``_routing``, what the end of the stream makes of each call
by ``_repair``, chunk shapes by ``_normalize`` (and the common argument-only chunk by
``_fastpath``), JSON structure by ``_scanner``. After an error or after
:meth:`ToolCallAssembler.finish`, every further call refuses with
:class:`AssemblerClosedError` (as h11 does).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from ._dialects import detect, reader_for
from ._errors import (
    ArgumentsTooLargeError,
    AssemblerClosedError,
    ProviderMalformedCallError,
    ProviderStreamError,
    StreamFixError,
)
from ._fastpath import consume
from ._normalize import TEXT_FIELDS, ChoiceDelta, Chunk, Fragment, normalize
from ._repair import (
    Complete,
    Malformed,
    Outcome,
    Truncated,
    abandon,
    failure,
    names_of,
    read_role,
    reasoning_metadata,
    repeated,
    settle,
    unsettled,
)
from ._routing import Action, bare_continuation, is_error_finish, merged_name, route
from ._state import CallState, ChoiceState, ReasoningPart
from ._types import (
    ArgumentsDelta,
    AssembledMessage,
    Diagnostic,
    Event,
    ReasoningDelta,
    ReasoningDetailDelta,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallStarted,
    ToolCallUpdated,
    UsageReported,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing.Unpack from Python 3.11

__all__ = ["AssembleOptions", "ToolCallAssembler", "aassemble", "assemble"]

#: Declared tools: names, OpenAI tool dicts, or a mapping of name to schema.
_Tools: TypeAlias = "Iterable[Any] | Mapping[str, Any] | None"


class ToolCallAssembler:
    """Assemble one streamed chat completion, chunk by chunk.

    ``tools`` (declared tool names, OpenAI tool dicts, or a mapping of name to schema)
    only resolves ambiguous names (wire-shapes C2). ``max_argument_bytes`` caps the
    UTF-8 size of one call's arguments. ``dialect``: the stream's wire dialect, one of
    :data:`~._dialects.DIALECTS` (``chat``, ``responses``, ``anthropic``, ``gemini``,
    ``bedrock``); by default the first item names it (wire-shapes J-M).
    """

    def __init__(
        self,
        tools: Iterable[Any] | Mapping[str, Any] | None = None,
        *,
        max_argument_bytes: int | None = None,
        dialect: str | None = None,
    ) -> None:
        self._reader = reader_for(dialect) if dialect is not None else None
        self.dialect = dialect
        self.tools: frozenset[str] = _tool_names(tools)
        self._no_arguments = _no_argument_tools(tools)
        self.max_argument_bytes = max_argument_bytes
        self._choices: dict[int, ChoiceState] = {}
        self._usage: dict[str, Any] | None = None
        self._problems: list[Diagnostic] = []
        self._closed: str | None = None
        self._quiet = False  # set by assemble(): no events, lazy scanning
        self.continued: int | None = None
        self.normalized: Chunk | None = None

    # --- public API ----------------------------------------------------------------------

    def feed(self, chunk: object, *, events: bool = True) -> list[Event]:
        """Take one chunk; return what it added, as events.

        ``events=False`` takes it as :func:`assemble` does, building no events (and
        returning none): for a caller that wants only the end, or a provider error as
        soon as it arrives. Sets :attr:`continued`: the wire index of the call whose
        arguments the chunk only continued (it carries nothing else, so a framework may
        pass it on as it is), else ``None``."""
        if not events:
            self.continued = self._consume_all((chunk,), None)
            return []
        found: list[Event] = []
        self.continued = self._consume_all((chunk,), found)
        return found

    def finish(self, choice: int = 0) -> AssembledMessage:
        """End the stream; the assembled message of ``choice``.

        Raises :class:`TruncatedToolCallError` when a call of that choice never completed
        its arguments and :class:`MalformedToolCallError` when they are not one JSON
        object; both carry the message assembled from the rest of that choice. Other
        choices are not looked at (use :meth:`finish_all` for all of them).
        """
        self._check_open()
        self._end_dialect()
        self._closed = "finished"
        state = self._choices.get(choice)
        if state is None:
            return AssembledMessage(
                usage=self._usage, diagnostics=list(self._problems), choice=choice
            )
        return self._settle(state)

    def _finish_stream(self, choice: int) -> AssembledMessage:
        """:meth:`finish` for a whole stream given at once: ``TypeError`` if it had
        items and none of them was a chunk (every one was skipped as not one)."""
        if not self._choices and self._usage is None and self._problems:
            foreign = [p.detail for p in self._problems if p.code == "skipped-chunk"]
            if len(foreign) == len(self._problems) and all(
                d.startswith(("not a chunk", "unreadable chunk")) for d in foreign
            ):
                self._closed = "finished"
                raise TypeError(f"expected an iterable of chunks; no item was one ({foreign[0]})")
        return self.finish(choice)

    def finish_all(self) -> dict[int, AssembledMessage]:
        """End the stream; one assembled message per choice index. Call it once.

        Raises as :meth:`finish` does for the first choice (by index) that fails."""
        self._check_open()
        self._end_dialect()
        self._closed = "finished"
        return {number: self._settle(self._choices[number]) for number in sorted(self._choices)}

    # --- consuming chunks ----------------------------------------------------------------

    def _consume_all(self, chunks: Iterable[object], events: list[Event] | None) -> int | None:
        """Consume chunks: the hot loop of every stream (``_fastpath.consume``).

        Most chunks only continue one call's arguments: the routing policy's
        ``bare_continuation`` names the call they continue, and their text is appended
        without normalising the chunk. Anything else goes through :meth:`_consume`.
        Returns what :attr:`continued` says of the last chunk.
        """
        self._check_open()
        quiet = events is None and self.max_argument_bytes is None
        more = None if quiet else self._add_arguments
        return consume(chunks, self._choices, bare_continuation, self._consume, more, events)

    def _consume(self, chunk: object, events: list[Event] | None) -> None:
        normalized = self._read(chunk)
        if normalized is not None:
            self._consume_normalized(normalized, events)

    def _consume_normalized(self, normalized: Chunk, events: list[Event] | None) -> None:
        if normalized.usage is not None:
            self._usage = normalized.usage
            if events is not None:
                events.append(UsageReported(normalized.usage))
        if normalized.error is not None:
            self._provider_error(normalized, *normalized.error)
        for delta in normalized.choices:
            self._consume_choice(normalized, delta, events)

    def _end_dialect(self) -> None:
        """What the stream's dialect left unsaid at its end (a Gemini call streamed by
        path whose last part never came: L3), consumed as one more chunk."""
        last = self._reader.end() if self._reader is not None else None
        if last is not None:
            self.normalized = last
            self._consume_normalized(last, None)

    def _read(self, chunk: object) -> Chunk | None:
        """The chunk normalised, problems recorded; ``None`` if unreadable. Kept as
        :attr:`normalized` (the repaired stream reads it)."""
        self.normalized = None
        if self.dialect is None:  # the stream's first item names its dialect
            self.dialect = detect(chunk) or "chat"
            self._reader = reader_for(self.dialect)
        reader = self._reader
        try:
            normalized = normalize(chunk) if reader is None else reader.read(chunk)
        except Exception as exc:  # a foreign object never breaks the stream
            self._skip(f"unreadable chunk ({type(exc).__name__}: {exc})"[:500])
            return None
        self.normalized = normalized
        for problem in normalized.problems:
            self._skip(problem)
        return normalized

    def _consume_choice(
        self, normalized: Chunk, delta: ChoiceDelta, events: list[Event] | None
    ) -> None:
        state = self._choices.get(delta.choice)
        if state is None:
            state = self._choices[delta.choice] = ChoiceState(delta.choice)
        read_role(state, delta.role)  # E10
        if delta.content:
            state.content.append(delta.content)
            if events is not None:
                events.append(TextDelta(delta.content, delta.choice))
        if delta.reasoning:
            state.reasoning.append(delta.reasoning)
            if events is not None:
                events.append(ReasoningDelta(delta.reasoning, delta.choice))
        if delta.reasoning_details or delta.thinking_blocks:
            self._add_reasoning(state, delta, events)
        for fragment in delta.fragments:
            self._apply(state, fragment, events)
        if delta.finish_reason:
            state.finish_reason = delta.finish_reason
            if is_error_finish(delta.finish_reason):
                self._provider_error(
                    normalized, "the stream ended with finish_reason 'error'", None
                )

    def _add_reasoning(
        self, state: ChoiceState, delta: ChoiceDelta, events: list[Event] | None
    ) -> None:
        """F5, F6: the delta's pieces of reasoning metadata, in the order sent."""
        for piece in delta.reasoning_details or ():
            self._add_detail(state, piece, events)
        for piece in delta.thinking_blocks or ():
            self._add_block(state, piece, events)

    @staticmethod
    def _add_detail(state: ChoiceState, piece: dict[str, Any], events: list[Event] | None) -> None:
        """F5: a piece of ``delta.reasoning_details`` joins the entry its ``index`` names.

        Policy: an entry is named by the piece's ``index`` and ``type``. A piece without
        a ``type`` joins the latest entry at its index. A piece whose ``type`` differs
        from the entries at its index starts an entry of its own: gateways reuse an index
        for the next kind of detail (recorded: ``reasoning.summary`` pieces at index 0,
        then the ``reasoning.encrypted`` data at index 0, from OpenRouter's xAI and
        Vercel's GPT-5 and Gemini 3), and one entry of two types would lose one. So does
        a piece whose ``id`` differs from its entry's (two signatures are two entries).
        """
        index, kind = _index_key(piece.get("index")), piece.get("type")
        kind = kind if type(kind) is str else None
        part = state.detail_at.get((index, kind))
        if part is None and kind is not None:  # an entry at the index whose type came later
            latest = state.detail_at.get((index, None))
            if latest is not None and latest.fields.get("type") is None:
                part = latest
        if part is None or _other_id(part, piece.get("id")):
            part = ReasoningPart(len(state.details), TEXT_FIELDS["reasoning_details"])
            state.details.append(part)
            state.detail_at[index, kind] = part
        state.detail_at[index, None] = part
        part.merge(piece)
        if events is not None:
            events.append(
                ReasoningDetailDelta("reasoning_details", part.position, piece, state.number)
            )

    @staticmethod
    def _add_block(state: ChoiceState, piece: dict[str, Any], events: list[Event] | None) -> None:
        """F6: a piece of ``delta.thinking_blocks`` continues the latest block or starts one.

        Policy: pieces carry no index, so blocks follow each other. A piece starts a new
        block when there is none yet, when its ``type`` differs from the latest block's,
        when the latest block already got its ``signature`` (Anthropic signs a thinking
        block with its last piece, so the next piece belongs to the next block), and
        always for ``redacted_thinking``: such a block arrives whole, one piece each (as
        litellm's own ``stream_chunk_builder`` groups them too). A piece without a
        ``type`` continues the latest block (and a typed piece one that had none). A piece
        with an integer ``index`` (the repaired stream's: the block's place) joins that
        block, or starts the next; the index is not a field of the block.
        """
        kind, index = piece.get("type"), piece.get("index")
        blocks = state.blocks
        part = blocks[-1] if blocks else None
        if type(index) is int:
            piece = {key: value for key, value in piece.items() if key != "index"}
            part = blocks[index] if 0 <= index < len(blocks) else None
        elif part is not None:
            latest = part.fields.get("type")
            if (
                kind == "redacted_thinking"
                or latest == "redacted_thinking"
                or (kind is not None and latest is not None and kind != latest)
                or part.fields.get("signature")
            ):
                part = None
        if part is None:
            part = ReasoningPart(len(blocks), TEXT_FIELDS["thinking_blocks"])
            blocks.append(part)
        part.merge(piece)
        state.block_of.append(part.position)
        if events is not None:
            events.append(
                ReasoningDetailDelta("thinking_blocks", part.position, piece, state.number)
            )

    def _apply(self, state: ChoiceState, fragment: Fragment, events: list[Event] | None) -> None:
        action, call = route(state, fragment)
        if action is Action.CONTINUE and call is not None:
            self._merge(state, call, fragment, events)
        elif action is Action.NEW:
            if (
                state.restart is not None
                and fragment.id is not None
                and fragment.call_index in state.by_index
            ):
                abandon(state)  # E10: the new attempt's first call, at an index used before
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
            call.follow(follows)
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
            call.name = merged_name(call.name, f.name, self.tools)
        if f.signature:
            call.signature = f.signature
        if f.extras:
            call.extras.update(f.extras)

    @staticmethod
    def _updated(state: ChoiceState, call: CallState, events: list[Event]) -> None:
        events.append(
            ToolCallUpdated(call.position, _event_id(call), call.name, call.signature, state.number)
        )

    def _add_arguments(
        self, state: ChoiceState, call: CallState, text: str, events: list[Event] | None
    ) -> None:
        call.parts.append(text)
        if self.max_argument_bytes is not None:
            call.size += len(text.encode("utf-8", "surrogatepass"))
            if call.size > self.max_argument_bytes:
                message, _ = self._build(state)
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

    def _provider_error(
        self, chunk: Chunk, text: str, status: int | None, malformed: bool = False
    ) -> None:
        number = chunk.choices[0].choice if chunk.choices else 0
        state = self._choices.get(number)
        message, partial, names = AssembledMessage(usage=self._usage), {}, {}
        if state is not None:
            message, outcomes = self._build(state)
            cut = {p: o for p, o in outcomes.items() if isinstance(o, Truncated | Malformed)}
            partial, names = unsettled(state, cut), names_of(state, cut)
        kind = ProviderMalformedCallError if malformed else ProviderStreamError
        self._fail(
            kind(
                f"the provider reported an error mid-stream: {text}",
                provider_message=text,
                status_code=status,
                message=message,
                partial_arguments=partial,
                partial_names=names,
            )
        )

    # --- building the message ------------------------------------------------------------

    def _settle(self, state: ChoiceState) -> AssembledMessage:
        """The choice's message; raises if a call of it could not be settled."""
        message, outcomes = self._build(state)
        error = failure(state, message, outcomes)
        if error is not None:
            self._fail(error)
        return message

    def _build(
        self, state: ChoiceState, sources: list[tuple[int, int]] | None = None
    ) -> tuple[AssembledMessage, dict[int, Outcome]]:
        """The message from every call that settled, and each call's outcome.

        ``sources``, if given, gets one ``(position, value)`` per call of the message:
        the call state it came from and which JSON value of that state's arguments it
        is (``value`` > 0 only after a B4 split); the repaired stream reads it."""
        calls: list[ToolCall] = []
        outcomes: dict[int, Outcome] = {}
        values_seen: dict[int, int] = {}  # B4: values so far per originating call
        ids: dict[str, ToolCall] = {}  # G3, G4: the first call with each id
        for call in state.calls:
            if call.abandoned:
                continue
            outcome = outcomes[call.position] = settle(state, call, self._no_arguments)
            if isinstance(outcome, Complete):
                origin = call.origin or call
                for value, (arguments, parsed) in enumerate(outcome.values):
                    n = values_seen.get(origin.position, 0)
                    values_seen[origin.position] = n + 1
                    tool = _tool_call(origin, call, arguments, parsed, len(calls), n)
                    if not repeated(state, tool, ids, call.position):
                        calls.append(tool)
                        if sources is not None:
                            sources.append((call.position, value))
        calls, details, blocks = reasoning_metadata(state, calls)
        message = AssembledMessage(
            content="".join(state.content),
            reasoning="".join(state.reasoning),
            tool_calls=calls,
            finish_reason=state.finish_reason,
            usage=self._usage,
            diagnostics=[*self._problems, *state.diagnostics],
            choice=state.number,
            reasoning_details=details,
            thinking_blocks=blocks,
        )
        return message, outcomes


def _index_key(value: object) -> int | None:
    """A reasoning detail's ``index`` as a key: an integer, a digit string the same index
    (as G6), anything else absent."""
    if type(value) is int:
        return value
    return int(value) if type(value) is str and value.isdigit() else None


def _other_id(part: ReasoningPart, piece_id: object) -> bool:
    """Whether a piece's ``id`` names another entry than ``part`` (both non-empty)."""
    part_id = part.fields.get("id")
    return bool(piece_id) and bool(part_id) and piece_id != part_id


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
    origin: CallState,
    call: CallState,
    arguments: str,
    parsed: dict[str, Any],
    index: int,
    n: int,
) -> ToolCall:
    """The ``n``-th value of ``origin``'s arguments as a call (n > 0 only after B4 splits),
    settled from ``call`` (``origin`` itself, or a follow-on of it).

    The name is the origin's, else the call's own: a follow-on of a phantom (B9, dropped
    for having no name) named later by a fragment of its own. ``settle`` gave ``call`` a
    name, so every call in the message has one (E9 raises otherwise)."""
    first = n == 0  # the signature and extras belong to the first value
    name = origin.name or call.name
    assert name, "settle() passed a call with no name"
    return ToolCall(
        id=_derived_id(origin.id, n),
        name=name,
        arguments=arguments,
        parsed=parsed,
        index=index,
        thought_signature=origin.signature if first else None,
        extras=dict(origin.extras) if first else {},
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


def _no_argument_tools(tools: Iterable[Any] | Mapping[str, Any] | None) -> frozenset[str]:
    """The declared tools whose parameters schema requires no argument (E11): from
    OpenAI tool dicts, or a mapping of name to schema (the parameters, or a function
    dict holding them). A tool declared by name only is not known to take none."""
    if tools is None or isinstance(tools, str):
        return frozenset()
    if isinstance(tools, Mapping):
        declared = [(name, schema) for name, schema in tools.items()]
    else:
        declared = []
        for tool in tools:
            function = tool.get("function", tool) if isinstance(tool, Mapping) else None
            if isinstance(function, Mapping):
                declared.append((function.get("name"), function))
    names = set()
    for name, schema in declared:
        if isinstance(schema, Mapping):
            parameters = schema.get("parameters", schema)
            if isinstance(parameters, Mapping) and not parameters.get("required"):
                names.add(str(name))
    return frozenset(names)


class AssembleOptions(TypedDict, total=False):
    """The keyword options of :func:`assemble` and :func:`aassemble`."""

    #: The choice whose message is returned (default 0).
    choice: int
    #: A cap on the UTF-8 size of one call's arguments (:class:`ToolCallAssembler`).
    max_argument_bytes: int | None
    #: The stream's wire dialect (:class:`ToolCallAssembler`); by default its first item's.
    dialect: str | None


def _quiet(tools: _Tools, options: AssembleOptions) -> ToolCallAssembler:
    """An assembler for a whole stream: no events, scanning only when needed."""
    unknown = options.keys() - AssembleOptions.__optional_keys__
    if unknown:  # as a signature would say it, for callers no type checker reads
        raise TypeError(f"unexpected keyword argument {', '.join(map(repr, sorted(unknown)))}")
    assembler = ToolCallAssembler(
        tools,
        max_argument_bytes=options.get("max_argument_bytes"),
        dialect=options.get("dialect"),
    )
    assembler._quiet = True
    return assembler


def assemble(
    chunks: Iterable[object], tools: _Tools = None, **options: Unpack[AssembleOptions]
) -> AssembledMessage:
    """Assemble a whole stream; the message of ``options["choice"]`` (default 0), by
    the fast path (no events). ``tools`` as for :class:`ToolCallAssembler`.

    ``TypeError`` when ``chunks`` is not an iterable of chunks: not iterable, a string or
    bytes, or items none of which is a chunk."""
    if isinstance(chunks, (str, bytes, bytearray)) or not isinstance(chunks, Iterable):
        raise TypeError(f"expected an iterable of chunks, got {type(chunks).__name__}")
    assembler = _quiet(tools, options)
    assembler._consume_all(chunks, None)
    return assembler._finish_stream(options.get("choice", 0))


async def aassemble(
    chunks: AsyncIterable[object], tools: _Tools = None, **options: Unpack[AssembleOptions]
) -> AssembledMessage:
    """:func:`assemble` for an async stream."""
    if not isinstance(chunks, AsyncIterable):
        raise TypeError(f"expected an async iterable of chunks, got {type(chunks).__name__}")
    assembler = _quiet(tools, options)
    async for chunk in chunks:
        assembler._consume_all((chunk,), None)
    return assembler._finish_stream(options.get("choice", 0))
