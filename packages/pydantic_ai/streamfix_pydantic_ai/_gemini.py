"""Gemini 3's streamed function-call arguments (wire-shapes L3) made whole calls, through
the core, before pydantic-ai's ``GoogleModel`` reads the stream.

``GeminiStreamedResponse`` makes one tool call of every ``functionCall`` part, reading only
``name``, ``args`` and ``id``: a call streamed by JSON path (``partialArgs`` entries, bare
``{"willContinue": true}`` parts, an empty ``functionCall`` ending it) becomes a call with
no arguments, and its nameless continuation parts crash the stream (``IndexError``).
:func:`whole_calls` holds those parts back (the chunks carrying them, as JSON), and once a
call is ended (its empty ``functionCall``, the candidate's ``finishReason``, or the end of
the stream) hands the held chunks to :func:`streamfix.assemble` (the core's Gemini
reader rebuilds the arguments from the JSON paths) and passes on, in their place, one
chunk with each assembled call as a whole ``functionCall`` part (name, id, arguments, its
own ``thoughtSignature``). Every other chunk passes on as it came; a stream with no
streamed call is untouched. A call the core cannot complete (cut by ``MAX_TOKENS``) ends
the stream in the core's typed error, which carries what was assembled.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from streamfix import assemble

__all__ = ["process_streamed_response", "whole_calls"]


def _dump(chunk: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = chunk.model_dump(by_alias=True, exclude_none=True, mode="json")
    return dumped


def _streamed(part: Any) -> bool:
    """A part of a call streamed by JSON path: ``partialArgs``, ``willContinue``, or the
    empty ``functionCall`` ending it."""
    call = part.get("functionCall") if isinstance(part, dict) else None
    return isinstance(call, dict) and (
        "partialArgs" in call or bool(call.get("willContinue")) or not call
    )


def _candidate(body: dict[str, Any]) -> dict[str, Any]:
    candidates = body.get("candidates") or [{}]
    first = candidates[0]
    return first if isinstance(first, dict) else {}


def _with_parts(body: dict[str, Any], parts: list[Any]) -> dict[str, Any]:
    candidate = _candidate(body)
    content = {**(candidate.get("content") or {}), "parts": parts}
    return {**body, "candidates": [{**candidate, "content": content}]}


def _whole(kind: Any, held: list[dict[str, Any]], last: dict[str, Any] | None) -> Any:
    """One chunk of ``kind`` with the calls the core assembles from ``held`` (and the
    candidate's last chunk, its finish reason, when it came)."""
    message = assemble([*held, *([last] if last is not None else [])])
    (content,) = message.to_history("gemini")  # each call a part, its own signature
    parts = [part for part in content["parts"] if "functionCall" in part]
    body = _with_parts({k: v for k, v in held[0].items() if k != "usageMetadata"}, parts)
    body["candidates"][0].pop("finishReason", None)
    return kind.model_validate_json(json.dumps(body))


async def whole_calls(chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """The chunks, each call streamed by JSON path given as one whole call (see above)."""
    held: list[dict[str, Any]] = []
    kind: Any = None
    async for chunk in chunks:
        body = _dump(chunk)
        candidate = _candidate(body)
        parts = (candidate.get("content") or {}).get("parts") or []
        streamed = [part for part in parts if _streamed(part)]
        if not streamed and not held:
            yield chunk
            continue
        kind = type(chunk)
        if streamed:
            bare = {key: value for key, value in body.items() if key != "usageMetadata"}
            held.append(_with_parts(bare, streamed))
        finished = candidate.get("finishReason") is not None
        if held and (finished or any(part["functionCall"] == {} for part in streamed)):
            yield _whole(kind, held, _with_parts(body, []) if finished else None)
            held = []
        rest = [part for part in parts if not _streamed(part)]
        if not streamed:
            yield chunk
        elif rest or finished or body.get("usageMetadata"):
            yield kind.model_validate_json(json.dumps(_with_parts(body, rest)))
    if held:
        yield _whole(kind, held, None)


def process_streamed_response(
    original: Callable[..., Coroutine[Any, Any, Any]],
) -> Callable[..., Coroutine[Any, Any, Any]]:
    """``GoogleModel._process_streamed_response`` reading :func:`whole_calls` of the
    response's chunks."""

    async def _process_streamed_response(
        self: Any, response: AsyncIterator[Any], *args: Any, **kwargs: Any
    ) -> Any:
        return await original(self, whole_calls(response), *args, **kwargs)

    return _process_streamed_response
