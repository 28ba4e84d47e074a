"""``StreamFixLiteLlm``: ADK's ``LiteLlm`` whose streaming path assembles through streamfix.

The shim does not copy ADK's request preparation or response building. For a streamed
call it runs ADK's own ``generate_content_async`` on a copy of the model whose
``llm_client`` hands ADK a *canonical* stream: every provider chunk goes through
:class:`streamfix.ToolCallAssembler`; text, reasoning, usage and grounding are passed on
to ADK as they arrive, and the finish reason is held until the stream has ended. The
tool-call fragments go on live too where ADK's loop buffers them in linear time
(``FORWARDED_CALLS``, 2.7+: its ``function_calls`` holds them, which its own tests read
in the generator's frame; 2.10+ also streams a partial function-call response per
fragment, see ``LIVE_CALLS`` and ``INDEX_ZERO_KEPT``). Each fragment goes on rewritten as
the assembler routed it: index = the call's position, id and name on its first fragment,
then its argument text (a chunk that already says exactly that is passed on as it is).
When the stream ends and the assembled calls are what ADK was sent, the held finish
reason lets ADK finalize them itself. When they are not (the assembler split,
de-duplicated, repaired or dropped something only the end could tell), ADK's first pass
is ended before it finalizes them (``_SecondPass``: google-adk < 2.10 would raise on
arguments it cannot parse) and ADK's own stream loop is run once more, over the
canonical stream of the second kind. On older versions (1.x re-parses a call's whole
arguments at every fragment) the calls are held: each assembled call is sent once the
stream has ended, as one complete chunk (unique index, id, name, complete arguments, the
thought signature in ``extra_content.google.thought_signature``), then one chunk with
the finish reason.

ADK thus builds every ``LlmResponse`` itself, so the final ``partial=False`` response is
the one its non-streamed path builds for the same message. What ADK's stream loop cannot
do on some versions is done here, each part small and named:

* ``_restore_signatures``: google-adk < 2.13 drops every thought signature that is not
  embedded in the call id on its streamed path; the signature is put on the part
  exactly as ADK's non-streamed conversion decodes it.
* ``_join_thoughts``: google-adk < 2.10 (``THOUGHTS_JOINED``) keeps one thought part per
  streamed reasoning piece in its final response. For Anthropic's ``thinking_blocks``
  (F6) that loses the signed block: on 2.8 its text is in pieces and its signature on
  an empty part of its own; on 1.x none of it is kept (a piece without a ``signature``
  key is not read as a thinking block, a signature piece without text is dropped).
  When the assembled message has thinking blocks, the final's thought parts are
  replaced by those ADK's non-streamed conversion builds from them, first in the first
  final response that had any (else the first with content), as the non-streamed
  response carries them. Plain reasoning text split into pieces loses nothing (every
  piece is kept, no signature is detached): stock's split stays. From 2.10 ADK's loop
  joins the parts itself and they are left as they are.
* A truncated or malformed call ends the turn with ADK's error response
  (``error_code`` ``MAX_TOKENS`` when the provider said ``length``, else
  ``MALFORMED_FUNCTION_CALL``), built here because older versions raise instead.
* A provider error inside the stream is raised as :class:`streamfix.ProviderStreamError`
  (its text holds the provider's own message), as ADK raises provider errors elsewhere.

The provider's reasoning metadata, as ADK's non-streamed path reads it:

* ``thinking_blocks`` (F6): read (thought parts, one per ``thinking`` block with its
  signature; ``redacted_thinking`` blocks become no part). The pieces are passed on to
  ADK as they arrive, so its partial responses stream them as on stock.
* ``reasoning_details`` (F5: OpenRouter, Vercel): **ignored** by ADK, streamed or not:
  the thought text comes from the ``reasoning`` text sent beside it, as on stock, and a
  Gemini signature in a ``reasoning.encrypted`` entry (which the core also sets as the
  call's ``thought_signature``) is not put on the function-call part, because ADK's
  non-streamed path reads a signature only from the call itself. So the streamed final
  equals the non-streamed response (``_own_signatures``); a signature the call carried
  itself (F1-F3) is kept. Carrying the entries into the next request is ADK's to add,
  on both paths alike.

Known gap, 1.x only: where ADK 1.x's loop builds no final response with content (a
stream of thinking alone, or thinking before calls that cannot be run), there is no
response to carry the thought parts, and they stay lost as on stock. The 2.10 threshold
is the first release known to join thought parts (2.9 is not tested); on a release that
already joins them the replacement is the same parts again.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from typing import Any

from google.adk.models import lite_llm as _adk
from google.adk.models.lite_llm import LiteLlm, LiteLLMClient
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices

import streamfix
from streamfix import _shimkit
from streamfix._fastpath import field as _field

from ._versions import (
    forwarded_calls,
    index_zero_kept,
    live_calls,
    malformed_settled,
    multiple_choices_logged,
    thoughts_joined,
    truncation_settled,
)

__all__ = ["StreamFixLiteLlm", "fixed_generate_content_async"]

logger = logging.getLogger("streamfix.adk")

#: ADK's own method, captured before any patching; the fixed path runs it.
_STOCK_GENERATE = LiteLlm.__dict__["generate_content_async"]

_FAILURE_ERRORS = (
    streamfix.TruncatedToolCallError,
    streamfix.MalformedToolCallError,
    streamfix.ArgumentsTooLargeError,
)


#: google-adk 2.10+ yields a partial function-call response per tool-call fragment: there
#: tool-call fragments go on live.
LIVE_CALLS = live_calls()
#: Where ADK's loop buffers tool-call fragments in linear time, they go through it live
#: (its frame then holds them as stock's does); 1.x re-parses at every fragment.
FORWARDED_CALLS = forwarded_calls()
#: Before 2.13 ADK's loop sends a fragment at index 0 to its fallback index (the next
#: call) once any call has completed; from 2.13 it keeps it on call 0 while that call is
#: open. Before 2.13, once another call completes while call 0 is open, call 0 is no
#: longer forwarded (the end of the stream then runs the second pass).
INDEX_ZERO_KEPT = index_zero_kept()
#: From google-adk 2.10 ADK's stream loop joins a final response's streamed thought parts
#: as its non-streamed path builds them; before, ``_join_thoughts`` does.
THOUGHTS_JOINED = thoughts_joined()
#: From 2.13 ADK settles arguments it cannot parse itself (repairs, or its own error
#: response): a malformed call ADK was sent exactly as assembled is left to it.
MALFORMED_SETTLED = malformed_settled()
TRUNCATION_SETTLED = truncation_settled()
#: From 2.10 ADK logs one error for a stream with several choices; it sees choice 0 alone
#: here, so the fixed path logs it, once per stream, in ADK's words on ADK's logger.
MULTIPLE_CHOICES_LOGGED = multiple_choices_logged()
_MULTIPLE_CHOICES = (
    "Multiple choices found in streaming response but only the first one will be used."
)


@dataclass
class _StreamState:
    """What the canonical stream learned, read back after ADK's loop."""

    tools: list[str] | None
    live: bool = FORWARDED_CALLS
    message: streamfix.AssembledMessage | None = None
    failure: streamfix.StreamFixError | None = None
    finish_reason: str | None = None
    model: str | None = None
    #: the chunks without their calls, kept for a second pass
    passed: list[Any] = field(default_factory=list)
    #: live only: the canonical stream ADK's loop must run again to build the finals
    second_pass: list[Any] | None = None
    #: where the provider sent a finish reason: (chunks passed, calls started, content
    #: chunks seen so far, the reason)
    finishes: list[tuple[int, int, int, str]] = field(default_factory=list)
    #: the stream cut into ADK's segments at every finish reason followed by more
    #: content: ADK's loop runs over it once more, and its finals stand if they lose
    #: nothing (stock's split of a stream into final responses is the contract)
    segmented: list[Any] | None = None
    #: every thought signature a call of the first choice brought itself (in a
    #: ToolCallStarted or ToolCallUpdated event), as opposed to one the core read from
    #: a reasoning_details entry at the end (F5, which ADK's non-streamed path ignores)
    signatures: set[str] = field(default_factory=set)


