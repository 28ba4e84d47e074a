"""Direct mode: this project's shim tests run against a framework patched upstream-style.

``STREAMFIX_DIRECT=1`` (set by ``nox -s upstream_patch``, after it applied
``docs/upstream/<framework>.patch`` to the installed framework) changes three things, and
nothing when it is unset:

- :func:`support.shim_fixture` neither installs nor uninstalls a shim: the ``patched``
  fixture stands for the framework itself, which is patched (and it checks that no shim is
  installed, so a pass is the patched framework's);
- :func:`deselect_in_direct_mode` (each folder's ``pytest_collection_modifyitems``)
  deselects the tests that need stock (they ask for the ``stock`` fixture, or are marked
  ``stock_failure``) and those marked ``shim_only`` (they assert the shim's own API or
  error types);
- :func:`redirect` makes the shim's drop-ins that a test calls by name the framework's own
  (patched) functions, so the test asserts the same fixed outcome on the framework.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

__all__ = ["DIRECT_ENV", "deselect_in_direct_mode", "direct", "redirect"]

DIRECT_ENV = "STREAMFIX_DIRECT"
#: Fixtures that give the stock framework: a test asking for one cannot run in direct mode.
STOCK_FIXTURES = frozenset({"stock"})
#: Markers of tests that cannot run in direct mode: stock's failures, the shim's own API.
DIRECT_DESELECTS = ("stock_failure", "shim_only")


def direct() -> bool:
    """Whether the tests run in direct mode (``STREAMFIX_DIRECT=1``)."""
    return os.environ.get(DIRECT_ENV, "") == "1"


def deselect_in_direct_mode(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In direct mode, deselect the tests that need stock or the shim itself."""
    if not direct():
        return
    kept, dropped = [], []
    for item in items:
        needs_stock = STOCK_FIXTURES.intersection(getattr(item, "fixturenames", ()))
        marked = any(item.get_closest_marker(name) for name in DIRECT_DESELECTS)
        (dropped if needs_stock or marked else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


_ABSENT = object()


def _resolve(target: str) -> tuple[object, str]:
    module, _, attribute = target.partition(":")
    return importlib.import_module(module), attribute


@contextmanager
def redirect(drop_ins: dict[str, str]) -> Iterator[None]:
    """In direct mode, each ``"shim.module:name"`` of ``drop_ins`` is, for the duration,
    the framework's ``"framework.module:name"`` it maps to; outside direct mode nothing."""
    if not direct():
        yield
        return
    saved = []
    try:
        for shim_target, framework_target in drop_ins.items():
            owner, name = _resolve(shim_target)
            source, source_name = _resolve(framework_target)
            saved.append((owner, name, vars(owner).get(name, _ABSENT)))
            setattr(owner, name, getattr(source, source_name))
        yield
    finally:
        for owner, name, value in reversed(saved):
            if value is _ABSENT:  # a lazy name (a module ``__getattr__``): lazy again
                delattr(owner, name)
            else:
                setattr(owner, name, value)
