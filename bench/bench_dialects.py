"""The other wire dialects' cost (wire-shapes J-M), side by side with chat completions and
with each SDK's own accumulator, in one process.

One response (4 calls, their arguments about ``size`` bytes in all, 4 characters a
fragment) written in each dialect by ``streamfix.testing``'s builders: as dicts, and as the
SDK's own event objects where there is an SDK (openai's Responses events, anthropic's
events, google-genai's ``GenerateContentResponse``; Bedrock's events are dicts).
Per fragment: ``streamfix.assemble(items)``, and the SDK's own accumulator over the same
objects where one exists (openai's ``ResponseStreamState.handle_event``, anthropic's
``accumulate_event``, what ``MessageStream`` runs). The chat row is the same response as
chat-completion chunk dicts. Gemini's streamed arguments (L3) arrive by JSON path: its
row counts path entries as fragments.

Usage::

    python bench/bench_dialects.py            # 20 KB and 200 KB
    python bench/bench_dialects.py --quick    # 4 KB
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_litellm import _best  # the one best-of-runs timer of the benches

import streamfix
from streamfix import testing

SIZES = (("20 KB", 20_000), ("200 KB", 200_000))
QUICK = (("4 KB", 4_000),)
NAMES = ("get_weather", "get_time", "search", "read_file")


def _four(text: str) -> list[str]:
    return [text[i : i + 4] for i in range(0, len(text), 4)] or [text]


def _calls(size: int) -> list[dict[str, Any]]:
    each = max(size // 4 - 20, 8)
    return [
        {"id": f"call_{n}", "name": name, "arguments": {"text": "x" * each}}
        for n, name in enumerate(NAMES)
    ]


def _chat(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    import json

    chunks: list[dict[str, Any]] = []
    for n, call in enumerate(calls):
        head = {"index": n, "id": call["id"], "type": "function"}
        head["function"] = {"name": call["name"], "arguments": ""}
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [head]}}]})
        for piece in _four(json.dumps(call["arguments"])):
            entry = {"index": n, "function": {"arguments": piece}}
            chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [entry]}}]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return chunks


def _objects(dialect: str, items: list[dict[str, Any]]) -> list[Any] | None:
    from pydantic import TypeAdapter

    if dialect == "responses":
        from openai.types.responses import ResponseStreamEvent

        adapter: Any = TypeAdapter(ResponseStreamEvent)
        return [adapter.validate_python(item) for item in items]
    if dialect == "anthropic":
        from anthropic.types import RawMessageStreamEvent

        adapter = TypeAdapter(RawMessageStreamEvent)
        return [adapter.validate_python(item) for item in items]
    if dialect == "gemini":
        from google.genai import types

        return [types.GenerateContentResponse.model_validate(item) for item in items]
    return None


def _accumulator(dialect: str, objects: list[Any]) -> Callable[[], Any] | None:
    """The SDK's own accumulator over its objects, where it has one."""
    if dialect == "responses":
        from openai import omit
        from openai.lib.streaming.responses._responses import ResponseStreamState

        def responses() -> Any:
            state: Any = ResponseStreamState(input_tools=omit, text_format=omit)
            for event in objects:
                state.handle_event(event)

        return responses
    if dialect == "anthropic":
        from anthropic.lib.streaming._messages import accumulate_event

        def anthropic() -> Any:
            snapshot: Any = None
            buffers: dict[int, bytes] = {}
            for event in objects:
                snapshot = accumulate_event(
                    event=event, current_snapshot=snapshot, json_bufs=buffers
                )
            return snapshot

        return anthropic
    return None


def _streams(calls: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    return {
        "responses": testing.responses_stream(calls, cut=_four),
        "anthropic": testing.anthropic_stream(calls, cut=_four),
        "gemini (L3)": testing.gemini_stream(calls, cut=_four, streamed=True),
        "bedrock": testing.bedrock_stream(calls, cut=_four),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one small size")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(
        f"{'size':8} {'dialect':14} {'fragments':>9} {'dicts us/frag':>14} "
        f"{'objects us/frag':>16} {'SDK accumulator':>16} {'ratio':>6}"
    )
    for label, size in QUICK if args.quick else SIZES:
        calls = _calls(size)
        chat = _chat(calls)
        fragments = len(chat) - 1
        dicts = _best(lambda chat=chat: streamfix.assemble(chat), args.rounds)
        print(f"{label:8} {'chat':14} {fragments:>9} {dicts / fragments * 1e6:>14.2f}")
        for dialect, items in _streams(calls).items():
            assert [c.name for c in streamfix.assemble(items).tool_calls] == list(NAMES)
            fragments = max(len(items) - 2, 1)
            dicts = _best(lambda items=items: streamfix.assemble(items), args.rounds)
            objects = _objects(dialect.split()[0], items)
            own = mine = ratio = ""
            if objects is not None:
                seconds = _best(lambda o=objects: streamfix.assemble(o), args.rounds)
                mine = f"{seconds / fragments * 1e6:.2f}"
                run = _accumulator(dialect, objects)
                if run is not None:
                    theirs = _best(run, args.rounds)
                    own = f"{theirs / fragments * 1e6:.2f}"
                    ratio = f"{seconds / theirs:.2f}x"
            print(
                f"{label:8} {dialect:14} {fragments:>9} {dicts / fragments * 1e6:>14.2f} "
                f"{mine:>16} {own:>16} {ratio:>6}"
            )


if __name__ == "__main__":
    main()