class _AssemblingClient(LiteLLMClient):
    """A ``LiteLLMClient`` whose streams come out canonical; anything else is delegated."""

    def __init__(self, inner: Any, state: _StreamState) -> None:
        self._inner = inner
        self._state = state

    async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
        response = await self._inner.acompletion(*args, **kwargs)
        if not kwargs.get("stream"):
            return response
        # Every chunk goes through the assembler below: a repaired litellm stream
        # (streamfix.install("litellm")) passes this one on as stock gives it.
        _shimkit.assembled_downstream(response)
        return _canonical_stream(response, self._state)

    def completion(self, *args: Any, **kwargs: Any) -> Any:
        return self._inner.completion(*args, **kwargs)


class _ReplayClient(LiteLLMClient):
    """The second pass's ``LiteLLMClient``: the canonical stream, already known."""

    def __init__(self, chunks: list[Any]) -> None:
        self._chunks = chunks

    async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
        return _replay(self._chunks)

    def completion(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover
        raise NotImplementedError("the second pass only streams")


async def _replay(chunks: list[Any]) -> AsyncGenerator[Any, None]:
    for chunk in chunks:
        yield chunk


async def _canonical_stream(
    chunks: AsyncIterator[Any], state: _StreamState
) -> AsyncGenerator[Any, None]:
    """The provider's stream as ADK should have seen it (see the module docstring)."""
    assembler = streamfix.ToolCallAssembler(state.tools)
    live = _LiveCalls(guard_index_zero=not INDEX_ZERO_KEPT) if state.live else None
    started = content = 0
    several = not MULTIPLE_CHOICES_LOGGED  # whether the log is done (or not ADK's)
    async for chunk in _until_failed(chunks):
        events = assembler.feed(chunk)  # a ProviderStreamError propagates through ADK's loop
        if not several and _several_choices(chunk):
            several = True
            _adk.logger.error(_MULTIPLE_CHOICES)
        state.model = getattr(chunk, "model", None) or state.model
        if live is None:
            passed = _pass_through(chunk)
            if passed is not None:
                state.passed.append(passed)
        else:
            passed = live.forward(chunk, events, state, assembler.continued)
        if passed is not None:
            yield passed
        if any(type(e) is not _USAGE for e in events):
            content += 1
            started += sum(type(e) is _STARTED and not e.choice for e in events)
            _note_signatures(events, state.signatures)
        reason = _finish_reason(chunk)
        if reason:
            state.finishes.append((len(state.passed), started, content, reason))
    for chunk in _ending(assembler, state, live):
        yield chunk
    state.segmented = _segmented(state, started, content)
    if state.second_pass is not None:
        # ADK's finals of this pass are dropped: its loop is not left to finalize calls
        # it was sent otherwise than assembled (google-adk < 2.10 raises on them)
        raise _SecondPass


async def _until_failed(chunks: AsyncIterator[Any]) -> AsyncGenerator[Any, None]:
    """The provider's chunks, ending where a repaired litellm stream (``streamfix.install
    ("litellm")``) raises its end-of-stream verdict on the calls: a cut-off, malformed or
    oversized call, the core's error as the raised exception's ``__cause__``, after every
    chunk it passed on. The assembler here read those same chunks and decides the turn
    from them (ADK's error response, or what ADK settles itself), as when the stream
    just ends; a provider's error propagates as it does on stock."""
    try:
        async for chunk in chunks:
            yield chunk
    except Exception as error:
        if not isinstance(error.__cause__, _FAILURE_ERRORS):
            raise


class _SecondPass(Exception):
    """Ends ADK's first pass over a stream whose finals the second pass builds."""


_STARTED = streamfix.ToolCallStarted
_UPDATED = streamfix.ToolCallUpdated
_USAGE = streamfix.UsageReported


def _note_signatures(events: list[streamfix.Event], signatures: set[str]) -> None:
    """The signatures the calls of the first choice brought themselves."""
    for event in events:
        if (
            (type(event) is _STARTED or type(event) is _UPDATED)
            and event.thought_signature
            and not event.choice
        ):
            signatures.add(event.thought_signature)


_GEMINI_FORMAT = "google-gemini"


def _own_signatures(
    message: streamfix.AssembledMessage, signatures: set[str]
) -> streamfix.AssembledMessage:
    """The message without the signatures the core read from ``reasoning_details``
    (F5): a call whose signature is the data of a Gemini ``reasoning.encrypted`` entry
    naming it, and which it never brought itself, gets none (ADK's non-streamed path
    reads signatures only from the call; see the module docstring)."""
    entries = {
        (entry.get("id"), entry.get("data"))
        for entry in message.reasoning_details
        if entry.get("type") == "reasoning.encrypted"
        and str(entry.get("format", "")).startswith(_GEMINI_FORMAT)
    }
    if not entries:
        return message
    calls = [
        replace(call, thought_signature=None)
        if call.thought_signature is not None
        and call.thought_signature not in signatures
        and (call.id, call.thought_signature) in entries
        else call
        for call in message.tool_calls
    ]
    return replace(message, tool_calls=calls)


def _repaired(arguments: str) -> bool:
    """Whether ADK's own lenient parser turns ``arguments`` into an object (below
    ``MALFORMED_SETTLED``, where its loop raises on what the parser cannot read)."""
    parse = getattr(_adk, "_parse_tool_call_arguments", None)
    if parse is None:
        return False
    try:
        return isinstance(parse(arguments), dict)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return False


def _several_choices(chunk: Any) -> bool:
    """What ADK's loop logs once: the chunk has several choices, or one that is not 0."""
    choices = _field(chunk, "choices") or ()
    return len(choices) > 1 or any(_field(choice, "index") for choice in choices)


def _finish_reason(chunk: Any) -> str | None:
    """The finish reason of the chunk's first choice, if it has one."""
    choices = _field(chunk, "choices") or ()
    first = choices[0] if choices else None
    reason = _field(first, "finish_reason") if first is not None else None
    return reason if isinstance(reason, str) else None


def _segmented(state: _StreamState, started: int, content: int) -> list[Any] | None:
    """The canonical stream with a finish-only chunk wherever the provider sent a finish
    reason that more content followed (wire-shapes E2), or ``None`` if there is none or
    the calls cannot be placed (the assembler split or dropped one)."""
    message = state.message
    cuts = [finish for finish in state.finishes if finish[2] < content]
    if not cuts or message is None or len(message.tool_calls) != started:
        return None
    calls = [_call_chunk(call, state.model) for call in message.tool_calls]
    chunks: list[Any] = []
    passed_at = called = 0
    for passed_end, calls_end, _, reason in cuts:
        chunks += [*state.passed[passed_at:passed_end], *calls[called:calls_end]]
        chunks.append(_chunk(state.model, Delta(), reason))
        passed_at, called = passed_end, calls_end
    chunks += [*state.passed[passed_at:], *calls[called:]]
    last = [finish for finish in state.finishes if finish[2] == content]
    if last:  # the finish reason sent after all content (ADK's own default otherwise)
        chunks.append(_chunk(state.model, Delta(), last[-1][3]))
    return chunks


def _ending(
    assembler: streamfix.ToolCallAssembler, state: _StreamState, live: _LiveCalls | None
) -> list[Any]:
    """What ADK gets once the provider's stream has ended (see the module docstring)."""
    try:
        message = assembler.finish().with_unique_ids()  # ADK answers calls by id (G3)
        message = _own_signatures(message, state.signatures)
    except _FAILURE_ERRORS as error:
        reason = error.message.finish_reason if error.message else None
        if live is not None and live.settles(error):
            state.finish_reason = reason  # ADK repairs or reports them, as on stock
            return [_chunk(state.model, Delta(), reason)] if reason else []
        # ADK finalizes the text and reasoning passed on; the error response for the
        # calls is added after ADK's loop (fixed_generate_content_async).
        state.failure = error
        state.finish_reason = reason
        if live is not None and live.sent:
            state.second_pass = state.passed
        return []
    state.message = message
    state.finish_reason = message.finish_reason
    finish = [_chunk(state.model, Delta(), message.finish_reason)] if message.finish_reason else []
    if live is not None and live.sent_exactly(message.tool_calls):
        return finish  # ADK finalizes the calls it was sent
    complete = [*(_call_chunk(call, state.model) for call in message.tool_calls), *finish]
    if live is None:
        return complete
    state.second_pass = [*state.passed, *complete]
    return []


_SETTLED_ERRORS = (streamfix.MalformedToolCallError, streamfix.TruncatedToolCallError)


@dataclass
class _Sent:
    """What ADK has been sent of one call (live forwarding)."""

    id: str | None
    name: str
    arguments: list[str]
    signature: str | None
    open: bool = True
    faithful: bool = True  # False once a change could not be sent


class _LiveCalls:
    """Turns the assembler's events into canonical tool-call fragments for ADK.

    A fragment is sent for a call only while its arguments are open: ADK's loop would
    take anything after that for a new call. What cannot be sent (a name replaced, an id
    or name after the arguments closed) marks the call unfaithful; so does a signature
    that changes after the first fragment. The end of the stream then runs ADK's loop
    a second time over complete calls.
    """

    def __init__(self, *, guard_index_zero: bool) -> None:
        self.sent: list[_Sent] = []
        self.guard_index_zero = guard_index_zero

    def forward(
        self,
        chunk: Any,
        events: list[streamfix.Event],
        state: _StreamState,
        continued: int | None,
    ) -> Any:
        """What ADK gets for ``chunk``: the chunk itself if it only continues the
        arguments of an open call at the same index (``continued``: the assembler's
        fast path took it, at that wire index), else the chunk without calls (kept for
        a second pass) with canonical tool-call fragments added."""
        more = _more_arguments(events)
        if more is not None:
            sent = self.sent[more.position]
            if sent.open and continued == more.position and _continues(chunk):
                sent.arguments.append(more.delta)
                if len(events) == 2:  # it completed the call
                    self._completed(more.position)
                return chunk
        entries = self._entries(events)
        passed = _pass_through(chunk)
        if passed is not None:
            state.passed.append(passed)
        if not entries:
            return passed
        calls = Delta(role="assistant", tool_calls=entries).tool_calls
        if passed is None:
            return _chunk(state.model, Delta(role="assistant", tool_calls=calls))
        if passed.choices:
            delta = passed.choices[0].delta.model_copy()
            delta.tool_calls = calls
        else:
            delta = Delta(role="assistant", tool_calls=calls)
        passed.choices = [StreamingChoices(index=0, delta=delta, finish_reason=None)]
        return passed

    def _entries(self, events: list[streamfix.Event]) -> list[dict[str, Any]]:
        entries: dict[int, dict[str, Any]] = {}
        for event in events:
            if isinstance(event, streamfix.ArgumentsDelta):
                if event.choice == 0:
                    self._arguments(event, entries)
            elif isinstance(event, streamfix.ToolCallStarted):
                if event.choice == 0:
                    self._started(event, entries)
            elif isinstance(event, streamfix.ToolCallUpdated):
                if event.choice == 0:
                    self._updated(event, entries)
            elif isinstance(event, streamfix.ToolCallCompleted) and event.choice == 0:
                self._completed(event.position)
        return list(entries.values())

    def _completed(self, position: int) -> None:
        self.sent[position].open = False
        first = self.sent[0]
        if position and self.guard_index_zero and first.open:
            first.open = first.faithful = False  # ADK would send its rest to another call

    def _started(self, event: streamfix.ToolCallStarted, entries: dict[int, Any]) -> None:
        name = event.name or ""
        if self._taken(event.id):  # G3 or G4: known at the end; held for the second pass
            self.sent.append(_Sent(event.id, name, [], None, open=False, faithful=False))
            return
        self.sent.append(_Sent(event.id, name, [], event.thought_signature))
        entry = _entry(entries, event.position)
        entry["id"] = event.id
        entry["type"] = "function"
        entry["function"]["name"] = name
        entry["function"]["arguments"] = ""
        if event.thought_signature:
            entry["extra_content"] = {"google": {"thought_signature": event.thought_signature}}

    def _arguments(self, event: streamfix.ArgumentsDelta, entries: dict[int, Any]) -> None:
        sent = self.sent[event.position]
        if not sent.open:
            sent.faithful = False
            return
        sent.arguments.append(event.delta)
        function = _entry(entries, event.position)["function"]
        function["arguments"] = function.get("arguments", "") + event.delta

    def _updated(self, event: streamfix.ToolCallUpdated, entries: dict[int, Any]) -> None:
        sent = self.sent[event.position]
        name = event.name or ""
        if sent.signature is not None and event.thought_signature != sent.signature:
            sent.faithful = False  # a signature sent, then replaced
        if not sent.open or not name.startswith(sent.name) or self._taken(event.id, sent):
            sent.faithful = sent.faithful and (event.id, name) == (sent.id, sent.name)
            return
        entry = _entry(entries, event.position)
        if event.id != sent.id:
            entry["id"] = sent.id = event.id
        if name != sent.name:
            function = entry["function"]
            function["name"] = function.get("name", "") + name[len(sent.name) :]
            sent.name = name

    def _taken(self, call_id: str | None, this: _Sent | None = None) -> bool:
        """Whether another call was sent with ``call_id``: a distinct call sharing it
        (G3, which ADK's final gets a derived id for) or a repeat (G4, dropped); which
        one is known only at the end, so neither is forwarded live."""
        return call_id is not None and any(
            sent.id == call_id for sent in self.sent if sent is not this
        )

    def settles(self, error: streamfix.StreamFixError) -> bool:
        """Whether ADK's loop settles ``error``'s calls as on stock: the arguments are
        malformed or cut off (not too large), every call has a name, ADK was sent each
        call exactly as assembled, and

        - malformed: ADK either settles any such arguments itself (``MALFORMED_SETTLED``:
          it repairs them or reports them) or its own lenient parser repairs these (from
          2.7: unquoted keys, Python literals);
        - cut off: from ``TRUNCATION_SETTLED`` ADK reports them (MAX_TOKENS after
          ``length``, else MALFORMED_FUNCTION_CALL) and runs none of the turn's calls,
          when each was sent with its id (ADK skips a call without one) and its lenient
          parser reads none of the cut-off texts as an object (that call would run).
        """
        kind = type(error)
        if kind not in _SETTLED_ERRORS or error.message is None:
            return False
        partial = error.partial_arguments
        if not all(error.partial_names.values()):
            return False  # E9: a call without a name is the core's error to report
        if len(self.sent) != len(error.message.tool_calls) + len(partial):
            return False
        faithful = all(sent.faithful for sent in self.sent) and all(
            position < len(self.sent) and "".join(self.sent[position].arguments) == text
            for position, text in partial.items()
        )
        if kind is streamfix.TruncatedToolCallError:
            return (
                faithful
                and TRUNCATION_SETTLED
                and all(self.sent[position].id for position in partial)
                and not any(map(_repaired, partial.values()))
            )
        return faithful and (MALFORMED_SETTLED or all(map(_repaired, partial.values())))

    def sent_exactly(self, calls: list[streamfix.ToolCall]) -> bool:
        """Whether ADK was sent exactly ``calls`` (signatures: none or the same)."""
        if len(calls) != len(self.sent):
            return False
        return all(
            sent.faithful
            and (sent.id, sent.name) == (call.id, call.name)
            and sent.signature in (None, call.thought_signature)
            and "".join(sent.arguments) == call.arguments
            for sent, call in zip(self.sent, calls, strict=True)
        )


def _entry(entries: dict[int, Any], position: int) -> dict[str, Any]:
    entry = entries.get(position)
    if entry is None:
        entry = entries[position] = {"index": position, "function": {}}
    return entry


def _more_arguments(events: list[streamfix.Event]) -> streamfix.ArgumentsDelta | None:
    """The one event if ``events`` only add argument text to one call of the first
    choice (and perhaps complete it)."""
    first = events[0] if events else None
    if (
        type(first) is streamfix.ArgumentsDelta
        and not first.choice
        and (len(events) == 1 or (len(events) == 2 and type(events[1]) is _COMPLETED))
    ):
        return first
    return None


_COMPLETED = streamfix.ToolCallCompleted


def _continues(chunk: Any) -> bool:
    """What ADK checks beyond the core's fast path before it passes a chunk on as it is:
    the chunk is litellm's own type and has none of ADK's grounding metadata, which the
    core does not read."""
    return type(chunk) is ModelResponseStream and _field(chunk, _GROUNDING) is None


def _pass_through(chunk: Any) -> Any:
    """The chunk without its tool-call fragments and finish reason, or ``None`` if
    nothing else is left. Plain text, reasoning and usage chunks go through as they are.

    Runs once per chunk: litellm's objects are read through their field dicts (their
    ``getattr`` of an absent field costs a raised exception)."""
    if not isinstance(chunk, ModelResponseStream):
        return None
    choices = chunk.choices or []
    first = next((choice for choice in choices if not _field(choice, "index")), None)
    delta = _field(first, "delta") if first is not None else None
    calls = None
    if delta is not None:  # H1: the legacy function_call is a call too
        calls = _field(delta, "tool_calls") or _field(delta, "function_call")
    if len(choices) == 1 and first is not None and not calls and not _field(first, "finish_reason"):
        return chunk  # text, reasoning or nothing: as it is
    keep_delta = delta is not None and any(_field(delta, key) for key in _TEXT_FIELDS)
    if not keep_delta and not (_field(chunk, "usage") or _field(chunk, _GROUNDING)):
        return None
    copy = chunk.model_copy()
    if keep_delta and delta is not None:
        delta = delta.model_copy()
        delta.tool_calls = None
        delta.function_call = None
        copy.choices = [StreamingChoices(index=0, delta=delta, finish_reason=None)]
    else:
        copy.choices = []
    return copy


_TEXT_FIELDS = ("content", "reasoning_content", "reasoning", "thinking_blocks")
_GROUNDING = "vertex_ai_grounding_metadata"


def _chunk(model: str | None, delta: Delta, finish_reason: str | None = None) -> Any:
    chunk = ModelResponseStream(
        choices=[StreamingChoices(index=0, delta=delta, finish_reason=finish_reason)]
    )
    if model:
        chunk.model = model
    return chunk


def _call_chunk(call: streamfix.ToolCall, model: str | None) -> Any:
    """One complete call, as ADK reads it back into a non-streamed tool call."""
    entry: dict[str, Any] = {
        "index": call.index,
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.arguments},
    }
    if call.thought_signature:
        entry["extra_content"] = {"google": {"thought_signature": call.thought_signature}}
    return _chunk(model, Delta(role="assistant", tool_calls=[entry]))


