"""Stock google-adk ``LiteLlm`` streaming vs. ``streamfix_adk.StreamFixLiteLlm``, same stream.

One process, one pre-built stream of real litellm ``ModelResponseStream`` chunks, replayed
by a ``llm_client`` that does no I/O, through ``generate_content_async(request,
stream=True)`` of each class: everything ADK does per streamed chunk is timed (its chunk
conversion, partial responses, finalization), plus, for the patched class, the assembler.

The stream is the standard OpenAI dialect, which stock ADK assembles correctly, so both
results can be compared: a short text delta, then 4 tool calls one after another, one
fragment per chunk (id and name on each call's first fragment, then ``--fragment``
characters of argument text each), ``finish_reason="tool_calls"`` on a last empty chunk,
then a usage chunk. The final ``partial=False`` responses of both classes must be equal
(calls, ids, arguments, text, finish reason, usage); a difference is reported as WRONG.

On google-adk 2.10+ both classes yield a partial function-call response per fragment (the
fix forwards each fragment live, as the assembler routed it, and ADK builds the response
itself), so both times include ADK's own per-fragment work (on the fixed path with ADK's
partial-arguments tracker made linear: ``streamfix_adk._tracker``); older versions yield
none.

Times are the best of ``--repeat`` runs (``time.perf_counter``, gc disabled during a run).

Usage::

    python bench/bench_adk.py               # 20 KB and 200 KB of arguments
    python bench/bench_adk.py --quick       # 2 KB (smoke test)
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.metadata
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OPENAI_API_KEY", "sk-streamfix-bench")

N_CALLS = 4
MODEL = "openai/bench-model"


def _arguments(size: int, number: int) -> str:
    line = f'call {number}: "quoted", naïve café, tab\t and a slash / \n'
    text = (line * (size // len(line) + 1))[:size]
    return json.dumps({"path": f"src/file_{number}.py", "content": text, "options": {"n": number}})


def build_stream(total_bytes: int, fragment: int) -> list[Any]:
    """The stream described in the module docstring."""
    from litellm.types.utils import Delta, ModelResponseStream, StreamingChoices, Usage

    def chunk(delta: Delta, finish: str | None = None) -> Any:
        return ModelResponseStream(
            model="bench-model",
            choices=[StreamingChoices(index=0, delta=delta, finish_reason=finish)],
        )

    def call(index: int, **fields: Any) -> Delta:
        entry = {"index": index, "type": "function", "function": fields}
        if "name" in fields:
            entry["id"] = f"call_{index}"
        return Delta(tool_calls=[entry])

    chunks = [chunk(Delta(role="assistant", content="Writing the files."))]
    for index in range(N_CALLS):
        text = _arguments(total_bytes // N_CALLS, index)
        chunks.append(chunk(call(index, name="write_file", arguments="")))
        chunks.extend(
            chunk(call(index, arguments=text[at : at + fragment]))
            for at in range(0, len(text), fragment)
        )
    chunks.append(chunk(Delta(), "tool_calls"))
    chunks.append(
        ModelResponseStream(
            model="bench-model",
            choices=[],
            usage=Usage(prompt_tokens=100, completion_tokens=900, total_tokens=1000),
        )
    )
    return chunks


class _Replay:
    """A ``LiteLLMClient`` stand-in replaying one pre-built stream, no I/O."""

    def __init__(self, chunks: list[Any]) -> None:
        self.chunks = chunks

    async def acompletion(self, **_kwargs: Any) -> Any:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Any]:
        for item in self.chunks:
            yield item

    def completion(self, **_kwargs: Any) -> Any:  # pragma: no cover
        raise NotImplementedError


def _final(responses: list[Any]) -> list[dict[str, Any]]:
    out = []
    for response in responses:
        if response.partial:
            continue
        parts = []
        for part in (response.content.parts if response.content else None) or []:
            call = part.function_call
            parts.append((part.text, (call.id, call.name, call.args) if call else None))
        usage = response.usage_metadata
        out.append(
            {
                "parts": parts,
                "finish_reason": str(response.finish_reason),
                "usage": usage.total_token_count if usage else None,
            }
        )
    return out


def _run_once(cls: Any, chunks: list[Any]) -> tuple[float, list[Any]]:
    from google.adk.models.llm_request import LlmRequest
    from google.genai import types

    llm = cls(model=MODEL)
    object.__setattr__(llm, "llm_client", _Replay(chunks))
    request = LlmRequest(
        model=MODEL,
        contents=[types.Content(role="user", parts=[types.Part.from_text(text="go")])],
        config=types.GenerateContentConfig(),
    )

    async def consume() -> list[Any]:
        return [r async for r in llm.generate_content_async(request, stream=True)]

    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        responses = asyncio.run(consume())
        elapsed = time.perf_counter() - start
    finally:
        gc.enable()
    return elapsed, responses


def measure(total_bytes: int, fragment: int, repeat: int) -> dict[str, Any]:
    """Best-of-``repeat`` seconds for stock and patched on one stream, and the check."""
    from google.adk.models.lite_llm import LiteLlm

    from streamfix_adk import StreamFixLiteLlm

    chunks = build_stream(total_bytes, fragment)
    row: dict[str, Any] = {"bytes": total_bytes, "chunks": len(chunks)}
    finals = {}
    for label, cls in (("stock", LiteLlm), ("patched", StreamFixLiteLlm)):
        times = []
        for _ in range(repeat):
            elapsed, responses = _run_once(cls, chunks)
            times.append(elapsed)
        finals[label] = _final(responses)
        row[label] = min(times)
    row["equal"] = finals["stock"] == finals["patched"]
    row["calls"] = sum(1 for f in finals["patched"] for _, call in f["parts"] if call)
    row["ratio"] = row["stock"] / row["patched"]
    return row


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 KB only (smoke test)")
    parser.add_argument("--fragment", type=int, default=4, help="argument chars per chunk")
    parser.add_argument("--repeat", type=int, default=5, help="runs per class (best kept)")
    args = parser.parse_args(argv)
    sizes = [2_000] if args.quick else [20_000, 200_000]
    repeat = 2 if args.quick else args.repeat
    versions = {p: importlib.metadata.version(p) for p in ("google-adk", "litellm")}
    print(f"python {sys.version.split()[0]}, " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    print(f"{'arguments':>10} {'chunks':>7} {'stock s':>9} {'patched s':>10} {'stock/patched':>14}")
    rows = []
    for size in sizes:
        row = measure(size, args.fragment, repeat)
        rows.append(row)
        verdict = "" if row["equal"] and row["calls"] == N_CALLS else "  WRONG: results differ"
        print(
            f"{size:>10,} {row['chunks']:>7,} {row['stock']:>9.4f} {row['patched']:>10.4f}"
            f" {row['ratio']:>13.2f}x{verdict}"
        )
    return rows


if __name__ == "__main__":
    main()
