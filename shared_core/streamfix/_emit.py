"""The repaired stream (wire-shapes R): the assembler's decisions written back out, as they
are made, as chunks in OpenAI's own form.

:class:`StreamRepairer` feeds every chunk to a :class:`~._assembler.ToolCallAssembler` and
looks at what the assembler decided: which call each fragment went to, which calls are
new, what their names, ids and signatures are now, how much of their arguments is a
clean prefix of one JSON object. It routes nothing itself. What it passes on:

* R1: a chunk whose tool-call entry is already what the repaired stream would send (the
  call's place in the message as ``index``, the header with id, ``type`` and the whole
  name, continuations with ``index`` and a piece of arguments) is passed on as the same
  object. So is a chunk with no tool-call entry (text, reasoning, usage, role).
* R2-R5: anything else is rewritten: one entry per chunk, the other delta fields on the
  first, a call's header once, its arguments as the pieces of one JSON object.
* R6, what waits (nothing else does): a call's header until its name is decided (a
  declared tool that no other declared tool extends, else its first argument byte or
  the end of its choice; C2), and until every call before it has one (calls keep the
  message's order); a call that has no name yet (C3) or re-sends the id of a call
  already passed on (G3, G4) until the end; the arguments after a value completed or
  once they stop being one object's prefix (B4, C5, I1, I3) until the end; a
  ``finish_reason`` until the next chunk shows whether the choice goes on (E2).
* A choice's first chunk names its role, as OpenAI's does (added where the provider sent
  none).
* R8-R10 at :meth:`StreamRepairer.finish`: what was held, settled as the message is; the
  finish reason once, last (``stop`` with calls is ``tool_calls``); then the error, if
  the stream ends in one.

An Ollama ``/api/chat`` line comes out as OpenAI chunk dicts (R11: this is OpenAI's wire;
the proxy keeps Ollama's own form for ``/api/chat``). Chunks come out of the type they
came in: dicts as dicts; any other chunk (the openai
SDK's ``ChatCompletionChunk``, litellm's ``ModelResponseStream``) passed on as the same
object where nothing changes, and rebuilt from the plain dict the core writes where
something does, by the ``rebuild`` callable the wire shim gives (the core imports no SDK;
without one, ``type(chunk).model_validate``).

A prefix passed on cannot be taken back: where the provider takes back arguments the
repaired stream already passed on (I3 after its first bytes, E10 after an abandoned
call's header, a repeat dropped after it was sent), :meth:`finish` ends the stream with
:class:`~._errors.MalformedToolCallError` carrying the assembled message.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any

from ._assembler import ToolCallAssembler, _event_id
from ._dialects import Reader, detect, reader_for
from ._errors import AssemblerClosedError, MalformedToolCallError, StreamFixError
from ._fastpath import consume, field, fields
from ._normalize import ChoiceDelta, Chunk, Fragment
from ._repair import failure
from ._routing import bare_continuation
from ._state import CallState, ChoiceState
from ._types import AssembledMessage, ToolCall

__all__ = ["Rebuild", "StreamRepairer", "arepair", "repair"]

#: Turns a plain chunk dict the repairer wrote into a chunk of the type of ``like``.
Rebuild = Callable[[dict[str, Any], Any], Any]

_STANDARD = frozenset(("index", "id", "type", "function"))
_BLANKS = " \t\r\n"
_STOPS = frozenset(("stop", "end_turn"))


class _Call:
    """What the repaired stream has passed on of one call (one per ``CallState``).

    ``out``: the call's index on the repaired wire (``None`` until its header went out);
    ``sent_parts``/``sent_chars``: how much of its argument fragments went out; ``frozen``:
    its arguments stopped being one object's prefix (the rest waits for the end)."""

    __slots__ = (
        "begun",
        "frozen",
        "id",
        "name",
        "out",
        "sent_chars",
        "sent_parts",
        "signature",
    )

    def __init__(self) -> None:
        self.out: int | None = None
        self.id: str | None = None
        self.name: str | None = None
        self.signature: str | None = None
        self.sent_parts = 0
        self.sent_chars = 0
        self.frozen = False
        self.begun = False  # the arguments' first non-blank character was "{"


class _Held:
    """A finish reason waiting for the next chunk (E2): the chunk that carried it (the
    same object, when nothing of it changed) or what to rebuild it from."""

    __slots__ = ("chunk", "entries", "reason", "template", "usage")

    def __init__(
        self, chunk: Any, reason: str, template: Any, usage: Any, entries: list[Any]
    ) -> None:
        self.chunk = chunk  # the original chunk, passed on as is if nothing changes
        self.reason = reason
        self.template = template  # a chunk whose top-level fields a rebuilt one copies
        self.usage = usage
        self.entries = entries  # the tool-call entries the original chunk carries


