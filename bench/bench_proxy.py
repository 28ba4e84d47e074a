"""The repairing proxy under load: N concurrent streams through it, side by side with the
same streams straight to the upstream, in one run. Loopback only; not a test.

Three processes: an upstream (a plain ASGI app on uvicorn that streams a tool-call answer
in OpenAI's form, each event stamped with ``time.monotonic_ns()`` as it is sent), the
proxy (``uvicorn --factory streamfix.proxy:create_app``, one worker, the upstream in
``STREAMFIX_UPSTREAM``), and this one, the client (asyncio sockets, a minimal HTTP/1.1
reader: the client's own cost stays small and the same on both paths).

Measured, direct and through the proxy, at 1, 50 and 200 concurrent streams:

Paced streams start spread over half a second (as requests arrive, not all in the same
millisecond), and the upstream's interval varies by half of it either way (a model's pace),
so that streams do not send in lockstep.

- latency per chunk: when the client reads an event minus when the upstream sent it
  (CLOCK_MONOTONIC is one clock for every process); the proxy's added latency is the
  difference of the two paths' p50 and p99;
- time to first byte (request sent to the first byte of the body);
- chunks per second: events read by the client over the batch's wall time, paced (the
  upstream sends an event every ``--interval`` ms, as a model streams tokens) and unpaced
  (events as fast as the upstream writes them: the proxy's ceiling);
- CPU per stream: the proxy process's CPU time (``/proc``) over a batch, per stream;
- memory: the proxy's RSS after a warm-up and after 10,000 more streams (unpaced, 50 at a
  time).

Usage::

    python bench/bench_proxy.py                 # a few minutes on 2 cores
    python bench/bench_proxy.py --quick         # small numbers, a smoke run
    python bench/bench_proxy.py --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")

# --- the upstream (run in its own process: python bench_proxy.py --serve PORT) -------------

ARGUMENT_PIECES = 40  # argument fragments a call; two calls; ~90 events a stream


def _events(interval: float) -> list[dict[str, Any]]:
    """One answer in OpenAI's own form: role, some text, two calls in fragments, finish."""
    base = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 0}
    base["model"] = "bench"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": word}) for word in ("Let ", "me ", "look ", "that ", "up.")]
    for index, name in enumerate(("read_file", "write_note")):
        text = json.dumps({"path": f"/tmp/{name}.txt", "text": "lorem ipsum dolor " * 30})
        size = -(-len(text) // ARGUMENT_PIECES)
        header = {"index": index, "id": f"call_{index}", "type": "function"}
        out.append(chunk({"tool_calls": [{**header, "function": {"name": name, "arguments": ""}}]}))
        out += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": text[i : i + size]}}]})
            for i in range(0, len(text), size)
        ]
    out.append(chunk({}, "tool_calls"))
    del interval
    return out


