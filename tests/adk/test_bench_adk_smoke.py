"""Smoke test of bench/bench_adk.py: it runs, and stock and patched give equal results.

No timing assertions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

#: The shim's bench script: not run in direct mode.
pytestmark = pytest.mark.shim_only

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_adk.py"


def _load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_adk_smoke", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_bench_adk_runs_and_results_are_equal() -> None:
    rows = _load_bench().main(["--quick"])
    assert rows
    for row in rows:
        assert row["equal"], row
        assert row["calls"] == 4
