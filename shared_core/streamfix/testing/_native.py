"""What the doctor's drivers of the frameworks' native paths for the other dialects
(wire-shapes J-M) share: the replay server they all read over real HTTP (started once,
on first use), one run read into an :class:`~streamfix.testing.Outcome` with the
provider's error code and words put first where the framework's error keeps them, and an
SDK client closed in the run's own event loop. Imports no framework.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ._doctor import Outcome, failure
from ._server import ReplayServer

__all__ = ["aclose", "native_outcome", "native_server"]

_SERVER: list[ReplayServer] = []


def native_server() -> ReplayServer:
    """The replay server the native columns share, started on first use (uvicorn, the
    ``serve`` extra) on a free loopback port."""
    if not _SERVER:
        _SERVER.append(ReplayServer().start())
    return _SERVER[0]


def _provider_error(error: BaseException) -> tuple[str, str] | None:
    """The provider's error code and words where the framework's error keeps them: a
    pydantic-ai ``ModelHTTPError``'s ``body``, botocore's ``EventStreamError.response``,
    the ``ResponseError`` an openai-agents ``ModelBehaviorError`` spells out."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        nested = body.get("error")
        inner: dict[Any, Any] = nested if isinstance(nested, dict) else body
        code, words = inner.get("type") or inner.get("code"), inner.get("message")
        if code and words:
            return str(code), str(words)
    response = getattr(error, "response", None)
    if isinstance(response, dict) and isinstance(response.get("Error"), dict):
        found = response["Error"]
        if found.get("Code") and found.get("Message"):
            return str(found["Code"]), str(found["Message"])
    spelled = re.search(r"ResponseError\(code='([^']*)', message='([^']*)'", str(error))
    return (spelled[1], spelled[2]) if spelled else None


def native_outcome(run: Callable[[], Any], read: Callable[[Any], Outcome]) -> Outcome:
    """``read`` of what ``run()`` returned (a coroutine run to its end first); what it
    raised is the outcome instead (:func:`~streamfix.testing.failure`), the provider's
    ``code: words`` put first when the framework's error keeps them (each framework
    words an error event its own way; the judge looks for the provider's)."""
    try:
        result = run()
        if hasattr(result, "__await__"):
            import asyncio  # noqa: PLC0415 (only when a scenario runs)

            result = asyncio.run(result)
    except Exception as error:  # what the framework raised is the outcome
        outcome = failure(error)
        provider = _provider_error(error)
        if provider is None:
            return outcome
        return Outcome(error=f"{provider[0]}: {provider[1]} ({outcome.error})")
    return read(result)


async def aclose(client: Any) -> None:
    """An SDK client closed in the run's own event loop (else its connections are closed
    by the garbage collector after the loop: a warning each)."""
    aio = getattr(client, "aio", None)  # google-genai: the async client's connections
    closing = aio.aclose() if aio is not None else client.close()
    if hasattr(closing, "__await__"):
        await closing
