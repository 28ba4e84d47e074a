"""Other wire dialects (wire-shapes J-M) read into the chat-completion shape.

OpenAI's Responses events (J), Anthropic's Messages events (K), Gemini's native
``GenerateContentResponse`` chunks (L) and Bedrock's ``ConverseStream`` events (M) name a
call by the place of its item or block in the message, not by a chat ``index``. A
:class:`Reader` per stream (:func:`reader_for` picks it from the first item, or from the
dialect named) turns each item into the same :class:`~._normalize.Chunk` a chat chunk
normalises to: a call's first fragment with its id and name, then argument pieces, under
the call's place among the message's calls as its index (calls numbered 0, 1... in the
order their blocks open, whatever else the blocks count: K4). So routing, repairs,
errors and diagnostics are the assembler's, as for chat chunks; a reader decides nothing
the dialect does not say outright. What it keeps between items is only what the dialect
needs to name things: which block or item is which call, which ones got argument pieces
(an input sent whole, K2, J2, counts only when none came), which are done (a stray piece
after, J3).

Reasoning: Anthropic's (and Bedrock's) thinking blocks become ``thinking_blocks`` pieces
with the block's place as ``index`` (F6: text joined, signature kept); a Responses
reasoning item, whole as ``response.output_item.done`` gives it (``encrypted_content``
included), becomes an entry of ``reasoning_details`` (the list an assistant message
carries back); its summary text, Gemini's
``thought`` text and thinking text are the reasoning text.

Each SDK's own objects (openai's Responses events, anthropic's events, google-genai's
``GenerateContentResponse``) are read as the JSON they were parsed from
(``model_dump(by_alias=True, exclude_none=True, mode="json")``); botocore's decoded
ConverseStream events are dicts already.
"""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

from ._normalize import MALFORMED_CALL, ChoiceDelta, Chunk, Fragment, ProviderError

__all__ = ["DIALECTS", "Reader", "detect", "reader_for"]

#: The dialects a stream may be in: ``chat`` is OpenAI's chat completions (and Ollama's
#: NDJSON), read by :func:`~._normalize.normalize` itself.
DIALECTS = ("chat", "responses", "anthropic", "gemini", "bedrock")

_new = tuple.__new__
_ANTHROPIC_EVENTS = frozenset(
    (
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    )
)
_BEDROCK_EVENTS = frozenset(
    (
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
    )
)
_BEDROCK_ERRORS = {
    "internalServerException": 500,
    "modelStreamErrorException": 424,
    "validationException": 400,
    "throttlingException": 429,
    "serviceUnavailableException": 503,
}
#: Each dialect's stop reasons as OpenAI's finish reasons (others pass on as sent).
_ANTHROPIC_STOPS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}
_BEDROCK_STOPS = {
    **_ANTHROPIC_STOPS,
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
}
_GEMINI_STOPS = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
}


def plain(item: object) -> Any:
    """An item as the JSON it stands for: a dict as it is, an SDK model dumped by alias."""
    if type(item) is dict:
        return item
    dump = getattr(item, "model_dump", None)
    if dump is None:
        return item
    return dump(by_alias=True, exclude_none=True, mode="json")


def detect(item: object) -> str | None:
    """The dialect of a stream's first item (``None``: not one of J-M, read as chat)."""
    body = plain(item)
    if type(body) is not dict:
        return None
    kind = body.get("type")
    if type(kind) is str:
        if kind.startswith("response.") or (kind == "error" and "sequence_number" in body):
            return "responses"
        if kind in _ANTHROPIC_EVENTS or (kind == "error" and "choices" not in body):
            return "anthropic"
    if "candidates" in body or "usageMetadata" in body or "promptFeedback" in body:
        return "gemini"
    if len(body) == 1 and (next(iter(body)) in _BEDROCK_EVENTS | _BEDROCK_ERRORS.keys()):
        return "bedrock"
    return None


