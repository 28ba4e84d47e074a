"""streamfix: assemble streamed LLM tool calls into exactly the message a non-streamed
response would carry, whatever the provider sends.

>>> import streamfix
>>> message = streamfix.assemble(chunks)          # doctest: +SKIP
>>> [(c.name, c.parsed) for c in message.tool_calls]  # doctest: +SKIP
"""

from ._assembler import ToolCallAssembler, aassemble, assemble
from ._corpus import SCENARIOS, Scenario, scenarios
from ._errors import (
    ArgumentsTooLargeError,
    AssemblerClosedError,
    MalformedToolCallError,
    ProviderStreamError,
    StreamFixError,
    TruncatedToolCallError,
)
from ._registry import install, install_on_import, installed, uninstall
from ._server import ReplayApp, ReplayServer, load_capture
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

__all__ = [
    "SCENARIOS",
    "ArgumentsDelta",
    "ArgumentsTooLargeError",
    "AssembledMessage",
    "AssemblerClosedError",
    "Diagnostic",
    "Event",
    "MalformedToolCallError",
    "ProviderStreamError",
    "ReasoningDelta",
    "ReplayApp",
    "ReplayServer",
    "Scenario",
    "StreamFixError",
    "TextDelta",
    "ToolCall",
    "ToolCallAssembler",
    "ToolCallCompleted",
    "ToolCallStarted",
    "ToolCallUpdated",
    "TruncatedToolCallError",
    "UsageReported",
    "aassemble",
    "assemble",
    "install",
    "install_on_import",
    "installed",
    "load_capture",
    "scenarios",
    "uninstall",
]
