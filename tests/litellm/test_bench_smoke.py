"""Smoke test of bench/bench_litellm.py: it runs on a small stream, and stock's and the
patched builder's calls agree (the bench checks that before timing). No timing
assertions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_litellm.py"


def test_bench_runs_and_the_builders_agree() -> None:
    spec = importlib.util.spec_from_file_location("bench_litellm_smoke", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        row = module.measure(2_000, 4, 1)
    finally:
        del sys.modules[spec.name]
    assert row["fragments"] > 400
    assert row["stock_us"] > 0 and row["patched_us"] > 0
