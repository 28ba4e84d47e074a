"""The openai SDK's chat-completions stream state, assembling tool calls through the core.

:class:`StreamFixChatCompletionStreamState` is ``ChatCompletionStreamState`` (what
``client.chat.completions.stream(...)``, ``ChatCompletionStream`` and
``AsyncChatCompletionStream`` run every chunk through) with one change: where a fragment
of a tool call belongs is decided by :class:`streamfix.ToolCallAssembler`, not by the
fragment's ``index``. Stock indexes its snapshot's ``tool_calls`` list with the index the
provider sent, so a call sent whole with no index (Mistral) is a ``TypeError``, indices
starting at 1 (litellm's translation of Claude) an ``IndexError``, two calls sharing an
index are glued, and a name repeated on every fragment is concatenated.

How, keeping stock's contract:

- the chunk is fed to the core first; its events say which call (by the core's
  position, 0, 1, 2...) each new id, name and argument piece went to;
- the snapshot's tool calls are built from those events (the name once, the id once,
  the arguments appended), and the message's other fields accumulate exactly as stock
  accumulates them (``accumulate_delta``), but only the fields the chunk carries: stock
  rebuilds the whole message from a dump of itself on every chunk;
- stock's own ``_build_events`` then runs on the chunk with its ``tool_calls`` rewritten
  to carry those positions and argument pieces (the original chunk when it already did,
  so a stream stock gets right gives stock's events, in stock's order); the ``chunk``
  event carries the chunk as received;
- ``get_final_completion()`` takes the calls of the core's assembled message (B4's split
  calls, I1's decoded arguments), then stock's ``parse_chat_completion`` as stock does;
- an error payload inside the stream raises the SDK's ``APIError`` with the provider's
  text (stock: ``TypeError``); arguments cut off raise the core's typed truncation error
  from ``get_final_completion()`` (stock: invalid JSON handed on), except where stock
  already raises ``LengthFinishReasonError`` / ``ContentFilterFinishReasonError``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from jiter import from_json
from openai import APIError, ContentFilterFinishReasonError, LengthFinishReasonError
from openai._models import build, construct_type
from openai._utils import is_given
from openai.lib._parsing import ResponseFormatT, get_input_tool_by_name
from openai.lib._parsing._completions import has_parseable_input
from openai.lib.streaming._deltas import accumulate_delta
from openai.lib.streaming.chat._completions import ChatCompletionStreamState
from openai.lib.streaming.chat._events import (
    ChatCompletionStreamEvent,
    ChunkEvent,
    FunctionToolCallArgumentsDeltaEvent,
)
from openai.lib.streaming.chat._types import (
    ParsedChatCompletionSnapshot,
    ParsedChoiceSnapshot,
)
from openai.types.chat import (
    ChatCompletionChunk,
    ParsedChatCompletion,
    ParsedChatCompletionMessage,
    ParsedFunctionToolCall,
)
from openai.types.chat.chat_completion_chunk import (
    Choice,
    ChoiceDeltaToolCall,
    ChoiceDeltaToolCallFunction,
)

from streamfix import (
    ArgumentsDelta,
    AssembledMessage,
    Event,
    ProviderStreamError,
    StreamFixError,
    ToolCall,
    ToolCallAssembler,
    ToolCallCompleted,
    ToolCallStarted,
    ToolCallUpdated,
)

from ._versions import finish_reason_error, not_given, placeholder_request

__all__ = ["StreamFixChatCompletionStreamState"]

_Message = ParsedChatCompletionMessage[object]
# The default of the state's arguments: the SDK's own "not given" (``_versions``).
_UNSET: Any = object()
# One entry of a rewritten chunk: (the call's position, the argument text it added).
_Entry = tuple[int, str]


class StreamFixChatCompletionStreamState(ChatCompletionStreamState[ResponseFormatT]):
    """``ChatCompletionStreamState`` whose tool calls are assembled by the core.

    Usable as it is (no patching), as the SDK documents its own state class::

        state = StreamFixChatCompletionStreamState(input_tools=tools)
        for chunk in client.chat.completions.create(..., stream=True):
            state.handle_chunk(chunk)
        completion = state.get_final_completion()

    Same arguments, events, snapshot and final completion as the SDK's class.
    """

    def __init__(self, *, input_tools: Any = _UNSET, response_format: Any = _UNSET) -> None:
        unset = not_given()
        super().__init__(
            input_tools=unset if input_tools is _UNSET else input_tools,
            response_format=unset if response_format is _UNSET else response_format,
        )
        self._assembler = ToolCallAssembler(self._input_tools)
        self._snapshot: ParsedChatCompletionSnapshot | None = None
        # Per choice: the message's fields other than tool calls, as stock accumulates them.
        self._fields: dict[int, dict[object, object]] = {}
        self._entries: dict[int, list[_Entry]] = {}  # this chunk's, per choice
        self._current: dict[int, int] = {}  # per choice: the call touched last
        self._final: dict[int, AssembledMessage] | StreamFixError | None = None
        self._chunk_events: list[Event] = []
        self._templates: dict[type[Any], Any] = {}  # see _event
        self._strict = any(  # whether a declared tool is strict (its arguments parsed)
            isinstance(tool, dict) and (cast(Any, tool).get("function") or {}).get("strict")
            for tool in self._input_tools
        )
        self._sent: ChatCompletionChunk | None = None  # the chunk as received
        # (choice, thought signature) -> the provider fields of the entry that sent it
        self._signed: dict[tuple[int, str], dict[str, Any]] = {}
        self._wire: dict[tuple[int, object], int] = {}  # (choice, wire index) -> position

    def handle_chunk(
        self, chunk: ChatCompletionChunk
    ) -> Iterable[ChatCompletionStreamEvent[ResponseFormatT]]:
        """Accumulate a chunk; the events stock fires for it (see the module's doc)."""
        try:
            events = self._assembler.feed(chunk)
        except ProviderStreamError as error:
            raise _api_error(error, chunk) from error
        self._chunk_events, self._sent = events, chunk
        continued = self._continued(chunk)
        if continued is not None:
            return continued
        self._entries = {}
        rewritten = self._rewrite(chunk)
        fired = list(super().handle_chunk(rewritten))
        if rewritten is not chunk and fired and isinstance(fired[0], ChunkEvent):
            fired[0].chunk = chunk
        return fired

    def _continued(
        self, chunk: ChatCompletionChunk
    ) -> list[ChatCompletionStreamEvent[ResponseFormatT]] | None:
        """The chunk most of a stream is, stock's steps for it done directly: one choice,
        one entry, only argument text, for the call the chunk before touched (the core
        says so: one ``ArgumentsDelta`` with that text), no finish reason or logprobs.
        ``None`` for any other chunk."""
        events, snapshot = self._chunk_events, self._snapshot
        if snapshot is None or not events or not isinstance(events[0], ArgumentsDelta):
            return None
        if len(events) > 2 or (len(events) == 2 and not isinstance(events[1], ToolCallCompleted)):
            return None
        choices = chunk.choices
        if len(choices) != 1:
            return None
        choice, delta = choices[0], events[0]
        entries = choice.delta.tool_calls
        if (
            choice.finish_reason
            or choice.logprobs is not None
            or not entries
            or len(entries) != 1
            or entries[0].index != delta.position
            or self._current.get(choice.index) != delta.position
            or entries[0].function is None
            or entries[0].function.arguments != delta.delta
            or entries[0].model_extra
            or not _only_calls(choice.delta)
            or len(snapshot.choices) <= choice.index
            or snapshot.choices[choice.index].finish_reason
        ):
            return None
        message = snapshot.choices[choice.index].message
        function = (message.tool_calls or [])[delta.position].function
        _append_arguments(function, delta.delta)
        self._reparse(message)
        self._parse_partial(message, delta.position)
        _top_level(snapshot, chunk)
        return self._argument_events(chunk, snapshot, function, delta.position, delta.delta)

    def get_final_completion(self) -> ParsedChatCompletion[ResponseFormatT]:
        """The completion, its tool calls those of the core's assembled message."""
        if self._final is None:
            try:
                self._final = self._assembler.finish_all()
            except StreamFixError as error:
                self._final = error
        if isinstance(self._final, StreamFixError):
            raise self._as_stock(self._final)
        for choice in self.current_completion_snapshot.choices:
            message = self._final.get(choice.index)
            if message is None:
                continue
            if message.tool_calls or choice.message.tool_calls:
                choice.message.tool_calls = [
                    _snapshot_call(call, self._signed_fields(choice.index, call))
                    for call in message.tool_calls
                ]
            for key in _REASONING_METADATA:  # F5, F6, as the non-streamed message has them
                if getattr(message, key):
                    setattr(choice.message, key, getattr(message, key))
        return super().get_final_completion()

    def _as_stock(self, error: StreamFixError) -> Exception:
        """The core could not settle a call: where the SDK raises its own error for the
        finish reason (``length``, ``content_filter``) that error, else the core's (both
        carry what was assembled: the SDK's as ``completion``, the core's as ``message``)."""
        reasons = {choice.finish_reason for choice in self.current_completion_snapshot.choices}
        if reasons & {"length", "content_filter"}:
            try:
                super().get_final_completion()
            except (LengthFinishReasonError, ContentFilterFinishReasonError) as stock:
                stock.__cause__ = error
                return stock
        return error

    # --- the chunk stock's events are built from -----------------------------------------

    def _rewrite(self, chunk: ChatCompletionChunk) -> ChatCompletionChunk:
        """``chunk`` with each choice's ``tool_calls`` as the core placed them: one entry
        per entry sent (the position of the call it went to, the argument text it added;
        stock fires one delta event per entry), ``chunk`` itself when it already says
        exactly that."""
        choices = getattr(chunk, "choices", None)
        changed = not isinstance(choices, list)
        rebuilt: list[Choice] = []
        for choice in choices if isinstance(choices, list) else ():
            sent = choice.delta.tool_calls or []
            found = self._events_of(choice.index)
            wanted = _matched(sent, found, self._current.get(choice.index))
            self._entries[choice.index] = wanted
            if wanted:
                self._current[choice.index] = wanted[-1][0]
            if _says(sent, wanted):
                rebuilt.append(choice)
                continue
            changed = True
            calls = [
                ChoiceDeltaToolCall.construct(
                    index=position, function=ChoiceDeltaToolCallFunction.construct(arguments=text)
                )
                for position, text in wanted
            ]
            delta = choice.delta.model_copy(update={"tool_calls": calls or None})
            rebuilt.append(choice.model_copy(update={"delta": delta}))
        if not changed:
            return chunk
        return chunk.model_copy(update={"choices": rebuilt})

    def _build_events(
        self, *, chunk: ChatCompletionChunk, completion_snapshot: ParsedChatCompletionSnapshot
    ) -> list[ChatCompletionStreamEvent[ResponseFormatT]]:
        """Stock's events; for the chunk most of a stream is (one choice, one entry, only
        argument text) the same two events built directly: stock's ``build`` costs more
        per chunk than all the rest of the helper."""
        choices = chunk.choices
        if len(choices) != 1 or choices[0].logprobs is not None:
            return super()._build_events(chunk=chunk, completion_snapshot=completion_snapshot)
        choice = choices[0]
        entries = choice.delta.tool_calls
        if not entries or len(entries) != 1 or not _only_calls(choice.delta):
            return super()._build_events(chunk=chunk, completion_snapshot=completion_snapshot)
        entry, choice_snapshot = entries[0], completion_snapshot.choices[choice.index]
        function = (choice_snapshot.message.tool_calls or [])[entry.index].function
        text = (entry.function.arguments if entry.function else None) or ""
        events = self._argument_events(chunk, completion_snapshot, function, entry.index, text)
        events += self._get_choice_state(choice).get_done_events(
            choice_chunk=choice,
            choice_snapshot=choice_snapshot,
            response_format=self._response_format,
        )
        return events

    def _argument_events(
        self,
        chunk: ChatCompletionChunk,
        snapshot: ParsedChatCompletionSnapshot,
        function: Any,
        index: int,
        text: str,
    ) -> list[ChatCompletionStreamEvent[ResponseFormatT]]:
        """Stock's two events for a chunk that only adds ``text`` to call ``index``'s
        arguments: the chunk event, then the arguments-delta event."""
        return [
            self._event(ChunkEvent, type="chunk", chunk=chunk, snapshot=snapshot),
            self._event(
                FunctionToolCallArgumentsDeltaEvent,
                type="tool_calls.function.arguments.delta",
                name=function.name,
                index=index,
                arguments=function.arguments,
                parsed_arguments=function.parsed_arguments,
                arguments_delta=text,
            ),
        ]

    def _event(self, kind: type[Any], **fields: Any) -> Any:
        """An event as stock's ``build`` makes it: built so once per kind, then copies of
        that one with these fields (a shallow copy, where ``build`` walks every field's
        type on every chunk)."""
        template = self._templates.get(kind)
        if template is None:
            template = self._templates[kind] = build(kind, **fields)
            return template
        return _copied(template, fields)

    # --- the snapshot (stock's ``_accumulate_chunk``, incremental) -----------------------

    def _accumulate_chunk(self, chunk: ChatCompletionChunk) -> ParsedChatCompletionSnapshot:
        snapshot = self._snapshot
        if snapshot is None:
            data = chunk.to_dict()
            data.pop("obfuscation", None)
            data["choices"] = []
            value = {"system_fingerprint": None, **data, "object": "chat.completion"}
            snapshot = cast(
                ParsedChatCompletionSnapshot,
                construct_type(type_=ParsedChatCompletionSnapshot, value=value),
            )
            for choice in chunk.choices:
                snapshot.choices.append(self._new_choice(choice))
            self._snapshot = snapshot
            return snapshot
        for choice in chunk.choices:
            self._accumulate_choice(snapshot, choice)
        _top_level(snapshot, chunk)
        return snapshot

    def _new_choice(self, choice: Choice) -> ParsedChoiceSnapshot:
        fields = self._fields[choice.index] = accumulate_delta({}, _fields_of(choice))
        value = {**choice.model_dump(exclude_unset=True, exclude={"delta"}), "message": fields}
        made = cast(ParsedChoiceSnapshot, construct_type(type_=ParsedChoiceSnapshot, value=value))
        self._add_calls(made.message, choice.index)
        self._add_extras(made.message, choice.index)
        return made

    def _accumulate_choice(self, snapshot: ParsedChatCompletionSnapshot, choice: Choice) -> None:
        """Stock's steps for one choice of a chunk, the message updated in place."""
        try:
            choice_snapshot = snapshot.choices[choice.index]
        except IndexError:
            choice_snapshot = self._new_choice(choice)
            snapshot.choices.append(choice_snapshot)
        else:
            self._merge_fields(choice_snapshot.message, choice)
            self._add_calls(choice_snapshot.message, choice.index)
            self._add_extras(choice_snapshot.message, choice.index)
        message = choice_snapshot.message
        if choice.finish_reason:
            choice_snapshot.finish_reason = choice.finish_reason
            self._check_finish(snapshot, choice.finish_reason)
        self._reparse(message)
        for entry in choice.delta.tool_calls or []:
            self._parse_partial(message, entry.index)
        if choice.logprobs is not None:
            _add_logprobs(choice_snapshot, choice)

    def _reparse(self, message: _Message) -> None:
        """Stock's ``parsed`` of a message after a chunk: none, or the content parsed
        partially when a pydantic ``response_format`` was given."""
        if message.parsed is not None:
            message.parsed = None
        if (
            message.content
            and not message.refusal
            and is_given(self._rich_response_format)
            and message.content.lstrip()
        ):
            message.parsed = _partial(message.content)

    def _check_finish(self, snapshot: ParsedChatCompletionSnapshot, reason: str) -> None:
        """Stock's errors for a finish reason, where stock raises them."""
        if not has_parseable_input(
            response_format=self._response_format, input_tools=self._input_tools
        ):
            return
        if reason == "length":
            raise finish_reason_error(LengthFinishReasonError, snapshot)
        if reason == "content_filter":
            raise finish_reason_error(ContentFilterFinishReasonError, snapshot)

    def _merge_fields(self, message: _Message, choice: Choice) -> None:
        """The chunk's fields other than tool calls, accumulated as stock accumulates
        them; only those fields of the message are rebuilt (stock rebuilds all)."""
        if _only_calls(choice.delta):
            return
        delta = _fields_of(choice)
        if not delta:
            return
        fields = accumulate_delta(self._fields[choice.index], delta)
        fresh = construct_type(type_=type(message), value={k: fields[k] for k in delta})
        for key in delta:
            setattr(message, str(key), getattr(fresh, str(key)))

    def _add_calls(self, message: _Message, choice: int) -> None:
        """The calls' new ids, names and argument text, from the core's events; a
        signature the core set on a call (F2, F3), with the fields that carried it."""
        self._record_signatures(choice)
        for event in self._events_of(choice):
            calls = message.tool_calls
            if isinstance(event, ToolCallStarted):
                if calls is None:
                    calls = message.tool_calls = []
                calls.append(_snapshot_call(event))
            elif calls is None:
                continue
            elif isinstance(event, ToolCallUpdated):
                call = calls[event.position]
                call.id = event.id or call.id
                call.function.name = event.name or ""
            if isinstance(event, ToolCallStarted | ToolCallUpdated) and event.thought_signature:
                signed = self._signed_fields(choice, event)
                call = calls[event.position]
                merged = _merged(call.model_extra or {}, signed)
                for key in signed:
                    setattr(call, key, merged[key])
            elif isinstance(event, ArgumentsDelta):
                function = calls[event.position].function
                function.arguments = (function.arguments or "") + event.delta

    def _add_extras(self, message: _Message, choice: int) -> None:
        """The provider's own fields of the chunk's entries (``extra_content``...) on the
        calls they belong to: the call with the entry's id, else the one call the chunk
        touched, else the call the entry's wire index went to last (the final completion
        takes them from the core's assembled message). A signature-only entry (F2, F3)
        is left to :meth:`_add_calls`: the core says which call it signs."""
        calls = message.tool_calls or []
        touched = self._entries.get(choice, [])
        for entry in _sent_entries(self._sent, choice):
            if _signature_only(entry):
                continue
            position = next(
                (n for n, call in enumerate(calls) if entry.id and call.id == entry.id), None
            )
            if position is None and len(touched) == 1:
                position = touched[0][0]
            if position is None:
                position = self._wire.get((choice, entry.index))
            if position is None or position >= len(calls):
                continue
            self._wire[choice, entry.index] = position
            for key, value in (entry.model_extra or {}).items():
                setattr(calls[position], key, value)

    def _record_signatures(self, choice: int) -> None:
        """F2, F3: the provider fields of the chunk's entries that carry a thought
        signature, by signature: the core says which call a signature belongs to (a
        signature-only entry names none, or the wrong one), the entry where it was sent."""
        for entry in _sent_entries(self._sent, choice):
            extras = entry.model_extra or {}
            signature = _signature_of(extras)
            if signature is not None:
                self._signed[choice, signature] = extras

    def _signed_fields(
        self, choice: int, call: ToolCall | ToolCallStarted | ToolCallUpdated
    ) -> dict[str, Any]:
        """The fields that sent ``call``'s signature, where its own fields (an F1 call's)
        do not already carry it (empty: nothing to add)."""
        signature = call.thought_signature
        own = call.extras if isinstance(call, ToolCall) else {}
        if not signature or _signature_of(own) == signature:
            return {}
        return self._signed.get((choice, signature), {})

    def _events_of(self, choice: int) -> list[Event]:
        return [e for e in self._chunk_events if getattr(e, "choice", None) == choice]

    def _parse_partial(self, message: _Message, position: int) -> None:
        """Stock's partial parse of a strict tool's arguments."""
        if not self._strict:
            return
        call = (message.tool_calls or [])[position]
        tool = get_input_tool_by_name(input_tools=self._input_tools, name=call.function.name)
        if tool and tool.get("function", {}).get("strict") and call.function.arguments:
            call.function.parsed_arguments = _partial(call.function.arguments)


def _matched(
    sent: list[ChoiceDeltaToolCall], events: list[Event], current: int | None
) -> list[_Entry]:
    """One entry per entry sent, read off the core's events for the choice (which follow
    the entries' order): an entry naming a call (id, name, provider fields) takes the
    next ``ToolCallStarted`` / ``ToolCallUpdated``, an entry with argument text the next
    ``ArgumentsDelta`` carrying that text; an entry that added nothing (an empty or
    repeated fragment) stays with the call of the entry before it. Events no entry took
    (none on the wire shapes known) follow, one entry per run about the same call."""
    calls = [e for e in events if isinstance(e, ToolCallStarted | ToolCallUpdated | ArgumentsDelta)]
    found: list[_Entry] = []
    taken, position = 0, current
    for entry in sent:
        function = entry.function
        names = entry.id or entry.model_extra or (function is not None and function.name)
        if names and taken < len(calls) and not isinstance(calls[taken], ArgumentsDelta):
            position, taken = calls[taken].position, taken + 1
        text = function.arguments if function is not None else None
        event = calls[taken] if taken < len(calls) else None
        if text and isinstance(event, ArgumentsDelta) and event.delta == text:
            found.append((event.position, text))
            position, taken = event.position, taken + 1
        elif position is not None:
            found.append((position, ""))
    for event in calls[taken:]:
        text = event.delta if isinstance(event, ArgumentsDelta) else ""
        if found and found[-1][0] == event.position:
            found[-1] = (event.position, found[-1][1] + text)
        else:
            found.append((event.position, text))
    return found


def _append_arguments(function: Any, text: str) -> None:
    """``function.arguments += text``. The text is taken out of the model first, so that
    where nothing else holds it (no event kept by the caller) CPython extends it in place
    instead of copying every argument byte so far on every chunk."""
    fields = function.__dict__
    arguments = fields.pop("arguments", None) or ""
    arguments += text
    fields["arguments"] = arguments


def _copied(template: Any, fields: dict[str, Any]) -> Any:
    """``template.model_copy(update=fields)``, as pydantic 2 copies a model (a shallow copy
    of its ``__dict__``, its fields set, extra and private values), without the generic
    path's overhead: it runs for two events of nearly every chunk."""
    if not hasattr(template, "__pydantic_fields_set__"):  # pydantic 1
        return template.model_copy(update=fields)
    event = object.__new__(type(template))
    state = template.__dict__.copy()
    state.update(fields)
    extra, private = template.__pydantic_extra__, template.__pydantic_private__
    object.__setattr__(event, "__dict__", state)
    object.__setattr__(event, "__pydantic_fields_set__", set(template.__pydantic_fields_set__))
    object.__setattr__(event, "__pydantic_extra__", None if extra is None else dict(extra))
    object.__setattr__(event, "__pydantic_private__", None if private is None else dict(private))
    return event


def _top_level(snapshot: ParsedChatCompletionSnapshot, chunk: ChatCompletionChunk) -> None:
    """Stock's top-level fields of the snapshot after a chunk (set only when they
    change: an assignment to a pydantic model costs more than the comparison)."""
    if snapshot.usage is not chunk.usage:
        snapshot.usage = chunk.usage
    if snapshot.system_fingerprint != chunk.system_fingerprint:
        snapshot.system_fingerprint = chunk.system_fingerprint
    moderation = getattr(chunk, "moderation", None)  # openai 3.x
    if moderation is not None:
        kind = type(snapshot).model_fields["moderation"].annotation
        cast(Any, snapshot).moderation = construct_type(type_=kind, value=moderation.to_dict())


def _sent_entries(chunk: ChatCompletionChunk | None, choice: int) -> list[ChoiceDeltaToolCall]:
    """The tool-call entries of ``chunk``'s ``choice`` that carry provider fields."""
    found = []
    for sent in getattr(chunk, "choices", None) or []:
        if sent.index == choice:
            found += [e for e in sent.delta.tool_calls or [] if e.model_extra]
    return found


def _says(sent: list[ChoiceDeltaToolCall], wanted: list[_Entry]) -> bool:
    """Whether a chunk's own entries already name the calls and text the core found."""
    if len(sent) != len(wanted):
        return False
    for entry, (position, text) in zip(sent, wanted, strict=True):
        function = entry.function
        if entry.index != position or function is None or (function.arguments or "") != text:
            return False
    return True


def _only_calls(delta: Any) -> bool:
    """Whether a delta carries tool calls and nothing else (read without dumping it)."""
    fields = getattr(delta, "model_fields_set", None)
    return fields is not None and fields <= {"tool_calls"} and not delta.model_extra


#: F5, F6: lists whose pieces stock's ``accumulate_delta`` cannot join (thinking blocks
#: have no ``index``: ``RuntimeError``; its string fields such as ``format`` would be
#: concatenated): the final completion takes them from the core's assembled message.
_REASONING_METADATA = ("reasoning_details", "thinking_blocks")


def _fields_of(choice: Choice) -> dict[object, object]:
    """The delta as stock accumulates it, less its tool calls and reasoning metadata."""
    delta = cast("dict[object, object]", choice.delta.to_dict())
    delta.pop("tool_calls", None)
    for key in _REASONING_METADATA:
        delta.pop(key, None)
    return delta


def _partial(text: str) -> object:
    return from_json(bytes(text, "utf-8"), partial_mode=True)


def _add_logprobs(snapshot: ParsedChoiceSnapshot, choice: Choice) -> None:
    """Stock's accumulation of a choice's logprobs."""
    from openai.types.chat.chat_completion import ChoiceLogprobs

    logprobs = choice.logprobs
    assert logprobs is not None
    if snapshot.logprobs is None:
        snapshot.logprobs = ChoiceLogprobs.construct(
            content=logprobs.content, refusal=logprobs.refusal
        )
        return
    if logprobs.content:
        if snapshot.logprobs.content is None:
            snapshot.logprobs.content = []
        snapshot.logprobs.content.extend(logprobs.content)
    if logprobs.refusal:
        if snapshot.logprobs.refusal is None:
            snapshot.logprobs.refusal = []
        snapshot.logprobs.refusal.extend(logprobs.refusal)


def _snapshot_call(
    call: ToolCall | ToolCallStarted, signed: dict[str, Any] | None = None
) -> ParsedFunctionToolCall:
    """A call of the snapshot: a new one from its ``ToolCallStarted`` (no arguments
    yet), or a finished one of the assembled message, with ``signed``: the fields of
    the entry that sent its signature when that entry was not its own (F2, F3), as the
    non-streamed message carries them (Gemini: ``extra_content.google.thought_signature``).
    """
    if isinstance(call, ToolCall):
        value: dict[str, Any] = {
            "index": call.index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments},
            **_merged(call.extras, signed or {}),
        }
    else:
        value = {
            "index": call.position,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name or "", "arguments": ""},
        }
    return cast(ParsedFunctionToolCall, construct_type(type_=ParsedFunctionToolCall, value=value))


