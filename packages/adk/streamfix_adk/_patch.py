"""``install()`` / ``uninstall()`` for google-adk, registered as the ``adk`` patch.

After :func:`install`, every ``google.adk.models.lite_llm.LiteLlm`` instance streams
through streamfix, including instances (and subclasses) created before: the method is
replaced on the class itself, the one place every binding resolves it from.
:func:`uninstall` puts ADK's own method back.
"""

from __future__ import annotations

import importlib.util
from importlib.metadata import PackageNotFoundError, version
from typing import Any

__all__ = ["SUPPORTED", "TRIGGER", "available", "install", "uninstall"]

#: The module this patch changes: ``streamfix.install_on_import`` (``STREAMFIX_AUTO``,
#: ``streamfix run``) patches when the program imports it.
TRIGGER = "google.adk.models.lite_llm"

#: ``streamfix doctor``'s driver, as "module:attribute" (imported only when the doctor runs it).
DOCTOR = "streamfix_adk._doctor:DRIVER"

#: Supported google-adk releases: the newest 1.x (1.39+) and 2.x.
SUPPORTED = ((1, 39), (3, 0))

_original: Any = None


def available() -> bool:
    """Whether google-adk and litellm are installed."""
    return (
        importlib.util.find_spec("google.adk") is not None
        and importlib.util.find_spec("litellm") is not None
    )


def adk_version() -> tuple[int, ...]:
    """The installed google-adk's (major, minor)."""
    try:
        found = version("google-adk")
    except PackageNotFoundError as error:  # pragma: no cover - available() said yes
        raise RuntimeError("streamfix adk: google-adk is not installed") from error
    return tuple(int(part) for part in found.split(".")[:2] if part.isdigit())


def _check_version() -> None:
    numbers = adk_version()
    low, high = SUPPORTED
    if not low <= numbers < high:
        found = version("google-adk")
        raise RuntimeError(
            f"streamfix adk: google-adk {found} is not supported"
            f" (supported: >={low[0]}.{low[1]}, <{high[0]})"
        )


def install() -> None:
    """Route every ``LiteLlm``'s streaming through streamfix. Idempotent."""
    global _original
    _check_version()
    from google.adk.models.lite_llm import LiteLlm

    from ._model import fixed_generate_content_async

    current = LiteLlm.__dict__["generate_content_async"]
    if current is fixed_generate_content_async:
        return
    _original = current
    LiteLlm.generate_content_async = fixed_generate_content_async


def uninstall() -> None:
    """Put ADK's own ``generate_content_async`` (and partial-arguments tracker) back.
    Idempotent."""
    global _original
    if _original is None:
        return
    from google.adk.models.lite_llm import LiteLlm

    LiteLlm.generate_content_async = _original
    _original = None
    if adk_version() >= (2, 13):  # a fixed stream may have put its tracker in ADK's module
        from ._tracker import restore

        restore()
