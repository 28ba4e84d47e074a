"""Smoke test of bench/bench_smolagents.py: it runs, and stock and patched agree.

No timing assertions: only that ``main(["--quick"])`` completes and every row's final
messages were equal (the bench checks stock == patched == drop-in before timing).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_smolagents.py"


def test_bench_runs_and_results_are_equal() -> None:
    spec = importlib.util.spec_from_file_location("bench_smolagents_smoke", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        rows = module.main(["--quick"])
    finally:
        del sys.modules[spec.name]
    assert {row["pattern"] for row in rows} == {
        "growing list (agent step)",
        "one-shot",
        "generate_stream alone",
        "generate_stream + step",
    }
    assert all(row["equal"] for row in rows)
    assert all(row["stock_us_per_fragment"] is not None for row in rows)
