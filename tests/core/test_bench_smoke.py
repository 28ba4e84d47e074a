"""Smoke test of bench/bench_assemble.py: it runs, and every library assembles correctly.

No timing assertions: only that ``main(["--quick"])`` completes and that no contender
returned a wrong result or failed on the streams it ran.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

# The contenders are in the test dependencies (nox installs the bench group): a missing
# one is a failure here, not a skip.
BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_assemble.py"


def _load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_assemble_smoke", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while decorating
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[spec.name]
        raise
    return module


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict:
    bench = _load_bench()
    out = tmp_path_factory.mktemp("bench") / "results.json"
    returned = bench.main(["--quick", "--quiet", "--json", str(out)])
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["results"].keys() == returned["results"].keys()
    return returned


def test_every_library_ran_and_was_correct(results: dict) -> None:
    sizes = [size["label"] for size in results["sizes"]]
    assert len(sizes) == 2
    problems = {
        (key, size): cell["status"] + " " + cell["note"]
        for key, entry in results["results"].items()
        for size, cell in entry["cells"].items()
        if cell["status"] not in ("ok", "skipped")
    }
    assert problems == {}
    smallest = sizes[0]
    for key, entry in results["results"].items():
        assert entry["cells"][smallest]["status"] == "ok", key


def test_all_contenders_present(results: dict) -> None:
    assert set(results["results"]) == {
        "floor",
        "streamfix_dict",
        "streamfix_openai",
        "streamfix_litellm",
        "litellm",
        "openai_state",
        "smolagents",
        "langchain",
    }