async def _upstream(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            event = await receive()
            kind = event["type"].split(".")[-1]
            await send({"type": f"lifespan.{kind}.complete"})
            if kind == "shutdown":
                return
    body = b""
    while True:
        event = await receive()
        body += event.get("body", b"")
        if not event.get("more_body"):
            break
    interval = float(json.loads(body).get("interval_ms", 0)) / 1000
    headers = [(b"content-type", b"text/event-stream")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    for chunk in EVENTS:
        if interval:  # a model's pace: the interval, give or take half of it
            await asyncio.sleep(interval * random.uniform(0.5, 1.5))
        stamped = {**chunk, "x_sent": time.monotonic_ns()}  # an unknown field: passed on
        data = f"data: {json.dumps(stamped)}\n\n".encode()
        await send({"type": "http.response.body", "body": data, "more_body": True})
    await send({"type": "http.response.body", "body": b"data: [DONE]\n\n"})


EVENTS = _events(0)

# --- the client -----------------------------------------------------------------------------


@dataclass
class Stream:
    ttfb: float = 0.0
    latencies: list[float] = field(default_factory=list)  # ms, one an event
    sent: list[int] = field(default_factory=list)  # when the upstream sent each (ns)
    batch_start: int = 0
    events: int = 0
    done: bool = False


async def _one(port: int, interval_ms: float, tools: list[dict[str, Any]]) -> Stream:
    """One streamed request; each event's latency from its upstream stamp."""
    body = json.dumps(
        {
            "model": "bench",
            "messages": [],
            "stream": True,
            "tools": tools,
            "interval_ms": interval_ms,
        }
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    out = Stream()
    started = time.monotonic_ns()
    writer.write(head + body)
    await writer.drain()
    await reader.readuntil(b"\r\n\r\n")
    buffer = b""
    first = True
    try:
        while True:
            size_line = await reader.readline()  # chunked transfer encoding
            size = int(size_line.strip() or b"0", 16)
            if size == 0:
                break
            data = await reader.readexactly(size + 2)
            now = time.monotonic_ns()
            if first:
                out.ttfb, first = (now - started) / 1e6, False
            buffer += data[:-2]
            *events, buffer = buffer.split(b"\n\n")
            for event in events:
                payload = event[6:]
                if payload == b"[DONE]":
                    out.done = True
                    continue
                sent = json.loads(payload).get("x_sent")
                if sent is not None:
                    out.latencies.append((now - sent) / 1e6)
                    out.sent.append(sent)
                    out.events += 1
    finally:
        writer.close()
    return out


async def _later(
    delay: float, port: int, interval_ms: float, tools: list[dict[str, Any]]
) -> Stream:
    await asyncio.sleep(delay)
    return await _one(port, interval_ms, tools)


async def _batch(
    port: int, n: int, interval_ms: float, tools: list[dict[str, Any]]
) -> tuple[list[Stream], float]:
    started = time.perf_counter()
    # paced streams start spread over their first half second, as requests arrive
    spread = [random.uniform(0, 0.5) if interval_ms and n > 1 else 0.0 for _ in range(n)]
    begun = time.monotonic_ns()
    streams = await asyncio.gather(*(_later(d, port, interval_ms, tools) for d in spread))
    for stream in streams:
        stream.batch_start = begun
    return list(streams), time.perf_counter() - started


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# --- processes ------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(command: list[str], port: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(
        f"{command} did not start: {process.stderr.read() if process.stderr else ''}"
    )


def _processes(pid: int) -> list[int]:
    """The proxy's process and its workers' (``--workers N``)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    found = [int(c) for c in children.read_text().split()] if children.exists() else []
    return [pid, *found]


def _cpu(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime
    return total


def _rss_mb(pids: list[int]) -> float:
    pages = sum(int(Path(f"/proc/{pid}/statm").read_text().split()[1]) for pid in pids)
    return pages * PAGE / 2**20


def _server_stack() -> str:
    import importlib.util

    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return f"uvicorn on {loop} + {http}"


def _uvicorn(app: str, port: int, *more: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "uvicorn",
        app,
        "--port",
        str(port),
        "--log-level",
        "warning",
        "--no-access-log",
        "--lifespan",
        "on",
        *more,
    ]


# --- the run --------------------------------------------------------------------------------

TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("read_file", "write_note")
]


def _row(
    label: str, n: int, streams: list[Stream], wall: float, cpu: float | None
) -> dict[str, Any]:
    latencies = [v for s in streams for v in s.latencies]
    # once every stream of its batch has begun: events sent 0.6 s or more after it began
    steady = [
        v
        for s in streams
        for t, v in zip(s.sent, s.latencies, strict=True)
        if t - s.batch_start > 6e8
    ]
    events = sum(s.events for s in streams)
    return {
        "path": label,
        "streams": n,
        "complete": sum(s.done for s in streams),
        "p50_ms": _pct(latencies, 0.50),
        "p99_ms": _pct(latencies, 0.99),
        "steady_p99_ms": _pct(steady, 0.99),
        "ttfb_p50_ms": _pct([s.ttfb for s in streams], 0.50),
        "ttfb_p99_ms": _pct([s.ttfb for s in streams], 0.99),
        "chunks_per_s": events / wall,
        "cpu_ms_per_stream": None if cpu is None else cpu * 1000 / n,
    }


def _print_row(row: dict[str, Any], mode: str) -> None:
    cpu = row["cpu_ms_per_stream"]
    steady = f" (steady {row['steady_p99_ms']:7.3f} ms)" if mode == "paced" else ""
    print(
        f"  {mode:<7} {row['path']:<6} N={row['streams']:<4} complete {row['complete']:>4}  "
        f"latency/chunk p50 {row['p50_ms']:7.3f} ms p99 {row['p99_ms']:7.3f} ms{steady}  "
        f"TTFB p50 {row['ttfb_p50_ms']:7.2f} ms p99 {row['ttfb_p99_ms']:7.2f} ms  "
        f"{row['chunks_per_s']:9.0f} chunks/s"
        + ("" if cpu is None else f"  proxy CPU {cpu:6.2f} ms/stream"),
        flush=True,
    )


async def _level(
    ports: dict[str, int], proxy_pids: list[int], n: int, interval: float, rounds: int
) -> list[dict[str, Any]]:
    rows = []
    mode = "paced" if interval else "unpaced"
    for label in ("direct", "proxy"):
        streams: list[Stream] = []
        wall = 0.0
        cpu_before = _cpu(proxy_pids)
        for _ in range(rounds):
            batch, took = await _batch(ports[label], n, interval, TOOLS)
            streams += batch
            wall += took
        cpu = _cpu(proxy_pids) - cpu_before if label == "proxy" else None
        row = _row(label, n, streams, wall, cpu)
        row["mode"] = mode
        row["streams"] = n
        # /proc counts CPU time in ticks (10 ms): too coarse for a handful of streams
        measured = cpu is not None and n * rounds >= 20
        row["cpu_ms_per_stream"] = cpu * 1000 / (n * rounds) if measured and cpu else None
        rows.append(row)
        _print_row(row, mode)
    direct, proxied = rows
    added = {
        "mode": mode,
        "streams": n,
        "added_p50_ms": proxied["p50_ms"] - direct["p50_ms"],
        "added_p99_ms": proxied["p99_ms"] - direct["p99_ms"],
        "added_steady_p99_ms": proxied["steady_p99_ms"] - direct["steady_p99_ms"],
        "added_ttfb_p50_ms": proxied["ttfb_p50_ms"] - direct["ttfb_p50_ms"],
    }
    steady = f" (steady {added['added_steady_p99_ms']:+.3f} ms)" if interval else ""
    print(
        f"  {mode:<7} added  N={n:<4} latency/chunk p50 {added['added_p50_ms']:+.3f} ms "
        f"p99 {added['added_p99_ms']:+.3f} ms{steady}"
        f"  TTFB p50 {added['added_ttfb_p50_ms']:+.2f} ms",
        flush=True,
    )
    return [*rows, added]


async def _memory(port: int, pids: list[int], total: int, concurrency: int) -> dict[str, Any]:
    warm, _ = await _batch(port, concurrency, 0, TOOLS)
    before = _rss_mb(pids)
    done = 0
    complete = sum(s.done for s in warm)
    started = time.perf_counter()
    while done < total:
        batch, _ = await _batch(port, min(concurrency, total - done), 0, TOOLS)
        complete += sum(s.done for s in batch)
        done += len(batch)
    after = _rss_mb(pids)
    took = time.perf_counter() - started
    print(
        f"  memory: proxy RSS {before:.1f} MB after a warm-up, {after:.1f} MB after {total} more"
        f" streams ({after - before:+.1f} MB; {took:.0f} s;"
        f" all complete: {complete == total + len(warm)})",
        flush=True,
    )
    return {"rss_before_mb": before, "rss_after_mb": after, "streams": total, "seconds": took}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="small numbers: a smoke run")
    parser.add_argument("--interval", type=float, default=50.0, help="ms between paced events")
    parser.add_argument("--workers", type=int, default=1, help="the proxy's uvicorn workers")
    parser.add_argument("--levels", help="concurrent streams, e.g. 1,50,200 (the default)")
    parser.add_argument("--memory", type=int, help="streams for the memory figure (10000)")
    parser.add_argument("--unpaced", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    if args.serve:
        import uvicorn

        uvicorn.run(_upstream, port=args.serve, log_level="warning", access_log=False)
        return 0
    levels = (1, 5) if args.quick else (1, 50, 200)
    if args.levels:
        levels = tuple(int(n) for n in args.levels.split(","))
    rounds = 1 if args.quick else 3
    memory_streams = 200 if args.quick else 10_000
    if args.memory is not None:
        memory_streams = args.memory
    up, px = _free_port(), _free_port()
    env = {**os.environ, "STREAMFIX_UPSTREAM": f"http://127.0.0.1:{up}"}
    upstream = _start([sys.executable, __file__, "--serve", str(up)], up, env)
    workers = ("--workers", str(args.workers)) if args.workers > 1 else ()
    proxy = _start(_uvicorn("streamfix.proxy:create_app", px, "--factory", *workers), px, env)
    results: dict[str, Any] = {"events_per_stream": len(EVENTS), "interval_ms": args.interval}
    results["workers"] = args.workers
    try:
        print(
            f"{len(EVENTS)} events a stream; paced: one every {args.interval:g} ms;"
            f" proxy workers: {args.workers}; {_server_stack()}",
            flush=True,
        )
        ports = {"direct": up, "proxy": px}
        for port in (up, px):  # warm-up: imports, the proxy's first client
            asyncio.run(_batch(port, 5, 0, TOOLS))
        rows: list[dict[str, Any]] = []
        pids = _processes(proxy.pid)
        for n in levels:
            rows += asyncio.run(_level(ports, pids, n, args.interval, rounds))
        for n in levels if args.unpaced else ():
            rows += asyncio.run(_level(ports, pids, n, 0, rounds))
        results["rows"] = rows
        if memory_streams:
            results["memory"] = asyncio.run(_memory(px, pids, memory_streams, 50))
    finally:
        for process in (proxy, upstream):
            process.terminate()
            process.wait(30)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