class _Choice:
    """What the repaired stream has passed on of one choice."""

    __slots__ = ("calls", "held", "ids", "named", "next_out", "sent_reason")

    def __init__(self) -> None:
        self.named = False  # the role went out (OpenAI names it on a choice's first chunk)
        self.calls: list[_Call] = []
        self.next_out = 0
        self.ids: set[str] = set()
        self.held: _Held | None = None
        self.sent_reason: str | None = None  # the finish reason that went out last


class StreamRepairer:
    """Repair one streamed chat completion, chunk by chunk (sans-I/O).

    ``feed(chunk)`` returns the chunks to pass on now, ``finish()`` those left at the end.
    Neither raises for what the stream carries: when it ends in an error (E4, E5, E9,
    R10), they return what is complete and set :attr:`error`, which the caller raises
    after passing those chunks on (:func:`repair` does). ``tools`` and
    ``max_argument_bytes`` as for :class:`~streamfix.ToolCallAssembler`; ``rebuild``
    makes a chunk of the input's type from the plain dict the repairer wrote.

    :attr:`held` counts the chunks whose tool-call content waited (R6). :attr:`continued`
    is the wire index of the call the latest chunk only continued (the assembler's fast
    path took it), else ``None``. :attr:`messages` holds, after :meth:`finish`, each
    choice's assembled message (what ``ToolCallAssembler.finish`` gives; the message of a
    choice that ended in an error is on the error), so that a wire's own end-of-stream
    builder need not assemble the stream again.

    A stream in another dialect (wire-shapes J-M; :attr:`dialect` from its first item, or
    named) is read by its :class:`~._dialects.Reader` and written in the chat form: each
    item as the chat chunk dict saying the same, repaired as any chat chunk; each chunk
    out made by ``rebuild(body, item)`` if ``rebuild`` was given, else left a dict.
    """

    def __init__(
        self,
        tools: Any = None,
        *,
        max_argument_bytes: int | None = None,
        rebuild: Rebuild | None = None,
        dialect: str | None = None,
    ) -> None:
        self._assembler = ToolCallAssembler(tools, max_argument_bytes=max_argument_bytes)
        self._assembler._quiet = True
        self._rebuild = rebuild or _model_validate
        self._given = rebuild
        if dialect is not None:
            reader_for(dialect)  # ValueError now if unknown
        self.dialect = dialect
        self._reader: Reader | None = None
        self._item: Any = None  # the latest item of a J-M stream
        self._other = self._assembler._consume
        self._more = None if max_argument_bytes is None else self._assembler._add_arguments
        self._choices: dict[int, _Choice] = {}
        self._decided = _decided_names(self._assembler.tools)
        self._token = os.urandom(4).hex()
        self._last: Any = None  # the latest chunk: the template of what finish() writes
        self.error: StreamFixError | None = None
        self.held = 0
        self.continued: int | None = None
        self.messages: dict[int, AssembledMessage] = {}
        self._closed = False

    # --- public API ----------------------------------------------------------------------

    def feed(self, chunk: Any) -> list[Any]:
        """Take one chunk (or one event of a J-M stream); the chunks to pass on now."""
        if self._closed:
            raise AssemblerClosedError("the repairer is closed")
        if self.dialect is None:  # the stream's first item names its dialect
            self.dialect = detect(chunk) or "chat"
            self._reader = reader_for(self.dialect)
        elif self._reader is None and self.dialect != "chat":
            self._reader = reader_for(self.dialect)
        if self._reader is not None:
            return self._translated(chunk, self._reader.read(chunk))
        return self._chat(chunk)

    def _translated(self, item: Any, read: Chunk) -> list[Any]:
        """A J-M item, as the chat chunk it says (:meth:`Reader.chat`), repaired; each
        chunk out made of the item's type by ``rebuild`` if one was given, else a dict."""
        assert self._reader is not None
        self._item = item
        body = self._reader.chat(read)
        if body is None:
            return []
        out = self._chat(body)
        if self._given is None:
            return out
        return [self._given(chunk, item) for chunk in out]

    def _chat(self, chunk: Any) -> list[Any]:
        """Take one chat chunk (or Ollama line)."""
        assembler = self._assembler
        try:  # the assembler's own loop over one chunk (ToolCallAssembler.feed, inlined)
            wire = consume(
                (chunk,), assembler._choices, bare_continuation, self._other, self._more, None
            )
        except StreamFixError as exc:
            return self._fail(exc)
        self.continued = wire
        if wire is not None:
            self._last = chunk
            fast = self._continued(chunk, wire)
            if fast is not None:
                return fast
            number = self._number(chunk)
            fragment = Fragment(wire, None, None, "", None, None)
            delta = ChoiceDelta(number, None, None, [fragment], None, None, None, False)
            return self._rewrite(chunk, [delta], None)
        normalized = assembler.normalized
        if normalized is None or (
            not normalized.choices and normalized.usage is None and normalized.problems
        ):
            return []  # not a chunk: skipped by the assembler, with a diagnostic
        self._last = chunk
        return self._rewrite(chunk, normalized.choices, normalized.usage)

    def finish(self) -> list[Any]:
        """End the stream; the chunks left to pass on (:attr:`error` set if it failed)."""
        if self._closed:
            raise AssemblerClosedError("the repairer is closed")
        out: list[Any] = []
        reader = self._reader
        if reader is not None and self.error is None:  # what the dialect left unsaid
            said = reader.end()
            if said is not None:
                out.extend(self._translated(self._item, said))
        self._closed = True
        assembler = self._assembler
        assembler._check_open()
        assembler._closed = "finished"
        settled: list[Any] = []
        for number in sorted(assembler._choices):
            settled.extend(self._settle(number))
        if reader is not None and self._given is not None:
            settled = [self._given(chunk, self._item) for chunk in settled]
        return out + settled

    # --- the common chunk: it only continues one call -------------------------------------

    def _continued(self, chunk: Any, wire: int) -> list[Any] | None:
        """The fast path: ``[chunk]`` if it passes on as it is, else ``None``."""
        choices = self._choices
        number = next(iter(choices)) if len(choices) == 1 else self._number(chunk)
        mine = choices.get(number)
        call = self._assembler._choices[number].by_index[wire]
        if mine is None or mine.held is not None:
            return None
        position = call.position
        calls = mine.calls
        if position >= len(calls):
            return None
        sent = calls[position]
        if sent.out != wire or sent.frozen or sent.sent_parts != len(call.parts) - 1:
            return None
        text = call.parts[-1]
        if _piece(call, sent, peek=True) != len(text) or _null_type(chunk):
            return None  # G5: "type": null, which the openai SDK's helper copies: rewritten
        sent.sent_parts += 1
        sent.sent_chars += len(text)
        return [chunk]

    @staticmethod
    def _number(chunk: Any) -> int:
        (choice,) = field(chunk, "choices")
        number: int = field(choice, "index")
        return number

    # --- any other chunk ------------------------------------------------------------------

    def _rewrite(self, chunk: Any, deltas: list[ChoiceDelta], usage: Any) -> list[Any]:
        """Pass ``chunk`` on as it is, or rewritten, after releasing held finish reasons."""
        out: list[Any] = []
        going_on = {d.choice for d in deltas if _carries(d)}
        for number, mine in self._choices.items():
            if mine.held is not None:
                out.extend(self._release(number, mine, number in going_on))
        plans = []
        same = len(deltas) <= 1
        for delta in deltas:
            mine = self._choices.setdefault(delta.choice, _Choice())
            entries = self._advance(self._assembler._choices[delta.choice], mine, ending=False)
            if not entries and any(f.arguments or f.name for f in delta.fragments):
                self.held += 1
            plans.append((delta, mine, entries))
            if not mine.named:  # a choice's first chunk names its role, as OpenAI's does
                mine.named = delta.role
                same = same and delta.role
            same = same and self._same(chunk, delta, entries)
        if same:
            if deltas and deltas[0].finish_reason:
                delta, mine, entries = plans[0]
                mine.held = _Held(chunk, deltas[0].finish_reason, chunk, usage, entries)
            else:
                out.append(chunk)
            return out
        for n, (delta, mine, entries) in enumerate(plans):
            last = n == len(plans) - 1
            out.extend(self._written(chunk, delta, mine, entries, usage if last else None))
        return out

    def _written(
        self, chunk: Any, delta: ChoiceDelta, mine: _Choice, entries: list[Any], usage: Any
    ) -> list[Any]:
        """One choice of ``chunk`` rewritten: R5, R8."""
        rest: dict[str, Any]
        if _is_ollama(chunk):  # R11: an Ollama line's text, as an OpenAI delta carries it
            rest = {"role": "assistant", "content": delta.content or None}
            if delta.reasoning:
                rest["reasoning_content"] = delta.reasoning
        else:
            rest = _other_delta_fields(chunk, delta.choice)
            if not mine.named and rest.get("role") is None:
                rest = {**rest, "role": "assistant"}
            if _unindexed(delta.thinking_blocks):
                rest = {**rest, "thinking_blocks": self._indexed(delta)}
        mine.named = True
        specs: list[tuple[dict[str, Any], dict[str, Any] | None]] = []
        if entries or _meaningful(rest):
            first = dict(rest)
            if entries:
                first["tool_calls"] = [entries[0]]
            specs.append((first, _other_choice_fields(chunk, delta.choice)))
            specs.extend(({"tool_calls": [entry]}, None) for entry in entries[1:])
        if delta.finish_reason:
            mine.held = _Held(None, delta.finish_reason, chunk, usage, [])
            usage = None
        elif usage is not None and not specs:
            specs.append(({}, None))
        last = len(specs) - 1
        return [
            self._make(chunk, delta.choice, body, extra, usage=usage if n == last else None)
            for n, (body, extra) in enumerate(specs)
        ]

    def _make(
        self,
        chunk: Any,
        number: int,
        delta: dict[str, Any],
        extra: dict[str, Any] | None,
        *,
        finish: str | None = None,
        usage: Any = None,
    ) -> Any:
        if _is_ollama(chunk):  # R11: an OpenAI chunk, from an Ollama line
            body = {"id": "chatcmpl-ollama", "object": "chat.completion.chunk", "created": 0}
            body["model"] = chunk.get("model") or ""
        else:
            body = {key: value for key, value in _sent(chunk).items() if key != "choices"}
        body["usage"] = usage
        choice = dict(extra or {})
        choice.update(index=number, delta=delta, finish_reason=finish)
        body["choices"] = [choice]
        if type(chunk) is dict:
            if usage is None:
                del body["usage"]
            return body
        return self._rebuild(body, chunk)

    def _indexed(self, delta: ChoiceDelta) -> list[dict[str, Any]]:
        """F6: the delta's ``thinking_blocks`` pieces, each with its block's place in the
        message as ``index`` (where it had none), as OpenAI's form carries every list of
        objects in a delta: a client that merges such lists by ``index`` (the openai SDK's
        stream helper) raises on pieces without one."""
        pieces = delta.thinking_blocks or []
        block_of = self._assembler._choices[delta.choice].block_of
        places = block_of[len(block_of) - len(pieces) :]
        return [
            piece if type(piece.get("index")) is int else {**piece, "index": place}
            for piece, place in zip(pieces, places, strict=True)
        ]

    def _same(self, chunk: Any, delta: ChoiceDelta, entries: list[dict[str, Any]]) -> bool:
        """R1: whether ``chunk``'s tool-call entries (at most one) are ``entries``."""
        if len(delta.fragments) > 1:
            return False
        raw = _raw_delta(chunk, delta.choice)
        if raw is None or field(raw, "function_call") is not None:
            return False  # H1: a legacy call is rewritten as tool_calls
        sent = field(_raw_choice(chunk, delta.choice), "finish_reason")
        if delta.finish_reason and sent != delta.finish_reason:
            return False  # H1: "function_call" is "tool_calls"
        if _unindexed(delta.thinking_blocks):
            return False  # F6: each piece gets its block's place as ``index``
        if not delta.fragments:
            return not entries
        return self._same_entry(field(raw, "tool_calls"), entries, delta.choice)

    def _same_entry(self, calls: Any, entries: list[dict[str, Any]], number: int) -> bool:
        if len(calls) != 1:
            return False
        if entries:
            return len(entries) == 1 and _loose(_canonical(calls[0])) == _loose(entries[0])
        return self._empty_continuation(_canonical(calls[0]), number)

    def _empty_continuation(self, entry: Any, number: int) -> bool:
        """An entry that adds nothing to a call already on the wire at its index
        (``{"index": i, "function": {"arguments": ""}}``): harmless as it is."""
        if entry is None or entry.keys() - {"index", "function"}:
            return False
        if entry.get("function") not in ({}, {"arguments": ""}):
            return False  # an entry without function: the openai SDK's helper asserts one
        mine = self._choices.get(number)
        wire = entry.get("index")
        return mine is not None and any(sent.out == wire for sent in mine.calls)

    # --- what the assembler decided, as entries -------------------------------------------

    def _advance(self, state: ChoiceState, mine: _Choice, *, ending: bool) -> list[Any]:
        """The entries that pass on what the assembler holds now and the wire lacks."""
        entries: list[Any] = []
        sent_calls = mine.calls
        while len(sent_calls) < len(state.calls):
            sent_calls.append(_Call())
        blocked = False
        for call, sent in zip(state.calls, sent_calls, strict=True):
            if call.abandoned:
                continue
            if sent.out is None:
                if blocked or not self._ready(state, call, mine, ending):
                    blocked = True
                    continue
                self._open(call, sent, mine)
                entries.append(_header(call, sent, _take(call, sent)))
                continue
            piece = _take(call, sent)
            signature = call.signature if call.signature != sent.signature else None
            if piece or signature:
                entries.append(_continuation(sent, piece, signature))
        return entries

    def _ready(self, state: ChoiceState, call: CallState, mine: _Choice, ending: bool) -> bool:
        """Whether the call's header can go out: a decided name, an id not shared."""
        name = call.origin.name if call.origin is not None else call.name
        name = name or call.name
        if not name:
            return False  # C3: the name may come later
        if call.id is not None and call.origin is None and call.id in mine.ids:
            return False  # G3, G4: decided at the end
        if ending or state.finish_reason is not None or name in self._decided:
            return True
        return any(call.parts)  # C2: a name may come in pieces until the arguments start

    def _open(self, call: CallState, sent: _Call, mine: _Choice) -> None:
        sent.out = mine.next_out
        mine.next_out += 1
        name = (call.origin.name if call.origin is not None else None) or call.name
        sent.name = name
        sent.id = _event_id(call) or f"call_{self._token}_{sent.out}"
        sent.signature = call.signature
        mine.ids.add(sent.id)

    # --- finish reasons (E2, R8) ------------------------------------------------------------

    def _release(self, number: int, mine: _Choice, going_on: bool) -> list[Any]:
        held, mine.held = mine.held, None
        assert held is not None
        if not going_on and not self._all_out(number, mine):
            mine.held = held  # the end still has something for a call: the reason after it
            return []
        if not going_on:
            reason = mine.sent_reason = self._reason(number, held.reason)
            if held.chunk is not None and reason == held.reason:
                return [held.chunk]
            return self._closing(held, number, mine, [], reason)
        return self._unfinished(held, number, mine)  # E2: the reason comes again at the end

    def _closing(
        self, held: _Held | None, number: int, mine: _Choice, entries: list[Any], reason: str | None
    ) -> list[Any]:
        """The end of a choice, rewritten: what the held chunk carried besides its finish
        reason, then ``entries`` (what the end settled), then the finish reason (R8)."""
        out: list[Any] = []
        if (
            held is not None
            and held.chunk is not None
            and (held.entries or _carries_more(held.chunk, number))
        ):
            out.extend(self._written(held.chunk, _stripped(number), mine, held.entries, None))
        template = self._last if held is None else held.template
        out.extend(self._make(template, number, {"tool_calls": [entry]}, None) for entry in entries)
        if reason is not None and (held is not None or entries or reason != mine.sent_reason):
            usage = None if held is None else held.usage
            out.append(self._make(template, number, {}, None, finish=reason, usage=usage))
            mine.sent_reason = reason
        return out

    def _unfinished(self, held: _Held, number: int, mine: _Choice) -> list[Any]:
        """A held finish chunk passed on without its finish reason (what else it carried,
        its usage)."""
        if held.chunk is None:
            if held.usage is None:
                return []
            return [self._make(held.template, number, {}, None, usage=held.usage)]
        return self._written(held.chunk, _stripped(number), mine, held.entries, held.usage)

    def _all_out(self, number: int, mine: _Choice) -> bool:
        """Whether every call of the choice went out whole (nothing left for the end)."""
        state = self._assembler._choices[number]
        if len(mine.calls) != len(state.calls):
            return False
        return all(
            call.abandoned
            or (
                sent.out is not None
                and not sent.frozen
                and sent.sent_parts == len(call.parts)
                and state.is_complete(call)
            )
            for call, sent in zip(state.calls, mine.calls, strict=True)
        )

    def _reason(self, number: int, reason: str) -> str:
        mine = self._choices.get(number)
        if reason in _STOPS and mine is not None and mine.next_out:
            return "tool_calls"  # R8: as OpenAI sends a message with calls
        return reason

    # --- the end ----------------------------------------------------------------------------

    def _settle(self, number: int) -> list[Any]:
        """Everything of one choice left at the end, settled as the message is."""
        state = self._assembler._choices[number]
        mine = self._choices.setdefault(number, _Choice())
        held, mine.held = mine.held, None
        sources: list[tuple[int, int]] = []
        message, outcomes = self._assembler._build(state, sources)
        entries = self._remaining(state, mine, message, sources)
        failed = failure(state, message, outcomes) or self._retracted(state, mine, message, sources)
        if failed is None:
            self.messages[number] = message
        if self.error is None:
            self.error = failed
        reason = state.finish_reason
        reason = None if reason is None else self._reason(number, reason)
        if held is not None and held.chunk is not None and not entries and reason == held.reason:
            return [held.chunk]  # R1: the finish chunk as sent
        return self._closing(held, number, mine, entries, reason)

    def _remaining(
        self,
        state: ChoiceState,
        mine: _Choice,
        message: AssembledMessage,
        sources: list[tuple[int, int]],
    ) -> list[Any]:
        """The entries that complete every call of the message on the wire."""
        entries: list[Any] = []
        while len(mine.calls) < len(state.calls):
            mine.calls.append(_Call())
        for tool, (position, value) in zip(message.tool_calls, sources, strict=True):
            call, sent = state.calls[position], mine.calls[position]
            if value == 0 and sent.out is not None:
                done = call.text()[: sent.sent_chars]
                if tool.arguments.startswith(done):
                    piece = tool.arguments[len(done) :]
                    signature = tool.thought_signature
                    signature = signature if signature != sent.signature else None
                    if piece or signature:
                        entries.append(_continuation(sent, piece, signature))
                continue  # else: retracted (below)
            entries.append(self._late_header(tool, mine))
        return entries

    def _late_header(self, tool: ToolCall, mine: _Choice) -> dict[str, Any]:
        """A call of the message that nothing of went out yet: whole, in one entry."""
        out = mine.next_out
        mine.next_out += 1
        call_id = tool.id or f"call_{self._token}_{out}"
        if call_id in mine.ids:  # G3: a shared id made unique, as with_unique_ids() does
            n = 1
            while f"{call_id}-{n}" in mine.ids:
                n += 1
            call_id = f"{call_id}-{n}"
        mine.ids.add(call_id)
        entry: dict[str, Any] = {
            "index": out,
            "id": call_id,
            "type": "function",
            "function": {"name": tool.name, "arguments": tool.arguments},
        }
        _sign(entry, tool.extras, tool.thought_signature)
        return entry

    def _retracted(
        self,
        state: ChoiceState,
        mine: _Choice,
        message: AssembledMessage,
        sources: list[tuple[int, int]],
    ) -> StreamFixError | None:
        """A call whose beginning went out and that the message does not end the same
        way: the wire cannot take it back."""
        settled = {position for position, value in sources if value == 0}
        lost = []
        for call, sent in zip(state.calls, mine.calls, strict=False):
            if sent.out is None:
                continue
            text = call.text()[: sent.sent_chars]
            kept = call.position in settled and any(
                t.arguments.startswith(text)
                for t, (p, v) in zip(message.tool_calls, sources, strict=True)
                if p == call.position and v == 0
            )
            if not kept:
                lost.append((call, text))
        if not lost:
            return None
        named = ", ".join(f"{c.name!r} (wire index {mine.calls[c.position].out})" for c, _ in lost)
        return MalformedToolCallError(
            f"the provider took back tool call arguments already passed on: {named}; the "
            "assembled message is on this error",
            message=message,
            partial_arguments={c.position: text for c, text in lost},
            partial_names={c.position: c.name for c, _ in lost},
        )

    def _fail(self, error: StreamFixError) -> list[Any]:
        """A provider error (E5) or a cap (R9): what is complete, then the error."""
        self._closed = True
        self.error = error
        out: list[Any] = []
        for number, mine in self._choices.items():
            held, mine.held = mine.held, None
            if held is not None:
                out.extend(self._unfinished(held, number, mine))
        return out