def _signature_bytes(call: streamfix.ToolCall) -> Any:
    """The signature exactly as ADK's non-streamed conversion decodes it."""
    placement = {"extra_content": {"google": {"thought_signature": call.thought_signature}}}
    return _adk._extract_thought_signature_from_tool_call(placement)


def _restore_signatures(response: LlmResponse, message: streamfix.AssembledMessage) -> None:
    """Put each call's signature on its part where ADK's stream loop dropped it
    (google-adk < 2.13 reads signatures on the streamed path only from the call id)."""
    if response.partial or not response.content or not response.content.parts:
        return
    calls = [part for part in response.content.parts if part.function_call]
    if len(calls) != len(message.tool_calls):
        return
    for part, call in zip(calls, message.tool_calls, strict=True):
        if call.thought_signature and not part.thought_signature:
            part.thought_signature = _signature_bytes(call)


def _is_thought(part: types.Part) -> bool:
    return bool(part.thought) and part.function_call is None


def _join_thoughts(finals: list[LlmResponse], message: streamfix.AssembledMessage) -> None:
    """google-adk < 2.10: the thought parts of the final responses as ADK's non-streamed
    conversion builds them from the assembled message (see the module docstring)."""
    if not message.thinking_blocks:
        return  # plain reasoning text: stock's parts lose nothing
    reasoning = {
        "thinking_blocks": [dict(block) for block in message.thinking_blocks] or None,
        "reasoning_content": message.reasoning or None,
    }
    thoughts = _adk._convert_reasoning_value_to_parts(_adk._extract_reasoning_value(reasoning))
    contents = [response.content for response in finals if response.content is not None]
    if not contents:
        return
    target = next(
        (c for c in contents if any(_is_thought(p) for p in c.parts or ())),
        next((c for c in contents if c.parts), contents[0]),
    )
    for content in contents:
        if content.parts:
            content.parts = [part for part in content.parts if not _is_thought(part)]
    target.parts = [*thoughts, *(target.parts or ())]


