"""streamfix: assemble streamed LLM tool calls into exactly the message a non-streamed
response would carry, whatever the provider sends.

>>> import streamfix
>>> message = streamfix.assemble(chunks)          # doctest: +SKIP
>>> [(c.name, c.parsed) for c in message.tool_calls]  # doctest: +SKIP
>>> for chunk in streamfix.repair(chunks):         # doctest: +SKIP
...     ...  # the same stream in OpenAI's own form (wire-shapes R)
"""

from typing import Any

from . import _errors, _types
from ._assembler import AssembleOptions, ToolCallAssembler, aassemble, assemble
from ._dialects import DIALECTS
from ._emit import Rebuild, StreamRepairer, arepair, repair
from ._errors import *  # noqa: F403 (the error hierarchy, its __all__)
from ._registry import install, install_on_import, installed, uninstall
from ._types import *  # noqa: F403 (the message, calls, events, diagnostics: its __all__)
from ._version import __version__

__all__ = [
    "DIALECTS",
    "AssembleOptions",
    "Rebuild",
    "StreamRepairer",
    "ToolCallAssembler",
    "__version__",
    "aassemble",
    "arepair",
    "assemble",
    "install",
    "install_on_import",
    "installed",
    "repair",
    "uninstall",
]
__all__ += _errors.__all__
__all__ += _types.__all__

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