def reader_for(dialect: str) -> Reader | None:
    """A fresh reader for ``dialect`` (``None`` for ``chat``); ``ValueError`` if unknown."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}; one of {', '.join(DIALECTS)}")
    readers: dict[str, type[Reader]] = {
        "responses": _Responses,
        "anthropic": _Anthropic,
        "gemini": _Gemini,
        "bedrock": _Bedrock,
    }
    return readers[dialect]() if dialect in readers else None


class _Out:
    """What one item says, gathered as it is read, then made a :class:`Chunk`."""

    __slots__ = (
        "blocks",
        "content",
        "details",
        "error",
        "finish",
        "fragments",
        "problems",
        "reasoning",
        "role",
        "usage",
    )

    def __init__(self) -> None:
        self.fragments: list[Fragment] = []
        self.content: str | None = None
        self.reasoning: str | None = None
        self.finish: str | None = None
        self.details: list[dict[str, Any]] | None = None
        self.blocks: list[dict[str, Any]] | None = None
        self.role = False
        self.usage: dict[str, Any] | None = None
        self.error: ProviderError | None = None
        self.problems: list[str] = []

    def text(self, piece: object) -> None:
        if type(piece) is str and piece:
            self.content = (self.content or "") + piece

    def thought(self, piece: object) -> None:
        if type(piece) is str and piece:
            self.reasoning = (self.reasoning or "") + piece

    def block(self, piece: dict[str, Any]) -> None:
        self.blocks = [*(self.blocks or []), piece]

    def call(
        self,
        number: int,
        *,
        call_id: object = None,
        name: object = None,
        arguments: str | None = None,
        signature: object = None,
    ) -> None:
        self.fragments.append(
            _new(
                Fragment,
                (
                    number,
                    call_id if type(call_id) is str and call_id else None,
                    name if type(name) is str and name else None,
                    arguments,
                    signature if type(signature) is str and signature else None,
                    None,
                ),
            )
        )

    def chunk(self, choice: int = 0) -> Chunk:
        said = (
            self.fragments
            or self.content is not None
            or self.reasoning is not None
            or self.finish is not None
            or self.details is not None
            or self.blocks is not None
            or self.role
        )
        deltas: list[ChoiceDelta] = []
        if said:
            delta = ChoiceDelta(
                choice,
                self.content,
                self.reasoning,
                self.fragments,
                self.finish,
                self.details,
                self.blocks,
                self.role,
            )
            deltas.append(delta)
        return _new(Chunk, (deltas, self.usage, self.error, self.problems))


class _Call:
    """A call's block or item: its number among the calls, the input or arguments it was
    opened with (K2, J2: used only if no piece comes), whether pieces came, and done."""

    __slots__ = ("done", "given", "number", "pieces")

    def __init__(self, number: int, given: str | None) -> None:
        self.number = number
        self.given = given
        self.pieces = False
        self.done = False


class Reader:
    """Reads one stream of one dialect, item by item (:meth:`read`); at the end of the
    stream :meth:`end` says what the dialect left unsaid (``None``: nothing)."""

    dialect = ""

    def __init__(self) -> None:
        self.calls: dict[object, _Call] = {}  # a call's block or item key -> the call
        self.count = 0  # calls opened
        self.thinking: dict[object, int] = {}  # a thinking block's key -> its place
        self.started = False
        #: The response's id, model and creation time, as far as the stream named them.
        self.response: dict[str, Any] = {"id": None, "model": None, "created": None}
        self.details = 0  # reasoning items written in the chat form (F5 entries' index)

    def read(self, item: object) -> Chunk:
        out = _Out()
        body = plain(item)
        if type(body) is not dict:
            out.problems.append(f"not a {self.dialect} event: {type(item).__name__}")
            return out.chunk()
        if not self.started:
            self.started = out.role = True  # a message's first item names its role
        self._name(body)
        return self._read(body, out)

    def end(self) -> Chunk | None:
        return None

    def chat(self, chunk: Chunk) -> dict[str, Any] | None:
        """What ``chunk`` (one item read) says, as an OpenAI chat-completion chunk dict
        (``None``: it says nothing). The repaired stream of a J-M stream is written from
        these (wire-shapes R): each call's entries under its number among the calls, its
        signature where Gemini's OpenAI endpoint puts it; thinking text as
        ``reasoning_content`` beside the ``thinking_blocks`` pieces (as litellm gives
        them); usage in OpenAI's words; a provider's error as the chunk's ``error``."""
        if not chunk.choices and chunk.usage is None and chunk.error is None:
            return None
        response = self.response
        body: dict[str, Any] = {
            "id": response["id"] or "chatcmpl-streamfix",
            "object": "chat.completion.chunk",
            "created": response["created"] or 0,
            "model": response["model"] or "",
            "choices": [self._chat_choice(delta) for delta in chunk.choices],
        }
        if chunk.usage is not None:
            body["usage"] = _chat_usage(chunk.usage)
        if chunk.error is not None:
            text, status, malformed = chunk.error
            body["error"] = {"message": text, "code": status}
            if malformed:
                body["error"]["type"] = MALFORMED_CALL
        return body

    def _chat_choice(self, delta: ChoiceDelta) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if delta.role:
            out["role"] = "assistant"
        if delta.content is not None:
            out["content"] = delta.content
        if delta.reasoning is not None:
            out["reasoning_content"] = delta.reasoning
        if delta.fragments:
            out["tool_calls"] = [_chat_entry(fragment) for fragment in delta.fragments]
        if delta.reasoning_details is not None:
            out["reasoning_details"] = _chat_details(delta.reasoning_details, self.details)
            self.details += 1
        if delta.thinking_blocks is not None:
            out["thinking_blocks"] = delta.thinking_blocks
        return {"index": delta.choice, "delta": out, "finish_reason": delta.finish_reason}

    def _name(self, body: dict[str, Any]) -> None:
        """Keep what ``body`` says of the response's id, model and creation time."""

    def _read(self, body: dict[str, Any], out: _Out) -> Chunk:
        raise NotImplementedError

    # shared by the block dialects

    def _open(
        self,
        out: _Out,
        key: object,
        call_id: object,
        name: object,
        given: Any,
        signature: object = None,
    ) -> None:
        """A call's block or item opens: its header, under the next call number."""
        if key in self.calls:
            out.problems.append(f"{self.dialect}: call block {key!r} opened twice; ignored")
            return
        call = self.calls[key] = _Call(self.count, _given(given))
        self.count += 1
        out.call(call.number, call_id=call_id, name=name, arguments="", signature=signature)

    def _piece(self, out: _Out, key: object, piece: object) -> None:
        """A piece of a call's arguments (J3: an empty one says nothing; one after the
        call is done is a stray, left out)."""
        call = self.calls.get(key)
        if call is None:
            out.problems.append(f"{self.dialect}: arguments for no open call ({key!r}); ignored")
            return
        if type(piece) is not str:
            out.problems.append(f"{self.dialect}: arguments piece is {type(piece).__name__}")
            return
        if call.done:
            if piece:
                out.problems.append(
                    f"{self.dialect}: arguments after call {call.number} was done; ignored"
                )
            return
        if piece:
            call.pieces = True
            out.call(call.number, arguments=piece)

    def _close(self, out: _Out, key: object, whole: object = None) -> None:
        """A call's block or item is done: where no piece came, the arguments it was
        opened with or given whole now (``whole``) are its arguments (K2, J2)."""
        call = self.calls.get(key)
        if call is None or call.done:
            return
        call.done = True
        if call.pieces:
            return
        arguments = whole if type(whole) is str and whole else _given(whole) or call.given
        if arguments:
            out.call(call.number, arguments=arguments)

    def _stop(self, reason: object, stops: dict[str, str], out: _Out) -> None:
        """The message's stop reason, as OpenAI's finish reason: every call block ends
        with it, but one cut by ``max_tokens`` (E4)."""
        if type(reason) is not str:
            return
        if reason != "max_tokens":
            for key in list(self.calls):
                self._close(out, key)
        out.finish = stops.get(reason, reason)

    def _think(self, out: _Out, key: object, piece: dict[str, Any]) -> None:
        """A piece of a thinking block, with the block's place as ``index`` (F6)."""
        place = self.thinking.setdefault(key, len(self.thinking))
        out.block({**piece, "index": place})