def _failure_response(state: _StreamState) -> LlmResponse:
    """ADK's error response for calls that cannot be run (truncated or malformed)."""
    error = state.failure
    assert error is not None
    truncated = isinstance(error, streamfix.TruncatedToolCallError)
    if truncated and state.finish_reason == "length":
        code = types.FinishReason.MAX_TOKENS
        advice = " The output token limit was reached: increase `max_output_tokens` and retry."
    else:
        code = types.FinishReason.MALFORMED_FUNCTION_CALL
        advice = " The stream carrying them most likely ended early." if truncated else ""
    complete = len(error.message.tool_calls) if error.message else 0
    text = (
        f"Tool call arguments could not be assembled into valid JSON ({error})."
        f" None of the {complete + len(error.partial_arguments)} calls of this turn were"
        f" run.{advice}"
    )
    usage = error.message.usage if error.message else None
    return LlmResponse(
        error_code=code,
        error_message=text,
        finish_reason=code,
        model_version=state.model,
        usage_metadata=_usage_metadata(usage) if usage else None,
    )


def _usage_metadata(usage: dict[str, Any]) -> types.GenerateContentResponseUsageMetadata:
    """The token counts of a failed turn (ADK puts usage on its final response)."""
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=usage.get("prompt_tokens"),
        candidates_token_count=usage.get("completion_tokens"),
        total_token_count=usage.get("total_tokens"),
    )


