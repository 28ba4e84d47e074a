"""pytest plugin for shell_gpt's own test suite: run it with streamfix_sgpt installed.

Used by ``nox -s sgpt_upstream`` as ``pytest -p streamfix_activate`` inside the unpacked
shell-gpt sdist; no upstream code is committed here.
"""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    from sgpt.handlers.handler import Handler

    import streamfix

    assert streamfix.install("sgpt") == ["sgpt"], "streamfix_sgpt did not install"
    assert getattr(Handler.get_completion, "__streamfix__", False)


def pytest_report_header(config: pytest.Config) -> str:
    return "streamfix: shell_gpt patched by streamfix_sgpt"
