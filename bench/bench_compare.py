"""streamfix now against streamfix at an earlier commit, in one process.

Two runs of ``bench_assemble.py`` one after the other on a shared machine differ by more
than a change's effect. This loads the core of ``REV`` (``git archive`` of
``shared_core/streamfix`` into a temporary folder, imported as ``streamfix_rev``) beside
the working tree's, and alternates the two on the same streams (``bench_assemble``'s
bench stream as dicts, ``openai`` and ``litellm`` objects): best of ``--runs`` each, gc
off during a run. A ratio above 1 means the working tree is slower.

Usage::

    python bench/bench_compare.py 5ac0538             # 20 KB and 2 MB of arguments
    python bench/bench_compare.py HEAD~3 --sizes 20000 --runs 15
"""

from __future__ import annotations

import argparse
import gc
import importlib
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_assemble  # noqa: E402 (after the path it lives on)


def load_core(rev: str, into: Path) -> Any:
    """The core at ``rev``, imported as ``streamfix_rev`` (its imports are relative)."""
    archive = subprocess.run(
        ["git", "archive", rev, "shared_core/streamfix"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    (into / "shared_core" / "streamfix").rename(into / "streamfix_rev")
    sys.path.insert(0, str(into))
    return importlib.import_module("streamfix_rev")


def timed(assemble: Callable[[Any], Any], chunks: list[Any]) -> float:
    """One run's seconds, gc off."""
    gc.disable()
    start = time.perf_counter()
    assemble(chunks)
    elapsed = time.perf_counter() - start
    gc.enable()
    return elapsed


def compare(rev: str, sizes: list[int], runs: int) -> list[str]:
    import streamfix

    lines = [f"streamfix: working tree vs {rev}, microseconds per fragment, best of {runs}"]
    with tempfile.TemporaryDirectory() as folder:
        old = load_core(rev, Path(folder))
        for size in sizes:
            stream = bench_assemble.build_stream(f"{size} B", size)
            kinds = {
                "dict": stream.chunks,
                "openai": bench_assemble.to_openai(stream.chunks),
                "litellm": bench_assemble.to_litellm(stream.chunks),
            }
            for kind, chunks in kinds.items():
                now_message = streamfix.assemble(chunks)
                then_message = old.assemble(chunks)
                got = [(c.id, c.name, c.arguments) for c in now_message.tool_calls]
                assert got == [(c.id, c.name, c.arguments) for c in then_message.tool_calls]
                then = now = float("inf")
                for _ in range(runs):  # alternate, so both see the same machine
                    then = min(then, timed(old.assemble, chunks))
                    now = min(now, timed(streamfix.assemble, chunks))
                per = 1e6 / len(chunks)
                lines.append(
                    f"{size:>9} B  {kind:8} {rev}: {then * per:7.3f}  now: {now * per:7.3f}"
                    f"  now/{rev}: {now / then:.2f}"
                )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", help="the commit to compare with (anything git names)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 2_000_000])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    print("\n".join(compare(args.rev, args.sizes, args.runs)))


if __name__ == "__main__":
    main()
