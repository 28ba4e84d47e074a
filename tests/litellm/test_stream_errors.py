"""``CustomStreamWrapper._map_stream_exception``, patched: the openai SDK's error for an
SSE event carrying ``error`` becomes litellm's exception for the provider's own status
(stock: ``APIConnectionError``); every other exception is mapped as stock maps it. Over
real HTTP: ``tests/e2e/test_litellm_builder.py``.

litellm releases without ``_map_stream_exception`` (1.80) map in-stream errors in code
the shim does not replace: there, the tests assert the shim leaves the wrapper alone.

Direct mode (``STREAMFIX_DIRECT=1``, litellm patched with
``docs/upstream/litellm-stream-errors.patch``, no shim): the ``patched`` tests drive
litellm's own ``_map_stream_exception``; the ``stock_failure`` test is deselected."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest


def _wrapper() -> Any:
    import litellm
    from litellm.litellm_core_utils.litellm_logging import Logging
    from litellm.litellm_core_utils.streaming_handler import CustomStreamWrapper

    logging = Logging(
        model="gpt-x",
        messages=[],
        stream=True,
        call_type="completion",
        start_time=None,
        litellm_call_id="streamfix-test",
        function_id="streamfix-test",
    )
    logging.model_call_details["litellm_params"] = {}
    litellm.suppress_debug_info = True
    return CustomStreamWrapper(
        completion_stream=iter(()), model="gpt-x", custom_llm_provider="openai", logging_obj=logging
    )


def _in_stream(body: dict[str, Any]) -> openai.APIError:
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    return openai.APIError(message=str(body.get("message")), request=request, body=body)


def _has_mapper() -> bool:
    from litellm.litellm_core_utils.streaming_handler import CustomStreamWrapper

    return "_map_stream_exception" in CustomStreamWrapper.__dict__


def _mapped(exception: Exception) -> Exception:
    """What the wrapper maps ``exception`` to (litellm's mapper raises it)."""
    try:
        return _wrapper()._map_stream_exception(exception)  # type: ignore[no-any-return]
    except Exception as mapped:
        return mapped


BODIES = [
    ({"message": "Token limit reached", "code": 400}, "BadRequestError"),
    ({"message": "Tool choice is required", "type": "invalid_request_error"}, "BadRequestError"),
    ({"message": "slow down", "code": 429}, "RateLimitError"),
    ({"message": "upstream overloaded", "code": 502}, "InternalServerError"),
]


@pytest.mark.stock_failure
@pytest.mark.parametrize(("body", "kind"), BODIES)
def test_stock_maps_an_in_stream_error_to_a_connection_error(
    body: dict[str, Any], kind: str
) -> None:
    import litellm

    if not _has_mapper():
        return  # nothing of stock's to compare with on this release
    mapped = _mapped(_in_stream(body))
    assert isinstance(mapped, litellm.APIConnectionError)


@pytest.mark.parametrize(("body", "kind"), BODIES)
def test_patched_maps_it_by_the_provider_s_status(
    patched: None, body: dict[str, Any], kind: str
) -> None:
    if not _has_mapper():
        from streamfix_litellm import _patch

        assert all(
            s.attribute != "CustomStreamWrapper._map_stream_exception" or s.optional
            for s in _patch.SHIM.sites
        )
        return
    mapped = _mapped(_in_stream(body))
    assert type(mapped).__name__ == kind
    assert type(mapped).__module__ == "litellm.exceptions"
    assert body["message"] in str(mapped)


def test_other_exceptions_are_mapped_as_stock_maps_them(patched: None) -> None:
    import litellm

    if not _has_mapper():
        return
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    mapped = _mapped(openai.APIConnectionError(request=request))
    assert isinstance(mapped, litellm.APIConnectionError)