def _declared_tools(llm_request: LlmRequest) -> list[str] | None:
    tools = getattr(llm_request, "tools_dict", None)
    return list(tools) if tools else None


def fixed_generate_content_async(
    self: LiteLlm, llm_request: LlmRequest, stream: bool = False
) -> AsyncGenerator[LlmResponse, None]:
    """``LiteLlm.generate_content_async`` with the streamed path assembled by streamfix.

    Non-streamed calls get ADK's own generator. A streamed call gets :class:`_Responses`:
    an async generator whose ``ag_frame`` is ADK's own stream loop, as on stock (ADK's
    tests inspect its buffers there).
    """
    if not stream:
        return _STOCK_GENERATE(self, llm_request, stream=False)  # type: ignore[no-any-return]
    loop: list[Any] = []
    return _Responses(_streamed(self, llm_request, loop), loop)


class _Responses(AsyncGenerator[LlmResponse, None]):
    """The fixed stream's responses (``_streamed``), with ADK's own stream loop as
    ``ag_frame`` once it runs."""

    def __init__(self, outer: AsyncGenerator[LlmResponse, None], loop: list[Any]) -> None:
        self._outer = outer
        self._loop = loop  # holds ADK's generator once _streamed has started it

    def __anext__(self) -> Any:
        return self._outer.__anext__()

    def asend(self, value: None) -> Any:
        return self._outer.asend(value)

    def athrow(self, *args: Any) -> Any:
        return self._outer.athrow(*args)

    def aclose(self) -> Any:
        return self._outer.aclose()

    @property
    def ag_frame(self) -> Any:
        return self._loop[0].ag_frame if self._loop else self._outer.ag_frame  # type: ignore[attr-defined]

    @property
    def ag_running(self) -> bool:
        return bool(self._outer.ag_running)  # type: ignore[attr-defined]


