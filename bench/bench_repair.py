"""The repaired stream's cost, side by side with ``streamfix.assemble`` in one process.

Two tables:

1. **Cost per fragment.** The benchmark stream of ``bench_assemble.py`` (4 calls, 4
   characters of arguments a chunk, OpenAI's own form) at 20 KB, 200 KB and 2 MB, as dicts,
   ``openai`` ``ChatCompletionChunk`` and ``litellm`` ``ModelResponseStream`` objects:
   ``streamfix.assemble(chunks)`` and ``for c in streamfix.repair(chunks, tools)`` (every
   chunk passed on: R1), per fragment, and their ratio. The same stream with the name
   repeated on every fragment (C1, Fireworks and MiniMax: every chunk rewritten) shows
   what a rewrite costs.
2. **Chunks held (R6).** For every scenario of the corpus, and for every recording in
   ``../shared/real-streams/`` (read at run time; nothing of it is copied): chunks in,
   chunks out, chunks passed on as the same object, chunks whose tool-call content
   waited. The tools are the ones the stream's expected calls name (a wire reads them
   from the request).

Usage::

    python bench/bench_repair.py            # 20 KB, 200 KB, 2 MB
    python bench/bench_repair.py --quick    # small sizes
    python bench/bench_repair.py --real-streams PATH
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_assemble as base
from bench_litellm import _best  # the one best-of-runs timer of the benches

import streamfix
import streamfix.testing

SIZES = (("20 KB", 20_000), ("200 KB", 200_000), ("2 MB", 2_000_000))
QUICK = (("4 KB", 4_000), ("20 KB", 20_000))
HERE = Path(__file__).resolve().parent
REAL_STREAMS = HERE.parent.parent / "shared" / "real-streams"


def _repeated_names(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """C1: the id, type and name on every fragment of a call."""
    out = copy.deepcopy(chunks)
    heads: dict[int, dict[str, Any]] = {}
    for body in out:
        for entry in body["choices"][0]["delta"].get("tool_calls") or ():
            if "id" in entry:
                heads[entry["index"]] = entry
            else:
                head = heads[entry["index"]]
                entry.update(id=head["id"], type="function")
                entry["function"]["name"] = head["function"]["name"]
    return out


def cost_table(sizes: tuple[tuple[str, int], ...], repeat: int) -> list[dict[str, Any]]:
    rows = []
    for label, size in sizes:
        stream = base.build_stream(label, size)
        tools = list(base.TOOL_NAMES)
        shapes = {"openai form": stream.chunks}
        if size <= 200_000:  # every chunk rebuilt: a 2 MB row adds nothing but minutes
            shapes["C1 names repeated"] = _repeated_names(stream.chunks)
        for shape, dicts in shapes.items():
            for kind, convert in (
                ("dict", list),
                ("openai", base.to_openai),
                ("litellm", base.to_litellm),
            ):
                chunks = convert(dicts)
                n = repeat if size <= 200_000 else max(1, repeat // 3)
                assemble = _best(lambda c=chunks: streamfix.assemble(c), n)
                repaired = _best(lambda c=chunks, t=tools: list(streamfix.repair(c, t)), n)
                out = list(streamfix.repair(chunks, tools))
                same = sum(a is b for a, b in zip(out, chunks, strict=False))
                rows.append(
                    {
                        "size": label,
                        "shape": shape,
                        "kind": kind,
                        "fragments": stream.fragments,
                        "assemble_us": assemble / stream.fragments * 1e6,
                        "repair_us": repaired / stream.fragments * 1e6,
                        "ratio": repaired / assemble,
                        "same_objects": f"{same}/{len(chunks)}",
                    }
                )
                print(_cost_line(rows[-1]), flush=True)
    return rows


def _cost_line(row: dict[str, Any]) -> str:
    return (
        f"  {row['size']:>6} {row['shape']:<18} {row['kind']:<7} "
        f"assemble {row['assemble_us']:6.2f} us/fragment, repair {row['repair_us']:6.2f} "
        f"us/fragment: {row['ratio']:.2f}x; passed on as the same object {row['same_objects']}"
    )


def held(chunks: list[Any], tools: list[str] | None) -> dict[str, Any]:
    repairer = streamfix.StreamRepairer(tools)
    out: list[Any] = []
    for body in chunks:
        out.extend(repairer.feed(body))
        if repairer.error is not None:
            break
    else:
        out.extend(repairer.finish())
    ids = {id(body) for body in chunks}
    return {
        "in": len(chunks),
        "out": len(out),
        "same": sum(id(body) in ids for body in out),
        "held": repairer.held,
        "error": type(repairer.error).__name__ if repairer.error is not None else "",
    }


def held_table(real_streams: Path | None) -> list[dict[str, Any]]:
    rows = []
    for name, scenario in streamfix.testing.scenarios("openai").items():
        tools = sorted({call["name"] for call in scenario.calls})
        rows.append({"stream": name, "source": "corpus", **held(list(scenario.chunks), tools)})
    if real_streams is not None and (real_streams / "index.json").exists():
        for entry in json.loads((real_streams / "index.json").read_text()):
            chunks = []
            for line in (real_streams / entry["file"]).read_text().splitlines():
                try:
                    chunks.append(json.loads(line))
                except ValueError:
                    continue
            tools = [c["name"] for c in (entry.get("expected") or {}).get("calls") or []]
            provider = entry["provider"].split()[0]
            rows.append({"stream": entry["file"], "source": provider, **held(chunks, tools)})
    return rows


def print_held(rows: list[dict[str, Any]]) -> None:
    by_source: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_source.setdefault(row["source"], []).append(row)
    print("\nChunks held back (R6), per source: streams, chunks in/out, same objects, held")
    for source, group in sorted(by_source.items()):
        streams = len(group)
        total_in = sum(r["in"] for r in group)
        total_out = sum(r["out"] for r in group)
        same = sum(r["same"] for r in group)
        held_chunks = sum(r["held"] for r in group)
        identical = sum(r["in"] == r["out"] == r["same"] for r in group)
        print(
            f"  {source:<40} {streams:>3} streams ({identical} identical): "
            f"{total_in} in, {total_out} out, {same} same objects, {held_chunks} held"
        )
    print("\nPer corpus scenario: in, out, same, held, error")
    for row in rows:
        if row["source"] == "corpus":
            print(
                f"  {row['stream']:<26} {row['in']:>3} {row['out']:>3} {row['same']:>3} "
                f"{row['held']:>3} {row['error']}"
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--real-streams", type=Path, default=REAL_STREAMS)
    args = parser.parse_args(argv)
    print("streamfix.repair vs streamfix.assemble, per fragment (best of runs, one process)")
    cost_table(QUICK if args.quick else SIZES, args.repeat)
    print_held(held_table(args.real_streams))


if __name__ == "__main__":
    main()
