"""streamfix: assemble streamed LLM tool calls into exactly the message a non-streamed
response would carry, whatever the provider sends.

>>> import streamfix
>>> message = streamfix.assemble(chunks)          # doctest: +SKIP
>>> [(c.name, c.parsed) for c in message.tool_calls]  # doctest: +SKIP
"""

from typing import Any

from ._assembler import ToolCallAssembler, aassemble, assemble
from ._errors import (
    ArgumentsTooLargeError,
    AssemblerClosedError,
    MalformedToolCallError,
    ProviderStreamError,
    StreamFixError,
    TruncatedToolCallError,
)
from ._registry import install, install_on_import, installed, uninstall
from ._types import (
    ArgumentsDelta,
    AssembledMessage,
    Diagnostic,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallStarted,
    ToolCallUpdated,
    UsageReported,
)
from ._version import __version__

__all__ = [
    "ArgumentsDelta",
    "ArgumentsTooLargeError",
    "AssembledMessage",
    "AssemblerClosedError",
    "Diagnostic",
    "Event",
    "MalformedToolCallError",
    "ProviderStreamError",
    "ReasoningDelta",
    "StreamFixError",
    "TextDelta",
    "ToolCall",
    "ToolCallAssembler",
    "ToolCallCompleted",
    "ToolCallStarted",
    "ToolCallUpdated",
    "TruncatedToolCallError",
    "UsageReported",
    "__version__",
    "aassemble",
    "assemble",
    "install",
    "install_on_import",
    "installed",
    "uninstall",
]

# The corpus and the replay server moved to streamfix.testing (the core loads no tools).
_MOVED = ("SCENARIOS", "Scenario", "scenarios", "ReplayApp", "ReplayServer", "load_capture")


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        import warnings  # noqa: PLC0415

        from . import testing  # noqa: PLC0415

        warnings.warn(
            f"streamfix.{name} moved to streamfix.testing.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(testing, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
