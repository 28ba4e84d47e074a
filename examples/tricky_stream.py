"""Assemble a stream that breaks the usual aggregators, and print the calls.

    python examples/tricky_stream.py

The stream mixes what real providers send: Ollama's two calls under one index with no
ids (B3), a call whose arguments are split inside an escape and a surrogate pair (D3),
a Gemini thought signature on a delta without the name (F2), and the finish reason on
an intermediate chunk (E2).
"""

from __future__ import annotations

import streamfix


def chunk(
    calls: list[dict[str, object]] | None = None, finish: str | None = None
) -> dict[str, object]:
    delta: dict[str, object] = {"tool_calls": calls} if calls else {}
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def call(index: int, arguments: str, **fields: object) -> dict[str, object]:
    function: dict[str, object] = {"arguments": arguments}
    if "name" in fields:
        function["name"] = fields.pop("name")
    return {"index": index, "function": function, **fields}


STREAM = [
    chunk([call(0, '{"query": "A"}', name="search")]),
    chunk([call(0, '{"query": "B"}', name="search")]),  # same index, no id: a second call
    chunk([call(1, '{"text": "line\\', id="c2", name="note")]),
    chunk([call(1, "n\\ud83d")], finish="tool_calls"),  # finish reason mid-stream
    chunk([call(1, '\\ude00 done"}')]),
    chunk([{"index": 1, "extra_content": {"google": {"thought_signature": "c2lnLWMy"}}}]),
    chunk(finish="tool_calls"),
]


def main() -> None:
    message = streamfix.assemble(STREAM)
    for tool_call in message.tool_calls:
        print(
            f"{tool_call.index}: {tool_call.name}({tool_call.parsed!r}) "
            f"id={tool_call.id} signature={tool_call.thought_signature}"
        )
    print(f"finish_reason={message.finish_reason}")
    for diagnostic in message.diagnostics:
        print(f"repaired: {diagnostic.code}: {diagnostic.detail}")


if __name__ == "__main__":
    main()