def _signature_of(fields: dict[str, Any]) -> str | None:
    """The thought signature provider fields carry (``extra_content.<vendor>`` or
    ``provider_specific_fields``, as the core reads them), if any."""
    places = [fields.get("provider_specific_fields")]
    content = fields.get("extra_content")
    if isinstance(content, dict):
        places += list(content.values())
    for place in places:
        if isinstance(place, dict) and isinstance(place.get("thought_signature"), str):
            return str(place["thought_signature"])
    return None


def _signature_only(entry: ChoiceDeltaToolCall) -> bool:
    """Whether an entry carries a thought signature and names no call (no id, name or
    argument text): wire-shapes F2, F3."""
    function = entry.function
    if entry.id or (function is not None and (function.name or function.arguments)):
        return False
    return _signature_of(entry.model_extra or {}) is not None


def _merged(fields: dict[str, Any], added: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with ``added`` merged in, nested dicts key by key (a call's own
    ``extra_content`` keeps its other vendors' entries)."""
    if not added:
        return fields
    merged = dict(fields)
    for key, value in added.items():
        old = merged.get(key)
        nested = isinstance(old, dict) and isinstance(value, dict)
        merged[key] = _merged(cast("dict[str, Any]", old), value) if nested else value
    return merged


def _api_error(error: ProviderStreamError, chunk: ChatCompletionChunk) -> APIError:
    """The SDK's own error for a provider error inside the stream, as its ``Stream``
    raises one: the provider's message, the error object as the body."""
    body: Any = getattr(chunk, "error", None)
    if hasattr(body, "to_dict"):
        body = body.to_dict()
    return APIError(message=error.provider_message, request=placeholder_request(), body=body)
