"""``streamfix.install("litellm")``: patch litellm's Ollama ``/api/chat`` stream parser.

Replaces ``OllamaChatCompletionResponseIterator.chunk_parser`` (the one binding: the
iterator is built by ``OllamaChatConfig.get_model_response_iterator`` and looks the method
up on its class); :func:`uninstall` puts the original attribute back exactly.
"""

from __future__ import annotations

import importlib.util
from importlib.metadata import PackageNotFoundError, version
from typing import Any

__all__ = ["SUPPORTED", "available", "install", "original", "uninstall"]

SUPPORTED = ((1, 80), (2, 0))  # litellm >= 1.80, < 2.0: the versions this shim was tested on

_original: Any = None


def available() -> bool:
    """Is litellm installed?"""
    return importlib.util.find_spec("litellm") is not None


def original() -> Any:
    """The stock ``chunk_parser`` while patched, else ``None``."""
    return _original


def _check_version() -> None:
    try:
        installed = version("litellm")
    except PackageNotFoundError as error:  # pragma: no cover - available() said yes
        raise RuntimeError("litellm is not installed") from error
    parts = installed.split(".")
    try:
        major_minor = (int(parts[0]), int(parts[1]))
    except (IndexError, ValueError):
        major_minor = (0, 0)
    low, high = SUPPORTED
    if not low <= major_minor < high:
        raise RuntimeError(
            f"litellm {installed} is not supported by streamfix_litellm (supported: "
            f">={low[0]}.{low[1]},<{high[0]}.{high[1]}); not patched"
        )


def install() -> None:
    """Patch ``OllamaChatCompletionResponseIterator.chunk_parser`` (idempotent)."""
    global _original
    if _original is not None:
        return
    _check_version()
    from litellm.llms.ollama.chat.transformation import OllamaChatCompletionResponseIterator

    from ._ollama import chunk_parser

    _original = OllamaChatCompletionResponseIterator.__dict__["chunk_parser"]
    OllamaChatCompletionResponseIterator.chunk_parser = chunk_parser  # type: ignore[method-assign]


def uninstall() -> None:
    """Put the original ``chunk_parser`` back (idempotent)."""
    global _original
    if _original is None:
        return
    from litellm.llms.ollama.chat.transformation import OllamaChatCompletionResponseIterator

    OllamaChatCompletionResponseIterator.chunk_parser = _original  # type: ignore[method-assign]
    _original = None