async def _streamed(
    self: LiteLlm, llm_request: LlmRequest, loop: list[Any]
) -> AsyncGenerator[LlmResponse, None]:
    state = _StreamState(tools=_declared_tools(llm_request))
    model = self.model_copy(update={"llm_client": _AssemblingClient(self.llm_client, state)})
    finals: list[LlmResponse] = []
    with _tracking():
        adk = _STOCK_GENERATE(model, llm_request, stream=True)
        loop.append(adk)
        try:
            async for response in adk:
                if response.partial:
                    yield response
                else:
                    finals.append(response)  # held: the end of the stream decides
        except _SecondPass:
            pass
    if state.second_pass is not None:  # ADK finalized calls other than the assembled ones
        finals = await _finals_of(self, llm_request, state.second_pass)
    if state.segmented is not None and state.failure is None:
        segmented = await _finals_of(self, llm_request, state.segmented)
        if _carried(segmented) == _carried(finals):
            finals = segmented  # stock's split into final responses loses nothing here
    for response in _settled(finals, state):
        yield response


async def _finals_of(model: LiteLlm, llm_request: LlmRequest, chunks: list[Any]) -> list[Any]:
    """ADK's final responses for a canonical stream it is handed again."""
    replay = model.model_copy(update={"llm_client": _ReplayClient(chunks)})
    return [
        response
        async for response in _STOCK_GENERATE(replay, llm_request, stream=True)
        if not response.partial
    ]


