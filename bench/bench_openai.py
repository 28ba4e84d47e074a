"""The openai SDK's chat-completions stream helper: stock vs patched, on the bench stream.

``ChatCompletionStreamState.handle_chunk`` is what ``client.chat.completions.stream(...)``
runs on every chunk. Stock rebuilds its whole snapshot from a dump of itself per chunk
(quadratic in the arguments' size); the patched state (``streamfix_openai``) routes each
fragment through the core and updates only what the chunk carries. Both run the same
stream in one process, alternating, and their final completions are checked to hold the
same calls before any timing. The stream is ``bench_assemble``'s: 4 calls, 4-character
argument fragments, as ``ChatCompletionChunk`` objects.

Stock is run where its projected time (from the smaller sizes, quadratic) stays under a
budget; beyond that its time is the projection, marked ``~``.

Usage::

    python bench/bench_openai.py            # 20 KB, 200 KB and 2 MB of arguments
    python bench/bench_openai.py --quick    # 4 KB and 20 KB
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_assemble  # the bench stream, from this folder

SIZES = (("20 KB", 20_000), ("200 KB", 200_000), ("2 MB", 2_000_000))
QUICK = (("4 KB", 4_000), ("20 KB", 20_000))
STOCK_BUDGET_S = 600.0


def _run(state_class: type[Any], chunks: list[Any]) -> Any:
    state = state_class()
    for chunk in chunks:
        state.handle_chunk(chunk)
    return state.get_final_completion()


def _timed(state_class: type[Any], chunks: list[Any]) -> tuple[float, Any]:
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        result = _run(state_class, chunks)
        return time.perf_counter() - start, result
    finally:
        gc.enable()


def _calls(completion: Any) -> list[tuple[str, str]]:
    message = completion.choices[0].message
    return [(c.function.name, c.function.arguments) for c in message.tool_calls or []]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (the smoke test)")
    parser.add_argument("--repeat", type=int, default=3, help="best of N (patched; stock once)")
    args = parser.parse_args(argv)
    from openai.lib.streaming.chat._completions import ChatCompletionStreamState

    from streamfix_openai import StreamFixChatCompletionStreamState

    print(f"openai {importlib.metadata.version('openai')}, Python {sys.version.split()[0]}")
    print(f"{'arguments':>10} {'fragments':>9} {'stock s':>10} {'patched s':>10} {'ratio':>8}")
    points: list[tuple[int, float]] = []
    failed = False
    for label, size in QUICK if args.quick else SIZES:
        stream = bench_assemble.build_stream(label, size)
        chunks = bench_assemble.to_openai(stream.chunks)
        projected = _project(points, stream.fragments)
        runs = [_timed(StreamFixChatCompletionStreamState, chunks) for _ in range(args.repeat)]
        patched_s, patched = min(runs, key=lambda run: run[0])
        if projected is None or projected < STOCK_BUDGET_S:
            stock_s, stock = _timed(ChatCompletionStreamState, chunks)
            points.append((stream.fragments, stock_s))
            if _calls(stock) != _calls(patched):
                print(f"{label}: stock and patched calls differ")
                failed = True
            shown = f"{stock_s:10.3f}"
        else:
            stock_s, shown = projected, f"~{projected:9.1f}"
        ratio = stock_s / patched_s
        failed = failed or ratio < 1
        print(f"{label:>10} {stream.fragments:>9} {shown} {patched_s:10.3f} {ratio:7.1f}x")
    return 1 if failed else 0


def _project(points: list[tuple[int, float]], fragments: int) -> float | None:
    """Stock's time at ``fragments``, from the largest measured size, as quadratic."""
    if not points:
        return None
    n, seconds = points[-1]
    return seconds * (fragments / n) ** 2


if __name__ == "__main__":
    raise SystemExit(main())
