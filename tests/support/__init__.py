"""What the test folders share: chunk builders, converters to the SDKs' chunk types, and
fixtures that keep every test stock.

Importable from every test folder (``pythonpath = ["tests"]`` in ``pyproject.toml``)::

    from support import chunk, tc, to_litellm

- :mod:`support.chunks`: ``tc()`` (one ``delta.tool_calls`` entry) and ``chunk()`` (one
  OpenAI ``chat.completion.chunk`` dict), in the notation of ``docs/wire-shapes.md``;
- :mod:`support.wire`: those dicts as ``openai`` or ``litellm`` chunk objects, built the
  way each SDK builds them;
- :mod:`support.fixtures`: ``shim_fixture()``, a fixture that uninstalls shims before and
  after each test (and installs them for it, if asked).
- :mod:`support.adk_runner`: one ADK agent turn run by ``InMemoryRunner`` (the end-to-end
  tests; imported by name, it needs google-adk);
- :mod:`support.doctor`: ``assert_doctor_column()``, one doctor column on the corpus
  (stock loses exactly what a framework's tests name, patched nothing);
- :mod:`support.drift`: ``report_stock_loss()``, a stock loss in other words than the
  known ones reported (a warning, a line of ``STREAMFIX_DRIFT_REPORT``), never asserted;
- :mod:`support.direct`: direct mode (``STREAMFIX_DIRECT=1``), the shim tests run against
  a framework patched with ``docs/upstream/<framework>.patch``.

A folder keeps its own shape tables and framework drivers (``tests/adk/shapes.py``, ...).
"""

from __future__ import annotations

from support.chunks import ABSENT, Chunk, chunk, tc
from support.direct import deselect_in_direct_mode, direct, redirect
from support.doctor import assert_doctor_column
from support.drift import StockLossDrift, report_stock_loss
from support.fixtures import shim_fixture
from support.wire import KINDS, Kind, convert, to_litellm, to_openai

__all__ = [
    "ABSENT",
    "KINDS",
    "Chunk",
    "Kind",
    "StockLossDrift",
    "assert_doctor_column",
    "chunk",
    "convert",
    "deselect_in_direct_mode",
    "direct",
    "redirect",
    "report_stock_loss",
    "shim_fixture",
    "tc",
    "to_litellm",
    "to_openai",
]