def _given(value: object) -> str | None:
    """Arguments given whole as an object (an input, ``args``) as JSON text; an empty
    object or nothing is ``None`` (no arguments given)."""
    if isinstance(value, dict) and value:
        return json.dumps(value, ensure_ascii=False)
    if type(value) is str and value.strip() not in ("", "{}"):
        return value
    return None


_RESPONSES_FORMAT = "openai-responses-v1"


def _chat_details(details: list[dict[str, Any]], place: int) -> list[dict[str, Any]]:
    """F5 in the chat form: a Responses reasoning item (J5) as the entries OpenRouter
    gives for one (recorded: its summary text, then its encrypted content, at one
    ``index``, each with the item's ``id`` and ``format``)."""
    out: list[dict[str, Any]] = []
    for item in details:
        if item.get("type") != "reasoning":
            out.append(item)
            continue
        named = {"id": item.get("id"), "format": _RESPONSES_FORMAT, "index": place}
        for part in item.get("summary") or ():
            if isinstance(part, dict) and type(part.get("text")) is str:
                out.append({"type": "reasoning.summary", "summary": part["text"], **named})
        if type(item.get("encrypted_content")) is str:
            data = item["encrypted_content"]
            out.append({"type": "reasoning.encrypted", "data": data, **named})
    return out