def _carried(finals: list[LlmResponse]) -> tuple[list[Any], str, str]:
    """Everything final responses carry that a session keeps: the calls (id, name,
    arguments), the text and the thought text."""
    calls: list[Any] = []
    text: list[str] = []
    thoughts: list[str] = []
    for response in finals:
        for part in (response.content.parts if response.content else None) or ():
            call = part.function_call
            if call is not None:
                calls.append((call.id, call.name, call.args))
            elif part.text:
                (thoughts if part.thought else text).append(part.text)
    return calls, "".join(text), "".join(thoughts)


def _tracking() -> AbstractContextManager[None]:
    """ADK's partial-arguments tracker in linear time where tool calls stream live
    (``_tracker``); nothing to change elsewhere."""
    if not LIVE_CALLS:
        return nullcontext()
    from ._tracker import linear_tracking  # ADK's tracker exists from LIVE_CALLS on

    return linear_tracking()


def _settled(finals: list[LlmResponse], state: _StreamState) -> list[LlmResponse]:
    """ADK's final responses with the signatures it lost put back, its thought parts
    joined (before 2.10), and ADK's error response for calls that cannot be run."""
    settled = []
    for response in finals:
        if state.failure is not None and _is_empty(response):
            continue  # ADK's empty end-of-stream response: the error response replaces it
        if state.message is not None:
            _restore_signatures(response, state.message)
        settled.append(response)
    message = state.message or (state.failure.message if state.failure else None)
    if not THOUGHTS_JOINED and message is not None:
        _join_thoughts(settled, message)
    if state.failure is not None:
        failure = _failure_response(state)
        if any(response.usage_metadata for response in settled):
            failure.usage_metadata = None  # on ADK's text response already: counted once
        settled.append(failure)
    return settled


def _is_empty(response: LlmResponse) -> bool:
    return not (response.content and response.content.parts)


class StreamFixLiteLlm(LiteLlm):
    """ADK's ``LiteLlm`` whose streamed responses are assembled by streamfix.

    Use it where you would use ``LiteLlm`` (``Agent(model=StreamFixLiteLlm(model=...))``);
    no patching needed. Non-streamed calls are ADK's own.
    """

    def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        return fixed_generate_content_async(self, llm_request, stream)
