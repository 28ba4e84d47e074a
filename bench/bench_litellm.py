"""litellm's ``stream_chunk_builder``: stock vs patched, in one process.

The stream: litellm ``ModelResponseStream`` chunks as litellm's OpenAI-compatible stream
gives them (a role chunk, then 4 calls one after another: a header with id and name,
then argument fragments), a finish chunk and a usage chunk. Stock is
``litellm.stream_chunk_builder`` as shipped; patched is what ``streamfix_litellm.install()``
binds (``streamfix_litellm.stream_chunk_builder``). Both builders get the same chunk
objects, alternately, and must build equal tool calls before anything is timed. Times are
the best of several runs (``time.perf_counter``, gc disabled during a run), per fragment.

Building a ``ModelResponseStream`` costs litellm about 180 us and 4.5 KB, so the large
streams use longer fragments (printed with each row): the ratio is per fragment.

Usage::

    python bench/bench_litellm.py            # 20 KB, 200 KB and 2 MB of arguments
    python bench/bench_litellm.py --quick    # 20 KB only, one run each
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import json
import os
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

#: (arguments size in bytes, fragment length)
SIZES = ((20_000, 4), (200_000, 16), (2_000_000, 64))
CALLS = 4


_TOP = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1_700_000_000}


def _body(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {**_TOP, "model": "bench-model", "choices": [choice]}


def build_stream(size: int, fragment: int) -> tuple[list[Any], int]:
    """The chunks and their number of argument fragments."""
    from litellm.types.utils import ModelResponseStream

    line = 'line with "quotes", caf\u00e9 and a tab\t\n'
    per_call = size // CALLS
    body = line * max(1, (per_call - 60) // len(json.dumps(line)[1:-1]))
    text = json.dumps({"path": "notes/todo.md", "content": body})
    bodies = [_body({"role": "assistant", "content": ""})]
    fragments = 0
    for n in range(CALLS):
        header = {"index": n, "id": f"call_{n}", "type": "function"}
        bodies.append(_body({"tool_calls": [{**header, "function": {"name": "write_file"}}]}))
        for i in range(0, len(text), fragment):
            piece = {"index": n, "function": {"arguments": text[i : i + fragment]}}
            bodies.append(_body({"tool_calls": [piece]}))
            fragments += 1
    bodies.append(_body({}, "tool_calls"))
    usage = {"prompt_tokens": 100, "completion_tokens": fragments, "total_tokens": 100 + fragments}
    bodies.append({**_body({}), "choices": [], "usage": usage})
    return [ModelResponseStream(**b) for b in bodies], fragments


def _best(run: Callable[[], Any], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return best


def _calls(response: Any) -> list[tuple[str, str, str]]:
    message = response.choices[0].message
    return [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls]


def measure(size: int, fragment: int, rounds: int) -> dict[str, float]:
    import litellm

    import streamfix_litellm

    stock: Callable[..., Any] = litellm.stream_chunk_builder
    patched: Callable[..., Any] = streamfix_litellm.stream_chunk_builder
    chunks, fragments = build_stream(size, fragment)
    assert _calls(stock(chunks)) == _calls(patched(chunks)), "the builders disagree"
    times = {"stock": float("inf"), "patched": float("inf")}
    for _ in range(rounds):  # alternating, so both see the same machine
        times["stock"] = min(times["stock"], _best(lambda: stock(chunks), 1))
        times["patched"] = min(times["patched"], _best(lambda: patched(chunks), 1))
    return {
        "fragments": fragments,
        "stock_us": times["stock"] / fragments * 1e6,
        "patched_us": times["patched"] / fragments * 1e6,
        "ratio": times["stock"] / times["patched"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 KB only, one run each")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import litellm

    litellm.suppress_debug_info = True
    sizes = SIZES[:1] if args.quick else SIZES
    rounds = 1 if args.quick else args.rounds
    print(f"litellm {importlib.metadata.version('litellm')}, {CALLS} calls")
    print(
        f"{'arguments':>10} {'fragment':>8} {'fragments':>9}"
        f" {'stock us/frag':>14} {'patched us/frag':>16} {'stock/patched':>14}"
    )
    for size, fragment in sizes:
        row = measure(size, fragment, rounds if size < 1_000_000 else min(rounds, 2))
        print(
            f"{size // 1000:>7} KB {fragment:>8} {row['fragments']:>9.0f}"
            f" {row['stock_us']:>14.2f} {row['patched_us']:>16.2f} {row['ratio']:>13.1f}x"
        )


if __name__ == "__main__":
    main()