def _chat_entry(fragment: Fragment) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": fragment.call_index}
    if fragment.id is not None:
        entry["id"] = fragment.id
    function: dict[str, Any] = {}
    if fragment.name is not None:
        entry["type"] = "function"
        function["name"] = fragment.name
    if fragment.arguments is not None:
        function["arguments"] = fragment.arguments
    if function:
        entry["function"] = function
    if fragment.signature is not None:
        entry["extra_content"] = {"google": {"thought_signature": fragment.signature}}
    return entry


#: Each dialect's token counts by OpenAI's names (the first one present is taken).
_USAGE_NAMES = {
    "prompt_tokens": ("input_tokens", "inputTokens", "promptTokenCount"),
    "completion_tokens": ("output_tokens", "outputTokens", "candidatesTokenCount"),
    "total_tokens": ("total_tokens", "totalTokens", "totalTokenCount"),
}


def _chat_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """A dialect's usage as OpenAI's (Gemini counts thoughts apart: they are output)."""
    out: dict[str, Any] = {}
    for name, theirs in _USAGE_NAMES.items():
        count = next((usage[key] for key in theirs if type(usage.get(key)) is int), None)
        if count is not None:
            out[name] = count
    thoughts = usage.get("thoughtsTokenCount")
    if type(thoughts) is int:
        out["completion_tokens"] = out.get("completion_tokens", 0) + thoughts
    if "total_tokens" not in out and {"prompt_tokens", "completion_tokens"} <= out.keys():
        out["total_tokens"] = out["prompt_tokens"] + out["completion_tokens"]
    return out


def _text_error(value: object, default: str) -> str:
    if isinstance(value, dict):
        message = value.get("message")
        kind = value.get("type") or value.get("code")
        if message:
            return f"{kind}: {message}" if kind else str(message)
    if type(value) is str and value:
        return value
    return default


# --- J: OpenAI Responses --------------------------------------------------------------------


