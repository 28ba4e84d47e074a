"""The one fixture factory for shims: every test starts and ends stock.

A folder's ``conftest.py`` makes its fixtures with it::

    _stock = shim_fixture("adk", autouse=True, name="_stock")  # every test, stock around it
    patched = shim_fixture("sgpt", install=True, name="patched")  # asked for: installed
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from support.direct import direct

__all__ = ["shim_fixture", "uninstall"]


def uninstall(*names: str) -> None:
    """Undo the named shims (``"adk"``, ``"litellm"``, ``"sgpt"``, ``"smolagents"``):
    what the registry installed under those names, then each shim itself (idempotent)."""
    import streamfix

    streamfix.uninstall(*names)
    for name in names:
        importlib.import_module(f"streamfix_{name}").uninstall()


def _assert_none_installed(names: tuple[str, ...]) -> None:
    for name in names:
        shim = importlib.import_module(f"streamfix_{name}")
        assert not shim.installed(), f"direct mode, yet the {name} shim is installed"


def shim_fixture(
    *names: str, install: bool = False, autouse: bool = False, name: str
) -> Callable[..., Any]:
    """A fixture that uninstalls the named shims before the test and after it; with
    ``install`` it installs each for the test itself (through the shim, not the registry).

    ``name`` is the fixture's name; ``autouse`` gives it to every test in scope. In direct
    mode (:mod:`support.direct`) it does neither: the framework itself is patched."""

    def around() -> Iterator[None]:
        if direct():  # the framework itself is patched: no shim, and none installed
            _assert_none_installed(names)
            yield
            return
        uninstall(*names)
        try:
            for shim in names if install else ():
                importlib.import_module(f"streamfix_{shim}").install()
            yield
        finally:
            uninstall(*names)

    around.__doc__ = f"{', '.join(names)}: uninstalled before and after the test" + (
        ", installed for it." if install else "."
    )
    return pytest.fixture(autouse=autouse, name=name)(around)
