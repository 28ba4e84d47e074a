"""llama-server on 127.0.0.1, started and stopped by its process id.

:func:`serve` writes nothing itself: it takes the binary (``build_server.build()``) and
the model file (``tiny_model.write_model``), starts ``llama-server`` on a free port with one
slot, waits for ``/health`` and yields the OpenAI-compatible base URL (``.../v1``); at the
end it stops that process (terminate, wait, kill). Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

MODEL = "streamfix-tiny-tools"
SEED = 0
#: Deterministic answers: one slot (no batching of two requests), no prompt-cache reuse
#: between requests, one thread, a fixed default seed; the chat template of the model
#: file read with --jinja.
OPTIONS = [
    "--jinja",
    "--ctx-size", "4096",
    "--parallel", "1",
    "--threads", "1",
    "--threads-batch", "1",
    "--cache-reuse", "0",
    "--seed", str(SEED),
    "--alias", MODEL,
    "--no-webui",
]  # fmt: skip
STARTUP = 120.0  # seconds to wait for /health


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _healthy(root: str) -> bool:
    try:
        with urllib.request.urlopen(f"{root}/health", timeout=2) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop ``process`` (this one, by its id): terminate, wait, kill if it will not end."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=15)


@contextlib.contextmanager
def serve(binary: Path, model: Path, log: Path) -> Iterator[str]:
    """``llama-server`` serving ``model``; yields its base URL ``http://127.0.0.1:<port>/v1``.
    Its output goes to ``log`` (named in the error when it does not start)."""
    port = free_port()
    command = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        env = {**os.environ, "LLAMA_ARG_THREADS": "1"}
        process = subprocess.Popen(
            [*command, *OPTIONS], stdout=out, stderr=subprocess.STDOUT, env=env
        )
    root = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP
        while not _healthy(root):
            if process.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-3000:]
                raise RuntimeError(f"llama-server did not start (see {log}):\n{tail}")
            time.sleep(0.2)
        yield f"{root}/v1"
    finally:
        stop(process)
