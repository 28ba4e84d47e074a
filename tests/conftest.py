"""Shared test set-up: environment for litellm and shell_gpt, hypothesis profiles, markers
from folder names.

What the folders share in code is the ``support`` package (``tests/support``, importable
through ``pythonpath = ["tests"]``). A folder's own helper modules (``strategies.py``,
``adk_fakes.py``, ``smol_wire.py``, ...) are importable from its tests because pytest's
default import mode puts each test file's folder first on ``sys.path``.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# The one place the tests' environment is set (nox sets the same): litellm fetches its
# cost map from the network on import unless told not to; shell_gpt refuses to start
# without an API key, and the tests' clients and subprocesses get this one, never a real
# key (it is set, not defaulted).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["OPENAI_API_KEY"] = "sk-streamfix-test"

try:
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover - hypothesis is in the test group
    pass
else:
    settings.register_profile(
        "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
    )
    settings.register_profile("dev", deadline=None, max_examples=50)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

_TESTS = Path(__file__).parent

# Garbage is collected between tests, never in the middle of one. A synchronous HTTP stream a
# library abandons when it raises (stock litellm's Responses bridge, mid-stream or before it
# returns the stream) holds its pooled connection until the collector finalizes it; httpx
# then closes it under the pool's lock, and a collection that starts while the same thread
# holds that lock (its next request on the same pool) leaves the thread waiting on itself
# for ever (encode/httpcore#990; it held a CI run until its limit). So automatic collection
# is off in the test process: each test's garbage is collected when it ends, everything
# when a module ends, where no lock is held.
gc.disable()


@pytest.fixture(autouse=True)
def _garbage_collected_after_each_test() -> Iterator[None]:
    yield
    gc.collect(0)  # what the test allocated: nothing is collected, so nothing promoted, meanwhile


@pytest.fixture(autouse=True, scope="module")
def _garbage_collected_after_each_module() -> Iterator[None]:
    yield
    gc.collect()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test is marked with its area: tests/<area>/... gets the marker <area>."""
    for item in items:
        try:
            area = Path(item.fspath).relative_to(_TESTS).parts[0]
        except ValueError:
            continue
        item.add_marker(getattr(pytest.mark, area))
