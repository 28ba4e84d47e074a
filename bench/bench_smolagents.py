"""smolagents' streamed step: stock vs patched aggregation on a long stream.

smolagents' agent (``_step_stream``) appends each ``ChatMessageStreamDelta`` to a list and
calls ``agglomerate_stream_deltas(list)`` at every live update, then once more at the end
of the stream; its Gradio UI does the same. This benchmark runs exactly that loop (without
the rich/Gradio rendering, which is the same either way) with:

* stock: ``smolagents.models.agglomerate_stream_deltas`` (rebuilds the whole message at
  every update: quadratic);
* patched: ``streamfix_smolagents.agglomerate_growing_deltas``, what ``install()`` binds in
  ``smolagents.agents`` and ``smolagents.gradio_ui`` (one assembler per step, only the new
  deltas fed: linear).

A one-shot row (the whole list agglomerated once, as a user calling the function directly
would) compares ``agglomerate_stream_deltas`` stock vs the shim's drop-in.

Two rows start one step earlier, from the provider's chunks (``openai``
``ChatCompletionChunk`` objects of the same stream, from a fake client) through
``OpenAIModel.generate_stream``, stock vs what ``install()`` binds there (stock's own
generator, its provider events read by ``choice_zero_events``): ``generate_stream``
alone (the filter's cost per event, which nothing patched wins back), and the whole
streamed step (``generate_stream`` then the agent's growing-list loop), the path an
agent runs.

The stream: some text, then one tool call (id and name on its first fragment, then
4-character argument fragments of a ``write_file``-like object), then a usage-only delta, as
``generate_stream`` yields them. Both final messages are checked equal before timing. Times
are the best of several runs (``time.perf_counter``, gc disabled during a run).

Usage::

    python bench/bench_smolagents.py                    # 1000, 4000 and 16000 fragments
    python bench/bench_smolagents.py --fragments 500    # one size
    python bench/bench_smolagents.py --quick            # small; the smoke test
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

SIZES = (1000, 4000, 16000)
QUICK = (200,)
STOCK_BUDGET_S = 60.0  # the stock growing-list loop is skipped beyond this projection


def build_stream(fragments: int) -> list[Any]:
    """``fragments`` deltas as ``generate_stream`` yields them: text, one call, usage."""
    from smolagents.models import (
        ChatMessageStreamDelta,
        ChatMessageToolCallFunction,
        ChatMessageToolCallStreamDelta,
    )
    from smolagents.monitoring import TokenUsage

    def call(arguments: str, header: bool = False) -> ChatMessageStreamDelta:
        function = ChatMessageToolCallFunction(
            arguments=arguments,
            name="write_file" if header else None,  # type: ignore[arg-type]
        )
        entry = ChatMessageToolCallStreamDelta(
            index=0,
            id="call_1" if header else None,
            type="function" if header else None,
            function=function,
        )
        return ChatMessageStreamDelta(content=None, tool_calls=[entry])

    n_text = max(1, fragments // 20)
    n_args = max(1, fragments - n_text - 2)
    line = 'line with "quotes", caf\u00e9 and a tab\t\n'
    body = line * max(1, (n_args * 4 - 60) // len(json.dumps(line)[1:-1]))
    text = json.dumps({"path": "notes/todo.md", "content": body, "options": {"mode": "w"}})
    deltas: list[Any] = [ChatMessageStreamDelta(content="Writing. ") for _ in range(n_text)]
    deltas.append(call("", header=True))
    deltas.extend(call(text[i : i + 4]) for i in range(0, len(text), 4))
    deltas.append(ChatMessageStreamDelta(content="", token_usage=TokenUsage(1200, fragments)))
    return deltas


def build_chunks(deltas: list[Any]) -> list[Any]:
    """The provider's ``ChatCompletionChunk`` objects that ``generate_stream`` turns into
    ``deltas`` (the text, the call's fragments, the usage)."""
    from openai.types.chat import ChatCompletionChunk

    top = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunks = []
    for delta in deltas:
        body: dict[str, Any] = {**top, "choices": []}
        if delta.token_usage is not None:
            usage = delta.token_usage
            body["usage"] = {
                "prompt_tokens": usage.input_tokens,
                "completion_tokens": usage.output_tokens,
                "total_tokens": usage.input_tokens + usage.output_tokens,
            }
        else:
            wire: dict[str, Any] = {"content": delta.content}
            if delta.tool_calls:
                (entry,) = delta.tool_calls
                function = {"name": entry.function.name, "arguments": entry.function.arguments}
                wire["tool_calls"] = [
                    {"index": 0, "id": entry.id, "type": entry.type, "function": function}
                ]
            body["choices"] = [{"index": 0, "delta": wire, "finish_reason": None}]
        chunks.append(ChatCompletionChunk.model_validate(body))
    return chunks


class _Client:
    """The ``openai`` client as ``OpenAIModel.generate_stream`` calls it: one stream."""

    def __init__(self, chunks: list[Any]) -> None:
        self.chunks = chunks
        self.chat = self
        self.completions = self

    def create(self, **_: Any) -> Any:
        return iter(self.chunks)


def generate_stream_rows(deltas: list[Any], stock_step: float | None) -> list[dict[str, Any]]:
    """``OpenAIModel.generate_stream`` stock vs patched on the provider's chunks of
    ``deltas``: alone, and followed by the agent's loop (stock: stock's aggregation;
    patched: the shim's). ``stock_step`` None: the stock step is skipped (too long)."""
    from smolagents.models import ChatMessage, MessageRole, OpenAIModel

    from streamfix_smolagents import agglomerate_growing_deltas, choice_zero_stream

    model = OpenAIModel(model_id="m", api_key="sk-bench")
    model.client = _Client(build_chunks(deltas))
    stock = OpenAIModel.generate_stream
    patched = choice_zero_stream(stock)
    prompt = [ChatMessage(role=MessageRole.USER, content=[{"type": "text", "text": "hi"}])]
    from smolagents.models import agglomerate_stream_deltas

    stock_deltas = list(stock(model, prompt))
    same = agglomerate_stream_deltas(stock_deltas) == agglomerate_stream_deltas(deltas)
    equal = same and list(patched(model, prompt)) == stock_deltas
    if not equal:
        raise AssertionError("generate_stream: stock and patched deltas differ")
    n = len(deltas)
    stock_s = best_of(lambda: list(stock(model, prompt)))
    patched_s = best_of(lambda: list(patched(model, prompt)))
    rows = [_row("generate_stream alone", n, stock_s, patched_s, 0.0, equal)]
    step_stock = None if stock_step is None else stock_s + stock_step
    step_patched = best_of(lambda: growing_loop(agglomerate_growing_deltas, patched(model, prompt)))
    rows.append(_row("generate_stream + step", n, step_stock, step_patched, 0.0, equal))
    return rows


def growing_loop(agglomerate: Callable[[list[Any]], Any], deltas: Iterable[Any]) -> Any:
    """The agent's loop: append, agglomerate (live update), ...; agglomerate at the end."""
    so_far: list[Any] = []
    for delta in deltas:
        so_far.append(delta)
        agglomerate(so_far)
    return agglomerate(so_far)


def best_of(fn: Callable[[], Any], budget_s: float = 3.0) -> float:
    """Best time of at least one and at most 5 runs, stopping after ``budget_s``."""
    times: list[float] = []
    spent = 0.0
    while len(times) < 5 and (not times or spent < budget_s):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            fn()
            elapsed = time.perf_counter() - start
        finally:
            gc.enable()
        times.append(elapsed)
        spent += elapsed
    return min(times)


def run(sizes: tuple[int, ...]) -> list[dict[str, Any]]:
    """Time every contender at every size; one result row per (size, pattern)."""
    from smolagents import models

    from streamfix_smolagents import (
        agglomerate_growing_deltas,
        agglomerate_stream_deltas,
        installed,
    )

    if installed():
        raise RuntimeError("run the benchmark with the patch not installed")
    stock = models.agglomerate_stream_deltas
    rows: list[dict[str, Any]] = []
    per_pair: float | None = None  # stock seconds per (update x delta), for the projection
    for size in sizes:
        deltas = build_stream(size)
        n = len(deltas)
        stock_final = stock(deltas)
        patched_final = growing_loop(agglomerate_growing_deltas, deltas)
        equal = patched_final == stock_final == agglomerate_stream_deltas(deltas)
        if not equal:
            raise AssertionError(f"results differ at {n} fragments")
        projected = per_pair * n * n / 2 if per_pair is not None else 0.0
        stock_s: float | None = None
        if projected <= STOCK_BUDGET_S:
            stock_s = best_of(lambda d=deltas: growing_loop(stock, d))
            per_pair = stock_s / (n * n / 2)
        patched_s = best_of(lambda d=deltas: growing_loop(agglomerate_growing_deltas, d))
        rows.append(_row("growing list (agent step)", n, stock_s, patched_s, projected, equal))
        once_stock = best_of(lambda d=deltas: stock(d))
        once_patched = best_of(lambda d=deltas: agglomerate_stream_deltas(d))
        rows.append(_row("one-shot", n, once_stock, once_patched, 0.0, equal))
        rows.extend(generate_stream_rows(deltas, stock_s))
    return rows


def _row(
    pattern: str, n: int, stock_s: float | None, patched_s: float, projected: float, equal: bool
) -> dict[str, Any]:
    return {
        "pattern": pattern,
        "fragments": n,
        "stock_us_per_fragment": None if stock_s is None else stock_s / n * 1e6,
        "patched_us_per_fragment": patched_s / n * 1e6,
        "ratio": None if stock_s is None else stock_s / patched_s,
        "stock_projected_s": projected if stock_s is None else None,
        "equal": equal,
    }


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fragments", type=int, action="append", help="stream size(s)")
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    args = parser.parse_args(argv)
    sizes = tuple(args.fragments or ()) or (QUICK if args.quick else SIZES)
    versions = ", ".join(
        f"{p} {importlib.metadata.version(p)}" for p in ("smolagents", "adk-streamfix")
    )
    print(f"python {sys.version.split()[0]}; {versions}")
    print(
        f"{'pattern':<27}{'fragments':>10}{'stock us/frag':>15}{'patched us/frag':>17}"
        f"{'ratio':>9}  equal"
    )
    rows = run(sizes)
    for row in rows:
        stock = (
            f"{row['stock_us_per_fragment']:.2f}"
            if row["stock_us_per_fragment"] is not None
            else f"~{row['stock_projected_s']:.0f} s (skipped)"
        )
        ratio = f"{row['ratio']:.1f}x" if row["ratio"] is not None else "-"
        print(
            f"{row['pattern']:<27}{row['fragments']:>10}{stock:>15}"
            f"{row['patched_us_per_fragment']:>17.2f}{ratio:>9}  {row['equal']}"
        )
    return rows


if __name__ == "__main__":
    main()
