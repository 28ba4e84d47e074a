"""pytest plugin: a framework's own tests with the repaired wire installed.

Loaded with ``-p streamfix_upstream_plugin`` (this folder on ``PYTHONPATH``) by the nox
session ``frameworks_upstream``. ``STREAMFIX_PATCHES`` names the wires to install
(``openai`` by default; ``openai,litellm`` for a framework that also streams through
litellm; a framework's shim beside its wire: ``openai,autogen``); ``STREAMFIX_STOCK=1``
runs the same tests stock, for comparison. It is not named ``conftest.py`` so that running
this repository's own tests never activates it. The wires are installed before the suite's
modules are collected.
"""

from __future__ import annotations

import os

import pytest


def _stock() -> bool:
    return os.environ.get("STREAMFIX_STOCK", "") not in ("", "0")


def _patches() -> list[str]:
    return [p for p in os.environ.get("STREAMFIX_PATCHES", "openai").split(",") if p]


def pytest_configure(config: pytest.Config) -> None:
    if _stock():
        return
    import streamfix

    assert streamfix.install(*_patches()) == _patches()


def pytest_unconfigure(config: pytest.Config) -> None:
    import streamfix

    streamfix.uninstall(*_patches())


def pytest_report_header(config: pytest.Config) -> str:
    return "streamfix: stock" if _stock() else f"streamfix: patched ({', '.join(_patches())})"