class _Responses(Reader):
    """J1-J6. A function-call item is keyed by its item ``id`` (its ``output_index`` too:
    J4, deltas may carry only one of them); the call's id is its ``call_id``."""

    dialect = "responses"

    def __init__(self) -> None:
        super().__init__()
        self.keys: dict[object, object] = {}  # output_index -> item id

    def _read(self, body: dict[str, Any], out: _Out) -> Chunk:
        kind = body.get("type")
        if kind in ("response.output_item.added", "response.output_item.done"):
            self._item(body, _object(body.get("item")), out, done=kind.endswith("done"))
        elif kind == "response.function_call_arguments.delta":
            self._piece(out, self._key(body), body.get("delta"))
        elif kind == "response.function_call_arguments.done":
            self._close(out, self._key(body), body.get("arguments"))
        elif kind == "response.output_text.delta":
            out.text(body.get("delta"))
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            out.thought(body.get("delta"))
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self._end(kind, _object(body.get("response")), out)
        elif kind == "error":
            out.error = ProviderError(_text_error(body, "error event"), _status(body.get("code")))
        return out.chunk()

    def _name(self, body: dict[str, Any]) -> None:
        response = body.get("response")
        if isinstance(response, dict):
            _remember(self.response, response.get("id"), response.get("model"))
            if type(response.get("created_at")) in (int, float):
                self.response["created"] = int(response["created_at"])

    def _key(self, body: dict[str, Any]) -> object:
        item = body.get("item_id")
        return item if item is not None else self.keys.get(body.get("output_index"))

    def _item(self, body: dict[str, Any], item: dict[str, Any], out: _Out, *, done: bool) -> None:
        kind = item.get("type")
        if kind == "function_call":
            key = item.get("id") or self.keys.get(body.get("output_index"))
            key = key if key is not None else ("output", body.get("output_index"))
            if key not in self.calls:  # added; or J2, an item first seen done
                self.keys[body.get("output_index")] = key
                given = None if done else item.get("arguments")
                self._open(out, key, item.get("call_id"), item.get("name"), given)
            if done:
                self._close(out, key, item.get("arguments"))
        elif kind == "reasoning" and done:  # J5: the item whole, for the next request
            out.details = [item]  # (an entry of its own: each item has its own ``id``)

    def _end(self, kind: str, response: dict[str, Any], out: _Out) -> None:
        usage = response.get("usage")
        out.usage = usage if isinstance(usage, dict) else None
        if kind == "response.completed":
            out.finish = "tool_calls" if self.calls else "stop"
        elif kind == "response.incomplete":  # J6: max_output_tokens (E4) or content_filter
            reason = _object(response.get("incomplete_details")).get("reason")
            out.finish = "content_filter" if reason == "content_filter" else "length"
        else:
            out.error = ProviderError(_text_error(response.get("error"), "response failed"), None)


def _remember(response: dict[str, Any], response_id: object, model: object) -> None:
    if type(response_id) is str and response_id:
        response["id"] = response_id
    if type(model) is str and model:
        response["model"] = model


