"""streamfix.testing: the public shape corpus, capture reading, the replay server, the
pytest plugin, and what the doctor's drivers share.

- the corpus: :data:`SCENARIOS` / :func:`scenarios` (every wire shape of
  ``docs/wire-shapes.md`` as a :class:`Scenario`: chunks, what they must assemble to, the
  same response non-streamed), :func:`text_chunks`;
- captures: :func:`read_capture` (JSONL, raw SSE text or Ollama NDJSON; a
  :class:`CaptureError` for anything else), :func:`load_capture` (the same as a
  :class:`Scenario`), :func:`parse_sse` / :func:`parse_lines` (one stream's text);
- the replay server: :class:`ReplayApp` (plain ASGI), :class:`ReplayServer` (on uvicorn in a
  background thread, the optional ``serve`` extra), and the ASGI helpers both it and
  ``streamfix record`` run on (:class:`BackgroundServer`, :func:`read_body`...);
- the doctor's data types, for the shims' drivers: :class:`Driver`, :class:`Outcome`,
  :func:`judge` and their helpers.

The pytest plugin (entry point ``pytest11``) is :mod:`streamfix.testing._pytest_plugin`.

Importing this package imports none of its modules: each public name is imported when
first used, so the pytest plugin (loaded in every project that installs adk-streamfix)
pays only for what a test uses, and no socket, thread or uvicorn is loaded before a
server starts.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._asgi import (
        BackgroundServer,
        Message,
        Receive,
        Send,
        lifespan,
        read_body,
        read_json,
        send_json,
    )
    from ._capture import (
        Capture,
        CaptureError,
        load_capture,
        parse_lines,
        parse_sse,
        read_capture,
    )
    from ._corpus import OOM_TEXT, SCENARIOS, Dialect, Scenario, scenarios, text_chunks
    from ._doctor import (
        Driver,
        Outcome,
        failure,
        fresh_chunks,
        judge,
        openai_stream,
        parse_arguments,
    )
    from ._server import ReplayApp, ReplayServer

__all__ = [
    "OOM_TEXT",
    "SCENARIOS",
    "BackgroundServer",
    "Capture",
    "CaptureError",
    "Dialect",
    "Driver",
    "Message",
    "Outcome",
    "Receive",
    "ReplayApp",
    "ReplayServer",
    "Scenario",
    "Send",
    "failure",
    "fresh_chunks",
    "judge",
    "lifespan",
    "load_capture",
    "openai_stream",
    "parse_arguments",
    "parse_lines",
    "parse_sse",
    "read_body",
    "read_capture",
    "read_json",
    "scenarios",
    "send_json",
    "text_chunks",
]

_MODULES = {
    "_asgi": (
        "BackgroundServer",
        "Message",
        "Receive",
        "Send",
        "lifespan",
        "read_body",
        "read_json",
        "send_json",
    ),
    "_capture": (
        "Capture",
        "CaptureError",
        "load_capture",
        "parse_lines",
        "parse_sse",
        "read_capture",
    ),
    "_corpus": ("OOM_TEXT", "SCENARIOS", "Dialect", "Scenario", "scenarios", "text_chunks"),
    "_doctor": (
        "Driver",
        "Outcome",
        "failure",
        "fresh_chunks",
        "judge",
        "openai_stream",
        "parse_arguments",
    ),
    "_server": ("ReplayApp", "ReplayServer"),
}
_WHERE = {name: module for module, names in _MODULES.items() for name in names}
"""Where each public name is defined (imported on first use)."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
