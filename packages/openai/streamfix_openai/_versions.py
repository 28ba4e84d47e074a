"""Every openai version threshold the shim depends on, in one place.

The chat-completions stream helper (``client.chat.completions.stream``, built on
``openai.lib.streaming.chat.ChatCompletionStreamState``) first shipped in openai 1.40.0;
its module, its class names and the ``_accumulate_chunk`` / ``_build_events`` split this
shim relies on are the same in every release since, up to the newest 3.x. So is what the
wire repair relies on (``_wire``): ``Stream`` / ``AsyncStream`` in ``openai._streaming``
building their iterator with ``self.__stream__()`` in ``__init__``, the stream's
``_cast_to``, ``response`` (whose ``request`` carries the body and the helper's
``X-Stainless-Helper-Method`` header; ``beta.chat.completions.stream`` on 1.x) and the
client's ``_process_response_data``; 3.x builds on ``httpx2`` instead of ``httpx``, with
the same request and response API. Tested on 1.40.0, 2.54.0 and 3.57.0.
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = [
    "HELPER_MODULE",
    "STREAMING",
    "SUPPORTED",
    "finish_reason_error",
    "not_given",
    "placeholder_request",
]

#: The openai versions this shim was tested on: the first release with the helper and
#: every 1.x, 2.x and 3.x release after it.
SUPPORTED = ">=1.40,<4"

#: Where the helper's state, streams and managers live (all releases).
HELPER_MODULE = "openai.lib.streaming.chat._completions"

#: Where ``Stream`` and ``AsyncStream`` live, whose ``__init__`` sets ``self._iterator =
#: self.__stream__()`` (all releases: the wire repair replaces ``__stream__``).
STREAMING = "openai._streaming"


def finish_reason_error(kind: type[Exception], completion: Any) -> Exception:
    """The SDK's ``LengthFinishReasonError`` / ``ContentFilterFinishReasonError`` as this
    release builds them: with the completion snapshot where the class takes it (later
    releases), without it before (openai 1.40)."""
    if "completion" in inspect.signature(kind).parameters:
        return kind(completion=completion)  # type: ignore[call-arg,unused-ignore]
    return kind()


def placeholder_request() -> Any:
    """A request for an ``APIError`` raised where the SDK's state holds none: of the HTTP
    library this release is built on (``httpx2`` from openai 3.0, ``httpx`` before)."""
    from openai import _exceptions

    http = getattr(_exceptions, "httpx2", None) or _exceptions.httpx  # type: ignore[attr-defined,unused-ignore]
    return http.Request("POST", "chat/completions")


def not_given() -> Any:
    """The SDK's "argument not given" value: ``omit`` from openai 2.x, ``NOT_GIVEN`` before
    (openai 1.40's ``ChatCompletionStreamState`` requires both its arguments)."""
    import openai

    return getattr(openai, "omit", None) or openai.NOT_GIVEN
