"""Every openai version threshold the shim depends on, in one place.

The chat-completions stream helper (``client.chat.completions.stream``, built on
``openai.lib.streaming.chat.ChatCompletionStreamState``) first shipped in openai 1.40.0;
its module, its class names and the ``_accumulate_chunk`` / ``_build_events`` split this
shim relies on are the same in every release since, up to the newest 3.x.
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = [
    "HELPER_MODULE",
    "SUPPORTED",
    "content_filter_error",
    "not_given",
    "placeholder_request",
]

#: The openai versions this shim was tested on: the first release with the helper and
#: every 1.x, 2.x and 3.x release after it.
SUPPORTED = ">=1.40,<4"

#: Where the helper's state, streams and managers live (all releases).
HELPER_MODULE = "openai.lib.streaming.chat._completions"


def content_filter_error(completion: Any) -> Exception:
    """The SDK's ``ContentFilterFinishReasonError`` as this release builds it: with the
    completion snapshot from the releases whose class takes it, without it before."""
    from openai import ContentFilterFinishReasonError

    if "completion" in inspect.signature(ContentFilterFinishReasonError).parameters:
        return ContentFilterFinishReasonError(completion=completion)  # type: ignore[call-arg,unused-ignore]
    return ContentFilterFinishReasonError()  # type: ignore[call-arg,unused-ignore]


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
