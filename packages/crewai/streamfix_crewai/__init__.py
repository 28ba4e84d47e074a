"""crewai shim: ``LLM(stream=True)`` on the litellm path keeps what its non-streamed path
keeps.

``LLM._handle_streaming_response`` returns the calls of a streamed response without their
ids (``ChatCompletionDeltaToolCall`` built from name and arguments alone), where the
non-streamed path returns the provider's calls with theirs: crewai's agents then answer
every call with a tool message whose ``tool_call_id`` is ``None``. And a stream that fails
after some text returns that text as the answer, where the non-streamed path raises. Both
happen on OpenAI's own form, so the repaired litellm wire alone is not enough:
``streamfix.install("litellm", "crewai")`` repairs the stream and fixes both
(:mod:`streamfix_crewai._streaming`). The text beside calls is not returned by either path
(crewai's ``call`` returns the calls alone; the streamed path emits the text as
``LLMStreamChunkEvent`` s): left as crewai has it. Without patching, set the four
fixed methods under crewai's names (with a leading underscore) on a subclass of
``crewai.LLM``.
"""

from __future__ import annotations

from ._patch import SHIM, SUPPORTED
from ._streaming import (
    ahandle_streaming_response,
    extract_finish_reason_and_response_id,
    handle_emit_call_events,
    handle_streaming_response,
)

available, install, installed, uninstall = SHIM.functions()

__all__ = [
    "SUPPORTED",
    "ahandle_streaming_response",
    "available",
    "extract_finish_reason_and_response_id",
    "handle_emit_call_events",
    "handle_streaming_response",
    "install",
    "installed",
    "uninstall",
]