# --- entries ------------------------------------------------------------------------------


def _header(call: CallState, sent: _Call, piece: str) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "index": sent.out,
        "id": sent.id,
        "type": "function",
        "function": {"name": sent.name, "arguments": piece},
    }
    _sign(entry, call.extras, call.signature)
    return entry


def _continuation(sent: _Call, piece: str, signature: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": sent.out, "function": {"arguments": piece}}
    if signature:  # R7: a late signature (F2), on an entry of its own if need be
        sent.signature = signature
        entry["extra_content"] = {"google": {"thought_signature": signature}}
    return entry


def _sign(entry: dict[str, Any], extras: dict[str, Any], signature: str | None) -> None:
    """R7: the call's provider fields as sent; its signature where Gemini's OpenAI
    endpoint puts it, ``extra_content.google.thought_signature``."""
    for key, value in extras.items():
        if key not in _STANDARD:
            entry[key] = value
    if signature:
        content = entry.get("extra_content")
        content = dict(content) if isinstance(content, dict) else {}
        google = content.get("google")
        google = dict(google) if isinstance(google, dict) else {}
        google["thought_signature"] = signature
        content["google"] = google
        entry["extra_content"] = content


def _piece(call: CallState, sent: _Call, *, peek: bool = False) -> int:
    """How many characters of the call's new argument text can go out now: all of it
    while the text is the prefix of one JSON object; up to the end of the first value
    once another begins (B4); none once the text is not such a prefix (I1, I3, C5).
    Sets ``sent.frozen`` when the rest must wait for the end (not when ``peek``)."""
    scanner = call.scan()
    if scanner.error is not None or not (sent.begun or _begins_object(call, sent)):
        if not peek:
            sent.frozen = True
        return 0
    bounds = scanner.boundaries
    if not bounds or (len(bounds) == 1 and not scanner.dirty):
        return scanner.consumed - sent.sent_chars
    if not peek:
        sent.frozen = True
    return max(0, bounds[0] - sent.sent_chars)


def _begins_object(call: CallState, sent: _Call) -> bool:
    """Whether the arguments begin (after blanks) with ``{``, or are blank so far;
    sets ``sent.begun`` once they do."""
    for part in call.parts:
        head = part.lstrip(_BLANKS)[:1]
        if head:
            sent.begun = head == "{"
            return sent.begun
    return True


def _take(call: CallState, sent: _Call) -> str:
    """The argument text of ``call`` that goes out now (see :func:`_piece`)."""
    if sent.frozen or sent.sent_parts == len(call.parts):
        return ""
    size = _piece(call, sent)
    if size <= 0:
        return ""
    parts = call.parts
    new = parts[sent.sent_parts] if sent.sent_parts + 1 == len(parts) else ""
    if not new:
        new = "".join(parts[sent.sent_parts :])
    piece = new[:size]
    sent.sent_chars += len(piece)
    if len(piece) == len(new):
        sent.sent_parts = len(parts)
    return piece


# --- reading chunks -----------------------------------------------------------------------


def _null_type(chunk: Any) -> bool:
    """Whether the one tool-call entry of a chunk the fast path took sends ``"type":
    null`` (G5; a pydantic entry: ``type`` set, to ``None``)."""
    if type(chunk) is dict:
        entry = chunk["choices"][0]["delta"]["tool_calls"][0]
        return len(entry) > 2 and "type" in entry and entry["type"] is None
    entry = fields(fields(fields(chunk)["choices"][0])["delta"])["tool_calls"][0]
    return entry.__dict__.get("type", "") is None and "type" in getattr(
        entry, "__pydantic_fields_set__", ()
    )


def _unindexed(pieces: list[dict[str, Any]] | None) -> bool:
    """Whether a piece of ``thinking_blocks`` lacks an ``index`` (litellm sends none)."""
    return bool(pieces) and any(type(piece.get("index")) is not int for piece in pieces or ())


def _carries(delta: ChoiceDelta) -> bool:
    return bool(
        delta.fragments
        or delta.content
        or delta.reasoning
        or delta.reasoning_details
        or delta.thinking_blocks
        or delta.finish_reason
    )


def _raw_choice(chunk: Any, number: int) -> Any:
    for choice in field(chunk, "choices") or ():
        index = field(choice, "index")
        if (0 if index is None else index) == number:
            return choice
    return None


def _raw_delta(chunk: Any, number: int) -> Any:
    choice = _raw_choice(chunk, number)
    if choice is None:
        return None
    delta = field(choice, "delta")
    return delta if delta is not None else field(choice, "message")


def _other_delta_fields(chunk: Any, number: int) -> dict[str, Any]:
    delta = _raw_delta(chunk, number)
    if delta is None:
        return {}
    return {
        key: value
        for key, value in _sent(delta).items()
        if key not in ("tool_calls", "function_call")
    }


def _other_choice_fields(chunk: Any, number: int) -> dict[str, Any]:
    choice = _raw_choice(chunk, number)
    if choice is None:
        return {}
    return {
        key: value
        for key, value in _sent(choice).items()
        if key not in ("index", "delta", "message", "finish_reason")
    }


def _is_ollama(chunk: Any) -> bool:
    """An Ollama ``/api/chat`` line (the normaliser reads it so: a dict without
    ``choices``)."""
    return type(chunk) is dict and "choices" not in chunk


def _sent(value: Any) -> dict[str, Any]:
    """A chunk part's fields as sent: a dict as it is; of a pydantic model, the fields
    set when it was made (the SDK's parser leaves the provider's absent fields unset)."""
    if type(value) is dict:
        return value
    every = fields(value)
    named = getattr(value, "model_fields_set", None)
    if named is None:
        return every
    extra = getattr(value, "__pydantic_extra__", None) or {}
    return {key: item for key, item in every.items() if key in named or key in extra}


def _meaningful(delta: dict[str, Any]) -> bool:
    """Whether a delta without its tool calls still says something (text, role...)."""
    return any(value is not None and value not in ("", []) for value in delta.values())


def _carries_more(chunk: Any, number: int) -> bool:
    delta = _raw_delta(chunk, number)
    if delta is None:
        return False
    return _meaningful(fields(delta))


def _stripped(number: int) -> ChoiceDelta:
    """A choice of a held chunk as a delta without its finish reason."""
    return ChoiceDelta(number, None, None, [], None, None, None, False)


def _canonical(entry: Any) -> Any:
    """A wire entry as the plain dict the repairer would write (nulls left out)."""
    try:
        raw = fields(entry)
    except (TypeError, AttributeError):
        return None
    out = {key: _plain(value) for key, value in raw.items() if value is not None}
    if "type" in _sent(entry) and raw.get("type") is None:
        out["type"] = None  # G5: the openai SDK's helper copies an entry's type, null too
    function = raw.get("function")
    if function is not None:
        try:
            out["function"] = {k: v for k, v in fields(function).items() if v is not None}
        except (TypeError, AttributeError):
            return None
    return out


def _loose(entry: Any) -> Any:
    """An entry as every consumer reads it: ``"arguments": ""`` is no argument text, and
    ``type: "function"`` on a continuation (litellm types every entry) says nothing. An
    entry without ``function`` differs from one with it: the openai SDK's helper asserts
    ``function`` on every entry, so R7's late signature goes on an entry that has one."""
    if type(entry) is not dict:
        return entry
    if "id" not in entry and entry.get("type") == "function":
        entry = {key: value for key, value in entry.items() if key != "type"}
    function = entry.get("function")
    if type(function) is dict and function.get("arguments", "") in ("", None):
        function = {key: value for key, value in function.items() if key != "arguments"}
        entry = {**entry, "function": function}
    return entry


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    return dump() if callable(dump) and type(value) is not dict else value


def _decided_names(tools: frozenset[str]) -> frozenset[str]:
    """C2: the declared names that no other declared name extends (a name that is one
    of them is whole as soon as it arrives)."""
    return frozenset(n for n in tools if not any(o != n and o.startswith(n) for o in tools))


def _model_validate(body: dict[str, Any], like: Any) -> Any:
    """The default ``rebuild``: ``body`` as an object of ``like``'s type (pydantic)."""
    validate = getattr(type(like), "model_validate", None)
    if validate is None:
        raise TypeError(f"cannot rebuild a {type(like).__name__} chunk: pass rebuild=")
    return validate(body)


# --- the iterators ------------------------------------------------------------------------


def repair(
    chunks: Iterable[Any],
    tools: Any = None,
    *,
    max_argument_bytes: int | None = None,
    rebuild: Rebuild | None = None,
    dialect: str | None = None,
) -> Iterator[Any]:
    """The stream ``chunks`` repaired (wire-shapes R), chunk by chunk, as it arrives.

    A stream in another dialect (wire-shapes J-M: Responses, Anthropic, Gemini native,
    Bedrock events; detected from its first item, or named by ``dialect``) comes out as
    OpenAI chat-completion chunk dicts (through ``rebuild(body, item)`` if given).
    Raises what :func:`streamfix.assemble` raises for the same stream, after passing on
    everything complete before it."""
    if isinstance(chunks, (str, bytes, bytearray)) or not isinstance(chunks, Iterable):
        raise TypeError(f"expected an iterable of chunks, got {type(chunks).__name__}")
    repairer = StreamRepairer(
        tools, max_argument_bytes=max_argument_bytes, rebuild=rebuild, dialect=dialect
    )
    for chunk in chunks:
        yield from repairer.feed(chunk)
        if repairer.error is not None:
            raise repairer.error
    yield from repairer.finish()
    if repairer.error is not None:
        raise repairer.error


async def arepair(
    chunks: AsyncIterable[Any],
    tools: Any = None,
    *,
    max_argument_bytes: int | None = None,
    rebuild: Rebuild | None = None,
    dialect: str | None = None,
) -> AsyncIterator[Any]:
    """:func:`repair` for an async stream."""
    if not isinstance(chunks, AsyncIterable):
        raise TypeError(f"expected an async iterable of chunks, got {type(chunks).__name__}")
    repairer = StreamRepairer(
        tools, max_argument_bytes=max_argument_bytes, rebuild=rebuild, dialect=dialect
    )
    async for chunk in chunks:
        for out in repairer.feed(chunk):
            yield out
        if repairer.error is not None:
            raise repairer.error
    for out in repairer.finish():
        yield out
    if repairer.error is not None:
        raise repairer.error
