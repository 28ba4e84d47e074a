"""pytest plugin: the openai SDK's own stream-helper and stream tests with the streamfix
patch active (the helper's state and the wire's ``Stream.__stream__``).

Loaded with ``-p streamfix_upstream_plugin`` (this folder on ``PYTHONPATH``) by the nox
session ``openai_upstream``; set ``STREAMFIX_STOCK=1`` to run the same tests stock, for
comparison. It is not named ``conftest.py`` so that running this repository's own tests
never activates the patch. The patch is installed before the suite's modules are
collected, so their ``from openai.lib.streaming.chat import ChatCompletionStreamState``
binds the fixed class.
"""

from __future__ import annotations

import os

import pytest


def _stock() -> bool:
    return os.environ.get("STREAMFIX_STOCK", "") not in ("", "0")


def pytest_configure(config: pytest.Config) -> None:
    if _stock():
        return
    import streamfix_openai

    streamfix_openai.install()
    assert streamfix_openai.installed()


def pytest_unconfigure(config: pytest.Config) -> None:
    import streamfix_openai

    streamfix_openai.uninstall()


def pytest_report_header(config: pytest.Config) -> str:
    from openai.lib.streaming.chat import _completions

    state = "stock" if _stock() else "patched"
    binding = _completions.ChatCompletionStreamState
    return f"streamfix: {state} (ChatCompletionStreamState from {binding.__module__})"