def _object(value: object) -> dict[str, Any]:
    """``value`` if it is an object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _status(value: object) -> int | None:
    if type(value) is int:
        return value
    if type(value) is str and value.isdigit():
        return int(value)
    return None


# --- K: Anthropic Messages ------------------------------------------------------------------


class _Anthropic(Reader):
    """K1-K5. Blocks are keyed by their ``index``, which counts text and thinking blocks
    too (K4): calls are numbered by the order their ``tool_use`` blocks open. Server tool
    blocks (``server_tool_use``, their results, MCP) are the provider's, never client
    calls (K5): left out, with a diagnostic."""

    dialect = "anthropic"

    def __init__(self) -> None:
        super().__init__()
        self.usage: dict[str, Any] = {}

    def _read(self, body: dict[str, Any], out: _Out) -> Chunk:
        kind = body.get("type")
        index = body.get("index")
        if kind == "message_start":
            self._use(out, _object(body.get("message")).get("usage"))
        elif kind == "content_block_start":
            self._block(index, _object(body.get("content_block")), out)
        elif kind == "content_block_delta":
            self._delta(index, _object(body.get("delta")), out)
        elif kind == "content_block_stop":
            self._close(out, index)
        elif kind == "message_delta":
            self._stop(_object(body.get("delta")).get("stop_reason"), _ANTHROPIC_STOPS, out)
            self._use(out, body.get("usage"))
        elif kind == "error":
            error = body.get("error")
            overloaded = _object(error).get("type") == "overloaded_error"
            out.error = ProviderError(
                _text_error(error, "error event"), 529 if overloaded else None
            )
        return out.chunk()

    def _name(self, body: dict[str, Any]) -> None:
        if body.get("type") == "message_start":
            message = _object(body.get("message"))
            _remember(self.response, message.get("id"), message.get("model"))

    def _block(self, index: object, block: dict[str, Any], out: _Out) -> None:
        kind = block.get("type")
        if kind == "tool_use":
            self._open(out, index, block.get("id"), block.get("name"), block.get("input"))
        elif kind == "text":
            out.text(block.get("text"))
        elif kind == "thinking":
            self._think(out, index, {"type": "thinking", "thinking": block.get("thinking")})
        elif kind == "redacted_thinking":
            self._think(out, index, {"type": "redacted_thinking", "data": block.get("data")})
        elif kind is not None:
            out.problems.append(f"anthropic: a {kind} block is the provider's; not a call")

    def _delta(self, index: object, delta: dict[str, Any], out: _Out) -> None:
        kind = delta.get("type")
        if kind == "input_json_delta":
            self._piece(out, index, delta.get("partial_json"))
        elif kind == "text_delta":
            out.text(delta.get("text"))
        elif kind == "thinking_delta":
            out.thought(delta.get("thinking"))
            self._think(out, index, {"type": "thinking", "thinking": delta.get("thinking")})
        elif kind == "signature_delta":
            self._think(out, index, {"type": "thinking", "signature": delta.get("signature")})

    def _use(self, out: _Out, usage: object) -> None:
        if isinstance(usage, dict):
            self.usage.update((k, v) for k, v in usage.items() if v is not None)
            out.usage = dict(self.usage)


# --- L: Gemini native -----------------------------------------------------------------------


class _Partial:
    """L3: a call whose arguments stream by JSON path: the value so far, and the path of
    a string still growing (``willContinue``)."""

    __slots__ = ("key", "open", "value")

    def __init__(self, key: object) -> None:
        self.key = key
        self.value: dict[str, Any] = {}
        self.open: tuple[object, ...] | None = None


class _Gemini(Reader):
    """L1-L4. Each candidate is a choice (its ``index``). A ``functionCall`` part whole is
    a call whole (its ``args``, its part's ``thoughtSignature``: only its own, L2); a
    call streamed by path (``partialArgs``, L3) is rebuilt from the paths and handed on
    whole when its last part comes (``willContinue`` not set), or when the candidate
    finishes: complete if it finished normally (E3), cut (E4) if not or if a string was
    still growing."""

    dialect = "gemini"

    def __init__(self) -> None:
        super().__init__()
        self.partial: dict[int, _Partial] = {}
        self.roled: set[int] = set()

    def _read(self, body: dict[str, Any], out: _Out) -> Chunk:
        candidates = body.get("candidates")
        usage = body.get("usageMetadata")
        outs: list[tuple[int, _Out]] = []
        for n, candidate in enumerate(candidates if isinstance(candidates, list) else ()):
            if not isinstance(candidate, dict):
                out.problems.append("gemini: a candidate is not an object")
                continue
            number = candidate.get("index", n)
            number = number if type(number) is int and number >= 0 else n
            mine = out if not outs else _Out()
            mine.role = number not in self.roled
            self.roled.add(number)
            self._candidate(number, candidate, mine)
            outs.append((number, mine))
        if isinstance(usage, dict):
            out.usage = usage
        if not outs:
            out.role = False
            return out.chunk()
        chunk = outs[0][1].chunk(outs[0][0])
        for number, more in outs[1:]:
            chunk.choices.extend(more.chunk(number).choices)
            chunk.problems.extend(more.problems)
        return chunk

    def _name(self, body: dict[str, Any]) -> None:
        _remember(self.response, body.get("responseId"), body.get("modelVersion"))

    def end(self) -> Chunk | None:
        """A call streamed by path whose last part never came, cut (E4)."""
        if not self.partial:
            return None
        chunk = _new(Chunk, ([], None, None, []))
        for number, partial in sorted(self.partial.items()):
            out = _Out()
            self._flush(out, partial, cut=True)
            chunk.choices.extend(out.chunk(number).choices)
        self.partial.clear()
        return chunk

    def _candidate(self, number: int, candidate: dict[str, Any], out: _Out) -> None:
        content = candidate.get("content")
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else ():
            if not isinstance(part, dict):
                out.problems.append("gemini: a part is not an object")
                continue
            call = part.get("functionCall")
            if isinstance(call, dict):
                self._call(number, call, part.get("thoughtSignature"), out)
            elif type(part.get("text")) is str:
                (out.thought if part.get("thought") else out.text)(part["text"])
        reason = candidate.get("finishReason")
        if type(reason) is str:
            partial = self.partial.pop(number, None)
            if partial is not None:  # L3 without its terminator: E3, or E4 if cut
                self._flush(out, partial, cut=reason != "STOP" or partial.open is not None)
            for key in [k for k in self.calls if isinstance(k, tuple) and k[0] == number]:
                self._close(out, key)
            if reason == "MALFORMED_FUNCTION_CALL":
                text = candidate.get("finishMessage") or "the model made a malformed call"
                out.error = ProviderError(f"MALFORMED_FUNCTION_CALL: {text}", None, True)
            finish = _GEMINI_STOPS.get(reason, reason.lower())
            called = any(isinstance(k, tuple) and k[0] == number for k in self.calls)
            out.finish = "tool_calls" if finish == "stop" and called else finish

    def _call(self, number: int, call: dict[str, Any], signature: object, out: _Out) -> None:
        partial = self.partial.get(number)
        streamed = "partialArgs" in call or call.get("willContinue") or partial is not None
        if not streamed:  # L1: whole
            key = (number, self.count)
            self._open(out, key, call.get("id"), call.get("name"), None, signature)
            self._close(out, key, call.get("args") if call.get("args") else "{}")
            return
        if partial is None:  # L3: the call's first part
            partial = self.partial[number] = _Partial((number, self.count))
            self._open(out, partial.key, call.get("id"), call.get("name"), None, signature)
        elif signature:
            out.call(self.calls[partial.key].number, signature=signature)
        for piece in call.get("partialArgs") or ():
            if isinstance(piece, dict):
                self._path(partial, piece, out)
        if not call.get("willContinue") and not (call.get("partialArgs") and partial.open):
            self.partial.pop(number, None)
            self._flush(out, partial, cut=False)

    def _path(self, partial: _Partial, piece: dict[str, Any], out: _Out) -> None:
        path = _json_path(piece.get("jsonPath"))
        if path is None:
            out.problems.append(f"gemini: unreadable jsonPath {piece.get('jsonPath')!r}")
            return
        value: object
        if "stringValue" in piece:
            value = piece["stringValue"]
        elif "numberValue" in piece:
            number = piece["numberValue"]
            value = int(number) if isinstance(number, float) and number.is_integer() else number
        elif "boolValue" in piece:
            value = piece["boolValue"]
        elif "nullValue" in piece:
            value = None
        else:
            out.problems.append("gemini: a partial argument without a value")
            return
        grows = type(value) is str and partial.open == path
        _put(partial.value, path, value, append=grows)
        partial.open = path if type(value) is str and piece.get("willContinue") else None

    def _flush(self, out: _Out, partial: _Partial, *, cut: bool) -> None:
        """The streamed call's arguments, whole; cut off (not one JSON value) if ``cut``."""
        call = self.calls[partial.key]
        call.done = True
        text = json.dumps(partial.value, ensure_ascii=False)
        out.call(call.number, arguments=text[:-1] if cut else text)


def _json_path(path: object) -> tuple[object, ...] | None:
    """An RFC 9535 normalized path (``$.a.b[0]['c d']``) as its keys; ``None`` if not one."""
    if type(path) is not str or not path.startswith("$"):
        return None
    keys: list[object] = []
    i, n = 1, len(path)
    while i < n:
        if path[i] == ".":
            j = i + 1
            while j < n and path[j] not in ".[":
                j += 1
            if j == i + 1:
                return None
            keys.append(path[i + 1 : j])
            i = j
        elif path[i] == "[":
            j = path.find("]", i)
            if j < 0:
                return None
            inner = path[i + 1 : j]
            if inner.isdigit():
                keys.append(int(inner))
            elif len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
                keys.append(inner[1:-1])
            else:
                return None
            i = j + 1
        else:
            return None
    return tuple(keys)


def _put(root: dict[str, Any], path: tuple[object, ...], value: object, *, append: bool) -> None:
    """Set ``value`` at ``path`` in ``root``, making the objects and arrays on the way
    (a string appended to the one there when ``append``)."""
    if not path:
        return
    node: Any = root
    for key, after in pairwise(path):
        empty: Any = [] if type(after) is int else {}
        if type(key) is int:
            while len(node) <= key:
                node.append(None)
            if node[key] is None:
                node[key] = empty
            node = node[key]
        else:
            node = node.setdefault(key, empty)
    last = path[-1]
    if type(last) is int:
        while len(node) <= last:
            node.append(None)
    if append and isinstance(node[last] if type(last) is int else node.get(last), str):
        node[last] += value
    else:
        node[last] = value


# --- M: Bedrock ConverseStream --------------------------------------------------------------


class _Bedrock(Reader):
    """M1. Blocks keyed by ``contentBlockIndex`` (text blocks count too, and open with no
    ``contentBlockStart``); a ``toolUse`` block is a call; reasoning blocks are thinking
    blocks (Anthropic's thinking on Bedrock)."""

    dialect = "bedrock"

    def _read(self, body: dict[str, Any], out: _Out) -> Chunk:
        ((kind, value),) = body.items() if len(body) == 1 else (("", None),)
        event = _object(value)
        index = event.get("contentBlockIndex")
        if kind == "contentBlockStart":
            use = _object(event.get("start")).get("toolUse")
            if isinstance(use, dict):
                self._open(out, index, use.get("toolUseId"), use.get("name"), use.get("input"))
        elif kind == "contentBlockDelta":
            self._delta(index, _object(event.get("delta")), out)
        elif kind == "contentBlockStop":
            self._close(out, index)
        elif kind == "messageStop":
            self._stop(event.get("stopReason"), _BEDROCK_STOPS, out)
        elif kind == "metadata":
            usage = event.get("usage")
            out.usage = usage if isinstance(usage, dict) else None
        elif kind in _BEDROCK_ERRORS:
            text = _text_error(event, kind)
            out.error = ProviderError(f"{kind}: {text}", _BEDROCK_ERRORS[kind])
        elif kind != "messageStart":  # the role: a message's first item names it
            out.problems.append(f"bedrock: unknown event {kind!r}; ignored")
        return out.chunk()

    def _delta(self, index: object, delta: dict[str, Any], out: _Out) -> None:
        if isinstance(delta.get("toolUse"), dict):
            self._piece(out, index, delta["toolUse"].get("input"))
        elif "text" in delta:
            out.text(delta.get("text"))
        elif isinstance(delta.get("reasoningContent"), dict):
            reasoning = delta["reasoningContent"]
            text = reasoning.get("text")
            if type(text) is str:
                out.thought(text)
                self._think(out, index, {"type": "thinking", "thinking": text})
            if type(reasoning.get("signature")) is str:
                self._think(out, index, {"type": "thinking", "signature": reasoning["signature"]})
            if reasoning.get("redactedContent") is not None:
                piece = {"type": "redacted_thinking", "data": reasoning["redactedContent"]}
                self._think(out, index, piece)
