"""Side-by-side benchmark: assembling streamed tool calls, streamfix vs. what users pick instead.

One process, identical streams. Each stream is the standard OpenAI Chat Completions dialect:
4 tool calls, one after another, one tool-call fragment per chunk; the first fragment of a
call carries ``id``, ``type`` and ``name`` (with empty ``arguments``, as OpenAI sends it), the
following fragments carry 4 characters of argument text each, and a last chunk with an empty
delta carries ``finish_reason="tool_calls"``. Arguments are realistic ``write_file``-like
objects (``path``, long ``content`` with newlines, quotes and non-ASCII text, ``options``).

Contenders (each gets the stream in the shape its users receive it; conversions are done
before timing and are not timed):

* floor: a bare loop over the dict chunks that appends each fragment's argument text to a
  per-index list and joins once at the end (no ids, names or validation);
* ``streamfix.assemble`` on dicts, on ``openai`` ``ChatCompletionChunk`` objects and on
  ``litellm`` ``ModelResponseStream`` objects;
* ``litellm.stream_chunk_builder`` on ``ModelResponseStream`` objects;
* ``openai.lib.streaming.chat.ChatCompletionStreamState``: ``handle_chunk`` per chunk, then
  ``get_final_completion()``;
* smolagents ``agglomerate_stream_deltas`` on ``ChatMessageStreamDelta`` objects built the way
  ``OpenAIServerModel.generate_stream`` builds them;
* langchain-core ``AIMessageChunk`` addition over chunks carrying ``tool_call_chunks``, with
  the loop the langchain docs show for streamed tool calls
  (``gathered = chunk if gathered is None else gathered + chunk``). ``functools.reduce(
  operator.add, chunks)`` is the same sequence of binary additions.

Every contender's result is checked (4 calls, right ids and names, ``json.loads``-equal
arguments) on its first run; a wrong result is reported as WRONG instead of a time. Times are
the best of several runs (``time.perf_counter``, gc disabled during a run). On the large size,
a contender runs only if a projection from smaller streams of the same shape stays under
``--limit`` seconds; otherwise it is reported as skipped with the projected time.

Usage::

    python bench/bench_assemble.py            # 20 KB and 2 MB of arguments
    python bench/bench_assemble.py --quick    # small sizes (smoke test)
    python bench/bench_assemble.py --json results.json
"""

from __future__ import annotations

import argparse
import copy
import gc
import importlib
import importlib.metadata
import json
import math
import os
import platform
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

N_CALLS = 4
FRAGMENT_CHARS = 4
FULL_SIZES: tuple[tuple[str, int], ...] = (("20 KB", 20_000), ("2 MB", 2_000_000))
QUICK_SIZES: tuple[tuple[str, int], ...] = (("1 KB", 1_000), ("4 KB", 4_000))
TOOL_NAMES = ("write_file", "edit_file", "create_file", "append_file")

Chunk = dict[str, Any]
Call = tuple[Any, Any, Any]
"""(id, name, parsed arguments) of one assembled call; id/name None if not reported."""


# --------------------------------------------------------------------------- payloads


_WORDS = (
    "the", "stream", "assembler", "tool", "call", "arguments", "fragment", "value", "naïve",
    "café", "Grüße", "façade", "日本語", "данные", "Ωmega", "señor", "emoji🙂", '"quoted"',
    "it's", "back\\slash", "{brace}", "[list]", "a: 1,", "tab\there", "x < y && y > z",
    "path/to/file.py", "€42", "ünïcödé", "\u00a0nbsp",
)  # fmt: skip


def _json_len(text: str) -> int:
    """UTF-8 size of ``text`` as a JSON string body (without the quotes)."""
    return len(json.dumps(text, ensure_ascii=False).encode()) - 2


def _text(rng: random.Random, budget: int) -> str:
    """Prose with newlines, quotes and non-ASCII, about ``budget`` JSON-encoded bytes."""
    out: list[str] = []
    used = 0
    while used < budget:
        word = rng.choice(_WORDS)
        sep = "\n" if rng.random() < 0.08 else " "
        piece = word + sep
        out.append(piece)
        used += _json_len(piece)
    return "".join(out)


