"""pytest plugin: smolagents' own test suite with the streamfix patch active.

Loaded with ``-p streamfix_upstream_plugin`` (this folder on ``PYTHONPATH``) by the nox
session ``smolagents_upstream``; set ``STREAMFIX_STOCK=1`` to run the same tests stock, for
comparison. It is not named ``conftest.py`` so that running this repository's own tests
never activates the patch.
"""

from __future__ import annotations

import os

import pytest


def _stock() -> bool:
    return os.environ.get("STREAMFIX_STOCK", "") not in ("", "0")


def pytest_configure(config: pytest.Config) -> None:
    if _stock():
        return
    import streamfix_smolagents

    streamfix_smolagents.install()
    assert streamfix_smolagents.installed()


def pytest_unconfigure(config: pytest.Config) -> None:
    import streamfix_smolagents

    streamfix_smolagents.uninstall()


def pytest_report_header(config: pytest.Config) -> str:
    import smolagents.models

    binding = smolagents.models.agglomerate_stream_deltas
    state = "stock" if _stock() else "patched"
    return f"streamfix: {state} (agglomerate_stream_deltas from {binding.__module__})"
