"""The frameworks' own log lines kept out of the doctor's output.

The doctor feeds every framework broken streams on purpose; what a framework logs about
them (google-adk's "Discarding tool call 'get_weather' with unparseable arguments", a
warning of litellm or smolagents) is already in the matrix, judged. :func:`quiet_frameworks`
raises the level of the frameworks' loggers for the length of a run and puts each back
afterwards. streamfix's own logger (a patch that failed to install) is left alone.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FRAMEWORK_LOGGERS", "quiet_frameworks"]

FRAMEWORK_LOGGERS = (
    "google_adk",
    "google_genai",
    "LiteLLM",
    "LiteLLM Router",
    "LiteLLM Proxy",
    "smolagents",
    "openai",
    "httpx",
    "httpcore",
)
"""The loggers of the frameworks the doctor drives, and of the HTTP clients under them."""

_QUIET = logging.CRITICAL + 1


@contextmanager
def quiet_frameworks(names: tuple[str, ...] = FRAMEWORK_LOGGERS) -> Iterator[None]:
    """Nothing logged by the loggers ``names`` (and their children) inside the block."""
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(_QUIET)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            if logger.level == _QUIET:  # a framework that set a level of its own keeps it
                logger.setLevel(level)