def make_payloads(total_bytes: int, seed: int = 1234) -> list[dict[str, Any]]:
    """``N_CALLS`` argument objects whose JSON texts total about ``total_bytes`` bytes."""
    rng = random.Random(seed)
    payloads = []
    for i in range(N_CALLS):
        obj: dict[str, Any] = {
            "path": f"src/package_{i}/module_{i}.py",
            "content": "",
            "options": {
                "overwrite": i % 2 == 0,
                "encoding": "utf-8",
                "mode": "0644",
                "create_parents": True,
                "tags": ["bench", f"call-{i}", "ünïcödé"],
                "retries": i,
                "timeout_s": 2.5,
            },
        }
        overhead = len(json.dumps(obj, ensure_ascii=False).encode())
        obj["content"] = _text(rng, max(16, total_bytes // N_CALLS - overhead))
        payloads.append(obj)
    return payloads


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> Chunk:
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_bench",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
    }


@dataclass
class Stream:
    """One benchmark stream: dict chunks plus what a correct assembler must produce."""

    label: str
    size: int
    """Requested size in bytes of arguments (the cache key)."""
    total_bytes: int
    """Actual UTF-8 bytes of the 4 argument texts."""
    chunks: list[Chunk]
    expected: list[Call]
    fragments: int


def build_stream(label: str, total_bytes: int) -> Stream:
    """The standard OpenAI stream for ``N_CALLS`` calls with ``total_bytes`` of arguments."""
    payloads = make_payloads(total_bytes)
    chunks: list[Chunk] = []
    expected: list[Call] = []
    real_bytes = 0
    for i, payload in enumerate(payloads):
        call_id = f"call_{i:02d}bench{'x' * 16}"
        name = TOOL_NAMES[i % len(TOOL_NAMES)]
        text = json.dumps(payload, ensure_ascii=False)
        real_bytes += len(text.encode())
        expected.append((call_id, name, payload))
        head = {
            "index": i,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        delta: dict[str, Any] = {"tool_calls": [head]}
        if i == 0:
            delta = {"role": "assistant", "content": None, "tool_calls": [head], "refusal": None}
        chunks.append(_chunk(delta))
        for k in range(0, len(text), FRAGMENT_CHARS):
            piece = text[k : k + FRAGMENT_CHARS]
            chunks.append(_chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    chunks.append(_chunk({}, "tool_calls"))
    return Stream(label, total_bytes, real_bytes, chunks, expected, fragments=len(chunks) - 1)


# --------------------------------------------------------------------------- conversions


def to_openai(chunks: list[Chunk]) -> list[Any]:
    """``openai`` ``ChatCompletionChunk`` objects, as the openai client yields them."""
    chunk_cls = importlib.import_module("openai.types.chat").ChatCompletionChunk
    return [chunk_cls.model_validate(c) for c in chunks]


def to_litellm(chunks: list[Chunk]) -> list[Any]:
    """``litellm`` ``ModelResponseStream`` objects, as ``litellm.completion(stream=True)``."""
    stream_cls = importlib.import_module("litellm.types.utils").ModelResponseStream
    # litellm's constructors change the dicts they are given: build from copies, so the
    # dict chunks every other contender reads stay as the provider sent them.
    return [stream_cls(**copy.deepcopy(c)) for c in chunks]


def to_smolagents(chunks: list[Chunk]) -> list[Any]:
    """``ChatMessageStreamDelta`` objects, built as ``OpenAIServerModel.generate_stream`` does."""
    models = importlib.import_module("smolagents.models")
    out = []
    for c in chunks:
        delta = c["choices"][0]["delta"]
        calls = [
            models.ChatMessageToolCallStreamDelta(
                index=tc["index"],
                id=tc.get("id"),
                type=tc.get("type"),
                function=models.ChatMessageToolCallFunction(
                    arguments=tc["function"].get("arguments"), name=tc["function"].get("name")
                ),
            )
            for tc in delta.get("tool_calls") or ()
        ]
        out.append(
            models.ChatMessageStreamDelta(content=delta.get("content"), tool_calls=calls or None)
        )
    return out


def to_langchain(chunks: list[Chunk]) -> list[Any]:
    """``AIMessageChunk`` objects with ``tool_call_chunks``, as langchain-openai builds them.

    Only the provider-neutral fields are set (langchain-openai also copies the raw
    ``tool_calls`` into ``additional_kwargs``, which would add merging work).
    """
    messages = importlib.import_module("langchain_core.messages")
    make_chunk = importlib.import_module("langchain_core.messages.tool").tool_call_chunk
    out = []
    for c in chunks:
        choice = c["choices"][0]
        tool_call_chunks = [
            make_chunk(
                name=tc["function"].get("name"),
                args=tc["function"].get("arguments"),
                id=tc.get("id"),
                index=tc["index"],
            )
            for tc in choice["delta"].get("tool_calls") or ()
        ]
        if choice["finish_reason"]:
            out.append(
                messages.AIMessageChunk(
                    content="",
                    id=c["id"],
                    chunk_position="last",
                    response_metadata={
                        "finish_reason": choice["finish_reason"],
                        "model_name": c["model"],
                    },
                )
            )
        else:
            out.append(
                messages.AIMessageChunk(
                    content=choice["delta"].get("content") or "",
                    id=c["id"],
                    tool_call_chunks=tool_call_chunks,
                )
            )
    return out


CONVERTERS: dict[str, Callable[[list[Chunk]], list[Any]]] = {
    "dict": lambda chunks: chunks,
    "openai": to_openai,
    "litellm": to_litellm,
    "smolagents": to_smolagents,
    "langchain": to_langchain,
}


# --------------------------------------------------------------------------- contenders


def run_floor(chunks: list[Chunk]) -> dict[int, str]:
    parts: dict[int, list[str]] = {}
    for chunk in chunks:
        for choice in chunk["choices"]:
            for tc in choice["delta"].get("tool_calls") or ():
                parts.setdefault(tc["index"], []).append(tc["function"]["arguments"])
    return {index: "".join(texts) for index, texts in parts.items()}


def calls_floor(result: dict[int, str]) -> list[Call]:
    return [(None, None, json.loads(result[i])) for i in sorted(result)]


def run_streamfix(chunks: list[Any]) -> Any:
    return importlib.import_module("streamfix").assemble(chunks)


def calls_streamfix(message: Any) -> list[Call]:
    return [(tc.id, tc.name, json.loads(tc.arguments)) for tc in message.tool_calls]


def run_litellm(chunks: list[Any]) -> Any:
    return importlib.import_module("litellm").stream_chunk_builder(chunks)


def run_openai_state(chunks: list[Any]) -> Any:
    streaming = importlib.import_module("openai.lib.streaming.chat")
    state = streaming.ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(chunk)
    return state.get_final_completion()


def calls_completion(completion: Any) -> list[Call]:
    """Calls of an openai ``ChatCompletion`` or a litellm ``ModelResponse``."""
    tool_calls = completion.choices[0].message.tool_calls or []
    return [(tc.id, tc.function.name, json.loads(tc.function.arguments)) for tc in tool_calls]


def run_smolagents(deltas: list[Any]) -> Any:
    return importlib.import_module("smolagents.models").agglomerate_stream_deltas(deltas)


def calls_smolagents(message: Any) -> list[Call]:
    return [
        (tc.id, tc.function.name, json.loads(tc.function.arguments))
        for tc in message.tool_calls or []
    ]


def run_langchain(chunks: list[Any]) -> Any:
    gathered = None
    for chunk in chunks:
        gathered = chunk if gathered is None else gathered + chunk
    return gathered


def calls_langchain(message: Any) -> list[Call]:
    if message.invalid_tool_calls:
        raise ValueError(f"{len(message.invalid_tool_calls)} invalid_tool_calls")
    return [(tc["id"], tc["name"], tc["args"]) for tc in message.tool_calls]


@dataclass(frozen=True)
class Contender:
    key: str
    label: str
    kind: str
    """Input kind, a key of CONVERTERS."""
    module: str
    """Module whose import decides if the contender is available."""
    run: Callable[[list[Any]], Any]
    calls: Callable[[Any], list[Call]]


CONTENDERS: tuple[Contender, ...] = (
    Contender(
        "floor", "floor (append to list per index, join)", "dict", "json", run_floor, calls_floor
    ),
    Contender(
        "streamfix_dict",
        "streamfix.assemble (dict chunks)",
        "dict",
        "streamfix",
        run_streamfix,
        calls_streamfix,
    ),
    Contender(
        "streamfix_openai",
        "streamfix.assemble (openai chunks)",
        "openai",
        "streamfix",
        run_streamfix,
        calls_streamfix,
    ),
    Contender(
        "streamfix_litellm",
        "streamfix.assemble (litellm chunks)",
        "litellm",
        "streamfix",
        run_streamfix,
        calls_streamfix,
    ),
    Contender(
        "litellm",
        "litellm.stream_chunk_builder",
        "litellm",
        "litellm",
        run_litellm,
        calls_completion,
    ),
    Contender(
        "openai_state",
        "openai ChatCompletionStreamState",
        "openai",
        "openai",
        run_openai_state,
        calls_completion,
    ),
    Contender(
        "smolagents",
        "smolagents agglomerate_stream_deltas",
        "smolagents",
        "smolagents",
        run_smolagents,
        calls_smolagents,
    ),
    Contender(
        "langchain",
        "langchain-core AIMessageChunk + loop",
        "langchain",
        "langchain_core",
        run_langchain,
        calls_langchain,
    ),
)


def available(contender: Contender) -> str | None:
    """None if the contender can run, else why not."""
    try:
        module = importlib.import_module(contender.module)
    except Exception as exc:
        return f"n/a ({type(exc).__name__})"
    if contender.module == "streamfix" and not hasattr(module, "assemble"):
        return "n/a (no streamfix.assemble)"
    return None


# --------------------------------------------------------------------------- measuring


@dataclass
class Cell:
    """Outcome of one contender on one stream size."""

    status: str
    """"ok", "wrong", "error", "skipped" or "n/a"."""
    seconds: float | None = None
    """Best run."""
    us_per_fragment: float | None = None
    runs: int = 0
    projected_s: float | None = None
    fragments: int = 0
    note: str = ""


@dataclass
class Settings:
    min_runs: int = 3
    max_runs: int = 200
    budget_s: float = 3.0
    """Target measuring time per cell: more runs for fast contenders."""
    slow_run_s: float = 15.0
    """A first run longer than this is not repeated (keeps the whole bench to minutes)."""
    limit_s: float = 60.0
    """Run a contender on a large stream only if projected under this."""
    probe_limit_s: float = 8.0
    """Intermediate (probe) streams are run only if projected under this."""
    probe_steps: int = 2
    """Probes at sizes geometrically between two benchmark sizes: ``probe_steps - 1`` of them."""


def timed(run: Callable[[list[Any]], Any], inputs: list[Any]) -> tuple[float, Any]:
    """One run with gc disabled; returns (seconds, result).

    Full collections are done once per measured cell (see :func:`measure`), not here: with
    litellm imported and a large stream built, one costs more than a small run.
    """
    gc.disable()
    try:
        start = time.perf_counter()
        result = run(inputs)
        elapsed = time.perf_counter() - start
    finally:
        gc.enable()
    return elapsed, result


def verify(contender: Contender, result: Any, expected: list[Call]) -> str | None:
    """None if ``result`` holds the expected calls, else a short reason."""
    try:
        calls = contender.calls(result)
    except Exception as exc:
        return f"unreadable result: {type(exc).__name__}: {str(exc)[:80]}"
    if len(calls) != len(expected):
        return f"{len(calls)} calls, expected {len(expected)}"
    for position, (got, want) in enumerate(zip(calls, expected, strict=True)):
        for what, got_v, want_v in zip(("id", "name", "arguments"), got, want, strict=True):
            if got_v is not None and got_v != want_v:
                return f"call {position}: wrong {what}"
    return None


def measure(contender: Contender, inputs: list[Any], stream: Stream, settings: Settings) -> Cell:
    """First run verified, then best of as many runs as the budget allows."""
    gc.collect()
    gc.freeze()  # the inputs and imported modules: keep them out of collections in runs
    try:
        first, result = timed(contender.run, inputs)
    except Exception as exc:
        return Cell(
            "error", fragments=stream.fragments, note=f"{type(exc).__name__}: {str(exc)[:100]}"
        )
    problem = verify(contender, result, stream.expected)
    del result
    if problem is not None:
        return Cell("wrong", fragments=stream.fragments, note=problem)
    runs = settings.min_runs
    if first < settings.budget_s / settings.min_runs:
        fits = int(settings.budget_s / max(first, 1e-9))
        runs = min(settings.max_runs, max(settings.min_runs, fits))
    if first > settings.slow_run_s:
        runs = 1
    best = first
    for _ in range(runs - 1):
        best = min(best, timed(contender.run, inputs)[0])
    return Cell(
        "ok",
        seconds=best,
        us_per_fragment=best / stream.fragments * 1e6,
        runs=runs,
        fragments=stream.fragments,
    )


def growth(points: Sequence[tuple[int, float]]) -> float:
    """Exponent k of time ~ fragments**k between the last two (fragments, seconds) points.

    Kept within [1, 2]; with a single point growth is assumed quadratic (pessimistic).
    """
    exponent = 2.0
    if len(points) >= 2:
        (n1, t1), (n2, t2) = points[-2], points[-1]
        if n2 > n1 and t1 > 0 and t2 > 0:
            exponent = math.log(t2 / t1) / math.log(n2 / n1)
    return min(max(exponent, 1.0), 2.0)


def project(points: Sequence[tuple[int, float]], fragments: int) -> float:
    """Time for ``fragments``, from the last measured point and :func:`growth`."""
    n_last, t_last = points[-1]
    return t_last * (fragments / n_last) ** growth(points)


# --------------------------------------------------------------------------- the run


class StreamCache:
    """Streams and converted inputs, built on demand (never timed)."""

    def __init__(self) -> None:
        self._streams: dict[int, Stream] = {}
        self._inputs: dict[tuple[int, str], list[Any]] = {}

    def stream(self, label: str, total_bytes: int) -> Stream:
        if total_bytes not in self._streams:
            gc.disable()
            try:
                self._streams[total_bytes] = build_stream(label, total_bytes)
            finally:
                gc.enable()
        return self._streams[total_bytes]

    def inputs(self, kind: str, stream: Stream) -> list[Any]:
        key = (stream.size, kind)
        if key not in self._inputs:
            # gc off while building: generational collections over a heap of half a million
            # fresh objects would make building several times slower (it is not timed).
            gc.disable()
            try:
                self._inputs[key] = CONVERTERS[kind](stream.chunks)
            finally:
                gc.enable()
        return self._inputs[key]

    def drop(self, keep_size: int | None = None, keep_kinds: Iterable[str] = ()) -> None:
        """Forget everything but stream ``keep_size`` and its inputs of ``keep_kinds``."""
        kinds = set(keep_kinds)
        self._streams = {k: v for k, v in self._streams.items() if k == keep_size}
        self._inputs = {
            k: v for k, v in self._inputs.items() if k[0] == keep_size and k[1] in kinds
        }
        gc.unfreeze()
        gc.collect()


@dataclass
class Row:
    contender: Contender
    cells: dict[str, Cell] = field(default_factory=dict)
    points: list[tuple[int, float]] = field(default_factory=list)
    """(fragments, seconds) of every size it ran, probes included."""
    largest: tuple[str, float] | None = None
    """(size label, us/fragment) of the largest stream it ran."""


def _record(row: Row, stream: Stream, cell: Cell) -> None:
    if cell.status == "ok" and cell.seconds is not None and cell.us_per_fragment is not None:
        row.points.append((stream.fragments, cell.seconds))
        row.largest = (stream.label, cell.us_per_fragment)


def _probe_sizes(previous: int, target: int, steps: int) -> list[int]:
    """Sizes between two benchmark sizes, geometric, for projecting the next one."""
    ratio = (target / previous) ** (1 / steps)
    return [int(previous * ratio**j) for j in range(1, steps)]


def run_probes(row: Row, cache: StreamCache, sizes: Iterable[int], settings: Settings) -> None:
    """Run ``row`` on extra streams of these sizes while each stays cheap, to measure growth."""
    probe_settings = Settings(min_runs=1, max_runs=2, budget_s=0.0, slow_run_s=settings.slow_run_s)
    for size in sizes:
        stream = cache.stream(f"{size / 1000:.1f} KB", size)
        if row.points and project(row.points, stream.fragments) > settings.probe_limit_s:
            return
        try:
            inputs = cache.inputs(row.contender.kind, stream)
        except Exception:
            return  # reported when the benchmark size itself is built
        cell = measure(row.contender, inputs, stream, probe_settings)
        _record(row, stream, cell)
        if cell.status != "ok":
            return


def run_cell(
    row: Row, cache: StreamCache, stream: Stream, previous: int | None, settings: Settings
) -> Cell:
    """Measure one contender on one benchmark stream (with projection on large ones)."""
    if previous is None:  # a calibration point, so that growth is measured, not assumed
        run_probes(row, cache, [stream.size // 4], settings)
    elif row.points:
        run_probes(row, cache, _probe_sizes(previous, stream.size, settings.probe_steps), settings)
        projected = project(row.points, stream.fragments)
        if projected > settings.limit_s:
            sizes = " and ".join(f"{n:,}" for n, _ in row.points[-2:])
            return Cell(
                "skipped",
                projected_s=projected,
                fragments=stream.fragments,
                note=f"growth exponent {growth(row.points):.2f} from runs on {sizes} fragments",
            )
    try:
        inputs = cache.inputs(row.contender.kind, stream)
    except Exception as exc:
        return Cell(
            "error",
            fragments=stream.fragments,
            note=f"building {row.contender.kind} inputs: {type(exc).__name__}: {exc}",
        )
    cell = measure(row.contender, inputs, stream, settings)
    _record(row, stream, cell)
    return cell


def run_bench(
    sizes: Sequence[tuple[str, int]], settings: Settings, log: Callable[[str], None]
) -> tuple[list[Row], list[Stream]]:
    cache = StreamCache()
    rows = [Row(c) for c in CONTENDERS]
    streams = []
    previous: int | None = None
    for label, total_bytes in sizes:
        stream = cache.stream(label, total_bytes)
        streams.append(stream)
        log(f"{label}: {stream.total_bytes:,} bytes of arguments, {stream.fragments:,} fragments")
        for position, row in enumerate(rows):
            reason = available(row.contender)
            if reason is not None:
                row.cells[label] = Cell("n/a", note=reason, fragments=stream.fragments)
                continue
            if previous is not None and not row.points:
                row.cells[label] = Cell(
                    "skipped", fragments=stream.fragments, note="failed on a smaller stream"
                )
                continue
            cell = run_cell(row, cache, stream, previous, settings)
            row.cells[label] = cell
            log(f"  {row.contender.label}: {describe(cell)}")
            cache.drop(total_bytes, {r.contender.kind for r in rows[position + 1 :]})
        previous = total_bytes
        cache.drop()
    return rows, streams


# --------------------------------------------------------------------------- reporting


def describe(cell: Cell) -> str:
    if cell.status == "ok" and cell.us_per_fragment is not None:
        return f"{cell.us_per_fragment:,.3f} us/fragment (best of {cell.runs})"
    if cell.status == "skipped" and cell.projected_s is not None:
        return f"skipped (projected {cell.projected_s:,.0f} s)"
    return f"{cell.status.upper()} {cell.note}".strip()


def _time_text(cell: Cell) -> str:
    if cell.status == "ok" and cell.us_per_fragment is not None:
        return f"{cell.us_per_fragment:,.3f}"
    if cell.status == "skipped" and cell.projected_s is not None:
        return f"skipped (projected {cell.projected_s:,.0f} s)"
    if cell.status in ("wrong", "error"):
        return cell.status.upper()
    return cell.status


def _seconds(cell: Cell | None) -> float | None:
    """Measured time, or the projection when the run was skipped."""
    if cell is None:
        return None
    return cell.seconds if cell.status == "ok" else cell.projected_s


def _ratio_text(cell: Cell, floor: Cell | None) -> str:
    base = _seconds(floor)
    mine = _seconds(cell)
    if base is None or mine is None or cell.status not in ("ok", "skipped"):
        return "-"
    suffix = " (proj.)" if cell.status == "skipped" else ""
    return f"{mine / base:,.1f}{suffix}" if mine / base >= 10 else f"{mine / base:.2f}{suffix}"


def table(rows: list[Row], labels: list[str]) -> str:
    floor = rows[0]
    header = ["library"]
    for label in labels:
        header += [f"us/frag {label}", "x floor"]
    body = []
    for row in rows:
        line = [row.contender.label]
        for label in labels:
            cell = row.cells[label]
            line += [_time_text(cell), _ratio_text(cell, floor.cells.get(label))]
        body.append(line)
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]

    def fmt(cols: list[str]) -> str:
        first = cols[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cols[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest])

    rule = "-" * len(fmt(header))
    return "\n".join([fmt(header), rule, *(fmt(r) for r in body)])


def ratio_lines(rows: list[Row], labels: list[str]) -> list[str]:
    by_key = {row.contender.key: row for row in rows}
    lines = []
    for label in labels:
        fix = by_key["streamfix_dict"].cells[label]
        floor = by_key["floor"].cells[label]
        lines.append(
            f"streamfix dict vs floor ({label}): {_plain_ratio(fix, floor, 2)} (target <= 3x)"
        )
    pairs = (
        ("litellm", "streamfix_litellm", "litellm.stream_chunk_builder / streamfix"),
        ("openai_state", "streamfix_openai", "ChatCompletionStreamState / streamfix"),
    )
    for key, base_key, text in pairs:
        for label in labels:
            ratio = _plain_ratio(by_key[key].cells[label], by_key[base_key].cells[label], 0)
            lines.append(f"{text} ({label}, same chunk objects): {ratio} (target >= 50x)")
    return lines


def _plain_ratio(cell: Cell, base: Cell, digits: int) -> str:
    mine, theirs = _seconds(cell), _seconds(base)
    if cell.status in ("wrong", "error") or base.status in ("wrong", "error"):
        return "n/a (WRONG result)"
    if mine is None or theirs is None:
        return "n/a"
    suffix = " (projected; run skipped)" if cell.status == "skipped" else ""
    return f"{mine / theirs:,.{digits}f}x{suffix}"


def footnotes(rows: list[Row], labels: list[str]) -> list[str]:
    notes = []
    for row in rows:
        for label in labels:
            cell = row.cells[label]
            if cell.status == "skipped" and row.largest is not None:
                size, us = row.largest
                notes.append(
                    f"{row.contender.label}: skipped at {label} ({cell.note}); "
                    f"{us:,.3f} us/fragment at {size} (largest stream it ran)"
                )
            elif cell.status in ("wrong", "error", "n/a") or cell.note:
                notes.append(f"{row.contender.label} at {label}: {describe(cell)}")
    return notes


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def versions() -> dict[str, str]:
    dists = ("adk-streamfix", "openai", "litellm", "smolagents", "langchain-core")
    return {"python": platform.python_version(), **{d: _version(d) for d in dists}}


def report(rows: list[Row], streams: list[Stream]) -> str:
    labels = [s.label for s in streams]
    lines = [
        "Assembling streamed tool calls: " + ", ".join(f"{k} {v}" for k, v in versions().items()),
        *(
            f"{s.label}: {N_CALLS} calls, {s.total_bytes:,} bytes of arguments, "
            f"{s.fragments:,} fragments of {FRAGMENT_CHARS} chars"
            for s in streams
        ),
        "",
        table(rows, labels),
        "",
        *ratio_lines(rows, labels),
    ]
    notes = footnotes(rows, labels)
    if notes:
        lines += ["", "Notes:", *(f"  {n}" for n in notes)]
    return "\n".join(lines)


def to_json(rows: list[Row], streams: list[Stream]) -> dict[str, Any]:
    labels = [s.label for s in streams]
    return {
        "versions": versions(),
        "sizes": [
            {"label": s.label, "argument_bytes": s.total_bytes, "fragments": s.fragments}
            for s in streams
        ],
        "results": {
            row.contender.key: {
                "label": row.contender.label,
                "cells": {k: asdict(v) for k, v in row.cells.items()},
            }
            for row in rows
        },
        "ratios": ratio_lines(rows, labels),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="small sizes and few runs (smoke test)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument(
        "--limit",
        type=float,
        default=60.0,
        help="skip a contender on a large stream if projected above this (s)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the benchmark, print the report, return the JSON-able results."""
    args = parse_args(argv)
    settings = Settings(limit_s=args.limit)
    sizes = FULL_SIZES
    if args.quick:
        sizes = QUICK_SIZES
        settings = Settings(min_runs=1, max_runs=3, budget_s=0.05, limit_s=args.limit)

    def log(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    rows, streams = run_bench(sizes, settings, log)
    print(report(rows, streams))
    results = to_json(rows, streams)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(results, fh, indent=2, ensure_ascii=False)
    return results


if __name__ == "__main__":
    main()
