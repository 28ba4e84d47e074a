"""``streamfix.install("litellm")``: patch litellm's stream parsers.

Replaces ``OllamaChatCompletionResponseIterator.chunk_parser`` (Ollama ``/api/chat``: call
indices and error lines; the iterator looks the method up on its class) and
``CustomStreamWrapper.chunk_creator`` (OpenAI-compatible streams: signature-only tool-call
entries kept); :func:`uninstall` puts each original attribute back exactly.
"""

from __future__ import annotations

import importlib.util
from importlib.metadata import PackageNotFoundError, version
from typing import Any

__all__ = ["SUPPORTED", "TRIGGER", "available", "install", "original", "uninstall"]

#: The module this patch changes: ``streamfix.install_on_import`` (``STREAMFIX_AUTO``,
#: ``streamfix run``) patches when the program imports it.
TRIGGER = "litellm"

#: ``streamfix doctor``'s driver, as "module:attribute" (imported only when the doctor runs it).
DOCTOR = "streamfix_litellm._doctor:DRIVER"

SUPPORTED = ((1, 80), (2, 0))  # litellm >= 1.80, < 2.0: the versions this shim was tested on

# (module, class, attribute, replacement module, replacement name): every binding site.
_SITES = (
    (
        "litellm.llms.ollama.chat.transformation",
        "OllamaChatCompletionResponseIterator",
        "chunk_parser",
        "._ollama",
    ),
    (
        "litellm.litellm_core_utils.streaming_handler",
        "CustomStreamWrapper",
        "chunk_creator",
        "._openai",
    ),
)
_originals: dict[str, Any] = {}


def available() -> bool:
    """Is litellm installed?"""
    return importlib.util.find_spec("litellm") is not None


def original(attribute: str = "chunk_parser") -> Any:
    """The stock method replaced at ``attribute`` while patched, else ``None``."""
    return _originals.get(attribute)


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


def _owner(module: str, name: str) -> Any:
    return getattr(importlib.import_module(module), name)


def install() -> None:
    """Patch every site (idempotent)."""
    if _originals:
        return
    _check_version()
    for module, owner_name, attribute, replacement in _SITES:
        owner = _owner(module, owner_name)
        fixed = getattr(importlib.import_module(replacement, __package__), attribute)
        _originals[attribute] = owner.__dict__[attribute]
        setattr(owner, attribute, fixed)


def uninstall() -> None:
    """Put every original back exactly (idempotent)."""
    for module, owner_name, attribute, _ in _SITES:
        if attribute in _originals:
            setattr(_owner(module, owner_name), attribute, _originals.pop(attribute))
